"""Small builders for hand-written messages, runs and files in the tests (ids and names are
the refund run's, so a failing assertion reads like the seeds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui.core import jsonio
from tui.core.run import Run, Source


def text(value: str, **extra: Any) -> dict:
    return {"type": "text", "text": value, **extra}


def use(tool_id: str, name: str = "get_shipment", **inputs: Any) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": inputs or {"order_id": "4471"}}


def result(tool_id: str, content: Any = "ok", **extra: Any) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **extra}


def thinking(value: str = "", signature: str = "EqQBsig") -> dict:
    return {"type": "thinking", "thinking": value, "signature": signature}


def user(*blocks: Any) -> dict:
    if len(blocks) == 1 and isinstance(blocks[0], str):
        return {"role": "user", "content": blocks[0]}
    return {"role": "user", "content": list(blocks)}


def assistant(*blocks: Any) -> dict:
    if len(blocks) == 1 and isinstance(blocks[0], str):
        return {"role": "assistant", "content": blocks[0]}
    return {"role": "assistant", "content": list(blocks)}


ASK = user("I never got order 4471 and I want my money back.")
TOOL = {"name": "get_shipment", "description": "Shipment of an order.",
        "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}}}


def run_of(messages: list, **fields: Any) -> Run:
    """A run as a bare message list would load: its final assistant turn is a response, not a prefill."""
    return Run(messages=messages, source=Source(path="t.json", format="messages"), **fields)


def write_json(path: Path, value: Any) -> Path:
    path.write_bytes(jsonio.dumps(value))
    return path


def write_jsonl(path: Path, *values: Any) -> Path:
    path.write_bytes(b"\n".join(jsonio.dumps(v) for v in values) + b"\n")
    return path
