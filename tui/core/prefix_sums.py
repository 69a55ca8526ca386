"""Token estimates of every message of a run, computed once, with running sums over the prefix.

``tui.core.tokens`` estimates each model call's request from these: the sum of the first N
messages' estimates plus the fixed part, instead of estimating each request's body whole
(which made a long run quadratic: 200,000 messages took half a minute). The numbers are the
ones ``estimate.request_tokens`` and ``estimate.output_tokens`` give for the same bodies.
"""

from __future__ import annotations

from typing import Any, Callable

from tui.core import estimate
from tui.core.prefix import request_at
from tui.core.run import ModelCall, Run

Tick = Callable[[], None]


class PrefixSums:
    """Message estimates computed once, so estimating every request of a long run stays linear."""

    def __init__(self, run: Run, tick: Tick | None = None):
        self.run = run
        self.sizes = sizes = []
        self.thinks: set[int] = set()  # messages whose estimate changes when their thinking counts
        message_tokens = estimate.message_tokens
        for i, m in enumerate(run.messages):
            if tick is not None:
                tick()
            sizes.append(message_tokens(m, False))
            content = m.get("content") if isinstance(m, dict) else None
            if isinstance(content, list):  # a thinking block: its estimate changes when it counts
                for b in content:
                    if isinstance(b, dict) and b.get("type") == "thinking":
                        self.thinks.add(i)
                        break
        self.sums = [0.0]
        self.last_assistant: list[int] = []  # for each prefix length n: the last assistant index below n
        last = -1
        for i, message in enumerate(run.messages):
            self.sums.append(self.sums[-1] + self.sizes[i])
            self.last_assistant.append(last)
            if isinstance(message, dict) and message.get("role") == "assistant":
                last = i
        self.last_assistant.append(last)
        self._fixed: dict[tuple[int, int, str], float] = {}

    def fixed(self, body: dict[str, Any]) -> float:
        key = (id(body.get("system")), id(body.get("tools")),
               repr((body.get("tool_choice"), body.get("thinking"))))
        if key not in self._fixed:
            self._fixed[key] = estimate.fixed_tokens(body)
        return self._fixed[key]

    def carried(self, i: int) -> float:
        """``estimate.message_tokens(message i)``, thinking text counted (the same number, computed once)."""
        if i in self.thinks:
            return estimate.message_tokens(self.run.messages[i])
        return self.sizes[i]

    def output(self, call: ModelCall) -> int:
        """``estimate.output_tokens`` of what the call produced (0 when it produced nothing)."""
        if call.response is None and 0 <= call.message < len(self.run.messages):
            return round(max(self.carried(call.message) - estimate.MESSAGE_BASE, 1))
        produced = _produced(self.run, call)
        return estimate.output_tokens(produced) if produced is not None else 0

    def request(self, call: ModelCall, head: dict[str, Any], n: int) -> int:
        """``estimate.request_tokens`` of the body (``head`` and its first ``n`` messages), from the running sums."""
        if call.request is not None and call.request.replaced:
            return estimate.request_tokens(request_at(self.run, call.message).body)
        total = self.fixed(head) + self.sums[n]
        last = self.last_assistant[n]
        if last >= 0:  # the latest assistant turn's thinking counts
            total += self.carried(last) - self.sizes[last]
        return round(total)


def _produced(run: Run, call: ModelCall) -> Any:
    if call.response is not None:
        return {"role": "assistant", "content": call.response}
    return run.messages[call.message] if 0 <= call.message < len(run.messages) else None
