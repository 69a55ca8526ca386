"""Pairing: every tool_use answered by a tool_result in the very next user turn, no orphans.

The API merges consecutive same-role messages into one turn before it checks pairing,
so pairing is checked on those merged turns; findings still name the raw message and
block. The likely cause of each break is read off the shape around it, in the seeds'
terms (a result skipped by an exception handler, only ``calls[0]`` answered, results
appended before their assistant turn, a window truncated between a turn and its results).
"""

from __future__ import annotations

from typing import Any

from tui.core.grammar.findings import Findings
from tui.core.grammar.messages import id_key

Turn = tuple[str, list[int]]  # role, raw message indices


def turns(messages: list[Any]) -> list[Turn]:
    """Consecutive same-role messages merged, as the API merges them."""
    out: list[Turn] = []
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        role = role if role in ("user", "assistant") else f"?{i}"
        if out and out[-1][0] == role:
            out[-1][1].append(i)
        else:
            out.append((role, [i]))
    return out


def _blocks(messages: list[Any], indices: list[int]):
    for i in indices:
        content = messages[i].get("content") if isinstance(messages[i], dict) else None
        if isinstance(content, list):
            for b, block in enumerate(content):
                if isinstance(block, dict):
                    yield i, b, block


def check(out: Findings, messages: list[Any], prefill: bool) -> None:
    merged = turns(messages)
    all_uses = {}
    for i, b, block in _blocks(messages, range(len(messages))):
        if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
            all_uses.setdefault(block["id"], i)
    for t, (role, indices) in enumerate(merged):
        previous = merged[t - 1] if t else None
        if role == "assistant":
            _answered(out, messages, indices, merged[t + 1] if t + 1 < len(merged) else None, prefill)
        elif role == "user":
            _orphans(out, messages, indices, previous, all_uses)


def _answered(out: Findings, messages: list[Any], indices: list[int], following: Turn | None,
              prefill: bool) -> None:
    uses = [(i, b, block["id"]) for i, b, block in _blocks(messages, indices)
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str)]
    if not uses:
        return
    ids = [u[2] for u in uses]
    if following is None:
        if prefill:
            out.add("tool_use_without_result", indices[-1], None, ids=", ".join(ids),
                    cause="the request was sent before the loop appended the results")
        else:
            out.add("tool_use_unanswered_at_end", indices[-1], None, detail=", ".join(ids))
        return
    if following[0] != "user":
        return  # an invalid message follows; it has its own finding
    answered: list[str] = []
    split_at = None
    first_other = None
    for i, b, block in _blocks(messages, following[1]):
        if block.get("type") == "tool_result":
            if first_other is not None:
                out.add("tool_result_not_first", i, b, ids=block.get("tool_use_id"),
                        detail=f"block {first_other[1]} of message {first_other[0]} comes before it")
            answered.append(block.get("tool_use_id"))
            if i != following[1][0] and split_at is None and block.get("tool_use_id") in ids:
                split_at = i
        elif first_other is None:
            first_other = (i, b)
    missing = [x for x in ids if x not in answered]
    if missing:
        out.add("tool_use_without_result", following[1][0], None, ids=", ".join(missing),
                cause=_missing_cause(ids, answered, missing))
    if split_at is not None:
        out.add("results_split_across_turns", split_at, None,
                detail=f"results for message {indices[-1]} start in message {following[1][0]}")


def _missing_cause(ids: list[str], answered: list[str], missing: list[str]) -> str:
    if not any(x in ids for x in answered):
        return ("the results message was never appended: a user message took its place, or a "
                "truncation cut between the turn and its results")
    if len(ids) > 1 and [x for x in answered if x in ids] == [ids[0]]:
        return "only calls[0] was dispatched; the other calls in the turn were never answered"
    return ("a result skipped by an exception handler instead of returned as an is_error "
            "tool_result")


def _orphans(out: Findings, messages: list[Any], indices: list[int], previous: Turn | None,
             all_uses: dict[str, int]) -> None:
    offered: set[str] = set()
    if previous is not None and previous[0] == "assistant":
        offered = {id_key(block.get("id")) for _, _, block in _blocks(messages, previous[1])
                   if block.get("type") == "tool_use"}
    seen: set[Any] = set()
    for i, b, block in _blocks(messages, indices):
        if block.get("type") != "tool_result":
            continue
        target = block.get("tool_use_id")
        if id_key(target) in seen:
            out.add("duplicate_tool_result_id", i, b, detail=f"id {target}")
        seen.add(id_key(target))
        if id_key(target) in offered:
            continue
        cause = _orphan_cause(i, target, previous, all_uses, after_user=i != indices[0])
        out.add("unexpected_tool_use_id", i, b, ids=target, cause=cause)


def _orphan_cause(i: int, target: Any, previous: Turn | None, all_uses: dict[str, int],
                  after_user: bool) -> str:
    asked = all_uses.get(target) if isinstance(target, str) else None
    if asked is not None and asked > i:
        return ("results appended before their assistant turn (a retry raised between the two "
                f"appends; the turn that asked for it is at message {asked})")
    if asked is not None:
        return f"the result arrived late: the tool_use is at message {asked}, not in the turn just before"
    if previous is None:
        return "a window truncated between a turn and its results: the turn that asked for it was cut"
    if after_user or previous[0] == "user":
        return ("results appended before their assistant turn, and that turn was lost (a retry "
                "raised between the two appends), or an assistant turn was dropped")
    return "a result for a call the previous turn never made (a wrong or stale tool_use_id)"
