"""The footer fits the terminal: at 80 columns the stepper's footer keeps ``b Branch`` and ends with
``? Keys`` whatever the state (a clean run, a run with findings, an active search), the branch
editor's too; wider terminals show more (``B Branches``, ``D Diff``, ``y Copy``). Keys that leave
the footer still work and are still listed by ``?``."""

from __future__ import annotations

import pytest
from app_helpers import REFUND, app_for, screen_text, settle
from branch_app_helpers import branch_app, type_text
from conftest import SAMPLES

from tui.app.screens.branch.tree import BranchTreeScreen

WITH_FINDINGS = SAMPLES / "broken" / "orphan_result_retry.jsonl"


async def _pressed(pilot, *keys: str) -> None:
    """The keys, pressed once the app is settled; then settled again."""
    await settle(pilot)
    await pilot.press(*keys)
    await settle(pilot)


def footer(app) -> str:
    """The footer row, without the command palette key docked on its right."""
    return screen_text(app).split("\n")[-1].split("▏")[0].rstrip()


@pytest.mark.parametrize("path, keys, expected, instead_of", [
    (REFUND, (), "↑ ↓ Step  n p Call  / Search  12345 View  b Branch  q Quit  ? Keys", "y Copy"),
    (WITH_FINDINGS, (), "/ Search  ] [ Finding  12345 View  b Branch  q Quit  ? Keys", "n p Call"),
    # the search jumped to its first match: ^o Back (the jump list) takes y Copy's place
    (REFUND, ("slash", *"refund", "enter"), "/ Search  > < Match  ^o Back  12345 View  b Branch  q Quit  ? Keys",
     "] ["),
])
async def test_at_80_columns_the_footer_keeps_branch_and_keys(tmp_path, path, keys, expected, instead_of):
    app = app_for(path, tmp_path, at=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await _pressed(pilot, *keys)
        assert footer(app) == " " + expected
        assert instead_of not in footer(app)


async def test_wider_terminals_show_the_other_branch_and_review_keys(tmp_path):
    app = app_for(REFUND, tmp_path, at=4)
    async with app.run_test(size=(130, 24)) as pilot:
        await settle(pilot)
        shown = footer(app)
        for key in ("n p Call", "y Copy", "b Branch", "B Branches", "D Diff against a file", "? Keys"):
            assert key in shown
        await pilot.resize_terminal(80, 24)  # narrower: the footer is laid out again
        await settle(pilot)
        assert "B Branches" not in footer(app) and footer(app).endswith("b Branch  q Quit  ? Keys")


async def test_keys_left_out_of_the_footer_still_work_and_are_listed(tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _pressed(pilot, "question_mark")
        listed = str(app.screen.query_one("#help-text").render())  # the whole list, scrolled or not
        for key, what in (("B", "Branches"), ("D", "Diff against a file"), ("y, c", "Copy")):
            assert f"  {key:<16} {what}\n" in listed
        await _pressed(pilot, "escape")
        await _pressed(pilot, "B")  # not in the footer at 80 columns, still bound
        assert isinstance(app.screen, BranchTreeScreen)


async def test_the_branch_editor_footer_fits_at_80_columns(tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _pressed(pilot, "b")
        await pilot.press("e", "ctrl+u")  # an edit: u Undo joins the quick edits
        await type_text(pilot, "down")
        await pilot.press("enter")
        await settle(pilot)
        shown = footer(app)
        assert shown.startswith(" ^s Send…  e Error") and shown.endswith("esc Close  q Quit  ? Keys")
        assert "u Undo" in shown and "m Model" not in shown


@pytest.mark.parametrize("view", ["request", "raw", "account", "problems", "tokens", "response"])
async def test_each_view_with_the_focus_keeps_the_footer_whole_at_80_columns(tmp_path, view):
    app = app_for(REFUND, tmp_path, at=5, view=view)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(2):  # the view has the focus (its own keys join the footer), then the list has it
            assert footer(app).endswith("  b Branch  q Quit  ? Keys")
            await pilot.press("tab")
            await settle(pilot)


async def test_a_click_on_a_footer_key_presses_it_and_the_pointer_names_a_grouped_key(tmp_path):
    """The footer is one line of text: a click on ``/ Search`` (on its key or its word) opens the search, as
    pressing ``/`` does; the pointer on ``n`` of ``n p Call`` shows what that key does."""
    from tui.app.screens.dialogs import PromptScreen
    from tui.app.widgets.keys_footer import KeysFooter

    app = app_for(REFUND, tmp_path, at=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = footer(app)
        await pilot.hover(KeysFooter, offset=(shown.index("n p Call"), 0))
        await settle(pilot)
        assert app.screen.query_one(KeysFooter).tooltip == "Next model call"
        await pilot.click(KeysFooter, offset=(shown.index("/ Search") + len("/ Sea"), 0))
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.click(KeysFooter, offset=(shown.index("  12345 View") + 1, 0))  # between two items: nothing
        await settle(pilot)
        assert not isinstance(app.screen, PromptScreen)
