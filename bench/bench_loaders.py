"""How fast the new loaders read big files, as ratios measured in this one run (not asserted).

    python bench/bench_loaders.py [--mb 100] [--repeat 7] [--only claude-code] [--against DIR]

Builds (in bench/out/, not committed) a synthetic Claude Code transcript and a synthetic
claude-trace log of about --mb megabytes each, shaped like the real ones: answers written one
line per content block, parallel tool results on sibling branches, hook progress lines (the
real transcripts' mix: about 40% of the bytes each for tool results and progress; now and then
an answer hangs off the last of a chain of hook lines, as in real sessions), file-history
snapshots, a compaction; a trace log whose every line carries the whole request (system prompt,
tools, every message so far, moving cache_control breakpoints) and a streamed answer.

For each file, ``--repeat`` interleaved tries of two whole processes (interpreter start-up and
imports included on both sides): a bare ``python -c`` that reads the file and ``orjson.loads``
each line (the values dropped), and ``turnscope check FILE``. It prints the ratio of the median
times against the 2x target, the range of the per-try ratios, and the check's peak memory
(target: at most 6x the file). Exit 1 when a target is missed. ``--against DIR`` (an exported copy of
another checkout) times its ``turnscope check`` in the same rounds, both checkouts byte-compiled first,
and prints this checkout's time as a ratio of its.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
_spec = importlib.util.spec_from_file_location("builders", REPO / "tests" / "fixtures" / "builders.py")
builders = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builders)  # type: ignore[union-attr]

WORDS = ("the refund order shipment carrier policy total cents customer charge invoice scan days "
         "status lookup result error retry loop message block index prefix request branch ").split()


def _text(n: int, seed: int) -> str:
    return " ".join(WORDS[(seed * 7 + k * 13) % len(WORDS)] for k in range(n))


def transcript(path: Path, megabytes: int) -> None:
    base = {"isSidechain": False, "userType": "external", "cwd": "/repo", "sessionId": "bench-session",
            "version": "2.1.39", "gitBranch": "main"}
    lines: list[bytes] = []
    size, turn, parent = 0, 0, None
    compact_at = megabytes * (1 << 20) // 2

    def add(record: dict) -> str:
        """One line, its keys in Claude Code's order: parentUuid, the session facts, the rest, uuid last."""
        nonlocal size
        record = {"parentUuid": record.pop("parentUuid"), **base, **record}
        record["uuid"] = record.pop("uuid")
        data = orjson.dumps(record)
        lines.append(data)
        size += len(data) + 1
        return record.get("uuid", "")

    def stamp(k: int) -> str:
        return f"2026-02-12T{10 + (k // 3600) % 12:02d}:{(k // 60) % 60:02d}:{k % 60:02d}.000Z"

    parent = add({"parentUuid": None, "type": "user", "uuid": "u-0", "timestamp": stamp(0),
                  "message": {"role": "user", "content": "Instrument every request path with tracing spans."}})
    compacted = False
    while size < megabytes * (1 << 20):
        turn += 1
        mid = f"msg_bench{turn:06d}"
        if turn % 8 == 0:  # as in real sessions: hooks ran before this answer, which hangs off their last line
            for h in range(4):
                parent = add({"parentUuid": parent, "type": "progress",
                              "data": {"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Bash",
                                       "command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"},
                              "parentToolUseID": f"toolu_h{turn:06d}", "toolUseID": f"toolu_h{turn:06d}",
                              "timestamp": stamp(turn * 9), "uuid": f"h-{turn}-{h}"})
        if turn % 40 == 0:  # file-history snapshots: no uuid, not in the tree
            lines.append(orjson.dumps({"type": "file-history-snapshot", "messageId": f"snap-{turn}", "snapshot": {
                "messageId": f"snap-{turn}", "trackedFileBackups": {}, "timestamp": stamp(turn * 9)},
                "isSnapshotUpdate": False}))
            size += len(lines[-1]) + 1
        usage = {"input_tokens": 3, "cache_read_input_tokens": 40000 + turn, "output_tokens": 200}
        answer = [{"type": "text", "text": _text(40, turn)}] + [
            {"type": "tool_use", "id": f"toolu_b{turn:06d}{k}", "name": "Read", "input": {"file_path": f"/repo/f{k}.ex"}}
            for k in range(2 if turn % 3 else 1)]
        uses = []
        for k, block in enumerate(answer):
            uuid = f"a-{turn}-{k}"
            parent = add({"parentUuid": parent, "type": "assistant", "uuid": uuid, "timestamp": stamp(turn * 9 + k),
                          "requestId": f"req_bench{turn:06d}", "message": {
                              "model": "claude-opus-4-6", "id": mid, "type": "message", "role": "assistant",
                              "content": [block], "stop_reason": None, "usage": usage}})
            if block["type"] == "tool_use":
                uses.append((uuid, block["id"]))
        for k, (uuid, use_id) in enumerate(uses):
            hook = uuid
            for h in range(6):  # hook progress lines chain off the tool_use line, as Claude Code writes them
                hook = add({"parentUuid": hook, "type": "progress",
                            "data": {"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Read",
                                     "command": "cd ${CLAUDE_PLUGIN_ROOT}/hooks && bun run ./guardian.ts"},
                            "parentToolUseID": use_id, "toolUseID": use_id, "timestamp": stamp(turn * 9 + 4),
                            "uuid": f"p-{turn}-{k}-{h}"})
            output = _text(250, turn + k)
            result = add({"parentUuid": uuid, "type": "user", "uuid": f"r-{turn}-{k}",
                          "timestamp": stamp(turn * 9 + 5), "sourceToolAssistantUUID": uuid,
                          "toolUseResult": {"type": "text", "file": {"filePath": f"/repo/f{k}.ex", "content": output}},
                          "message": {"role": "user", "content": [{"tool_use_id": use_id, "type": "tool_result",
                                                                   "content": output}]}})
            if k == 0:
                last_result = result
        parent = last_result  # the next answer continues from the first result: the others are siblings
        if not compacted and size > compact_at:
            compacted = True
            add({"parentUuid": None, "logicalParentUuid": parent, "type": "system",
                 "subtype": "compact_boundary", "uuid": "boundary", "timestamp": stamp(turn * 9 + 6),
                 "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 160000}})
            parent = add({"parentUuid": "boundary", "type": "user", "uuid": "summary", "isCompactSummary": True,
                          "isVisibleInTranscriptOnly": True, "timestamp": stamp(turn * 9 + 7),
                          "message": {"role": "user", "content": "This session is being continued: " + _text(300, 1)}})
    path.write_bytes(b"\n".join(lines) + b"\n")


def trace_log(path: Path, megabytes: int) -> None:
    system = [{"type": "text", "text": "You are Claude Code.", "cache_control": builders.EPHEMERAL},
              {"type": "text", "text": _text(1500, 3), "cache_control": builders.EPHEMERAL}]
    tools = [{"name": f"Tool{k}", "description": _text(250, k), "input_schema": {
        "type": "object", "properties": {"path": {"type": "string", "description": _text(20, k)}}}} for k in range(12)]
    messages: list[dict] = [{"role": "user", "content": [{"type": "text", "text": "Fix the refund rounding."}]}]
    size, call = 0, 0
    with path.open("wb") as handle:
        while size < megabytes * (1 << 20):
            call += 1
            sent = messages[:-1] + [builders_marked(messages[-1])]
            body = {"model": "claude-sonnet-4-5-20250929", "messages": sent, "temperature": 1, "system": system,
                    "tools": tools, "metadata": {"user_id": "bench"}, "max_tokens": 32000, "stream": True}
            content = [{"type": "text", "text": _text(60, call)},
                       {"type": "tool_use", "id": f"toolu_t{call:05d}", "name": "Tool1", "input": {"path": f"/f{call}"}}]
            answer = {"id": f"msg_t{call:05d}", "model": "claude-sonnet-4-5-20250929", "content": content,
                      "stop_reason": "tool_use", "usage": {"input_tokens": 100 * call, "output_tokens": 90}}
            line = orjson.dumps(builders.trace_pair(body, answer, 1755684000.0 + call * 5)) + b"\n"
            handle.write(line)
            size += len(line)
            messages.append({"role": "assistant", "content": content})
            messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_t{call:05d}",
                                                          "content": _text(180, call)}]})


