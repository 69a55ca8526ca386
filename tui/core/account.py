"""The four-sentence account of a message, generated from the run.

The seeds' drill: for each message say what it is, who produced it, what was visible
when it was produced or acted on, and why control moved — every claim tied to an index.
Nothing here is written by hand per run; a slot with no fact says so instead of guessing.
"""

from __future__ import annotations

from typing import Any

from tui.core.producers import CALLER, LOOP, MODEL, PREFILL, Producer, producers
from tui.core.run import Run, blocks_of
from tui.core.summary import tool_results, tool_uses


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def what_it_is(i: int, message: Any) -> str:
    role = message.get("role") if isinstance(message, dict) else None
    blocks = blocks_of(message)
    kinds: dict[str, int] = {}
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        kinds[str(kind)] = kinds.get(str(kind), 0) + 1
    parts = []
    for kind, count in kinds.items():
        if kind == "tool_use":
            names = ", ".join(str(b.get("name")) for b in tool_uses(message))
            parts.append(f"{_plural(count, 'tool_use')} ({names})")
        elif kind == "tool_result":
            errors = sum(1 for b in tool_results(message) if b.get("is_error"))
            note = f", {errors} marked is_error" if errors else ""
            ids = ", ".join(str(b.get("tool_use_id")) for b in tool_results(message))
            parts.append(f"{_plural(count, 'tool_result')} ({ids}{note})")
        else:
            parts.append(f"{_plural(count, kind + ' block')}")
    holding = ", ".join(parts) if parts else "no content"
    noun = {"user": "a user turn", "assistant": "an assistant turn"}.get(role, f"a message with role {role!r}")
    return f"Message {i} is {noun} holding {holding}."


def who_produced(run: Run, p: Producer) -> str:
    if p.kind == MODEL:
        call = run.calls[p.call]
        model = call.model or run.model
        by = f" ({model})" if model else ""
        return f"It was produced by model call {p.call + 1} of {len(run.calls)}{by}."
    if p.kind == LOOP:
        asked = _asking_turn(run, p.index)
        return (f"It was appended by the loop, carrying results for the tool calls of message {asked}."
                if asked is not None else "It was appended by the loop, carrying tool results no earlier turn asked for.")
    if p.kind == CALLER:
        return "It was written by the caller, not by the model or the loop."
    if p.kind == PREFILL:
        return "It was written by the caller as a prefill for the model to continue."
    return "No recorded model call produced it."


def _asking_turn(run: Run, i: int) -> int | None:
    wanted = {b.get("tool_use_id") for b in tool_results(run.messages[i])}
    for j in range(i - 1, -1, -1):
        if any(b.get("id") in wanted for b in tool_uses(run.messages[j])):
            return j
    return None


def what_was_visible(run: Run, p: Producer) -> str:
    i = p.index
    beside = ("the system prompt and tool schemas" if run.exact or run.system is not None or run.tools
              else "no recorded system prompt or tool schemas (this prefix is reconstructed)")
    if i == 0:
        return f"Nothing in the run came before it; the request that followed carried it with {beside}."
    if p.kind == LOOP:
        asked = _asking_turn(run, i)
        if asked is not None:
            names = ", ".join(f"{b.get('name')} {b.get('id')}" for b in tool_uses(run.messages[asked]))
            return f"The loop acted on the tool_use blocks of message {asked} ({names}); the model saw nothing new."
    if p.kind in (MODEL, PREFILL):
        return f"The model could see messages 0-{i - 1} ({_visible_summary(run, i)}) and {beside}."
    return f"Messages 0-{i - 1} came before it ({_visible_summary(run, i)})."


def _visible_summary(run: Run, i: int) -> str:
    items = []
    for j in range(i):
        message = run.messages[j]
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            names = [str(b.get("name")) for b in tool_uses(message)]
            items.append(f"turn {j}" + (f" asking for {', '.join(names)}" if names else ""))
        elif tool_results(message):
            items.append(f"results {j}")
        else:
            items.append(f"the caller's message {j}")
    if len(items) > 6:
        head = ", ".join(items[:2])
        tail = ", ".join(items[-3:])
        return f"{head}, ... {len(items) - 5} more ..., {tail}"
    return ", ".join(items)


def why_control_moved(run: Run, p: Producer, table: list[Producer]) -> str:
    i = p.index
    following = i + 1 if i + 1 < len(run.messages) else None
    stop = f" (stop_reason {p.stop_reason}{', inferred' if p.stop_inferred else ''})" if p.stop_reason else ""
    text = p.transition[0].upper() + p.transition[1:]
    if following is not None:
        nxt = table[following]
        who = {MODEL: f"model call {nxt.call + 1 if nxt.call is not None else '?'}", LOOP: "the loop",
               CALLER: "the caller"}.get(nxt.kind, nxt.kind)
        return f"{text}{stop}; message {following} comes from {who}."
    return f"{text}{stop}."


def account(run: Run, i: int, table: list[Producer] | None = None) -> list[str]:
    """The four sentences for message ``i``."""
    table = table or producers(run)
    p = table[i]
    return [what_it_is(i, run.messages[i]), who_produced(run, p), what_was_visible(run, p),
            why_control_moved(run, p, table)]
