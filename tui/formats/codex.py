"""OpenAI Codex CLI session rollouts, and OpenAI Responses API request bodies and input lists.

A rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``, or under ``$CODEX_HOME``) is JSON
lines ``{"timestamp", "type", "payload"}``: ``session_meta`` first (the session's instructions:
``base_instructions.text``, or the older ``instructions`` string, become the system prompt),
``turn_context`` (model and reasoning effort), ``response_item`` (the model-visible history,
converted by ``tui.formats.responses``), ``event_msg`` (what the UI showed) and ``compacted``.

- Model calls are delimited by the ``token_count`` events written right after each call's
  outputs; the call's usage is the event's ``last_token_usage`` (a repeated event with the same
  totals is the same call). Without them (a trimmed file) a call ends where the next input starts,
  and model and usage are unknown: said so.
- ``event_msg`` repeats what the response items hold (``user_message``, ``agent_message``,
  ``agent_reasoning``): counted once. A user prompt that exists only as an ``event_msg`` is kept.
- A ``compacted`` line starts a new run: the model saw its ``replacement_history`` (or the summary
  message) and what followed, not the lines before it; the part before is a further run.
- Tool schemas and sampling params are not recorded (as in a Claude Code transcript): every prefix
  is reconstructed, and each run says so.

A Responses request body (``input`` plus ``instructions``, ``tools``, params) and a bare ``input``
list load the same way; a ``previous_response_id`` names history kept on OpenAI's server, not in
the file, and a warning says so.
"""

from __future__ import annotations

from typing import Any, Iterator

from tui.core.errors import LoadError
from tui.core.run import RECONSTRUCTED, LoadWarning, Run, Source
from tui.core import jsonio
from tui.formats.document import SKIPPED, Document
from tui.formats.converted import responses_request
from tui.formats.responses import KNOWN_TYPES, Builder, is_output, usage_of

NAME = "codex"
DESCRIPTION = "OpenAI Codex CLI session rollout (~/.codex/sessions), or a Responses API request body / input list"

ROLLOUT_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
ROLLOUT_NOTE = ("Codex rollout: no tool schemas or sampling params were recorded, so every prefix is reconstructed "
                "from the response items, converted from the Responses format (attach schemas with --tools)")
BODY_NOTE = ("converted from an OpenAI Responses request: function_call items became tool_use blocks, their outputs "
             "tool_result blocks, instructions the system prompt; prefixes are reconstructed")


def _is_rollout_line(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in ROLLOUT_TYPES and isinstance(value.get("payload"), dict)


def _near_miss(value: Any) -> str | None:
    """What a first line that is almost a rollout line lacks, or None."""
    if not isinstance(value, dict) or value.get("type") not in ROLLOUT_TYPES:
        return None
    if "payload" not in value:
        return f"line 1 is a {value['type']!r} line without its 'payload' object"
    return f"line 1 is a {value['type']!r} line whose 'payload' is not an object"


def _is_item(value: Any) -> bool:
    """A Responses item with a shape of its own (a plain role/content message is the chat loader's too)."""
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("type"), str) and value["type"] in KNOWN_TYPES and value["type"] != "message":
        return True
    content = value.get("content")
    return isinstance(value.get("role"), str) and isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "input_image") for p in content)


def _responses_shape(value: Any) -> str | None:
    if isinstance(value, dict) and "messages" not in value and "turnscope" not in value:
        items = value.get("input")
        if isinstance(items, list) and (any(_is_item(i) for i in items) or "instructions" in value):
            return "body"
        if isinstance(items, str) and ("instructions" in value or "max_output_tokens" in value):
            return "body"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value) and any(map(_is_item, value)):
        return "input"
    return None


def sniff(doc: Document) -> int:
    head = doc.head
    if head.startswith(b"{"):
        lines = doc.first_lines(2) or [doc.first_line()]
        first = lines[0] if lines else None
        if _is_rollout_line(first):
            return 95 if first.get("type") == "session_meta" else 85
        if doc.is_json_lines():
            return 5 if _near_miss(first) else 0
        if b'"input"' in head:
            return 70 if _responses_shape(doc.json_or_none()) else 0
        return 0
    if head.startswith(b"["):
        return 70 if _responses_shape(doc.json_or_none()) else 0
    return 0


