"""The message list: one row per message, drawn with the Line API (a 20,000-message run costs its visible rows).

Each row shows the index, role, producer (caller, call k, loop), the blocks in brief,
the stop_reason and a mark where the grammar check found something (✗ error, △ warning).
The last row is the next request: what the loop holds after the final message. The list
owns the cursor keys and posts ``MessageList.Moved``; the screen sets ``cursor`` back.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.app import palette
from tui.app.lines import segments
from tui.app.runview import RunView

_STEP = Binding.Group("Step")
#: The token column: ``~1.4k``, ``=14k``, ``123k``.
TOKENS_WIDTH = 6


class MessageList(ScrollView, can_focus=True):
    """Rows of the run; the cursor is the index N the other views show."""

    HELP = ("The message list: index, role, producer (caller, model call k, loop), the blocks of each "
            "message, its stop_reason, and ✗ (error) or △ (warning) where the grammar check found "
            "something. Once counted, each row a model call produced shows the input tokens of its request "
            "(~ marks an offline estimate, = a count_tokens count, a plain number the usage the provider "
            "recorded). The last row is the next request. Down/Up (j/k) step one message.")
    COMPONENT_CLASSES = {"message-list--cursor"}
    BINDINGS = [
        Binding("down", "step(1)", "Next message", id="list.next", group=_STEP),
        Binding("up", "step(-1)", "Previous message", id="list.prev", group=_STEP),
        Binding("j", "step(1)", "Next message", show=False, id="list.next.vim"),
        Binding("k", "step(-1)", "Previous message", show=False, id="list.prev.vim"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="list.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="list.page_up"),
        Binding("home", "edge(-1)", "First message", show=False, id="list.first"),
        Binding("end", "edge(1)", "Last row", show=False, id="list.last"),
    ]

    class Moved(Message):
        """The user moved the cursor to ``index``."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.cursor = 0
        self._strips: dict[tuple[int, int], Strip] = {}
        self.virtual_size = Size(0, view.rows)

    # -- attributes down -----------------------------------------------------------------

    def set_cursor(self, index: int) -> None:
        old, self.cursor = self.cursor, max(0, min(index, self.view.rows - 1))
        self.refresh_lines(old)
        self.refresh_lines(self.cursor)
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif height and self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def marks_changed(self) -> None:
        """Findings arrived: redraw the marks."""
        self._strips.clear()
        self.refresh()

    # -- drawing -------------------------------------------------------------------------

    def row_text(self, i: int, width: int) -> Text:
        view = self.view
        digits = len(str(view.total))
        if i >= view.total:
            return Text.assemble("  ", (str(i).rjust(digits), palette.DIM), " ",
                                 ("next request", "italic"), (" · the state after the last message", palette.DIM))
        severity = view.severity(i)
        mark, mark_style = palette.MARK.get(severity, (" ", ""))
        role = view.role(i)
        producer = view.producers[i]
        label_width = len(f"call {len(view.run.calls)}")
        stop = view.stop_reason(i) or ""
        head = Text.assemble((mark, mark_style), " ", (str(i).rjust(digits), palette.DIM), " ",
                             (role.ljust(9), palette.ROLE.get(role, "")), " ",
                             (producer.label.ljust(label_width), palette.PRODUCER.get(producer.kind, palette.DIM)), " ")
        if view.analyses.report is not None:  # the input tokens of the request that produced i
            head.append(view.analyses.input_label(i).rjust(TOKENS_WIDTH) + " ", palette.DIM)
        room = width - head.cell_len - (len(stop) + 1 if stop else 0) - 1
        summary = view.summary(i)
        if len(summary) > room:
            summary = summary[: max(room - 1, 0)] + "…" if room > 1 else ""
        text = head + Text(summary.ljust(max(room, 0)))
        if stop:
            text.append(" " + stop, palette.WARNING if stop == "max_tokens" else palette.DIM)
        return text

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if row >= self.view.rows:
            return Strip.blank(width, Style.null())
        key = (row, width)
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > 2000:
                self._strips.clear()
            text = Text(" ") + self.row_text(row, width - 1)
            text.no_wrap, text.end = True, ""
            strip = self._strips[key] = Strip(segments(text, self.app.console)).crop_extend(0, width, Style.null())
        if row == self.cursor:
            style = self.get_component_rich_style("message-list--cursor")
            strip = Strip([*Strip(segments(Text("▶", "bold"), self.app.console)), *strip.crop(1)]).apply_style(style)
        return strip

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- keys and clicks (messages up) ---------------------------------------------------

    def _move(self, index: int) -> None:
        index = max(0, min(index, self.view.rows - 1))
        if index != self.cursor:
            self.set_cursor(index)
        self.post_message(self.Moved(self.cursor))

    def action_step(self, step: int) -> None:
        self._move(self.cursor + step)

    def action_page(self, step: int) -> None:
        self._move(self.cursor + step * max(self.scrollable_content_region.height - 1, 1))

    def action_edge(self, step: int) -> None:
        self._move(0 if step < 0 else self.view.rows - 1)

    def on_click(self, event: events.Click) -> None:
        self._move(self.scroll_offset.y + event.y)
