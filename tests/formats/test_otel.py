"""The otel loader on the quirks FORMATS.md lists and on the conventions no real sample carries
(the GenAI ``parts`` form, the older indexed ``gen_ai.prompt`` attributes), written as the
exporters write them."""

from __future__ import annotations

import re

import orjson

from tui.core.prefix import request_at
from tui.formats import load_runs


def _kv(key, value):
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}  # a decimal string, as OTLP/JSON writes it
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    return {"key": key, "value": {"stringValue": value if isinstance(value, str) else orjson.dumps(value).decode()}}


def _span(span_id, name, start, end, attrs, parent=None, trace="5b8efff798038103d269b633813fc60c"):
    span = {"traceId": trace, "spanId": span_id, "name": name, "kind": 3, "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end), "attributes": [_kv(k, v) for k, v in attrs.items()]}
    if parent:
        span["parentSpanId"] = parent
    return span


def _otlp(spans):
    return {"resourceSpans": [{"resource": {"attributes": [_kv("service.name", "agent")]},
                               "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]}


SYSTEM = [{"type": "text", "content": "You are a weather bot."}]
TOOLS = [{"type": "function", "name": "get_weather", "description": "Weather for a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
ASK = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}
CALL = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather",
                                        "arguments": {"city": "Paris"}}], "finish_reason": "tool_call"}
RESULT = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "sunny, 21C"}]}
ANSWER = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny, 21C."}], "finish_reason": "stop"}


def _genai_spans():
    base = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
            "gen_ai.system_instructions": SYSTEM, "gen_ai.tool.definitions": TOOLS,
            "gen_ai.request.temperature": 0.5, "gen_ai.request.max_tokens": 400}
    first = _span("00f067aa0ba902b7", "chat gpt-4o", 100, 200, {
        **base, "gen_ai.input.messages": [ASK], "gen_ai.output.messages": [CALL],
        "gen_ai.usage.input_tokens": 50, "gen_ai.usage.output_tokens": 9, "gen_ai.usage.cache_read.input_tokens": 20,
        "gen_ai.response.finish_reasons": ["tool_calls"]}, parent="aaaaaaaaaaaaaaaa")
    tool = _span("00f067aa0ba902b8", "execute_tool get_weather", 210, 220, {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.result": "sunny, 21C"}, parent="aaaaaaaaaaaaaaaa")
    second = _span("00f067aa0ba902b9", "chat gpt-4o", 230, 300, {
        **base, "gen_ai.input.messages": [ASK, CALL, RESULT], "gen_ai.output.messages": [ANSWER],
        "gen_ai.usage.input_tokens": 70, "gen_ai.usage.output_tokens": 5}, parent="aaaaaaaaaaaaaaaa")
    agent = _span("aaaaaaaaaaaaaaaa", "invoke_agent weather", 90, 310, {"gen_ai.operation.name": "invoke_agent"})
    return [second, tool, agent, first]  # a root that arrives after its children, calls out of order


def test_genai_parts_convert_to_anthropic_blocks_with_system_tools_params_and_usage(tmp_path):
    path = tmp_path / "genai.json"
    path.write_bytes(orjson.dumps(_otlp(_genai_spans())))
    [run] = load_runs(str(path))
    assert run.source.format == "otel"
    assert run.system == "You are a weather bot."
    assert run.tools == [{"name": "get_weather", "description": "Weather for a city",
                          "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    assert run.params == {"model": "gpt-4o", "temperature": 0.5, "max_tokens": 400}
    assert run.messages == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "get_weather",
                                           "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "sunny, 21C"}]},
        {"role": "assistant", "content": "Sunny, 21C."}]
    assert [c.message for c in run.calls] == [1, 3]
    assert run.calls[0].usage == {"input_tokens": 50, "output_tokens": 9, "cache_read_input_tokens": 20}
    assert run.calls[0].stop_reason == "tool_use"
    assert [request_at(run, c.message).converted for c in run.calls] == [True, True]


def test_json_lines_of_batches_and_a_json_array_of_them_give_the_same_run(tmp_path):
    spans = _genai_spans()
    lines = tmp_path / "spans.jsonl"
    lines.write_bytes(b"\n".join(orjson.dumps(_otlp([s])) for s in spans) + b"\n")
    array = tmp_path / "spans.json"
    array.write_bytes(orjson.dumps([_otlp(spans[:2]), _otlp(spans[2:])]))
    [a], [b] = load_runs(str(lines)), load_runs(str(array))
    assert a.messages == b.messages and len(a.messages) == 4
    assert [c.usage for c in a.calls] == [c.usage for c in b.calls]


def test_a_later_span_without_input_is_reconstructed_with_the_tool_span_result(tmp_path):
    spans = _genai_spans()
    for kv in spans[0]["attributes"]:
        if kv["key"] == "gen_ai.input.messages":
            spans[0]["attributes"].remove(kv)
            break
    path = tmp_path / "spans.json"
    path.write_bytes(orjson.dumps(_otlp(spans)))
    [run] = load_runs(str(path))
    assert run.messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "call_1", "content": "sunny, 21C"}]
    assert [request_at(run, c.message).converted for c in run.calls] == [True, False]
    assert any("1 did not (their prefix is reconstructed" in w.text for w in run.warnings)


def test_the_older_indexed_gen_ai_prompt_attributes_are_read(tmp_path):
    attrs = {"gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o",
             "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "Be brief.",
             "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": "Add 2 and 3",
             "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.tool_calls.0.id": "call_9",
             "gen_ai.completion.0.tool_calls.0.name": "add", "gen_ai.completion.0.tool_calls.0.arguments": '{"a":2,"b":3}',
             "gen_ai.usage.prompt_tokens": 12, "gen_ai.usage.completion_tokens": 4}
    path = tmp_path / "traceloop.json"
    path.write_bytes(orjson.dumps(_otlp([_span("0000000000000001", "openai.chat", 1, 2, attrs)])))
    [run] = load_runs(str(path))
    assert run.system == "Be brief."
    assert run.messages[1]["content"] == [{"type": "tool_use", "id": "call_9", "name": "add", "input": {"a": 2, "b": 3}}]
    assert run.calls[0].usage == {"input_tokens": 12, "output_tokens": 4}


def test_openinference_multipart_contents_are_read(tmp_path):
    attrs = {"openinference.span.kind": "LLM", "llm.model_name": "gemini-2.0-flash",
             "llm.input_messages.0.message.role": "user",
             "llm.input_messages.0.message.contents.0.message_content.type": "text",
             "llm.input_messages.0.message.contents.0.message_content.text": "hi",
             "llm.output_messages.0.message.role": "model",
             "llm.output_messages.0.message.contents.0.message_content.type": "text",
             "llm.output_messages.0.message.contents.0.message_content.text": "Hello!",
             "llm.token_count.prompt": 3, "llm.token_count.completion": 2,
             "llm.invocation_parameters": '{"temperature": 0.1}'}
    path = tmp_path / "oi.json"
    path.write_bytes(orjson.dumps(_otlp([_span("0000000000000002", "call_llm", 1, 2, attrs)])))
    [run] = load_runs(str(path))
    assert run.messages == [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}]
    assert run.params == {"temperature": 0.1, "model": "gemini-2.0-flash"}