def builders_marked(message: dict) -> dict:
    blocks = [dict(b) for b in message["content"]]
    blocks[-1]["cache_control"] = builders.EPHEMERAL
    return {"role": message["role"], "content": blocks}


FLOOR = ("import sys, orjson\n"
         "for line in open(sys.argv[1], 'rb').read().split(b'\\n'):\n"
         "    if line:\n"
         "        orjson.loads(line)\n")


def timed(argv: list[str], root: Path = REPO) -> tuple[float, float, int]:
    """Wall and CPU seconds and exit code of one fresh process (start-up and imports included), turnscope taken
    from ``root`` (this checkout, or ``--against``'s)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=root)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


Try = tuple[float, float, int]


def interleaved(argvs: list[list[str]], repeat: int, roots: list[Path] | None = None) -> list[list[Try]]:
    """``repeat`` rounds of every command in turn, each a fresh process (``timed``, from its ``roots`` entry):
    a busy moment on the shared machine hits all of them alike. One list of tries per command."""
    tries: list[list[Try]] = [[] for _ in argvs]
    for _ in range(repeat):
        for argv, root, kept in zip(argvs, roots or [REPO] * len(argvs), tries):
            kept.append(timed(argv, root))
    return tries


def medians(tries: list[Try]) -> tuple[float, float]:
    """Median wall and median CPU seconds of some tries."""
    return statistics.median(t[0] for t in tries), statistics.median(t[1] for t in tries)


def per_try(tries: list[Try], floors: list[Try]) -> tuple[float, float]:
    """The lowest and highest wall ratio of a try to the floor's try of the same round."""
    ratios = sorted(t[0] / f[0] for t, f in zip(tries, floors))
    return ratios[0], ratios[-1]


