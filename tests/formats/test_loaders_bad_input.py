"""Bad input never crashes a loader: odd shapes in every new format give warnings or findings, a
file that is no run gives one line and exit 2; random records never raise."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.core import native
from tui.core.errors import LoadError
from tui.core.grammar import check_run
from tui.core.prefix import request_at
from tui.formats import load_runs

ODD = {
    "transcript.jsonl": [
        {"type": "user", "parentUuid": None, "sessionId": "s", "uuid": "a", "message": "not an object"},
        {"type": "assistant", "parentUuid": "a", "sessionId": "s", "uuid": "b",
         "message": {"role": "assistant", "content": [{"type": "tool_use", "id": 5}], "id": None}},
        {"type": "user", "parentUuid": "b", "sessionId": "s", "uuid": "c",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": None}, "text", 5]}},
        {"type": "user", "parentUuid": "c", "sessionId": "s", "uuid": "a", "message": {"role": "user", "content": None}},
    ],
    "trace.jsonl": [
        {"request": {"url": "https://api.anthropic.com/v1/messages", "body": "not json"},
         "response": {"status_code": "200", "body_raw": "garbage"}},
        {"request": {"url": "https://api.anthropic.com/v1/messages", "body": {"messages": [{"role": "user", "content": "hi"}]}},
         "response": {"status_code": 200, "body_raw": "data: {bad\n\ndata: {\"type\":\"content_block_delta\",\"index\":3}\n"}},
        {"request": {"url": 5, "body": {"messages": [5, None]}}, "response": {"status_code": 500, "body": {"type": "error"}}},
    ],
    "chat.json": [
        {"role": "system", "content": [{"type": "text", "text": "s"}, 5]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}, 7]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": None, "function": {"name": "f", "arguments": [1]}},
                                                              "bad", {"function": "x"}]},
        {"role": "tool", "tool_call_id": None, "content": [{"type": "text", "text": "r"}]},
        {"role": "robot", "content": "?"}, 5,
    ],
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_shapes_load_with_findings_and_round_trip(tmp_path, cli, name):
    path = tmp_path / name
    values = ODD[name]
    path.write_text("".join(json.dumps(v) + "\n" for v in values) if name.endswith(".jsonl") else json.dumps(values))
    for verb in ("check", "list", "show", "convert"):
        result = cli(verb, path)
        assert "Traceback" not in result.stderr and result.code in (0, 1), f"{verb}: {result.stderr}"
    for run in load_runs(str(path)):
        check_run(run)
        [request_at(run, n) for n in range(len(run.messages) + 1)]
        native.dumps([run])


@pytest.mark.parametrize("text", ["interactions: 5\n", "interactions:\n- request: {uri: x}\n",
                                  "interactions:\n- request:\n  response: [unclosed\n"])
def test_a_cassette_with_no_call_is_one_line_and_exit_2(tmp_path, cli, text):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    result = cli("check", path)
    assert result.code == 2 and result.stderr.startswith(f"turnscope: {path}") and "Traceback" not in result.stderr


_scalar = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", "a", "user", "assistant",
                                                                                   "tool_use", "text", "x-1"]))
_value = st.recursive(_scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from(
                                                           ["type", "id", "text", "role", "content", "name",
                                                            "tool_use_id", "input", "arguments", "function"]),
                                                           inner, max_size=4)), max_leaves=12)
_record = st.fixed_dictionaries({
    "type": st.sampled_from(["user", "assistant", "progress", "system", "summary"]),
    "uuid": st.sampled_from(["a", "b", "c", "d"]), "parentUuid": st.sampled_from([None, "a", "b", "c", "d", "z"]),
    "sessionId": st.just("s"), "isSidechain": st.booleans(),
    "message": st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": _value,
                                      "id": st.sampled_from([None, "m1", "m2"])}),
})
_chat = st.lists(st.fixed_dictionaries({"role": st.sampled_from(["system", "user", "assistant", "tool"]),
                                        "content": _value, "tool_calls": _value, "tool_call_id": _value}),
                 min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(_record, min_size=1, max_size=8))
def test_random_transcript_lines_never_raise(tmp_path, records):
    path = tmp_path / "random.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    try:
        runs = load_runs(str(path), fmt="claude-code")
    except LoadError:
        return
    for run in runs:
        check_run(run)
        native.dumps([run])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=_chat)
def test_random_chat_messages_never_raise(tmp_path, messages):
    path = tmp_path / "random.json"
    path.write_text(json.dumps(messages))
    for run in load_runs(str(path), fmt="openai"):
        check_run(run)
        native.dumps([run])


_sse_event = st.fixed_dictionaries({
    "type": st.sampled_from(["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                             "message_delta", "message_stop", "error", "ping"]),
    "index": st.integers(-1, 2), "message": _value, "content_block": _value, "delta": _value, "usage": _value})
_pair = st.fixed_dictionaries({
    "request": st.fixed_dictionaries({"url": st.sampled_from(["https://api.anthropic.com/v1/messages",
                                                              "https://api.anthropic.com/v1/messages/count_tokens"]),
                                      "body": st.fixed_dictionaries({"messages": st.lists(_value, max_size=4),
                                                                     "system": _value})}),
    "response": st.one_of(st.none(), st.fixed_dictionaries({
        "status_code": st.sampled_from([200, 400, "x"]),
        "body_raw": st.lists(_sse_event, max_size=6).map(
            lambda events: "".join(f"data: {json.dumps(e)}\n\n" for e in events))})),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pairs=st.lists(_pair, min_size=1, max_size=5))
def test_random_trace_lines_never_raise(tmp_path, pairs):
    path = tmp_path / "random.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in pairs))
    try:
        runs = load_runs(str(path), fmt="claude-trace")
    except LoadError:
        return
    for run in runs:
        check_run(run)
        [request_at(run, n) for n in range(len(run.messages) + 1)]
        native.dumps([run])