def test_sdk_dump_trace_ids_beyond_2_to_the_53_are_read_exactly(realruns):
    path = realruns / "next" / "anyagent__OPENAI_trace.json"
    [run] = load_runs(str(path))
    exact = re.search(rb'"trace_id": (\d+)', path.read_bytes()).group(1).decode()
    assert int(exact) > 2 ** 64
    assert run.meta["trace_id"] == exact
    # spans are listed in end order (children first): the calls are in start order, the first holds the input
    assert run.messages[0]["content"].startswith("Find what year it is")
    assert run.calls[0].usage == {"input_tokens": 269, "output_tokens": 16}
    # later call_llm spans record no input: their results come from the execute_tool spans
    assert run.messages[2]["content"][0]["type"] == "tool_result"
    assert '"timezone": "America/New_York"' in run.messages[2]["content"][0]["content"]


def test_a_framework_span_around_the_provider_span_counts_once(realruns):
    # LangChain's ChatOpenAI span and OpenAI's ChatCompletion span record each of the 3 calls (6 LLM spans),
    # base64 ids, SPAN_KIND_INTERNAL enum names, 3 export batches with the root in the last one
    [run] = load_runs(str(realruns / "next" / "agentprism__quo_tav_agent.json"))
    assert len(run.calls) == 3
    assert [b["id"] for b in run.messages[1]["content"]] == ["call_kW83onhuRFzCvfhqM524IExy"]  # the provider's ids
    assert [t["name"] for t in run.tools] == ["tavily_search", "tavily_extract"]
    assert run.calls[0].model == "gpt-4o-2024-08-06"


def test_json_lines_whose_first_batch_is_longer_than_the_sniffed_head(tmp_path):
    spans = _genai_spans()
    big = "x" * 200_000  # a first export batch of megabytes is common; the sniffers see 64 KB
    spans[3]["attributes"].append(_kv("app.note", big))
    path = tmp_path / "spans.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(_otlp([s])) for s in reversed(spans)) + b"\n")
    [run] = load_runs(str(path))
    assert len(run.messages) == 4 and run.source.format == "otel"


def test_a_tool_span_with_an_error_status_gives_an_error_result(tmp_path):
    spans = _genai_spans()
    for kv in spans[0]["attributes"]:
        if kv["key"] == "gen_ai.input.messages":
            spans[0]["attributes"].remove(kv)
            break
    spans[1]["status"] = {"code": 2, "message": "timeout"}
    path = tmp_path / "spans.json"
    path.write_bytes(orjson.dumps(_otlp(spans)))
    [run] = load_runs(str(path))
    assert run.messages[2]["content"] == [{"type": "tool_result", "tool_use_id": "call_1", "content": "sunny, 21C",
                                           "is_error": True}]
