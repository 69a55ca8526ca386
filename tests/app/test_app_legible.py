"""Every severity stays legible with and without colour (NO_COLOR): a contrast of at least 4.5:1 (WCAG).

The app is driven for real (``run_test``) on a run with a grammar error and a warning and on one
with a provenance note; each surface that shows a severity (the message list's marks, the status
bar's counts, the Problems view, the request pane's findings) is rendered row by row, passed
through the app's own line filters (Textual's NO_COLOR filter among them), and every segment that
carries a severity (its glyph or its word) is measured against the background it is drawn on.
"""

from __future__ import annotations

import re

import pytest
from rich.segment import Segment
from textual.geometry import Region
from textual.strip import Strip
from app_helpers import app_for, settle
from conftest import SAMPLES

from tui.app.legible_lines import contrast
from tui.app.render import styles

SEVERITY = re.compile(r"[✗△◦]|\b(errors?|warnings?|ERROR|WARNING|NOTE|provenance notes?)\b")


def drawn(app, widget, rows: int):
    """Rows of ``widget`` as the terminal gets them: (text, fg, bg) per segment, after the app's filters."""
    background = widget.background_colors[1]
    # A segment without a colour of its own is drawn in the widget's: that colour as the filters leave it.
    base = Strip([Segment("x", widget.rich_style)])
    for line_filter in app.get_line_filters():
        base = base.apply_filter(line_filter, background)
    default = list(base)[0].style.color.get_truecolor()
    out = []
    height = min(rows, widget.size.height)
    for strip in widget.render_lines(Region(0, 0, widget.size.width, height)):  # as the compositor draws them
        for line_filter in app.get_line_filters():
            strip = strip.apply_filter(line_filter, background)
        for segment in strip:
            style = segment.style
            if style is None or not segment.text.strip():
                continue
            fg = style.color.get_truecolor() if style.color else default
            bg = style.bgcolor.get_truecolor() if style.bgcolor else background.rich_color.get_truecolor()
            if style.reverse:
                fg, bg = bg, fg
            assert bg is not None and fg is not None, f"{segment.text!r} has no colour to measure: {style}"
            out.append((segment.text, tuple(fg), tuple(bg)))
    return out


async def severity_segments(app, pilot):
    screen = app.screen
    found = []
    for widget, rows in ((screen.message_list, 30), (screen.status, 1), (screen.request, 40)):
        found += [s for s in drawn(app, widget, rows) if SEVERITY.search(s[0])]
    await pilot.press("4", "v")  # the Problems view, everything shown (notes too)
    await settle(pilot)
    found += [s for s in drawn(app, screen.problems, 40) if SEVERITY.search(s[0])]
    return found


@pytest.mark.parametrize("no_color", [False, True])
@pytest.mark.parametrize("run, at, kinds", [
    (SAMPLES / "broken" / "orphan_result_retry.jsonl", 3, {"✗", "△"}),
    (SAMPLES / "invented_order_id.jsonl", 5, {"◦"}),
])
async def test_every_severity_reads_at_4_5_to_1_with_and_without_colour(tmp_path, monkeypatch, no_color, run, at,
                                                                        kinds):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = app_for(run, tmp_path, at=at)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.pause(0.5)
        await settle(pilot)
        assert app.no_color == no_color
        segments = await severity_segments(app, pilot)
        glyphs = {g for text, _, _ in segments for g in "✗△◦" if g in text}
        assert kinds <= glyphs, f"not every severity was drawn: {glyphs}"
        for text, fg, bg in segments:
            assert contrast(fg, bg) >= 4.5, f"{text!r}: {fg} on {bg} is {contrast(fg, bg):.2f}:1"


def test_each_severity_is_a_glyph_and_a_word_not_only_a_colour():
    assert set(styles.MARK) == {"error", "warning", "note"}
    glyphs = [glyph for glyph, _ in styles.MARK.values()]
    assert len(set(glyphs)) == 3 and all(glyph.strip() for glyph in glyphs)


def test_contrast_is_the_wcag_figure():
    assert round(contrast((0, 0, 0), (255, 255, 255)), 1) == 21.0
    assert round(contrast((118, 118, 118), (255, 255, 255)), 2) == 4.54  # the WCAG AA grey on white
