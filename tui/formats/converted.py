"""OpenAI requests and answers (Chat Completions and Responses) as Anthropic request bodies and messages.

The recorded loaders that meet OpenAI traffic (HAR recordings, Inspect logs) turn each request
into the Messages API body it would have been, so that the conversations are grouped the same
way as Anthropic exchanges are; nothing here was sent as such, and a run built from these bodies
says it was converted. The conversion itself is ``tui.formats.chat.convert`` (chat messages) and
``tui.formats.responses`` (Responses items); params and tools are renamed as the ``openai`` loader
renames them. Streamed answers are put back together: chat ``chat.completion.chunk`` deltas (tool
call arguments joined by ``index``) and the Responses ``response.completed`` event.
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.formats import openai as openai_format
from tui.formats.chat.convert import convert
from tui.formats.recorded.sse import events
from tui.formats.responses import Builder, tools_of, usage_of

#: OpenAI finish reasons under their Anthropic names.
STOPS = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens",
         "content_filter": "refusal"}
_RESPONSES_PARAMS = {"model": "model", "max_output_tokens": "max_tokens", "temperature": "temperature",
                     "top_p": "top_p", "metadata": "metadata"}


def chat_request(request: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A Chat Completions request body as the Messages API body it would have been, and notes."""
    messages = request.get("messages") if isinstance(request.get("messages"), list) else []
    converted = convert(messages)
    params, dropped = openai_format._params({k: v for k, v in request.items() if k != "extra_headers"})
    body: dict[str, Any] = dict(params)
    if converted.system is not None:
        body["system"] = converted.system
    tools = openai_format._tools(request.get("tools"))
    if tools:
        body["tools"] = tools
    body["messages"] = converted.messages
    notes = list(converted.notes)
    if dropped:
        notes.append("OpenAI params with no Anthropic equivalent left out: " + ", ".join(dropped))
    return body, notes


