"""``--system FILE`` and ``--tools FILE``: attach the system prompt and tool schemas that a
run's file does not hold (a bare message list, a Claude Code transcript), or replace them.

A system file is plain text (one trailing newline, which editors add, is dropped) or JSON:
a string, a list of text blocks, or an object with ``system``. A tools file is a JSON list
of tool schemas, or an object with ``tools`` (a request body works for both).
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.core.errors import LoadError
from tui.core.run import LoadWarning, Run


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    return data[len(jsonio.BOM):] if data.startswith(jsonio.BOM) else data


def read_system(path: str) -> Any:
    data = _read(path)
    stripped = data.lstrip()
    if stripped[:1] in (b'"', b"[", b"{"):
        value = jsonio.loads(data, path)
        if isinstance(value, dict):
            if "system" not in value:
                raise LoadError(path, "a JSON object given as --system needs a 'system' field")
            value = value["system"]
        if isinstance(value, str) or (isinstance(value, list) and all(isinstance(b, dict) for b in value)):
            return value
        raise LoadError(path, "--system JSON must be a string or a list of text blocks")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LoadError(path, f"system prompt is not UTF-8 text (byte {exc.start})") from None
    return text[:-1] if text.endswith("\n") else text


def read_tools(path: str) -> list[Any]:
    value = jsonio.loads(_read(path), path)
    if isinstance(value, dict):
        value = value.get("tools")
    if not isinstance(value, list):
        raise LoadError(path, "--tools must be a JSON list of tool schemas or an object with 'tools'")
    return value


def attach_sidecars(runs: list[Run], system_path: str | None, tools_path: str | None) -> None:
    system = read_system(system_path) if system_path is not None else None
    tools = read_tools(tools_path) if tools_path is not None else None
    for run in runs:
        if system_path is not None:
            what = "replaced" if run.system is not None else "attached"
            run.system = system
            run.warnings.append(LoadWarning(f"system prompt {what} from {system_path}"))
        if tools_path is not None:
            what = "replaced" if run.tools is not None else "attached"
            run.tools = tools
            run.warnings.append(LoadWarning(f"tool schemas {what} from {tools_path}"))
