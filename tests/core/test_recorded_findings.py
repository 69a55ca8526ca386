"""Findings on recorded runs: a rewritten turn or an edited request is reported with where it
differs; a cache_control breakpoint that moved to a newer message is not a difference."""

from hypothesis import given, settings
from hypothesis import strategies as st
from tui.core.grammar import check_run
from tui.core.grammar.recorded import first_difference, same_but_cache_control, without_cache_control
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


def test_request_differs_names_the_call_and_the_first_differing_field_by_path():
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "more"}, {"role": "assistant", "content": "Bye."}]
    params = {"model": "claude-sonnet-4-5", "max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 1024}}
    first = dict(params, thinking={"type": "enabled", "budget_tokens": 6400})
    calls = [ModelCall(message=1, request=RecordedRequest(messages=1, params=first)),
             ModelCall(message=3, request=RecordedRequest(messages=3))]
    run = Run(messages=messages, params=params, calls=calls, source=Source(path="x", format="t", prefix=EXACT))
    [finding] = [f for f in check_run(run) if f.rule == "request_differs"]
    assert finding.index == 1
    assert finding.message.endswith("model call 1's request differs from the run's last: "
                                    "thinking.budget_tokens: 6400 -> 1024")
    calls[0].request.params = dict(params)
    calls[1].request.params = dict(params, container="container_011")
    [finding] = [f for f in check_run(run) if f.rule == "request_differs"]
    assert finding.index == 3 and "model call 2's request differs" in finding.message
    assert "container (later requests dropped it)" in finding.message
    calls[1].request.params = None
    run.params = dict(params, container="container_011")
    findings = [f for f in check_run(run) if f.rule == "request_differs"]
    assert [f.index for f in findings] == [1]
    assert "container added later (this call was sent none)" in findings[0].message


def test_a_returned_turn_that_differs_only_by_a_cache_control_breakpoint_is_not_written_or_shown():
    from tui.core import native
    from tui.core.grammar.recorded import returned_differs

    stored = [{"type": "text", "text": "Hello.", "cache_control": EPHEMERAL}]
    run = _run({"role": "user", "content": "more"}, {}, response=[{"type": "text", "text": "Hello."}])
    run.messages[1] = {"role": "assistant", "content": stored}
    assert not returned_differs(run.calls[0], run.messages[1])
    assert b'"response"' not in native.dumps([run])
    run.calls[0].response = [{"type": "text", "text": "Hello!"}]
    assert returned_differs(run.calls[0], run.messages[1]) and b'"response"' in native.dumps([run])


_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=False), st.text(max_size=2))
_VALUE = st.recursive(_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "cache_control"]), inner, max_size=3)),
    max_leaves=12)


@settings(max_examples=500, deadline=None)
@given(_VALUE, _VALUE)
def test_same_but_cache_control_agrees_with_comparing_the_stripped_copies(a, b):
    """The walk that stops at the first difference says what comparing two stripped copies says."""
    assert same_but_cache_control(a, b) == (without_cache_control(a) == without_cache_control(b))