def compiled() -> None:
    """turnscope's modules byte-compiled before timing, as an installed package has them: with
    PYTHONDONTWRITEBYTECODE set (as on the team's machine) every process would otherwise compile
    them from source again, a cost no user's ``pip install`` pays."""
    import compileall

    compileall.compile_dir(str(REPO / "tui"), quiet=1)


def peak_of_check(path: Path) -> int:
    """The check's own high-water mark in bytes: ru_maxrss (from wait4 or getrusage) also counts the pages
    the child shared with this big process between fork and exec; VmHWM belongs to the exec'd image only."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    probe = ("import runpy, sys\nsys.argv = ['turnscope', 'check', sys.argv[1]]\n"
             "try:\n    runpy.run_module('tui', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
             "sys.stderr.write(hwm.split()[1])")
    proc = subprocess.run([sys.executable, "-c", probe, str(path)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env, cwd=REPO, text=True)
    return int(proc.stderr.strip().splitlines()[-1]) * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=100, help="size of each synthetic file (default 100)")
    parser.add_argument("--repeat", type=int, default=7, help="interleaved tries of each command (default 7)")
    parser.add_argument("--only", choices=("claude-code", "claude-trace"), help="just one of the two files")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="another checkout (an exported copy) whose turnscope check is timed in the same rounds")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    if args.against is not None:
        import compileall

        compiled()
        compileall.compile_dir(str(args.against / "tui"), quiet=1)
    missed = False
    for name, build in (("claude-code transcript", transcript), ("claude-trace log", trace_log)):
        if args.only and not name.startswith(args.only):
            continue
        path = OUT / f"{name.split()[0]}-{args.mb}mb.jsonl"
        if not path.exists():
            build(path, args.mb)
        lines = path.read_bytes().count(b"\n")
        floor_argv = [sys.executable, "-c", FLOOR, str(path)]
        check_argv = [sys.executable, "-m", "tui", "check", str(path)]
        argvs, roots = [floor_argv, check_argv], [REPO, REPO]
        if args.against is not None:
            argvs.append(check_argv)
            roots.append(args.against.resolve())
        floors, checks, *others = interleaved(argvs, args.repeat, roots)
        code = checks[-1][2]
        (floor_wall, floor_cpu), (wall, cpu) = medians(floors), medians(checks)
        ratios = per_try(checks, floors)
        peak = peak_of_check(path)
        size = path.stat().st_size
        missed = missed or wall / floor_wall > 2 or peak / size > 6
        print(f"{name}: {size / 1e6:,.1f} MB, {lines:,} lines ({path})")
        print(f"  bare orjson parse per line, whole process: {floor_wall:.3f} s wall, {floor_cpu:.3f} s CPU")
        print(f"  turnscope check, whole process (exit {code}):  {wall:.3f} s wall, {cpu:.3f} s CPU")
        print(f"  ratio of medians: {wall / floor_wall:.2f}x wall, {cpu / floor_cpu:.2f}x CPU (target <= 2x); "
              f"per try {ratios[0]:.2f}x to {ratios[-1]:.2f}x wall")
        print(f"  peak memory of the check: {peak / 1e6:,.0f} MB ({peak / size:.1f}x the file; target <= 6x)")
        for other in others:
            o_wall, o_cpu = medians(other)
            print(f"  against {args.against}: turnscope check {o_wall:.3f} s wall, {o_cpu:.3f} s CPU: this checkout "
                  f"takes {wall / o_wall:.2f}x its wall, {cpu / o_cpu:.2f}x its CPU")
    print(f"(medians of {args.repeat} interleaved tries; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs)")
    raise SystemExit(1 if missed else 0)


if __name__ == "__main__":
    main()