def chat_answer(message: Any, finish_reason: Any = None, usage: Any = None, model: Any = None) -> dict[str, Any] | None:
    """An assistant chat message (``content``, ``tool_calls``) as an Anthropic answer."""
    if not isinstance(message, dict):
        return None
    converted = convert([{**message, "role": "assistant"}])
    turn = next((m for m in converted.messages if m.get("role") == "assistant"), None)
    if turn is None:
        return None
    content = turn["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}] if content else []
    answer: dict[str, Any] = {"role": "assistant", "content": content}
    if isinstance(finish_reason, str) and finish_reason in STOPS:
        answer["stop_reason"] = STOPS[finish_reason]
    if isinstance(model, str):
        answer["model"] = model
    if isinstance(usage, dict):
        answer["usage"] = usage
    return answer


def chat_response(parsed: Any) -> dict[str, Any] | None:
    """A Chat Completions JSON response as an Anthropic answer."""
    if not isinstance(parsed, dict) or not isinstance(parsed.get("choices"), list) or not parsed["choices"]:
        return None
    choice = parsed["choices"][0] if isinstance(parsed["choices"][0], dict) else {}
    return chat_answer(choice.get("message"), choice.get("finish_reason"), parsed.get("usage"), parsed.get("model"))


def chat_stream(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Streamed ``chat.completion.chunk`` events put back together as an Anthropic answer, and problems."""
    content: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish, usage, model, problems, seen = None, None, None, [], False
    for event in events(text):
        if not isinstance(event, dict):
            continue
        if event.get("type") == "__unparsed__":
            problems.append(f"an event is not JSON ({event['data']!r})")
            continue
        seen = True
        model = event.get("model") if isinstance(event.get("model"), str) else model
        if isinstance(event.get("usage"), dict):
            usage = event["usage"]
        for choice in event.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            finish = choice.get("finish_reason") or finish
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
            if isinstance(delta.get("content"), str):
                content.append(delta["content"])
            for piece in delta.get("tool_calls") or []:
                if not isinstance(piece, dict):
                    continue
                call = calls.setdefault(piece.get("index", len(calls)), {"id": None, "type": "function",
                                                                         "function": {"name": "", "arguments": ""}})
                if isinstance(piece.get("id"), str):
                    call["id"] = piece["id"]
                function = piece.get("function") if isinstance(piece.get("function"), dict) else {}
                for key in ("name", "arguments"):
                    if isinstance(function.get(key), str):
                        call["function"][key] += function[key]
    if not seen:
        return None, problems + ["the event stream holds no chunk"]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
    if calls:
        message["tool_calls"] = [calls[k] for k in sorted(calls)]
    if finish is None:
        problems.append("the stream ends before a finish_reason (the answer may be cut short)")
    return chat_answer(message, finish, usage, model), problems


def responses_request(body: dict[str, Any]) -> tuple[dict[str, Any], Builder, list[str]]:
    """A Responses request body as a Messages API body, the builder that read its items, and notes."""
    builder = Builder()
    items = body.get("input")
    if isinstance(items, str):
        builder.input({"type": "message", "role": "user", "content": items})
    elif isinstance(items, list):
        for item in items:
            builder.add(item)
    builder.finish()
    notes = list(builder.notes)
    out: dict[str, Any] = {}
    dropped = []
    for key, value in body.items():
        if key in ("input", "instructions", "tools", "previous_response_id"):
            continue
        if key in _RESPONSES_PARAMS:
            out[_RESPONSES_PARAMS[key]] = value
        elif key == "tool_choice":
            choice = responses_tool_choice(value, body.get("parallel_tool_calls"))
            if choice is not None:
                out["tool_choice"] = choice
            else:
                dropped.append(key)
        elif key != "parallel_tool_calls":
            dropped.append(key)
    if dropped:
        notes.append("Responses params with no Anthropic equivalent left out: " + ", ".join(dropped))
    instructions = body.get("instructions")
    system = ([instructions] if isinstance(instructions, str) and instructions else []) + builder.system
    if len(system) > 1:
        notes.append("instructions and the leading system message(s) joined into one system prompt")
    if system:
        out["system"] = "\n\n".join(system)
    tools, tool_notes = tools_of(body.get("tools"))
    notes += tool_notes
    if tools:
        out["tools"] = tools
    out["messages"] = builder.messages
    previous = body.get("previous_response_id")
    if isinstance(previous, str) and previous:
        notes.append(f"this request continues response {previous} (previous_response_id): the history before "
                     "it is kept on OpenAI's server, not in this file, so the run starts partway")
    return out, builder, notes


def responses_tool_choice(value: Any, parallel: Any) -> dict[str, Any] | None:
    if isinstance(value, str):
        choice = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}.get(value)
    elif isinstance(value, dict) and value.get("type") in ("function", "custom") and isinstance(value.get("name"), str):
        choice = {"type": "tool", "name": value["name"]}
    else:
        choice = None
    if choice is not None and parallel is False and choice["type"] != "none":
        choice["disable_parallel_tool_use"] = True
    return choice


def responses_answer(response: Any) -> dict[str, Any] | None:
    """A Responses response object (``output`` items, ``usage``) as an Anthropic answer."""
    if not isinstance(response, dict) or not isinstance(response.get("output"), list):
        return None
    builder = Builder()
    for item in response["output"]:
        if isinstance(item, dict):
            builder.output(item)
    builder.end_call()
    if not builder.messages:
        return None
    answer: dict[str, Any] = {"role": "assistant", "content": builder.messages[-1]["content"]}
    kinds = {b.get("type") for b in answer["content"] if isinstance(b, dict)}
    status = response.get("status")
    answer["stop_reason"] = "tool_use" if "tool_use" in kinds else "max_tokens" if status == "incomplete" else "end_turn"
    if isinstance(response.get("model"), str):
        answer["model"] = response["model"]
    if isinstance(response.get("usage"), dict):
        answer["usage"] = usage_of(response["usage"])
    return answer


def responses_stream(text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """A streamed Responses answer: the ``response.completed`` (or last ``response.*``) event's response."""
    final = None
    problems: list[str] = []
    for event in events(text):
        if isinstance(event, dict) and isinstance(event.get("response"), dict):
            final = event["response"]
    if final is None:
        return None, ["the event stream holds no response object"]
    if final.get("status") not in ("completed", "incomplete"):
        problems.append(f"the stream ends with the response {final.get('status')!r} (the answer may be cut short)")
    return responses_answer(final), problems


def loads_or_none(text: str) -> Any:
    try:
        return jsonio.fast_loads(text)
    except jsonio.FastDecodeError:
        return None
