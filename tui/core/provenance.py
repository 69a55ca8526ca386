"""Where did each value in a tool call come from?

For the ``tool_use`` blocks of message N, every scalar of their inputs is looked up in the
prefix (messages 0..N-1): its source is the earliest message holding it, with the block
and jq-style path inside it (``tui.core.valueindex`` says what counts as holding it). When
no message holds it, the system prompt and tool schemas are tried (they ride in every
request, so they are named only when no message is the source). A value found nowhere is
**not in the prefix: produced by the model** — the model made it up rather than read it.

Trivial values are not traced, since they turn up everywhere by coincidence: booleans,
null, and any value whose text form is shorter than two characters (one-character strings,
the digits 0-9, the empty string). They are listed apart, never flagged.

The index is built once per run (``Provenance(run)``); tracing any N afterwards costs a dict
look-up per value, plus one substring search for strings that are not a single token.

Only values whose origin matters are flagged: ids, numbers, amounts, paths and other single
tokens. Free text a model is expected to write (a description, a message, a command it
composes: ``prose``) is looked up but never flagged. When the source did not record the system
prompt and tools, an unfound value is "not found in the messages", never "produced by the
model": they may hold it (``not_found``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

from tui.core.blocks import TOOL_USE_TYPES
from tui.core.memo import BoundedMemo
from tui.core.run import Run, blocks_of
from tui.core.valueindex import Place, Scope, index_fixed, number_key
from tui.core.values import input_scalars, trivial
from tui.core.wanted import WantedScope, index_wanted, wanted_values

NOT_IN_PREFIX = "not in the prefix: produced by the model"
#: What an untraced value is when the source did not record what rides beside the messages: it may be there.
NOT_FOUND_UNRECORDED = "not found in the messages (the system prompt and tools were not recorded)"
#: Inputs that hold words the model writes (a description, a message, a command it composes): their
#: origin is the model by design, so they are looked up but never flagged.
PROSE_KEYS = frozenset(("description", "command", "cmd", "message", "prompt", "text", "content", "body",
                        "query", "reason", "title", "summary", "note", "notes", "comment", "subject", "thought",
                        "old_string", "new_string", "code", "script", "plan", "answer", "response", "explanation"))
_LAST_KEY = re.compile(r'(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\]|\\.)*")\])$')


def not_found(run: Run) -> str:
    """How to name a value no message holds: produced by the model only when the system prompt and the
    tools were recorded (else they may hold it)."""
    if run.exact or (run.system is not None and run.tools is not None):
        return NOT_IN_PREFIX
    if run.system is None and run.tools is None:
        return NOT_FOUND_UNRECORDED
    missing = "system prompt was" if run.system is None else "tools were"
    return f"not found in the messages or the {'tools' if run.system is None else 'system prompt'} " \
           f"(the {missing} not recorded)"


def prose(path: str, value: Any) -> bool:
    """Free text a model is expected to write: a field named for words (``.description``, ``.command``),
    several lines, or a sentence. Ids, numbers, amounts, paths and other single tokens are not prose."""
    if not isinstance(value, str):
        return False
    if _prose_key(path):
        return True
    words = value.split()
    return "\n" in value or len(words) >= 4 or (len(words) > 1 and len(value) > 40)


def _names_words(path: str) -> bool:
    """Whether the last key of ``path`` names words (``PROSE_KEYS``)."""
    found = _LAST_KEY.search(path)
    key = found.group(1) if found and found.group(1) else (orjson.loads(found.group(2)) if found else None)
    return isinstance(key, str) and key.lower() in PROSE_KEYS


#: ``_names_words`` per path, remembered (a run has few paths).
_PROSE_PATHS: BoundedMemo[str, bool] = BoundedMemo(_names_words, 10_000)
_prose_key = _PROSE_PATHS.__getitem__


@dataclass
class Value:
    """One value in a tool call's input, with the earlier place in the prefix it came from (None: nowhere)."""

    tool_use_id: str | None
    name: str | None
    block: int  # the tool_use block's index in message N
    path: str  # jq-style path inside the tool input
    value: Any
    source: Place | None
    trivial: bool = False
    by_model: bool = False  # the source is an assistant turn: the model's own earlier output
    prose: bool = False  # words the model writes (``prose``): looked up, never flagged

    @property
    def unsourced(self) -> bool:
        """Flagged: a value whose origin matters (an id, a number, an amount, a path) that nothing holds."""
        return self.source is None and not self.trivial and not self.prose

    def source_json(self) -> dict[str, Any] | None:
        if self.source is None:
            return None
        return {"index": self.source.index, "block": self.source.block, "path": self.source.path}

    def as_json(self) -> dict[str, Any]:
        return {"tool_use_id": self.tool_use_id, "path": self.path, "value": self.value, "source": self.source_json()}


