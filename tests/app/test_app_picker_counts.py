"""The picker's message counts: estimated from a session's head at once (marked ``~``), then the loader's
exact count of the run Enter opens, taken in a process and cached; Enter opens that run (run 0) with the
file's run list beneath it."""

from __future__ import annotations

import os
import re
import shutil
import time

from app_helpers import app_for, screen_text, settle

from tui.app.screens.picker import PickerScreen
from tui.app.screens.run_list import RunListScreen
from tui.app.screens.stepper import StepperScreen
from tui.app.session_counts import CACHE_FILE
from tui.app.sources import claude_entries, gemini_entries
from tui.core import jsonio
from tui.core.secrets import redact_title
from tui.core.words import counted
from tui.formats import load_runs

MAIN = "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def _real_sessions(tmp_path, realruns):
    """Every real Claude Code file of realruns laid out as Claude Code keeps them: a session's subagent files
    in ``<session>/subagents/``; the subagent file whose session is not here as a file of its own."""
    spotter = tmp_path / "claude" / "projects" / "-home-USER-spotter"
    demo = tmp_path / "claude" / "projects" / "-path-to-Demo"
    for folder in (spotter, demo):
        folder.mkdir(parents=True)
    for path in realruns.glob("*.jsonl"):
        project, _, rest = path.name.partition("__")
        session, _, agent = rest.partition("__subagents__")
        if agent and (realruns / f"{project}__{session}.jsonl").exists():
            target = spotter / session / "subagents" / agent
            target.parent.mkdir(parents=True, exist_ok=True)
        else:
            target = (demo if project == "ccviewer" else spotter) / (agent or rest)
        shutil.copy(path, target)
        if target.name != "short.jsonl":  # written long ago; short.jsonl just now: live, opened following
            os.utime(target, (1_767_000_000, 1_767_000_000))
    return tmp_path / "claude"


async def _open(pilot, option_id: str) -> None:
    screen = pilot.app.screen
    while screen.options.get_option_at_index(screen.options.highlighted).id != option_id:
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)


def test_the_head_gives_an_estimate_marked_as_one(tmp_path, realruns):
    home = _real_sessions(tmp_path, realruns)
    rows = {e.path.rsplit("/", 1)[-1]: e for e in claude_entries(home)}
    assert len(rows) == 6 and all(e.estimated and e.detail.startswith("~") for e in rows.values())
    main = rows[MAIN.split("__")[1] + ".jsonl"]  # compacted: the head counts every part, run 0 is the last
    assert main.messages != len(load_runs(main.path)[0].messages)


async def test_after_the_counts_settle_each_session_row_is_the_run_enter_opens(tmp_path, realruns):
    _real_sessions(tmp_path, realruns)
    app = app_for(None, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickerScreen) and len(picker.jobs) == 6
        assert not re.search(r"~\d", screen_text(app)) and "exact count" not in screen_text(app)
        paths = sorted(e.path for e in picker.entries.values() if e.section == "claude")
        assert len(paths) == 6
        several = 0
        for path in paths:
            picker = app.screen
            option_id, entry = next((k, e) for k, e in picker.entries.items() if e.section == "claude"
                                    and e.path == path)
            assert not entry.estimated
            shown = picker.options.get_option(option_id).prompt.plain
            assert counted(entry.messages, "message") in shown and entry.title[:30] in shown
            await _open(pilot, option_id)
            stepper = app.screen
            assert isinstance(stepper, StepperScreen), path
            run = stepper.view.run
            assert (run.source.path, run.source.run_index) == (path, 0)
            assert len(run.messages) == entry.messages and redact_title(run.title()) == entry.title, path
            await pilot.press("escape")
            await settle(pilot)
            if entry.runs > 1:  # the file's run list lies beneath the run opened, run 0 highlighted
                several += 1
                assert isinstance(app.screen, RunListScreen) and app.screen.path == path
                assert len(app.screen.runs) == entry.runs and app.screen.options.highlighted == 0
                await pilot.press("escape")
                await settle(pilot)
            assert isinstance(app.screen, PickerScreen)
            assert app.screen.jobs == []  # every count came from the cache
        assert several == 3  # the compacted session (and its subagent files), the two with inline subagents


