"""How a branch ended, in words: why the runner stopped, and what a branch stopped part way keeps.

Shared by the branch verb's output (``tui.commands.branch_output``) and the branch run
screen, so the command line and the app say the same thing.
"""

from __future__ import annotations

#: Why the branch stopped, by ``Finished.stop_reason``.
WHY = {
    "end_turn": "the model ended its turn",
    "stop_sequence": "the model hit a stop sequence",
    "max_tokens": "the model ran out of max_tokens",
    "refusal": "the model refused",
    "pause_turn": "the model paused its turn (pause_turn)",
    "max_steps": "stopped at the step limit",
    "stopped": "stopped: a tool call is left unanswered (the resolver did not answer it)",
    "cancelled": "cancelled",
    "api_error": "stopped: the API call failed",
}


def kept_answers(lineage: dict) -> str:
    """What the lineage keeps of a turn answered part way (empty when nothing is kept)."""
    record = lineage.get("answered")
    count = len(record.get("results") or []) if isinstance(record, dict) else 0
    if not count:
        return ""
    return (f"{count} answer{'s' * (count != 1)} already given to message {record.get('index')}'s tool calls "
            f"{'are' if count != 1 else 'is'} kept: --resume reuses {'them' if count != 1 else 'it'}")
