"""A thread moved on to a new last line (``Threader.grow``, what follow mode does as a session grows) is
the thread built from nothing for that line (``thread``): the same lines, spine, stop, siblings.

On every real Claude Code session of ``../shared/realruns`` (and any in ``sample_runs/``), hypothesis
picks a sequence of last lines (forward like a session being written, back like a rewind, across into
subagent threads) and after every step the grown thread equals ``thread(index, leaf)``, and what the
step says joined and left is the difference. Small made-up sessions cover the shapes real files hold
rarely: parallel tool calls whose results hang off their own tool_use lines, a call answered twice,
a parentUuid cycle.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REALRUNS, REPO
from tui.formats import detect
from tui.formats.document import Document, read_document
from tui.formats.transcript.records import read_index
from tui.formats.transcript.thread import Thread, Threader, thread


def _sessions() -> list[Path]:
    found = sorted(REALRUNS.glob("*.jsonl")) if REALRUNS is not None else []
    found += sorted((REPO / "sample_runs").rglob("*.jsonl"))
    return [p for p in found if detect(read_document(str(p))).NAME == "claude-code"]


def _facts(t: Thread) -> tuple:
    return ([r.line for r in t.records], [r.line for r in t.path], t.stop, t.boundary.line if t.boundary else None,
            t.dangling, t.siblings)


def _check_steps(index, leaves) -> None:
    threader = Threader(index, leaves[0])
    assert _facts(threader.thread) == _facts(thread(index, leaves[0]))
    for leaf in leaves[1:]:
        before = {r.line for r in threader.thread.records}
        growth = threader.grow(leaf)
        expected = thread(index, leaf)
        assert _facts(threader.thread) == _facts(expected), leaf.line
        after = {r.line for r in expected.records}
        assert [r.line for r in growth.joined] == sorted(after - before)
        assert [r.line for r in growth.left] == sorted(before - after)


_INDEXES: dict[Path, object] = {}


def _index(path: Path):
    if path not in _INDEXES:
        _INDEXES[path] = read_index(read_document(str(path)))
    return _INDEXES[path]


@pytest.mark.parametrize("source", _sessions(), ids=lambda p: p.name[:40])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_thread_grown_step_by_step_is_the_thread_built_for_its_last_line(source, data):
    index = _index(source)
    messages = index.messages
    n = len(messages)
    # Mostly forward by a few lines (a session being written), now and then anywhere (a rewind, a subagent).
    start = data.draw(st.integers(0, n - 1), label="first leaf")
    moves = data.draw(st.lists(st.one_of(st.integers(1, 4), st.integers(-n, n)), min_size=1, max_size=30),
                      label="moves")
    at, leaves = start, [messages[start]]
    for move in moves:
        at = min(n - 1, max(0, at + move))
        leaves.append(messages[at])
    _check_steps(index, leaves)


def test_every_real_session_grown_line_by_line_is_its_thread_at_every_line():
    sessions = _sessions()
    if not sessions:
        pytest.skip("../shared/realruns is not next to this checkout")
    for source in sessions:
        index = _index(source)
        main = [r for r in index.messages if not r.sidechain] or index.messages
        _check_steps(index, main)


def _line(kind: str, uuid: str, parent: str | None, content, mid: str | None = None) -> dict:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=mid or f"msg_{uuid}", model="claude-test", stop_reason="tool_use")
    return {"parentUuid": parent, "isSidechain": False, "type": kind, "uuid": uuid, "sessionId": "s", "message": message}


def _use(tool_id: str) -> list:
    return [{"type": "tool_use", "id": tool_id, "name": "t", "input": {}}]


def _result(tool_id: str) -> list:
    return [{"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}]


def _index_of(tmp_path: Path, lines: list[dict]):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(json.dumps(v).encode() + b"\n" for v in lines))
    return read_index(Document(str(path), path.read_bytes()))


PARALLEL = [
    _line("user", "u1", None, "go"),
    _line("assistant", "a1", "u1", _use("X"), mid="m1"),
    _line("assistant", "a2", "a1", _use("Y"), mid="m1"),  # the same answer's second tool_use
    _line("user", "rx", "a1", _result("X")),  # each result hangs off its own tool_use line
    _line("user", "ry", "a2", _result("Y")),
    _line("assistant", "a3", "ry", [{"type": "text", "text": "done"}]),
    _line("user", "u2", "a3", "again"),
    _line("user", "u3", "a1", "no: instead"),  # a rewind to the first tool_use line
]


def test_parallel_tool_calls_and_a_rewind_grown_in_every_order(tmp_path):
    index = _index_of(tmp_path, PARALLEL)
    messages = index.messages
    for first in range(len(messages)):
        for second in range(len(messages)):
            _check_steps(index, [messages[first], messages[second], messages[first]])
    threader = Threader(index, messages[3])  # rx: on the spine u1 -> a1 -> rx; a2 by its message id, ry by Y
    assert [r.uuid for r in threader.thread.records] == ["u1", "a1", "a2", "rx", "ry"]
    growth = threader.grow(messages[4])  # ry: the spine goes a1 -> a2 -> ry; rx stays, as X's only result
    assert not growth.joined and not growth.left and threader.thread.siblings == 1
    growth = threader.grow(messages[6])  # u2: the answer and the next prompt
    assert [r.uuid for r in growth.joined] == ["a3", "u2"] and not growth.left
    growth = threader.grow(messages[7])  # u3, off a1: a2 (the same answer) and both results stay, a3 and u2 go
    assert [r.uuid for r in growth.joined] == ["u3"] and [r.uuid for r in growth.left] == ["a3", "u2"]


def test_a_call_answered_twice_and_a_parent_cycle(tmp_path):
    lines = PARALLEL[:6] + [_line("user", "rx2", "a3", _result("X")), _line("assistant", "a4", "rx2", "ok"),
                            _line("user", "c1", "c2", "cycle"), _line("user", "c2", "c1", "cycle")]
    index = _index_of(tmp_path, lines)
    messages = index.messages
    for first in range(len(messages)):
        for second in range(len(messages)):
            _check_steps(index, [messages[first], messages[second], messages[-1], messages[first]])
