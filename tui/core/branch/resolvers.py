"""Resolvers: who answers the tool calls the model makes in a branch.

A resolver turns one ``ToolCall`` into a ``Resolution`` (the result, or an error result)
or ``None``: leave the call unanswered and stop the branch there (the branch file then
ends with that assistant turn, which ``--resume`` can answer later).

- ``recorded``: the parent run (as recorded, not as edited) answered a call with the same
  tool name and the same input; its result is reused. Otherwise the fallback answers
  (headless: ``stop``; the app passes its manual resolver).
- ``stop``: never answers.
- ``python:MODULE:FUNCTION``: ``FUNCTION(name, input)`` from the user's module (a module
  name importable from the current directory, or a path to a ``.py`` file). A string is
  the result's content, a list its content blocks, ``None`` no content, anything else
  JSON text; an exception becomes an error result (``is_error``) carrying its message.
  Sync functions run in a thread so an app stays responsive; async ones are awaited.
- ``manual``: the app implements ``ask`` (the user types a result or marks it an error).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol

import orjson

from tui.core import jsonio
from tui.core.branch.events import ToolCall
from tui.core.errors import UsageError
from tui.core.run import Run, blocks_of

HEADLESS_SPECS = "recorded, stop or python:MODULE:FUNCTION"


@dataclass
class Resolution:
    """A resolver's answer to a tool call: the result's content, whether it is an error, and who answered."""

    content: Any  # str, list of content blocks, or None (no content)
    is_error: bool = False
    via: str = ""

    def block(self, tool_use_id: str) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id}
        if self.content is not None:
            out["content"] = self.content
        if self.is_error:
            out["is_error"] = True
        return out


class Resolver(Protocol):
    """Answers a tool call of a branch (``spec`` names it: ``recorded``, ``python``, ``manual``, ``stop``), or
    None to stop."""

    spec: str

    async def resolve(self, call: ToolCall) -> Resolution | None: ...


class StopResolver:
    """Answers no call: the branch stops at the first tool call."""

    spec = "stop"

    async def resolve(self, call: ToolCall) -> Resolution | None:
        return None


def _key(name: Any, value: Any) -> bytes:
    return orjson.dumps([name, value], option=orjson.OPT_SORT_KEYS)


class RecordedResolver:
    """Reuse the parent run's result for an identical call (same name, same input)."""

    spec = "recorded"

    def __init__(self, parent: Run | None, fallback: Resolver | None = None):
        self.fallback = fallback or StopResolver()
        self.answers: dict[bytes, tuple[int, dict[str, Any]]] = {}
        messages = parent.messages if parent is not None else []
        for i, message in enumerate(messages[:-1]):
            if not (isinstance(message, dict) and message.get("role") == "assistant"):
                continue
            results = {b.get("tool_use_id"): b for b in blocks_of(messages[i + 1])
                       if isinstance(b, dict) and b.get("type") == "tool_result"}
            for block in blocks_of(message):
                if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id") in results:
                    try:
                        key = _key(block.get("name"), block.get("input"))
                    except TypeError:
                        continue
                    self.answers.setdefault(key, (i + 1, results[block["id"]]))

    async def resolve(self, call: ToolCall) -> Resolution | None:
        try:
            found = self.answers.get(_key(call.name, call.input))
        except TypeError:
            found = None
        if found is None:
            return await self.fallback.resolve(call)
        index, result = found
        return Resolution(result.get("content"), bool(result.get("is_error")), via=f"recorded (message {index})")


class PythonResolver:
    """The user's own dispatch function, called with the tool name and input."""

    def __init__(self, target: str):
        self.spec = f"python:{target}"
        module_name, _, function = target.rpartition(":")
        if not module_name or not function:
            raise UsageError(f"--resolver python:MODULE:FUNCTION: {target!r} names no function")
        module = _import(module_name)
        self.function = getattr(module, function, None)
        if not callable(self.function):
            raise UsageError(f"--resolver {self.spec}: {module_name} has no function {function!r}")

    async def resolve(self, call: ToolCall) -> Resolution | None:
        try:
            if inspect.iscoroutinefunction(self.function):
                value = await self.function(call.name, call.input)
            else:
                value = await asyncio.to_thread(self.function, call.name, call.input)
        except Exception as exc:  # the user's tool failed: the model is told, as a real loop would
            return Resolution(f"{type(exc).__name__}: {exc}", is_error=True, via="python (raised)")
        if value is None or isinstance(value, str):
            return Resolution(value, via="python")
        if isinstance(value, list) and all(isinstance(b, dict) for b in value):
            return Resolution(value, via="python")
        return Resolution(jsonio.dumps(value).decode("utf-8", "surrogatepass"), via="python")


def _import(name: str) -> Any:
    try:
        if name.endswith(".py"):
            path = Path(name)
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None or not path.is_file():
                raise UsageError(f"--resolver: no Python file {name}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(name)
    except UsageError:
        raise
    except Exception as exc:  # a user's module can fail in any way while importing
        raise UsageError(f"--resolver: cannot import {name}: {type(exc).__name__}: {exc}") from None


class ManualResolver:
    """For the app: ``ask(call)`` shows the call and returns what the user typed (None: stop)."""

    spec = "manual"

    def __init__(self, ask: Callable[[ToolCall], Awaitable[Resolution | None]]):
        self.ask = ask

    async def resolve(self, call: ToolCall) -> Resolution | None:
        return await self.ask(call)


def make_resolver(spec: str, parent: Run | None, manual: Resolver | None = None) -> Resolver:
    """A resolver from its spec; without ``manual`` (headless) recorded falls back to stop."""
    if spec == "recorded":
        return RecordedResolver(parent, fallback=manual)
    if spec == "stop":
        return StopResolver()
    if spec == "manual":
        if manual is None:
            raise UsageError(f"the manual resolver needs the app; headless, use {HEADLESS_SPECS}")
        return manual
    if spec.startswith("python:"):
        return PythonResolver(spec[len("python:"):])
    raise UsageError(f"unknown resolver {spec!r}: use {HEADLESS_SPECS}")
