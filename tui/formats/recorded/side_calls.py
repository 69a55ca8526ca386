"""What each recorded conversation is: the agent's thread, or a side call a client makes beside it.

A claude-trace log of a real Claude Code session holds far more than the agent's turns: quota
probes (``max_tokens: 1``), a title-generation call, a short call per keystroke for the
spinner's gerund word, a bash-path extractor, and the ``/compact`` summary call (the whole
conversation plus a request for a summary, under its own system prompt), after which the
agent's thread restarts at one message holding that summary. Each side call is recognised by
what its request asks (read from its system prompt and last user text, never from the
user's words) and gets a label of its kind; the agent's threads are ranked by model calls,
then by how much of the agent's system prompt and tool list they carry, so the default run is
the agent's thread and not the longest side call. A thread that starts with a compaction
summary's answer is tied to the thread the summary was made from.
"""

from __future__ import annotations

from typing import Any

QUOTA = "quota probe"
TITLE = "title"
SPINNER = "spinner word"
PATHS = "path extraction"
COMPACTION = "compaction summary"

#: The label each kind gets in ``list``, the picker and the run list.
LABELS = {QUOTA: "side call: quota probe (max_tokens 1)", TITLE: "side call: title generation",
          SPINNER: "side call: spinner word", PATHS: "side call: path extraction (bash command)",
          COMPACTION: "side call: compaction summary (/compact)"}


def text_of(value: Any) -> str:
    """All the text of a system prompt or a message's content (string or blocks), joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return text_of(value.get("content"))
    if isinstance(value, list):
        return "\n".join(b["text"] for b in value if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


def kind_of(body: dict[str, Any], calls: int) -> str | None:
    """The side-call kind of a conversation whose first request is ``body`` (None: an agent thread)."""
    if calls > 2:
        return None  # a side call is one request (a retry makes two); more is somebody's thread
    if body.get("max_tokens") == 1:
        return QUOTA
    system = text_of(body.get("system")).lower()
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    last = text_of(messages[-1]).lower() if messages else ""
    if "summary of the conversation" in last or ("summar" in system and "conversation" in system
                                                   and "title" not in system):
        return COMPACTION
    if "gerund" in system or "gerund" in last:
        return SPINNER
    if "title" in system or ("title" in last and len(messages) == 1 and not body.get("tools")):
        return TITLE
    if "file path" in system and "command" in system:
        return PATHS
    return None


def rank_key(kind: str | None, calls: int, system: Any, tools: Any, messages: int, first: int) -> tuple:
    """Sort key: agent threads before side calls, then most model calls, then the longer system prompt
    and tool list (the agent's), then most messages, then the earliest."""
    return (kind is not None, -calls, -len(text_of(system)), -(len(tools) if isinstance(tools, list) else 0),
            -messages, first)


def summary_answer(messages: list[Any]) -> str:
    """The summary a compaction call returned: the text of its answer (the run's last message)."""
    last = messages[-1] if messages else None
    if isinstance(last, dict) and last.get("role") == "assistant":
        return text_of(last).strip()
    return ""


def continues(first_message: Any, summary: str) -> bool:
    """A thread whose first message carries the compaction summary (Claude Code puts it after a line of its own)."""
    if len(summary) < 20:
        return False
    head = summary[:400]
    return head in text_of(first_message)
