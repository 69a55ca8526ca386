"""VCR cassettes: every body form recorders use, a recorded 400, credentials, rewritten turns."""

from __future__ import annotations

import orjson
import yaml

from loader_helpers import FIXTURES, gunzip_if_needed
from tui.core import native
from tui.core.grammar import check_request, check_run
from tui.core.prefix import call_request
from tui.formats import load_runs
from tui.formats.recorded.sse import reassemble

REFUSED = FIXTURES / "vcr" / "refused_then_fixed.yaml"


def test_a_recorded_400_is_a_refused_call_that_produced_nothing():
    [run] = load_runs(str(REFUSED))
    assert [c.status for c in run.calls] == [200, 400, 200]
    assert [c.message for c in run.calls] == [1, 3, 3]
    assert run.call_index(3) == 2  # message 3 was produced by the retry, not by the refused call
    assert len(run.messages) == 4 and run.messages[3]["content"][0]["text"] == "The refund is $89.00."
    [warning] = [w for w in run.warnings if "answered 400" in w.text]
    assert "tool_use` ids were found without `tool_result`" in warning.text and warning.line is not None


def test_the_check_finds_what_the_api_refused_in_the_refused_request():
    [run] = load_runs(str(REFUSED))
    refused = call_request(run, 1)
    findings = [f for f in check_request(refused) if f.severity == "error"]
    assert [(f.rule, f.index) for f in findings] == [("tool_use_without_result", 2)]
    assert "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Lookup" \
        in findings[0].message


def test_the_loop_changing_the_request_after_the_400_is_a_finding():
    [run] = load_runs(str(REFUSED))
    [finding] = [f for f in check_run(run) if f.rule == "request_differs"]
    assert "model call 2's request differs from the run's last: message 2 (" in finding.message


def test_credentials_are_dropped_and_never_reach_the_run():
    [run] = load_runs(str(REFUSED))
    dumped = native.dumps([run])
    for secret in (b"sk-live-ORDERS-SECRET", b"sk-ant-api03", b"SECRETCOOKIE", b"x-api-key", b"set-cookie"):
        assert secret not in dumped
    assert any("credentials dropped" in w.text and "authorization_token" in w.text for w in run.warnings)
    assert run.params["mcp_servers"] == [{"type": "url", "url": "https://mcp.example.com/mcp", "name": "orders"}]


def test_gzip_binary_sse_answers_are_reassembled(realruns):
    path = realruns / "llmanthropic__test_tools.yaml"
    [run] = load_runs(str(path))
    raw = yaml.safe_load(path.read_bytes())["interactions"][0]["response"]["body"]["string"]
    assert isinstance(raw, bytes) and raw[:2] == b"\x1f\x8b"
    provider = run.calls[0].response  # kept: the loop stored the turn in another form
    assert [b["type"] for b in provider] == ["tool_use", "tool_use"]
    assert [b["id"] for b in provider] == ["toolu_01LtHJmixrs9NcWQkK8hu8hj", "toolu_01N8a4jWyf116qKTMqKKmjyt"]
    assert provider[0]["input"] == {} and run.calls[0].stop_reason == "tool_use"
    assert run.calls[0].usage["output_tokens"] == 62 and run.calls[0].request_id == "req_011CZkTfmdQovVWg8SG5f6Lq"


def test_a_turn_stored_in_another_form_than_returned_is_reported_with_its_first_difference(realruns):
    [run] = load_runs(str(realruns / "llmanthropic__test_tools.yaml"))
    [finding] = [f for f in check_run(run) if f.rule == "assistant_turn_rewritten"]
    assert finding.index == 1 and "returned 2 blocks; message 1 stores 3" in finding.message
    assert run.calls[1].response is None  # the last answer is the run's last message, unchanged


def test_plain_text_sse_answers_are_reassembled(realruns):
    path = realruns / "pydanticai__test_anthropic_model_thinking_part_stream.yaml"
    [run] = load_runs(str(path))
    text = yaml.safe_load(path.read_bytes())["interactions"][0]["response"]["body"]["string"]
    deltas = [e["delta"] for e in map(orjson.loads, (line[5:] for line in text.splitlines()
                                                      if line.startswith("data:"))) if e["type"] == "content_block_delta"]
    thinking, answer = run.messages[1]["content"]
    assert thinking["thinking"] == "".join(d.get("thinking", "") for d in deltas)
    assert thinking["signature"] == "".join(d.get("signature", "") for d in deltas)
    assert answer["text"] == "".join(d.get("text", "") for d in deltas) and answer["text"].endswith("crossing streets.")
    assert run.calls[0].stop_reason == "end_turn" and run.calls[0].usage["output_tokens"] == 282


def test_parsed_body_cassettes_keep_the_answer_as_returned(realruns):
    [run] = load_runs(str(realruns / "pydanticai__test_multiple_parallel_tool_calls.yaml"))
    ids = [b["id"] for b in run.messages[1]["content"] if b["type"] == "tool_use"]
    assert len(ids) == 4 and [b["tool_use_id"] for b in run.messages[2]["content"]] == ids
    assert [c.model for c in run.calls] == ["claude-haiku-4-5-20251001"] * 2


def test_requests_that_do_not_continue_each_other_are_separate_runs(realruns):
    runs = load_runs(str(realruns / "pydanticai__test_anthropic_code_execution_tool.yaml"))
    assert [r.title() for r in runs] == ["How much is 3 * 12390?", "How about 4 * 12390?"]
    assert "2 conversations" in runs[0].warnings[0].text


def test_a_paused_turn_and_its_continuation_are_two_calls_of_one_run(realruns):
    [run] = load_runs(str(realruns / "pydanticai__test_pause_turn_web_search_vcr.yaml"))
    assert [m["role"] for m in run.messages] == ["user", "assistant", "assistant"]
    assert [c.stop_reason for c in run.calls] == ["pause_turn", "end_turn"]
    assert call_request(run, 1)["messages"][-1] is run.messages[1]


def test_a_json_cassette_loads_like_the_yaml_one(tmp_path):
    cassette = yaml.safe_load(REFUSED.read_bytes())
    for item in cassette["interactions"]:
        body = item["response"]["body"]
        body["string"] = gunzip_if_needed(body["string"])
        item["response"]["headers"].pop("content-encoding", None)
    path = tmp_path / "cassette.json"
    path.write_bytes(orjson.dumps(cassette))
    [run] = load_runs(str(path))
    [yaml_run] = load_runs(str(REFUSED))
    assert run.source.format == "vcr" and run.messages == yaml_run.messages


def test_a_broken_cassette_is_one_line_and_exit_2(tmp_path, cli):
    path = tmp_path / "broken.yaml"
    path.write_text("interactions:\n- request:\n    body: '{}'\n  response: [unclosed\n")
    result = cli("check", path)
    assert result.code == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"turnscope: {path}:") and "invalid YAML" in result.stderr


def test_a_stream_cut_short_is_reported():
    text = ('event: message_start\ndata: {"type":"message_start","message":{"id":"m","role":"assistant",'
            '"content":[],"model":"x"}}\n\nevent: content_block_start\ndata: {"type":"content_block_start",'
            '"index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}\n\n'
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\": 1"}}\n')
    stream = reassemble(text)
    assert stream.message["content"][0]["input"] == {"_unparsed_input": '{"a": 1'}
    assert any("message_stop" in p for p in stream.problems) and any("not valid JSON" in p for p in stream.problems)
