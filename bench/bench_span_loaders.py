"""How fast the otel, langfuse and gemini loaders read big files, as ratios measured in this one run.

    python bench/bench_span_loaders.py [--mb 50] [--repeat 5]

Builds (in bench/out/, not committed) one synthetic file of about --mb megabytes per format,
shaped like the real samples: OTLP/JSON Lines of export batches (one per flush) whose chat spans
carry the GenAI attributes (``gen_ai.input.messages`` a JSON string holding the whole history,
as instrumentations write it, output messages, tool definitions, usage) with execute_tool spans
between them; a Langfuse trace export whose GENERATION observations hold the history as a
JSON string (the UI's export) beside TOOL observations; a Gemini CLI JSON Lines session with
tool calls and their results, ``$set`` lines and re-appended records.

For each, ``--repeat`` interleaved tries of three whole processes: a bare ``python -c`` that
reads the file and ``orjson.loads`` it (each line for JSON Lines), ``turnscope list FILE`` (the
load: it reads every run and prints one line per run) and ``turnscope check FILE`` (the load and
the grammar check). Prints the ratios of the medians; the target (2x) is the load's. Exit 1 when
it is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
sys.path.insert(0, str(REPO / "bench"))
from bench_loaders import timed  # noqa: E402 - one way to time a whole process, shared by the loader benches
WORDS = ("the refund order shipment carrier policy total cents customer charge invoice scan days "
         "status lookup result error retry loop message block index prefix request branch ").split()
TOOLS = [{"type": "function", "name": f"tool_{k}", "description": " ".join(WORDS[k:k + 12]),
          "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}} for k in range(8)]


def _text(n: int, seed: int) -> str:
    return " ".join(WORDS[(seed * 7 + k * 13) % len(WORDS)] for k in range(n))


def _conversation(target: int):
    """(history before call k, the call's output parts, its tool result) until the histories reach ``target`` bytes."""
    history = [{"role": "user", "parts": [{"type": "text", "content": _text(60, 0)}]}]
    size, k = 0, 0
    while size < target:
        call = {"role": "assistant", "parts": [{"type": "text", "content": _text(20, k)},
                                               {"type": "tool_call", "id": f"call_{k}", "name": f"tool_{k % 8}",
                                                "arguments": {"q": _text(6, k)}}]}
        result_text = _text(150 + (k % 5) * 200, k)
        yield k, list(history), call, result_text
        history += [call, {"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call_{k}",
                                                      "response": result_text}]}]
        size += len(orjson.dumps(history))
        k += 1


def _kv(key, value):
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else orjson.dumps(value).decode()}}


def otel(path: Path, megabytes: int) -> None:
    trace = "5b8efff798038103d269b633813fc60c"
    with open(path, "wb") as out:
        for k, history, call, result in _conversation(megabytes << 20):
            t = 1_700_000_000_000_000_000 + k * 10_000_000
            chat = {"traceId": trace, "spanId": f"{2 * k + 1:016x}", "parentSpanId": "f" * 16, "name": "chat gpt-4o",
                    "kind": 3, "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + 5_000_000),
                    "attributes": [_kv("gen_ai.operation.name", "chat"), _kv("gen_ai.request.model", "gpt-4o"),
                                   _kv("gen_ai.system_instructions", [{"type": "text", "content": _text(80, 1)}]),
                                   _kv("gen_ai.tool.definitions", TOOLS), _kv("gen_ai.input.messages", history),
                                   _kv("gen_ai.output.messages", [call]), _kv("gen_ai.usage.input_tokens", 1000 + k),
                                   _kv("gen_ai.usage.output_tokens", 40)]}
            tool = {"traceId": trace, "spanId": f"{2 * k + 2:016x}", "parentSpanId": "f" * 16,
                    "name": "execute_tool", "kind": 1, "startTimeUnixNano": str(t + 6_000_000),
                    "endTimeUnixNano": str(t + 7_000_000),
                    "attributes": [_kv("gen_ai.operation.name", "execute_tool"), _kv("gen_ai.tool.name", f"tool_{k % 8}"),
                                   _kv("gen_ai.tool.call.id", f"call_{k}"), _kv("gen_ai.tool.call.result", result)]}
            batch = {"resourceSpans": [{"resource": {"attributes": [_kv("service.name", "bench")]},
                                        "scopeSpans": [{"scope": {"name": "bench"}, "spans": [chat, tool]}]}]}
            out.write(orjson.dumps(batch) + b"\n")


