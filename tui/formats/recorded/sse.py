"""A streamed Messages API answer (raw server-sent events) put back together as one message.

The stream is ``message_start`` (the message without content), then per block
``content_block_start`` / ``content_block_delta``... / ``content_block_stop``, then
``message_delta`` (stop reason, final usage) and ``message_stop``. Deltas append to the block
field they name (``text_delta`` -> ``text``, ``thinking_delta`` -> ``thinking``,
``signature_delta`` -> ``signature``, and so on); ``input_json_delta`` pieces are joined and
parsed once the block stops; ``citations_delta`` adds one citation. An ``error`` event, or a
stream that stops before ``message_stop``, is reported rather than hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.core import jsonio
from tui.core.blocks import TOOL_USE_TYPES

#: Block types whose input arrives as ``input_json_delta`` pieces.
_INPUT_BLOCKS = TOOL_USE_TYPES


@dataclass
class Stream:
    """A streamed (SSE) response put back together: the message, or the error, and what was wrong with the
    stream."""

    message: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    complete: bool = False


def events(text: str):
    """The JSON payload of every ``data:`` line (``[DONE]`` and blank payloads skipped)."""
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if not payload or payload == "[DONE]":
            continue
        try:
            yield jsonio.fast_loads(payload)
        except jsonio.FastDecodeError:
            yield {"type": "__unparsed__", "data": payload[:60]}


def reassemble(text: str) -> Stream:
    out = Stream()
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, list[str]] = {}
    for event in events(text):
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "message_start" and isinstance(event.get("message"), dict):
            out.message = dict(event["message"])
        elif kind == "content_block_start":
            index = event.get("index")
            block = event.get("content_block")
            if isinstance(index, int) and isinstance(block, dict):
                blocks[index] = dict(block)
        elif kind == "content_block_delta":
            _delta(out, blocks, partial, event)
        elif kind == "content_block_stop":
            _finish(out, blocks, partial, event.get("index"))
        elif kind == "message_delta":
            _message_delta(out, event)
        elif kind == "message_stop":
            out.complete = True
        elif kind == "error":
            out.error = event.get("error") if isinstance(event.get("error"), dict) else {"message": str(event)}
        elif kind == "__unparsed__":
            out.problems.append(f"an event is not JSON ({event['data']!r})")
    for index in list(partial):
        _finish(out, blocks, partial, index)
    if out.message is None:
        if out.error is None:
            out.problems.append("the stream has no message_start event")
        return out
    out.message["content"] = [blocks[i] for i in sorted(blocks)]
    if not out.complete and out.error is None:
        out.problems.append("the stream ends before message_stop (the answer may be cut short)")
    return out


def _delta(out: Stream, blocks: dict[int, dict[str, Any]], partial: dict[int, list[str]],
           event: dict[str, Any]) -> None:
    index, delta = event.get("index"), event.get("delta")
    block = blocks.get(index) if isinstance(index, int) else None
    if block is None or not isinstance(delta, dict):
        out.problems.append(f"a delta for block {index!r}, which never started")
        return
    kind = delta.get("type")
    if kind == "input_json_delta":
        partial.setdefault(index, []).append(str(delta.get("partial_json") or ""))
    elif kind == "citations_delta":
        citations = block.get("citations")
        block["citations"] = (citations if isinstance(citations, list) else []) + [delta.get("citation")]
    else:
        for key, value in delta.items():
            if key != "type" and isinstance(value, str):
                previous = block.get(key)
                block[key] = (previous if isinstance(previous, str) else "") + value


def _finish(out: Stream, blocks: dict[int, dict[str, Any]], partial: dict[int, list[str]], index: Any) -> None:
    pieces = partial.pop(index, None) if isinstance(index, int) else None
    block = blocks.get(index) if isinstance(index, int) else None
    if block is None or pieces is None:
        return
    joined = "".join(pieces)
    if not joined.strip() or block.get("type") not in _INPUT_BLOCKS:
        return  # no input streamed: the start event's input (``{}``) stands
    try:
        block["input"] = jsonio.fast_loads(joined)
    except jsonio.FastDecodeError:
        block["input"] = {"_unparsed_input": joined}
        out.problems.append(f"block {index}: the streamed tool input is not valid JSON; kept as text")


def _message_delta(out: Stream, event: dict[str, Any]) -> None:
    if out.message is None:
        out.message = {"role": "assistant", "content": []}
    delta = event.get("delta")
    if isinstance(delta, dict):
        for key, value in delta.items():
            if value is not None or key not in out.message:
                out.message[key] = value
    usage = event.get("usage")
    if isinstance(usage, dict):
        merged = dict(out.message.get("usage") or {})
        merged.update({k: v for k, v in usage.items() if v is not None})
        out.message["usage"] = merged
