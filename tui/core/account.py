"""The four-sentence account of a message, generated from the run.

The seeds' drill: for each message say what it is, who produced it, what was visible
when it was produced or acted on, and why control moved — every claim tied to an index.
Nothing here is written by hand per run; a slot with no fact says so instead of guessing.
For a model turn that calls tools, the third sentence also says where the values it sent
came from (``tui.core.provenance``): "4471 from message 0, 8900 from message 2", or that a
value is in no earlier message, so the model produced it.
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.core.producers import CALLER, LOOP, MODEL, PREFILL, Producer, producers
from tui.core.provenance import Provenance
from tui.core.run import Run, blocks_of
from tui.core.summary import preview, tool_results, tool_uses


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
            calls = "; ".join(f"{b.get('name')} {_compact(b.get('input'))}" for b in tool_uses(message))
            parts.append(f"{_plural(count, 'tool_use')} ({calls})")
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


def _compact(value: Any, width: int = 60) -> str:
    return preview(jsonio.dumps(value).decode("utf-8", "replace"), width)


def _span(first: int, last: int) -> str:
    return f"message {first}" if first == last else f"messages {first}-{last}"


def who_produced(run: Run, p: Producer) -> str:
    if p.kind == MODEL:
        call = run.calls[p.call]
        model = call.model or run.model
        by = f" ({model})" if model else ""
        return f"It was produced by model call {p.call + 1} of {len(run.calls)}{by}."
    if p.kind == LOOP:
        asked = _asking_turn(run, p.index)
        if asked is None:
            return "It was appended by the loop, carrying tool results no earlier turn asked for."
        wanted = [b.get("id") for b in tool_uses(run.messages[asked])]
        answered = {b.get("tool_use_id") for b in tool_results(run.messages[p.index])}
        missing = [str(i) for i in wanted if i not in answered]
        gap = (f", answering {len(wanted) - len(missing)} of its {len(wanted)} (no result for {', '.join(missing)})"
               if missing else "")
        return f"It was appended by the loop, carrying results for the tool calls of message {asked}{gap}."
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


def what_was_visible(run: Run, p: Producer, provenance: Provenance | None = None) -> str:
    i = p.index
    beside = ("the system prompt and tool schemas" if run.exact or run.system is not None or run.tools
              else "no recorded system prompt or tool schemas (this prefix is reconstructed)")
    if i == 0:
        return f"Nothing in the run came before it; the request that followed carried it with {beside}."
    if p.kind == LOOP:
        asked = _asking_turn(run, i)
        if asked is not None:
            names = ", ".join(f"{b.get('name')} {b.get('id')}" for b in tool_uses(run.messages[asked]))
            seen = _next_request(run, i)
            later = (f"the model first sees these results in the request for message {seen}" if seen is not None
                     else "no later request carried these results to the model")
            return f"The loop acted on the tool calls of message {asked} ({names}); {later}."
    if p.kind in (MODEL, PREFILL):
        sources = _sources(run, i, provenance) if p.kind == MODEL else ""
        return f"The model could see {_span(0, i - 1)} ({_visible_summary(run, i)}) and {beside}{sources}."
    return f"{_span(0, i - 1).capitalize()} came before it ({_visible_summary(run, i)})."


def _next_request(run: Run, i: int) -> int | None:
    """The first message after ``i`` produced by a model call whose request carried message ``i``."""
    for call in run.calls:
        sent = call.request.messages if call.request is not None else call.message
        if call.message > i and sent > i:
            return call.message
    return None


def _sources(run: Run, i: int, provenance: Provenance | None) -> str:
    """'; of the values it sent, 4471 came from message 0, ...' for a turn with tool_use blocks."""
    if not tool_uses(run.messages[i]):
        return ""
    values = (provenance or Provenance(run)).trace(i).traced
    if not values:
        return ""
    found, missing = [], []
    for v in values:
        shown = _compact(v.value, 30)
        if v.source is None:
            missing.append(shown)
            continue
        where = v.source.index
        where = f"message {where}" if isinstance(where, int) else ("the system prompt" if where == "system"
                                                                    else "the tool schemas")
        own = " (its own earlier turn)" if v.by_model else ""
        found.append(f"{shown} from {where}{own}")
    parts = []
    if found:
        found[0] = found[0].replace(" from ", " came from ", 1)
        parts.append("of the values it sent, " + ", ".join(found[:6]) + (", ..." if len(found) > 6 else ""))
    if missing:
        parts.append(", ".join(missing[:4]) + (" is" if len(missing) == 1 else " are")
                     + " in no earlier message, system prompt or tool schema: produced by the model")
    return "; " + "; ".join(parts)


def _visible_summary(run: Run, i: int) -> str:
    items = []
    for j in range(i):
        message = run.messages[j]
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            names = [str(b.get("name")) for b in tool_uses(message)]
            items.append(f"turn {j}" + (f" asking for {', '.join(names)}" if names else ""))
        elif tool_results(message):
            errors = sum(1 for b in tool_results(message) if b.get("is_error"))
            items.append(f"results {j}" + (f" ({errors} is_error)" if errors else ""))
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
    stop = ""
    if p.stop_reason:
        stop = (f" (stop_reason {p.stop_reason}, inferred from the blocks)" if p.stop_inferred
                else f" (recorded stop_reason {p.stop_reason})")
    text = p.transition
    if p.kind == MODEL:
        text = "Its " + text  # "Its tool_use hands control ...", "Its end_turn ends the run"
    else:
        text = text[0].upper() + text[1:]
    if following is not None:
        nxt = table[following]
        who = {MODEL: f"model call {nxt.call + 1 if nxt.call is not None else '?'}", LOOP: "the loop",
               CALLER: "the caller"}.get(nxt.kind, nxt.kind)
        return f"{text}{stop}; message {following} comes from {who}."
    return f"{text}{stop}; nothing follows message {i}."


def account(run: Run, i: int, table: list[Producer] | None = None,
            provenance: Provenance | None = None) -> list[str]:
    """The four sentences for message ``i``; pass ``table`` and ``provenance`` to reuse them across messages."""
    table = table or producers(run)
    p = table[i]
    return [what_it_is(i, run.messages[i]), who_produced(run, p), what_was_visible(run, p, provenance),
            why_control_moved(run, p, table)]


def accounts(run: Run) -> list[list[str]]:
    """The four sentences for every message, sharing one producer table and one value index."""
    table, provenance = producers(run), Provenance(run)
    return [account(run, i, table, provenance) for i in range(len(run.messages))]