def langfuse(path: Path, megabytes: int) -> None:
    observations = []
    for k, history, call, result in _conversation(megabytes << 20):
        chat = [{"role": "system", "content": _text(80, 1)}]
        for m in history:
            if m["role"] == "tool":
                chat.append({"role": "tool", "tool_call_id": m["parts"][0]["id"], "content": m["parts"][0]["response"]})
            elif m["role"] == "assistant":
                chat.append({"role": "assistant", "content": m["parts"][0]["content"], "tool_calls": [
                    {"id": m["parts"][1]["id"], "type": "function", "function": {
                        "name": m["parts"][1]["name"], "arguments": orjson.dumps(m["parts"][1]["arguments"]).decode()}}]})
            else:
                chat.append({"role": "user", "content": m["parts"][0]["content"]})
        stamp = f"2026-01-01T00:{k // 60 % 60:02d}:{k % 60:02d}.{k % 1000:03d}Z"
        out = {"role": "assistant", "content": call["parts"][0]["content"], "tool_calls": [
            {"id": f"call_{k}", "type": "function", "function": {"name": f"tool_{k % 8}", "arguments": '{"q": "x"}'}}]}
        observations.append({"id": f"gen-{k}", "traceId": "t1", "type": "GENERATION", "name": "chat",
                             "startTime": stamp, "endTime": stamp, "model": "gpt-4o",
                             "input": orjson.dumps(chat).decode(), "output": orjson.dumps(out).decode(),
                             "usageDetails": {"input": 1000 + k, "output": 40, "total": 1040 + k},
                             "metadata": "{}", "parentObservationId": None})
        observations.append({"id": f"tool-{k}", "traceId": "t1", "type": "TOOL", "name": f"tool_{k % 8}",
                             "startTime": stamp, "endTime": stamp, "input": '{"q": "x"}', "output": result,
                             "parentObservationId": None})
    trace = {"id": "t1", "projectId": "p1", "name": "bench", "timestamp": "2026-01-01T00:00:00Z",
             "observations": [{k: v for k, v in o.items() if k not in ("input", "output")} for o in observations]}
    path.write_bytes(orjson.dumps({"trace": trace, "observations": observations}))


def gemini(path: Path, megabytes: int) -> None:
    target, size, k = megabytes << 20, 0, 0
    with open(path, "wb") as out:
        out.write(orjson.dumps({"sessionId": "s1", "projectHash": "ab" * 32, "startTime": "2026-04-23T12:52:52Z",
                                "lastUpdated": "2026-04-23T12:52:52Z", "kind": "main"}) + b"\n")
        while size < target:
            user = {"id": f"u{k}", "timestamp": "2026-04-23T12:53:00Z", "type": "user",
                    "content": [{"text": _text(40, k)}]}
            model = {"id": f"g{k}", "timestamp": "2026-04-23T12:53:01Z", "type": "gemini", "content": _text(30, k),
                     "thoughts": [{"subject": "Planning", "description": _text(40, k), "timestamp": "x"}],
                     "tokens": {"input": 9000, "output": 80, "cached": 4000, "thoughts": 200, "tool": 0, "total": 9280},
                     "model": "gemini-3-flash-preview"}
            done = {**model, "toolCalls": [{"id": f"c{k}", "name": "read_file", "args": {"file_path": f"f{k}.py"},
                                            "result": [{"functionResponse": {"id": f"c{k}", "name": "read_file",
                                                                             "response": {"output": _text(900, k)}}}],
                                            "status": "success", "timestamp": "x"}]}
            for record in (user, model, {"$set": {"lastUpdated": "2026-04-23T12:53:02Z"}}, done):
                data = orjson.dumps(record) + b"\n"
                out.write(data)
                size += len(data)
            k += 1


FLOOR = ("import sys, orjson\n"
         "data = open(sys.argv[1], 'rb').read()\n"
         "if sys.argv[2] == 'lines':\n"
         "    for line in data.split(b'\\n'):\n"
         "        if line:\n"
         "            orjson.loads(line)\n"
         "else:\n"
         "    orjson.loads(data)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=50, help="size of each synthetic file (default 50)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved tries of each command (default 5)")
    parser.add_argument("--only", choices=("otel", "langfuse", "gemini"))
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    missed = False
    for name, build, suffix, mode in (("otel", otel, "jsonl", "lines"), ("langfuse", langfuse, "json", "whole"),
                                      ("gemini", gemini, "jsonl", "lines")):
        if args.only and name != args.only:
            continue
        path = OUT / f"{name}-{args.mb}mb.{suffix}"
        if not path.exists():
            build(path, args.mb)
        floor_argv = [sys.executable, "-c", FLOOR, str(path), mode]
        list_argv = [sys.executable, "-m", "tui", "list", str(path)]
        check_argv = [sys.executable, "-m", "tui", "check", str(path)]
        floors, lists, checks = [], [], []
        for _ in range(args.repeat):
            floors.append(timed(floor_argv))
            lists.append(timed(list_argv))
            checks.append(timed(check_argv))
        floor_wall, floor_cpu = (statistics.median(t[k] for t in floors) for k in (0, 1))
        load_wall, load_cpu = (statistics.median(t[k] for t in lists) for k in (0, 1))
        wall, cpu = (statistics.median(t[k] for t in checks) for k in (0, 1))
        codes = {lists[-1][2], checks[-1][2]}
        missed = missed or load_wall / floor_wall > 2 or not codes <= {0, 1}
        print(f"{name}: {path.stat().st_size / 1e6:,.1f} MB ({path.name}); bare parse {floor_wall:.3f} s; "
              f"load (list) {load_wall:.3f} s: {load_wall / floor_wall:.2f}x wall, {load_cpu / floor_cpu:.2f}x CPU "
              f"(target <= 2x); load and check {wall:.3f} s: {wall / floor_wall:.2f}x wall (exits {sorted(codes)})")
    print(f"(medians of {args.repeat} interleaved tries; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    raise SystemExit(1 if missed else 0)


if __name__ == "__main__":
    main()
