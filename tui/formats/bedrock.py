"""AWS Bedrock InvokeModel exchanges with Anthropic models, as HAR recordings hold them.

The model id is only in the URL (``/model/<id>/invoke`` or ``/invoke-with-response-stream``). A body
with ``messages`` is a Messages API body (``anthropic_version`` instead of ``model``); the legacy
Text Completions body (``prompt`` with ``\\n\\nHuman:`` / ``\\n\\nAssistant:`` turns,
``max_tokens_to_sample``) is converted into the messages it stands for. A streamed answer is an
``application/vnd.amazon.eventstream``: binary frames whose JSON payload ``{"bytes": <base64>}`` is
one chunk (a Messages API stream event, or a legacy ``{"completion", "stop_reason"}`` piece).
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from typing import Any
from urllib.parse import unquote

from tui.core import jsonio

_MODEL = re.compile(r"/model/([^/]+)/(invoke|invoke-with-response-stream|converse|converse-stream)$")
_TURN = re.compile(r"\n\n(Human|Assistant):")
_LEGACY_PARAMS = {"max_tokens_to_sample": "max_tokens", "temperature": "temperature", "top_k": "top_k",
                  "top_p": "top_p", "stop_sequences": "stop_sequences"}


def model_of(path: str) -> str | None:
    """The model id of a Bedrock invoke URL path, or None if the path is not one."""
    match = _MODEL.search(path.rstrip("/"))
    return unquote(match.group(1)) if match and match.group(2).startswith("invoke") else None


def chunks(data: bytes) -> tuple[list[Any], list[str]]:
    """The JSON chunks of an AWS event stream (each frame: total and header lengths, a prelude CRC,
    headers, the payload, a message CRC), and problems."""
    out: list[Any] = []
    problems: list[str] = []
    at = 0
    while at + 16 <= len(data):
        total, headers = struct.unpack(">II", data[at:at + 8])
        if total < 16 or at + total > len(data):
            problems.append(f"an event-stream frame at byte {at} is cut short")
            break
        payload = data[at + 12 + headers:at + total - 4]
        at += total
        try:
            value = jsonio.fast_loads(payload)
            if isinstance(value, dict) and isinstance(value.get("bytes"), str):
                value = jsonio.fast_loads(base64.b64decode(value["bytes"]))
        except (jsonio.FastDecodeError, binascii.Error, ValueError):
            problems.append("an event-stream frame does not hold JSON")
            continue
        out.append(value)
    return out, problems


def legacy_request(body: dict[str, Any], model: str | None) -> dict[str, Any]:
    """A Text Completions body (``prompt``) as the Messages API body it stands for."""
    prompt = body.get("prompt") if isinstance(body.get("prompt"), str) else ""
    pieces = _TURN.split(prompt)
    system = pieces[0].strip()
    messages = []
    for role, text in zip(pieces[1::2], pieces[2::2]):
        kind = "user" if role == "Human" else "assistant"
        text = text[1:] if text.startswith(" ") else text  # "Human: text": the space is the format's
        if not text.strip():
            continue  # the final "Assistant:" is the slot the model fills
        if messages and messages[-1]["role"] == kind:
            messages[-1]["content"] += "\n\n" + text
        else:
            messages.append({"role": kind, "content": text})
    out: dict[str, Any] = {"model": model} if model else {}
    for key, name in _LEGACY_PARAMS.items():
        if key in body:
            out[name] = body[key]
    if system:
        out["system"] = system
    out["messages"] = messages
    return out


def legacy_answer(pieces: list[Any]) -> dict[str, Any] | None:
    """Legacy completion chunks (or one JSON answer) as an assistant message."""
    text, stop, usage = [], None, None
    for piece in pieces:
        if not isinstance(piece, dict):
            continue
        if isinstance(piece.get("completion"), str):
            text.append(piece["completion"])
        stop = piece.get("stop_reason") or stop
        metrics = piece.get("amazon-bedrock-invocationMetrics")
        if isinstance(metrics, dict):
            usage = {"input_tokens": metrics.get("inputTokenCount"), "output_tokens": metrics.get("outputTokenCount")}
    joined = "".join(text)
    if not joined.strip() and stop is None:
        return None
    answer: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": joined}] if joined.strip() else []}
    answer["stop_reason"] = {"stop_sequence": "end_turn", "max_tokens": "max_tokens"}.get(stop, stop)
    if usage:
        answer["usage"] = usage
    return answer


def as_sse(pieces: list[Any]) -> str:
    """Messages API stream events (decoded event-stream chunks) as server-sent-event text."""
    return "".join(f"data: {jsonio.dumps(p).decode()}\n\n" for p in pieces)
