"""Codex CLI rollouts and OpenAI Responses items: the two real rollouts in realruns/next (old and new
layout), and the quirks FORMATS.md lists, each in a small rollout written here: an event_msg-only prompt,
duplicate token_count events, a compaction, a Responses request body with a previous_response_id."""

from __future__ import annotations

import orjson
import pytest

from loader_helpers import round_trip, same_run
from tui.core.errors import LoadError
from tui.core.grammar import check_run
from tui.core.prefix import request_at
from tui.formats import load_runs

OLD = "codemie__rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
NEW = "codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


def _lines(path):
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _blocks(run, kind):
    return [b for m in run.messages if isinstance(m["content"], list) for b in m["content"] if b["type"] == kind]


def _errors(run):
    return [f for f in check_run(run) if f.severity == "error"]


def test_the_new_layout_rollout_is_one_run_with_a_call_per_distinct_token_count(realruns):
    path = realruns / "next" / NEW
    source = _lines(path)
    run, = load_runs(str(path))
    assert run.source.format == "codex" and run.source.prefix == "reconstructed"
    assert run.system == source[0]["payload"]["base_instructions"]["text"]
    totals = []
    for line in source:
        info = line["payload"].get("info") if line["payload"].get("type") == "token_count" else None
        if info and (not totals or info["total_token_usage"] != totals[-1]["total_token_usage"]):
            totals.append(info)
    assert len(run.calls) == len(totals) == 66
    last = totals[1]["last_token_usage"]
    assert run.calls[1].usage["input_tokens"] + run.calls[1].usage["cache_read_input_tokens"] == last["input_tokens"]
    assert run.calls[1].usage["output_tokens"] == last["output_tokens"]
    assert run.model == "gpt-5.5" and run.meta["reasoning_effort"] == "medium"
    assert _errors(run) == []
    # every call and every output answered by call_id, custom tool calls (apply_patch) too
    items = [line["payload"] for line in source if line["type"] == "response_item"]
    calls = [i for i in items if i["type"] in ("function_call", "custom_tool_call")]
    uses = {b["id"]: b for b in _blocks(run, "tool_use")}
    assert len(uses) == len(calls) == 102
    patch = next(i for i in calls if i["type"] == "custom_tool_call")
    assert uses[patch["call_id"]]["input"] == {"input": patch["input"]}
    results = {b["tool_use_id"] for b in _blocks(run, "tool_result")}
    assert results == set(uses)
    searches = [i for i in items if i["type"] == "web_search_call"]
    servers = _blocks(run, "server_tool_use")
    assert len(servers) == len(searches) == 3 and servers[0]["input"]["action"] == searches[0]["action"]
    # encrypted reasoning only: said, with its size kept
    assert len(_blocks(run, "redacted_thinking")) == 25
    assert any("reasoning not returned by the provider" in w.text for w in run.warnings)
    assert any("no tool schemas" in w.text for w in run.warnings)


def test_a_developer_message_is_kept_word_for_word_and_named_never_merged_into_the_system(realruns):
    path = realruns / "next" / NEW
    developer = next(line["payload"] for line in _lines(path) if line["payload"].get("role") == "developer")
    run = load_runs(str(path))[0]
    texts = [p["text"] for p in developer["content"]]
    assert [b["text"] for b in run.messages[0]["content"][:len(texts)]] == texts
    assert not any(t in run.system for t in texts)
    note = next(w.text for w in run.warnings if "developer" in w.text)
    assert "message 0 block 0" in note


def test_event_msg_duplicates_are_counted_once(realruns):
    path = realruns / "next" / OLD
    run = load_runs(str(path))[0]
    prompt = "what is current repository about? summarize purpuse and explain goals"
    texts = [b["text"] for b in _blocks(run, "text")]
    assert texts.count(prompt) == 1
    assert run.title() == prompt
    assert [c.model for c in run.calls] == ["gpt-5-1-codex-2025-11-13"] * 3
    assert _errors(run) == []
    # a summary that was returned is shown as thinking text
    assert any(b["thinking"].startswith("**Clarifying documentation") for b in _blocks(run, "thinking"))


def _write(tmp_path, lines, name="rollout.jsonl"):
    path = tmp_path / name
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    return path


def _item(payload, ts="2026-01-01T00:00:00Z"):
    return {"timestamp": ts, "type": "response_item", "payload": payload}


def _event(payload):
    return {"timestamp": "2026-01-01T00:00:00Z", "type": "event_msg", "payload": payload}


META = {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
        "payload": {"id": "s1", "instructions": "be brief", "originator": "Codex Desktop"}}


def test_a_prompt_that_exists_only_as_an_event_msg_is_kept_and_unknown_usage_is_said(tmp_path):
    path = _write(tmp_path, [
        META,
        _event({"type": "user_message", "message": "fix the build"}),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        _event({"type": "agent_message", "message": "done"}),
    ])
    run, = load_runs(str(path))
    assert run.messages == [{"role": "user", "content": [{"type": "text", "text": "fix the build"}]},
                            {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    assert run.system == "be brief" and len(run.calls) == 1 and run.calls[0].usage is None
    said = " ".join(w.text for w in run.warnings)
    assert "no token_count events" in said and "no turn_context" in said and "kept from event_msg" in said


def test_repeated_token_counts_are_one_call_and_a_late_count_still_gives_the_usage(tmp_path):
    usage = {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 7, "total_tokens": 107}
    count = _event({"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage}})
    path = _write(tmp_path, [
        META,
        {"timestamp": "t", "type": "turn_context", "payload": {"model": "gpt-5", "effort": "high"}},
        _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        _event({"type": "token_count", "info": None}),
        _item({"type": "function_call", "name": "shell", "arguments": '{"cmd": "ls"}', "call_id": "c1"}),
        _item({"type": "function_call_output", "call_id": "c1", "output": {"content": "boom", "success": False}}),
        count, count,
        _item({"type": "reasoning", "summary": [], "encrypted_content": "gAAA" * 10}),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}),
    ])
    run, = load_runs(str(path))
    assert [m["role"] for m in run.messages] == ["user", "assistant", "user", "assistant"]
    assert run.messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "c1", "content": "boom",
                                           "is_error": True}]
    assert run.calls[0].usage == {"input_tokens": 60, "cache_read_input_tokens": 40, "output_tokens": 7}
    assert len(run.calls) == 2 and run.calls[1].usage is None
    assert run.messages[3]["content"][0] == {"type": "redacted_thinking", "data": "gAAA" * 10}
    assert run.model == "gpt-5" and run.meta["reasoning_effort"] == "high"
    assert _errors(run) == []


