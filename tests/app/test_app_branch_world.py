"""In the app, a branch answers from the edited world: the manual-answer dialog finds the identical
call (key order aside) and offers its result beside the model's own words; after a 529 a key
retries from the last saved turn; the branch list shows each edit in one line, hides failed and
cancelled branches and deletes a branch file only after asking."""

from __future__ import annotations

import os

import pytest
from app_helpers import screen_text, settle
from branch_app_helpers import (POLICY_DOWN, api_env, branch_app, open_editor, policy_error, review,  # noqa: F401
                                send, type_text, until, until_text)
from fake_messages_api_stream import Error, Turn, stream_api, text, tool_use  # noqa: F401

from app_helpers import REFUND
from tui.app.screens.branch.dialogs import AnswerScreen
from tui.app.screens.branch.run import BranchRunScreen
from tui.app.screens.branch.tree import BranchTreeScreen
from tui.app.screens.dialogs import PromptScreen
from tui.core.branch import patch as patches, runner, store
from tui.core.branch.resolvers import StopResolver
from tui.formats import open_run

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


async def _manual(pilot) -> None:
    await open_editor(pilot)
    await policy_error(pilot)
    await review(pilot)
    for _ in range(4):
        if pilot.app.screen.resolver == "manual":
            break
        await pilot.press("r")
        await settle(pilot)
    assert pilot.app.screen.resolver == "manual"
    await pilot.press("enter")


async def test_the_answer_dialog_offers_the_identical_calls_result_and_shows_the_models_words(api_env, tmp_path):
    api_env.add(Turn([text("I will look at the shipment once more."),
                      tool_use("toolu_A1", "get_shipment", {"order_id": "4471"})], "tool_use"),
                Turn([text("Still in transit.")]))
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _manual(pilot)
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), 60, "the answer dialog")
        shown = await until_text(pilot, "the original run made this identical call")  # drawn a frame later
        assert "message 2" in shown
        assert "no identical call" not in shown
        assert "I will look at the shipment once more." in shown  # the model's words are not covered
        assert app.screen.editor.text == '{"carrier":"DHL","state":"in_transit","last_scan":"33d ago"}'
        await pilot.press("ctrl+s")
        await until_text(pilot, "the model ended its turn", timeout=60)
    assert api_env.bodies[1]["messages"][6]["content"][0]["content"].startswith('{"carrier":"DHL"')


async def test_the_answer_dialog_offers_the_edited_error_for_a_retried_call(api_env, tmp_path):
    api_env.add(Turn([tool_use("toolu_A2", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"),
                Turn([text("The policy is unavailable.")]))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _manual(pilot)
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), 60, "the answer dialog")
        shown = await until_text(pilot, "the edit's result (message 4)")
        assert "the edit's result (message 4)" in shown and "ctrl+t sends it as one" in shown
        assert app.screen.editor.text == POLICY_DOWN
        await pilot.press("ctrl+t")
        await until_text(pilot, "the model ended its turn", timeout=60)
    assert api_env.bodies[1]["messages"][6]["content"][0] == {
        "type": "tool_result", "tool_use_id": "toolu_A2", "content": POLICY_DOWN, "is_error": True}


async def test_after_a_529_r_retries_from_the_last_saved_turn(api_env, tmp_path, monkeypatch):
    monkeypatch.setenv("TURNSCOPE_API_RETRIES", "0")
    api_env.add(Turn([tool_use("toolu_T1", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"),
                Error(529, "overloaded_error", "Overloaded"),
                Turn([text("I could not confirm the policy, so I have asked a colleague.")]))
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        await send(pilot)
        shown = await until_text(pilot, "r: retry from the last saved turn", timeout=60)
        assert "529" in shown
        screen = app.screen
        assert isinstance(screen, BranchRunScreen)
        await pilot.press("r")
        await until_text(pilot, "the model ended its turn", timeout=60)
        path = screen.saved_path
    saved = store.load(path)
    assert saved.lineage["status"] == "end_turn" and len(saved.messages) == 8
    assert saved.lineage["resumed"][0]["from"] == 7
    bodies = api_env.bodies
    assert len(bodies) == 3 and bodies[2]["messages"] == bodies[1]["messages"]  # the same request again


async def _branch(data, message, stop_after=None):
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, 4)
    branch = runner.start(parent, 4, patches.tool_error(base, "toolu_01Ef", message), resolver="stop",
                          parent_sha=store.sha256_of(REFUND), data_dir=data)
    if stop_after == "cancelled":
        branch.save("cancelled")
        return str(branch.path)
    async for _ in runner.Runner(branch, StopResolver()).events():
        pass
    return str(branch.path)


async def test_the_branch_list_shows_the_edit_hides_failures_and_deletes_after_asking(api_env, tmp_path):
    data = tmp_path / "data"
    api_env.add(Turn([text("Sorry, no policy.")]))
    good = await _branch(data, "policy service unavailable")
    failed = await _branch(data, "timeout", "cancelled")
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        assert isinstance(app.screen, BranchTreeScreen)
        shown = await until_text(pilot, "2 made from it")
        assert "edit: add /messages/4/content/0/content = policy service unavailable" in shown
        await pilot.press("h")
        await settle(pilot)
        assert [e.path for _, e, _ in app.screen.rows] == [good]
        assert "1 failed or cancelled hidden" in screen_text(app)
        await pilot.press("h")
        await settle(pilot)
        assert len(app.screen.rows) == 2
        k = [e.path for _, e, _ in app.screen.rows].index(failed)
        app.screen.options.highlighted = k
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen) and "Delete the branch file" in screen_text(app)
        await pilot.press("escape")  # asked first: Escape keeps it
        await settle(pilot)
        assert os.path.exists(failed)
        await pilot.press("d")
        await settle(pilot)
        await type_text(pilot, "y")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, BranchTreeScreen) and len(app.screen.rows) == 1,
                    what="the list without the deleted branch")
    assert not os.path.exists(failed) and os.path.exists(good)
    assert REFUND.exists()
