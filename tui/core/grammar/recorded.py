"""Findings that need recorded requests and responses (trace logs, cassettes).

A loader keeps a call's ``response`` only where the provider's content differs from the
turn the run stored, and a ``RecordedRequest`` only holds what differs from the prefix
rebuilt from the run; so every non-empty difference here is a finding, never silence.
One difference is not a finding: a ``cache_control`` breakpoint that moved. Loops put the
breakpoint on the newest message of each request (Claude Code does), so the same message
is sent with it once and without it afterwards; that changes caching, not what the model
reads. Each finding names where the first real difference is.
"""

from __future__ import annotations

from typing import Any

from tui.core.grammar.findings import Findings
from tui.core.run import Run
from tui.core.words import counted


def check(out: Findings, run: Run) -> None:
    for k, call in enumerate(run.calls):
        stored = run.messages[call.message] if call.message < len(run.messages) else None
        if call.response is not None:
            content = stored.get("content") if isinstance(stored, dict) else None
            if not same_but_cache_control(call.response, content):
                out.add("assistant_turn_rewritten", call.message, None,
                        detail=f"model call {k + 1} returned {counted(len(call.response), 'block')}; message "
                               f"{call.message} stores {_count(stored)}; first difference: "
                               f"{first_difference(call.response, content)}")
        request = call.request
        if request is None:
            continue
        parts = []
        for i in sorted(request.replaced):
            current = run.messages[i] if i < len(run.messages) else None
            if not same_but_cache_control(request.replaced[i], current):
                parts.append(f"message {i} ({first_difference(request.replaced[i], current)})")
        for name in ("system", "tools", "params"):
            sent = getattr(request, name)
            if getattr(request, f"has_{name}", None) is False:
                parts.append(f"no {name} (the run's last request has one)")
            elif sent is not None:
                ours = getattr(run, name)
                if name == "params":
                    if sent != ours:
                        parts.append(path_difference(sent, ours, ""))
                elif not same_but_cache_control(sent, ours):
                    parts.append(path_difference(sent, ours, name))
        if parts:
            out.add("request_differs", call.message, None,
                    detail=f"model call {k + 1}'s request differs from the run's last: " + "; ".join(parts))


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:39] + "…"


def path_difference(sent: Any, ours: Any, where: str) -> str:
    """The first field where ``sent`` (what a call was sent) differs from ``ours`` (the run's), by path:
    ``thinking.budget_tokens: 6400 -> 1024``, ``container added``, ``tools[2].name: 'a' -> 'b'``."""
    join = (lambda key: f"{where}.{key}") if where else str
    if isinstance(sent, dict) and isinstance(ours, dict):
        for key in sent:
            if key not in ours:
                return f"{join(key)} (later requests dropped it)"
            if sent[key] != ours[key]:
                return path_difference(sent[key], ours[key], join(key))
        for key in ours:
            if key not in sent:
                return f"{join(key)} added later (this call was sent none)"
        return f"{where or 'the value'}: equal"
    if isinstance(sent, list) and isinstance(ours, list):
        for i, (a, b) in enumerate(zip(sent, ours)):
            if a != b:
                return path_difference(a, b, f"{where}[{i}]")
        return f"{where or 'the list'}: {counted(len(sent), 'item')} -> {len(ours)}"
    return f"{where or 'the value'}: {_short(sent)} -> {_short(ours)}"


def returned_differs(call: Any, stored: Any) -> bool:
    """The call's recorded answer differs from the stored turn by more than a ``cache_control`` breakpoint."""
    if call.response is None:
        return False
    return not same_but_cache_control(call.response, stored.get("content") if isinstance(stored, dict) else None)


def without_cache_control(value: Any) -> Any:
    """``value`` with every ``cache_control`` key removed (a copy only where one was found)."""
    if isinstance(value, dict):
        if "cache_control" in value or any(isinstance(v, (dict, list)) for v in value.values()):
            return {k: without_cache_control(v) for k, v in value.items() if k != "cache_control"}
        return value
    if isinstance(value, list):
        return [without_cache_control(v) for v in value]
    return value


def same_but_cache_control(a: Any, b: Any) -> bool:
    """``without_cache_control(a) == without_cache_control(b)``, without copying either: stripping keeps
    every value's type, so the walk stops at the first key, length or type that differs."""
    if a == b:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        keys = a.keys() - _CACHE_CONTROL
        if keys != b.keys() - _CACHE_CONTROL:
            return False
        return all(same_but_cache_control(a[k], b[k]) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_but_cache_control(x, y) for x, y in zip(a, b))
    return False


_CACHE_CONTROL = frozenset({"cache_control"})


def first_difference(a: Any, b: Any, where: str = "") -> str:
    """Where ``b`` first differs from ``a``, as a short path: ``block 2.input: 'x' changed``."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.get("type") != b.get("type"):
            return f"{where or 'the turn'}: type {a.get('type')!r} became {b.get('type')!r}"
        for key in a:
            if key not in b:
                return f"{where or 'the turn'}: key {key!r} dropped"
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{where}.{key}" if where else str(key))
        for key in b:
            if key not in a:
                return f"{where or 'the turn'}: key {key!r} added"
        return f"{where or 'the turn'}: equal"
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                label = f"block {i}" if not where else f"{where}[{i}]"
                return first_difference(x, y, label)
        if len(a) != len(b):
            return f"{where or 'content'}: {counted(len(a), 'item')} became {len(b)}"
        return f"{where or 'content'}: equal"
    if type(a) is not type(b):
        return f"{where or 'value'}: {type(a).__name__} became {type(b).__name__}"
    return f"{where or 'value'} changed"


def _count(message: Any) -> int:
    content = message.get("content") if isinstance(message, dict) else None
    return len(content) if isinstance(content, list) else 1
