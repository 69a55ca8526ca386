"""Choosing the resolver in the app: before sending, ``r`` in the review picks who answers the
model's tool calls (recorded, manual, stop or the user's python:MODULE:FUNCTION); the branch's
lineage records the choice, as the headless verb does; a python spec that cannot be loaded is
refused in the dialog and nothing is sent or saved."""

from __future__ import annotations

import pytest
from app_helpers import screen_text, settle
from branch_app_helpers import (api_env, branch_app, open_editor, policy_error, review,  # noqa: F401
                                type_text, until_text)
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401

from tui.app.screens.branch.dialogs import AnswerScreen
from tui.app.screens.branch.review import ReviewScreen
from tui.app.screens.branch.run import BranchRunScreen
from tui.core.branch import store
from tui.core.grammar import ERROR, check_run

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

#: The user's dispatch function: answers every call, and notes the calls it got beside itself.
TOOLS_MODULE = '''
import json, pathlib

def answer(name, input):
    with open(pathlib.Path(__file__).with_name("calls.jsonl"), "a") as out:
        out.write(json.dumps([name, input]) + "\\n")
    return {"policy": "refunds within 30 days", "asked": name}
'''


async def _choose(pilot, resolver: str) -> str:
    """Press r in the review until ``resolver`` is the one named; the review's text."""
    for _ in range(4):
        shown = screen_text(pilot.app)
        if f"tool calls answered by {resolver}" in shown:
            return shown
        await pilot.press("r")
        await settle(pilot)
    raise AssertionError(f"r never offered {resolver}:\n{screen_text(pilot.app)}")


def _importable(monkeypatch, folder) -> None:
    """Start where the user's module is: MODULE is importable from the working directory, as headless."""
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))


async def _python_field(pilot) -> None:
    """b, lookup_policy's result made an error, ctrl+s, then r until the python resolver is chosen."""
    await open_editor(pilot)
    await policy_error(pilot)
    await review(pilot)
    await _choose(pilot, "python")


async def test_stop_leaves_the_call_unanswered_and_the_branch_saved(api_env, tmp_path):
    api_env.add(Turn([text("Let me look the policy up again."),
                      tool_use("toolu_R1", "lookup_policy", {"topic": "refunds"})], "tool_use"))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        shown = await review(pilot)
        assert "tool calls answered by recorded (r changes)" in shown  # the default
        shown = await _choose(pilot, "stop")
        assert "stops at the first tool call" in shown
        await pilot.press("enter")
        done = await until_text(pilot, "a tool call is left unanswered")
        assert "lookup_policy toolu_R1: left unanswered" in done and "tool calls: stop" in done
        assert not any(isinstance(s, AnswerScreen) for s in app.screen_stack)  # nobody was asked
        path = app.screen.saved_path
    saved = store.load(path)
    assert saved.lineage["resolver"] == "stop" and saved.lineage["status"] == "stopped"
    assert len(saved.messages) == 6 and saved.messages[5]["content"][1]["id"] == "toolu_R1"
    assert [f for f in check_run(saved) if f.severity == ERROR] == []
    assert len(api_env.bodies) == 1


async def test_python_module_function_answers_the_calls(api_env, tmp_path, monkeypatch):
    module = tmp_path / "work" / "apptools_answer.py"
    module.parent.mkdir()
    module.write_text(TOOLS_MODULE)
    _importable(monkeypatch, module.parent)
    api_env.add(Turn([tool_use("toolu_P1", "lookup_policy", {"topic": "refunds"})], "tool_use"),
                Turn([text("The policy allows it: refund on its way.")]))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _python_field(pilot)
        assert app.focused is app.screen.target  # the spec is typed straight away
        await type_text(pilot, "apptools_answer:answer")
        await pilot.press("enter")
        done = await until_text(pilot, "the model ended its turn after 2 model calls")
        assert "lookup_policy toolu_P1: answered by python" in done
        assert isinstance(app.screen, BranchRunScreen)
        path = app.screen.saved_path
    assert (module.parent / "calls.jsonl").read_text() == '["lookup_policy", {"topic": "refunds"}]\n'
    saved = store.load(path)
    assert saved.lineage["resolver"] == "python:apptools_answer:answer"
    assert api_env.bodies[1]["messages"][6]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_P1",
         "content": '{"policy":"refunds within 30 days","asked":"lookup_policy"}'}]


@pytest.mark.parametrize("typed, said", [
    ("no_such_module_zq:answer", "cannot import no_such_module_zq: ModuleNotFoundError"),
    ("apptools_missing:nothing_here", "apptools_missing has no function 'nothing_here'"),
    ("justamodule", "'justamodule' names no function"),
    ("", "type MODULE:FUNCTION"),
])
async def test_a_bad_python_spec_is_refused_with_a_message(api_env, tmp_path, monkeypatch, typed, said):
    (tmp_path / "apptools_missing.py").write_text("def answer(name, input):\n    return 'ok'\n")
    _importable(monkeypatch, tmp_path)
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _python_field(pilot)
        await type_text(pilot, typed)
        await pilot.press("enter")
        shown = await until_text(pilot, said)
        assert "✗ " in shown and "Traceback" not in shown
        assert isinstance(app.screen, ReviewScreen)  # still asking; nothing sent
        await pilot.press("tab", "r")  # out of the field, and another resolver instead: the message goes
        await settle(pilot)
        assert said not in screen_text(app)
    assert api_env.requests == [] and not (tmp_path / "data").exists()
