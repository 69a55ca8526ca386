"""What the branch runner reports while it runs: typed events the CLI prints and the app renders.

``Runner.events()`` yields these in order. A step is one model call: ``StepStarted``, then
``BlockStarted``/``Delta`` as the turn streams in, then ``TurnSaved`` once the complete
assistant turn is on disk (before any of its tool calls is dispatched). Each tool call is
``ToolCall`` then ``ToolResolved``; the user turn of results is another ``TurnSaved``.
The last event is always ``Finished``, whose ``stop_reason`` says why the branch stopped:

- ``end_turn`` (or the model's other final stop reasons: ``max_tokens``, ``stop_sequence``,
  ``refusal``, ``pause_turn``): the model finished its turn;
- ``max_steps``: the step limit was reached (tool calls of the last turn left unanswered);
- ``stopped``: a resolver left a tool call unanswered;
- ``cancelled``: ``Runner.cancel()`` (or Ctrl-C) stopped it; a turn in flight is not saved;
- ``api_error``: the API call failed; ``error`` says how. Nothing saved is lost.

Run text inside events is untrusted: show it through ``tui.core.safe`` (or plain ``Text``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.core.run import ModelCall

FINISHED_OK = ("end_turn", "stop_sequence", "max_tokens", "refusal", "pause_turn")


@dataclass
class ApiFailure:
    """A failed model call, described without the API key (it is never part of any of these)."""

    kind: str  # "status" (the API answered with an error), "connection", "no_key", "other"
    message: str  # the API's own message where there is one
    status: int | None = None
    error_type: str | None = None  # e.g. invalid_request_error, rate_limit_error, overloaded_error
    request_id: str | None = None

    def line(self) -> str:
        """One line for a terminal or a status bar."""
        if self.kind == "status" and self.status is None:  # an error event in the middle of the stream
            head = "the API stopped the stream" + (f" with {self.error_type}" if self.error_type else "")
        elif self.kind == "status":
            head = f"the API answered {self.status}" + (f" {self.error_type}" if self.error_type else "")
        elif self.kind == "connection":
            head = "could not reach the API"
        elif self.kind == "no_key":
            return self.message
        else:
            head = "the model call failed"
        tail = f" (request {self.request_id})" if self.request_id else ""
        return f"{head}: {self.message}{tail}"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "type": self.error_type, "message": self.message,
                "request_id": self.request_id}


@dataclass
class StepStarted:
    """The runner sends model call ``step`` of the branch, asking for message ``index``."""

    step: int  # 1-based model call of this branch
    index: int  # the message index the model is asked for
    model: str | None


@dataclass
class BlockStarted:
    """A content block of the message being streamed began."""

    index: int  # message index being streamed
    block: int
    type: str  # text, tool_use, thinking, ...
    name: str | None = None  # the tool name of a tool_use block


@dataclass
class Delta:
    """A piece of a streamed block: text, thinking or a tool input's JSON."""

    index: int
    block: int
    kind: str  # "text", "thinking" or "input_json"
    text: str


@dataclass
class TurnSaved:
    """A complete message appended to the branch and saved (atomically) to ``path``."""

    index: int
    message: dict[str, Any]
    call: ModelCall | None  # the model call that produced it (None for a user turn of results)
    path: str


@dataclass
class ToolCall:
    """The model asked for a tool: the call a resolver answers."""

    index: int  # the assistant turn holding the call
    id: str
    name: str
    input: Any
    why: str = ""  # set by a resolver that could not answer it (e.g. the edit made it ambiguous)


@dataclass
class ToolResolved:
    """A tool call was answered (or left unanswered), and by which resolver."""

    index: int
    id: str
    name: str
    result: dict[str, Any] | None  # the tool_result block, or None: left unanswered
    via: str  # which resolver answered ("recorded message 4", "python", "manual", "stop", ...)


@dataclass
class Finished:
    """The runner stopped: why, after how many calls, the messages it appended and any API failure."""

    stop_reason: str
    steps: int  # model calls made by this run of the runner
    path: str
    error: ApiFailure | None = None
    new: list[dict[str, Any]] = field(default_factory=list)  # messages appended by this run
    first: int = 0  # index of the first of ``new``

    @property
    def ok(self) -> bool:
        return self.error is None


Event = StepStarted | BlockStarted | Delta | TurnSaved | ToolCall | ToolResolved | Finished
