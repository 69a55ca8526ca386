"""Follow mode's reading, headless: only the appended bytes are read, and each poll's runs equal a
fresh load of the file as it then is (so following never shows anything a reload would not)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import REPO
from tui.core.prefix import call_request
from tui.formats import load_runs
from tui.formats.follow import Follower

TRACE = REPO / "tests" / "fixtures" / "claude_trace" / "session.jsonl"
REFUND = REPO / "sample_runs" / "refund" / "run.jsonl"


def _same(a, b) -> None:
    assert [r.messages for r in a] == [r.messages for r in b]
    assert [[call_request(r, k) for k in range(len(r.calls))] for r in a] == \
        [[call_request(r, k) for k in range(len(r.calls))] for r in b]
    assert [[w.text for w in r.warnings] for r in a] == [[w.text for w in r.warnings] for r in b]


def _grow(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


def test_a_recording_that_grows_is_read_from_the_last_offset_and_equals_a_reload(tmp_path):
    lines = TRACE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rec.jsonl"
    path.write_bytes(lines[0])
    follower = Follower(str(path))
    assert follower.format == "claude-trace"
    assert follower.poll() is None
    for line in lines[1:]:
        half = len(line) // 2
        _grow(path, line[:half])
        assert follower.poll() is None  # a line still being written waits
        _grow(path, line[half:])
        update = follower.poll()
        assert update is not None and update.lines == 1
        assert update.read == len(line) - half  # only what was appended was read
        _same(update.runs, load_runs(str(path)))
    assert follower.poll() is None


def test_a_message_per_line_run_appends_messages_and_counts_them(tmp_path):
    lines = REFUND.read_bytes().splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(lines[:3]))
    follower = Follower(str(path))
    assert follower.format == "messages"
    first = len(follower.runs[0].messages)
    _grow(path, b"".join(lines[3:6]))
    update = follower.poll()
    assert update.added == 3 and len(update.runs[0].messages) == first + 3
    _same(update.runs, load_runs(str(path)))
    _grow(path, b"{not json\n")
    update = follower.poll()
    assert any("line 7" in w.where() or w.line == 7 for w in update.runs[0].warnings)


def test_a_truncated_or_replaced_file_is_loaded_again_whole_with_a_notice(tmp_path):
    lines = REFUND.read_bytes().splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(lines))
    follower = Follower(str(path))
    with open(path, "r+b") as handle:
        handle.truncate(len(b"".join(lines[:4])))
    update = follower.poll()
    assert update.reloaded and "truncated" in update.notice and update.added < 0
    _same(update.runs, load_runs(str(path)))
    other = tmp_path / "new.jsonl"
    other.write_bytes(b"".join(lines[:5]))
    os.replace(other, path)
    update = follower.poll()
    assert update.reloaded and "replaced" in update.notice and len(update.runs[0].messages) == 4
    _same(update.runs, load_runs(str(path)))


def test_a_file_followed_with_a_sidecar_has_no_appender_and_is_loaded_again_whole_when_it_grows(tmp_path):
    path = tmp_path / "session.jsonl"
    record = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2025-01-01T00:00:00Z",
              "message": {"role": "user", "content": "hello"}}
    path.write_text(json.dumps(record) + "\n")
    system = tmp_path / "system.txt"
    system.write_text("You help.")
    follower = Follower(str(path), system=str(system))
    assert follower.format == "claude-code" and follower.appender is None
    answer = {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
              "timestamp": "2025-01-01T00:00:01Z", "message": {"id": "msg_1", "role": "assistant", "model": "m",
                                                               "content": [{"type": "text", "text": "hi"}]}}
    _grow(path, (json.dumps(answer) + "\n").encode())
    update = follower.poll()
    assert update.whole and update.added == 1 and update.why is None
    _same(update.runs, load_runs(str(path), system=str(system)))


def test_the_cursor_moves_on_only_from_the_end_and_unseen_counts_what_it_has_not_reached(tmp_path):
    from tui.formats.follow import Following

    lines = REFUND.read_bytes().splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(lines[:4]))  # header + 3 messages
    following = Following(Follower(str(path)))
    before = len(following.run.messages)
    following.looked(before - 1)
    assert following.unseen == 0
    _grow(path, b"".join(lines[4:6]))
    following.follower.poll()
    assert following.cursor(before - 1, before) == before + 1  # last message -> the new last message
    assert following.cursor(before, before) == before + 2  # the next request row stays the next request
    assert following.cursor(0, before) == 0  # elsewhere: kept
    assert following.unseen == 2
    following.looked(before + 1)
    assert following.unseen == 0


def test_the_run_followed_is_the_same_conversation_when_another_becomes_the_longest(tmp_path):
    from tui.formats.follow import Following

    lines = TRACE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rec.jsonl"
    path.write_bytes(lines[0])  # the quota probe alone: run 0
    following = Following(Follower(str(path)), 0)
    probe = following.run.messages[0]
    _grow(path, b"".join(lines[1:]))
    following.follower.poll()
    assert following.follower.runs[0].messages[0] != probe  # the longest run is another one now
    assert following.run.messages[0] == probe and following.run_index > 0
