"""The command palette (ctrl+p) on the stepper: go to message N, tool call NAME, tool_use id; and NO_COLOR."""

from __future__ import annotations

import re

from app_helpers import REFUND, app_for, screen_text, settle, write_run

from tui.app.screens.stepper import StepperScreen


async def _palette(pilot, query: str) -> None:
    await pilot.press("ctrl+p")
    await settle(pilot)
    await pilot.press(*query)
    await pilot.pause(0.5)  # the palette searches its providers in the background
    await settle(pilot)
    await pilot.press("down", "enter")
    await settle(pilot)


async def test_palette_goes_to_a_message_a_tool_call_and_a_tool_use_id(tmp_path):
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _palette(pilot, "6")
        assert isinstance(app.screen, StepperScreen) and app.screen.index == 6
        await _palette(pilot, "tool call lookup_policy")
        assert app.screen.index == 3
        await _palette(pilot, "toolu_01Gh")
        assert app.screen.index == 5


SVG_CHROME = {"ff5f57", "febc2e", "28c840", "c5c8c6"}


def _coloured(svg: str) -> set[str]:
    return {c for c in re.findall(r"fill=\"#([0-9a-f]{6})\"", svg) if not c[0:2] == c[2:4] == c[4:6]}


async def test_with_colour_the_screen_has_colours(tmp_path):
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert _coloured(app.export_screenshot()) - SVG_CHROME


async def test_no_color_draws_in_grey_and_keeps_every_mark(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    messages = [{"role": "user", "content": "q"}, {"role": "user", "content": "again"}]
    app = app_for(write_run(tmp_path / "two_users.jsonl", messages), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.no_color
        svg = app.export_screenshot()
        assert _coloured(svg) <= SVG_CHROME  # only the export's window buttons and default ink are not grey
        text = screen_text(app)
        assert "▶" in text and "△" in text and "reconstructed" in text  # the cursor and marks are glyphs, not colours


async def test_a_huge_block_opens_in_a_worker_without_blocking(tmp_path):
    huge = "x" * 2_500_000 + " END-OF-BLOCK"
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "dump", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": huge}]},
                {"role": "assistant", "content": "done"}]
    app = app_for(write_run(tmp_path / "huge.jsonl", messages), tmp_path, at=3)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        pane = app.screen.request
        rows = pane.text_rows()
        assert any("2,500,013 characters" in row for row in rows)
        pane.focus()
        pane.move_cursor(next(y for y, row in enumerate(rows) if "enter: expand" in row))
        await pilot.press("enter")
        await settle(pilot)
        rows = pane.text_rows()
        assert len(rows) > 25_000
        # the whole block is there, to its last word (which may wrap at its hyphen)
        assert "x END-OF-BLOCK" in "".join(row.strip() for row in rows if row.strip().startswith(("x", "END", "BLOCK")))


async def test_palette_says_how_many_turns_call_a_tool_and_where_the_next_is(tmp_path):
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"tool call lookup_policy")
        await pilot.pause(0.5)  # the palette searches its providers in the background
        await settle(pilot)
        assert "1 turn calls it; next at message 3" in screen_text(app)


async def test_a_palette_target_is_a_jump_ctrl_o_comes_back(tmp_path):
    app = app_for(REFUND, tmp_path, at=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _palette(pilot, "6")
        assert app.screen.index == 6
        await pilot.press("ctrl+o")
        assert app.screen.index == 2


async def test_the_palette_screenshot_goes_to_the_data_folder_when_there_is_no_downloads_and_says_where(tmp_path):
    app = app_for(REFUND, tmp_path)
    downloads, data = tmp_path / "Downloads", tmp_path / "data" / "screenshots"
    app.screenshot_dirs = (downloads, data)  # no Downloads folder, as over SSH
    told: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (told.append(message), notify(message, **kw))[1]  # what the toast says
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Screenshot")
        await pilot.pause(0.5)
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause(0.4)  # Textual's command waits a moment for the palette to close
        await settle(pilot)
        saved = list(data.glob("*.svg"))
        assert len(saved) == 1 and not downloads.exists()
        assert "<svg" in saved[0].read_text() and "message 0 of 8" in saved[0].read_text().replace("&#160;", " ")
        assert told == [f"Saved to {saved[0]}"]  # the notification says where
