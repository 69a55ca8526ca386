"""How fast the codex, inspect and har loaders read big files, as ratios measured in this one run (not asserted).

    python bench/bench_next_loaders.py [--mb 100] [--repeat 5]

Builds (in bench/out/, not committed) a synthetic file of about --mb megabytes of each format, shaped
like the real ones in ../shared/realruns/next:

- a Codex rollout: turns of reasoning (encrypted), exec_command calls and their outputs, token_count
  events written twice, exec_command_end events repeating the outputs, assistant messages repeated as
  agent_message events;
- an Inspect ``.json`` log and the same log as an ``.eval`` zip: samples of an OpenAI agent whose
  every model event carries its input and its recorded call (the whole history, twice), with long
  tool outputs kept once as ``attachment://`` references, plus a scorer call per sample;
- a HAR recording of one long Messages API conversation (every entry the whole request as posted
  and the JSON answer), with unrelated GETs between the calls.

turnscope's modules are byte-compiled first (``bench_loaders.compiled``), as an installed package has
them. For each file, ``--repeat`` interleaved tries of whole processes (interpreter start-up and
imports on all sides): a bare parse of the same bytes, values dropped; turnscope's loading, what
``turnscope FILE`` does before it draws (``tui.formats.load_runs``, then what the run list shows of
every run: title, counts, start time; a file of several runs opens on that list), the target's
measure; opening the first run whole (``turnscope FILE --run 0``, or Enter on the list's first row:
an ``.eval`` builds a sample's run when it is first asked for); ``turnscope list FILE``; and
``turnscope check FILE`` (loading every run, the grammar and the content scan for hidden text and
secrets). ``--against DIR`` times another checkout's turnscope in the same rounds (its ``tui/`` is
byte-compiled too: give it an exported copy, ``git archive REV | tar -x -C DIR``, not a worktree in use).
The bare parse is what any reader of the format must do to reach its content: ``orjson.loads`` of
each line (rollout) or of the document (Inspect ``.json``); for the ``.eval``, reading each sample's
member of the zip and ``orjson.loads`` of it; for HAR, the document and the JSON bodies it holds as
strings (``postData.text``, ``content.text``), with the cyclic garbage collector off as turnscope has it
while it loads (on one 100 MB document it would otherwise cost the bare parse twice its time). Target:
loading within 2x (the bound the issue sets for loading). Exit 1 when it is missed.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO / "bench"))
# the loader benches' one way to time whole processes, interleaved, and take their medians
from bench_loaders import _text, compiled, medians, per_try  # noqa: E402


def rollout(path: Path, megabytes: int) -> None:
    def line(kind: str, payload: dict) -> bytes:
        return orjson.dumps({"timestamp": "2026-05-11T08:27:21.556Z", "type": kind, "payload": payload})

    lines = [line("session_meta", {"id": "bench", "cwd": "/repo", "originator": "codex-tui", "cli_version": "0.125.0",
                                   "base_instructions": {"text": _text(2000, 1)}})]
    size, turn, total = 0, 0, 0
    while size < megabytes * (1 << 20):
        turn += 1
        batch = [line("turn_context", {"turn_id": f"t{turn}", "model": "gpt-5.5", "effort": "medium"}),
                 line("response_item", {"type": "message", "role": "user",
                                        "content": [{"type": "input_text", "text": _text(30, turn)}]}),
                 line("event_msg", {"type": "user_message", "message": _text(30, turn)})]
        for call in range(8):
            ident = f"call_{turn}_{call}"
            output = _text(700, turn + call)  # about the 5.7 KB per message of the real rollout
            total += 1000
            usage = {"input_tokens": total, "cached_input_tokens": total // 2, "output_tokens": 50,
                     "reasoning_output_tokens": 20, "total_tokens": total + 50}
            count = line("event_msg", {"type": "token_count", "info": {"total_token_usage": usage,
                                                                       "last_token_usage": usage}})
            batch += [line("response_item", {"type": "reasoning", "summary": [], "content": None,
                                             "encrypted_content": "gAAAA" + "x" * 1200}),
                      line("response_item", {"type": "function_call", "name": "exec_command", "call_id": ident,
                                             "arguments": orjson.dumps({"cmd": f"rg -n {turn} src"}).decode()}),
                      count, count,
                      line("response_item", {"type": "function_call_output", "call_id": ident, "output": output}),
                      line("event_msg", {"type": "exec_command_end", "call_id": ident, "stdout": output})]
        answer = _text(80, turn)
        batch += [line("event_msg", {"type": "agent_message", "message": answer}),
                  line("response_item", {"type": "message", "role": "assistant",
                                         "content": [{"type": "output_text", "text": answer}]})]
        lines += batch
        size += sum(len(b) + 1 for b in batch)
    path.write_bytes(b"\n".join(lines) + b"\n")


def _inspect_samples(megabytes: int) -> tuple[dict, list[dict]]:
    header = {"version": 2, "status": "success",
              "eval": {"task": "bench", "model": "openai/gpt-4o", "created": "2026-01-01T00:00:00+00:00"}}
    tools = [{"type": "function", "function": {"name": "bash", "description": _text(60, 2),
                                               "parameters": {"type": "object", "properties": {
                                                   "cmd": {"type": "string"}}}}}]
    samples, size, k = [], 0, 0
    while size < megabytes * (1 << 20):
        k += 1
        attachments: dict[str, str] = {}
        chat = [{"role": "system", "content": _text(300, k)}, {"role": "user", "content": _text(40, k)}]
        inspect_input = [dict(m) for m in chat]
        events = [{"event": "span_begin", "id": "solver", "type": "solver", "name": "generate"}]
        for step in range(30):
            ident = f"call_{k}_{step}"
            args = {"cmd": f"grep -n {step} src"}
            events.append({"event": "model", "span_id": "solver", "model": "openai/gpt-4o",
                           "input": list(inspect_input), "tools": [], "tool_choice": "auto", "config": {},
                           "output": {"model": "gpt-4o", "choices": [{"message": {
                               "role": "assistant", "content": "", "tool_calls": [
                                   {"id": ident, "function": "bash", "arguments": args}]},
                               "stop_reason": "tool_calls"}], "usage": {"input_tokens": 1000 + step,
                                                                         "output_tokens": 20}},
                           "call": {"request": {"model": "gpt-4o", "messages": list(chat), "tools": tools},
                                    "response": {"usage": {"prompt_tokens": 1000 + step, "completion_tokens": 20}},
                                    "time": 0.5}})
            key = f"{k:08x}{step:024x}"
            attachments[key] = _text(500, k + step)
            chat = chat + [{"role": "assistant", "content": "", "tool_calls": [
                {"id": ident, "type": "function", "function": {"name": "bash", "arguments": orjson.dumps(args).decode()}}]},
                {"role": "tool", "tool_call_id": ident, "content": f"attachment://{key}"}]
            inspect_input = inspect_input + [
                {"role": "assistant", "content": "", "tool_calls": [{"id": ident, "function": "bash", "arguments": args}]},
                {"role": "tool", "tool_call_id": ident, "content": f"attachment://{key}"}]
        events.append({"event": "span_begin", "id": "scorer", "type": "scorer", "name": "model_graded_fact"})
        events.append({"event": "model", "span_id": "scorer", "model": "openai/gpt-4o", "input": [],
                       "output": {"choices": [{"message": {"role": "assistant", "content": "GRADE: C"},
                                               "stop_reason": "stop"}]},
                       "call": {"request": {"model": "gpt-4o", "messages": [{"role": "user", "content": _text(200, k)}]}}})
        sample = {"id": k, "epoch": 1, "input": _text(40, k), "target": "x", "messages": [],
                  "scores": {"model_graded_fact": {"value": "C"}}, "events": events, "attachments": attachments}
        size += len(orjson.dumps(sample))
        samples.append(sample)
    return header, samples


def inspect_json(path: Path, megabytes: int) -> None:
    header, samples = _inspect_samples(megabytes)
    path.write_bytes(orjson.dumps({**header, "samples": samples}))


def inspect_eval(path: Path, megabytes: int) -> None:
    header, samples = _inspect_samples(megabytes)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("header.json", orjson.dumps(header))
        for sample in samples:
            archive.writestr(f"samples/{sample['id']}_epoch_1.json", orjson.dumps(sample))
    path.write_bytes(buffer.getvalue())


def har(path: Path, megabytes: int) -> None:
    system = [{"type": "text", "text": _text(1500, 3)}]
    tools = [{"name": f"Tool{k}", "description": _text(200, k), "input_schema": {"type": "object", "properties": {}}}
             for k in range(10)]
    messages: list[dict] = [{"role": "user", "content": "Fix the refund rounding."}]
    entries, size, call = [], 0, 0
    while size < megabytes * (1 << 20):
        call += 1
        body = orjson.dumps({"model": "claude-sonnet-4-5", "max_tokens": 8000, "system": system, "tools": tools,
                             "messages": messages}).decode()
        content = [{"type": "text", "text": _text(50, call)},
                   {"type": "tool_use", "id": f"toolu_{call:05d}", "name": "Tool1", "input": {"path": f"/f{call}"}}]
        answer = orjson.dumps({"id": f"msg_{call:05d}", "type": "message", "role": "assistant", "content": content,
                               "stop_reason": "tool_use", "usage": {"input_tokens": 100 * call, "output_tokens": 90}})
        entries.append({"startedDateTime": "2026-01-01T00:00:00Z", "time": 800,
                        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                                    "headers": [{"name": "content-type", "value": "application/json"}],
                                    "postData": {"mimeType": "application/json", "text": body}},
                        "response": {"status": 200, "headers": [{"name": "request-id", "value": f"req_{call}"}],
                                     "content": {"mimeType": "application/json", "text": answer.decode()}}})
        entries.append({"startedDateTime": "2026-01-01T00:00:01Z", "time": 5,
                        "request": {"method": "GET", "url": "https://example.org/status", "headers": []},
                        "response": {"status": 200, "headers": [], "content": {"mimeType": "text/html", "text": "ok"}}})
        size += len(body) + len(answer)
        messages = messages + [{"role": "assistant", "content": content},
                               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{call:05d}",
                                                             "content": _text(150, call)}]}]
    path.write_bytes(orjson.dumps({"log": {"version": "1.2", "creator": {"name": "bench", "version": "1"},
                                           "entries": entries}}))


FLOORS = {
    "lines": ("import gc, sys, orjson\ngc.disable()\n"
              "for line in open(sys.argv[1], 'rb').read().split(b'\\n'):\n"
              "    if line:\n"
              "        orjson.loads(line)\n"),
    "document": "import gc, sys, orjson\ngc.disable()\norjson.loads(open(sys.argv[1], 'rb').read())\n",
    "eval": ("import gc, io, sys, zipfile, orjson\ngc.disable()\n"
             "archive = zipfile.ZipFile(io.BytesIO(open(sys.argv[1], 'rb').read()))\n"
             "for name in archive.namelist():\n"
             "    if name.startswith('samples/'):\n"
             "        orjson.loads(archive.read(name))\n"),
    "har": ("import gc, sys, orjson\ngc.disable()\n"
            "log = orjson.loads(open(sys.argv[1], 'rb').read())\n"
            "for entry in log['log']['entries']:\n"
            "    for text in (entry['request'].get('postData', {}).get('text'), entry['response']['content'].get('text')):\n"
            "        if text and text[:1] in '{[':\n"
            "            orjson.loads(text)\n"),
}
#: turnscope's loading, as ``turnscope FILE`` does it before the first screen (``load_runs(lazy=True)`` where the
#: checkout has it, as the app calls it), then what the run list shows of each run (a checkout without
#: ``Run.sizes`` / ``call_starts`` reads the lists they stand for).
_RUNS = ("import sys\nfrom tui.formats import load_runs\n"
         "lazy = {'lazy': True} if 'lazy' in load_runs.__code__.co_varnames else {}\n"
         "runs = load_runs(sys.argv[1], **lazy)\n")
LOAD = (_RUNS + "for run in runs:\n"
        "    run.title(), run.meta\n"
        "    run.sizes() if hasattr(run, 'sizes') else (len(run.messages), len(run.calls))\n"
        "    run.call_starts() if hasattr(run, 'call_starts') else [c.started for c in run.calls]\n")
#: Opening the first run whole: ``turnscope FILE --run 0`` (or Enter on the run list's first row).
OPEN_FIRST = _RUNS + "run = runs[0]\nrun.messages, run.calls, run.system, run.tools, run.warnings\n"
FILES = (("codex rollout", "rollout.jsonl", rollout, "lines"), ("inspect .json log", "inspect.json", inspect_json, "document"),
         ("inspect .eval log", "inspect.eval", inspect_eval, "eval"), ("har recording", "recording.har", har, "har"))


def _timed(argv: list[str], root: Path) -> tuple[float, float, int]:
    """``bench_loaders.timed`` with turnscope taken from ``root`` (this checkout or ``--against``'s)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=root)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=100, help="size of each synthetic file (default 100)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved tries of each command (default 5)")
    parser.add_argument("--only", help="just the file whose name holds this (codex, .json, .eval, har)")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="another checkout (an exported copy) whose turnscope is timed in the same rounds")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    compiled()
    roots = [("this checkout", REPO)]
    if args.against is not None:
        import compileall

        compileall.compile_dir(str(args.against / "tui"), quiet=1)
        roots.append((f"against {args.against}", args.against.resolve()))
    missed = False
    loads: list[float] = []
    for name, filename, build, floor in FILES:
        if args.only and args.only not in name and args.only not in filename:
            continue
        path = OUT / f"next-{args.mb}mb-{filename}"
        if not path.exists():
            build(path, args.mb)
        commands: list[tuple[str, list[str], Path, float | None]] = [
            ("bare parse", [sys.executable, "-c", FLOORS[floor], str(path)], REPO, None)]
        for label, root in roots:
            commands += [(f"{label}: loading (turnscope FILE, to its first screen)",
                          [sys.executable, "-c", LOAD, str(path)], root, 2.0),
                         (f"{label}: opening the first run whole (--run 0)",
                          [sys.executable, "-c", OPEN_FIRST, str(path)], root, None),
                         (f"{label}: turnscope list", [sys.executable, "-m", "tui", "list", str(path)], root, None),
                         (f"{label}: turnscope check", [sys.executable, "-m", "tui", "check", str(path)], root, None)]
        tries: list[list[tuple[float, float, int]]] = [[] for _ in commands]
        for _ in range(args.repeat):  # interleaved: a busy moment on the shared machine hits all of them alike
            for (_, argv, root, _), kept in zip(commands, tries):
                kept.append(_timed(argv, root))
            loads.append(os.getloadavg()[0])
        floor_wall, floor_cpu = medians(tries[0])
        print(f"{name}: {path.stat().st_size / 1e6:,.1f} MB ({path})")
        print(f"  bare parse, whole process: {floor_wall:.3f} s wall, {floor_cpu:.3f} s CPU")
        for (what, _, root, target), kept in zip(commands[1:], tries[1:]):
            wall, cpu = medians(kept)
            low, high = per_try(kept, tries[0])
            if target is not None and root == REPO:
                missed = missed or cpu / floor_cpu > target
            codes = sorted({t[2] for t in kept})
            print(f"  {what}{f' (exit {codes[0]})' if codes != [0] else ''}: {wall:.3f} s wall, {cpu:.3f} s CPU; "
                  f"ratio of medians {cpu / floor_cpu:.2f}x CPU, {wall / floor_wall:.2f}x wall"
                  f"{f' (target <= {target:g}x)' if target else ''}; per try {low:.2f}x to {high:.2f}x wall")
    print(f"(medians of {args.repeat} interleaved tries; load average {min(loads, default=0):.1f}-"
          f"{max(loads, default=0):.1f} on {os.cpu_count()} CPUs during the tries; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; turnscope byte-compiled first)")
    raise SystemExit(1 if missed else 0)


if __name__ == "__main__":
    main()
