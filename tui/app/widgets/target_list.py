"""The branch editor's list of editable parts, one row each, drawn with the Line API.

A request at index 20,000 has some 40,000 blocks; an ``OptionList`` re-measures every
option whenever one label changes (half a second a keystroke there), so this list draws
only the rows on screen and asks its owner for each row's text (``label(k)``). It owns
the cursor keys and posts ``TargetList.Highlighted`` (the cursor moved) and
``TargetList.Selected`` (Enter); the owner redraws a row with ``refresh_row``.
"""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual import events
from textual.geometry import Size

from tui.app import keys
from tui.app.app_messages import IndexMessage
from tui.app.widgets.cursor_rows import CursorRows


class TargetList(CursorRows):
    """Rows of parts; the cursor row is the part in the JSON editor."""

    HELP = ("The parts of the request that can change: params, system prompt, each tool's description and "
            "schema, every block of messages 0..N. ✎ marks an edited part. Up/Down (j/k), PgUp/PgDn, "
            "Home/End move; Enter edits the part in the JSON editor.")
    COMPONENT_CLASSES = {"target-list--cursor"}
    CURSOR_CLASS = "target-list--cursor"
    BINDINGS = keys.TARGETS

    class Highlighted(IndexMessage):
        """The user moved the cursor to part ``index``."""

    class Selected(IndexMessage):
        """Enter on part ``index``."""

    def __init__(self, count: int, label: Callable[[int], Text], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.count = count
        self.label = label
        self.virtual_size = Size(0, count)

    def row_count(self) -> int:
        return self.count

    def refresh_row(self, k: int) -> None:
        """Row ``k``'s label changed: draw it again."""
        self._strips.forget(k)
        self.refresh_lines(k)

    def line_text(self, row: int, width: int) -> Text:
        text = Text(" ")
        text.append(self.label(row))
        text.truncate(width, overflow="ellipsis")
        return text

    def move_to(self, k: int) -> None:
        """Put the cursor on row ``k`` and scroll it into view (no message: the owner asked)."""
        self.move_cursor(k)

    def user_move(self, k: int) -> None:
        k = self.clamp(k)
        if k != self.cursor:
            self.move_to(k)
            self.post_message(self.Highlighted(k))

    def action_select(self) -> None:
        self.post_message(self.Selected(self.cursor))

    def on_click(self, event: events.Click) -> None:
        self.user_move(self.scroll_offset.y + event.y)
