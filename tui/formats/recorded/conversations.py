"""Recorded exchanges grouped into conversations, each one a ``Run`` with exact prefixes.

A request joins a conversation when it continues it: the same system prompt, the same first
message, the same role at every position the conversation already has, and at least every
message its requests carried (plus the last answer, when that answer was accepted; a retry
after a refused call may resend the same list). Anything else starts a new conversation;
the agent's thread with the most model calls is the file's default run and the others are
listed after it, in the order they began; side calls (quota probes, titles, spinner words,
path extraction, the ``/compact`` summary) are labelled by kind, and a thread restarted
after a compaction is tied to the one before it (``side_calls``). ``count_tokens`` and other endpoints are not model calls.

The run holds the messages of the conversation's last request and its last answer. Each
call keeps a ``RecordedRequest``: how many messages it sent, and only where it differs from
the run, the messages it carried in another form (a ``cache_control`` breakpoint that moved
on, a turn the loop edited later), its system, tools, params and key order. An answer that
the next request carries back in another form is kept as the call's ``response``, which the
grammar check reports as a rewritten turn. Nothing is silently normalised.
"""

from __future__ import annotations

from typing import Any, Iterable

import orjson

from tui.core.grammar.recorded import same_but_cache_control
from tui.core.request_headers import HEADERS_KEY
from tui.core.run import EXACT, LoadWarning, ModelCall, RecordedRequest, Run, Source
from tui.core.words import counted
from tui.formats.recorded import side_calls
from tui.formats.recorded.exchange import Exchange

_BODY = ("messages", "system", "tools")


