"""A scrolled list draws exactly what a list drawn from nothing draws: every cell, every style.

A scroll moves the rows already drawn instead of drawing them again (``CursorRows._scrolled``); the
rows that come into view and the rows whose cursor mark changed are drawn. After every kind of move
(a step past either edge, pages, the ends, a jump, a filter), the screen must be cell for cell and
style for style the screen Textual draws when every row of every widget is drawn afresh.
"""

from __future__ import annotations

from app_helpers import app_for, long_run, settle, stepper


def cells(app) -> list[list[tuple[str, object]]]:
    """The composited screen, each row as (text, style) segments."""
    return [[(segment.text, segment.style) for segment in strip] for strip in app.screen._compositor.render_strips()]


def drawn_afresh(app) -> list[list[tuple[str, object]]]:
    """The screen with every widget's drawn rows thrown away first."""
    for widget in app.screen.walk_children():
        widget._styles_cache.clear()
    return cells(app)


async def test_scrolled_rows_are_the_rows_drawn_afresh(tmp_path):
    app = app_for(long_run(tmp_path / "long.jsonl", 500, lambda i: f"message {i} é漢 " + "words " * (i % 37)), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        moves = [["j"] * 45, ["k"] * 40, ["pagedown"] * 3, ["j"] * 5, ["pageup"], ["k"] * 3, ["end"], ["k"] * 38,
                 ["j"] * 2, ["home"], ["j"] * 37]
        for keys in moves:
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            await settle(pilot)
            assert screen.message_list.scroll_offset.y > 0 or keys == ["home"]
            assert cells(app) == drawn_afresh(app), keys
        await pilot.press("enter")  # into the request pane: its own rows scroll with its cursor
        await settle(pilot)
        for keys in (["j"] * 45, ["k"] * 12, ["pagedown"], ["k"] * 3):
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            await settle(pilot)
            assert cells(app) == drawn_afresh(app), ("request", keys)
        assert screen.request.scroll_offset.y > 0
