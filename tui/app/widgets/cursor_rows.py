"""The base of every list drawn with the Line API: rows made when drawn, a keyboard cursor, drawn rows kept.

A list of 20,000 rows costs the rows on screen. ``CursorRows`` holds what the message list,
the branch editor's ``TargetList`` and ``LineView`` (request pane, diff, tokens, turns, side
by side) share: the cursor and its keys (``tui.app.keys.cursor_bindings``: arrows, j/k,
PgUp/PgDn, Home/End, as data with ids), scrolling the cursor into view, and ``render_line`` over a
bounded cache of drawn rows (``StripCache``, also used by the Raw view). A subclass says
how many rows there are (``row_count``), what row k says (``line_text``) and what a move
the user made means (``user_move``: usually, post its own message). ``vim_bindings`` (j/k
on an ``OptionList``) and ``fold_bindings`` (Enter/Space open or fold) are the other keys
lists share.
"""

from __future__ import annotations

from math import ceil
from typing import Callable, Hashable

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from tui.app.render.lines import segments


def text_strip(text: Text, console: Console, width: int) -> Strip:
    """One row of text as a strip exactly ``width`` cells wide, never wrapped: padded as
    ``Strip.crop_extend`` pads, in one strip rather than the two or three it makes."""
    text.no_wrap, text.end = True, ""
    row = segments(text, console)
    length = Segment.get_line_length(row)
    if length < width:
        row.append(Segment(" " * (width - length), _NULL))
    elif length > width:
        return Strip(row, length).crop(0, width)
    return Strip(row, width)


_NULL = Style.null()


def same_bar(bar: ScrollBar, old: float, new: float) -> bool:
    """Whether vertical scrollbar ``bar`` draws the same at position ``new`` as at ``old`` (its sizes as
    they are), asked of Textual's own drawing of the bar."""
    if old == new:
        return True
    size = bar.size.height
    window = bar.window_size if bar.window_size < bar.window_virtual_size else 0
    if not size:
        return False

    def drawn(position: float) -> list:
        return bar.renderer.render_bar(size=size, virtual_size=ceil(bar.window_virtual_size), window_size=ceil(window),
                                       position=position, thickness=bar.thickness, vertical=True).segments

    return drawn(old) == drawn(new)


class StripCache:
    """Drawn rows by key (a tuple that starts with the row), all dropped at once past ``limit``."""

    def __init__(self, limit: int = 2000) -> None:
        self.limit = limit
        self._strips: dict[Hashable, Strip] = {}

    def get(self, key: tuple, make: Callable[[], Strip]) -> Strip:
        strip = self._strips.get(key)
        if strip is None:
            if len(self._strips) > self.limit:
                self._strips.clear()
            strip = self._strips[key] = make()
        return strip

    def __len__(self) -> int:
        return len(self._strips)

    def clear(self) -> None:
        self._strips.clear()

    def forget(self, row: int) -> None:
        """Row ``row`` changed: draw it again next time."""
        for key in [key for key in self._strips if key[0] == row]:
            del self._strips[key]


