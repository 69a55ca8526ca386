"""The stepper's jump list, as in vim: where each jump left from, to go back and forward again.

A jump is a move the user made to a place rather than a step (go to an index, a provenance
source, a finding, a search match, a palette target, first/last); stepping by message or call is
not recorded. ``back`` returns to where the last jump left from and keeps the place it leaves for
``forward``; a new jump after going back forgets the places ahead, as vim does. Textual-free.
"""

from __future__ import annotations

#: Places kept (the oldest are forgotten first).
LIMIT = 100


class JumpList:
    """Back and forward stacks of message indices."""

    def __init__(self) -> None:
        self._back: list[int] = []
        self._forward: list[int] = []

    def jumped(self, origin: int, target: int) -> None:
        """A jump from ``origin`` to ``target`` (nothing is recorded when they are the same place)."""
        if origin == target:
            return
        if not self._back or self._back[-1] != origin:
            self._back.append(origin)
            del self._back[:-LIMIT]
        self._forward.clear()

    def back(self, here: int) -> int | None:
        """Where to go back to from ``here``, or None; ``here`` is kept for ``forward``."""
        while self._back:
            place = self._back.pop()
            if place != here:
                self._forward.append(here)
                return place
        return None

    def forward(self, here: int) -> int | None:
        while self._forward:
            place = self._forward.pop()
            if place != here:
                self._back.append(here)
                return place
        return None

    def can_back(self) -> bool:
        return bool(self._back)

    def can_forward(self) -> bool:
        return bool(self._forward)
