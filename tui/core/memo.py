"""A function's results remembered by argument, with a bound on how many (core's one bounded memo).

The analyses of a long run look the same small things up again and again (a word's token pieces,
a tool input path's kind), but ids and hashes make the set of distinct arguments grow with the run.
``BoundedMemo`` is a ``dict`` (a hit is one C-level look-up: ``memo[key]``, or ``map(memo.__getitem__,
keys)``) that computes a missing key once and, when it holds ``limit`` keys, forgets them all before
adding the next: the memory stays bounded and the answers are the function's whatever was forgotten.
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedMemo(dict, Generic[K, V]):
    """``memo[key]`` is ``compute(key)``, computed once per key; at most ``limit`` keys are kept."""

    def __init__(self, compute: Callable[[K], V], limit: int) -> None:
        super().__init__()
        self.compute = compute
        self.limit = limit

    def __missing__(self, key: K) -> V:
        if len(self) >= self.limit:
            self.clear()
        value = self[key] = self.compute(key)
        return value
