"""Model calls read from spans (or trace observations) assembled into runs.

Each ``LLMCall`` holds what one span recorded: its input messages where it recorded them
(OpenAI chat messages, system messages included), its output, tools, params, model and
usage. In start-time order, a call whose input starts the way a conversation started
continues it (its input is the request it was sent); a call whose input starts with tool
results continues the latest one with those messages; a call that recorded no input
continues the latest one, its prefix rebuilt from the run, with the results of the previous
call's tool calls taken from the tool spans (``ToolRun``). A call whose input starts
otherwise starts another conversation: another run.

The conversation is converted to Anthropic blocks once (``tui.formats.chat.convert``); a
call whose span recorded its input keeps a ``RecordedRequest`` marked ``converted`` (the
request as recorded, in another API's shape), the others none (reconstructed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.core.run import RECONSTRUCTED, LoadWarning, ModelCall, RecordedRequest, Run, Source
from tui.formats.chat.convert import convert
from tui.formats.openai import _params, _tools
from tui.formats.spans.shapes import decoded, text_of


@dataclass
class LLMCall:
    """One model call as a span recorded it."""

    start: Any
    where: str  # e.g. "span 'ChatOpenAI' (3f2a...)" for warnings
    end: Any = None
    input: list[dict[str, Any]] | None = None
    output: dict[str, Any] | None = None
    system: str | None = None
    tools: list[Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] | None = None
    model: str | None = None
    stop_reason: str | None = None
    started: str | None = None
    duration_ms: float | None = None
    request_id: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class ToolRun:
    """One tool execution a span recorded."""

    start: Any
    call_id: str | None
    name: str | None
    result: Any
    error: bool = False
    args: Any = None
    used: bool = False


@dataclass
class _Conversation:
    chat: list[dict[str, Any]] = field(default_factory=list)
    system: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[LLMCall, int, int | None]] = field(default_factory=list)  # call, ordinal, recorded length
    warnings: list[LoadWarning] = field(default_factory=list)
    failed: set[str] = field(default_factory=set)  # tool call ids whose tool span ended in an error


def tools_of(raw: Any) -> list[Any] | None:
    """Tool definitions in OpenAI (``{type, function}``), GenAI (``{type, name, parameters}``) or
    Anthropic form, as Anthropic tool schemas."""
    if not isinstance(raw, list) or not raw:
        return None
    out = []
    for tool in raw:
        tool = decoded(tool)
        if isinstance(tool, dict) and "function" not in tool and "input_schema" not in tool and "name" in tool:
            schema = next((tool[k] for k in ("parameters", "inputSchema", "parametersJsonSchema", "parameters_json_schema")
                           if isinstance(tool.get(k), dict)), None)
            function = {k: v for k, v in tool.items() if k in ("name", "description", "strict")}
            tool = {"type": "function", "function": {**function, "parameters": schema}}
        out.append(tool)
    return _tools(out)


def _head(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("role") not in ("system", "developer")]


def _same_start(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("role") == b.get("role") and text_of(a.get("content")).strip() == text_of(b.get("content")).strip()


def build_runs(calls: list[LLMCall], tools: list[ToolRun], path: str, fmt: str, note: str,
               title: str | None = None) -> list[Run]:
    tools = sorted(tools, key=lambda t: t.start)
    by_id: dict[str, ToolRun] = {}
    for tool in tools:
        if tool.call_id:
            by_id.setdefault(tool.call_id, tool)
    calls = _back_to_back(sorted(calls, key=lambda c: c.start))
    conversations: list[_Conversation] = []
    for k, call in enumerate(calls):
        conv, recorded = _place(call, conversations, tools, by_id)
        conv.warnings += [LoadWarning(note) for note in call.notes]
        ordinal = sum(1 for m in conv.chat if m.get("role") == "assistant")
        output = call.output
        if output is None:
            output = _from_tools(call, calls[k + 1].start if k + 1 < len(calls) else None, tools)
            if output is not None:
                conv.warnings.append(LoadWarning(f"{call.where} recorded no output: its tool calls are rebuilt from "
                                                 "the tool observations that followed it"))
        if output is None:
            conv.warnings.append(LoadWarning(f"{call.where} recorded no output: its answer is an empty turn here"))
            output = {"role": "assistant", "content": ""}
        output = _with_ids(output, len(conv.calls))
        conv.calls.append((call, ordinal, recorded))
        conv.chat.append(output)
    runs = []
    for conv in conversations:
        if conv.calls:
            _answer(conv, tools, by_id, None)  # results after the last call: the next request's
            runs.append(_run(conv, path, fmt, note, title))
    for k, run in enumerate(runs):
        run.source.run_index, run.source.run_count = k, len(runs)
    if len(runs) > 1:
        runs[0].warnings.insert(1, LoadWarning(f"{len(runs)} conversations in this trace (calls whose inputs start "
                                               "differently): one run each (`turnscope list`)"))
    return runs


def fill_from_outer(outer: LLMCall, inner: list[LLMCall]) -> None:
    """The same call recorded by an outer (framework) span and inner (provider) ones: what the inner
    spans lack is taken from the outer: its input for the first, its output for the last."""
    inner = sorted(inner, key=lambda c: c.start)
    if inner[0].input is None and outer.input is not None:
        inner[0].input = outer.input
    if inner[-1].output is None and outer.output is not None:
        inner[-1].output = outer.output
    for call in inner:
        call.tools = call.tools or outer.tools
        call.system = call.system or outer.system
        call.params = call.params or outer.params
        call.model = call.model or outer.model
        call.usage = call.usage or (outer.usage if len(inner) == 1 else None)


def _back_to_back(calls: list[LLMCall]) -> list[LLMCall]:
    """Calls that recorded no input, each starting the moment the previous one ended and with no tool
    result between them, are one response recorded block by block (the Claude Agent SDK's turns): one call."""
    out: list[LLMCall] = []
    for call in calls:
        previous = out[-1] if out else None
        if previous is not None and call.input is None and previous.end is not None and call.start == previous.end \
                and previous.output is not None and call.output is not None:
            merged = _joined_output(previous.output, call.output)
            usage = None
            if previous.usage and call.usage:
                usage = {k: previous.usage.get(k, 0) + call.usage.get(k, 0) for k in {**previous.usage, **call.usage}}
            note = (f"{call.where} began as {previous.where} ended: one response recorded in parts, joined into "
                    "one turn" + ("; its usage is the sum of the parts'" if usage else ""))
            out[-1] = LLMCall(start=previous.start, where=previous.where, end=call.end, input=previous.input,
                              output=merged, system=previous.system, tools=previous.tools or call.tools,
                              params=previous.params or call.params, usage=usage, model=previous.model or call.model,
                              stop_reason=call.stop_reason, started=previous.started, request_id=previous.request_id,
                              notes=previous.notes + [note])
        else:
            out.append(call)
    return out


def _joined_output(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    texts = [m["content"] for m in (a, b) if isinstance(m.get("content"), str) and m["content"]]
    out: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
    calls = (a.get("tool_calls") or []) + (b.get("tool_calls") or [])
    if calls:
        out["tool_calls"] = calls
    return out


def _from_tools(call: LLMCall, until: Any, tools: list[ToolRun]) -> dict[str, Any] | None:
    """The tool calls of a call that recorded no output, from the tool runs between it and the next call."""
    found = [t for t in tools if not t.used and call.start <= t.start and (until is None or t.start <= until)]
    if not found:
        return None
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": t.call_id, "type": "function",
                            "function": {"name": t.name, "arguments": t.args if isinstance(t.args, str)
                                         else text_of(t.args if t.args is not None else {})}} for t in found]}


