"""The diff screen's upper part: both runs from the first divergence, in one scrolling view.

A Line API view over ``tui.app.render.diffparts``: the request fields that differ, a line for the
messages before the divergence, then every pair from there on (equal pairs one row each,
differing pairs open up to ``OPEN_LIMIT``). Side by side from ``SIDE_MIN_WIDTH`` columns,
A above B below that, unless ``s`` on the screen chose (``switch_layout``). Enter opens or
folds a differing pair; the screen moves it to a pair (``go_to_pair``, ``step_change``).
"""

from __future__ import annotations

from rich.text import Text

from tui.app import keys
from tui.app.render import styles as palette
from tui.app.render.diffparts import OPEN_LIMIT, SIDE, STACKED, EqualRange, PairPart
from tui.app.render.lines import Part, Rows
from tui.app.widgets.lineview import LineView
from tui.core.diff import Change, RunDiff
from tui.core.run import Run
from tui.core.words import counted

#: Below this width the two runs are stacked (A above B) unless ``s`` says otherwise.
SIDE_MIN_WIDTH = 110


class DiffView(LineView):
    """Both runs from the divergence on, differing messages open with their changes."""

    HELP = ("Both runs from the first divergence on: = a message that is the same in both, ≠ one that "
            "differs (A's blocks beside B's, the changed values marked, then each change), + only in B, "
            "− only in A. Up/Down (j/k), PgUp/PgDn, Home/End scroll; Enter opens or folds a pair.")
    BINDINGS = keys.DIFF_VIEW

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.a: Run | None = None
        self.b: Run | None = None
        self.result: RunDiff | None = None
        self.pairs: list[tuple[int | None, int | None, bool]] = []
        self.by_pair: dict[int, list[Change]] = {}
        self.fixed: list[Change] = []
        self.forced: str | None = None  # SIDE or STACKED chosen with ``s``; None: by width
        self.opened: dict[int, bool] = {}
        self._mode = SIDE

    def mode(self) -> str:
        return self.forced or (SIDE if self.size.width >= SIDE_MIN_WIDTH else STACKED)

    def set_diff(self, a: Run, b: Run, result: RunDiff, pairs: list, by_pair: dict[int, list[Change]]) -> None:
        self.a, self.b, self.result, self.pairs, self.by_pair = a, b, result, pairs, by_pair
        self.fixed = [c for c in result.changes if c.index is None]
        differing = sorted(by_pair)
        self.opened = {n: k < OPEN_LIMIT for k, n in enumerate(differing)}
        self.rebuild(top=True)

    def rebuild(self, top: bool = False) -> None:
        if self.result is None:
            return
        self._mode = self.mode()
        self.set_parts(self._make_parts(), self.target(), top=top)

    def on_resize(self) -> None:
        if self.result is not None and self.mode() != self._mode:
            self.rebuild()
        else:
            super().on_resize()

    def _make_parts(self) -> list[Part]:
        a, b, result = self.a, self.b, self.result
        assert a is not None and b is not None and result is not None
        parts: list[Part] = []
        if self.fixed:
            rows = [Text("What rides beside the messages in every request differs:", palette.HEADING)]
            rows += [Text.assemble(("  ≠ ", palette.WARNING), c.describe(60)) for c in self.fixed]
            parts.append(Rows(rows, ("fixed",), wrap=False))
        first = result.first_divergence
        if first is None:
            parts.append(Rows([Text(f"The message lists are the same ({counted(len(a.messages), 'message')}).", palette.NOTE)]))
            return parts
        same = (f"Messages 0-{first - 1} are the same in both." if first > 1 else
                "Message 0 is the same in both." if first == 1 else "They differ from message 0.")
        parts.append(Rows([Text(f"{same} From message {first} on:", palette.HEADING)]))
        run: list[tuple[int, int]] = []
        start = 0
        for n, (i, k, equal) in enumerate(self.pairs):
            if equal:
                if not run:
                    start = n
                run.append((i, k))
                continue
            if run:
                parts.append(EqualRange(run, a.messages, start))
                run = []
            x = a.messages[i] if i is not None else None
            y = b.messages[k] if k is not None else None
            parts.append(PairPart(n, (i, x), (k, y), self.by_pair.get(n, []), self._mode, self.opened.get(n, True)))
        if run:
            parts.append(EqualRange(run, a.messages, start))
        return parts

    def go_to_pair(self, n: int | None) -> None:
        row = self.document.first_row_of(("fixed",) if n is None else ("pair", n))
        if row is not None:
            self.move_cursor(row)
            self.scroll_to(y=row, animate=False, immediate=True)

    def step_change(self, step: int) -> int | None:
        """The next (previous) differing pair after (before) the cursor; None when there is none."""
        here = self.cursor
        rows = [(r, n) for n in sorted(self.by_pair) if (r := self.document.first_row_of(("pair", n))) is not None]
        found = [n for r, n in rows if r > here] if step > 0 else [n for r, n in reversed(rows) if r < here]
        if not found:
            return None
        self.go_to_pair(found[0])
        return found[0]

    def action_toggle(self) -> None:
        target = self.target()
        if target and target[0] == "pair" and target[1] in self.by_pair:
            self.opened[target[1]] = not self.opened.get(target[1], True)
            self.rebuild()

    def switch_layout(self) -> str:
        self.forced = STACKED if self.mode() == SIDE else SIDE
        self.rebuild()
        return self.forced