async def test_the_counts_are_cached_by_size_and_mtime_and_hold_no_secret(tmp_path, realruns):
    home = _real_sessions(tmp_path, realruns)
    short = home / "projects" / "-home-USER-spotter" / "short.jsonl"
    planted = "sk-ant-api03-PLANTED-turnscope-9c41e0b7d2f5a8e3-NEVER-WRITE-ME"
    lines = short.read_bytes().splitlines()
    first = next(k for k, line in enumerate(lines) if b"mix phx.server" in line)
    record = jsonio.loads(lines[first], "short")
    record["message"]["content"] = f"mix phx.server fails with key {planted}"
    lines[first] = jsonio.dumps(record)
    short.write_bytes(b"\n".join(lines) + b"\n")
    app = app_for(None, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert len(app.screen.jobs) == 6
    cache = tmp_path / "cache" / CACHE_FILE
    assert cache.exists() and planted.encode() not in cache.read_bytes() and planted[-24:].encode() not in \
        cache.read_bytes()
    with open(short, "ab") as handle:  # the session goes on: counted again, the others come from the cache
        handle.write(lines[-1] + b"\n")
    again = app_for(None, tmp_path)
    async with again.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        picker = again.screen
        assert picker.jobs == [str(short)]
        entry = next(e for e in picker.entries.values() if e.path == str(short))
        assert entry.messages == len(load_runs(str(short))[0].messages) and not entry.estimated
        assert planted not in screen_text(again)


async def test_gemini_sessions_are_listed_without_loading_them_then_counted_as_they_open(tmp_path, realruns):
    chats = tmp_path / ".gemini" / "tmp" / "ab14fe397f91d5f2" / "chats"
    chats.mkdir(parents=True)
    names = {"vct__gemini.jsonl": "session-2026-03-01T09-00-aaaa1111.jsonl",
             "vct__test_conversation_gemini.894772f.json": "session-2026-03-27T10-19-8a20078e.json",
             "vct__test_conversation_gemini.bcec23f.json": "session-2026-02-11T08-00-bbbb2222.json"}
    for name, session in names.items():
        shutil.copy(realruns / "next" / name, chats / session)
    (chats / "session-2026-01-01T00-00-broken00.json").write_bytes(b'{"sessionId": "x", "messages": [')
    listed = gemini_entries(tmp_path)  # nothing read yet: a broken file is only found out by the count
    assert len(listed) == 4 and all(e.estimated and e.detail == "counting messages …" for e in listed)
    app = app_for(None, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        rows = {e.path: (k, e) for k, e in app.screen.entries.items() if e.section == "gemini"}
        assert len(rows) == 4 and not any(e.estimated for _, e in rows.values())
        assert rows[str(chats / "session-2026-01-01T00-00-broken00.json")][1].detail.startswith("cannot open:")
        for session in names.values():
            option_id, entry = rows[str(chats / session)]
            await _open(pilot, option_id)
            run = app.screen.view.run
            assert isinstance(app.screen, StepperScreen) and run.source.format == "gemini"
            assert len(run.messages) == entry.messages and redact_title(run.title()) == entry.title
            await pilot.press("escape")
            await settle(pilot)
            rows = {e.path: (k, e) for k, e in app.screen.entries.items() if e.section == "gemini"}


async def test_with_a_format_forced_the_counts_are_taken_with_it_and_not_kept(tmp_path, realruns):
    home = _real_sessions(tmp_path, realruns)
    short = home / "projects" / "-home-USER-spotter" / "short.jsonl"
    app = app_for(None, tmp_path, fmt="claude-code")  # ``turnscope --format claude-code``: the picker
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        entry = next(e for e in app.screen.entries.values() if e.path == str(short))
        assert entry.messages == len(load_runs(str(short), fmt="claude-code")[0].messages)
        assert not entry.estimated
    assert not (tmp_path / "cache" / CACHE_FILE).exists()


async def test_a_counting_process_that_ends_early_is_said_and_r_counts_again(tmp_path, realruns):
    project = tmp_path / "claude" / "projects" / "-home-USER-spotter"
    project.mkdir(parents=True)
    for k in range(20):
        shutil.copy(realruns / f"{MAIN}.jsonl", project / f"{k:08d}-aedd-4bc1-888f-c94edc91af04.jsonl")
    app = app_for(None, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        picker = app.screen
        for _ in range(3000):  # until the first exact count is in
            await pilot.pause(0.01)
            if any(e.section == "claude" and not e.estimated for e in picker.scanned):
                break
        picker.counter.process.kill()  # as the out-of-memory killer would
        await settle(pilot)
        left = [e for e in picker.scanned if e.estimated]
        assert left and all(e.detail.startswith("~") for e in left)
        text = screen_text(app)
        assert "~472 messages" in text and "158 messages (run 0 of 2)" in text  # estimated beside counted
        assert f"{counted(len(left), 'exact count')} not taken (the counting process ended early" in screen_text(app)
        await pilot.press("r")
        await settle(pilot)
        assert not any(e.estimated for e in picker.scanned) and "exact count" not in screen_text(app)
        assert sorted(picker.jobs) == sorted(e.path for e in left)  # the others came from the cache


async def test_a_recent_run_written_since_it_was_opened_is_counted_again(tmp_path, realruns):
    home = _real_sessions(tmp_path, realruns)
    tool_heavy = home / "projects" / "-home-USER-spotter" / "tool_heavy.jsonl"
    app = app_for(None, tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        option_id = next(k for k, e in app.screen.entries.items()
                         if e.section == "claude" and e.path == str(tool_heavy))
        await _open(pilot, option_id)
        opened = len(app.screen.view.run.messages)
        await pilot.press("escape")
        await settle(pilot)
        recent = next(e for e in app.screen.entries.values() if e.section == "recent")
        assert (recent.path, recent.messages, recent.estimated) == (str(tool_heavy), opened, False)
        lines = tool_heavy.read_bytes().splitlines()
        last = next(jsonio.loads(line, "last") for line in reversed(lines) if b'"type":"assistant"' in line)
        ask = {**last, "type": "user", "uuid": "0b7e-ask", "parentUuid": last["uuid"],
               "message": {"role": "user", "content": "and now?"}}  # the session goes on: a question, an answer
        answer = {**last, "uuid": "0b7e-answer", "parentUuid": "0b7e-ask",
                  "message": {**last["message"], "id": "msg_0b7e", "content": [{"type": "text", "text": "Done."}]}}
        tool_heavy.write_bytes(tool_heavy.read_bytes() + jsonio.dumps(ask) + b"\n" + jsonio.dumps(answer) + b"\n")
        os.utime(tool_heavy, (time.time() + 5, time.time() + 5))  # written after it was opened
        await pilot.press("r")
        await settle(pilot)
        recent = next(e for e in app.screen.entries.values() if e.section == "recent")
        assert not recent.estimated and recent.messages == len(load_runs(str(tool_heavy))[0].messages) != opened
        assert f"{counted(recent.messages, 'message')} · " in recent.detail
