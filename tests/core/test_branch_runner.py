"""The runner as the app drives it: an async iterator of events, cancel(), a manual resolver, and
the branch tree. The real SDK talks to the fake Messages API through ANTHROPIC_BASE_URL."""

import asyncio

import pytest

from conftest import SAMPLES
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401
from tui.core.branch import patch as patches, runner, store
from tui.core.branch.events import BlockStarted, Delta, Finished, StepStarted, ToolCall, ToolResolved, TurnSaved
from tui.core.branch.resolvers import ManualResolver, RecordedResolver, Resolution, StopResolver
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
# the SDK warns that the refund run's model is deprecated; the fake server answers anyway
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


@pytest.fixture
def api(stream_api, monkeypatch):
    for name, value in stream_api.env().items():
        monkeypatch.setenv(name, value)
    return stream_api


def _branch(tmp_path, at=4, parent_path=REFUND, data_dir=None):
    parent = open_run(str(parent_path))
    base = patches.base_document(parent, at)
    edit = patches.tool_error(base, "toolu_01Ef", "policy service unavailable") if at == 4 else []
    return runner.start(parent, at, edit, resolver="recorded", parent_sha=store.sha256_of(parent_path),
                        output=None if data_dir else tmp_path / "b.turnscope.json", data_dir=data_dir)


async def _collect(work):
    return [event async for event in work.events()]


async def test_the_manual_resolver_sees_the_assistant_turn_already_saved(api, tmp_path):
    api.add(Turn([text("Checking."), tool_use("toolu_M1", "lookup_policy", {"topic": "returns"})], "tool_use"),
            Turn([text("Understood.")]))
    branch = _branch(tmp_path)
    on_disk_when_asked = []

    async def ask(call: ToolCall):
        on_disk_when_asked.append(open_run(str(branch.path)).messages[-1])
        return Resolution("Returns are accepted within 30 days.", via="manual")

    events = await _collect(runner.Runner(branch, RecordedResolver(branch.parent, ManualResolver(ask))))
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "StepStarted" and kinds[-1] == "Finished"
    assert kinds.index("TurnSaved") < kinds.index("ToolCall")
    assert on_disk_when_asked == [{"role": "assistant", "content": [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_M1", "name": "lookup_policy", "input": {"topic": "returns"}}]}]
    resolved = next(e for e in events if isinstance(e, ToolResolved))
    assert resolved.via == "manual" and resolved.result["content"] == "Returns are accepted within 30 days."
    assert "".join(e.text for e in events if isinstance(e, Delta) and e.kind == "text") == "Checking.Understood."
    assert "".join(e.text for e in events if isinstance(e, Delta) and e.kind == "input_json") == '{"topic": "returns"}'
    assert [e.name for e in events if isinstance(e, BlockStarted) and e.type == "tool_use"] == ["lookup_policy"]
    assert [e.index for e in events if isinstance(e, StepStarted)] == [5, 7]
    finished = events[-1]
    assert (finished.stop_reason, finished.steps, finished.first, len(finished.new)) == ("end_turn", 2, 5, 3)
    assert api.bodies[1]["messages"][6]["content"][0]["content"] == "Returns are accepted within 30 days."


async def test_a_manual_error_result_is_sent_as_an_error(api, tmp_path):
    api.add(Turn([tool_use("toolu_M2", "issue_refund", {"order_id": "4471", "amount_cents": 8900})], "tool_use"),
            Turn([text("The refund did not go through.")]))
    branch = _branch(tmp_path)

    async def ask(call):
        return Resolution("card declined", is_error=True, via="manual")

    await _collect(runner.Runner(branch, ManualResolver(ask)))
    assert api.bodies[1]["messages"][6]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_M2", "content": "card declined", "is_error": True}]


async def test_cancel_mid_stream_drops_the_turn_in_flight_and_keeps_the_rest(api, tmp_path):
    api.add(Turn([text("A long answer that stalls halfway through the stream.")], stall_after=4))
    branch = _branch(tmp_path)
    work = runner.Runner(branch, StopResolver())
    seen = []

    async def consume():
        async for event in work.events():
            seen.append(event)

    task = asyncio.create_task(consume())
    for _ in range(3000):
        if any(isinstance(e, Delta) for e in seen):
            break
        await asyncio.sleep(0.01)
    assert any(isinstance(e, Delta) for e in seen), "the stream never started"
    work.cancel()
    await asyncio.wait_for(task, 30)
    api.release.set()
    assert isinstance(seen[-1], Finished) and seen[-1].stop_reason == "cancelled" and seen[-1].new == []
    saved = open_run(str(branch.path))
    assert len(saved.messages) == 5 and saved.lineage["status"] == "cancelled"


async def test_the_stored_turn_is_the_providers_content(api, tmp_path):
    content = [{"type": "thinking", "thinking": "The policy lookup failed; I should not refund.", "signature": "c2lnbmF0dXJl"},
               {"type": "text", "text": "I can't confirm the policy right now."}]
    api.add(Turn(content))
    branch = _branch(tmp_path)
    events = await _collect(runner.Runner(branch, StopResolver()))
    saved = next(e for e in events if isinstance(e, TurnSaved))
    assert saved.message == {"role": "assistant", "content": content}
    assert open_run(str(branch.path)).messages[5] == {"role": "assistant", "content": content}


async def test_no_key_ends_the_run_with_a_clear_failure(api, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    events = await _collect(runner.Runner(_branch(tmp_path), StopResolver()))
    assert events[-1].stop_reason == "api_error" and "ANTHROPIC_API_KEY is not set" in events[-1].error.line()
    assert api.requests == []


def test_a_runs_branches_and_their_branches_form_a_tree(tmp_path):
    data = tmp_path / "data"
    first = _branch(tmp_path, data_dir=data)
    second = _branch(tmp_path, at=2, data_dir=data)
    child = _branch(tmp_path, at=3, parent_path=first.path, data_dir=data)
    tree = store.list_branches(REFUND, data_dir=data)
    assert [(e.path, e.at) for e in tree] == [(str(first.path), 4), (str(second.path), 2)]
    assert [(c.path, c.at) for c in tree[0].children] == [(str(child.path), 3)]
    assert tree[1].children == [] and tree[0].children[0].children == []
    assert child.lineage["parent"]["path"] == str(first.path)
    assert first.path.parent == data / "branches" / store.sha256_of(REFUND)[:16]
