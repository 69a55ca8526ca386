"""Pairing: every tool_use answered by a tool_result in the very next user turn, no orphans.

The API merges consecutive same-role messages into one turn before it checks pairing,
so pairing is checked on those merged turns; findings still name the raw message and
block. The likely cause of each break is read off the shape around it, in the seeds'
terms (a result skipped by an exception handler, only ``calls[0]`` answered, results
appended before their assistant turn, a window truncated between a turn and its results).

One pass over the merged turns; each turn's blocks are scanned once. The whole-run maps
the causes need (where each id was asked for and answered) are built only when a break
is found.
"""

from __future__ import annotations

from typing import Any

from tui.core.grammar.findings import Findings
from tui.core.grammar.messages import id_key

Turn = tuple[str, list[int]]  # role, raw message indices


def turns(messages: list[Any]) -> list[Turn]:
    """Consecutive same-role messages merged, as the API merges them."""
    out: list[Turn] = []
    last_role = None
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role != "user" and role != "assistant":
            role = f"?{i}"
        if role == last_role:
            out[-1][1].append(i)
        else:
            out.append((role, [i]))
            last_role = role
    return out


class _Scan:
    """One merged turn's pairing facts: its tool_use ids, and its tool_results in order."""

    __slots__ = ("uses", "results", "first_other")

    def __init__(self, messages: list[Any], indices: list[int]):
        uses: list[tuple[int, int, str, Any]] = []  # (index, block, id, name)
        results: list[tuple[int, int, Any, bool]] = []  # (index, block, tool_use_id, after other)
        first_other: tuple[int, int] | None = None
        for i in indices:
            content = messages[i].get("content")
            if not isinstance(content, list):
                if content and first_other is None:
                    first_other = (i, 0)  # a string content is one text block
                continue
            for b, block in enumerate(content):
                kind = block.get("type") if isinstance(block, dict) else None
                if kind == "tool_use":
                    block_id = block.get("id")
                    if isinstance(block_id, str):
                        uses.append((i, b, block_id, block.get("name")))
                elif kind == "tool_result":
                    results.append((i, b, block.get("tool_use_id"), first_other is not None))
                elif first_other is None:
                    first_other = (i, b)
        self.uses, self.results, self.first_other = uses, results, first_other


class _RunIds:
    """Where each tool_use id is asked for and answered in the whole run (built on demand)."""

    def __init__(self, messages: list[Any]):
        self.asked: dict[str, int] = {}
        self.answered: dict[Any, list[int]] = {}
        for i, message in enumerate(messages):
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind == "tool_use" and isinstance(block.get("id"), str):
                    self.asked.setdefault(block["id"], i)
                elif kind == "tool_result":
                    self.answered.setdefault(id_key(block.get("tool_use_id")), []).append(i)


def check(out: Findings, messages: list[Any], prefill: bool) -> None:
    merged = turns(messages)
    ids: list[_RunIds | None] = [None]

    def run_ids() -> _RunIds:
        if ids[0] is None:
            ids[0] = _RunIds(messages)
        return ids[0]

    scans: dict[int, _Scan] = {}

    def scan(t: int) -> _Scan:
        if t not in scans:
            scans.clear()  # only the current turn and the next are ever needed
            scans[t] = _Scan(messages, merged[t][1])
        return scans[t]

    for t, (role, indices) in enumerate(merged):
        if role == "assistant":
            this = scan(t)
            if this.uses:
                following = merged[t + 1] if t + 1 < len(merged) else None
                nxt = _Scan(messages, following[1]) if following and following[0] == "user" else None
                _answered(out, indices, this, following, nxt, prefill, run_ids)
                if nxt is not None:
                    scans[t + 1] = nxt
        elif role == "user":
            this = scan(t)
            if this.results:
                previous = merged[t - 1] if t else None
                offered = ({u[2] for u in scans[t - 1].uses} if t - 1 in scans
                           else {u[2] for u in _Scan(messages, previous[1]).uses}) \
                    if previous is not None and previous[0] == "assistant" else set()
                _orphans(out, indices, this, previous, offered, run_ids)


