"""Who produced each message, and which transition it caused.

Only two events add a message: a model call appends an assistant turn, and the loop
appends a user turn (the caller's words at index 0 and whenever the caller writes again,
or tool results). So each index has one producer — the caller, model call k, or the loop
— and one transition: a turn with ``tool_use`` hands control to the loop, results hand
it back to the model, ``end_turn`` ends the run (or returns it to the caller). While the
alternation holds, parity names the producer (even: the loop's, odd: the model's); where
it breaks, that index is marked. A ``role: "system"`` message (Claude Code sends one with the
mid-conversation-system beta) is the client's context, not a turn of the loop: its producer is
the client, and the alternation is judged across it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.run import Run

CALLER = "caller"
MODEL = "model"
LOOP = "loop"
PREFILL = "prefill"
CLIENT = "client"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Producer:
    """Who produced message N (caller, model call k, the loop...) and why control moved there."""

    index: int
    kind: str  # caller | model | loop | prefill | client | unknown
    call: int | None  # 0-based model call for kind == model
    stop_reason: str | None  # recorded, or inferred from the blocks (see ``stop_inferred``)
    stop_inferred: bool
    transition: str  # one phrase: why control moved
    parity_break: bool  # this message breaks the user/assistant alternation

    @property
    def label(self) -> str:
        if self.kind == MODEL and self.call is not None:
            return f"call {self.call + 1}"
        return self.kind


def _kinds(message: dict) -> set:
    content = message.get("content")
    if isinstance(content, list):
        return {b.get("type") for b in content if isinstance(b, dict) and isinstance(b.get("type"), str)}
    return {"text"} if isinstance(content, str) else set()


def producers(run: Run, upto: int | None = None) -> list[Producer]:
    """The producer of every message (or of messages ``0..upto-1``: the same entries, fewer)."""
    count = len(run.messages) if upto is None else min(upto, len(run.messages))
    return [producer_at(run, i) for i in range(count)]


def producer_at(run: Run, i: int) -> Producer:
    """The producer of message ``i`` alone: it depends only on messages ``i - 1`` and ``i``, so a
    viewer can ask for the rows it shows without walking the whole run."""
    messages = run.messages
    last = len(messages) - 1
    message = messages[i]
    role = message.get("role") if isinstance(message, dict) else None
    j = i - 1
    while j >= 0 and isinstance(messages[j], dict) and messages[j].get("role") == "system":
        j -= 1  # the client's context between two turns: the alternation is judged across it
    before = messages[j] if j >= 0 else None
    previous_role = before.get("role") if isinstance(before, dict) else None
    parity_break = (i == 0 and role != "user") or (role is not None and role != "system" and role == previous_role)
    if role == "system":
        return Producer(i, CLIENT, None, None, False,
                        "the client's context rides with the next request; control does not move", parity_break)
    k = run.call_index(i)
    kinds = _kinds(message) if role is not None else set()
    if role == "assistant":
        if k is None:
            prefill = (run.prefill and i == last) or run.caller_prefill(i)
            return Producer(i, PREFILL if prefill else UNKNOWN, None, None, False,
                            "sent as a prefill: the model continues this turn" if prefill
                            else "not produced by a recorded call", parity_break)
        call = run.calls[k]
        stop, inferred = call.stop_reason, False
        if stop is None:
            stop, inferred = ("tool_use" if "tool_use" in kinds else "end_turn"), True
        return Producer(i, MODEL, k, stop, inferred, _model_transition(stop, i == last, "tool_use" in kinds),
                        parity_break)
    if role == "user":
        results = "tool_result" in kinds
        if i == last:
            transition = "the run stops here: the next request was never answered"
        elif results:
            transition = "results hand control back to the model"
        else:
            transition = "the caller's message hands control to the model"
        return Producer(i, LOOP if results else CALLER, None, None, False, transition, parity_break)
    return Producer(i, UNKNOWN, None, None, False, "not a user or assistant message", parity_break)


def _model_transition(stop: str, last: bool, has_tool_use: bool) -> str:
    if stop == "tool_use" or has_tool_use:
        if last:
            return "tool_use hands control to the loop, which never answered: the run ends here"
        return "tool_use hands control to the loop"
    if stop == "max_tokens":
        return "max_tokens cut the turn off" + (": the run ends here" if last else "")
    if stop == "pause_turn":
        return "pause_turn: the loop re-sends the request so the model can continue"
    if stop == "refusal":
        return "the model refused" + (": the run ends here" if last else "")
    if last:
        return f"{stop} ends the run"
    return f"{stop} returns control to the caller"
