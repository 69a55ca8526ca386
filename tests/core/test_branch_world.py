"""The recorded resolver answers from the branch's own world: an edited result replaces the
original for the same tool and input (key order aside), and an edit that makes "the same call"
ambiguous is refused with the reason, never answered with the original's result."""

import pytest

from conftest import SAMPLES
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401
from tui.core.branch import patch as patches, runner, store
from tui.core.branch.events import Finished, ToolCall, ToolResolved
from tui.core.branch.resolvers import Ambiguous, RecordedAnswers, RecordedResolver, Resolution
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
POLICY_DOWN = "policy service unavailable"
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


def _branch(tmp_path, edit=None, at=4):
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, at)
    if edit is None:
        edit = patches.tool_error(base, "toolu_01Ef", POLICY_DOWN)
    return runner.start(parent, at, edit, resolver="recorded", parent_sha=store.sha256_of(REFUND),
                        output=tmp_path / "b.turnscope.json")


async def test_a_retried_call_gets_the_edited_error_with_its_keys_in_any_order(tmp_path):
    branch = _branch(tmp_path)
    resolver = RecordedResolver(branch.parent, edited=branch.run)
    answer = await resolver.resolve(ToolCall(5, "toolu_X", "lookup_policy", {"topic": "lost_shipment"}))
    assert (answer.content, answer.is_error, answer.from_edit) == (POLICY_DOWN, True, 4)
    assert "from the edit" in answer.via
    # an untouched call still gets the original's result, key order aside
    untouched = await resolver.resolve(ToolCall(5, "toolu_Y", "issue_refund", {"amount_cents": 8900, "order_id": "4471"}))
    assert untouched.from_edit is None and "re_9d2" in untouched.content and not untouched.is_error
    # without the edit in view (the old behaviour) the retry would have been told the policy allows it
    blind = await RecordedResolver(branch.parent).resolve(ToolCall(5, "t", "lookup_policy", {"topic": "lost_shipment"}))
    assert not blind.is_error and "refunded in full" in blind.content


def test_a_call_answered_two_ways_by_the_branchs_own_messages_is_ambiguous(tmp_path):
    # message 3's call is duplicated into message 1 with the original result at 2; only message 4's is edited
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, 4)
    edit = [{"op": "add", "path": "/messages/1/content/-",
             "value": {"type": "tool_use", "id": "toolu_dup", "name": "lookup_policy", "input": {"topic": "lost_shipment"}}},
            {"op": "add", "path": "/messages/2/content/-",
             "value": {"type": "tool_result", "tool_use_id": "toolu_dup", "content": "the original policy text"}},
            *patches.tool_error(base, "toolu_01Ef", POLICY_DOWN)]
    branch = _branch(tmp_path, edit)
    found = RecordedAnswers(branch.parent, branch.run).lookup("lookup_policy", {"topic": "lost_shipment"})
    assert isinstance(found, Ambiguous)
    assert "two ways" in found.why and "2" in found.why and "4" in found.why


async def test_headless_an_ambiguous_call_stops_the_branch_and_says_why(stream_api, monkeypatch, tmp_path):
    for name, value in stream_api.env().items():
        monkeypatch.setenv(name, value)
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, 4)
    edit = [{"op": "add", "path": "/messages/1/content/-",
             "value": {"type": "tool_use", "id": "toolu_dup", "name": "lookup_policy", "input": {"topic": "lost_shipment"}}},
            {"op": "add", "path": "/messages/2/content/-",
             "value": {"type": "tool_result", "tool_use_id": "toolu_dup", "content": "the original policy text"}},
            *patches.tool_error(base, "toolu_01Ef", POLICY_DOWN)]
    branch = _branch(tmp_path, edit)
    stream_api.add(Turn([tool_use("toolu_R", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"))
    events = [e async for e in runner.Runner(branch, RecordedResolver(branch.parent, edited=branch.run)).events()]
    resolved = next(e for e in events if isinstance(e, ToolResolved))
    assert resolved.result is None and resolved.via.startswith("stop: ") and "two ways" in resolved.via
    assert isinstance(events[-1], Finished) and events[-1].stop_reason == "stopped"
    saved = open_run(str(branch.path)).lineage
    assert saved["unanswered"]["tool_use_id"] == "toolu_R" and "two ways" in saved["unanswered"]["why"]


async def test_the_branch_file_records_which_answers_came_from_the_edit(stream_api, monkeypatch, tmp_path):
    for name, value in stream_api.env().items():
        monkeypatch.setenv(name, value)
    branch = _branch(tmp_path)
    stream_api.add(Turn([text("Once more."), tool_use("toolu_R1", "lookup_policy", {"topic": "lost_shipment"})],
                        "tool_use"),
                   Turn([tool_use("toolu_R2", "get_shipment", {"order_id": "4471"})], "tool_use"),
                   Turn([text("I cannot confirm the policy right now.")]))
    events = [e async for e in runner.Runner(branch, RecordedResolver(branch.parent, edited=branch.run)).events()]
    assert events[-1].stop_reason == "end_turn"
    assert stream_api.bodies[1]["messages"][6]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_R1", "content": POLICY_DOWN, "is_error": True}]
    saved = open_run(str(branch.path)).lineage
    assert saved["from_edit"] == [{"index": 6, "tool_use_id": "toolu_R1", "from": 4}]  # get_shipment: not the edit
    assert "unanswered" not in saved


async def test_a_tool_input_edited_at_n_is_not_answered_with_the_old_inputs_result(tmp_path):
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, 3)
    edit = [{"op": "replace", "path": "/messages/3/content/1/input", "value": {"topic": "returns"}}]
    branch = runner.start(parent, 3, edit, resolver="recorded", parent_sha=store.sha256_of(REFUND),
                          output=tmp_path / "b3.turnscope.json")
    asked = []

    class Fallback:
        async def resolve(self, call):
            asked.append(call.name)
            return Resolution("typed", via="manual")

    got = await RecordedResolver(branch.parent, Fallback(), edited=branch.run).resolve(
        ToolCall(3, "toolu_01Ef", "lookup_policy", {"topic": "returns"}))
    assert asked == ["lookup_policy"] and got.content == "typed"
