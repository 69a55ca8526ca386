"""A block type turnscope does not know (a newer API's, a provider's own) is data, not an error to hide:
every loader keeps it, and every view shows it as raw JSON under its type name.
"""

from __future__ import annotations

import orjson
import pytest
from app_helpers import app_for, screen_text, settle
from conftest import run_cli

from tui.core.run import blocks_of
from tui.formats import format_names, load_runs

WIDGET = {"type": "future_widget", "payload": {"k": [1, 2]}, "note": "kept"}
PART = {"type": "search_result_v9", "source": "https://docs.example/x", "title": "T"}
SHOWN = '"payload":{"k":[1,2]}'  # how the block's JSON reads in every view


def _messages() -> list:
    return [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, PART]},
        {"role": "assistant", "content": [{"type": "text", "text": "calling"}, WIDGET,
                                          {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": [{"type": "text", "text": "r"}, PART]}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]


def _documents() -> dict[str, bytes]:
    """A small file of each known format holding the unknown blocks in message content."""
    messages = _messages()
    request = {"model": "m", "max_tokens": 10, "messages": messages[:3]}
    answer = {"id": "msg_2", "type": "message", "role": "assistant", "model": "m", "content": messages[3]["content"],
              "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 2}}
    records, parent = [], None
    for k, message in enumerate(messages):
        record = {"type": message["role"], "uuid": f"u{k}", "parentUuid": parent, "sessionId": "s",
                  "message": {**message, **({"id": f"msg_{k}", "model": "m"} if message["role"] == "assistant" else {})}}
        records.append(record)
        parent = f"u{k}"
    url = "https://api.anthropic.com/v1/messages"
    cassette = {"interactions": [{"request": {"method": "POST", "uri": url, "body": orjson.dumps(request).decode()},
                                  "response": {"status": {"code": 200, "message": "OK"},
                                               "headers": {"content-type": ["application/json"]},
                                               "body": {"string": orjson.dumps(answer).decode()}}}]}
    return {
        "request": orjson.dumps(request),
        "messages": b"\n".join(orjson.dumps(m) for m in messages) + b"\n",
        "native": orjson.dumps({"turnscope": 1, "params": {"model": "m"}, "messages": messages}),
        "claude-code": b"\n".join(orjson.dumps(r) for r in records) + b"\n",
        "claude-trace": orjson.dumps({"request": {"method": "POST", "url": url, "body": request},
                                      "response": {"status_code": 200, "body": answer}}) + b"\n",
        "vcr": orjson.dumps(cassette),
        "openai": orjson.dumps([{"role": "user", "content": [{"type": "text", "text": "hi"}, PART]},
                                {"role": "assistant", "content": "done"}]),
        "har": orjson.dumps({"log": {"entries": [{"request": {"method": "POST", "url": url, "postData": {
            "text": orjson.dumps(request).decode()}}, "response": {"status": 200, "content": {
                "mimeType": "application/json", "text": orjson.dumps(answer).decode()}}}]}}),
        "inspect": orjson.dumps({"version": 2, "status": "success", "eval": {"task": "t", "model": "anthropic/m"},
                                 "samples": [{"id": 1, "epoch": 1, "events": [{
                                     "event": "model", "model": "anthropic/m", "input": [], "output": {},
                                     "call": {"request": request, "response": answer}}]}]}),
        "codex": b"\n".join(orjson.dumps({"timestamp": "t", "type": kind, "payload": payload}) for kind, payload in (
            ("session_meta", {"id": "s"}),
            ("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"},
                                                                              PART]}),
            ("response_item", {"type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": "calling"}, WIDGET]}),
            ("response_item", {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "toolu_1"}),
            ("response_item", {"type": "function_call_output", "call_id": "toolu_1",
                               "output": [{"type": "input_text", "text": "r"}, PART]}),
            ("response_item", {"type": "message", "role": "assistant",
                               "content": [{"type": "output_text", "text": "done"}]}))) + b"\n",
    }


#: A Gemini part has no type: it holds its data under one field, and is kept as a block typed by that field.
GEMINI_PART = {"type": "search_result_v9", "search_result_v9": {k: v for k, v in PART.items() if k != "type"}}
GEMINI_WIDGET = {"type": "future_widget", "future_widget": {k: v for k, v in WIDGET.items() if k != "type"}}


