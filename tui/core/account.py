"""The four-sentence account of a message, generated from the run.

The seeds' drill: for each message say what it is, who produced it, what was visible
when it was produced or acted on, and why control moved — every claim tied to an index.
Nothing here is written by hand per run; a slot with no fact says so instead of guessing.
The visible slot names the facts the model had just received (the newest tool results,
quoted briefly), because "it could see messages 0-2" alone answers nothing; for a turn
that calls tools it also says where the values it sent came from (``tui.core.provenance``):
"4471 came from message 0, 8900 from message 2", or that a value is in no earlier message,
so the model produced it.
"""

from __future__ import annotations

from typing import Any

from tui.core import jsonio
from tui.core.grammar.messages import id_key
from tui.core.run_facts import HISTORY_ITEMS, names_by_id, run_facts, turns_before
from tui.core.producers import CALLER, LOOP, MODEL, PREFILL, Producer, producers
from tui.core.provenance import NOT_IN_PREFIX, Provenance, not_found
from tui.core.run import Run, blocks_of, first_text
from tui.core.summary import json_preview, preview, tool_results, tool_uses

#: How much of a tool input or result a sentence quotes.
QUOTE = 100


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _and(items: list[str]) -> str:
    if not items:
        return "nothing"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else jsonio.dumps(value).decode("utf-8", "replace")
    return preview(text, QUOTE)


def _call_text(block: dict[str, Any]) -> str:
    return f"{block.get('name')} {_compact(block.get('input'))}"


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        content = " ".join(b["text"] if isinstance(b, dict) and b.get("type") == "text"
                           and isinstance(b.get("text"), str)
                           else f"[{b.get('type') if isinstance(b, dict) else '?'}]" for b in content)
    text = _compact(content if content is not None else "")
    return f"{text} (is_error)" if block.get("is_error") else text


def what_it_is(i: int, message: Any) -> str:
    role = message.get("role") if isinstance(message, dict) else None
    noun = {"user": "a user turn", "assistant": "an assistant turn"}.get(role) if isinstance(role, str) else None
    noun = noun or f"a message with role {repr(role)[:60]}"  # a role that is a list or an object: a finding
    parts: list[str] = []
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        parts.append(f'the text "{preview(content, QUOTE)}"')
    else:
        counts: dict[str, int] = {}
        for block in blocks_of(message):
            kind = block.get("type") if isinstance(block, dict) else None
            counts[str(kind)] = counts.get(str(kind), 0) + 1
        for kind, count in counts.items():
            if kind == "tool_use":
                calls = "; ".join(_call_text(b) for b in tool_uses(message))
                parts.append(f"{_plural(count, 'tool_use')}: {calls}")
            elif kind == "tool_result":
                results = tool_results(message)
                errors = sum(1 for b in results if b.get("is_error"))
                note = f", {errors} marked is_error" if errors else ""
                parts.append(f"{_plural(count, 'tool_result')} for {', '.join(str(b.get('tool_use_id')) for b in results)}"
                             f"{note}")
            elif kind == "text" and count == 1:
                parts.append(f'a text block ("{preview(first_text(content) or "", QUOTE)}")')
            else:
                parts.append(_plural(count, f"{kind} block"))
    return f"Message {i} is {noun} holding {_and(parts) if parts else 'no content'}."


def who_produced(run: Run, p: Producer) -> str:
    if p.kind == MODEL:
        call = run.calls[p.call]
        model = call.model or run_facts(run)[2]
        by = f" ({model})" if model else ""
        return f"It was produced by model call {p.call + 1} of {len(run.calls)}{by}."
    if p.kind == LOOP:
        asked = _asking_turn(run, p.index)
        if asked is None:
            return "It was appended by the loop, carrying tool results no earlier turn asked for."
        wanted = [b.get("id") for b in tool_uses(run.messages[asked])]
        answered = {id_key(b.get("tool_use_id")) for b in tool_results(run.messages[p.index])}
        missing = [str(x) for x in wanted if id_key(x) not in answered]
        gap = (f", answering {len(wanted) - len(missing)} of its {len(wanted)} (no result for {', '.join(missing)})"
               if missing else "")
        return f"It was appended by the loop, carrying results for the tool calls of message {asked}{gap}."
    if p.kind == CALLER:
        return "It was written by the caller, not by the model or the loop."
    if p.kind == PREFILL:
        return "It was written by the caller as a prefill for the model to continue."
    return "No recorded model call produced it."


def _asking_turn(run: Run, i: int) -> int | None:
    wanted = [b.get("tool_use_id") for b in tool_results(run.messages[i])]  # ids may be lists: no set
    for j in range(i - 1, -1, -1):
        if any(b.get("id") in wanted for b in tool_uses(run.messages[j])):
            return j
    return None


def _beside(run: Run) -> str:
    tools = len(run.tools) if isinstance(run.tools, list) else 0
    have = []
    if run.system is not None:
        have.append("the system prompt")
    if tools:
        have.append(_plural(tools, "tool schema"))
    if have:
        return "with " + _and(have)
    return "with no system prompt or tool schemas recorded in this source"


