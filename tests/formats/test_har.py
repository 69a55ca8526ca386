"""HAR 1.2 recordings: the ten Polly.JS recordings in realruns/next (Anthropic exact, OpenAI chat and
responses converted, Bedrock event streams, base64+gzip chunk arrays, embeddings left out), a HAR that
cc-dump wrote for real SDK traffic (tests/fixtures/har/make_ccdump_har.py), and credential headers."""

from __future__ import annotations

import base64
import gzip

import orjson
import pytest

from conftest import REPO
from loader_helpers import round_trip, same_run
from tui.core import native
from tui.core.errors import LoadError
from tui.core.grammar import check_run
from tui.core.prefix import request_at
from tui.formats import load_runs

CCDUMP = REPO / "tests" / "fixtures" / "har" / "cc-dump.har"
PLANTED = "sk-ant-api03-PLANTED-harkey-0000"


def _har(realruns, name):
    return realruns / "next" / f"openllmetryjs__{name}.har"


def _entries(path):
    return orjson.loads(path.read_bytes())["log"]["entries"]


def _errors(run):
    return [f for f in check_run(run) if f.severity == "error"]


def test_every_real_har_loads_with_no_error_finding(realruns):
    counts = {}
    for path in sorted((realruns / "next").glob("*.har")):
        runs = load_runs(str(path))
        counts[path.name.split("__", 1)[1]] = (runs[0].source.prefix, sum(len(r.calls) for r in runs))
        for run in runs:
            assert run.source.format == "har" and _errors(run) == [], path.name
    assert sum(n for _, n in counts.values()) == 11
    assert [p for p, _ in counts.values()].count("exact") == 3


def test_an_anthropic_exchange_is_the_exact_request_and_its_stream_is_put_back_together(realruns):
    path = _har(realruns, "anthropic__should-set-attributes-in-span-for-messages-streaming")
    entry = _entries(path)[0]
    run, = load_runs(str(path))
    assert run.source.prefix == "exact"
    assert request_at(run, 1).body == orjson.loads(entry["request"]["postData"]["text"])
    text = "".join(orjson.loads(line[5:])["delta"].get("text", "")
                   for line in entry["response"]["content"]["text"].splitlines()
                   if line.startswith("data:") and '"content_block_delta"' in line)
    assert run.messages[1]["content"] == [{"type": "text", "text": text}]
    assert run.calls[0].usage["output_tokens"] > 0 and run.calls[0].stop_reason == "end_turn"


def test_thinking_comes_back_with_its_signature(realruns):
    run, = load_runs(str(_har(realruns, "anthropic__should-set-attributes-in-span-for-beta-messages-with-thinking")))
    kinds = [b["type"] for b in run.messages[1]["content"]]
    assert kinds[0] == "thinking" and run.messages[1]["content"][0]["signature"]


def test_a_base64_gzip_chunk_array_body_is_read(realruns):
    path = _har(realruns, "openai__should-set-attributes-in-span-for-tool-calling")
    content = _entries(path)[0]["response"]["content"]
    raw = gzip.decompress(b"".join(base64.b64decode(c) for c in orjson.loads(content["text"])))
    call = orjson.loads(raw)["choices"][0]["message"]["tool_calls"][0]
    run, = load_runs(str(path))
    assert run.messages[1]["content"] == [{"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                                           "input": orjson.loads(call["function"]["arguments"])}]
    assert "converted from OpenAI Chat Completions" in run.warnings[0].text and run.source.prefix == "reconstructed"


def test_streamed_parallel_tool_call_arguments_are_joined_by_index(realruns):
    path = _har(realruns, "openai__should-set-function_call-attributes-in-span-for-stream-completion-when-multiple"
                          "-tools-cal")
    run, = load_runs(str(path))
    uses = [b for b in run.messages[1]["content"] if b["type"] == "tool_use"]
    assert len(uses) >= 2 and all(isinstance(u["input"], dict) and u["input"] for u in uses)
    assert len({u["id"] for u in uses}) == len(uses)


def test_two_chat_calls_of_one_agent_loop_are_one_run_and_embeddings_are_counted(realruns):
    run, = load_runs(str(_har(realruns, "langchain__should-set-attributes-in-span-for-agent-instrumentation")))
    assert [m["role"] for m in run.messages] == ["user", "assistant", "user", "assistant"]
    assert run.system == "You are a helpful assistant that can use tools to answer questions."
    assert len(run.calls) == 2 and run.tools[0]["name"] == "calculator"
    llama, = load_runs(str(_har(realruns, "llamaindex__should-build-proper-trace-on-streaming-query-engine")))
    assert any(w.text == "other traffic left out, not model calls: 2 POST /v1/embeddings" for w in llama.warnings)


def test_a_responses_exchange_and_a_bedrock_event_stream_are_converted(realruns):
    run, = load_runs(str(_har(realruns, "openai__should-set-attributes-in-span-for-responses-non-streaming")))
    assert run.messages[0] == {"role": "user", "content": [{"type": "text", "text": "Tell me a joke about OpenTelemetry"}]}
    assert run.messages[1]["content"][0]["text"].startswith("Why did the OpenTelemetry developer")
    assert "OpenAI Responses" in run.warnings[0].text
    bedrock, = load_runs(str(_har(realruns, "bedrock__should-set-request-and-response-attributes-in-span-for-given-"
                                            "prompt-with-streaming-result")))
    assert bedrock.messages[0] == {"role": "user", "content": "What are the 4 cardinal directions?"}
    answer = bedrock.messages[1]["content"][0]["text"]
    assert answer.startswith(" The 4 cardinal directions are:") and answer.endswith("principal directions.")
    assert bedrock.calls[0].usage == {"input_tokens": 16, "output_tokens": 63}
    assert bedrock.params["model"] == "anthropic.claude-v2" and bedrock.params["max_tokens"] == 300


def test_a_har_cc_dump_wrote_says_it_was_re_serialised_not_exact():
    entries = _entries(CCDUMP)
    run, = load_runs(str(CCDUMP))
    assert run.warnings[0].text.startswith("recorded by cc-dump, body re-serialised")
    assert "2 with stream forced to false" in run.warnings[0].text
    assert run.source.prefix == "reconstructed" and not request_at(run, 3).exact
    sent = orjson.loads(entries[1]["request"]["postData"]["text"])
    assert sent["stream"] is False  # what cc-dump changed: the SDK streamed both calls
    assert run.messages[:3] == sent["messages"] and run.system == sent["system"] and run.tools == sent["tools"]
    assert run.messages[3]["content"] == [{"type": "text", "text": "Refunds are accepted within 30 days."}]
    assert check_run(run) == [] or all(f.severity != "error" for f in check_run(run))
    written = native.dumps([run])
    assert b"Anthropic/Python" not in written and b"x-stainless" not in written


def _synthetic(tmp_path, headers, creator="mitmproxy", length=None):
    body = orjson.dumps({"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]})
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "hello"}],
              "stop_reason": "end_turn", "usage": {"input_tokens": 3, "output_tokens": 1}}
    request_headers = headers + ([{"name": "Content-Length", "value": str(length)}] if length is not None else [])
    har = {"log": {"version": "1.2", "creator": {"name": creator, "version": "1"}, "entries": [
        {"startedDateTime": "2026-01-01T00:00:00Z", "time": 12,
         "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "headers": request_headers,
                     "postData": {"mimeType": "application/json", "text": body.decode()}},
         "response": {"status": 200, "headers": [{"name": "request-id", "value": "req_1"},
                                                  {"name": "set-cookie", "value": f"session={PLANTED}"}],
                      "content": {"mimeType": "application/json",
                                  "text": base64.b64encode(gzip.compress(orjson.dumps(answer))).decode(),
                                  "encoding": "base64"}}},
        {"startedDateTime": "2026-01-01T00:00:01Z", "time": 3,
         "request": {"method": "GET", "url": "https://example.org/", "headers": []},
         "response": {"status": 200, "headers": [], "content": {"text": "<html>"}}}]}}
    path = tmp_path / "traffic.har"
    path.write_bytes(orjson.dumps(har))
    return path, len(body)


