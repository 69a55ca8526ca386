"""The ``Run``: one agent run, whatever file it came from.

A run is the message list plus what rides beside it in every request (system prompt,
tool schemas, params), the record of each model call, where it came from, and what the
loader had to say about it. Messages are kept exactly as loaded: nothing here rewrites
or re-serialises a block.

Recorded requests (from trace logs and cassettes) are not stored whole: each call keeps
a ``RecordedRequest`` holding only how that request differs from the run (its length,
and the system, tools, params or individual messages where they differ), so the
prefixes share the run's message objects instead of growing with the square of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EXACT = "exact"
RECONSTRUCTED = "reconstructed"

#: The request fields that are not params.
BODY_FIELDS = ("system", "tools", "messages")


@dataclass
class LoadWarning:
    """Something odd the loader saw; ``line`` is 1-based in the file, ``index`` a message index."""

    text: str
    line: int | None = None
    index: int | None = None

    def where(self) -> str:
        if self.line is not None:
            return f"line {self.line}"
        if self.index is not None:
            return f"message {self.index}"
        return ""


@dataclass
class Source:
    """Where a run came from and how much of its requests we actually saw."""

    path: str
    format: str
    prefix: str = RECONSTRUCTED  # EXACT when the prefixes are taken from recorded requests
    run_index: int = 0
    run_count: int = 1
    title: str | None = None


@dataclass
class RecordedRequest:
    """A recorded request, stored as its difference from the run.

    ``messages`` is how many of the run's messages it sent. ``replaced`` maps a message
    index to the message as this request carried it, where that differs from the run's
    (the seeds' rewritten turn). ``system``, ``tools`` and ``params`` are set only when
    they differ from the run's; ``order`` only when the body's key order differs.
    """

    messages: int
    replaced: dict[int, Any] = field(default_factory=dict)
    system: Any = None
    tools: Any = None
    params: dict[str, Any] | None = None
    order: list[str] | None = None
    has_system: bool | None = None  # False when this request sent no system at all
    has_tools: bool | None = None
    #: The body exactly as the source recorded it (a cassette's body string, a trace log's body text);
    #: None where the source kept parsed JSON only, whose bytes are then re-serialised.
    raw: str | None = None
    #: True when the source recorded this request in another API's shape (an OpenAI chat input on
    #: a span) and the loader converted it: the request as recorded, but not its bytes.
    converted: bool | None = None


@dataclass
class ModelCall:
    """One model call: the message it produced and what the source recorded about it."""

    message: int
    usage: dict[str, Any] | None = None
    stop_reason: str | None = None
    model: str | None = None
    request_id: str | None = None
    started: str | None = None
    duration_ms: float | None = None
    request: RecordedRequest | None = None
    #: The content the provider returned, kept only where it differs from the stored turn.
    response: list[Any] | None = None
    status: int | None = None
    #: The answer's body text as the recorder kept it (JSON, or the server-sent events of a stream);
    #: None where the source kept no answer bytes (a transcript, a parsed body).
    response_body: str | None = None
    #: Milliseconds from sending to the answer's first byte, where the recorder measured it (HAR timings).
    first_byte_ms: float | None = None
    #: True when ``started``/``duration_ms`` are derived from a transcript's line timestamps (when lines
    #: were written), not measured on the wire by a recorder.
    derived_timing: bool = False

    def __post_init__(self) -> None:
        """A damaged source can put anything in these fields (a list for a stop_reason); what is not
        of its type is not a fact about the call, and every analysis relies on the types.
        (Written out field by field: a loader makes one per model call, tens of thousands in a big log.)"""
        if self.stop_reason is not None and not isinstance(self.stop_reason, str):
            self.stop_reason = None
        if self.model is not None and not isinstance(self.model, str):
            self.model = None
        if self.request_id is not None and not isinstance(self.request_id, str):
            self.request_id = None
        if self.started is not None and not isinstance(self.started, str):
            self.started = None
        if self.response_body is not None and not isinstance(self.response_body, str):
            self.response_body = None
        if self.usage is not None and not isinstance(self.usage, dict):
            self.usage = None
        if self.response is not None and not isinstance(self.response, list):
            self.response = None
        if self.status is not None and (isinstance(self.status, bool) or not isinstance(self.status, int)):
            self.status = None
        if self.duration_ms is not None and (isinstance(self.duration_ms, bool)
                                             or not isinstance(self.duration_ms, (int, float))):
            self.duration_ms = None
        if self.first_byte_ms is not None and (isinstance(self.first_byte_ms, bool)
                                               or not isinstance(self.first_byte_ms, (int, float))):
            self.first_byte_ms = None


@dataclass
class Run:
    """One agent run: the whole state the model ever saw, plus its provenance."""

    messages: list[Any]
    system: Any = None
    tools: list[Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    calls: list[ModelCall] = field(default_factory=list)
    source: Source = field(default_factory=lambda: Source(path="", format=""))
    warnings: list[LoadWarning] = field(default_factory=list)
    #: True when the last message is an assistant prefill that was sent, not produced.
    prefill: bool = False
    #: Key order of the request body as recorded (None: model, max_tokens, system, tools, ..., messages).
    order: list[str] | None = None
    #: Branch lineage (parent path and hash, branch index, patch, ...); None for an original run.
    lineage: dict[str, Any] | None = None
    #: Free-form facts a loader keeps about the source (session id, trajectory id, ...).
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.calls:
            self.calls = infer_calls(self.messages, self.prefill)
        self._call_of: dict[int, int] | None = None

    # -- lookups -------------------------------------------------------------------------

    def call_index(self, message_index: int) -> int | None:
        """The 0-based model call that produced ``message_index``, or None."""
        if self._call_of is None:
            self._call_of = {c.message: k for k, c in enumerate(self.calls)}
        return self._call_of.get(message_index)

    def call_for(self, message_index: int) -> ModelCall | None:
        k = self.call_index(message_index)
        return None if k is None else self.calls[k]

    def caller_prefill(self, i: int) -> bool:
        """Message ``i`` is an assistant turn the caller wrote and sent as a prefill: no call produced it, and
        the recorded request of the call that produced message ``i + 1`` ended with it (the answer continues it)."""
        k = self.call_index(i + 1)
        if k is None or i < 0 or self.call_index(i) is not None:
            return False
        request = self.calls[k].request
        message = self.messages[i]
        return request is not None and request.messages == i + 1 and isinstance(message, dict) \
            and message.get("role") == "assistant"

    def calls_changed(self) -> None:
        """Forget cached lookups after ``calls`` was edited (branch runner appends)."""
        self._call_of = None

    @property
    def exact(self) -> bool:
        return self.source.prefix == EXACT

    @property
    def model(self) -> str | None:
        model = self.params.get("model")
        if model is None:
            model = next((c.model for c in self.calls if c.model), None)
        return model

    def sizes(self) -> tuple[int, int]:
        """(messages, model calls), as lists show them: a loader's run built on demand answers without building."""
        return len(self.messages), len(self.calls)

    def call_starts(self) -> list[str | None]:
        """Each model call's recorded send time (``ModelCall.started``), in order, as lists read them."""
        return [c.started for c in self.calls]

    def title(self) -> str:
        """A title for lists: the source's own, else the first words the user wrote."""
        if self.source.title:
            return self.source.title
        for message in self.messages:
            if isinstance(message, dict) and message.get("role") == "user":
                words = first_text(message.get("content"))
                if words:
                    words = " ".join(words.split())
                    return words if len(words) <= 80 else words[:79] + "…"
        return "(no user text)"


def infer_calls(messages: list[Any], prefill: bool = False) -> list[ModelCall]:
    """One call per assistant message, for sources that record no calls."""
    last = len(messages) - 1
    calls = []
    for i, message in enumerate(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            if prefill and i == last:
                continue
            calls.append(ModelCall(message=i))
    return calls


def blocks_of(message: Any) -> list[Any]:
    """The content blocks of a message; a string content is one text block."""
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return []


def first_text(content: Any) -> str:
    """The first text of a content value (string or blocks), or ''."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    return text
    return ""


def block_type(block: Any) -> str:
    """A block's type, or a description of why it has none."""
    if isinstance(block, dict):
        kind = block.get("type")
        return kind if isinstance(kind, str) else "(no type)"
    return f"({type(block).__name__})"
