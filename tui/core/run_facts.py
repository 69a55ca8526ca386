"""Facts about a whole run that per-message analyses ask for again and again, computed once.

The account of message N says how many assistant turns and tool calls came before it and
which tool each result answers; asked for every N of a long run, recounting from message 0
each time made the account of a 20,000-message run take minutes. ``run_facts`` keeps prefix
sums (and the run's model, which ``Run.model`` finds by scanning the calls) for the last run
asked about, rebuilt when the run grows (a branch appends turns); ``names_by_id`` looks back
only as far as the results it names can reach.
"""

from __future__ import annotations

import weakref
from typing import Any

from tui.core.grammar.messages import id_key
from tui.core.run import Run
from tui.core.summary import tool_uses

#: Messages listed one by one between the model's last turn and message N; more are counted, not listed.
HISTORY_ITEMS = 12

_last: tuple[Any, tuple[int, int], list[int], list[int], Any] | None = None


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def run_facts(run: Run) -> tuple[list[int], list[int], Any]:
    """(assistant turns among messages 0..k-1, their tool calls: both indexed by k; the run's model)."""
    global _last
    facts = _last  # one read: another thread may replace it meanwhile
    size = (len(run.messages), len(run.calls))
    if facts is None or facts[0]() is not run or facts[1] != size:
        turns, calls = [0], [0]
        for message in run.messages:
            own = _role(message) == "assistant"
            turns.append(turns[-1] + own)
            calls.append(calls[-1] + (len(tool_uses(message)) if own else 0))
        facts = (weakref.ref(run), size, turns, calls, run.model)
        _last = facts
    return facts[2], facts[3], facts[4]


def turns_before(run: Run, k: int) -> tuple[int, int]:
    """Assistant turns among messages 1..k-1 and the tool calls they made."""
    turns, calls, _ = run_facts(run)
    return turns[k] - turns[1], calls[k] - calls[1]


def names_by_id(run: Run, i: int) -> dict[Any, Any]:
    """Tool names by id, from the assistant turn before ``i`` that made calls (searching back at most
    ``HISTORY_ITEMS`` assistant turns: the results quoted answer the latest ones)."""
    names: dict[Any, Any] = {}
    turns = 0
    for j in range(i - 1, -1, -1):
        if _role(run.messages[j]) == "assistant":
            for b in tool_uses(run.messages[j]):
                names.setdefault(id_key(b.get("id")), b.get("name"))
            turns += 1
            if names or turns > HISTORY_ITEMS:
                break
    return names