def load(doc: Document) -> list[Run]:
    if doc.head.startswith(b"["):
        value = doc.json()
        if not isinstance(value, list):
            raise LoadError(doc.path, "not a Responses input list", 1, 1)
        return [_from_body({"input": value}, doc.path)]
    first = doc.first_lines(1) or [doc.first_line()]
    first_value = first[0] if first else None
    if not _is_rollout_line(first_value) and doc.is_json_lines():
        raise LoadError(doc.path, "not a Codex rollout: " + (_near_miss(first_value) or "the first line is not "
                        '{"timestamp", "type": "session_meta", "payload": {...}}'), 1, 1)
    if not _is_rollout_line(first_value) and not doc.is_json_lines():
        value = doc.json()
        if not isinstance(value, dict) or not isinstance(value.get("input"), (list, str)):
            raise LoadError(doc.path, "not a Codex rollout or a Responses request: a rollout's first line is "
                                      '{"type": "session_meta", "payload": {...}}, a request body needs an '
                                      "'input' list", 1, 1)
        return [_from_body(value, doc.path)]
    return _Rollout(doc).runs()


# -- rollouts ----------------------------------------------------------------------------


class _Segment:
    """The part of a rollout between compactions: one run."""

    def __init__(self, start: int, facts: dict[str, Any]) -> None:
        self.builder = Builder(call_facts=facts)
        self.start = start
        self.compacted_at: int | None = None
        self.prompt: str | None = None


