"""Token cost of a run: per model call, per message, and where the growth came from.

Per call, the input, output, cache-read and cache-write tokens are **recorded** (the
source kept the provider's usage), **exact** (counted by the Messages API count_tokens
endpoint, only when a counter is passed in) or **estimated** (``tui.core.estimate``; an
estimate does not model caching, so all its input is ``input_tokens``). Recorded usage is
always preferred: it is what was billed.

Per message: its size in tokens, how many requests sent it (``sends``) and its **carried
cost**, ``tokens x (sends - 1)``: what it cost again on every request after the first
that sent it. So the input of all requests adds up as::

    sum(call input) = fixed x calls + sum(message tokens x sends) (+ what the source hid)

and each request's growth over the one before is attributed to the messages it added.
Message sizes are estimates, scaled where possible so that the messages each request added
sum to that request's recorded (or exact) growth ("apportioned"). Everything here is plain
data for the command line and the stepper's Tokens view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from tui.core.prefix import request_at, request_head
from tui.core.prefix_sums import PrefixSums
from tui.core.run import ModelCall, Run

RECORDED = "recorded"
ESTIMATED = "estimated"
EXACT = "exact"
APPORTIONED = "apportioned"

#: ``counter(body) -> input tokens``; see ``tui.core.count_tokens``.
Counter = Callable[[dict[str, Any]], int]
#: Called once per message and per call while a report is built: a worker can pause there (or raise to stop).
Tick = Callable[[], None]


@dataclass
class CallTokens:
    """The input and output tokens of one model call's request, and whether recorded, estimated or exact."""

    call: int  # 0-based model call
    message: int  # the message it produced
    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int
    kind: str  # recorded | estimated | exact
    sent: int = 0  # how many messages the request carried
    added: list[int] = field(default_factory=list)  # messages this request sent that the previous did not
    new: int = 0  # growth over the previous request's input: attributed to ``added``

    @property
    def total_input(self) -> int:
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens

    @property
    def carried(self) -> int:
        """The part of this request the previous one had already sent (fixed part included)."""
        return max(self.total_input - self.new, 0)

    def as_json(self) -> dict[str, Any]:
        return {"message": self.message, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cache_read_input_tokens": self.cache_read_input_tokens,
                "cache_creation_input_tokens": self.cache_creation_input_tokens, "kind": self.kind}


@dataclass
class MessageTokens:
    """One message's tokens, and how many requests carried it (what it cost the run as the prefix grew)."""

    index: int
    tokens: int
    kind: str  # estimated | apportioned
    sends: int  # requests that carried it
    first_call: int | None  # the first call whose request sent it

    @property
    def carried(self) -> int:
        return self.tokens * max(self.sends - 1, 0)

    def as_json(self) -> dict[str, Any]:
        return {"index": self.index, "tokens": self.tokens, "carried": self.carried}


@dataclass
class TokenReport:
    """What each request of a run cost in tokens: per call, per message, and the part fixed in every request."""

    calls: list[CallTokens]
    messages: list[MessageTokens]
    fixed: int  # system prompt + tool schemas + request overhead: rides in every request
    fixed_kind: str = ESTIMATED  # estimated, or recorded/exact (implied by the first measured request)

    @property
    def total_input(self) -> int:
        return sum(c.total_input for c in self.calls)

    @property
    def total_output(self) -> int:
        return sum(c.output_tokens for c in self.calls)

    @property
    def kinds(self) -> set[str]:
        return {c.kind for c in self.calls}

    def by_message(self) -> dict[int, CallTokens]:
        """The call that produced each message, for a message list that shows each request's input."""
        return {c.message: c for c in self.calls}

    def top_carried(self, n: int = 5) -> list[MessageTokens]:
        ranked = sorted((m for m in self.messages if m.carried > 0), key=lambda m: (-m.carried, m.index))
        return ranked[:n]

    def as_json(self) -> dict[str, Any]:
        return {"calls": [c.as_json() for c in self.calls], "messages": [m.as_json() for m in self.messages]}


