"""How fast the new loaders read big files, as ratios measured in this one run (not asserted).

    python bench/bench_loaders.py [--mb 100]

Builds (in bench/out/, not committed) a synthetic Claude Code transcript and a synthetic
claude-trace log of about --mb megabytes each, shaped like the real ones: answers written one
line per content block, parallel tool results on sibling branches, hook progress lines (the
real transcripts' mix: about 40% of the bytes each for tool results and progress), a compaction; a trace log whose every line carries the whole request (system prompt, tools,
every message so far, moving cache_control breakpoints) and a streamed answer. For each it
prints the time of ``turnscope check FILE`` as a whole process divided by a bare orjson parse
of the same bytes (line by line), against the 2x target, and the check's peak memory.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
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


def bare_parse(path: Path) -> tuple[float, float]:
    """Best wall and CPU time of reading the file and parsing each line with orjson (values dropped)."""
    best_wall = best_cpu = float("inf")
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        for line in path.read_bytes().split(b"\n"):
            if line:
                orjson.loads(line)
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu


def check_process(path: Path) -> tuple[float, float, int, int]:
    """Best wall and CPU time, peak memory (bytes) and exit code of ``turnscope check FILE``, a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    best_wall = best_cpu = float("inf")
    code = 0
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "tui", "check", str(path)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        best_wall = min(best_wall, time.perf_counter() - start)
        best_cpu = min(best_cpu, usage.ru_utime + usage.ru_stime)
        code = os.waitstatus_to_exitcode(status)
    # The check's own high-water mark: ru_maxrss (from wait4 or getrusage) also counts the pages the
    # child shared with this big process between fork and exec; VmHWM belongs to the exec'd image only.
    probe = ("import runpy, sys\nsys.argv = ['turnscope', 'check', sys.argv[1]]\n"
             "try:\n    runpy.run_module('tui', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
             "sys.stderr.write(hwm.split()[1])")
    proc = subprocess.run([sys.executable, "-c", probe, str(path)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env, cwd=REPO, text=True)
    peak = int(proc.stderr.strip().splitlines()[-1]) * 1024
    return best_wall, best_cpu, peak, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=100, help="size of each synthetic file (default 100)")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, build in (("claude-code transcript", transcript), ("claude-trace log", trace_log)):
        path = OUT / f"{name.split()[0]}-{args.mb}mb.jsonl"
        if not path.exists():
            build(path, args.mb)
        lines = path.read_bytes().count(b"\n")
        parse_wall, parse_cpu = bare_parse(path)
        wall, cpu, peak, code = check_process(path)
        print(f"{name}: {path.stat().st_size / 1e6:,.1f} MB, {lines:,} lines ({path})")
        print(f"  bare orjson parse, line by line (read included): {parse_wall:.2f} s wall, {parse_cpu:.2f} s CPU")
        print(f"  turnscope check, whole process (exit {code}):       {wall:.2f} s wall, {cpu:.2f} s CPU")
        print(f"  ratio: {wall / parse_wall:.2f}x wall, {cpu / parse_cpu:.2f}x CPU (target <= 2x)")
        print(f"  peak memory of the check: {peak / 1e6:,.0f} MB ({peak / path.stat().st_size:.1f}x the file)")
    print(f"(best of 3 each; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs: "
          "wall times on a busy machine vary, CPU times less)")

if __name__ == "__main__":
    main()
