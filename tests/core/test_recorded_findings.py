"""Findings on recorded runs: a rewritten turn or an edited request is reported with where it
differs; a cache_control breakpoint that moved to a newer message is not a difference."""

from tui.core.grammar import check_run
from tui.core.grammar.recorded import first_difference, same_but_cache_control
from tui.core.run import EXACT, ModelCall, RecordedRequest, Run, Source

EPHEMERAL = {"type": "ephemeral"}


def _run(first_user_then, replaced, response=None):
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
        first_user_then,
        {"role": "assistant", "content": [{"type": "text", "text": "Bye."}]},
    ]
    calls = [ModelCall(message=1, request=RecordedRequest(messages=1, replaced=replaced), response=response),
             ModelCall(message=3, request=RecordedRequest(messages=3))]
    return Run(messages=messages, calls=calls, source=Source(path="x", format="t", prefix=EXACT))


def test_a_moved_cache_control_breakpoint_is_not_a_finding():
    sent_first = {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": EPHEMERAL}]}
    run = _run({"role": "user", "content": "more"}, {0: sent_first})
    assert [f.rule for f in check_run(run)] == []


def test_an_edited_message_is_a_finding_naming_the_first_difference():
    sent_first = {"role": "user", "content": [{"type": "text", "text": "hello there"}]}
    run = _run({"role": "user", "content": "more"}, {0: sent_first})
    [finding] = [f for f in check_run(run) if f.rule == "request_differs"]
    assert finding.index == 1
    assert "message 0 (content[0].text changed)" in finding.message


def test_a_rewritten_turn_names_the_block_that_changed():
    provider = [{"type": "text", "text": "Hello."}, {"type": "tool_use", "id": "toolu_1", "name": "f",
                                                      "input": {}, "caller": {"type": "direct"}}]
    run = _run({"role": "user", "content": "more"}, {}, response=provider)
    run.messages[1] = {"role": "assistant", "content": [
        {"type": "text", "text": "Hello."}, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]}
    [finding] = [f for f in check_run(run) if f.rule == "assistant_turn_rewritten"]
    assert "block 1: key 'caller' dropped" in finding.message


def test_a_response_that_differs_only_by_cache_control_is_not_a_rewrite():
    provider = [{"type": "text", "text": "Hello."}]
    run = _run({"role": "user", "content": "more"}, {}, response=provider)
    run.messages[1] = {"role": "assistant", "content": [{"type": "text", "text": "Hello.",
                                                          "cache_control": EPHEMERAL}]}
    assert "assistant_turn_rewritten" not in {f.rule for f in check_run(run)}


def test_same_but_cache_control_compares_everything_else():
    a = {"role": "user", "content": [{"type": "text", "text": "x", "cache_control": EPHEMERAL}]}
    assert same_but_cache_control(a, {"role": "user", "content": [{"type": "text", "text": "x"}]})
    assert not same_but_cache_control(a, {"role": "user", "content": [{"type": "text", "text": "y"}]})
    assert first_difference([{"type": "text"}], [{"type": "tool_use"}]) == "block 0: type 'text' became 'tool_use'"
