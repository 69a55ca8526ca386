"""The Raw view: exactly the JSON body of the request for message N, drawn a line at a time.

The body is serialised and indexed in a worker (``RawBody.build``), so a body of many
megabytes never blocks the keys; until it arrives the previous one stays up with a note.
Pretty-printed by default (the same JSON with whitespace added, which the header says),
``w`` shows the exact bytes as POSTed, wrapped at the width. Copying (``y``, on the screen)
always copies the exact bytes.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from tui.app import keys
from tui.app.render.rawbody import RawBody, highlight
from tui.app.widgets.cursor_rows import StripCache, text_strip
from tui.core.request_headers import headers_brief
from tui.core.run import Run


class RawLines(ScrollView, can_focus=True):
    """The lines of one body; arrows scroll, both ways (long strings stay on one line)."""

    HELP = ("The exact JSON body of the request for message N. Shown pretty-printed (the same JSON with "
            "whitespace added); w switches to the exact bytes as POSTed. Arrows, PgUp/PgDn, Home/End scroll.")
    BINDINGS = keys.RAW

    class ModeChanged(Message):
        """Exact or pretty was switched."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.body: RawBody | None = None
        self.exact = False
        self._strips = StripCache()

    def set_body(self, body: RawBody | None) -> None:
        self.body = body
        self._resize()
        self.scroll_to(0, 0, animate=False, immediate=True)

    def _resize(self) -> None:
        self._strips.clear()
        width = max(self.scrollable_content_region.width, 20)
        if self.body is None:
            self.virtual_size = Size(0, 0)
        elif self.exact:
            self.virtual_size = Size(width, -(-self.body.exact_chars // width))
        else:
            self.virtual_size = Size(self.body.width + 1, len(self.body))
        self.refresh()

    def on_resize(self) -> None:
        if self.exact:
            self._resize()

    def action_exact(self) -> None:
        self.exact = not self.exact
        self._resize()
        self.post_message(self.ModeChanged())

    def render_line(self, y: int) -> Strip:
        x, top = self.scroll_offset
        width = self.scrollable_content_region.width
        row = top + y
        if self.body is None or row >= self.virtual_size.height:
            return Strip.blank(width, Style.null())
        return self._strips.get((row, x, width), lambda: text_strip(self._text(row, x, width), self.app.console, width))

    def _text(self, row: int, x: int, width: int) -> Text:
        body = self.body
        assert body is not None
        if self.exact:
            return highlight(body.exact_window(row * width, (row + 1) * width))
        return highlight(body.line(row)[x:x + width])


class RawView(Vertical):
    """A header saying what is shown, over the lines."""

    HELP = RawLines.HELP
    raw_lines = getters.query_one("#raw-lines", RawLines)
    raw_info = getters.query_one("#raw-info", Static)

    class Built(Message):
        """A body finished building in the worker."""

        def __init__(self, body: RawBody) -> None:
            super().__init__()
            self.body = body

    def __init__(self, run: Run, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.run = run
        self.index: int | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="raw-info")
        yield RawLines(id="raw-lines")

    def show(self, index: int) -> None:
        """Attributes down: build the body for ``index`` (in a worker) unless it is up already."""
        if self.index == index and self.raw_lines.body is not None:
            return
        self.index = index
        self.raw_info.update(Text(f"building the request body for message {index} …", "italic"))
        self._build(index)

    @work(thread=True, exclusive=True, group="raw")
    def _build(self, index: int) -> None:
        self.post_message(self.Built(RawBody.build(self.run, index)))

    def on_raw_view_built(self, message: Built) -> None:
        if message.body.index != self.index:
            return
        self.raw_lines.set_body(message.body)
        self._describe()

    def on_raw_lines_mode_changed(self, _: RawLines.ModeChanged) -> None:
        self._describe()

    def _describe(self) -> None:
        body = self.raw_lines.body
        if body is None:
            return
        named = "exact bytes" if body.wording.startswith("exact") else "bytes"
        mode = (body.wording if self.raw_lines.exact
                else f"pretty-printed (the same JSON, whitespace added) · w: {body.wording}")
        self.raw_info.update(Text.assemble(
            (f"request body for message {body.index}", "bold"), f" · {body.size:,} bytes · sha256 ",
            body.sha256[:12], f" · {mode} · y copies the {named}",
            *((("\n" + headers_brief(self.run), "bold"),) if headers_brief(self.run) else ())))
