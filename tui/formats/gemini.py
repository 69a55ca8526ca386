"""Gemini CLI sessions (``~/.gemini/tmp/<project>/chats/session-*.json`` and ``.jsonl``).

Two forms: one JSON document (``sessionId``, ``projectHash``, ``messages``), and JSON Lines
(2026+): a header line without messages, then one message record per line, with
``{"$set": {...}}`` lines that patch the header (``$set.messages`` replaces the whole list:
a checkpoint) and message ids that repeat when a record is re-appended with more in it
(tokens, tool calls): the last copy wins, at the place of the first.

User records become user turns; each ``gemini`` record is one model call: its thoughts
(reasoning summaries) become thinking blocks, its text a text block, and the tool calls it
records, with their results, ``tool_use`` blocks answered by a user turn of ``tool_result``
blocks. The thoughts are what the call returned (``ModelCall.response``), not part of the
stored turn: the CLI does not send them back, so later prefixes hold no unsigned thinking. ``info``/``error``/``warning`` records are the CLI's own notices, not sent to the
model. Usage: ``tokens`` in the Messages API's names (``input`` less ``cached`` as
input_tokens, ``cached`` as cache reads, ``output`` plus ``thoughts`` as output_tokens).
A session records no system prompt, tool schemas or params: every prefix is reconstructed.
"""

from __future__ import annotations

from typing import Any

from tui.core.errors import LoadError
from tui.core.run import RECONSTRUCTED, LoadWarning, ModelCall, Run, Source
from tui.formats.document import Document
from tui.formats.spans import is_json_lines
from tui.formats.spans.shapes import text_of

NAME = "gemini"
DESCRIPTION = "Gemini CLI session (~/.gemini/tmp/<project>/chats/session-*.json or .jsonl)"

RECONSTRUCTED_NOTE = ("Gemini CLI session: no system prompt, tool schemas or params were recorded, so every prefix "
                      "is reconstructed from the messages (attach them with --system/--tools); converted to the "
                      "Messages API")
_NOTICES = ("info", "error", "warning")


def _is_header(value: Any) -> bool:
    return isinstance(value, dict) and "sessionId" in value and "projectHash" in value


def _shape(doc: Document) -> str | None:
    head = doc.head
    if not head.startswith(b"{") or b'"projectHash"' not in head or b'"sessionId"' not in head:
        return None
    first = doc.first_line()
    if _is_header(first):  # a one-line session document, or the header line of JSON Lines
        return "json" if isinstance(first.get("messages"), list) else "jsonl" if "messages" not in first else None
    value = None if first is not None else doc.json_or_none()
    return "json" if _is_header(value) and isinstance(value.get("messages"), list) else None


def sniff(doc: Document) -> int:
    return 95 if _shape(doc) else 0


def near_miss(doc: Document) -> str | None:
    """What a file that looks like a Gemini CLI session lacks."""
    head = doc.head
    if not head.startswith(b"{") or (b'"projectHash"' not in head and b'"sessionId"' not in head):
        return None
    value = doc.first_line() or doc.json_or_none()
    if not isinstance(value, dict) or "sessionId" not in value and "projectHash" not in value:
        return None
    if "type" in value or "parentUuid" in value:
        return None  # a line of another agent's transcript
    missing = [k for k in ("sessionId", "projectHash") if k not in value]
    if missing:
        return f"a Gemini CLI session needs both 'sessionId' and 'projectHash'; this one lacks {missing[0]!r}"
    if not is_json_lines(doc) and not isinstance(value.get("messages"), list):
        return "the session header has no 'messages' list (and no message lines follow it)"
    return None


def load(doc: Document) -> list[Run]:
    shape = _shape(doc)
    if shape == "json":
        header = doc.json()
        records = [r for r in header["messages"] if isinstance(r, dict)]
        notes: list[LoadWarning] = []
    elif shape == "jsonl":
        header, records, notes = _replay(doc)
    else:
        raise LoadError(doc.path, "not a Gemini CLI session: needs 'sessionId' and 'projectHash' (and a 'messages' "
                                  "list, or message lines after that header)", 1, 1)
    run = _run(doc.path, records)
    run.warnings += notes + doc.line_warnings
    run.meta.update({k: header[k] for k in ("sessionId", "projectHash", "kind") if isinstance(header.get(k), str)})
    if isinstance(header.get("summary"), str):
        run.source.title = header["summary"]
    return [run]


def _replay(doc: Document) -> tuple[dict[str, Any], list[dict[str, Any]], list[LoadWarning]]:
    """The header and the messages as the last line left them."""
    header: dict[str, Any] = {}
    order: dict[Any, dict[str, Any]] = {}
    repeated = patches = 0
    first = True
    for number, value in doc.iter_lines():
        if type(value) is not dict:
            continue
        if first:
            header, first = dict(value), False
            continue
        if "$set" in value and isinstance(value["$set"], dict):
            patches += 1
            patch = value["$set"]
            if isinstance(patch.get("messages"), list):
                order = {r.get("id", f"#{k}"): r for k, r in enumerate(patch["messages"]) if isinstance(r, dict)}
            header.update({k: v for k, v in patch.items() if k != "messages"})
            continue
        key = value.get("id", f"line {number}")
        if key in order:
            repeated += 1
        order[key] = value  # a dict keeps the first place of a key and takes the last value
    notes = []
    if repeated:
        notes.append(LoadWarning(f"{repeated} message record(s) written again later (updated): the last copy is used"))
    if patches:
        notes.append(LoadWarning(f"{patches} '$set' line(s) patched the session header"))
    return header, list(order.values()), notes


