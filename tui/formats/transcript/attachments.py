"""What Claude Code makes of a transcript's ``attachment`` lines, and of the context it adds to every request.

Claude Code keeps on ``attachment`` lines content it sends with its requests but that is not a
user or assistant message: the agent types the Agent tool can start, the skills the Skill tool
can load. Held against what Claude Code (2.1.197) really POSTs, each such line becomes text of a
``role: "system"`` message in its place among the messages (with the
``mid-conversation-system`` beta), consecutive lines one message joined by a blank line; the
text is the line's payload in a fixed frame (``render``). Kinds whose frame is not known here
are not rebuilt: the loader names them (Claude Code may have sent them).

Besides, every request opens message 0 with a ``<system-reminder>`` text block of the user's
context (today's date, and the CLAUDE.md files when there are any), which no line records:
``context_reminder`` rebuilds it from the date of the session's first line, so it is
approximate (the local date may differ from the UTC one, and CLAUDE.md text is not recorded).

Which versions are rebuilt this way (``rebuild_mode``): the ones whose requests were compared
(``COMPARED``) as rebuilt, the versions after them and before ``CHANGED_BY`` with every added piece
labelled approximate (not compared: their frames may differ). An older transcript is read as
before; so is one of ``CHANGED_BY`` or later, which sends other attachments in other frames
(environment, model, date, ...) and writes ``api-request-blob`` and ``prompt_snapshot`` lines
turnscope does not read yet.
"""

from __future__ import annotations

from typing import Any

#: The Claude Code versions whose requests this rebuild was checked against (tests/test_claude_code_real.py).
COMPARED = ((2, 1, 197),)
#: The first version tried whose requests are made otherwise (2.1.332: other attachments and frames).
CHANGED_BY = (2, 1, 332)
REBUILT_SINCE = COMPARED[0]
EXACT_VERSION, UNCOMPARED_VERSION = "compared", "not compared"
#: The beta that makes its role: system messages valid; every request of those versions carried it.
CLAUDE_CODE_SYSTEM_BETA = "mid-conversation-system-2026-04-07"

_CONCURRENCY = ("When you launch multiple agents for independent work, send them in a single message with "
                "multiple tool uses so they run concurrently.")
_CONTEXT = ("<system-reminder>\nAs you answer the user's questions, you can use the following context:\n"
            "# currentDate\nToday's date is {date}.\n\n      IMPORTANT: this context may or may not be relevant "
            "to your tasks. You should not respond to this context unless it is highly relevant to your task.\n"
            "</system-reminder>\n\n")


def version_tuple(version: Any) -> tuple[int, ...] | None:
    if not isinstance(version, str):
        return None
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        if not digits:
            return None
        parts.append(int(digits))
    return tuple(parts)


def rebuild_mode(version: Any) -> str | None:
    """How a transcript written by this Claude Code version is rebuilt as its client sends it:
    ``EXACT_VERSION`` (compared), ``UNCOMPARED_VERSION`` (between the compared ones and ``CHANGED_BY``), or None."""
    parsed = version_tuple(version)
    if parsed is None or parsed < REBUILT_SINCE or parsed >= CHANGED_BY:
        return None
    return EXACT_VERSION if parsed in COMPARED else UNCOMPARED_VERSION


def rebuilds(version: Any) -> bool:
    return rebuild_mode(version) is not None


def render(attachment: Any) -> str | None:
    """The text Claude Code sends for an attachment line, or None for a kind not rebuilt here."""
    if not isinstance(attachment, dict):
        return None
    kind = attachment.get("type")
    if kind == "agent_listing_delta":
        lines = attachment.get("addedLines")
        if attachment.get("removedTypes") or not attachment.get("isInitial") or not isinstance(lines, list) \
                or not all(isinstance(line, str) for line in lines):
            return None  # a later change of the listing: its frame is not known here
        text = "Available agent types for the Agent tool:\n" + "\n".join(lines)
        return text + "\n\n" + _CONCURRENCY if attachment.get("showConcurrencyNote") else text
    if kind == "skill_listing":
        content = attachment.get("content")
        if not isinstance(content, str) or not attachment.get("isInitial"):
            return None
        return "The following skills are available for use with the Skill tool:\n\n" + content
    return None


def kind_of(attachment: Any) -> str:
    kind = attachment.get("type") if isinstance(attachment, dict) else None
    return kind if isinstance(kind, str) else "(no type)"


def context_reminder(timestamp: str | None) -> dict[str, Any] | None:
    """The ``<system-reminder>`` block of the user's context, dated by ``timestamp`` (ISO, UTC)."""
    if not isinstance(timestamp, str) or len(timestamp) < 10 or timestamp[4] != "-" or timestamp[7] != "-":
        return None
    return {"type": "text", "text": _CONTEXT.format(date=timestamp[:10])}
