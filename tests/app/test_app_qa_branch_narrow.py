"""Branch mode at 80x24 (a user over SSH): the manual answer dialog says all of its keys."""

from __future__ import annotations

import pytest
from app_helpers import screen_text
from branch_app_helpers import api_env, branch_app, open_editor, policy_error, review, until  # noqa: F401
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401

from tui.app.screens.branch.dialogs import AnswerScreen

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


async def test_the_manual_answer_dialog_at_80x24_shows_its_whole_label(api_env, tmp_path):
    api_env.add(Turn([text("Let me look that up."), tool_use("toolu_N9", "search_orders", {"customer_id": "c9"})],
                     stop_reason="tool_use"))
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        await review(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), what="the manual resolver's dialog")
        await until(pilot, lambda: "escape: stop the branch)" in " ".join(
            line.strip(" │") for line in screen_text(app).splitlines()), what="the dialog drawn")
        shown = " ".join(line.strip(" │") for line in screen_text(app).splitlines())
        assert "escape: stop the branch)" in shown
        await pilot.press("escape")


async def test_the_editor_marks_a_cut_text_preview_with_an_ellipsis(tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_editor(pilot)
        shown = screen_text(app)
        assert "[3.0] assistant · text No scan in over a month. Let me check t…" in shown
