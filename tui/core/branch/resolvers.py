"""Resolvers: who answers the tool calls the model makes in a branch.

A resolver turns one ``ToolCall`` into a ``Resolution`` (the result, or an error result)
or ``None``: leave the call unanswered and stop the branch there (the branch file then
ends with that assistant turn, which ``--resume`` can answer later).

- ``recorded``: the branch's world (its messages up to N as edited, then the parent's as
  recorded) answered a call with the same tool name and the same input (key order aside);
  its result is reused, the edited one where the edit changed it. Where the edit makes the
  call ambiguous, or nothing answered it, the fallback answers (headless: ``stop``, with the
  reason in ``ToolCall.why``; the app passes its manual resolver).
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
    from_edit: int | None = None  # the edited message whose result this is (recorded resolver)

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


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two tool_result blocks say the same thing (content and is_error; key order aside)."""
    pick = lambda r: [r.get("content"), bool(r.get("is_error"))]  # noqa: E731
    try:
        return _key("", pick(a)) == _key("", pick(b))
    except TypeError:
        return a == b


@dataclass
class Answer:
    """One recorded answer to a call: the message holding the result, the result, and whether
    the branch's edit made it (an edited result, or the result of a call whose input was edited)."""

    index: int
    result: dict[str, Any]
    from_edit: bool = False


@dataclass
class Ambiguous:
    """The edit makes "the same call" ambiguous: the branch's own world answers it two ways."""

    why: str


class RecordedAnswers:
    """The answers of a branch's world to each call (same tool name, same input, key order aside).

    The world is the branch's own messages up to its index (as edited) followed by the parent's
    messages after it (as recorded). An edited result replaces the original for the same tool and
    input, wherever else the original run made that call: a retry of an edited call gets the
    edited result again. Where the world answers one call two ways because of the edit (the
    original made the call twice and only one result was edited, or two edited results differ),
    ``lookup`` returns ``Ambiguous`` with the reason. Without an edit, the first recorded answer is used.
    """

    def __init__(self, parent: Run | None, edited: Run | None = None):
        self.by_key: dict[bytes, list[Answer]] = {}
        original = parent.messages if parent is not None else []
        at = (edited.lineage or {}).get("at") if edited is not None else None
        if edited is not None and isinstance(at, int):
            world = list(edited.messages[:at + 1]) + list(original[at + 1:])
        else:
            world, at = list(original), -1
        self.at = at
        for i, message in enumerate(world[:-1]):
            if not (isinstance(message, dict) and message.get("role") == "assistant"):
                continue
            results = _results(world[i + 1])
            before = (_calls(original[i]), _results(original[i + 1])) if i + 1 <= at and i + 1 < len(original) \
                else None
            for block in blocks_of(message):
                if not (isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id") in results):
                    continue
                try:
                    key = _key(block.get("name"), block.get("input"))
                except TypeError:
                    continue
                result = results[block["id"]]
                if i == at and i < len(original) and _calls(original[i]).get(block["id"]) != block:
                    continue  # a call edited at N itself: the recorded result answered the old input
                edit = False
                if before is not None:
                    old_call, old_result = before[0].get(block["id"]), before[1].get(block["id"])
                    edit = old_call is None or old_result is None or old_call != block or not _same(old_result, result)
                self.by_key.setdefault(key, []).append(Answer(i + 1, result, edit))

    def lookup(self, name: Any, input_: Any) -> Answer | Ambiguous | None:
        try:
            answers = self.by_key.get(_key(name, input_))
        except TypeError:
            return None
        if not answers:
            return None
        edited = [a for a in answers if a.from_edit]
        if not edited:
            return answers[0]
        first = edited[0]
        for other in edited[1:]:
            if not _same(other.result, first.result):
                return Ambiguous(f"the edit answers this call two ways (messages {first.index} and "
                                 f"{other.index} hold different results)")
        for other in answers:
            if not other.from_edit and other.index <= self.at and not _same(other.result, first.result):
                return Ambiguous(f"the branch's own messages answer this call two ways: message {first.index} "
                                 f"(edited) and message {other.index} (as recorded)")
        return first


def _results(message: Any) -> dict[Any, dict[str, Any]]:
    return {b.get("tool_use_id"): b for b in blocks_of(message)
            if isinstance(b, dict) and b.get("type") == "tool_result"}


def _calls(message: Any) -> dict[Any, dict[str, Any]]:
    return {b.get("id"): b for b in blocks_of(message) if isinstance(b, dict) and b.get("type") == "tool_use"}


class RecordedResolver:
    """Answer a call from the branch's world (``RecordedAnswers``): the edited result where the
    edit made one, else the parent's recorded result for the same name and input. Otherwise the
    fallback answers (headless: ``stop``); when the edit made the call ambiguous the call's ``why``
    says so before the fallback is asked."""

    spec = "recorded"

    def __init__(self, parent: Run | None, fallback: Resolver | None = None, edited: Run | None = None):
        self.fallback = fallback or StopResolver()
        self.world = RecordedAnswers(parent, edited)

    @property
    def answers(self) -> dict[bytes, list[Answer]]:
        return self.world.by_key

    async def resolve(self, call: ToolCall) -> Resolution | None:
        found = self.world.lookup(call.name, call.input)
        if isinstance(found, Ambiguous):
            call.why = found.why
            return await self.fallback.resolve(call)
        if found is None:
            return await self.fallback.resolve(call)
        result = found.result
        if found.from_edit:
            return Resolution(result.get("content"), bool(result.get("is_error")),
                              via=f"recorded, from the edit (message {found.index})", from_edit=found.index)
        return Resolution(result.get("content"), bool(result.get("is_error")), via=f"recorded (message {found.index})")


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


def make_resolver(spec: str, parent: Run | None, manual: Resolver | None = None,
                  edited: Run | None = None) -> Resolver:
    """A resolver from its spec; without ``manual`` (headless) recorded falls back to stop.
    ``edited``: the branch's run (its lineage's index): recorded answers come from its world."""
    if spec == "recorded":
        return RecordedResolver(parent, fallback=manual, edited=edited)
    if spec == "stop":
        return StopResolver()
    if spec == "manual":
        if manual is None:
            raise UsageError(f"the manual resolver needs the app; headless, use {HEADLESS_SPECS}")
        return manual
    if spec.startswith("python:"):
        return PythonResolver(spec[len("python:"):])
    raise UsageError(f"unknown resolver {spec!r}: use {HEADLESS_SPECS}")