class Conversation:
    """One conversation threaded through recorded exchanges: its messages and the model calls that made them."""

    def __init__(self, body: dict[str, Any]):
        self.system = body.get("system")
        self.messages: list[Any] = []
        self.calls: list[ModelCall] = []
        self.fields: list[tuple[Any, Any, dict[str, Any], list[str], bool, bool]] = []
        self.warnings: list[LoadWarning] = []
        self.tip_count = 0
        self.tip_accepted = False
        self.unsent: int | None = None  # index of an answer no request has carried back yet
        self.first = 0
        self.first_body = body  # what the conversation's first request asked: its kind is read from it
        self.line: int | None = None  # where it began in the file
        self.dropped: dict[str, int] = {}
        self.headers: list[dict[str, str]] = []  # each call's shaping headers (tui.core.request_headers)
        #: The last request's message list serialised, without its closing ``]`` (None: not serialisable):
        #: ``self.messages[:tip_count]`` are equal to what it holds (``add`` puts them there).
        self.sent_open: bytes | None = None

    def differences(self, messages: list[Any], encoded: bytes | None = None) -> list[int] | None:
        """The positions where ``messages`` differs from the run so far, or None if it does not continue it.

        ``encoded`` is ``messages`` serialised (``encode``): when it starts with the last request's
        messages byte for byte, those positions are equal (the same bytes parse to the same value) and
        only the ones after them are compared; otherwise every position is compared as a value."""
        need = self.tip_count + 1 if self.tip_accepted else self.tip_count
        base = self.messages
        if len(messages) < max(need, 1) or not base:
            return None
        sent = self.sent_open
        if sent is not None and encoded is not None and self.tip_count >= 1 and encoded.startswith(sent) \
                and encoded[len(sent)] in _AFTER_ITEM:
            diffs, start = [], self.tip_count  # the last request's messages, resent unchanged
        elif not same_but_cache_control(messages[0], base[0]):
            return None
        else:
            diffs, start = [0] if messages[0] != base[0] else [], 1
        overlap = min(len(messages), len(base))
        for i in range(start, overlap):
            a, b = messages[i], base[i]
            if a == b:
                continue
            if not (isinstance(a, dict) and isinstance(b, dict) and a.get("role") == b.get("role")):
                return None
            diffs.append(i)
        edited = sum(1 for i in diffs if i != self.unsent and not same_but_cache_control(messages[i], base[i]))
        if edited > max(1, overlap // 2):
            return None  # hardly the same conversation: a new one that happens to start alike
        return diffs

    def add(self, exchange: Exchange, diffs: list[int], encoded: bytes | None = None) -> None:
        body: dict[str, Any] = exchange.body
        messages: list[Any] = body["messages"]
        base = self.messages
        for i in diffs:
            self._replace(i, messages[i])
        base.extend(messages[len(base):])
        self.unsent = None
        n = len(messages)
        self.calls.append(_call(exchange, n))
        self.headers.append(exchange.headers)
        self._keep_fields(body)
        self.tip_count, self.tip_accepted = n, exchange.accepted
        self.sent_open = encoded[:-1] if encoded is not None else None
        if exchange.accepted:
            base.append({"role": "assistant", "content": exchange.message["content"]})
            self.unsent = n
        elif exchange.error:
            self.warnings.append(LoadWarning(
                f"model call {len(self.calls)} ({exchange.where}) was answered "
                f"{exchange.status if exchange.status is not None else 'nothing'}: {exchange.error}; "
                "it produced no message", line=exchange.line))
        self.warnings += [LoadWarning(note, line=exchange.line) for note in exchange.notes]
        for path in exchange.dropped:
            self.dropped[path] = self.dropped.get(path, 0) + 1

    def _replace(self, i: int, new: Any) -> None:
        old = self.messages[i]
        if i == self.unsent:
            producer = self.calls[-1]
            if not isinstance(new, dict) or not same_but_cache_control(new.get("content"), old.get("content")):
                producer.response = old.get("content")  # a breakpoint that moved on is no difference
        else:
            for call in self.calls:
                request = call.request
                if request is not None and request.messages > i and i not in request.replaced:
                    request.replaced[i] = old
        self.messages[i] = new

    def _keep_fields(self, body: dict[str, Any]) -> None:
        """System, tools, params and key order, sharing one object while they stay the same."""
        previous = self.fields[-1] if self.fields else None
        system, tools = body.get("system"), body.get("tools")
        params = {k: v for k, v in body.items() if k not in _BODY}
        order = list(body)
        if previous is not None:
            system = previous[0] if previous[0] == system else system
            tools = previous[1] if previous[1] == tools else tools
            params = previous[2] if previous[2] == params else params
            order = previous[3] if previous[3] == order else order
        self.fields.append((system, tools, params, order, "system" in body, "tools" in body))

    def run(self, path: str, fmt: str) -> Run:
        system, tools, params, order, has_system, has_tools = self.fields[-1]
        for call, (s, t, p, o, hs, ht) in zip(self.calls, self.fields):
            request = call.request
            if hs and s is not system and (not has_system or s != system):
                request.system = s
            elif not hs and has_system:
                request.has_system = False
            if ht and t is not tools and (not has_tools or t != tools):
                request.tools = t
            elif not ht and has_tools:
                request.has_tools = False
            if p is not params and p != params:
                request.params = p
            if o is not order and o != order:
                request.order = o
        warnings = list(self.warnings)  # a run of its own each time (follow mode asks again)
        if self.dropped:
            paths = ", ".join(f"{p} ({n} request{'s' if n != 1 else ''})" for p, n in self.dropped.items())
            warnings.append(LoadWarning(f"credentials dropped on load, not kept in the run: {paths}"))
        meta: dict[str, Any] = {}
        if self.headers and self.headers[-1]:
            meta[HEADERS_KEY] = dict(self.headers[-1])
            differ = [k + 1 for k, h in enumerate(self.headers) if h != self.headers[-1]]
            if differ:
                warnings.append(LoadWarning(
                    f"{len(differ)} model call(s) (first: call {differ[0]}) sent other anthropic-version/"
                    "anthropic-beta headers than the last; the run keeps the last call's"))
        last = self.messages[-1] if self.messages else None
        produced = self.tip_accepted
        prefill = not produced and isinstance(last, dict) and last.get("role") == "assistant"
        return Run(messages=list(self.messages), system=system if has_system else None,
                   tools=tools if has_tools else None, params=params, calls=list(self.calls),
                   source=Source(path=path, format=fmt, prefix=EXACT), warnings=warnings,
                   prefill=prefill, order=order, meta=meta)


#: orjson writes these types as JSON text they are not equal to (a date as its string): here they refuse.
_ONLY_JSON = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS
#: What follows a list item in orjson's output: the next item, or the list's end.
_AFTER_ITEM = (ord(","), ord("]"))


def encode(messages: list[Any]) -> bytes | None:
    """A request's message list serialised, to compare it with the last request's as bytes; None when
    it holds something JSON cannot (a recorder's own types): it is then compared as values."""
    try:
        return orjson.dumps(messages, option=_ONLY_JSON)
    except (orjson.JSONEncodeError, TypeError):
        return None


def _call(exchange: Exchange, n: int) -> ModelCall:
    message = exchange.message if isinstance(exchange.message, dict) else {}
    return ModelCall(message=n, usage=message.get("usage"), stop_reason=message.get("stop_reason"),
                     model=message.get("model"), request_id=exchange.request_id, started=exchange.started,
                     duration_ms=exchange.duration_ms, request=RecordedRequest(messages=n, raw=exchange.raw),
                     status=exchange.status, response_body=exchange.answer, first_byte_ms=exchange.first_byte_ms)


class Grouping:
    """Exchanges grouped into conversations one at a time; ``runs()`` can be asked again after
    more were added (follow mode adds the exchanges appended to a recording as they come)."""

    def __init__(self) -> None:
        self.conversations: list[Conversation] = []
        self.skipped: dict[str, int] = {}
        self.number = 0

    def add(self, exchange: Exchange) -> Conversation | None:
        """Put ``exchange`` in the conversation it continues (or a new one); None if it is no model call."""
        number, self.number = self.number, self.number + 1
        if not exchange.is_messages_call:
            if exchange.is_count_tokens:
                kind = "count_tokens request|: not model calls"
            elif exchange.path.rstrip("/").endswith("/v1/messages"):
                kind = "/v1/messages request| whose body holds no message list: unreadable"
            else:
                kind = f"request| to {exchange.path or 'an unknown endpoint'}: not model calls"
            self.skipped[kind] = self.skipped.get(kind, 0) + 1
            return None
        best, best_diffs = None, None
        encoded = encode(exchange.body["messages"])
        for conversation in reversed(self.conversations):
            if conversation.system != exchange.body.get("system") and \
                    not same_but_cache_control(conversation.system, exchange.body.get("system")):
                continue
            diffs = conversation.differences(exchange.body["messages"], encoded)
            if diffs is not None and (best_diffs is None or len(diffs) < len(best_diffs)):
                best, best_diffs = conversation, diffs
        if best is None:
            best, best_diffs = Conversation(exchange.body), []
            best.first, best.line = number, exchange.line
            self.conversations.append(best)
        best.add(exchange, best_diffs, encoded)
        return best

    def runs(self, path: str, fmt: str) -> list[Run]:
        """Every conversation so far as a run: the agent's thread with the most model calls first."""
        conversations = self.conversations
        if not conversations:
            return []
        kinds = [side_calls.kind_of(c.first_body, len(c.calls)) for c in conversations]
        ranked = sorted(range(len(conversations)), key=lambda i: side_calls.rank_key(
            kinds[i], len(conversations[i].calls), conversations[i].system, conversations[i].fields[-1][1],
            len(conversations[i].messages), conversations[i].first))
        order = [ranked[0]] + [i for i in range(len(conversations)) if i != ranked[0]]
        ordered = [conversations[i] for i in order]
        runs = [c.run(path, fmt) for c in ordered]
        _describe(runs, ordered, [kinds[i] for i in order], self.skipped)
        return runs


def build_runs(exchanges: Iterable[Exchange], path: str, fmt: str) -> list[Run]:
    """Every conversation in the file as a run, the agent's thread first."""
    grouping = Grouping()
    for exchange in exchanges:
        grouping.add(exchange)
    return grouping.runs(path, fmt)


def _describe(runs: list[Run], ordered: list[Conversation], kinds: list[str | None], skipped: dict[str, int]) -> None:
    count = len(runs)
    for k, (run, kind) in enumerate(zip(runs, kinds)):
        run.source.run_index, run.source.run_count = k, count
        if kind is not None:
            run.source.title = side_calls.LABELS[kind]
            run.meta["side_call"] = kind
    _link_compactions(runs, ordered, kinds)
    notes = []
    if count > 1:
        sides = sum(1 for kind in kinds if kind is not None)
        what = "the agent's thread with the most model calls" if kinds[0] is None else "the one with the most model calls"
        notes.append(f"this file holds {count} conversations; this run is {what} (the others: "
                     f"{counted(sides, 'side call')} and {counted(count - 1 - sides, 'other thread')}: `turnscope list`)")
    for kind, n in skipped.items():  # "request|: rest": the noun agrees with the count
        noun, rest = kind.split("|", 1)
        notes.append(f"{counted(n, noun)}{rest}, not part of any run")
    runs[0].warnings[:0] = [LoadWarning(note) for note in notes]


def _link_compactions(runs: list[Run], ordered: list[Conversation], kinds: list[str | None]) -> None:
    """Each thread that restarts with a compaction summary: "continues run K after the compaction"."""
    for s, kind in enumerate(kinds):
        if kind != side_calls.COMPACTION:
            continue
        summary = side_calls.summary_answer(ordered[s].messages)
        line = ordered[s].line
        after = next((k for k, c in enumerate(ordered) if kinds[k] is None and c.messages
                      and side_calls.continues(c.messages[0], summary)), None)
        if after is None:
            continue
        start = ordered[s].messages[0] if ordered[s].messages else None
        before = max((k for k, c in enumerate(ordered) if kinds[k] is None and k != after and c.messages
                      and same_but_cache_control(c.messages[0], start)),
                     key=lambda k: (len(ordered[k].messages), -k), default=None)
        at = f" at line {line}" if line is not None else ""
        runs[after].source.title = (f"continues run {before} after the compaction{at}" if before is not None
                                    else f"starts after the compaction{at}") + f" (summary: run {s})"
        runs[after].meta["continues_run"] = before
        runs[after].warnings.insert(0, LoadWarning(
            f"this thread restarts after a /compact{at}: its first message is the summary run {s} returned"
            + (f"; it continues run {before}" if before is not None else ""), line=ordered[after].line))
        if before is not None:
            runs[before].warnings.append(LoadWarning(
                f"the session was compacted{at} (the summary call is run {s}): run {after} continues this thread",
                line=line))
