"""Findings that need recorded requests and responses (trace logs, cassettes).

A loader keeps a call's ``response`` only where the provider's content differs from the
turn the run stored, and a ``RecordedRequest`` only holds what differs from the prefix
rebuilt from the run; so every non-empty difference here is a finding, never silence.
"""

from __future__ import annotations

from tui.core.grammar.findings import Findings
from tui.core.run import Run


def check(out: Findings, run: Run) -> None:
    for k, call in enumerate(run.calls):
        if call.response is not None:
            out.add("assistant_turn_rewritten", call.message, None,
                    detail=f"model call {k + 1} returned {len(call.response)} block(s); "
                           f"message {call.message} stores {_count(run, call.message)}")
        request = call.request
        if request is None:
            continue
        parts = [f"message {i}" for i in sorted(request.replaced)]
        for name in ("system", "tools", "params"):
            if getattr(request, name) is not None or getattr(request, f"has_{name}", None) is False:
                parts.append(name)
        if parts:
            out.add("request_differs", call.message, None,
                    detail=f"model call {k + 1} was sent a different " + ", ".join(parts))


def _count(run: Run, index: int) -> int:
    message = run.messages[index] if index < len(run.messages) else None
    content = message.get("content") if isinstance(message, dict) else None
    return len(content) if isinstance(content, list) else 1