def test_a_compacted_line_starts_a_new_run_from_its_replacement_history(tmp_path):
    path = _write(tmp_path, [
        META,
        _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first task"}]}),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "one"}]}),
        {"timestamp": "t", "type": "compacted", "payload": {"message": "summary", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "summary of it"}]}]}},
        _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "next task"}]}),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "two"}]}),
    ])
    after, before = load_runs(str(path))
    assert [b["text"] for m in after.messages for b in m["content"]] == ["summary of it", "next task", "two"]
    assert [b["text"] for m in before.messages for b in m["content"]] == ["first task", "one"]
    assert any("compacted here" in w.text and w.line == 4 for w in after.warnings)
    assert before.title().startswith("before the compaction at line 4")


def test_a_responses_request_body_converts_with_its_tools_and_names_the_missing_history(tmp_path):
    body = {"model": "gpt-5", "instructions": "You are terse.", "previous_response_id": "resp_123",
            "max_output_tokens": 300, "reasoning": {"effort": "low"}, "tool_choice": "required",
            "tools": [{"type": "function", "name": "get_weather", "description": "w",
                       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
                      {"type": "web_search"}],
            "input": [{"role": "user", "content": "weather in Paris?"},
                      {"type": "function_call", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}",
                       "call_id": "call_1", "id": "fc_1"},
                      {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}]}
    path = tmp_path / "request.json"
    path.write_bytes(orjson.dumps(body))
    run, = load_runs(str(path))
    assert run.source.format == "codex" and run.system == "You are terse."
    assert run.messages[1]["content"] == [{"type": "tool_use", "id": "call_1", "name": "get_weather",
                                           "input": {"city": "Paris"}}]
    assert run.messages[2]["content"][0]["tool_use_id"] == "call_1"
    assert run.tools == [{"name": "get_weather", "description": "w", "input_schema": body["tools"][0]["parameters"]}]
    assert run.params == {"model": "gpt-5", "max_tokens": 300, "tool_choice": {"type": "any"}}
    said = " ".join(w.text for w in run.warnings)
    assert "resp_123" in said and "reasoning" in said and "'web_search' tool" in said
    assert request_at(run, 2).exact is False
    # a bare input list loads the same way
    bare = tmp_path / "input.json"
    bare.write_bytes(orjson.dumps(body["input"]))
    again, = load_runs(str(bare))
    assert again.messages == run.messages and again.source.format == "codex"


def test_a_plain_chat_message_list_is_still_the_openai_loaders(realruns):
    assert {r.source.format for r in load_runs(str(realruns / "taubench__gpt-4o-airline.json"))} == {"openai"}


def test_a_near_miss_says_what_is_missing_with_its_position(tmp_path):
    path = _write(tmp_path, [{"type": "session_meta", "timestamp": "t"}, {"type": "event_msg"}])
    with pytest.raises(LoadError) as info:
        load_runs(str(path))
    assert info.value.line_text() == f"{path}:1:1: not a Codex rollout: line 1 is a 'session_meta' line without " \
                                     "its 'payload' object"
    with pytest.raises(LoadError, match="not a Codex rollout"):
        load_runs(str(_write(tmp_path, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
                             "chat.jsonl")), fmt="codex")


def test_both_real_rollouts_convert_to_native_and_back_without_loss(realruns):
    for name in (OLD, NEW):
        runs, back = round_trip(realruns / "next" / name)
        assert len(runs) == len(back) and all(same_run(a, b) for a, b in zip(runs, back))


async def test_the_picker_lists_codex_sessions_newest_first_and_opens_one(realruns, tmp_path):
    import os
    import shutil

    from app_helpers import app_for, screen_text, settle
    from test_app_open import _choose
    from tui.app.screens.stepper import StepperScreen

    day = tmp_path / "codex" / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    older = tmp_path / "codex" / "sessions" / "2026" / "01" / "02"
    older.mkdir(parents=True)
    new = shutil.copy(realruns / "next" / NEW, day / NEW.split("__")[1])
    old = shutil.copy(realruns / "next" / OLD, older / OLD.split("__")[1])
    os.utime(old, (1_767_000_000, 1_767_000_000))
    os.utime(new, (1_778_000_000, 1_778_000_000))
    app = app_for(None, tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Codex sessions (codex format, reconstructed prefixes)" in text
        assert text.index("2026/05/11/2026-05-11T11-26-55") < text.index("2026/01/02/2026-01-02T18-39-45")
        assert "16 messages · show tools" in text
        await _choose(pilot, "2026/01/02/2026-01-02T18-39-45")
        assert isinstance(app.screen, StepperScreen)
        assert "reconstructed" in screen_text(app)
