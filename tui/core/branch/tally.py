"""What an experiment's samples did, counted: per arm, the first action, tool sequences, stop
reasons, steps and a named event, with 95% Wilson intervals and the difference between arms.

No Textual, no SDK: the summary is computed from the saved branch files (``Sample``), so the
numbers the CLI prints, ``--json`` writes and the app's experiment screen shows are one
computation. The original run is one more row (one draw, not a distribution).

An event (``Event.parse``) is one of:

- ``TOOL``: the model called the tool ``TOOL`` anywhere in the continuation;
- ``TOOL:PATH=VALUE``: it called ``TOOL`` with ``input`` at the dotted ``PATH`` equal to
  ``VALUE`` (read as JSON when it parses, else as a string): ``issue_refund:amount_cents=8900``;
- ``text:WORDS``: the final answer's text contains ``WORDS`` (case folded).

Intervals: Wilson's score interval for one proportion; Newcombe's hybrid score interval
(method 10) for the difference between two, both at 95%.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson

from tui.core import jsonio
from tui.core.errors import UsageError
from tui.core.run import Run, blocks_of

Z95 = 1.959963984540054
#: Below this many samples an arm's interval is called wide in words, not just in numbers.
FEW = 20


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for ``hits`` out of ``n`` (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(h1: int, n1: int, h2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """The difference ``p1 - p2`` and its 95% interval (Newcombe's hybrid score method)."""
    p1, p2 = (h1 / n1 if n1 else 0.0), (h2 / n2 if n2 else 0.0)
    l1, u1 = wilson(h1, n1, z)
    l2, u2 = wilson(h2, n2, z)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


@dataclass(frozen=True)
class Event:
    """A named event to count in each sample (see the module docstring for the spellings)."""

    spec: str
    kind: str  # "tool" or "text"
    name: str = ""
    path: tuple[str, ...] = ()
    value: Any = None
    has_value: bool = False

    @classmethod
    def parse(cls, spec: str) -> Event:
        spec = spec.strip()
        if not spec:
            raise UsageError("--event: give a tool name, TOOL:PATH=VALUE or text:WORDS")
        if spec.startswith("text:"):
            words = spec[len("text:"):]
            if not words.strip():
                raise UsageError("--event text:WORDS needs the words to look for")
            return cls(spec, "text", value=words.casefold())
        name, colon, match = spec.partition(":")
        if not colon:
            return cls(spec, "tool", name=name)
        path, eq, raw = match.partition("=")
        if not eq or not path.strip():
            raise UsageError(f"--event {spec!r}: an input match is TOOL:PATH=VALUE (e.g. issue_refund:amount_cents=8900)")
        try:
            value = jsonio.loads(raw.encode(), "--event")
        except Exception:  # noqa: BLE001 - not JSON: the text itself
            value = raw
        return cls(spec, "tool", name=name, path=tuple(p for p in path.strip().lstrip("$.").split(".") if p),
                   value=value, has_value=True)

    def happened(self, continuation: list[Any]) -> bool:
        if self.kind == "text":
            final = final_text(continuation)
            return final is not None and self.value in final.casefold()
        for message in continuation:
            for block in blocks_of(message):
                if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == self.name:
                    if not self.has_value or _at(block.get("input"), self.path) == (True, self.value):
                        return True
        return False


def _at(value: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    for part in path:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False, None
    return True, value


def final_text(continuation: list[Any]) -> str | None:
    """The text of the last assistant turn when it calls no tool (the final answer), else None."""
    for message in reversed(continuation):
        if isinstance(message, dict) and message.get("role") == "assistant":
            blocks = blocks_of(message)
            if any(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks):
                return None
            return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    return None


def _compact(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return str(value)


def first_action(message: Any) -> str:
    """One assistant turn's action in words: the tools it called with their input, or a final answer."""
    if not (isinstance(message, dict) and message.get("role") == "assistant"):
        return "(no turn)"
    calls = [f"{b.get('name')} {_compact(b.get('input'))}" for b in blocks_of(message)
             if isinstance(b, dict) and b.get("type") == "tool_use"]
    return " + ".join(calls) if calls else "final answer"


@dataclass
class Sample:
    """One sample's outcome, read from its branch file (or the original run after N)."""

    path: str
    status: str
    steps: int
    first: str  # ``first_action`` of the first new assistant turn
    tools: tuple[str, ...]  # tool names called in the continuation, in order
    event: bool | None  # None: no event named
    first_turn: bytes = b""  # the first new assistant turn's bytes, to tell identical answers

    @classmethod
    def of(cls, run: Run, at: int, event: Event | None, path: str = "", status: str | None = None) -> Sample:
        continuation = run.messages[at + 1:]
        first = next((m for m in continuation if isinstance(m, dict) and m.get("role") == "assistant"), None)
        tools = tuple(str(b.get("name")) for m in continuation if isinstance(m, dict) and m.get("role") == "assistant"
                      for b in blocks_of(m) if isinstance(b, dict) and b.get("type") == "tool_use")
        steps = sum(1 for m in continuation if isinstance(m, dict) and m.get("role") == "assistant")
        if status is None:
            status = str((run.lineage or {}).get("status", "?"))
        return cls(path, status, steps, first_action(first), tools,
                   event.happened(continuation) if event is not None else None,
                   jsonio.dumps(first.get("content")) if isinstance(first, dict) else b"")


@dataclass
class Arm:
    """One arm's samples and their distributions."""

    name: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def done(self) -> list[Sample]:
        """Samples that ran to an end (not still running, not failed)."""
        return [s for s in self.samples if s.status not in ("running", "api_error", "cancelled", "error", "missing")]

    def distribution(self, what: str) -> list[tuple[str, int]]:
        values = {"first": lambda s: s.first, "tools": lambda s: " > ".join(s.tools) or "(no tool)",
                  "stop": lambda s: s.status, "steps": lambda s: str(s.steps)}[what]
        return Counter(values(s) for s in self.done).most_common()

    @property
    def hits(self) -> int:
        return sum(1 for s in self.done if s.event)

    def interval(self) -> tuple[float, float]:
        return wilson(self.hits, len(self.done))

    @property
    def identical(self) -> bool:
        """Every completed sample's first new turn is byte-identical (two or more samples)."""
        done = self.done
        return len(done) > 1 and len({s.first_turn for s in done}) == 1


def percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def summary(arms: list[Arm], original: Sample | None, event: Event | None, temperature: Any = None) -> dict[str, Any]:
    """The numbers (``--json``) and the honest words about them (``notes``)."""
    doc: dict[str, Any] = {"event": event.spec if event else None, "arms": {}, "notes": []}
    for arm in arms:
        done = arm.done
        entry: dict[str, Any] = {
            "samples": len(arm.samples), "completed": len(done),
            "first_action": arm.distribution("first"), "tool_sequences": arm.distribution("tools"),
            "stop_reasons": arm.distribution("stop"), "steps": arm.distribution("steps"),
            "identical": arm.identical}
        if event is not None:
            low, high = arm.interval()
            entry["event"] = {"count": arm.hits, "of": len(done), "rate": arm.hits / len(done) if done else None,
                              "interval95": [low, high]}
        doc["arms"][arm.name] = entry
    if original is not None:
        doc["original"] = {"first_action": original.first, "tools": list(original.tools), "stop_reason": original.status,
                           "steps": original.steps, "event": original.event}
    by_name = {a.name: a for a in arms}
    if event is not None and "edited" in by_name and "control" in by_name:
        e, c = by_name["edited"], by_name["control"]
        if e.done and c.done:
            d, low, high = newcombe(e.hits, len(e.done), c.hits, len(c.done))
            doc["difference"] = {"edited_minus_control": d, "interval95": [low, high],
                                 "excludes_zero": low > 0 or high < 0}
    notes = doc["notes"]
    for arm in arms:
        n = len(arm.done)
        if n < len(arm.samples):
            notes.append(f"{arm.name}: {len(arm.samples) - n} of {len(arm.samples)} samples did not finish "
                         "(counted out of the ones that did)")
        if 0 < n < FEW and event is not None:
            low, high = arm.interval()
            notes.append(f"{arm.name}: with {n} sample{'s' * (n != 1)} the 95% interval is wide "
                         f"({percent(low)} to {percent(high)}): this shows what is plausible, not a rate")
        if arm.identical:
            notes.append(f"{arm.name}: all {n} samples gave the identical first answer: they are not independent "
                         "draws here (temperature 0, or a deterministic endpoint), so K adds nothing")
    if temperature == 0:
        notes.append("the request sets temperature 0: samples will likely be identical")
    if "difference" in doc:
        diff = doc["difference"]
        if not diff["excludes_zero"]:
            notes.append("the difference between edited and control includes 0: these samples do not show the "
                         "edit changed how often the event happens")
    return doc