@dataclass
class Trace:
    """The values of every tool call in message N, traced to where each came from."""

    at: int
    tool_uses: int
    values: list[Value]

    @property
    def traced(self) -> list[Value]:
        return [v for v in self.values if not v.trivial]

    @property
    def unsourced(self) -> list[Value]:
        return [v for v in self.values if v.unsourced]

    def as_json(self) -> dict[str, Any]:
        skipped = [{"tool_use_id": v.tool_use_id, "path": v.path, "value": v.value}
                   for v in self.values if v.trivial]
        doc: dict[str, Any] = {"at": self.at, "values": [v.as_json() for v in self.traced]}
        if skipped:
            doc["trivial"] = skipped
        return doc


class Provenance:
    """The prefix of a run, indexed once; ``trace(n)`` for any message n."""

    def __init__(self, run: Run, tick=None):
        self.run = run
        self.tick = tick  # called before each message is indexed: a worker may pause or stop there
        self._messages: WantedScope | None = None
        self._fixed: Scope | None = None
        self._firsts: dict[tuple[bool, Any], Place] = {}  # value -> its earliest place in the messages (``find``)

    @property
    def messages(self) -> WantedScope:
        """The messages' index, for the values the run's tool calls hold (``tui.core.wanted``)."""
        if self._messages is None:
            messages = self.run.messages
            self._messages = index_wanted(messages, wanted_values(messages), self.tick)
        return self._messages

    @property
    def fixed(self) -> Scope:
        if self._fixed is None:
            self._fixed = index_fixed(self.run.system, self.run.tools)
        return self._fixed

    def find(self, value: Any, before: int) -> Place | None:
        """The first place in messages 0..before-1 (else the system prompt or tools) holding ``value``."""
        cache = (isinstance(value, str), value)
        known = self._firsts.get(cache)
        if known is not None and known.index < before:
            return known
        keys = []
        if isinstance(value, str):
            keys.append(("s", value))
        number = number_key(value)
        if number is not None:
            keys.append(number)
        for scope, limit in ((self.messages, before), (self.fixed, None)):
            best = None
            for key in keys:
                place = scope.get(key)
                if place is not None and (limit is None or place.index < limit) and \
                        (best is None or _order(place) < _order(best)):
                    best = place  # (the first of the earliest, as ``min`` gives it)
            if best is not None:
                if limit is not None:
                    # The earliest of the value's places in the messages answers every ``before`` past it: a
                    # place counted later is later than it. (Not so for a text occurrence: a place of the
                    # value itself, further on, comes first.)
                    self._firsts[cache] = best
                return best
            if isinstance(value, str):
                place = scope.search(value, limit)
                if place is not None:
                    return place
        return None

    def trace(self, n: int) -> Trace:
        messages = self.run.messages
        if not 0 <= n < len(messages):
            raise IndexError(n)
        values: list[Value] = []
        uses = 0
        find = self.find
        for b, block in enumerate(blocks_of(messages[n])):
            if not isinstance(block, dict) or block.get("type") not in TOOL_USE_TYPES:
                continue
            uses += 1
            tool_id, name = block.get("id"), block.get("name")
            for path, scalar in input_scalars(block.get("input")):
                if trivial(scalar):
                    values.append(Value(tool_id, name, b, path, scalar, None, trivial=True))
                    continue
                place = find(scalar, n)
                by_model = (place is not None and isinstance(place.index, int)
                            and _role(messages[place.index]) == "assistant")
                values.append(Value(tool_id, name, b, path, scalar, place, by_model=by_model,
                                    prose=prose(path, scalar)))
        return Trace(n, uses, values)

    def unsourced(self) -> list[tuple[int, Value]]:
        """Every non-trivial tool input value of the run that no earlier message, system or tool holds."""
        out = []
        for i, message in enumerate(self.run.messages):
            if _role(message) == "assistant" and any(
                    isinstance(b, dict) and b.get("type") in TOOL_USE_TYPES for b in blocks_of(message)):
                out += [(i, v) for v in self.trace(i).unsourced]
        return out


