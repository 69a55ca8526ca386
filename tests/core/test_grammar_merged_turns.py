"""The API merges consecutive assistant messages into one turn; two rules must see that merge.

Evidence: pydantic-ai's recorded pause_turn cassette (../shared/realruns), where the API answered
200 to a request ending on the paused turn and the continuation starts with the
web_search_tool_result for the server_tool_use that ended the paused turn.
"""

from tui.core.grammar import check_request, check_run
from tui.core.run import ModelCall, Run


def _paused_run():
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "q"}}
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}
    messages = [
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": [{"type": "text", "text": "Searching."}, search]},
        {"role": "assistant", "content": [result, {"type": "text", "text": "Done."}]},
    ]
    calls = [ModelCall(message=1, stop_reason="pause_turn"), ModelCall(message=2, stop_reason="end_turn")]
    return Run(messages=messages, calls=calls)


def test_a_server_tool_result_may_answer_a_server_tool_use_of_the_previous_assistant_message():
    rules = {f.rule for f in check_run(_paused_run())}
    assert "server_tool_result_unmatched" not in rules


def test_a_server_tool_result_with_no_server_tool_use_in_its_merged_turn_is_still_reported():
    run = _paused_run()
    run.messages.insert(2, {"role": "user", "content": "go on"})  # a user turn splits the assistant turns
    run.calls = [ModelCall(message=1, stop_reason="pause_turn"), ModelCall(message=3)]
    run.calls_changed()
    findings = [f for f in check_run(run) if f.rule == "server_tool_result_unmatched"]
    assert [(f.index, f.block) for f in findings] == [(3, 0)]


def test_the_continuation_of_a_paused_turn_is_not_reported_as_a_lost_results_message():
    assert "consecutive_assistant" not in {f.rule for f in check_run(_paused_run())}


def test_two_assistant_turns_in_a_row_without_a_pause_are_still_reported():
    run = _paused_run()
    run.calls[0].stop_reason = "end_turn"
    assert [f.index for f in check_run(run) if f.rule == "consecutive_assistant"] == [2]


def test_a_request_with_the_same_shape_checks_clean():
    run = _paused_run()
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": run.messages + [
        {"role": "user", "content": "thanks"}]}
    assert [f for f in check_request(body) if f.severity == "error"] == []
