"""The branch editor's list of editable parts, one row each, drawn with the Line API.

A request at index 20,000 has some 40,000 blocks; an ``OptionList`` re-measures every
option whenever one label changes (half a second a keystroke there), so this list draws
only the rows on screen and asks its owner for each row's text (``label(k)``). It owns
the cursor keys and posts ``TargetList.Highlighted`` (the cursor moved) and
``TargetList.Selected`` (Enter); the owner redraws a row with ``refresh_row``.
"""

from __future__ import annotations

from typing import Callable

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app.lines import segments


class TargetList(ScrollView, can_focus=True):
    """Rows of parts; the cursor row is the part in the JSON editor."""

    HELP = ("The parts of the request that can change: params, system prompt, each tool's description and "
            "schema, every block of messages 0..N. ✎ marks an edited part. Up/Down (j/k), PgUp/PgDn, "
            "Home/End move; Enter edits the part in the JSON editor.")
    COMPONENT_CLASSES = {"target-list--cursor"}
    BINDINGS = [
        Binding("down", "move(1)", "Down", show=False, id="targets.down"),
        Binding("up", "move(-1)", "Up", show=False, id="targets.up"),
        Binding("j", "move(1)", "Down", show=False, id="targets.down.vim"),
        Binding("k", "move(-1)", "Up", show=False, id="targets.up.vim"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="targets.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="targets.page_up"),
        Binding("home", "edge(-1)", "First", show=False, id="targets.first"),
        Binding("end", "edge(1)", "Last", show=False, id="targets.last"),
        Binding("enter", "select", "Edit", show=False, id="targets.edit"),  # the editor says "enter edits it"
    ]

    class Highlighted(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class Selected(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, count: int, label: Callable[[int], Text], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.count = count
        self.label = label
        self.cursor = 0
        self._strips: dict[tuple[int, int], Strip] = {}
        self.virtual_size = Size(0, count)

    def refresh_row(self, k: int) -> None:
        """Row ``k``'s label changed: draw it again."""
        for key in [key for key in self._strips if key[0] == k]:
            del self._strips[key]
        self.refresh_lines(k)

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if row >= self.count:
            return Strip.blank(width, Style.null())
        strip = self._strips.get((row, width))
        if strip is None:
            if len(self._strips) > 2000:
                self._strips.clear()
            text = Text(" ")
            text.append(self.label(row))
            text.truncate(width, overflow="ellipsis")
            text.no_wrap, text.end = True, ""
            strip = self._strips[(row, width)] = Strip(segments(text, self.app.console)).crop_extend(0, width, Style.null())
        if row == self.cursor:
            strip = strip.apply_style(self.get_component_rich_style("target-list--cursor"))
        return strip

    def move_to(self, k: int) -> None:
        """Put the cursor on row ``k`` and scroll it into view (no message: the owner asked)."""
        self.cursor = max(0, min(k, self.count - 1))
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif height and self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    def _move(self, k: int) -> None:
        k = max(0, min(k, self.count - 1))
        if k != self.cursor:
            self.move_to(k)
            self.post_message(self.Highlighted(k))

    def action_move(self, step: int) -> None:
        self._move(self.cursor + step)

    def action_page(self, step: int) -> None:
        self._move(self.cursor + step * max(self.scrollable_content_region.height - 1, 1))

    def action_edge(self, step: int) -> None:
        self._move(0 if step < 0 else self.count - 1)

    def action_select(self) -> None:
        self.post_message(self.Selected(self.cursor))

    def on_click(self, event: events.Click) -> None:
        self._move(self.scroll_offset.y + event.y)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