def recorded_usage(usage: Any) -> tuple[int, int, int, int] | None:
    """``(input, output, cache_read, cache_write)`` from a usage record (Anthropic or OpenAI names)."""
    if not isinstance(usage, dict):
        return None

    def num(value: Any) -> int:
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    if isinstance(usage.get("input_tokens"), (int, float)):
        return (num(usage["input_tokens"]), num(usage.get("output_tokens")),
                num(usage.get("cache_read_input_tokens")), num(usage.get("cache_creation_input_tokens")))
    if isinstance(usage.get("prompt_tokens"), (int, float)):  # OpenAI: prompt includes the cached part
        details = usage.get("prompt_tokens_details") if isinstance(usage.get("prompt_tokens_details"), dict) else {}
        cached = num(details.get("cached_tokens"))
        return num(usage["prompt_tokens"]) - cached, num(usage.get("completion_tokens")), cached, 0
    return None


def _sent(run: Run, call: ModelCall) -> int:
    count = call.request.messages if call.request is not None else call.message
    return max(0, min(count, len(run.messages)))


def token_report(run: Run, counter: Counter | None = None, tick: Tick | None = None) -> TokenReport:
    """Tokens per call and per message; ``counter`` (count_tokens) replaces estimates, never recorded usage.
    ``tick`` is called between messages and calls (the stepper's worker yields to the keys there)."""
    prefix = PrefixSums(run, tick)
    calls: list[CallTokens] = []
    fixed_estimate: float | None = None
    for k, call in enumerate(run.calls):
        if tick is not None:
            tick()
        head, count = request_head(run, call.message)  # the body but its messages: no prefix sliced per call
        if fixed_estimate is None:
            fixed_estimate = prefix.fixed(head)
        out_estimate = prefix.output(call)
        usage = recorded_usage(call.usage)
        if usage is not None:
            calls.append(CallTokens(k, call.message, *usage, kind=RECORDED))
        elif counter is not None:
            calls.append(CallTokens(k, call.message, counter(request_at(run, call.message).body), out_estimate,
                                    0, 0, kind=EXACT))
        else:
            calls.append(CallTokens(k, call.message, prefix.request(call, head, count), out_estimate, 0, 0,
                                    kind=ESTIMATED))
        calls[-1].sent = _sent(run, call)
    if fixed_estimate is None:  # no model call: what the next request would carry beside the messages
        fixed_estimate = prefix.fixed(request_head(run, len(run.messages))[0])
    tokens = list(prefix.sizes)
    kinds = [ESTIMATED] * len(tokens)
    fixed, fixed_kind = _fixed(calls, tokens, fixed_estimate)
    _attribute_growth(calls, tokens, kinds)
    total = len(run.messages)
    starts = [0] * (total + 1)  # difference array: every request sends messages 0..sent-1
    first: list[int | None] = [None] * total
    reached = 0
    for c in calls:
        starts[0] += 1
        starts[c.sent] -= 1
        for i in range(reached, c.sent):
            first[i] = c.call
        reached = max(reached, c.sent)
    messages, running = [], 0
    for i in range(total):
        running += starts[i]
        messages.append(MessageTokens(i, round(tokens[i]), kinds[i], running, first[i]))
    return TokenReport(calls, messages, fixed, fixed_kind)


def _attribute_growth(calls: list[CallTokens], tokens: list[float], kinds: list[str]) -> None:
    """Set each call's ``added`` and ``new``; where two consecutive requests were both measured
    (recorded or exact), scale the added messages' estimates so they sum to the measured growth."""
    previous: CallTokens | None = None
    for c in calls:
        start = previous.sent if previous is not None and c.sent >= previous.sent else 0
        c.added = list(range(start, c.sent))
        c.new = c.total_input if start == 0 else c.total_input - previous.total_input
        measured = start > 0 and c.kind != ESTIMATED and previous.kind != ESTIMATED
        base = sum(tokens[i] for i in c.added)
        if measured and c.new > 0 and base > 0:
            for i in c.added:
                tokens[i] = tokens[i] * c.new / base
                kinds[i] = APPORTIONED
        previous = c


def _fixed(calls: list[CallTokens], tokens: list[float], fixed_estimate: float) -> tuple[int, str]:
    """The part of every request that is not messages: measured from the first request where it
    was measured (what the source did not record, such as a hidden system prompt, shows here)."""
    if calls and calls[0].kind != ESTIMATED:
        implied = calls[0].total_input - sum(tokens[i] for i in range(calls[0].sent))
        if implied > 0:
            return round(implied), calls[0].kind
    return round(fixed_estimate), ESTIMATED
