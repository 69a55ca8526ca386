"""Generate a large, valid agent run on demand (none is committed): for benchmarks and stress tests.

    python scripts/make_large_run.py --size 100MB --out /tmp/big.json [--format request|jsonl|messages|native]
                                     [--seed 7] [--thinking] [--marks]

The run is the refund agent's loop at scale: the caller's question, then rounds of an
assistant turn (a line of text, one tool_use or two to four in parallel) and the loop's
results turn (mostly small JSON rows, some pages of logs or file contents, a few large
reads and an occasional ``is_error`` result); every few dozen rounds the model ends its
turn and the caller writes again. It obeys the grammar (``turnscope check`` finds no
errors), and the same ``--seed`` and ``--size`` give the same bytes. With ``--marks`` its text also holds
the characters beyond ASCII that real tool output is full of (arrows, ticks, dashes, box-drawing
lines, accented words): in the Claude Code sessions of ``../shared/realruns`` more than half the long
text has some, and a path that only ASCII text takes quickly shows there.

Formats: ``request`` a Messages API request body ending on a results turn (the next
request); ``jsonl`` a header line plus one message per line; ``messages`` a bare JSON
array; ``native`` a turnscope run file with a call record (usage, stop_reason) per call.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.sample_content import MODEL, SYSTEM, TOOLS  # noqa: E402
from tui.core import jsonio, native  # noqa: E402
from tui.core.run import ModelCall, Run, Source  # noqa: E402

FORMATS = ("request", "jsonl", "messages", "native")
_UNITS = {"": 1, "B": 1, "KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "KIB": 1024, "MIB": 1024 ** 2,
          "GIB": 1024 ** 3}

EXTRA_TOOLS = [
    {"name": "read_file", "description": "Read a file from the support knowledge base.",
     "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "grep_logs", "description": "Search the order service logs for a pattern.",
     "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"},
                                                       "since": {"type": "string"}}, "required": ["pattern"]}},
]
WORDS = ("order shipment carrier refund policy customer parcel scan status payment invoice warehouse "
         "label tracking delivery address return exchange credit total cents account item damaged "
         "missing late reference support agent queue ticket priority region depot route driver "
         "the a of to in and for with on at by from was is not has been will may").split()
#: Words beyond ASCII for ``marks`` (about one word in 200), as tool output has them.
MARKS = ("→", "✓", "—", "…", "─" * 24, "•", "naïve", "Zürich", "déjà", "±", "©", "⚠")


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    if not match or match.group(2).upper() not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 100MB, 512KB, 2GB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


class Generator:
    """Messages of one run, drawn from a seeded random source."""

    def __init__(self, seed: int, thinking: bool = False, marks: bool = False):
        self.rng = random.Random(seed)
        self.thinking = thinking
        words = self.rng.choices(WORDS, k=400_000)
        if marks:
            for k in range(0, len(words) - 199, 200):  # one word in each 200
                words[k + self.rng.randrange(200)] = self.rng.choice(MARKS)
        self.corpus = " ".join(words)
        self.next_id = 0
        self.order = 4471

    def _id(self) -> str:
        self.next_id += 1
        return f"toolu_{self.next_id:08d}{self.rng.getrandbits(40):010x}"

    def words(self, n_chars: int) -> str:
        start = self.rng.randrange(0, len(self.corpus) - n_chars - 1)
        return self.corpus[start:start + n_chars].strip() or "ok"

    def _call(self) -> dict:
        rng, order = self.rng, str(self.order + self.rng.randrange(0, 500))
        name = rng.choices(["search_orders", "get_shipment", "lookup_policy", "read_file", "grep_logs",
                            "issue_refund"], weights=[30, 25, 10, 15, 15, 5])[0]
        inputs = {
            "search_orders": {"order_id": order},
            "get_shipment": {"order_id": order},
            "lookup_policy": {"topic": rng.choice(["lost_shipment", "returns", "partial_refund"])},
            "read_file": {"path": f"kb/{self.words(12).replace(' ', '_')}.md"},
            "grep_logs": {"pattern": f"order={order}", "since": f"{rng.randrange(1, 60)}d"},
            "issue_refund": {"order_id": order, "amount_cents": rng.randrange(100, 50_000)},
        }[name]
        return {"type": "tool_use", "id": self._id(), "name": name, "input": inputs}

    def _result_content(self, call: dict) -> str:
        rng = self.rng
        roll = rng.random()
        if call["name"] in ("read_file", "grep_logs") or roll < 0.1:
            size = int(rng.lognormvariate(8.3, 1.1))  # median ~4 KB, a long tail of large reads
            size = max(200, min(size, 400_000))
            if call["name"] == "grep_logs":
                lines = []
                while sum(map(len, lines)) < size:
                    lines.append(f"2026-04-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:"
                                 f"{rng.randrange(60):02d}:{rng.randrange(60):02d}Z INFO svc=orders "
                                 f"{call['input']['pattern']} {self.words(rng.randrange(40, 160))}")
                return "\n".join(lines)
            return self.words(size)
        rows = [{"id": call["input"].get("order_id", str(self.order)), "status": rng.choice(["shipped", "delivered",
                 "processing"]), "total_cents": rng.randrange(500, 30_000), "placed": f"{rng.randrange(1, 90)}d ago",
                 "note": self.words(rng.randrange(20, 300))} for _ in range(rng.randrange(1, 6))]
        return jsonio.dumps(rows).decode()

    def assistant(self) -> dict:
        rng = self.rng
        content: list[dict] = []
        if self.thinking:
            content.append({"type": "thinking", "thinking": self.words(rng.randrange(0, 600)),
                            "signature": "Eq" + self.words(120).replace(" ", "")})
        if rng.random() < 0.7:
            content.append({"type": "text", "text": self.words(rng.randrange(30, 400)).capitalize() + "."})
        count = 1 if rng.random() < 0.6 else rng.randrange(2, 5)
        content += [self._call() for _ in range(count)]
        return {"role": "assistant", "content": content}

    def results(self, turn: dict) -> dict:
        blocks = []
        for call in (b for b in turn["content"] if b["type"] == "tool_use"):
            block = {"type": "tool_result", "tool_use_id": call["id"], "content": self._result_content(call)}
            if self.rng.random() < 0.03:
                block = {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
                         "content": f"{call['name']} failed: upstream timeout after 30s (503)"}
            blocks.append(block)
        return {"role": "user", "content": blocks}

    def final(self) -> dict:
        content = [{"type": "text", "text": self.words(self.rng.randrange(200, 900)).capitalize() + "."}]
        if self.thinking:
            content.insert(0, {"type": "thinking", "thinking": "", "signature": "Eq" + self.words(120).replace(" ", "")})
        return {"role": "assistant", "content": content}

    def caller(self) -> dict:
        self.order += 1
        return {"role": "user", "content": f"I never got order {self.order} and I want my money back. "
                                           + self.words(self.rng.randrange(20, 200))}


def build(size: int, fmt: str = "jsonl", seed: int = 7, thinking: bool = False, marks: bool = False) -> bytes:
    """The file's bytes: a run of about ``size`` bytes in format ``fmt`` (``marks``: words beyond ASCII too)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    gen = Generator(seed, thinking, marks)
    params = {"model": MODEL, "max_tokens": 4096}
    if thinking:
        params["thinking"] = {"type": "enabled", "budget_tokens": 2048}
    tools = TOOLS + EXTRA_TOOLS
    messages = [gen.caller()]
    total = len(SYSTEM) + len(jsonio.dumps(tools)) + 200
    rounds_left = gen.rng.randrange(5, 60)
    while True:
        if rounds_left == 0:
            messages.append(gen.final())
            messages.append(gen.caller())
            rounds_left = gen.rng.randrange(5, 60)
        turn = gen.assistant()
        results = gen.results(turn)
        messages += (turn, results)
        rounds_left -= 1
        total += len(jsonio.dumps(turn)) + len(jsonio.dumps(results)) + 2
        if total >= size:
            break
    if fmt != "request":
        messages.append(gen.final())  # the run's final response, never sent back
    return _encode(messages, params, tools, fmt)