def what_was_visible(run: Run, p: Producer, provenance: Provenance | None = None) -> str:
    i = p.index
    if i == 0:
        return f"Nothing in the run came before it; the first request carried it {_beside(run)}."
    if p.kind == LOOP:
        asked = _asking_turn(run, i)
        if asked is not None:
            calls = "; ".join(f"{_call_text(b)} ({b.get('id')})" for b in tool_uses(run.messages[asked]))
            seen = _next_request(run, i)
            later = (f"the model first sees these results in the request for message {seen}" if seen is not None
                     else "no later request carried these results to the model")
            return f"The loop acted on the tool_use blocks of message {asked}: {calls}; {later}."
    span = "message 0" if i == 1 else f"messages 0-{i - 1}"
    if p.kind in (MODEL, PREFILL):
        sources = _sources(run, i, provenance) if p.kind == MODEL else ""
        return f"When it was produced the model could see {span}: {_history(run, i, own=True)}, {_beside(run)}{sources}."
    return f"{span[0].upper()}{span[1:]} came before it: {_history(run, i, own=False)}."


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
        shown = json_preview(v.value, 30)
        if v.source is None:
            if v.unsourced:  # words the model wrote are not flagged
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
        found_nowhere = not_found(run)
        parts.append(", ".join(missing[:4]) + (" is" if len(missing) == 1 else " are")
                     + (" in no earlier message, system prompt or tool schema: produced by the model"
                        if found_nowhere == NOT_IN_PREFIX else " " + found_nowhere))
    return "; " + "; ".join(parts)


def _history(run: Run, i: int, own: bool) -> str:
    """Messages 0..i-1 in brief: the oldest and the model's own last turn by index, the
    results that arrived since that turn quoted (they are what the model is answering)."""
    last_turn = next((j for j in range(i - 1, -1, -1) if _role(run.messages[j]) == "assistant"), None)
    items = []
    first = run.messages[0]
    if _role(first) == "user" and not tool_results(first):
        items.append(f'the caller\'s message 0 ("{preview(first_text(first.get("content")), 60)}")')
    elif last_turn != 0:
        items.append("message 0")
    start = 1
    if last_turn is not None:  # message 0 itself, when the run opens with the assistant
        turns, calls = turns_before(run, last_turn)
        if turns:
            items.append(f"{_plural(turns, 'earlier turn')} (messages {start}-{last_turn - 1}, "
                         f"{_plural(calls, 'tool call')} and their results)")
        names = ", ".join(str(b.get("name")) for b in tool_uses(run.messages[last_turn]))
        items.append(f"{'its own turn' if own else 'the assistant turn'} {last_turn}"
                     + (f" asking for {names}" if names else ""))
        start = last_turn + 1
    names = names_by_id(run, i)
    if i - start > HISTORY_ITEMS:  # a long stretch without a model turn: the latest few, and a count
        items.append(f"messages {start}-{i - HISTORY_ITEMS - 1} ({i - HISTORY_ITEMS - start:,} messages)")
        start = i - HISTORY_ITEMS
    for j in range(start, i):
        message = run.messages[j]
        results = tool_results(message)
        if results:
            quoted = "; ".join(f"{names.get(id_key(b.get('tool_use_id')), b.get('tool_use_id'))} returned {_result_text(b)}"
                               for b in results[:4])
            more = f"; and {len(results) - 4} more" if len(results) > 4 else ""
            items.append(f"the results at message {j} ({quoted}{more})")
        elif _role(message) == "user":
            items.append(f'the caller\'s message {j} ("{preview(first_text(message.get("content")), 60)}")')
        elif j != 0:
            items.append(f"message {j}")
    return _and(items)


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def why_control_moved(run: Run, p: Producer, table: list[Producer]) -> str:
    i = p.index
    following = i + 1 if i + 1 < len(run.messages) else None
    stop = f" (stop_reason {p.stop_reason}{', inferred' if p.stop_reason and p.stop_inferred else ''})" \
        if p.stop_reason else ""
    if p.kind == MODEL:
        if tool_uses(run.messages[i]):
            text = f"The turn contains a tool call{stop}, so control moved to the loop"
            if following is None:
                text += ", which never answered: the run ends here"
        elif p.stop_reason in ("end_turn", "stop_sequence"):
            text = f"The turn contains no tool call{stop}, so " + (
                "the run ends here" if following is None else "control returned to the caller")
        else:
            text = f"The turn contains no tool call{stop}: {p.transition}"
    else:
        text = p.transition[0].upper() + p.transition[1:]
    if following is not None:
        nxt = table[following]
        who = {MODEL: f"model call {nxt.call + 1 if nxt.call is not None else '?'}", LOOP: "the loop",
               CALLER: "the caller"}.get(nxt.kind, nxt.kind)
        return f"{text}; message {following} comes from {who}."
    return f"{text} (nothing follows message {i})."


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
