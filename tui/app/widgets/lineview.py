"""A Line API view of a ``PartLayout``: draws only the rows on screen, with a keyboard cursor.

The base of the request pane and the help text: a document of any length (a 20,000
message prefix, a 10 MB tool result) costs the rows drawn, not the rows it has. The
cursor row says what Enter acts on; the view posts ``LineView.Activated`` with that
row's target and leaves the meaning to its owner (messages up). Cursor keys, scrolling
and drawing come from ``CursorRows``; this holds the document, its layout at the width
and the search highlight.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.geometry import Size
from textual.message import Message
from textual.worker import Worker, get_current_worker

from tui.app import keys
from tui.app.render import styles as palette
from tui.app.render.lines import Mark, Part, PartLayout, Target, Wrapped
from tui.app.widgets.cursor_rows import CursorRows


class LineView(CursorRows):
    """Rows of a document, scrolled by keyboard; Enter acts on the row under the cursor."""

    HELP = "A scrollable document. Up/Down (j/k) move the cursor, PgUp/PgDn page, Home/End jump, Enter acts on the row."
    COMPONENT_CLASSES = {"lineview--cursor"}
    CURSOR_CLASS = "lineview--cursor"
    CURSOR_NEEDS_FOCUS = True
    CACHE_LIMIT = 4000
    BINDINGS = keys.LINES

    class Activated(Message):
        """Enter on a row that has a target."""

        def __init__(self, view: LineView, target: Target) -> None:
            super().__init__()
            self.view = view
            self.target = target

    class Prepared(Message):
        """Big blocks (``Wrapped`` parts) finished wrapping at the width in a worker: lay out again."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._parts: list[Part] = []
        self._doc = PartLayout([], 0)
        self.highlight: str | None = None
        #: The wrap worker running, the width it wraps at and its parts (by id, held so the ids stay theirs).
        self._wrapping: tuple[Worker, int, dict[int, Wrapped]] | None = None

    # -- content -------------------------------------------------------------------------

    @property
    def document(self) -> PartLayout:
        return self._doc

    def row_count(self) -> int:
        return len(self._doc)

    def _width(self) -> int:
        """The text width: the widget less its gutter and a vertical scrollbar, whether shown or not."""
        bar = self.styles.scrollbar_size_vertical
        return max(self.size.width - self.styles.gutter.width - bar, 20)

    def set_parts(self, parts: list[Part], cursor_target: Target = None, top: bool = False) -> None:
        """Replace the document; keep the cursor on ``cursor_target``'s first row when given."""
        self._parts = parts
        self._layout()
        self.place_cursor(cursor_target, 0 if top else None)

    def place_cursor(self, cursor_target: Target, top_row: int | None = None) -> None:
        """After a new layout: the cursor on ``cursor_target``'s first row (when it is there), or on
        ``top_row`` scrolled to the top when given; in the document and in view either way."""
        if cursor_target is not None:
            row = self._doc.first_row_of(cursor_target)
            if row is not None:
                self.cursor = row
        if top_row is not None:
            self.cursor = top_row
            self.scroll_to(y=top_row, animate=False, immediate=True)
        self.cursor = min(self.cursor, max(len(self._doc) - 1, 0))
        self.follow_cursor()

    def _layout(self) -> None:
        self._doc = PartLayout(self._parts, self._width())
        self._strips.clear()
        self.set_rows_size(Size(self._doc.width, len(self._doc)))
        self.refresh()
        width = self._doc.width
        pending = [p for p in self._parts if isinstance(p, Wrapped) and p.pending(width)]
        if pending and not self._wrapping_already(pending, width):
            self._wrapping = (self._prepare(pending, width), width, {id(p): p for p in pending})

    def _wrapping_already(self, pending: list[Wrapped], width: int) -> bool:
        """Whether the running wrap worker does this work already (a layout again at the same width, the
        same big blocks: a step back, a fold opened elsewhere): it is kept, not restarted from the start."""
        if self._wrapping is None:
            return False
        worker, at, parts = self._wrapping
        return not worker.is_finished and at == width and all(parts.get(id(p)) is p for p in pending)

    # -- big blocks wrap off the UI thread -----------------------------------------------

    @work(thread=True, exclusive=True, group="wrap")
    def _prepare(self, parts: list[Wrapped], width: int) -> None:
        worker = get_current_worker()
        for part in parts:
            if worker.is_cancelled:  # replaced by a newer one (another width, other blocks): it says when done
                return
            part.prepare(width)
        self.post_message(self.Prepared())

    def on_line_view_prepared(self, _: Prepared) -> None:
        keep = self.target()
        self._layout()
        row = self._doc.first_row_of(keep)
        if row is not None:
            self.cursor = row

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

    def line_text(self, row: int, width: int) -> Text:
        return self._doc.marked(row, self.row_marks(row))

    def row_marks(self, row: int) -> list[Mark]:
        """What is marked on row ``row``: the search; a hook for more (the request pane marks a traced value).
        A marked text that a wrap split is marked on every row it reaches."""
        return [(self.highlight, palette.MATCH, False)] if self.highlight else []

    def activate(self) -> None:
        target = self.target()
        if target is not None:
            self.post_message(self.Activated(self, target))
