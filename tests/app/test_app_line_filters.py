"""Every line the app draws passes through one filter that does what Textual's filters and ours did in turn.

Textual makes a new strip for each filter a new line passes, so the app hands Textual one filter
(``ThenVisible``): Textual's own enabled filters (ANSI colours to true colour, NO_COLOR), then
``LegibleLines`` and ``VisibleLines``. Its output must be theirs applied one after the other, and it
must follow Textual's filters when they change (``ansi_color``).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.color import Color

from app_helpers import REFUND, app_for, settle

from tui.app.safe_lines import ThenVisible

LINES = [
    [Segment("plain "), Segment("red", Style(color="red")), Segment(" dim", Style(dim=True, color="bright_blue"))],
    [Segment("esc \x1b[31m bell \x07", Style(bgcolor="green")), Segment(" zero\u200bwidth")],
    [Segment("✗ error", Style(color="#ff0000", bold=True)), Segment(" 漢字", Style(reverse=True, color="yellow"))],
]


def one_by_one(filters, segments, background):
    for line_filter in filters:
        segments = line_filter.apply(segments, background)
    return segments


async def test_one_filter_does_what_the_filters_did_in_turn(tmp_path):
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        background = Color.parse("#1e1e1e")
        for ansi in (None, True, False):
            app.ansi_color = ansi
            await pilot.pause()
            filters = app.get_line_filters()
            assert len(filters) == 1 and isinstance(filters[0], ThenVisible)
            ours = filters[0]
            textual = [f for f in app._filters if f.enabled]
            assert list(ours.before) == textual
            for segments in LINES:
                expected = one_by_one([*textual, ours.first, ours.visible], segments, background)
                assert ours.apply(segments, background) == expected
                assert ours.apply(segments, background) == expected  # from the memo: the same
            if ansi is True:  # ANSI colours kept as the terminal's own: nothing turned into true colour
                assert not textual
