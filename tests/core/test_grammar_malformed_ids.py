"""A malformed id (a list or an object where a string belongs) is a finding, not a crash of the check."""

from tui.core.grammar import check_request


def test_list_and_object_ids_are_reported_not_raised():
    body = {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": ["x"], "name": "f", "input": {}},
            {"type": "server_tool_use", "id": {"a": 1}, "name": "w", "input": {}},
            {"type": "web_search_tool_result", "tool_use_id": ["y"], "content": []}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ["x"]},
                                     {"type": "tool_result", "tool_use_id": ["x"]}]}]}
    rules = [(f.rule, f.index, f.block) for f in check_request(body, strict=True)]
    assert ("tool_use_id_pattern", 1, 0) in rules and ("tool_use_id_pattern", 1, 1) in rules
    assert ("server_tool_result_unmatched", 1, 2) in rules
    assert ("tool_result_fields", 2, 0) in rules and ("duplicate_tool_result_id", 2, 1) in rules


def test_an_orphan_result_with_a_list_id_is_reported():
    body = {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": [None]}]}]}
    assert ("unexpected_tool_use_id", 0, 0) in [(f.rule, f.index, f.block) for f in check_request(body)]