def _encode(messages: list, params: dict, tools: list, fmt: str) -> bytes:
    if fmt == "request":
        return jsonio.dumps({**params, "system": SYSTEM, "tools": tools, "messages": messages}) + b"\n"
    if fmt == "messages":
        return jsonio.dumps(messages) + b"\n"
    if fmt == "jsonl":
        header = jsonio.dumps({"system": SYSTEM, "tools": tools, "params": params})
        return b"\n".join([header, *(jsonio.dumps(m) for m in messages)]) + b"\n"
    calls, tokens = [], 1800
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            out = len(jsonio.dumps(message)) // 4
            tool_use = message["content"][-1]["type"] == "tool_use"
            calls.append(ModelCall(message=i, model=MODEL, stop_reason="tool_use" if tool_use else "end_turn",
                                   usage={"input_tokens": tokens, "output_tokens": out}))
        tokens += len(jsonio.dumps(message)) // 4
    run = Run(messages=messages, system=SYSTEM, tools=tools, params=params, calls=calls,
              source=Source(path="", format="native"))
    return native.dumps([run]) + b"\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=parse_size, default=parse_size("100MB"), help="about this many bytes")
    parser.add_argument("--out", required=True, help="the file to write (atomically)")
    parser.add_argument("--format", choices=FORMATS, default="jsonl")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--thinking", action="store_true", help="thinking blocks in every assistant turn")
    parser.add_argument("--marks", action="store_true", help="words beyond ASCII in the text, as tool output has")
    args = parser.parse_args(argv)
    data = build(args.size, args.format, args.seed, args.thinking, args.marks)
    jsonio.atomic_write(args.out, data)
    print(f"wrote {args.out}: {len(data):,} bytes ({args.format})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
