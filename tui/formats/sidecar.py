"""``--system FILE`` and ``--tools FILE``: attach the system prompt and tool schemas that a
run's file does not hold (a bare message list, a Claude Code transcript), or replace them;
``--context RECORDING[#CALL]`` attaches those, the params and the shaping headers of a recorded request.

A system file is plain text (one trailing newline, which editors add, is dropped) or JSON:
a string, a list of text blocks, or an object with ``system``. A tools file is a JSON list
of tool schemas, or an object with ``tools`` (a request body works for both).
"""

from __future__ import annotations

from typing import Any, Callable

from tui.core import jsonio
from tui.core.errors import LoadError, UsageError
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


CONTEXT_KEY = "context_from"


def split_context(spec: str) -> tuple[str, int | None]:
    """``RECORDING[#CALL]``: the recording's path and the 1-based model call (None: its last call)."""
    path, sep, call = spec.rpartition("#")
    if sep and call.isdigit() and path:
        return path, int(call)
    return spec, None


def attach_context(runs: list[Run], spec: str, load: Callable[[str], list[Run]]) -> None:
    """``--context RECORDING[#CALL]``: the system prompt, tool schemas, params and shaping headers of a
    recorded request, attached to runs whose file does not hold them (a Claude Code transcript).
    The prefix stays reconstructed: only the recording's request was sent with these; the run's
    own requests are rebuilt with them ("reconstructed, context from RECORDING")."""
    from tui.core.prefix import call_request
    from tui.core.request_headers import HEADERS_KEY, recorded_headers

    path, number = split_context(spec)
    recorded = load(path)[0]  # the longest conversation of the recording: its main run
    if not recorded.exact:
        raise UsageError(f"--context {spec}: {path} holds no recorded request (a {recorded.source.format} file is "
                         "rebuilt, not recorded); give a cassette, a trace log or a turnscope recording")
    calls = len(recorded.calls)
    if calls == 0 or (number is not None and not 1 <= number <= calls):
        raise UsageError(f"--context {spec}: {path} has {calls} model call(s); choose one with #1..#{calls}")
    k = (number or calls) - 1
    body = call_request(recorded, k)
    headers = recorded_headers(recorded)
    label = f"{path}#{k + 1}"
    for run in runs:
        run.system = body.get("system")
        run.tools = body.get("tools")
        run.params = {key: value for key, value in body.items() if key not in ("system", "tools", "messages")}
        if headers:
            run.meta[HEADERS_KEY] = dict(headers)
        run.meta[CONTEXT_KEY] = label
        tools = len(run.tools) if isinstance(run.tools, list) else 0
        run.warnings.append(LoadWarning(
            f"context from {label}: its system prompt, {tools} tool schema(s), params"
            f"{' and headers' if headers else ''} attached; every prefix is reconstructed with them"))