def _answered(out: Findings, indices: list[int], this: _Scan, following: Turn | None, nxt: _Scan | None,
              prefill: bool, run_ids) -> None:
    ids = [u[2] for u in this.uses]
    if following is None:
        names = ", ".join(f"{u[3]} {u[2]}" for u in this.uses)
        if prefill:
            out.add("tool_use_without_result", indices[-1], None, ids=", ".join(ids),
                    cause="the request was sent before the loop appended the results")
        else:
            out.add("tool_use_unanswered_at_end", indices[-1], None, detail=names)
        return
    if nxt is None:
        return  # an invalid message follows; it has its own finding
    answered = [r[2] for r in nxt.results]
    misplaced = [r for r in nxt.results if r[3]]
    if misplaced:
        at, block = nxt.first_other
        cause = None
        if any(r[0] != at for r in misplaced):
            cause = (f"a user message (message {at}) was appended between the turn and its results; "
                     "the API merges the two, so its content comes before the results")
        out.add("tool_result_not_first", at, block, api_index=following[1][0],
                ids=", ".join(str(r[2]) for r in misplaced),
                detail=f"block {block} of message {at} comes before the results", cause=cause)
    if answered == ids and nxt.results[0][0] == nxt.results[-1][0]:
        return  # every call answered, in order, in one message: the common case, nothing to report
    wanted = set(ids)
    holders = sorted({r[0] for r in nxt.results if id_key(r[2]) in wanted})
    split_at = holders[1] if len(holders) > 1 else None
    got = {id_key(a) for a in answered}
    missing = [u for u in this.uses if u[2] not in got]
    if missing:
        out.add("tool_use_without_result", following[1][0], None, ids=", ".join(u[2] for u in missing),
                detail="unanswered: " + ", ".join(f"{u[3]} {u[2]}" for u in missing),
                cause=_missing_cause(indices, ids, answered, missing, nxt, run_ids))
    if split_at is not None:
        out.add("results_split_across_turns", split_at, None,
                detail=f"results for message {indices[-1]} are in messages {', '.join(map(str, holders))}")


def _missing_cause(indices: list[int], ids: list[str], answered: list[Any], missing: list, nxt: _Scan,
                   run_ids) -> str:
    where = run_ids().answered
    earlier = [u for u in missing if any(k < indices[0] for k in where.get(u[2], ()))]
    later = [u for u in missing if any(k > indices[-1] + 1 for k in where.get(u[2], ()))]
    if earlier:
        return ("results appended before their assistant turn: the result for "
                f"{earlier[0][2]} is at message {min(where[earlier[0][2]])}, before the turn that asked for it")
    if later:
        return (f"the result for {later[0][2]} was appended later, at message {max(where[later[0][2]])}, "
                "not in the turn right after the call")
    if not any(x in ids for x in answered):
        if nxt.results:
            return "the results message answers another turn's calls: a results message went missing"
        return ("the results message was never appended: a user message took its place, or a "
                "truncation cut between the turn and its results")
    if len(ids) > 1 and [x for x in answered if x in ids] == [ids[0]]:
        return "only calls[0] was dispatched; the other calls in the turn were never answered"
    return "a result skipped by an exception handler instead of returned as an is_error tool_result"


def _orphans(out: Findings, indices: list[int], this: _Scan, previous: Turn | None, offered: set[str],
             run_ids) -> None:
    targets = [r[2] for r in this.results]
    if all(type(t) is str for t in targets) and len(set(targets)) == len(targets) and offered.issuperset(targets):
        return  # each result answers a call of the turn before, once: the common case, nothing to report
    seen: set[Any] = set()
    for i, b, target, _ in this.results:
        if id_key(target) in seen:
            out.add("duplicate_tool_result_id", i, b, detail=f"id {target}")
        seen.add(id_key(target))
        if id_key(target) in offered:
            continue
        cause = _orphan_cause(i, target, previous, run_ids().asked, after_user=i != indices[0])
        out.add("unexpected_tool_use_id", i, b, ids=target, cause=cause)


def _orphan_cause(i: int, target: Any, previous: Turn | None, asked_at: dict[str, int], after_user: bool) -> str:
    asked = asked_at.get(target) if isinstance(target, str) else None
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
