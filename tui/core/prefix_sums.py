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


def message_sizes(messages: list[Any], start: int = 0, stop: int | None = None,
                  tick: Tick | None = None) -> tuple[int, list[float], list[int]]:
    """The estimates of ``messages[start:stop]`` (thinking text not counted) and which of them hold a
    thinking block, as ``(start, sizes, thinks)``: plain data a worker process can send. Each message's
    estimate depends on that message only, so a run's may be computed in parts (in several processes) and
    given to ``PrefixSums`` (``parts``): the numbers are the same."""
    stop = len(messages) if stop is None else stop
    sizes: list[float] = []
    thinks: list[int] = []
    message_tokens = estimate.message_tokens
    for i in range(start, stop):
        if tick is not None:
            tick()
        m = messages[i]
        sizes.append(message_tokens(m, False))
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):  # a thinking block: its estimate changes when it counts
            for b in content:
                if isinstance(b, dict) and b.get("type") == "thinking":
                    thinks.append(i)
                    break
    return start, sizes, thinks


Parts = list[tuple[int, list[float], list[int]]]


class PrefixSums:
    """Message estimates computed once, so estimating every request of a long run stays linear.
    ``parts``: the run's ``message_sizes`` computed elsewhere, in order and covering every message
    (anything else is ignored and the sizes computed here)."""

    def __init__(self, run: Run, tick: Tick | None = None, parts: Parts | None = None):
        self.run = run
        if not _covers(parts, len(run.messages)):
            parts = [message_sizes(run.messages, tick=tick)]
        self.sizes: list[float] = [size for _, sizes, _ in parts for size in sizes]
        # the messages whose estimate changes when their thinking counts
        self.thinks: set[int] = {i for _, _, thinks in parts for i in thinks}
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


def _covers(parts: Parts | None, count: int) -> bool:
    """``parts`` are ``message_sizes`` of consecutive ranges from message 0 to ``count``."""
    if parts is None:
        return False
    at = 0
    for start, sizes, _ in parts:
        if start != at:
            return False
        at += len(sizes)
    return at == count


def _produced(run: Run, call: ModelCall) -> Any:
    if call.response is not None:
        return {"role": "assistant", "content": call.response}
    return run.messages[call.message] if 0 <= call.message < len(run.messages) else None
