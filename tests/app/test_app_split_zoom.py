"""The split between the message list and the views moves (+/-), and either side zooms to the screen (f)."""

from __future__ import annotations

from app_helpers import REFUND, app_for, screen_text, settle

from tui.app.screens.stepper import StepperScreen


async def test_the_split_moves_and_the_list_zooms_at_120_columns(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StepperScreen)
        before = screen.message_list.size.width
        await pilot.press("plus")
        await settle(pilot)
        assert screen.message_list.size.width > before + 5
        await pilot.press("minus", "minus")
        await settle(pilot)
        assert screen.message_list.size.width < before - 5
        await pilot.press("f")  # the list has the focus: it takes the whole screen
        await settle(pilot)
        assert screen.message_list.size.width >= 118 and not screen.query_one("#right").display
        assert "issue_refund  4471 8900" in screen_text(app)
        await pilot.press("f")
        await settle(pilot)
        assert screen.query_one("#right").display and screen.message_list.size.width < 100


async def test_the_view_zooms_and_the_list_grows_at_80x24(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        rows = screen.message_list.size.height
        await pilot.press("plus")
        await settle(pilot)
        assert screen.message_list.size.height == rows + 3
        await pilot.press("tab")  # the focus on the view: f zooms the view
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert not screen.message_list.display and screen.request.size.height >= 18
        assert screen.index == 5
        await pilot.press("f")
        await settle(pilot)
        assert screen.message_list.display and screen.message_list.size.height == rows + 3


async def test_the_split_and_zoom_keys_are_in_the_help_and_the_footer(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        for _ in range(30):  # under load the footer's keys are composed a frame or two late
            footer = screen_text(app).splitlines()[-1]
            if "Zoom" in footer:
                break
            await pilot.pause(0.1)
        assert "Zoom" in footer and "Split" in footer
        await pilot.press("question_mark")
        await settle(pilot)
        text = str(app.screen.query_one("#help-text").render())  # the whole key list, scrolled or not
        assert "List wider" in text and "Zoom" in text