def trace_row(trace: Trace) -> tuple:
    """``trace`` as plain tuples (what a worker process sends: pickled and unpickled several times faster
    than the dataclasses); ``trace_of`` makes the same ``Trace`` again."""
    return (trace.at, trace.tool_uses, [
        (v.tool_use_id, v.name, v.block, v.path, v.value,
         None if (p := v.source) is None else (p.index, p.block, p.path, p.start, p.end, p.how),
         v.trivial, v.by_model, v.prose) for v in trace.values])


def trace_of(row: tuple) -> Trace:
    """The ``Trace`` that ``trace_row`` gave ``row`` for."""
    at, uses, values = row
    return Trace(at, uses, list(map(value_of, values)))


def unsourced_of(row: tuple) -> list[Value]:
    """``trace_of(row).unsourced`` (a row of ``trace_row``), without making the other values (most of them)."""
    return list(map(value_of, unsourced_rows(row)))


def unsourced_rows(row: tuple) -> list[tuple]:
    """The rows of the values of ``row`` (a row of ``trace_row``) that ``Trace.unsourced`` lists."""
    return [v for v in row[2] if v[5] is None and not v[6] and not v[8]]  # as ``Value.unsourced``


def value_of(v: tuple) -> Value:
    """The ``Value`` of one value row of a ``trace_row``."""
    tool_id, name, block, path, value, source, trivial_, by_model, prose_ = v
    return Value(tool_id, name, block, path, value, None if source is None else Place(*source), trivial_, by_model,
                 prose_)


def _order(place: Place) -> tuple[int, int]:
    return (place.index if isinstance(place.index, int) else 0, place.block)


def _role(message: Any) -> str | None:
    return message.get("role") if isinstance(message, dict) else None


def trace(run: Run, n: int) -> Trace:
    return Provenance(run).trace(n)


_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.')
_MISSING = object()


def at_path(value: Any, path: str) -> Any:
    """The value at a jq-style path as ``tui.core.valueindex`` writes them (``.content | fromjson |
    .[0].total_cents``, ``.input["a b"]``); ``None`` when the path does not lead anywhere."""
    for k, part in enumerate(path.split(" | fromjson | ")):
        if k:
            if not isinstance(value, str):
                return None
            try:
                value = orjson.loads(value)
            except orjson.JSONDecodeError:
                return None
        at = 0
        while at < len(part):
            step = _STEP.match(part, at)
            if step is None:
                return None
            at = step.end()
            name, number, quoted = step.groups()
            key: Any = name if name is not None else (int(number) if number is not None else
                                                      (orjson.loads(quoted) if quoted is not None else _MISSING))
            if key is _MISSING:
                continue
            if isinstance(key, int) and isinstance(value, list) and key < len(value):
                value = value[key]
            elif isinstance(key, str) and isinstance(value, dict) and key in value:
                value = value[key]
            else:
                return None
    return value


def source_block(run: Run, place: Place) -> Any:
    """The block (or tool schema) a place points into, or None."""
    if place.index == "tools":
        tools = run.tools if isinstance(run.tools, list) else []
        return tools[place.block] if 0 <= place.block < len(tools) else None
    if place.index == "system":
        blocks = blocks_of({"content": run.system})
    elif isinstance(place.index, int) and 0 <= place.index < len(run.messages):
        blocks = blocks_of(run.messages[place.index])
    else:
        return None
    return blocks[place.block] if 0 <= place.block < len(blocks) else None


def source_text(run: Run, value: Value) -> str | None:
    """The characters that hold ``value`` at its source, as they read there (``8,900`` for a value
    found as a token of text, ``8900`` inside JSON), so a view can mark them; None when unsourced."""
    place = value.source
    if place is None:
        return None
    found = at_path(source_block(run, place), place.path)
    if isinstance(found, str) and place.start is not None and place.end is not None:
        return found[place.start:place.end] or None
    if isinstance(found, str):
        return found if isinstance(value.value, str) or found == str(value.value) else str(value.value)
    if found is not None and not isinstance(found, (dict, list)):
        return orjson.dumps(found).decode()
    return value.value if isinstance(value.value, str) else orjson.dumps(value.value).decode()
