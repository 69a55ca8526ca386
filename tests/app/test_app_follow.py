"""Follow mode in the real app: lines appended to the file while the stepper runs arrive in it.

The app is driven with Pilot on a recording (``turnscope record``'s claude-trace lines) and on a
message-per-line run; a writer appends to the file between key presses, as an agent would. The
cursor stays where the user put it, moves on with the run from the last message, the header
says "following" and counts what the user has not reached; F stops and starts following.
"""

from __future__ import annotations

import json

from app_helpers import REFUND, app_for, screen_text
from conftest import REPO

TRACE = REPO / "tests" / "fixtures" / "claude_trace" / "session.jsonl"


async def _until(pilot, predicate, tries: int = 60) -> bool:
    for _ in range(tries):
        await pilot.pause(0.1)
        if predicate():
            return True
    return False


def _grow(path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


async def test_appended_messages_arrive_the_cursor_stays_and_the_end_is_followed(tmp_path):
    lines = REFUND.read_bytes().splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(lines[:4]))  # the header and 3 messages
    app = app_for(path, tmp_path, at=-1, follow=True)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        await _until(pilot, lambda: "following" in screen_text(app))
        assert screen.index == 2 and "message 2 of 3" in screen_text(app)
        _grow(path, b"".join(lines[4:6]))
        assert await _until(pilot, lambda: screen.view.total == 5)
        assert screen.index == 4  # on the last message: moved on with the run
        assert "message 4 of 5" in screen_text(app) and "following" in screen_text(app)
        await pilot.press("g")  # the user goes back to read
        _grow(path, b"".join(lines[6:8]))
        assert await _until(pilot, lambda: screen.view.total == 7)
        assert screen.index == 0  # the cursor stays where the user is
        text = screen_text(app)
        assert "following · 2 new · message 0 of 7" in text
        assert "[6]" in text or " 6 " in text  # the new rows are in the list
        await pilot.press("F")  # stop following
        await pilot.pause(0.2)
        assert "following" not in screen_text(app)
        _grow(path, lines[8])
        await pilot.pause(1.2)
        assert screen.view.total == 7  # not following: nothing read
        await pilot.press("F")  # follow again: to the end, and what was written meanwhile
        assert await _until(pilot, lambda: screen.view.total == 8 and screen.index == 7)
        assert "following" in screen_text(app)


async def test_a_recording_grows_call_by_call_and_a_truncated_file_is_loaded_again(tmp_path):
    lines = TRACE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"".join(lines[:5]))  # side calls and two calls of the main thread
    app = app_for(path, tmp_path, run=0, at=-1, follow=True)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        await _until(pilot, lambda: "following" in screen_text(app))
        calls = len(screen.view.run.calls)
        _grow(path, b"".join(lines[5:]))
        assert await _until(pilot, lambda: len(screen.view.run.calls) > calls)
        assert screen.index == screen.view.total - 1
        assert "exact" in screen_text(app)
        path.write_bytes(b"".join(lines[:5]))  # truncated (a new recording in the same file)
        assert await _until(pilot, lambda: len(screen.view.run.calls) == calls)
        assert any("truncated" in str(n.message) for n in app._notifications)


async def test_f_follows_a_file_opened_without_follow(tmp_path):
    lines = REFUND.read_bytes().splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(lines[:4]))
    app = app_for(path, tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        await pilot.pause(0.3)
        assert "following" not in screen_text(app)
        await pilot.press("F")
        assert await _until(pilot, lambda: "following" in screen_text(app))
        _grow(path, json.dumps({"role": "assistant", "content": "more"}).encode() + b"\n")
        assert await _until(pilot, lambda: screen.view.total == 4 and screen.index == 3)


async def test_the_picker_marks_a_session_written_in_the_last_minute_live_and_opens_it_following(tmp_path):
    import os
    import time

    project = tmp_path / "claude" / "projects" / "-home-me-shop"
    project.mkdir(parents=True)
    records = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
                "message": {"role": "user", "content": "Why does the refund test fail?"}},
               {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
                "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Let me look."}]}}]
    live = project / "8f2c1a55-0000-4000-8000-000000000001.jsonl"
    live.write_text("".join(json.dumps(r) + "\n" for r in records))
    old = project / "8f2c1a55-0000-4000-8000-000000000002.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in records))
    an_hour_ago = time.time() - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    app = app_for(None, tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        assert await _until(pilot, lambda: "8f2c1a55" in screen_text(app))
        rows = [line for line in screen_text(app).splitlines() if "8f2c1a55" in line]
        assert len(rows) == 2 and "live" in rows[0] and "live" not in rows[1]  # newest first
        picker = app.screen
        option = next(k for k, e in picker.entries.items() if e.path == str(live))
        picker.options.highlighted = picker.options.get_option_index(option)
        await pilot.press("enter")
        assert await _until(pilot, lambda: "following" in screen_text(app))


async def test_a_claude_code_session_grows_in_the_app_line_by_line(tmp_path, realruns):
    """A real session written line by line (answers, parallel tool results, progress lines) arrives in
    the stepper, appended to (not loaded again), and ends as a fresh open of the whole file shows it."""
    from tui.formats import load_runs

    source = realruns / "spotter__tool_heavy.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:8]))
    app = app_for(path, tmp_path, at=-1, follow=True)
    async with app.run_test(size=(130, 40)) as pilot:
        screen = app.screen
        await _until(pilot, lambda: "following" in screen_text(app))
        follower = screen.following.follower
        appender = follower.appender  # a whole reload would make a new one
        first = screen.view.total
        for line in lines[8:]:
            _grow(path, line)
        whole = load_runs(str(path))[0]
        assert await _until(pilot, lambda: screen.view.total == len(whole.messages), tries=100)
        assert screen.view.total > first and screen.index == screen.view.total - 1  # followed to the end
        assert screen.view.run.messages == whole.messages
        assert follower.format == "claude-code" and follower.appender is appender is not None
