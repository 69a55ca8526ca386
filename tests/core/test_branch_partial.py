"""Stopping part way through a turn's tool calls keeps the answers already given: the branch file
still ends with the assistant turn (it loads and passes the grammar check), the answers are in the
lineage, and ``--resume`` reuses them instead of asking again — after a stop in the app's manual
dialog, after a cancel and after a kill while a python resolver was working on the second call."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest
from app_helpers import REFUND, settle
from branch_app_helpers import (api_env, branch_app, open_editor, policy_error, review,  # noqa: F401
                                type_text, until, until_text)
from conftest import REPO, run_cli
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401

from tui.app.screens.branch.dialogs import AnswerScreen
from tui.core.branch import patch as patches, runner, store
from tui.core.branch.events import Finished, ToolCall
from tui.core.branch.resolvers import PythonResolver
from tui.core.grammar import ERROR, check_run
from tui.formats import open_run

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

TWO_CALLS = Turn([text("Two things to check."),
                  tool_use("toolu_M1", "lookup_policy", {"topic": "returns"}),
                  tool_use("toolu_M2", "issue_refund", {"order_id": "4471", "amount_cents": 4500})], "tool_use")
MANUAL = {"type": "tool_result", "tool_use_id": "toolu_M1", "content": "Returns within 30 days."}
TOOLS = '''
import asyncio
import os

asked = []

def answer(name, input):
    asked.append(name)
    return f"{name} done"

async def slow(name, input):
    asked.append(name)
    if len(asked) > 1:
        # beside this module (under the test's tmp_path), whatever the working directory
        open(os.path.join(os.path.dirname(__file__), "second-call-started"), "w").close()
        await asyncio.sleep(3600)
    return f"{name} done"
'''

LEAVES_A_MARK = '''
def answer(name, input):  # a process of its own: each call leaves a file to count
    open("asked-" + name, "w").close()
    return f"{name} done"
'''


def _grammatical(path) -> dict:
    run = open_run(str(path))
    assert [f for f in check_run(run) if f.severity == ERROR] == []
    assert run.messages[-1]["role"] == "assistant"  # the turn stays unanswered in the messages
    return run.lineage


async def test_a_stop_in_the_manual_dialog_keeps_the_answers_given_and_resume_reuses_them(api_env, tmp_path):
    api_env.add(TWO_CALLS)
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        await review(pilot)
        await pilot.press("r")  # manual: every call is asked
        await settle(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), what="the first call")
        await type_text(pilot, MANUAL["content"])
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen) and app.screen.call.id == "toolu_M2",
                    what="the second call")
        await pilot.press("escape")  # stop the branch here
        shown = await until_text(pilot, "a tool call is left unanswered")
        assert "1 answer already given to message 5's tool calls is kept: --resume reuses it" in shown
        path = app.screen.saved_path
    lineage = _grammatical(path)
    assert lineage["status"] == "stopped" and lineage["resolver"] == "manual"
    assert lineage["answered"] == {"index": 5, "results": [MANUAL], "via": ["manual"]}

    env = {**api_env.env(), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    nobody = run_cli("branch", "--resume", path, cwd=tmp_path, env=env)  # manual, headless: nobody to ask
    assert nobody.code == 2 and "the manual resolver needs the app" in nobody.stderr
    assert store.load(path).lineage["answered"] == lineage["answered"]  # and nothing lost by trying

    (tmp_path / "mytools.py").write_text(TOOLS)
    api_env.add(Turn([text("Refunded.")]))
    result = run_cli("branch", "--resume", path, "--resolver", "python:mytools:answer", cwd=tmp_path, env=env)
    assert result.code == 0, result.stderr
    assert "toolu_M1: Returns within 30 days.\n      answered by manual, kept when the branch stopped" in result.stdout
    sent = api_env.bodies[1]["messages"][6]["content"]
    assert sent == [MANUAL, {"type": "tool_result", "tool_use_id": "toolu_M2", "content": "issue_refund done"}]
    final = store.load(path)
    assert "answered" not in final.lineage and final.messages[6]["content"] == sent
    assert final.lineage["status"] == "end_turn"


async def test_a_cancel_while_the_second_call_runs_keeps_the_first_answer(stream_api, tmp_path, monkeypatch):
    for name, value in stream_api.env().items():
        monkeypatch.setenv(name, value)
    (tmp_path / "slowtools.py").write_text(TOOLS)
    stream_api.add(TWO_CALLS)
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, 4)
    branch = runner.start(parent, 4, patches.tool_error(base, "toolu_01Ef", "down"), resolver="python",
                          parent_sha=store.sha256_of(REFUND), output=tmp_path / "b.turnscope.json")
    resolver = PythonResolver(f"{tmp_path / 'slowtools.py'}:slow")
    work = runner.Runner(branch, resolver)
    events = []
    async for event in work.events():
        events.append(event)
        if isinstance(event, ToolCall) and event.id == "toolu_M2":
            await asyncio.sleep(0.2)  # the resolver is now awaiting inside the second call
            work.cancel()
    assert isinstance(events[-1], Finished) and events[-1].stop_reason == "cancelled"
    assert resolver.function.__globals__["asked"] == ["lookup_policy", "issue_refund"]
    lineage = _grammatical(branch.path)
    assert lineage["answered"]["results"] == [
        {"type": "tool_result", "tool_use_id": "toolu_M1", "content": "lookup_policy done"}]

    resumed, _ = runner.resume(branch.path, open_run)
    again = PythonResolver(f"{tmp_path / 'slowtools.py'}:answer")
    stream_api.add(Turn([text("Done.")]))
    said = [e async for e in runner.Runner(resumed, again).events()]
    assert again.function.__globals__["asked"] == ["issue_refund"]  # the first call is not asked again
    kept = next(e for e in said if getattr(e, "id", None) == "toolu_M1" and hasattr(e, "via"))
    assert kept.via == "python, kept when the branch stopped"
    assert store.load(branch.path).messages[6]["content"][0]["content"] == "lookup_policy done"


def test_headless_recorded_then_stop_keeps_the_recorded_answer_for_the_resume(stream_api, tmp_path):
    """recorded answers the run's own call; the next call of the same turn is new, so the branch stops."""
    stream_api.add(Turn([tool_use("toolu_H1", "issue_refund", {"order_id": "4471", "amount_cents": 8900}),
                         tool_use("toolu_H2", "lookup_policy", {"topic": "exceptions"})], "tool_use"))
    out = tmp_path / "b.turnscope.json"
    env = {**stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    result = run_cli("branch", REFUND, "--at", "4", "--tool-error", "toolu_01Ef", "down", "-o", out, env=env)
    assert result.code == 0, result.stderr
    assert "1 answer already given to message 5's tool calls is kept: --resume reuses it" in result.stdout
    lineage = _grammatical(out)
    assert lineage["answered"]["via"] == ["recorded (message 6)"]

    (tmp_path / "mytools.py").write_text(TOOLS)
    stream_api.add(Turn([text("Done.")]))
    result = run_cli("branch", "--resume", out, "--resolver", "python:mytools:answer", cwd=tmp_path, env=env)
    assert result.code == 0, result.stderr
    assert "answered by recorded (message 6), kept when the branch stopped" in result.stdout
    results = stream_api.bodies[1]["messages"][6]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_H1", "toolu_H2"]
    assert results[0]["content"] == '{"refund_id":"re_9d2","amount_cents":8900,"state":"succeeded"}'  # the run's
    assert results[1]["content"] == "lookup_policy done"  # only the new call went to the function


def test_a_kill_while_the_second_call_runs_loses_neither_the_first_answer_nor_calls_it_twice(stream_api, tmp_path):
    """The first answer is saved as soon as it is given: the user's function (and its side effects)
    is not called again for it after a SIGKILL, which nothing can catch."""
    (tmp_path / "slowtools.py").write_text(TOOLS)
    stream_api.add(TWO_CALLS)
    out = tmp_path / "b.turnscope.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), **stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    proc = subprocess.Popen([sys.executable, "-m", "tui", "branch", str(REFUND), "--at", "4", "--tool-error",
                             "toolu_01Ef", "down", "--resolver", "python:slowtools:slow", "-o", str(out)],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (tmp_path / "second-call-started").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the second call never started"
        time.sleep(0.02)
    proc.kill()
    proc.wait(timeout=30)
    lineage = _grammatical(out)
    assert lineage["status"] == "running" and lineage["answered"]["results"] == [
        {"type": "tool_result", "tool_use_id": "toolu_M1", "content": "lookup_policy done"}]

    (tmp_path / "mytools.py").write_text(LEAVES_A_MARK)
    stream_api.add(Turn([text("Done.")]))
    result = run_cli("branch", "--resume", out, "--resolver", "python:mytools:answer", cwd=tmp_path,
                     env={**stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert result.code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.glob("asked-*")) == ["asked-issue_refund"]
    final = open_run(str(out))
    assert [r["content"] for r in final.messages[6]["content"]] == ["lookup_policy done", "issue_refund done"]
    assert final.lineage["status"] == "end_turn" and "answered" not in final.lineage
