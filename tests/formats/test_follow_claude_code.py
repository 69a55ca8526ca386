"""Follow mode on Claude Code sessions: appended lines extend the run without the file being read
again, and whatever the cuts, the follower holds exactly what loading the file as it then is gives.

Every real Claude Code session of ``../shared/realruns`` (and any in ``sample_runs/``) is fed to
a follower in chunks, cut at line boundaries (seeded, and drawn by hypothesis) and in the middle
of lines; after every poll its runs (messages, blocks, calls, warnings, meta, titles, the source's
format and exactness label, which runs the file lists) equal a fresh ``load_runs`` of the bytes it
has read, and a line still being written waits for its newline. Lines that change the threads in a way appending cannot (a
rewind, a compaction, a subagent's line) load the file again whole, and say why.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REALRUNS, REPO
from tui.formats import detect, load_runs
from tui.formats.document import read_document
from tui.formats.follow import Follower


def _sessions() -> list[Path]:
    found = sorted(REALRUNS.glob("*.jsonl")) if REALRUNS is not None else []
    found += sorted((REPO / "sample_runs").rglob("*.jsonl"))
    return [p for p in found if detect(read_document(str(p))).NAME == "claude-code"]


def _facts(runs) -> list:
    return [(r.messages, [dataclasses.asdict(c) for c in r.calls], [(w.text, w.line, w.index) for w in r.warnings],
             r.meta, r.source.title, r.source.run_index, r.source.run_count, r.source.format, r.source.prefix)
            for r in runs]


def _first_lines(lines: list[bytes]) -> int:
    """Enough lines for a run: up to the first user or assistant line with a message."""
    for k, line in enumerate(lines):
        value = json.loads(line)
        if value.get("type") in ("user", "assistant") and isinstance(value.get("message"), dict):
            return k + 1
    raise AssertionError("no message line")


def _follow_in_chunks(tmp_path: Path, source: Path, cuts) -> tuple[int, int]:
    """Feed ``source`` in the chunks ``cuts`` makes; after each poll the follower equals a load of what it read.
    Returns (updates appended, updates that loaded the file again whole)."""
    data = source.read_bytes()
    lines = data.splitlines(keepends=True)
    path, reference = tmp_path / source.name, tmp_path / ("ref-" + source.name)
    at = len(b"".join(lines[:_first_lines(lines)]))
    path.write_bytes(data[:at])
    follower = Follower(str(path))
    assert follower.format == "claude-code"
    appended = whole = 0
    for end in cuts(data, at):
        with open(path, "ab") as handle:
            handle.write(data[at:end])
        at = end
        update = follower.poll()
        written = data[:at]
        complete = written.rfind(b"\n") + 1
        # Every complete line is read, and of an unfinished one nothing (it waits for its newline).
        assert complete <= follower.place.offset <= at
        if follower.place.offset > complete:
            json.loads(written[complete:])  # only a whole reload counts a last line that already parses
        if update is None:
            continue
        whole += update.whole
        appended += not update.whole
        reference.write_bytes(data[:follower.place.offset])
        assert _facts(update.runs) == _facts(load_runs(str(reference))), (source.name, at, update.why)
    assert at == len(data)
    return appended, whole


def _line_cuts(seed: int):
    def cuts(data: bytes, at: int):
        ends = [k + 1 for k in range(at, len(data)) if data[k:k + 1] == b"\n"]
        rng, k = random.Random(seed), 0
        step = max(1, len(ends) // 60)
        while k < len(ends):
            k += rng.randint(1, 2 * step)
            yield ends[min(k, len(ends)) - 1]
    return cuts


def _drawn_cuts(points: list[int]):
    """Cuts at the line ends hypothesis picked (as fractions of the lines still to come, in thousandths)."""
    def cuts(data: bytes, at: int):
        ends = [k + 1 for k in range(at, len(data)) if data[k:k + 1] == b"\n"]
        for point in sorted(set(points)):
            yield ends[point * (len(ends) - 1) // 1000]
        yield len(data)
    return cuts


def _byte_cuts(seed: int):
    def cuts(data: bytes, at: int):
        rng = random.Random(seed)
        step = max(2, (len(data) - at) // 60)
        while at < len(data):
            at = min(len(data), at + rng.randint(1, 2 * step))
            yield at
    return cuts


@pytest.mark.parametrize("source", _sessions(), ids=lambda p: p.name[:40])
def test_a_real_session_fed_in_chunks_equals_loading_it_whole(tmp_path, source):
    appended, _ = _follow_in_chunks(tmp_path, source, _line_cuts(1))
    (tmp_path / "mid").mkdir()
    byte_appended, _ = _follow_in_chunks(tmp_path / "mid", source, _byte_cuts(2))  # cut inside lines
    main_thread = any(not r.get("isSidechain") and r.get("type") in ("user", "assistant")
                      for r in map(json.loads, source.read_bytes().splitlines()))
    if main_thread:  # a session with a main thread grows by appending, not by loading it again
        assert appended and byte_appended


@pytest.mark.parametrize("source", _sessions(), ids=lambda p: p.name[:40])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(points=st.lists(st.integers(0, 1000), min_size=1, max_size=12))
def test_a_real_session_cut_where_hypothesis_picks_equals_loading_it_whole(tmp_path_factory, source, points):
    """Whatever the pieces, after every one the follower's runs are the whole-file load's."""
    _follow_in_chunks(tmp_path_factory.mktemp("cut"), source, _drawn_cuts(points))


def test_the_real_sessions_are_there():
    if REALRUNS is None:
        pytest.skip("../shared/realruns is not next to this checkout")
    assert len(_sessions()) >= 5


def _line(kind: str, uuid: str, parent: str | None, content, **more) -> bytes:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=more.pop("mid", f"msg_{uuid}"), model="claude-test", stop_reason="end_turn",
                       usage={"input_tokens": 3, "output_tokens": 1})
    record = {"parentUuid": parent, "isSidechain": False, "type": kind, "uuid": uuid, "sessionId": "s",
              "timestamp": "2026-01-01T00:00:00Z", "message": message, **more}
    return json.dumps(record).encode() + b"\n"


def test_a_session_that_grows_is_appended_to_and_a_rewind_loads_it_again(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(_line("user", "u1", None, "hello") + _line("assistant", "a1", "u1", [{"type": "text", "text": "hi"}]))
    follower = Follower(str(path))
    assert len(follower.runs[0].messages) == 2
    more = _line("user", "u2", "a1", "and then?")
    with open(path, "ab") as handle:
        handle.write(more[:10])
    assert follower.poll() is None  # half a line waits
    with open(path, "ab") as handle:
        handle.write(more[10:] + _line("assistant", "a2", "u2", [{"type": "text", "text": "then this"}]))
    update = follower.poll()
    assert not update.whole and update.added == 2 and update.read == len(more) - 10 + len(
        _line("assistant", "a2", "u2", [{"type": "text", "text": "then this"}]))
    assert _facts(update.runs) == _facts(load_runs(str(path)))
    # The user goes back to message 1 and asks something else: a new line whose parent is not the last one.
    with open(path, "ab") as handle:
        handle.write(_line("user", "u3", "a1", "no, something else"))
    update = follower.poll()
    assert update.whole and "rewind" in update.why
    assert [m["content"] for m in update.runs[0].messages][-1] == "no, something else"
    assert len(update.runs[0].messages) == 3 and update.added == -1
    assert _facts(update.runs) == _facts(load_runs(str(path)))
    # And again, before any answer: the prompt written last is left out of the thread, not kept in it.
    with open(path, "ab") as handle:
        handle.write(_line("user", "u4", "a1", "or rather this"))
    update = follower.poll()
    assert update.whole and "rewind" in update.why
    assert [m["content"] for m in update.runs[0].messages][1:] == [[{"type": "text", "text": "hi"}], "or rather this"]
    assert _facts(update.runs) == _facts(load_runs(str(path)))


def test_a_compaction_or_a_subagent_line_loads_the_session_again_whole(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_bytes(_line("user", "u1", None, "hello") + _line("assistant", "a1", "u1", [{"type": "text", "text": "hi"}]))
    follower = Follower(str(path))
    side = _line("user", "s1", "a1", "a subagent's prompt", isSidechain=True).replace(
        b'"isSidechain": false, ', b"")
    with open(path, "ab") as handle:
        handle.write(side)
    update = follower.poll()
    assert update.whole and "sidechain" in update.why
    assert _facts(update.runs) == _facts(load_runs(str(path)))
    boundary = {"parentUuid": None, "logicalParentUuid": "a1", "type": "system", "subtype": "compact_boundary",
                "uuid": "b1", "sessionId": "s", "timestamp": "2026-01-01T00:01:00Z"}
    with open(path, "ab") as handle:
        handle.write(json.dumps(boundary).encode() + b"\n" + _line("user", "c1", "b1", "summary of before",
                                                                     isCompactSummary=True))
    update = follower.poll()
    assert update.whole and "compaction" in update.why
    assert _facts(update.runs) == _facts(load_runs(str(path)))
    assert len(update.runs) == 3  # after the compaction, before it, the subagent


def _use(tool_id: str) -> list:
    return [{"type": "tool_use", "id": tool_id, "name": "t", "input": {}}]


def _result(tool_id: str) -> list:
    return [{"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}]


def test_parallel_calls_written_line_by_line_are_appended_and_a_second_result_is_picked_as_a_load_picks(tmp_path):
    """The answer's second tool_use line and each result hanging off its own tool_use line move the spine
    from branch to branch; the lines already in the thread stay, so every line is appended, not reloaded.
    A result written again, on the spine, for a call already answered takes the first one's place (the
    loader keeps the result on the spine): a line leaves the thread, so the file is loaded again."""
    lines = [_line("user", "u1", None, "go"),
             _line("assistant", "a1", "u1", _use("X"), mid="m1"),
             _line("assistant", "a2", "a1", _use("Y"), mid="m1"),
             _line("user", "rx", "a1", _result("X")),
             _line("user", "ry", "a2", _result("Y")),
             _line("assistant", "a3", "ry", [{"type": "text", "text": "done"}]),
             _line("user", "rx2", "a3", _result("X")),
             _line("assistant", "a4", "rx2", [{"type": "text", "text": "again"}])]
    path = tmp_path / "session.jsonl"
    path.write_bytes(lines[0])
    follower = Follower(str(path))
    kinds = []
    for line in lines[1:]:
        with open(path, "ab") as handle:
            handle.write(line)
        update = follower.poll()
        kinds.append(update.why if update.whole else "appended")
        assert _facts(update.runs) == _facts(load_runs(str(path))), line
    assert kinds == ["appended"] * 5 + ["line 7 leaves line 4 out of the main thread (a rewind?)", "appended"]
    assert [m["content"] if m["role"] == "user" else len(m["content"]) for m in follower.runs[0].messages] == \
        ["go", 2, _result("Y"), 1, _result("X"), 1]  # rx left: X's result is the one on the spine


def test_a_result_of_a_subagent_call_written_on_the_main_thread_loads_the_session_again(tmp_path):
    side = json.loads(_line("assistant", "s2", "s1", _use("S")))
    side["isSidechain"] = True
    path = tmp_path / "session.jsonl"
    path.write_bytes(_line("user", "u1", None, "hello") + _line("assistant", "a1", "u1", "hi")
                     + json.dumps(side).encode() + b"\n")
    follower = Follower(str(path))
    with open(path, "ab") as handle:
        handle.write(_line("user", "u2", "a1", _result("S")))
    update = follower.poll()
    assert update.whole and "subagent" in update.why
    assert _facts(update.runs) == _facts(load_runs(str(path)))
