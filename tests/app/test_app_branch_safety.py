"""Branch mode over SSH: run text (and what the model streams back) never drives the terminal, NO_COLOR
draws it in grey, and every key is a binding listed by ? with the help text of each part."""

from __future__ import annotations

import pytest
from app_helpers import screen_text, settle
from branch_app_helpers import api_env, branch_app, checked, send, type_text, until, until_text  # noqa: F401
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401
from test_app_palette import SVG_CHROME, _coloured
from test_app_untrusted import NASTY, _assert_clean, nasty_run  # noqa: F401

from tui.app.screens.branch.dialogs import AnswerScreen
from tui.app.screens.branch.editor import BranchEditorScreen
from tui.app.screens.dialogs import HelpScreen

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


async def test_run_text_in_the_editor_never_reaches_the_terminal(nasty_run, tmp_path):
    app = branch_app(tmp_path, path=nasty_run, at=2)
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        shown = await checked(pilot)
        assert isinstance(app.screen, BranchEditorScreen) and app.screen.key == ("block", 2, 0)
        _assert_clean(app, "branch editor")
        assert "\\u001b[31mRED" in shown and "\\u202eevil" in shown  # escapes, as JSON writes them
        assert "[bold red]markup[/]" in shown
        # the nasty tool name and id cannot be sent, and the findings say so safely
        assert "tool_use_id_pattern" in shown and "'toolu_[b]1\\x1b[0m'" in shown
        await pilot.press("up")  # the tool_use block: its name and id in the list and the editor
        await settle(pilot)
        _assert_clean(app, "tool_use in the editor")


async def test_streamed_text_and_a_models_tool_call_never_reach_the_terminal(api_env, tmp_path):
    api_env.add(Turn([text("streamed " + NASTY), tool_use("toolu_X2", "get[bold]x[/bold]", {"q": NASTY})],
                     "tool_use"),
                Turn([text("done " + NASTY)]))
    app = branch_app(tmp_path)
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await checked(pilot)
        await send(pilot)  # no edit but the index: re-ask the model from message 4 as it was
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), what="the manual resolver")
        await until_text(pilot, "get[bold]x[/bold]")
        _assert_clean(app, "the manual resolver's dialog")
        await type_text(pilot, "ok")
        await pilot.press("ctrl+s")
        shown = await until_text(pilot, "the model ended its turn")
        _assert_clean(app, "the branch run")
        assert "streamed \\x1b[31mRED" in shown and "done \\x1b[31mRED" in shown
        assert "[bold red]markup[/]" in shown
        await pilot.press("v")
        await settle(pilot)
        _assert_clean(app, "side by side")


async def test_no_color_keeps_the_editor_and_side_by_side_grey(api_env, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    api_env.add(Turn([text("Sorry, the policy service is down.")]))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await pilot.press("d")  # a finding: the ✗ mark must read without colour
        shown = await checked(pilot)
        assert app.no_color and "✗ error message 4" in shown
        assert _coloured(app.export_screenshot()) <= SVG_CHROME
        await pilot.press("u")
        await checked(pilot)
        await send(pilot)
        await until_text(pilot, "the model ended its turn")
        assert _coloured(app.export_screenshot()) <= SVG_CHROME
        await pilot.press("v")
        await settle(pilot)
        assert "│" in screen_text(app)
        assert _coloured(app.export_screenshot()) <= SVG_CHROME


def _row(keys: str, description: str) -> str:
    return f"  {keys:<16} {description}"


async def test_every_branch_key_is_listed_with_its_help(tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(110, 60)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        stepper_help = app.screen.query_one("#help-text").render().plain
        assert _row("b", "Branch") in stepper_help and _row("B", "Branches") in stepper_help
        await pilot.press("escape", "b")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        listed = app.screen.query_one("#help-text").render().plain
        for words in ("The branch editor.", _row("e", "Error"), _row("d", "Delete"), _row("i", "Input"),
                      _row("m", "Model"), _row("u", "Undo"), _row("^s", "Send…"), _row("esc", "Close")):
            assert words in listed, words
