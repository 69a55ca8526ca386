"""A large, valid run for the stepper bench, made on demand (none is committed).

``build(size, fmt)`` returns the bytes of a run of about ``size`` bytes: the refund agent's
loop repeated (assistant turns with text and one to three tool_use blocks, results turns
of small JSON rows and a few large reads, now and then an ``is_error`` result and a new
caller question). ``fmt`` is ``jsonl`` (a header line, then one message per line) or
``request`` (one Messages API request body). The bench prefers ``scripts/make_large_run.py``
when the checkout has it and falls back to this one.

    python bench/large_run.py --size 100MB --out /tmp/big.jsonl [--format jsonl|request]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.sample_content import MODEL, SYSTEM, TOOLS  # noqa: E402
from tui.core import jsonio  # noqa: E402

WORDS = ("order shipment carrier refund policy customer parcel scan status payment invoice warehouse label "
         "tracking delivery address return credit total item damaged missing late the a of to in and").split()


def _size(text: str) -> int:
    units = {"KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "B": 1}
    for unit, factor in units.items():
        if text.upper().endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


def build(size: int, fmt: str = "jsonl", seed: int = 7) -> bytes:
    rng = random.Random(seed)
    corpus = " ".join(rng.choices(WORDS, k=200_000))

    def words(n: int) -> str:
        start = rng.randrange(0, len(corpus) - n - 1)
        return corpus[start:start + n].strip() or "ok"

    messages: list[dict] = [{"role": "user", "content": "I never got order 4471 and I want my money back."}]
    total, next_id = 0, 0
    while total < size:
        calls = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            next_id += 1
            name = rng.choice(["search_orders", "get_shipment", "lookup_policy", "issue_refund"])
            calls.append({"type": "tool_use", "id": f"toolu_{next_id:08d}", "name": name,
                          "input": {"order_id": str(4000 + rng.randrange(1000))}})
        turn = {"role": "assistant", "content": [{"type": "text", "text": words(rng.randrange(20, 300))}, *calls]}
        results = []
        for call in calls:
            big = rng.random() < 0.08
            content = words(rng.randrange(20_000, 60_000)) if big else jsonio.dumps(
                [{"id": call["input"]["order_id"], "status": "shipped", "note": words(rng.randrange(50, 1500))}]).decode()
            block = {"type": "tool_result", "tool_use_id": call["id"], "content": content}
            if rng.random() < 0.03:
                block["is_error"] = True
            results.append(block)
        messages += [turn, {"role": "user", "content": results}]
        total += len(jsonio.dumps(turn)) + len(jsonio.dumps(results))
        if rng.random() < 0.02:
            messages += [{"role": "assistant", "content": [{"type": "text", "text": words(400)}]},
                         {"role": "user", "content": "And order " + str(4000 + rng.randrange(1000)) + "?"}]
    messages.append({"role": "assistant", "content": [{"type": "text", "text": words(600)}]})
    params = {"model": MODEL, "max_tokens": 4096}
    if fmt == "request":
        return jsonio.dumps({**params, "system": SYSTEM, "tools": TOOLS, "messages": messages[:-1]}) + b"\n"
    header = jsonio.dumps({"system": SYSTEM, "tools": TOOLS, "params": params})
    return b"\n".join([header, *(jsonio.dumps(m) for m in messages)]) + b"\n"


def make(path: str | Path, size: int, fmt: str = "jsonl", marks: bool = False) -> Path:
    """Write the run to ``path`` (reusing a file already there of the same size class); ``marks``: words beyond
    ASCII in its text (``scripts/make_large_run.py --marks``)."""
    target = Path(path)
    if not target.exists() or abs(target.stat().st_size - size) > size // 10:
        try:
            from scripts.make_large_run import build as other_build  # the shared generator, once merged
            data = other_build(size, fmt, marks=marks)
        except ImportError:
            if marks:
                raise
            data = build(size, fmt)
        jsonio.atomic_write(target, data)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--out", required=True)
    parser.add_argument("--format", choices=("jsonl", "request"), default="jsonl")
    args = parser.parse_args()
    data = build(_size(args.size), args.format)
    jsonio.atomic_write(args.out, data)
    print(f"wrote {args.out}: {len(data):,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
