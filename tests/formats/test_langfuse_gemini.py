"""The langfuse and gemini loaders on the quirks FORMATS.md lists for their real samples, and the
picker's Gemini CLI sessions."""

from __future__ import annotations

import orjson
import pytest

from app_helpers import app_for, screen_text, settle
from tui.formats import load_runs


def _next(realruns, name):
    return realruns / "next" / name


def test_double_encoded_inputs_are_read(realruns):
    [run] = load_runs(str(_next(realruns, "agentprism__langfuse-1.json")))
    assert run.system.startswith("You are a helpful Langfuse support agent.")
    assert run.messages[1] == {"role": "user", "content": "what's your name"}
    assert run.calls[0].usage == {"input_tokens": 1115, "output_tokens": 101}
    assert [t["name"] for t in run.tools] == ["searchLangfuseDocs", "getLangfuseDocsPage", "getLangfuseOverview"]
    assert run.tools[0]["input_schema"]["required"] == ["query"]  # the AI SDK's inputSchema


def test_a_generation_with_null_output_gets_its_tool_call_from_the_tool_observation(realruns):
    [run] = load_runs(str(_next(realruns, "agentprism__langfuse-3.json")))
    blocks = run.messages[2]["content"]
    assert [b["type"] for b in blocks] == ["tool_use"]
    assert blocks[0]["input"]["query"].startswith("What is a dataset in Langfuse?")
    assert run.messages[3]["content"][0]["type"] == "tool_result"
    assert run.messages[4]["content"].startswith("# What is a dataset in Langfuse?")  # the outer span's output
    assert any("rebuilt from the tool observations" in w.text for w in run.warnings)


def test_top_level_observations_are_preferred_and_only_they_may_exist(realruns):
    [run] = load_runs(str(_next(realruns, "langfuse__agno-2025-06-11.trace.json")))  # trace.observations lack input
    assert run.messages[0] == {"role": "user", "content": "What is currently trending on Twitter?"}
    runs = load_runs(str(_next(realruns, "langfuse__pydantic-ai-tools-2025-12-04.trace.json")))  # top level only
    assert [len(r.calls) for r in runs] == [3, 1]  # the joke agent, then its critic: two conversations
    assert [b["name"] for b in runs[0].messages[1]["content"]] == [
        "get_pun_suggestion", "get_dad_joke_suggestion", "get_one_liner_suggestion"]


def test_garbage_generation_inputs_do_not_stop_the_load(realruns):
    [run] = load_runs(str(_next(realruns, "langfuse__claude-agent-2025-12-22.trace.json")))  # input {"content":"role"}
    assert any("holds no message list" in w.text for w in run.warnings)
    ids = [b["id"] for b in run.messages[1]["content"] if b["type"] == "tool_use"]
    assert ids == ["toolu_01TKoqQLvY2UWuC49qnD48y7", "toolu_01NtVat4vJLFfVd5TqdLHcA7"]  # one response, in parts
    assert [b["tool_use_id"] for b in run.messages[2]["content"]] == ids


def test_several_traces_in_one_file_are_several_runs(realruns, tmp_path):
    a = orjson.loads(_next(realruns, "langfuse__autogen-2025-06-06.trace.json").read_bytes())
    b = orjson.loads(_next(realruns, "langfuse__vercel-aisdk-2025-11-17.trace.json").read_bytes())
    path = tmp_path / "two.json"
    path.write_bytes(orjson.dumps([a, b]))
    runs = load_runs(str(path))
    assert [r.source.run_index for r in runs] == [0, 1]
    assert runs[0].meta["trace_id"] == a["trace"]["id"] and runs[1].meta["trace_id"] == b["trace"]["id"]


def test_gemini_jsonl_set_lines_and_repeated_ids_last_copy_wins(realruns):
    path = _next(realruns, "vct__gemini.jsonl")
    records = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    repeated = [r for r in records if "id" in r and sum(1 for x in records if x.get("id") == r["id"]) > 1]
    last = {r["id"]: r for r in repeated}
    [run] = load_runs(str(path))
    calls = [b for m in run.messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use"]
    for record in last.values():
        for call in record.get("toolCalls") or []:
            assert call["id"] in {b["id"] for b in calls}
    assert {c.model for c in run.calls} == {"gemini-3-flash-preview", "gemini-3.1-pro-preview"}
    notes = " ".join(w.text for w in run.warnings)
    assert "11 '$set' line(s)" in notes and "2 info" in notes and "written again later" in notes


def test_gemini_tool_calls_become_pairs_and_thoughts_what_the_call_returned(realruns):
    [run] = load_runs(str(_next(realruns, "vct__test_conversation_gemini.894772f.json")))
    first = run.messages[1]["content"]
    assert first[0] == {"type": "tool_use", "id": "x0m3mt27", "name": "read_file", "input": {"file_path": "README.md"}}
    result = run.messages[2]["content"][0]
    assert result["tool_use_id"] == "x0m3mt27" and result["content"].startswith('<div align="center"')
    returned = run.calls[0].response
    assert returned[0]["type"] == "thinking" and returned[0]["thinking"].startswith("**Initiating Stepwise Analysis**")
    assert run.calls[0].usage == {"input_tokens": 11894 - 7900, "cache_read_input_tokens": 7900,
                                  "output_tokens": 68 + 344}
    assert run.system is None and run.tools is None and "no system prompt" in run.warnings[0].text


def test_an_older_gemini_session_without_tool_calls_says_so(realruns):
    [run] = load_runs(str(_next(realruns, "vct__test_conversation_gemini.bcec23f.json")))
    assert run.messages[0]["content"][0]["text"].startswith("## 任務")
    assert len(run.calls) == 13
    assert any("recorded no tool calls" in w.text for w in run.warnings)


@pytest.mark.asyncio
async def test_the_picker_lists_gemini_cli_sessions(realruns, tmp_path):
    chats = tmp_path / ".gemini" / "tmp" / "ab14fe397f91d5f2" / "chats"
    chats.mkdir(parents=True)
    (chats / "session-2026-03-27T10-19-8a20078e.json").write_bytes(
        _next(realruns, "vct__test_conversation_gemini.894772f.json").read_bytes())
    app = app_for(None, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Gemini CLI sessions" in text
        assert "6 messages · 請幫我依照專案實際狀況更新 README.md" in text
        gemini = [e for e in app.screen.entries.values() if e.section == "gemini"]
        assert [e.path for e in gemini] == [str(chats / "session-2026-03-27T10-19-8a20078e.json")]


@pytest.mark.asyncio
async def test_the_stepper_header_says_converted_or_reconstructed(realruns, tmp_path):
    app = app_for(_next(realruns, "anyagent__OPENAI_trace.json"), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("j")  # message 1: the first call, whose span recorded its input
        await settle(pilot)
        assert "model call 1 of 3 · converted prefix" in screen_text(app)
        await pilot.press("j", "j")  # message 3: a call whose span recorded no input
        await settle(pilot)
        assert "model call 2 of 3 · reconstructed prefix" in screen_text(app)
