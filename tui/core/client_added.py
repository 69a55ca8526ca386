"""What a client added to the messages of a run, as its loader marked it (``Run.meta[ADDED_KEY]``).

A client such as Claude Code sends more than its user wrote and its model answered: listings
and reminders it puts in the messages (a ``role: "system"`` message, a ``<system-reminder>``
text block). A loader that rebuilds them marks each piece: ``{"client": NAME, "pieces": {KEY:
HOW}}`` where KEY is ``"i"`` (message i, all of it) or ``"i.b"`` (block b of message i) and HOW is
``"rebuilt"`` (from what the source recorded) or ``"approximate"`` (part of it was not recorded).
The stepper marks those blocks and the account names them.
"""

from __future__ import annotations

from typing import Any

from tui.core.run import Run

ADDED_KEY = "added_by_client"
APPROXIMATE = "approximate"


def _pieces(run: Run) -> tuple[str, dict[str, Any]]:
    added = run.meta.get(ADDED_KEY) if isinstance(run.meta, dict) else None
    if not isinstance(added, dict) or not isinstance(added.get("pieces"), dict):
        return "", {}
    client = added.get("client")
    return (client if isinstance(client, str) else "the client"), added["pieces"]


def added_mark(run: Run, i: int, b: int | None = None) -> str | None:
    """The mark for block ``b`` of message ``i`` (or the whole message): "added by CLIENT[, approximate]"."""
    client, pieces = _pieces(run)
    how = pieces.get(str(i)) if str(i) in pieces else pieces.get(f"{i}.{b}") if b is not None else None
    if not isinstance(how, str):
        return None
    return f"added by {client}" + (", approximate" if how == APPROXIMATE else "")


def added_blocks(run: Run, i: int) -> dict[int | None, str]:
    """Every mark in message ``i``: block index (None for the whole message) -> mark."""
    client, pieces = _pieces(run)
    out: dict[int | None, str] = {}
    for key, how in pieces.items():
        head, _, tail = str(key).partition(".")
        if head == str(i) and isinstance(how, str):
            mark = f"added by {client}" + (", approximate" if how == APPROXIMATE else "")
            if not tail:
                out[None] = mark
            elif tail.isdigit():
                out[int(tail)] = mark
    return out
