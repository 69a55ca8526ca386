"""Facts to sort a file's runs by (the run list's ``o``): when each began, its size, and its score.

A score is what the source recorded as the run's outcome: tau-bench's ``reward``, or an Inspect
sample's scores (the first; Inspect's letters read as its own ``value_to_float`` does: C 1, P 0.5,
I and N 0). A run without one sorts last. Pure: runs in, order out.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable

from tui.core.run import Run
from tui.core.timing import parse_time

#: Inspect's score letters as numbers (``inspect_ai.scorer.value_to_float``).
LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
#: The orders ``o`` steps through, with the words the list's title shows.
ORDERS = ("file", "date", "messages", "calls", "score")


def score(run: Run) -> float | None:
    meta = run.meta if isinstance(run.meta, dict) else {}
    value: Any = meta.get("reward")
    if value is None and isinstance(meta.get("scores"), dict) and meta["scores"]:
        value = next(iter(meta["scores"].values()))
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return LETTERS.get(value.strip().upper())
    return None


def score_text(run: Run) -> str | None:
    """The score as the source wrote it (``reward 1.0``, ``accuracy C``), or None."""
    meta = run.meta if isinstance(run.meta, dict) else {}
    if meta.get("reward") is not None:
        return f"reward {meta['reward']}"
    scores = meta.get("scores")
    if isinstance(scores, dict) and scores:
        return ", ".join(f"{k} {v}" for k, v in scores.items())
    return None


def began(run: Run) -> datetime | None:
    """When the run's first model call was sent, where recorded."""
    return next((t for t in (parse_time(s) for s in run.call_starts()) if t is not None), None)


def order(runs: list[Run], by: str) -> list[int]:
    """The run indices in the order ``by`` (``ORDERS``): the file's, the earliest first, the most messages or
    calls first, the lowest score first (the failed runs, to look at); runs without the fact keep the file's order, last."""
    keys: dict[str, Callable[[Run], Any]] = {
        "date": lambda r: began(r), "messages": lambda r: -r.sizes()[0], "calls": lambda r: -r.sizes()[1],
        "score": score}
    key = keys.get(by)
    if key is None:
        return list(range(len(runs)))
    values = [key(r) for r in runs]
    return sorted(range(len(runs)), key=lambda k: (values[k] is None, values[k] if values[k] is not None else 0, k))
