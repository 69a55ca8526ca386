"""Textual's strips without the reference cycle a whole-width divide leaves: drawn rows freed by their counts.

Textual's compositor cuts every line of every widget it draws at the edges of the widgets on that
line (``Strip.divide``). A line that is one piece (a widget no other widget cuts: a scrollbar, the
header) is divided into ``[self]``, and Textual keeps that list in the strip's own divide cache, so
the strip refers to itself: when the line is drawn again, the old strip and its seven caches
(twelve objects) are left for the cyclic collector. A step of the stepper drew 37 such lines (the
request pane's scrollbar and the header), about 420 objects a step, so a young collection came every
few steps and paused the step it fell in by 5-15 ms (on the generated 100 MB run). ``install``
makes a one-piece divide answer ``[self]`` without keeping it; every other divide is Textual's own,
cached as before. What is drawn is the same: the compositor only reads the list.
"""

from __future__ import annotations

from textual.strip import Strip

_textual_divide = Strip.divide


def _divide(self: Strip, cuts) -> list[Strip]:
    """``Strip.divide``; a strip cut only at its end is ``[self]``, not kept in its own cache. (The
    compositor passes a list, one cut for a row in one piece: that case is asked first, in as few steps
    as it can be, since every row of every frame comes here.)"""
    if cuts.__class__ is not list:
        cuts = list(cuts)
    if len(cuts) == 1:
        return [self] if cuts[0] == self.cell_length else _textual_divide(self, cuts)
    cell_length = self.cell_length
    cuts = [cut for cut in cuts if cut <= cell_length]  # as Textual's does first
    if cuts == [cell_length]:
        return [self]
    return _textual_divide(self, cuts)


def install() -> None:
    """Strips divided from now on leave no cycle (idempotent)."""
    Strip.divide = _divide
