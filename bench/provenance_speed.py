"""Provenance on a long run: index the prefix once vs search it again for every value.

Builds a synthetic run of ROUNDS tool rounds (each result a ~2 KB JSON order list, each
call citing an id and an amount read from an earlier result, plus one invented id), traces
every tool turn both ways and prints the time of each and their ratio, measured in this one
run. Not a test: nothing is asserted. ``python bench/provenance_speed.py [ROUNDS]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tui.core.provenance import Provenance  # noqa: E402
from tui.core.values import trivial  # noqa: E402
from tui.core.run import Run, blocks_of  # noqa: E402
from tui.core.valueindex import walk  # noqa: E402


def synthetic(rounds: int) -> Run:
    messages = [{"role": "user", "content": "Reconcile the orders for customer cus_8123, please."}]
    for k in range(rounds):
        rows = [{"id": f"ord_{k}_{j}", "total_cents": 1000 + 37 * k + j, "status": "shipped"} for j in range(25)]
        pick = rows[k % 25]
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Checking batch {k}."},
            {"type": "tool_use", "id": f"toolu_{k:05d}", "name": "reconcile",
             "input": {"order_id": pick["id"] if k else "ord_0_0", "amount_cents": pick["total_cents"],
                       "ledger": f"led_{k}_x9q", "note": f"batch {k} ok"}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{k:05d}", "content": orjson.dumps(rows).decode()}]})
    return Run(messages=messages)


def naive(run: Run, n: int) -> int:
    """The obvious way: for every value, serialise each earlier message and search it."""
    found = 0
    for block in blocks_of(run.messages[n]):
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        for _, value, is_key in walk(block.get("input"), ""):
            if is_key or trivial(value):
                continue
            needle = value if isinstance(value, str) else orjson.dumps(value).decode()
            for earlier in run.messages[:n]:
                if needle in orjson.dumps(earlier).decode():
                    found += 1
                    break
    return found


def main(argv: list[str]) -> int:
    rounds = int(argv[0]) if argv else 600
    run = synthetic(rounds)
    turns = [i for i, m in enumerate(run.messages) if m["role"] == "assistant"]
    start = time.perf_counter()
    provenance = Provenance(run)
    traced = sum(len(provenance.trace(i).traced) for i in turns)
    indexed = time.perf_counter() - start
    start = time.perf_counter()
    for i in turns:
        naive(run, i)
    scanned = time.perf_counter() - start
    print(f"{len(run.messages)} messages, {len(turns)} tool turns, {traced} values traced")
    print(f"index once: {indexed:.3f} s   search per value: {scanned:.3f} s   ratio {scanned / indexed:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
