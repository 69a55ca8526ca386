"""The traces of every tool turn as the analyses' process sent them, kept as it sent them.

The process behind a large run traces every tool turn (the Problems view lists the run's unsourced
values), and the stepper shows the trace of the one message on screen. Taken in as tuples
(``provenance.trace_row``), the 16,300 traces of the 100 MB run held 24 MB of the app's memory (their
own copy of every tool name, path and value), a tenth of all it held, and unpickling them took the
app's interpreter 0.05 s in all. So the process sends them in pieces (``piece``): a piece's message
indices, its rows pickled, and the unsourced values among them; ``TraceRows`` keeps the bytes (3 MB)
and unpickles a piece when one of its traces is first asked for (about a millisecond for 400),
keeping the last few pieces made.
"""

from __future__ import annotations

import pickle
from array import array
from bisect import bisect_left, bisect_right
from typing import Any, Iterator

from tui.core.memo import BoundedMemo
from tui.core.provenance import unsourced_rows

#: Pieces kept unpickled (each up to ``background.TRACES_PIECE`` traces).
KEPT = 4

Piece = tuple[array, bytes, list[tuple[int, tuple]]]


def piece(rows: list[tuple[int, tuple]]) -> Piece:
    """What the process sends for ``rows`` (``(n, trace_row)`` pairs in run order): the indices, the rows
    pickled, and each unsourced value row with its index."""
    indices = array("q", [n for n, _ in rows])
    data = pickle.dumps([row for _, row in rows], protocol=pickle.HIGHEST_PROTOCOL)
    return indices, data, [(n, v) for n, row in rows for v in unsourced_rows(row)]


class TraceRows:
    """The ``provenance.trace_row`` of each traced message, by index, from the pieces of ``piece`` taken in
    (``add``) in run order; ``unsourced``: every unsourced value row of the run, with its index, in run
    order (as ``provenance.unsourced_of`` gives them trace by trace)."""

    def __init__(self) -> None:
        self._indices: list[array] = []
        self._firsts: list[int] = []
        self._data: list[bytes] = []
        self.unsourced: list[tuple[int, tuple]] = []
        self._rows: BoundedMemo[int, list] = BoundedMemo(self._unpickle, KEPT)

    def add(self, sent: Piece) -> None:
        indices, data, unsourced = sent
        if not indices:
            return
        self._indices.append(indices)
        self._firsts.append(indices[0])
        self._data.append(data)
        self.unsourced += unsourced

    def _unpickle(self, k: int) -> list:
        return pickle.loads(self._data[k])

    def get(self, n: int) -> tuple | None:
        """The trace row of message ``n``, or None when it was not traced."""
        k = bisect_right(self._firsts, n) - 1
        if k < 0:
            return None
        indices = self._indices[k]
        j = bisect_left(indices, n)
        if j == len(indices) or indices[j] != n:
            return None
        return self._rows[k][j]

    def __len__(self) -> int:
        return sum(map(len, self._indices))

    def __iter__(self) -> Iterator[int]:
        for indices in self._indices:
            yield from indices

    def __getstate__(self) -> dict[str, Any]:
        return {"pieces": list(zip(self._indices, self._data)), "unsourced": self.unsourced}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()
        for indices, data in state["pieces"]:
            self.add((indices, data, []))
        self.unsourced = state["unsourced"]
