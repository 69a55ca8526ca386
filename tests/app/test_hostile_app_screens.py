"""The app's other screens and its last line of defence, on the hostile corpus.

The run list of a file holding hostile runs, the picker (hostile file names, first words, recent
runs, Claude Code sessions, a file that cannot be opened, the key list over it), a toast naming a
hostile file, the line filter behind every widget, and the app in a real pseudo-terminal, where
the bytes Textual writes are searched for the corpus's sequences.
"""

from __future__ import annotations

from app_helpers import app_for, settle
from hostile import ALL, BY_NAME, CORPUS, Item, leaks, write_hostile_run
from hostile_app_helpers import NAME, clean, compact, file_name
from rich.segment import Segment

from tui.app.screens.picker import PickerScreen
from tui.app.screens.run_list import RunListScreen
from tui.app.screens.stepper import StepperScreen
from tui.core import jsonio, native
from tui.core.safe import one_line
from tui.formats import open_run


async def test_the_run_list_of_a_file_holding_hostile_runs(tmp_path):
    runs = []
    for item in CORPUS[:6]:
        runs.append(open_run(str(write_hostile_run(tmp_path / f"{item.name}.jsonl", item))))
    multi = tmp_path / "multi.turnscope.json"
    multi.write_bytes(native.dumps(runs))
    app = app_for(multi, tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunListScreen)
        text = compact(clean(app, "run list"))
        assert CORPUS[0].shown in text
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        clean(app, "stepper opened from the run list")


async def test_the_picker_shows_hostile_names_and_first_words(tmp_path):
    samples = tmp_path / "samples"
    for item in CORPUS:
        write_hostile_run(samples / file_name(f"{item.name}{item.payload}.jsonl"), item)
    broken = tmp_path / file_name(f"broken{NAME}.jsonl")
    broken.write_bytes(b"\x1b[2J{{{ not a run")
    state = tmp_path / "state"
    state.mkdir()
    recent = [{"path": str(broken), "run": None, "title": f"title{ALL}", "messages": 3, "opened": 1.0}]
    (state / "recent.json").write_bytes(jsonio.dumps({"recent": recent}))
    sessions = tmp_path / "claude" / "projects" / file_name(f"proj{NAME}")
    sessions.mkdir(parents=True)
    record = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
              "message": {"role": "user", "content": f"session words {ALL}"}}
    (sessions / file_name(f"sess{NAME}.jsonl")).write_bytes(jsonio.dumps(record) + b"\n")
    app = app_for(None, tmp_path, samples=samples)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        text = compact(clean(app, "picker"))
        for item in CORPUS:
            label = one_line(file_name(f"{item.name}{item.payload}.jsonl"))
            assert label in text, f"{item.name}: the file name is not shown as it is"
        assert "session words" in text and "title" in text
        options = app.screen.options
        broken_at = next(k for k, option in enumerate(options._options)
                         if option.id and app.screen.entries[option.id].path == str(broken))
        options.highlighted = broken_at
        await pilot.press("enter")
        await settle(pilot)
        assert "cannot open" in clean(app, "picker error line")
        await pilot.press("question_mark")
        await settle(pilot)
        clean(app, "help over the picker")


async def test_a_notification_naming_a_hostile_file_is_safe(tmp_path):
    path = write_hostile_run(tmp_path / "run.jsonl", CORPUS[0])
    app = app_for(path, tmp_path)
    async with app.run_test(size=(200, 60), notifications=True) as pilot:  # run_test hides toasts unless asked
        await settle(pilot)
        app.load(str(tmp_path / file_name(f"gone{NAME}.jsonl")), None)  # as when the picker's file went away
        await settle(pilot)
        await pilot.pause(0.2)
        text = compact(clean(app, "toast"))
        assert "Cannot open" in text and "\\x1b[2J" in text


async def test_the_last_line_of_defence_draws_escapes_even_if_a_call_site_forgot(tmp_path):
    """A widget that puts raw run text on screen (a bug): the app's line filter still shows it."""
    from rich.text import Text

    path = write_hostile_run(tmp_path / "run.jsonl", CORPUS[0])
    app = app_for(path, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        parts = [BY_NAME[name] for name in ("csi_clear", "c1_controls", "bidi")]  # Rich itself drops BEL, CR, BS
        raw = "forgot" + "".join(p.payload for p in parts)
        app.screen.status.update(Text(raw))  # the status line, given raw run text
        await settle(pilot)
        text = clean(app, "a careless widget")
        assert "forgot" + "".join(p.shown for p in parts) in text


def test_the_filter_keeps_each_line_its_width():
    from rich.cells import cell_len

    from tui.app.safe_lines import VisibleLines

    line = [Segment("ab\x1b[2Jcd", None), Segment(" \u202e ", None), Segment("tail" * 5, None)]
    before = sum(cell_len(s.text) for s in line)
    out = VisibleLines().apply(line, None)
    assert sum(cell_len(s.text) for s in out) == before
    assert "".join(s.text for s in out).startswith("ab\\x1b[2Jcd \\u202e ") and not leaks("".join(s.text for s in out))
    plain = [Segment("nothing to do", None)]
    assert VisibleLines().apply(plain, None) is plain



def test_a_real_terminal_receives_no_hostile_sequence(tmp_path):
    """``turnscope FILE`` in a pseudo-terminal, stepping through the views: the bytes Textual writes hold
    the escapes as text and none of the corpus's sequences (Textual's own drawing sequences aside)."""
    import fcntl
    import os
    import pty
    import re
    import select
    import struct
    import subprocess
    import sys
    import termios
    import time

    from conftest import REPO

    path = write_hostile_run(tmp_path / "run.jsonl", Item("all", ALL, ""))
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm-256color",
           "TURNSCOPE_STATE_DIR": str(tmp_path / "state"), "TURNSCOPE_CONFIG_DIR": str(tmp_path / "config")}
    proc = subprocess.Popen([sys.executable, "-m", "tui", str(path), "--at", "3"], stdin=follower, stdout=follower,
                            stderr=follower, env=env, start_new_session=True)
    os.close(follower)
    written: list[bytes] = []

    def pump(seconds: float, until: bytes | None = None) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                try:
                    written.append(os.read(leader, 1 << 16))
                except OSError:
                    return
                if until is not None and until in b"".join(written[-3:]):
                    return

    try:
        pump(30, until=b"message 3")
        for key in (b"s", b"t", b"2", b"3", b"4", b"1", b"?", b"\x1b"):
            os.write(leader, key)
            pump(0.6)
        os.write(leader, b"q")
        pump(5)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        os.close(leader)
    data = b"".join(written)
    assert b"message 3" in data and b"\\x1b]52;c;cm0gLXJmIH4=" in data  # the app ran, and showed the escapes
    for item in CORPUS:
        if not item.markup:
            assert item.payload.encode() not in data, f"{item.name} reached the terminal"
    for sequence in (b"\x1b]52;", b"\x1b]0;", b"\x1b]2;", b"\x1b]8;", b"\x1bP", b"\x1b[2J\x1b[3J", b"\x1b[10A"):
        assert sequence not in data, f"{sequence!r} reached the terminal"
    assert not re.search(rb"\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]", data), "C1 or bidi sent"
