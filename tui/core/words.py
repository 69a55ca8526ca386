"""Counts that agree with their nouns: ``1 model call``, ``2 model calls``, never ``1 model calls``."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun made plural unless ``n`` is 1 (``plural`` where adding s is wrong);
    thousands separated. Only the last word of ``noun`` changes: ``tool-call id`` -> ``tool-call ids``."""
    if n == 1:
        return f"1 {noun}"
    if plural is None:
        plural = noun + ("es" if noun.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{n:,} {plural}"