class CursorRows(ScrollView, can_focus=True):
    """Rows drawn on demand with a cursor row; the keys in ``cursor_bindings`` move it."""

    #: The component class that styles the cursor row (each subclass names its own, for the .tcss).
    CURSOR_CLASS = ""
    #: Show the cursor only while the widget has the focus.
    CURSOR_NEEDS_FOCUS = False
    #: How many drawn rows to keep.
    CACHE_LIMIT = 2000

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.cursor = 0
        self._painted = 0  # the row last drawn as the cursor by ``move_cursor``: drawn again when it moves
        self._strips = StripCache(self.CACHE_LIMIT)
        #: While ``render_lines`` draws: (scroll row, width, row count, cursor shown).
        self._drawing: tuple[int, int, int, bool] | None = None

    # -- what a subclass says ------------------------------------------------------------

    def row_count(self) -> int:
        raise NotImplementedError

    def line_text(self, row: int, width: int) -> Text:
        """Row ``row`` as text, ``width`` cells at most (it is cropped or padded to that)."""
        raise NotImplementedError

    def cursor_strip(self, strip: Strip) -> Strip:
        """The cursor row as drawn."""
        return strip.apply_style(self.get_component_rich_style(self.CURSOR_CLASS))

    def user_move(self, row: int) -> None:
        """The user moved the cursor (a key or a click) toward ``row``; subclasses also say so upward."""
        self.move_cursor(row)

    # -- drawing -------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows in ``crop``: what every row asks (the scroll, the width, the row count, whether the
        cursor shows) asked once for them all, not once a row (Textual works out the widget's regions
        again on each ask: some 40 microseconds, 70 rows a step)."""
        self._drawing = self._rows_asked()
        try:
            return super().render_lines(crop)
        finally:
            self._drawing = None

    def _rows_asked(self) -> tuple[int, int, int, bool]:
        """What every row drawn asks: the scroll row, the width, the row count, whether the cursor shows."""
        return (self.scroll_offset.y, self.scrollable_content_region.width, self.row_count(),
                self.has_focus or not self.CURSOR_NEEDS_FOCUS)

    def render_line(self, y: int) -> Strip:
        top, width, count, cursor_shown = self._drawing or self._rows_asked()  # or: not from ``render_lines``
        row = top + y
        if row >= count:
            return Strip.blank(width, _NULL)
        strip = self._strips.get((row, width), lambda: text_strip(self.line_text(row, width), self.app.console, width))
        if row == self.cursor and cursor_shown:
            strip = self.cursor_strip(strip)
        return strip

    def set_rows_size(self, size: Size) -> None:
        """The document's size (its width, its rows) changed: its scrollbars sized again, in this frame.

        Setting ``virtual_size`` asks for a layout of the whole screen (it is a layout reactive), though
        nothing else moves when a view's rows change: the layout then sizes this view's scrollbars, and
        refreshes both scrollbars of every view whose sizes it rechecks, which the screen draws in a frame
        of their own after the step's. Here the scrollbars are sized as that layout would size them
        (``_scroll_update``: the bar's window, the scroll offset kept in range); a scrollbar that comes or
        goes still asks for the layout (``show_vertical_scrollbar`` is a layout reactive). Before the first
        layout there is nothing to size: the reactive, as usual."""
        if size == self.virtual_size:
            return
        if not self.is_mounted or not self.container_size:
            self.virtual_size = size
            return
        self.set_reactive(CursorRows.virtual_size, size)
        self._scroll_update(size)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Scrolled: the rows drawn again (as ``ScrollView`` does), the scrollbar only when its thumb moves.

        A list of 30,000 rows scrolled by one row moves its thumb by a thirtieth of a cell, which draws
        the same bar: Textual draws the bar again whenever its position changes (every row on a step
        past the bottom of the list, some 2 ms of the step). Its position is set either way; the bar is
        drawn again only when ``ScrollBarRender.render_bar`` (Textual's own) draws a different bar."""
        if self.show_vertical_scrollbar:
            bar = self.vertical_scrollbar
            position = bar.validate_position(new_value)
            if same_bar(bar, bar.position, position):
                bar.set_reactive(ScrollBar.position, position)
            else:
                bar.position = new_value
        if round(old_value) != round(new_value):
            self._scrolled(round(new_value) - round(old_value))

    def _scrolled(self, shift: int) -> None:
        """Scrolled by ``shift`` rows: every row is put on the screen again, but a row that only moved is
        not drawn again. Textual keeps each drawn row by its position in the widget (``_styles_cache``,
        after the widget's styles), so a scroll of one row drew all 36 again, and each new strip then
        went through the line filters and the compositor's cuts as a new strip too (some 4 ms of a step
        past the bottom of the list). A row that moved is the same row at another position: its drawn
        strip moves with it (and the filtered strips and cuts Textual keeps on it are found again); the
        rows that come into view, and any row already due to be drawn again, are drawn. Only where the
        widget has no border or padding above or below its rows (a row's drawing does not depend on its
        position) and Textual's cache is as this knows it; otherwise every row is drawn, as before."""
        kept = self._moved_rows(shift)
        self.refresh(self.size.region)
        if kept:
            cache = self._styles_cache
            cache._cache.clear()
            cache._cache.update(kept)
            cache._dirty_lines.difference_update(kept)

    def _moved_rows(self, shift: int) -> dict[int, Strip]:
        """The drawn rows still good after scrolling by ``shift``, at their new positions."""
        height = self.size.height
        gutter = self.styles.gutter
        if not shift or abs(shift) >= height or gutter.top or gutter.bottom:
            return {}
        lines = getattr(self._styles_cache, "_cache", None)
        dirty = getattr(self._styles_cache, "_dirty_lines", None)
        if not isinstance(lines, dict) or not isinstance(dirty, set):  # a Textual that keeps them otherwise
            return {}
        return {y - shift: strip for y, strip in lines.items() if y not in dirty and 0 <= y - shift < height}

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- moving --------------------------------------------------------------------------

    def clamp(self, row: int) -> int:
        return max(0, min(row, self.row_count() - 1))

    def move_cursor(self, row: int) -> None:
        """Put the cursor on ``row`` and scroll it into view (no message: the owner asked)."""
        old, self.cursor = self.cursor, self.clamp(row)
        for drawn in {old, self._painted} - {self.cursor}:
            self.refresh_lines(drawn)
        self.refresh_lines(self.cursor)
        self._painted = self.cursor
        self.follow_cursor()

    def follow_cursor(self) -> None:
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif height and self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def action_cursor(self, step: int) -> None:
        self.user_move(self.cursor + step)

    def action_page(self, step: int) -> None:
        self.user_move(self.cursor + step * max(self.scrollable_content_region.height - 1, 1))

    def action_edge(self, step: int) -> None:
        self.user_move(0 if step < 0 else self.row_count() - 1)
