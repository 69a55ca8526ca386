"""Helpers for tests that need small run files of their own: JSONL message lists and native files."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tui.core import jsonio

from conftest import SAMPLES


def read_jsonl(path: Path) -> tuple[dict[str, Any] | None, list[Any]]:
    """``(header, messages)`` of a sample JSONL run."""
    lines = [jsonio.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    if lines and "role" not in lines[0]:
        return lines[0], lines[1:]
    return None, lines


def refund() -> tuple[dict[str, Any], list[Any]]:
    header, messages = read_jsonl(SAMPLES / "refund" / "run.jsonl")
    assert header is not None
    return header, copy.deepcopy(messages)


def write_jsonl(path: Path, messages: list[Any], header: dict[str, Any] | None = None) -> Path:
    lines = ([jsonio.dumps(header)] if header else []) + [jsonio.dumps(m) for m in messages]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def write_native(path: Path, messages: list[Any], calls: list[dict[str, Any]], **fields: Any) -> Path:
    """A native run file (``"turnscope": 1``) with recorded calls (usage, stop reasons, requests)."""
    doc = {"turnscope": 1, "source": {"path": str(path), "format": "native", "prefix": "exact"},
           "calls": calls, "messages": messages, **fields}
    path.write_bytes(jsonio.dumps(doc))
    return path
