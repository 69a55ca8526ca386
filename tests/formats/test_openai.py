"""OpenAI-style runs converted to Anthropic messages: tau-bench's 200 trajectories, SWE-agent .traj
files (tool_call_ids lists, ids reused across turns), content null, bad arguments, request bodies."""

from __future__ import annotations

import orjson

from loader_helpers import FIXTURES
from tui.core.grammar import check_run
from tui.formats import load_runs


def test_every_tau_bench_trajectory_is_a_run_that_passes_the_grammar_check(realruns):
    path = realruns / "taubench__gpt-4o-airline.json"
    source = orjson.loads(path.read_bytes())
    runs = load_runs(str(path))
    assert len(runs) == len(source) == 200
    for run, item in zip(runs, source):
        assert [f for f in check_run(run)] == [], run.title()
        assert run.system == item["traj"][0]["content"] and run.meta["task_id"] == item["task_id"]
        calls = sum(len(m.get("tool_calls") or []) for m in item["traj"])
        uses = sum(1 for m in run.messages if isinstance(m["content"], list)
                   for b in m["content"] if b["type"] == "tool_use")
        assert uses == calls
    assert runs[0].title() == "task 0 · trial 0 · reward 0.0"


def test_a_tool_call_turn_with_content_null_holds_only_its_tool_use(realruns):
    source = orjson.loads((realruns / "taubench__gpt-4o-airline.json").read_bytes())[0]["traj"]
    at = next(i for i, m in enumerate(source) if m["role"] == "assistant" and m["content"] is None)
    call = source[at]["tool_calls"][0]
    run = load_runs(str(realruns / "taubench__gpt-4o-airline.json"))[0]
    converted = [m for m in run.messages if isinstance(m["content"], list)
                 and any(b.get("id") == call["id"] for b in m["content"])][0]
    assert converted == {"role": "assistant", "content": [
        {"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
         "input": orjson.loads(call["function"]["arguments"])}]}


def test_swe_agent_history_converts_with_unique_ids_and_passes_the_check(realruns):
    [run] = load_runs(str(realruns / "sweagent__marshmallow-code__marshmallow-1867.traj"))
    ids = [b["id"] for m in run.messages if isinstance(m["content"], list) for b in m["content"]
           if b["type"] == "tool_use"]
    assert len(ids) == 11 == len(set(ids)) and "call_5iDdbOYybq7L19vqXmR0DPaU_2" in ids
    assert [f for f in check_run(run)] == []
    assert run.system.startswith("SETTING: You are an autonomous programmer")
    assert any("renamed" in w.text for w in run.warnings)


def test_a_tool_call_ids_list_gives_one_result_per_id():
    [run] = load_runs(str(FIXTURES / "openai" / "two_ids.traj"))
    results = run.messages[2]["content"]
    assert [r["tool_use_id"] for r in results] == ["call_x1", "call_x2"]
    assert {r["content"] for r in results} == {"Only one command may run per turn."}
    assert run.messages[3]["content"][0]["id"] == "call_x1_2"  # reused in a later turn: renamed
    assert run.messages[4]["content"][0]["tool_use_id"] == "call_x1_2"
    assert [f for f in check_run(run)] == [] and run.meta == {"exit_status": "submitted"}


def test_a_chat_request_body_with_tools_bad_arguments_and_a_null_result():
    [run] = load_runs(str(FIXTURES / "openai" / "chat_body.json"))
    assert run.system == "You are a support agent."
    assert run.tools == [{"name": "get_order", "description": "Look up an order.", "input_schema": {
        "type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}]
    assert run.params == {"model": "gpt-4o", "temperature": 0,
                          "tool_choice": {"type": "any", "disable_parallel_tool_use": True}}
    uses = run.messages[1]["content"]
    assert [b["type"] for b in uses] == ["tool_use", "tool_use"]  # content null: no empty text block
    assert uses[1]["input"] == {"_raw_arguments": "{\"order_id\": 4472"}
    results = run.messages[2]["content"]
    assert results[1] == {"type": "tool_result", "tool_use_id": "call_B"}  # content null: no content
    assert results[2] == {"type": "text", "text": "Also check the shipping."}  # the user's words follow the results
    notes = " | ".join(w.text for w in run.warnings)
    assert "converted from the OpenAI chat format" in notes and "response_format" in notes
    assert "input._raw_arguments" in notes
    assert [f.severity for f in check_run(run)] == []


def test_openai_messages_as_json_lines_are_detected_from_their_content():
    [run] = load_runs(str(FIXTURES / "openai" / "messages.jsonl"))
    assert run.source.format == "openai" and run.system == "You are a support agent."
    assert [m["role"] for m in run.messages] == ["user", "assistant", "user"]


def test_a_swe_agent_traj_with_only_its_history_loads(realruns, tmp_path, cli):
    """SWE-agent's function-calling demonstrations hold ``{"history": [...]}`` and nothing else."""
    full = orjson.loads((realruns / "sweagent__marshmallow-code__marshmallow-1867.traj").read_bytes())
    path = tmp_path / "demo.traj"
    path.write_bytes(orjson.dumps({"history": full["history"]}))
    [run] = load_runs(str(path))
    [whole] = load_runs(str(realruns / "sweagent__marshmallow-code__marshmallow-1867.traj"))
    assert run.source.format == "openai" and run.messages == whole.messages and run.system == whole.system
    assert cli("check", path).code == 0