class _Rollout:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.meta: dict[str, Any] = {}
        self.instructions: Any = None
        self.model: str | None = None
        self.effort: str | None = None
        self.facts: dict[str, Any] = {}
        self.warnings: list[LoadWarning] = []
        self.skipped: dict[str, int] = {}
        self.usage_events = 0
        self.turn_contexts = 0
        self.from_events = 0

    def runs(self) -> list[Run]:
        doc = self.doc
        segments = [_Segment(1, self.facts)]
        last_total: Any = None
        seen_user: set[str] = set()
        seen_agent: set[str] = set()
        pending: list[tuple[str, str]] = []  # (role, text) of event_msg messages no response item held yet

        def flush(builder: Builder) -> None:
            for role, text in pending:
                self.from_events += 1
                if role == "user":
                    builder.input({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
                else:
                    builder.output({"type": "message", "role": "assistant",
                                    "content": [{"type": "output_text", "text": text}]})
            pending.clear()

        for number, line in _lines(doc):
            if not isinstance(line, dict):
                self._skip("line that is not an object")
                continue
            kind, payload = line.get("type"), line.get("payload")
            if not isinstance(payload, dict):
                self._skip(f"{kind} line without a payload")
                continue
            segment = segments[-1]
            builder = segment.builder
            if kind == "response_item":
                item_type = payload.get("type")
                if item_type == "ghost_snapshot":
                    self._skip("ghost_snapshot (a git snapshot the harness took, not model-visible)")
                    continue
                if item_type == "compaction":
                    self._skip("compaction item (the encrypted summary of a compacted history)")
                    continue
                role = payload.get("role")
                if item_type == "message" and role in ("user", "assistant"):
                    texts = _message_texts(payload.get("content"))
                    (seen_user if role == "user" else seen_agent).update(texts)
                    if pending:
                        pending[:] = [p for p in pending if not (p[0] == role and p[1].strip() in texts)]
                    output = role == "assistant"
                else:
                    output = is_output(payload)
                if pending and (output or pending[0][0] == "assistant"):
                    flush(builder)
                if output:
                    if not builder.in_call:
                        stamp = line.get("timestamp")
                        self.facts["started"] = stamp if isinstance(stamp, str) else None
                    builder.output(payload)
                else:
                    builder.input(payload)
                if segment.prompt is None and role == "user":
                    segment.prompt = _prompt(payload.get("content"))
            elif kind == "event_msg":
                event = payload.get("type")
                if event == "token_count":
                    info = payload.get("info")
                    if not isinstance(info, dict):
                        continue
                    total = info.get("total_token_usage")
                    if total is not None and total == last_total:
                        continue  # the same call's count, written again
                    last_total = total
                    if pending:
                        flush(builder)
                    self.usage_events += 1
                    usage = usage_of(info.get("last_token_usage"))
                    call = builder.end_call(usage=usage)
                    if call is None and builder.calls and builder.calls[-1].usage is None:
                        builder.calls[-1].usage = usage  # the call was closed by the input after it
                elif event in ("user_message", "agent_message"):
                    text = payload.get("message")
                    role = "user" if event == "user_message" else "assistant"
                    if isinstance(text, str) and text.strip() and \
                            text.strip() not in (seen_user if role == "user" else seen_agent):
                        if pending and pending[-1][0] != role:
                            flush(builder)
                        pending.append((role, text))
                        if role == "user" and segment.prompt is None:
                            segment.prompt = text
            elif kind == "turn_context":
                self.turn_contexts += 1
                self._turn(payload)
            elif kind == "session_meta":
                self._session(payload, number)
            elif kind == "compacted":
                flush(builder)
                segments.append(self._compacted(payload, number))
            else:
                self._skip(f"{kind!r} line")
        flush(segments[-1].builder)
        return self._runs(segments)

    def _skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def _session(self, payload: dict[str, Any], number: int) -> None:
        if self.meta:
            self.warnings.append(LoadWarning("a second session_meta line (a resumed or forked session); the first "
                                             "one's instructions are kept", line=number))
            return
        for key, name in (("id", "session_id"), ("cli_version", "codex_version"), ("originator", "originator"),
                          ("model_provider", "model_provider"), ("cwd", "cwd"), ("forked_from_id", "forked_from")):
            if isinstance(payload.get(key), str):
                self.meta[name] = payload[key]
        base = payload.get("base_instructions")
        if isinstance(base, dict) and isinstance(base.get("text"), str):
            self.instructions = base["text"]
        elif isinstance(payload.get("instructions"), str):
            self.instructions = payload["instructions"]

    def _turn(self, payload: dict[str, Any]) -> None:
        if isinstance(payload.get("model"), str):
            self.model = payload["model"]
            self.facts["model"] = self.model
        effort = payload.get("effort")
        mode = payload.get("collaboration_mode")
        if not isinstance(effort, str) and isinstance(mode, dict) and isinstance(mode.get("settings"), dict):
            effort = mode["settings"].get("reasoning_effort")
        if isinstance(effort, str):
            self.effort = effort

    def _compacted(self, payload: dict[str, Any], number: int) -> _Segment:
        segments_end = _Segment(number, self.facts)
        segments_end.compacted_at = number
        history = payload.get("replacement_history")
        builder = segments_end.builder
        if isinstance(history, list):
            for item in history:
                builder.add(item)
        elif isinstance(payload.get("message"), str):
            builder.input({"type": "message", "role": "user",
                           "content": [{"type": "input_text", "text": payload["message"]}]})
        return segments_end

    def _runs(self, segments: list[_Segment]) -> list[Run]:
        doc = self.doc
        common: list[LoadWarning] = []
        if not self.usage_events:
            common.append(LoadWarning("no token_count events: model calls are read from the item order alone "
                                      "and their usage is unknown"))
        if not self.turn_contexts:
            common.append(LoadWarning("no turn_context lines: the model is unknown"))
        if self.from_events:
            common.append(LoadWarning(f"{self.from_events} message(s) kept from event_msg lines (no response_item "
                                      "holds them)"))
        if self.skipped:
            kinds = ", ".join(f"{n} {k}" for k, n in self.skipped.items())
            common.append(LoadWarning(f"left out, not sent to the model: {kinds}"))
        runs = []
        count = len(segments)
        for k, segment in enumerate(reversed(segments)):
            builder = segment.builder
            builder.end_call()
            builder.finish()
            if not builder.messages:
                continue
            system = "\n\n".join(([self.instructions] if isinstance(self.instructions, str) else []) + builder.system)
            warnings = [LoadWarning(ROLLOUT_NOTE)]
            if segment.compacted_at is not None:
                warnings.append(LoadWarning("the session was compacted here: this run starts from the replacement "
                                            "history, which is all the model saw of what came before",
                                            line=segment.compacted_at))
            warnings += [LoadWarning(n) for n in builder.notes]
            if k == 0:
                warnings += common + doc.line_warnings
            meta = dict(self.meta)
            if self.effort:
                meta["reasoning_effort"] = self.effort
            title = _title(segment.prompt)
            if k > 0 and count > 1:
                where = segments[count - 1 - k + 1].compacted_at
                title = f"before the compaction at line {where}: {title or '(no prompt text)'}"
            runs.append(Run(messages=builder.messages, calls=builder.calls, system=system or None,
                            params={"model": self.model} if self.model else {}, warnings=warnings, meta=meta,
                            source=Source(path=doc.path, format=NAME, prefix=RECONSTRUCTED, title=title)))
        for k, run in enumerate(runs):
            run.source.run_index, run.source.run_count = k, len(runs)
        return runs


def _message_texts(content: Any) -> set[str]:
    """The texts of a message item (each part, and all parts joined), stripped: an event_msg repeating
    one of them is the same message."""
    parts = content if isinstance(content, list) else [{"text": content}]
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    found = {t.strip() for t in texts}
    found.add("".join(texts).strip())
    return found


#: How an event line starts (after its timestamp), and the events the loader reads: the others (command
#: output the response items hold too, UI notices) are most of a rollout's bytes.
_EVENT = b'"type":"event_msg","payload":{"type":"'
_USED_EVENTS = (b"token_count", b"user_message", b"agent_message")


def _lines(doc: Document) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of the lines the loader reads: event lines it has no use for are known by
    their opening bytes and never parsed, nor is a token_count line that repeats the one before it byte
    for byte; a line that does not parse is a warning naming it (``Document.bad_line``).

    Each line is parsed where it lies in the file's bytes (a memoryview slice, no copy): splitting a
    100 MB rollout into lines first copied all of it, and most of it is dropped at once."""
    parse, error = jsonio.fast_loads, jsonio.FastDecodeError
    data = doc.data
    view = memoryview(data)
    find, size = data.find, len(data)
    previous = b""
    start, number = 0, 0
    while start < size:
        end = find(b"\n", start)
        if end < 0:
            end = size
        number += 1
        line_start, start = start, end + 1
        at = find(_EVENT, line_start, min(line_start + 120, end))
        if at >= 0:
            kind_start = at + len(_EVENT)
            quote = find(b'"', kind_start, min(kind_start + 40, end))
            kind = data[kind_start:quote if quote >= 0 else end - 1]
            if kind not in _USED_EVENTS:
                continue
            if kind == b"token_count":
                raw = data[line_start:end]
                if raw == previous:
                    continue
                previous = raw
        try:
            value = parse(view[line_start:end])
        except error:
            value = doc.bad_line(data[line_start:end], number)
            if value is SKIPPED:
                continue
        yield number, value


def _prompt(content: Any) -> str | None:
    """The first words the user wrote, skipping the context Codex sends as user messages."""
    parts = content if isinstance(content, list) else [{"text": content}]
    for part in parts:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and text.strip() and not text.lstrip().startswith(("<", "# AGENTS.md")):
            return text
    return None


def _title(prompt: str | None) -> str | None:
    if not prompt:
        return None
    words = " ".join(prompt.split())
    return words if len(words) <= 80 else words[:79] + "…"


# -- request bodies and input lists ------------------------------------------------------


def _from_body(body: dict[str, Any], path: str) -> Run:
    converted, builder, notes = responses_request(body)
    warnings = [LoadWarning(BODY_NOTE)] + [LoadWarning(n) for n in notes]
    params = {k: v for k, v in converted.items() if k not in ("system", "tools", "messages")}
    return Run(messages=builder.messages, calls=builder.calls, system=converted.get("system"),
               tools=converted.get("tools"), params=params, warnings=warnings,
               source=Source(path=path, format=NAME, prefix=RECONSTRUCTED))
