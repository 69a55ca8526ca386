"""Follow mode on Claude Code sessions: appended lines extend the run without the file being read
again, and whatever the cuts, the follower holds exactly what loading the file as it then is gives.

Every real Claude Code session of ``../shared/realruns`` is fed to a follower in chunks, cut at
line boundaries and in the middle of lines; after every poll its runs (messages, blocks, calls,
warnings, meta, titles) equal a fresh ``load_runs`` of the bytes it has read, and a line still
being written waits for its newline. Lines that change the threads in a way appending cannot (a
rewind, a compaction, a subagent's line) load the file again whole, and say why.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from conftest import REALRUNS
from tui.formats import detect, load_runs
from tui.formats.document import read_document
from tui.formats.follow import Follower


def _sessions() -> list[Path]:
    if REALRUNS is None:
        return []
    return [p for p in sorted(REALRUNS.glob("*.jsonl")) if detect(read_document(str(p))).NAME == "claude-code"]


def _facts(runs) -> list:
    return [(r.messages, [dataclasses.asdict(c) for c in r.calls], [(w.text, w.line, w.index) for w in r.warnings],
             r.meta, r.source.title, r.source.run_index, r.source.run_count) for r in runs]


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