def test_credential_headers_never_reach_a_run_or_a_written_file(tmp_path, cli):
    path, size = _synthetic(tmp_path, [{"name": "x-api-key", "value": PLANTED},
                                       {"name": "Authorization", "value": f"Bearer {PLANTED}"}], length=None)
    run, = load_runs(str(path))
    assert run.source.prefix == "exact" and run.calls[0].request_id == "req_1"
    assert run.messages[1]["content"] == [{"type": "text", "text": "hello"}]
    assert "1 GET /" in run.warnings[-1].text
    out = tmp_path / "out.turnscope.json"
    for args in (("convert", path, "-o", out), ("show", path, "--at", "1", "--json"), ("check", path, "--json")):
        result = cli(*args)
        assert result.code == 0, result.stderr
        assert PLANTED not in result.stdout + result.stderr
    assert PLANTED.encode() not in out.read_bytes()


def test_a_body_whose_length_differs_from_what_was_sent_is_said_re_serialised(tmp_path):
    path, size = _synthetic(tmp_path, [], creator="some-proxy", length=999)
    run, = load_runs(str(path))
    assert run.warnings[0].text.startswith("recorded by some-proxy, body re-serialised (the recorded body's length "
                                           "differs from the Content-Length the client sent)")
    same, _ = _synthetic(tmp_path, [], creator="some-proxy", length=size)
    assert load_runs(str(same))[0].source.prefix == "exact"


def test_near_misses_say_what_is_missing(tmp_path):
    path = tmp_path / "almost.har"
    path.write_bytes(b'{"log": {"version": "1.2"}}')
    with pytest.raises(LoadError) as info:
        load_runs(str(path))
    assert info.value.line_text() == f"{path}:1:1: not a HAR file: its 'log' has no 'entries' list"
    empty = tmp_path / "empty.har"
    empty.write_bytes(orjson.dumps({"log": {"entries": [{"request": {"method": "GET", "url": "https://x.org/a"}}]}}))
    with pytest.raises(LoadError, match=r"no Messages API, chat completions or responses exchange .*1 GET /a"):
        load_runs(str(empty))
    with pytest.raises(LoadError, match="not a HAR file"):
        load_runs(str(REPO / "sample_runs" / "refund" / "run.jsonl"), fmt="har")


def test_every_har_converts_to_native_and_back_without_loss(realruns):
    for path in sorted((realruns / "next").glob("*.har")) + [CCDUMP]:
        runs, back = round_trip(path)
        assert len(runs) == len(back) and all(same_run(a, b) for a, b in zip(runs, back)), path.name


def test_an_exchange_keeps_its_answer_body_and_first_byte_as_recorded(realruns):
    path = _har(realruns, "anthropic__should-set-attributes-in-span-for-messages-streaming")
    entry = _entries(path)[0]
    run, = load_runs(str(path))
    call = run.calls[0]
    assert call.response_body == entry["response"]["content"]["text"]  # the events as the API sent them
    assert call.first_byte_ms == entry["time"] - entry["timings"]["receive"]
    assert call.duration_ms == entry["time"] and not call.derived_timing
    again = native.run_from_dict(native.run_to_dict(run), "x")
    assert (again.calls[0].response_body, again.calls[0].first_byte_ms) == (call.response_body, call.first_byte_ms)