def _run(path: str, records: list[dict[str, Any]]) -> Run:
    messages: list[dict[str, Any]] = []
    calls: list[ModelCall] = []
    skipped: dict[str, int] = {}
    no_tools = thoughts = 0
    for record in records:
        kind = record.get("type")
        if kind == "user":
            _append(messages, "user", _user_blocks(record.get("content")))
        elif kind == "gemini":
            returned, results = _model_blocks(record)
            blocks = [b for b in returned if b["type"] != "thinking"] or [{"type": "text", "text": ""}]
            _append(messages, "assistant", blocks)
            thoughts += len(returned) - len(blocks) if len(returned) > len(blocks) else 0
            calls.append(ModelCall(message=len(messages) - 1, usage=_usage(record.get("tokens")),
                                   model=record.get("model"), started=record.get("timestamp"), derived_timing=True,  # typed
                                   stop_reason="tool_use" if results else None,
                                   response=returned if len(returned) != len(blocks) else None))
            if results:
                messages.append({"role": "user", "content": results})
            elif "toolCalls" not in record:
                no_tools += 1
        else:
            skipped[str(kind)] = skipped.get(str(kind), 0) + 1
    warnings = [LoadWarning(RECONSTRUCTED_NOTE)]
    if thoughts:
        warnings.append(LoadWarning(f"{thoughts} thought(s) (reasoning summaries) are kept as thinking blocks in what "
                                    "each model call returned, not in the turns sent back: Gemini CLI does not "
                                    "send them to the model again"))
    if skipped:
        warnings.append(LoadWarning("skipped records not sent to the model: "
                                    + ", ".join(f"{n} {k}" for k, n in skipped.items())))
    if no_tools and any(m["role"] == "assistant" for m in messages[1:]) and _consecutive(messages):
        warnings.append(LoadWarning("model turns follow one another without a user turn between them: this session "
                                    "recorded no tool calls (older Gemini CLI versions did not), so the tool calls "
                                    "and results between them are missing"))
    return Run(messages=messages, calls=calls, warnings=warnings,
               source=Source(path=path, format=NAME, prefix=RECONSTRUCTED))


def _consecutive(messages: list[dict[str, Any]]) -> bool:
    return any(a["role"] == b["role"] == "assistant" for a, b in zip(messages, messages[1:]))


def _append(messages: list[dict[str, Any]], role: str, blocks: list[Any]) -> None:
    """A user record right after a turn of tool results joins it (after them), as the API would see it."""
    previous = messages[-1] if messages else None
    if role == "user" and previous is not None and previous["role"] == "user":
        previous["content"] = previous["content"] + blocks
        return
    messages.append({"role": role, "content": blocks})


def _user_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            blocks.append({"type": "text", "text": part["text"]})
        elif isinstance(part, str):
            blocks.append({"type": "text", "text": part})
        elif (kept := _kept_part(part)) is not None:
            blocks.append(kept)
        elif part is not None:
            blocks.append({"type": "text", "text": text_of(part)})
    return blocks or [{"type": "text", "text": ""}]


def _kept_part(part: Any) -> dict[str, Any] | None:
    """A Gemini part of a kind not read here (``inlineData``, ``fileData``, ``executableCode``, a newer
    one): each part holds its data under one field, so it is kept whole as a block typed by that field
    (shown as raw JSON under that name), not flattened into text nor dropped."""
    if isinstance(part, dict) and len(part) == 1:
        (field,) = part
        if isinstance(field, str) and field not in ("text", "type"):
            return {"type": field, **part}
    return None


def _model_blocks(record: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    blocks: list[Any] = []
    for thought in record.get("thoughts") or ():
        if type(thought) is dict:
            subject, description = thought.get("subject"), thought.get("description")
            if subject and description:
                text = f"**{subject}**\n{description}"
            else:
                text = f"**{subject}**" if subject else str(description or "")
            blocks.append({"type": "thinking", "thinking": text, "signature": ""})
    content = record.get("content")
    text = content if isinstance(content, str) else "".join(
        p.get("text", "") for p in content if isinstance(p, dict)) if isinstance(content, list) else ""
    if text:
        blocks.append({"type": "text", "text": text})
    if isinstance(content, list):
        blocks += [kept for p in content if (kept := _kept_part(p)) is not None]
    results: list[Any] = []
    for k, call in enumerate(record.get("toolCalls") or []):
        if not isinstance(call, dict):
            continue
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"gemini_{k}"
        args = call.get("args")
        blocks.append({"type": "tool_use", "id": call_id, "name": call.get("name"),
                       "input": args if isinstance(args, dict) else {"_raw_arguments": text_of(args)}})
        results.append(_result(call_id, call))
    return blocks, results


def _result(call_id: str, call: dict[str, Any]) -> dict[str, Any]:
    texts, error = [], call.get("status") in ("error", "cancelled")
    for item in call.get("result") or []:
        response = item.get("functionResponse", {}).get("response") if isinstance(item, dict) else None
        if isinstance(response, dict):
            if "error" in response:
                error = True
                texts.append(text_of(response["error"]))
            elif "output" in response:
                texts.append(text_of(response["output"]))
            else:
                texts.append(text_of(response))
        elif item is not None:
            texts.append(text_of(item))
    if not texts and isinstance(call.get("resultDisplay"), str):
        texts.append(call["resultDisplay"])
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": "\n".join(texts)}
    if error:
        block["is_error"] = True
    return block


def _usage(tokens: Any) -> dict[str, Any] | None:
    if type(tokens) is not dict:
        return None
    given, cached, output, thoughts = (tokens.get(k) for k in ("input", "cached", "output", "thoughts"))
    given, cached, output, thoughts = (v if type(v) is int else 0 for v in (given, cached, output, thoughts))
    return {"input_tokens": max(given - cached, 0), "cache_read_input_tokens": cached,
            "output_tokens": output + thoughts}