def pair_ids(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool calls recorded without ids get one (``call_<message>_<k>``), and results recorded without
    the id of their call take it from the open calls before them (by name, else in order)."""
    out = []
    open_calls: list[dict[str, Any]] = []
    for i, message in enumerate(chat):
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = [c if c.get("id") else {**c, "id": f"call_{i}_{k}"} for k, c in enumerate(message["tool_calls"])]
            if any(c is not o for c, o in zip(calls, message["tool_calls"])):
                message = {**message, "tool_calls": calls}
            open_calls = list(calls)
        elif role == "tool":
            given = message.get("tool_call_id")
            if given:
                open_calls = [c for c in open_calls if c["id"] != given]
            elif open_calls:
                name = message.get("name")
                match = next((c for c in open_calls if name and c["function"].get("name") == name), open_calls[0])
                open_calls.remove(match)
                message = {**message, "tool_call_id": match["id"]}
        out.append(message)
    return out


def _place(call: LLMCall, conversations: list[_Conversation], tools: list[ToolRun],
           by_id: dict[str, ToolRun]) -> tuple[_Conversation, int | None]:
    """The conversation ``call`` continues (made when new), and how many chat messages it recorded."""
    given = call.input
    if given:
        head = _head(given)
        system = [m for m in given if m.get("role") in ("system", "developer")]
        if head and head[0].get("role") in ("tool", "assistant") and conversations:  # only the new messages
            conv = conversations[-1]
            conv.chat += head
            conv.warnings.append(LoadWarning(f"{call.where} recorded only the messages new since the previous call; "
                                             "its prefix is rebuilt from the run"))
            return conv, None
        for conv in reversed(conversations):
            if conv.chat and head and _same_start(conv.chat[0], head[0]):
                had = sum(1 for m in conv.chat if m.get("role") == "assistant")
                if sum(1 for m in head if m.get("role") == "assistant") < had:  # it left out an earlier answer
                    same = 0
                    while same < min(len(head), len(conv.chat)) and _same_start(head[same], conv.chat[same]):
                        same += 1
                    conv.chat += head[same:]
                    conv.warnings.append(LoadWarning(f"{call.where} recorded an input without an earlier answer "
                                                     "of the run; its prefix is rebuilt from the run"))
                    return conv, None
                conv.chat = list(head)
                if system or call.system is None:
                    conv.system = system or conv.system
                return conv, len(head)
        conv = _Conversation(chat=list(head), system=system)
        conversations.append(conv)
        return conv, len(head)
    if not conversations:
        conversations.append(_Conversation())
    conv = conversations[-1]
    if conv.calls:
        _answer(conv, tools, by_id, call.start)
    return conv, None


def _with_ids(message: dict[str, Any], k: int) -> dict[str, Any]:
    """Tool calls recorded without an id get one, so that their results can name it."""
    calls = message.get("tool_calls")
    if not calls or all(c.get("id") for c in calls):
        return message
    fixed = [c if c.get("id") else {**c, "id": f"call_{k}_{j}"} for j, c in enumerate(calls)]
    return {**message, "tool_calls": fixed}


def _answer(conv: _Conversation, tools: list[ToolRun], by_id: dict[str, ToolRun], before: Any) -> None:
    """The tool results for the last assistant turn's calls, from the tool spans (by call id, else the
    first unused run of that tool since the call), where the chat has none."""
    last = conv.chat[-1] if conv.chat else None
    if not last or last.get("role") != "assistant" or not last.get("tool_calls"):
        return
    after = conv.calls[-1][0].start
    missing = 0
    for call in list(last["tool_calls"]):
        name = call["function"].get("name")
        found = by_id.get(call["id"])
        if found is None or found.used:
            found = next((t for t in tools if not t.used and t.name == name and after <= t.start
                          and (before is None or t.start <= before)), None)
        if found is None:
            missing += 1
            continue
        found.used = True
        conv.chat.append({"role": "tool", "tool_call_id": call["id"], "content": text_of(found.result)})
        if found.error:
            conv.failed.add(call["id"])
    if missing:
        conv.warnings.append(LoadWarning(f"{missing} tool call(s) of model call {len(conv.calls)} have no recorded "
                                         "result (no tool span, no later input)"))


def _run(conv: _Conversation, path: str, fmt: str, note: str, title: str | None) -> Run:
    converted = convert(pair_ids(conv.system + conv.chat))
    messages = converted.messages
    if conv.failed:  # a tool span with an error status: its result is an error result
        for message in messages:
            for block in message.get("content") if isinstance(message.get("content"), list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id") in conv.failed:
                    block["is_error"] = True
    assistants = [i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"]
    last_call = conv.calls[-1][0]
    tools = tools_of(next((c.tools for c, _, _ in reversed(conv.calls) if c.tools), None))
    params, dropped = _params(next((c.params for c, _, _ in reversed(conv.calls) if c.params), {}))
    system = converted.system
    if system is None:
        system = next((c.system for c, _, _ in reversed(conv.calls) if c.system), None)
    warnings = [LoadWarning(note)] + [LoadWarning(n) for n in converted.notes] + conv.warnings
    if dropped:
        warnings.append(LoadWarning("params with no Messages API equivalent left out: " + ", ".join(sorted(dropped))))
    calls = []
    recorded_count = 0
    for call, ordinal, recorded in conv.calls:
        if ordinal >= len(assistants):
            continue
        index = assistants[ordinal]
        request = None
        if recorded is not None:
            request = _recorded(call, index, messages, system, tools, conv)
            if request is None:
                warnings.append(LoadWarning(f"{call.where}: its recorded input does not line up with the run; "
                                            "its prefix is reconstructed", index=index))
            else:
                recorded_count += 1
        calls.append(ModelCall(message=index, usage=call.usage, stop_reason=call.stop_reason or _stop(messages[index]),
                               model=call.model, started=call.started, duration_ms=call.duration_ms,
                               request_id=call.request_id, request=request))
    rebuilt = len(calls) - recorded_count
    warnings.insert(1, LoadWarning(
        f"{recorded_count} of {len(calls)} model call(s) recorded their input (their prefix is that input, converted); "
        f"{rebuilt} did not (their prefix is reconstructed from the run)"))
    if "model" not in params and last_call.model:
        params = {"model": last_call.model, **params}
    return Run(messages=messages, system=system, tools=tools, params=params, calls=calls, warnings=warnings,
               source=Source(path=path, format=fmt, prefix=RECONSTRUCTED, title=title))


def _recorded(call: LLMCall, index: int, messages: list[Any], system: Any, tools: Any,
              conv: _Conversation) -> RecordedRequest | None:
    """The request ``call`` recorded, as its difference from the run (None: it does not fit the run).

    Where the recorded input is, message for message, the start of the run's own chat messages (a
    loop that resends its history), its conversion is the start of the run's: nothing to convert again."""
    given = call.input or []
    head = _head(given)
    own_system: Any = None
    given_system = [m for m in given if m.get("role") in ("system", "developer")]
    if conv.chat[:len(head)] == head and given_system in ([], conv.system):
        request = RecordedRequest(messages=index, converted=True)
        if not given_system:
            own_system = call.system
    else:
        own = convert(pair_ids(given))
        if len(own.messages) != index:
            return None
        request = RecordedRequest(messages=index, converted=True)
        request.replaced = {i: m for i, m in enumerate(own.messages) if m != messages[i]}
        own_system = own.system if own.system is not None else call.system
    if own_system is not None and own_system != system:
        request.system = own_system
    own_tools = tools_of(call.tools)
    if own_tools is not None and own_tools != tools:
        request.tools = own_tools
    return request


def _stop(message: Any) -> str | None:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content):
        return "tool_use"
    return None
