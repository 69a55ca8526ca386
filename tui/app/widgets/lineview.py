"""A Line API view of a ``Document``: draws only the rows on screen, with a keyboard cursor.

The base of the request pane and the help text: a document of any length (a 20,000
message prefix, a 10 MB tool result) costs the rows drawn, not the rows it has. The
cursor row says what Enter acts on; the view posts ``LineView.Activated`` with that
row's target and leaves the meaning to its owner (messages up).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from tui.app import palette
from tui.app.lines import Document, Part, Target, segments

_MOVE = Binding.Group("Move")


class LineView(ScrollView, can_focus=True):
    """Rows of a document, scrolled by keyboard; Enter acts on the row under the cursor."""

    HELP = "A scrollable document. Up/Down (j/k) move the cursor, PgUp/PgDn page, Home/End jump, Enter acts on the row."
    COMPONENT_CLASSES = {"lineview--cursor"}
    BINDINGS = [
        Binding("down", "cursor(1)", "Down", show=False, id="lines.down"),
        Binding("j", "cursor(1)", "Down", show=False, id="lines.down.vim"),
        Binding("up", "cursor(-1)", "Up", show=False, id="lines.up"),
        Binding("k", "cursor(-1)", "Up", show=False, id="lines.up.vim"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="lines.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="lines.page_up"),
        Binding("home", "edge(-1)", "Top", show=False, id="lines.top"),
        Binding("end", "edge(1)", "Bottom", show=False, id="lines.bottom"),
    ]

    class Activated(Message):
        """Enter on a row that has a target."""

        def __init__(self, view: LineView, target: Target) -> None:
            super().__init__()
            self.view = view
            self.target = target

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._parts: list[Part] = []
        self._doc = Document([], 0)
        self._strips: dict[int, Strip] = {}
        self.cursor = 0
        self.highlight: str | None = None

    # -- content -------------------------------------------------------------------------

    @property
    def document(self) -> Document:
        return self._doc

    def _width(self) -> int:
        """The text width: the widget less its gutter and a vertical scrollbar, whether shown or not."""
        bar = self.styles.scrollbar_size_vertical
        return max(self.size.width - self.styles.gutter.width - bar, 20)

    def set_parts(self, parts: list[Part], cursor_target: Target = None, top: bool = False) -> None:
        """Replace the document; keep the cursor on ``cursor_target``'s first row when given."""
        self._parts = parts
        self._layout()
        if cursor_target is not None:
            row = self._doc.first_row_of(cursor_target)
            if row is not None:
                self.cursor = row
        if top:
            self.cursor = 0
            self.scroll_to(y=0, animate=False, immediate=True)
        self.cursor = min(self.cursor, max(len(self._doc) - 1, 0))
        self._follow()

    def _layout(self) -> None:
        self._doc = Document(self._parts, self._width())
        self._strips.clear()
        size = Size(self._doc.width, len(self._doc))
        if size != self.virtual_size:
            # Not ``self.virtual_size = size``: that re-lays out the whole screen on every step. Only
            # this view's scrollbars depend on it (they re-layout themselves if they appear or go).
            self.set_reactive(Widget.virtual_size, size)
            self._scroll_update(size)
        self.refresh()

    def on_resize(self) -> None:
        if self._doc.width != self._width():
            self._layout()

    def set_highlight(self, words: str | None) -> None:
        """Mark every occurrence of ``words`` (a search) in the rows drawn."""
        if words != self.highlight:
            self.highlight = words
            self._strips.clear()
            self.refresh()

    def target(self) -> Target:
        return self._doc.target(self.cursor)

    def text_rows(self) -> list[str]:
        """Every row as plain text (tests and the help screen read the document this way)."""
        return [self._doc.row(y).plain for y in range(len(self._doc))]

    # -- drawing -------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        row = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        strip = self._strips.get(row)
        if strip is not None and strip.cell_length != width:
            self._strips.clear()
            strip = None
        if strip is None:
            if len(self._strips) > 4000:
                self._strips.clear()
            text: Text = self._doc.row(row) if row < len(self._doc) else Text("")
            text.no_wrap = True
            text.end = ""
            if self.highlight:
                text.highlight_words([self.highlight], palette.MATCH, case_sensitive=False)
            text = self.style_row(row, text)
            strip = Strip(segments(text, self.app.console)).crop_extend(0, width, Style.null())
            self._strips[row] = strip
        if row == self.cursor and self.has_focus and row < len(self._doc):
            strip = strip.apply_style(self.get_component_rich_style("lineview--cursor"))
        return strip

    def style_row(self, row: int, text: Text) -> Text:
        """A hook: mark something in row ``row`` before it is drawn (the request pane marks a traced value)."""
        return text

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- moving --------------------------------------------------------------------------

    def move_cursor(self, row: int) -> None:
        old = self.cursor
        self.cursor = max(0, min(row, len(self._doc) - 1))
        if self.cursor != old:
            self.refresh_lines(old)
        self.refresh_lines(self.cursor)
        self._follow()

    def _follow(self) -> None:
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif height and self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, step: int) -> None:
        self.move_cursor(self.cursor + step)

    def action_page(self, step: int) -> None:
        self.move_cursor(self.cursor + step * max(self.scrollable_content_region.height - 1, 1))

    def action_edge(self, step: int) -> None:
        self.move_cursor(0 if step < 0 else len(self._doc) - 1)

    def activate(self) -> None:
        target = self.target()
        if target is not None:
            self.post_message(self.Activated(self, target))
