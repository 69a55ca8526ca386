"""The app's last line of defence: no line it draws can carry a control character to the terminal.

Every string from a run reaches a widget through ``tui.core.safe`` already (``display``,
``one_line``); this filter sits behind all of them. Textual passes every line of every widget
(views, lists, the footer, toasts, the palette, dialogs) through the app's line filters before
it composites the screen, so a call site that forgot, or a widget added later, still cannot
send ESC, BEL, a C1 control or a bidi override, nor draw invisible text (tag characters, zero-width
characters, variation selectors): each is drawn visibly, as ``tui.core.safe.visible`` shows it. Those
characters take no cell on screen, so the escapes would widen the line; the line is cut back
to the width it was laid out with (the end of that one line is lost, never the layout).

``ThenVisible`` runs Textual's own filters (colours to true colour, NO_COLOR), another filter and
then this one as a single line filter: Textual makes a new strip (with its caches) for every filter
every new line passes through, and a step draws a hundred or more new lines.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from textual.cache import LRUCache
from textual.color import Color
from textual.filter import LineFilter

from tui.core.safe import already_visible, visible


class VisibleLines(LineFilter):
    """Draw control, direction-changing and invisible characters in the line visibly, keeping its width."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if all(segment.control or already_visible(segment.text)
               for segment in segments):
            return segments
        width = sum(cell_len(segment.text) for segment in segments if not segment.control)
        shown = [segment if segment.control else Segment(visible(segment.text), segment.style)
                 for segment in segments]
        return list(Segment.adjust_line_length(shown, width, pad=True))


class ThenVisible(LineFilter):
    """``before`` (Textual's enabled filters, in their order), ``first``, then ``VisibleLines``, as one line
    filter (one new strip per line drawn, not one per filter); a line filtered before (the same segments on
    the same background) is answered from a memo.

    Textual filters every line it draws again (a new strip each time: its line caches are by position), so
    a list scrolled by one row sends the same 36 lines through the filters again at other places; the
    filters look only at the segments and the background, so the answer is the one given before. The
    filters of ``before`` are fixed for this one's life: the app makes another when Textual's change."""

    #: Lines remembered, the least recently drawn forgotten first.
    MEMO = 4096

    def __init__(self, first: LineFilter, visible: VisibleLines, before: tuple[LineFilter, ...] = ()) -> None:
        super().__init__()
        self.first, self.visible, self.before = first, visible, before
        self._memo: LRUCache[tuple, list[Segment]] = LRUCache(self.MEMO)

    def _filtered(self, segments: list[Segment], background: Color) -> list[Segment]:
        for earlier in self.before:
            segments = earlier.apply(segments, background)
        return self.visible.apply(self.first.apply(segments, background), background)

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        key = (background, *segments)
        try:
            out = self._memo.get(key)
        except TypeError:  # a segment that cannot be a key (not one Rich or Textual makes): filtered as it is
            return self._filtered(segments, background)
        if out is None:
            out = self._filtered(segments, background)
            self._memo.set(key, out)
        return out