def _span_documents() -> dict[str, bytes]:
    """The formats that convert: OTel GenAI parts, a Langfuse export (chat messages), a Gemini CLI session."""
    def kv(key, value):
        return {"key": key, "value": {"stringValue": value if isinstance(value, str) else orjson.dumps(value).decode()}}

    ask = {"role": "user", "parts": [{"type": "text", "content": "hi"}, PART]}
    call = {"role": "assistant", "parts": [{"type": "text", "content": "calling"}, WIDGET,
                                           {"type": "tool_call", "id": "toolu_1", "name": "f", "arguments": {}}]}
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "toolu_1", "response": "r"}]}
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "done"}]}
    spans = [{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": span_id, "name": "chat m", "kind": 3,
              "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 50),
              "attributes": [kv("gen_ai.operation.name", "chat"), kv("gen_ai.provider.name", "anthropic"),
                             kv("gen_ai.request.model", "m"), kv("gen_ai.input.messages", inputs),
                             kv("gen_ai.output.messages", outputs)]}
             for span_id, start, inputs, outputs in (("00f067aa0ba902b7", 100, [ask], [call]),
                                                     ("00f067aa0ba902b9", 200, [ask, call, result], [answer]))]
    otel = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}
    chat_ask = {"role": "user", "content": [{"type": "text", "text": "hi"}, PART]}
    chat_call = {"role": "assistant", "content": [{"type": "text", "text": "calling"}, WIDGET],
                 "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    chat_result = {"role": "tool", "tool_call_id": "toolu_1", "content": [{"type": "text", "text": "r"}, PART]}
    generations = [{"id": f"g{k}", "traceId": "t1", "type": "GENERATION", "name": "chat", "model": "m",
                    "startTime": f"2026-01-01T00:00:0{k}Z", "endTime": f"2026-01-01T00:00:0{k}Z",
                    "input": inputs, "output": output}
                   for k, inputs, output in ((1, [chat_ask], chat_call),
                                             (2, [chat_ask, chat_call, chat_result], {"role": "assistant", "content": "done"}))]
    langfuse = {"trace": {"id": "t1", "projectId": "p", "name": "run", "timestamp": "2026-01-01T00:00:00Z"},
                "observations": generations}
    gemini = [{"sessionId": "s", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z", "kind": "main"},
              {"id": "u1", "type": "user", "content": [{"text": "hi"}, {"search_result_v9": GEMINI_PART["search_result_v9"]}]},
              {"id": "g1", "type": "gemini", "model": "m",
               "content": [{"text": "calling"}, {"future_widget": GEMINI_WIDGET["future_widget"]}],
               "toolCalls": [{"id": "toolu_1", "name": "f", "args": {}, "status": "success", "result": [
                   {"functionResponse": {"id": "toolu_1", "name": "f", "response": {"output": "r"}}}]}]},
              {"id": "g2", "type": "gemini", "model": "m", "content": "done"}]
    return {"otel": orjson.dumps(otel), "langfuse": orjson.dumps(langfuse),
            "gemini": b"\n".join(orjson.dumps(line) for line in gemini) + b"\n"}


def _all_blocks(run) -> list:
    out = []
    for message in run.messages:
        for block in blocks_of(message):
            out.append(block)
            if isinstance(block, dict) and isinstance(block.get("content"), list):
                out += block["content"]
    return out


@pytest.mark.parametrize("name", format_names())
def test_every_loader_keeps_unknown_blocks(tmp_path, name):
    documents = {**_documents(), **_span_documents()}
    if name not in documents:
        pytest.skip(f"no unknown-block document for {name} yet: add one to _documents()")
    path = tmp_path / f"run.{name}"
    path.write_bytes(documents[name])
    run = load_runs(str(path), fmt=name)[0]
    kept = _all_blocks(run)
    part, widget = (GEMINI_PART, GEMINI_WIDGET) if name == "gemini" else (PART, WIDGET)
    assert part in kept, f"{name} dropped the unknown part"
    if name != "openai":  # the OpenAI-style document has no assistant blocks of its own
        assert widget in kept, f"{name} dropped the unknown block"
    result = run_cli("show", path, "--format", name, "--at", str(len(run.messages)))
    assert result.code == 0, result.stderr
    assert "search_result_v9: {" in result.stdout and '"title":"T"' in result.stdout


def _write_run(tmp_path):
    path = tmp_path / "unknown.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(m) for m in _messages()) + b"\n")
    return path


def test_show_prints_the_type_and_raw_json_wherever_the_block_is(tmp_path):
    path = _write_run(tmp_path)
    for at in (1, 2, 3, 4):
        result = run_cli("show", path, "--at", str(at))
        assert result.code == 0, result.stderr
        # in message 0, and (from --at 2 on) inside the tool result of message 2
        assert result.stdout.count("search_result_v9: {") == (2 if at >= 2 else 1), result.stdout
        if at >= 2:
            assert f'future_widget: {orjson.dumps(WIDGET).decode()}' in result.stdout
    body = orjson.loads(run_cli("show", path, "--at", "3", "--json").stdout)
    assert body["messages"][1]["content"][1] == WIDGET and body["messages"][2]["content"][0]["content"][1] == PART
    check = run_cli("check", path)
    assert check.code in (0, 1) and "Traceback" not in check.stderr


async def test_the_app_shows_unknown_blocks_as_raw_json_with_their_type(tmp_path):
    path = _write_run(tmp_path)
    app = app_for(path, tmp_path, at=1)
    async with app.run_test(size=(180, 50)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "future_widget" in text and SHOWN in text.replace(" ", ""), "message 1 (the output) in the request view"
        assert "search_result_v9" in text  # message 0, in the prefix
        await pilot.press("j", "j")  # message 3: the widget is now in the prefix, the part inside a tool result
        await settle(pilot)
        text = screen_text(app)
        assert "future_widget" in text and '"title":"T"' in text.replace(" ", "")
        await pilot.press("2")
        await settle(pilot)
        assert '"future_widget"' in screen_text(app)
        await pilot.press("3", "k", "k")  # the account of message 1
        await settle(pilot)
        assert "future_widget" in screen_text(app), "the account of message 1 names the block's type"
