"""The scrollbars on screen show where the list and the request pane are, however a step moved them.

A step sizes the request pane's scrollbar without a layout of the screen (``CursorRows.set_rows_size``)
and a scroll of the message list draws its bar again only when the thumb moves (``watch_scroll_y``):
after stepping past the bottom of the list, and back, each bar as drawn on the screen is the bar
Textual draws for that view's position and sizes now.
"""

from __future__ import annotations

from math import ceil

from textual.scrollbar import ScrollBarRender

from app_helpers import app_for, long_run, settle, stepper


def thumb(cells) -> list[tuple[str, bool]]:
    """Each cell of a vertical bar: its glyph and whether it is drawn reversed (the thumb's body)."""
    return [(segment.text, bool(segment.style and segment.style.reverse)) for segment in cells]


def drawn_bar(app, widget) -> list[tuple[str, bool]]:
    """The widget's vertical scrollbar as the screen shows it: one cell per row of its column."""
    region = widget.vertical_scrollbar.region
    strips = app.screen._compositor.render_strips()
    cells = []
    for y in range(region.y, region.y + region.height):
        cells += [s for s in strips[y].crop(region.x, region.x + 1) if s.text]
    return thumb(cells)


def expected_bar(widget) -> list[tuple[str, bool]]:
    """The bar Textual draws for the widget's scroll offset and sizes as they are now."""
    bar = widget.vertical_scrollbar
    window = widget.container_size.height
    virtual = widget.virtual_size.height
    return thumb(ScrollBarRender.render_bar(size=bar.region.height, virtual_size=ceil(virtual),
                                            window_size=ceil(window if window < virtual else 0),
                                            position=bar.validate_position(widget.scroll_offset.y),
                                            thickness=1, vertical=True).segments)


async def test_scrollbars_follow_the_steps(tmp_path):
    app = app_for(long_run(tmp_path / "long.jsonl", 400, lambda i: f"message {i} " + "words " * (i % 30)), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        for presses in (["j"] * 90, ["k"] * 25, ["j"] * 3):
            for key in presses:
                await pilot.press(key)
            await settle(pilot)
            assert screen.message_list.scroll_offset.y > 0  # the list scrolled
            for widget in (screen.message_list, screen.request):
                assert drawn_bar(app, widget) == expected_bar(widget), widget.id
