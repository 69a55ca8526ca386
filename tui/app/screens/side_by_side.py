"""Original and branch side by side from the branch index, aligned by message index.

Left is the original run's messages from N, right the branch's (message N as edited, then
the new turns). Each index is one ``Paired`` part: both sides are laid out at half the
width and the shorter is padded, so message i starts on the same row on both sides and
scrolling moves both. Below 110 columns (80x24 over SSH) there is no room for two
columns: one side is shown at a time and ``x`` switches sides, staying on the same index.
``n``/``p`` jump a message; Enter opens or folds every block of the message on both sides.
Everything is drawn with the Line API, only the rows on screen.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tui.app import keys
from tui.app.render import styles as palette
from tui.app.render.blocks import FOLD_ROWS, OUTPUT_ROWS
from tui.app.render.lines import PartLayout, Mark, Part, Rows, Target
from tui.app.widgets.keys_footer import KeysFooter
from tui.app.widgets.lineview import LineView
from tui.app.widgets.turns_view import turn_parts
from tui.core.producers import producer_at
from tui.core.run import Run
from tui.core.safe import one_line

WIDE = 110
GAP = " │ "


class Paired(Part):
    """Message i of both sides in two columns; as many rows as the longer side."""

    def __init__(self, left: list[Part], right: list[Part], target: Target) -> None:
        self.left, self.right, self.target = left, right, target
        self._width = -1
        self._docs: tuple[PartLayout, PartLayout] | None = None

    def _layout(self, width: int) -> tuple[PartLayout, PartLayout, int]:
        half = max((width - len(GAP)) // 2, 2)
        if width != self._width or self._docs is None:
            self._width = width
            self._docs = (PartLayout(self.left, half), PartLayout(self.right, max(width - len(GAP) - half, 2)))
        return self._docs[0], self._docs[1], half

    def count(self, width: int) -> int:
        left, right, _ = self._layout(width)
        return max(len(left), len(right))

    def row(self, k: int, width: int) -> Text:
        return self.marked(k, width, [])

    def marked(self, k: int, width: int, marks: Sequence[Mark]) -> Text:
        """Row ``k``: both sides, each laid out at its own width (so nothing is cut), marks drawn on each."""
        left, right, half = self._layout(width)
        cell = left.marked(k, marks) if k < len(left) else Text("")
        cell.pad_right(half - cell.cell_len)
        text = Text()  # no base style: each side keeps its own
        text.append(cell)
        text.append(GAP, palette.DIM)
        if k < len(right):
            text.append(right.marked(k, marks))
        return text


class PairedView(LineView):
    """The rows of the comparison."""

    HELP = ("Original (left) and branch (right) from the branch index, aligned by message index. Up/Down "
            "(j/k), PgUp/PgDn, Home/End scroll both sides together.")
    BINDINGS = keys.PAIR_ROWS

    def action_toggle(self) -> None:
        self.screen.toggle(self.target())  # type: ignore[attr-defined]


class SideBySideScreen(Screen):
    """Where the branch went, beside where the original went, from the branch index."""

    HELP = ("Original and branch side by side from the branch index, aligned by message index. n/p jump a "
            "message, Enter opens every block of it on both sides; at 80 columns one side shows at a time "
            "and x switches. Escape goes back.")
    BINDINGS = keys.PAIR
    header = getters.query_one("#pair-header", Static)
    view = getters.query_one("#pair-view", PairedView)

    def __init__(self, original: Run, branch: Run, at: int) -> None:
        super().__init__()
        self.original, self.branch, self.at = original, branch, at
        self.last = max(len(original.messages), len(branch.messages)) - 1
        self.side = "branch"  # the one shown when there is room for only one
        self.opened: set[int] = set()
        self._wide: bool | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="pair-header")
        yield PairedView(id="pair-view")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.view.focus()
        self.rebuild()

    def on_resize(self) -> None:
        if self._wide != self.wide:
            self.rebuild()

    @property
    def wide(self) -> bool:
        return self.app.size.width >= WIDE

    # -- building ------------------------------------------------------------------------

    def _side(self, run: Run, i: int, branch: bool) -> list[Part]:
        if i >= len(run.messages):
            why = "the branch stopped before it" if branch else "the original run ended before it"
            return [Rows([Text(f"[{i}] no message {i}: {why}", palette.NOTE)], ("message", i))]
        message = run.messages[i]
        if i == self.at:
            note = "edited" if branch else "as recorded"
        else:
            producer = producer_at(run, i)
            note = producer.label
            if producer.call is not None and branch:
                note = f"branch call {producer.call + 1 - self._calls_before}"
            if producer.stop_reason is not None:
                stop = one_line(str(producer.stop_reason))
                note += f" · ({stop})" if producer.stop_inferred else f" · {stop}"
        rows, opened = FOLD_ROWS, set()
        if i in self.opened:  # every block of the message open, on both sides
            content = message.get("content") if isinstance(message, dict) else None
            rows, opened = OUTPUT_ROWS, {(i, b) for b in range(len(content) if isinstance(content, list) else 1)}
        return turn_parts(i, message, note, opened, rows, palette.WARNING if i == self.at and branch else "")

    @property
    def _calls_before(self) -> int:
        return sum(1 for c in self.branch.calls if c.message <= self.at)

    def rebuild(self) -> None:
        self._wide = self.wide
        target = self.view.target()
        parts: list[Part] = []
        for i in range(self.at, self.last + 1):
            if self._wide:
                parts.append(Paired(self._side(self.original, i, False), self._side(self.branch, i, True),
                                    ("message", i)))
            else:
                run = self.branch if self.side == "branch" else self.original
                parts += self._side(run, i, self.side == "branch")
        self.view.set_parts(parts, cursor_target=self._message_target(target))
        self._describe()
        self.refresh_bindings()

    def _message_target(self, target: Any) -> Target:
        return ("message", target[1]) if target else None

    def _describe(self) -> None:
        text = Text()
        original = one_line(os.path.basename(self.original.source.path))
        branch = one_line(os.path.basename(self.branch.source.path))
        if self._wide:
            text.append("original", "bold")
            text.append(" (left) · ")
            text.append("branch", "bold")
            text.append(f" (right) · from message {self.at} · {original} · {branch}", palette.DIM)
        else:
            shown, other = ("branch", "original") if self.side == "branch" else ("original", "branch")
            text.append(shown, "bold")
            text.append(f" · x shows the {other} · from message {self.at} · "
                        f"{branch if shown == 'branch' else original}", palette.DIM)
        text.no_wrap, text.overflow = True, "ellipsis"
        self.header.update(text)

    # -- keys ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch":
            return not self.wide
        return True

    def toggle(self, target: Target) -> None:
        if target and target[0] in ("message", "block"):
            self.opened.symmetric_difference_update({target[1]})
            self.rebuild()

    def action_jump(self, step: int) -> None:
        target = self.view.target()
        current = target[1] if target else self.at
        index = max(self.at, min(current + step, self.last))
        row = self.view.document.first_row_of(("message", index))
        if row is not None:
            self.view.move_cursor(row)
            self.view.scroll_to(y=row, animate=False, immediate=True)

    def action_switch(self) -> None:
        self.side = "original" if self.side == "branch" else "branch"
        self.rebuild()

    def action_back(self) -> None:
        self.dismiss()
