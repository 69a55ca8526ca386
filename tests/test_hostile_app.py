"""Every view and screen of the app shows hostile run text visibly and lets no control character through.

Each corpus item is placed everywhere run text can be (``hostile.hostile_run``) and the app is
driven through every surface it offers, found generically so that views and screens added
later are covered too: every key the stepper binds (views, folds, search, palette, help, go-to,
and whatever is bound next), every screen a key pushes, the run list of a multi-run file, and
the picker (hostile file names, first words, recent runs and Claude Code sessions, a file that
cannot be opened). After each step the composited screen (what Textual writes to the terminal)
and the SVG export must hold no control character. The Request and Raw views must show the item.
"""

from __future__ import annotations

import pytest
from app_helpers import app_for, screen_text, settle
from hostile import ALL, BY_NAME, CORPUS, Item, leaks, write_hostile_run
from rich.segment import Segment

from tui.app.screens.picker import PickerScreen
from tui.app.screens.run_list import RunListScreen
from tui.app.screens.stepper import StepperScreen
from tui.core import jsonio, native
from tui.core.safe import visible
from tui.formats import open_run

#: Keys that leave the stepper or act outside the terminal: pressed by the tests that are about them.
SKIP_ACTIONS = {"quit", "back", "copy"}


def _clean(app, where: str) -> str:
    text = screen_text(app)
    assert not leaks(text), f"{where}: control characters reached the screen: {leaks(text)!r}"
    assert not leaks(app.export_screenshot()), f"{where}: control characters in the SVG export"
    return text


def _compact(text: str) -> str:
    """The screen's text without line breaks and padding, so a marker split over two rows is still found."""
    return "".join(line.strip() for line in text.split("\n"))


def _keys_of(node) -> list[tuple[str, str]]:
    """(key, action): one key for each action ``node`` binds (the keymap applied), the ones to skip left out."""
    found: dict[str, str] = {}
    for key, bindings in node._bindings.key_to_bindings.items():
        for binding in bindings:
            if binding.action.split("(")[0] not in SKIP_ACTIONS:
                found.setdefault(binding.action, key)
    return [(key, action) for action, key in found.items()]


def _stepper_keys(screen) -> list[tuple[str, str]]:
    return _keys_of(screen)


def _view_keys(screen) -> list[str]:
    """The keys that switch the stepper's view (bindings to a ``view(...)`` action), in order."""
    return [key for key, action in _stepper_keys(screen) if action.startswith("view(")]


async def _close_dialogs(app, pilot, stepper, key: str) -> None:
    while app.screen is not stepper:  # a dialog, the palette, the key list: shown, then closed
        assert app.screen.is_modal, f"{key} left the stepper"
        await pilot.press("escape")
        await settle(pilot)
        _clean(app, f"after closing what {key} opened")


@pytest.mark.parametrize("item", CORPUS, ids=lambda i: i.name)
async def test_each_item_in_every_view_is_shown_and_sends_no_control(tmp_path, item):
    path = write_hostile_run(tmp_path / "run.jsonl", item)
    app = app_for(path, tmp_path, at=3)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        stepper = app.screen
        assert isinstance(stepper, StepperScreen)
        await pilot.press("s", "t")  # the system prompt and the tools open
        await settle(pilot)
        assert item.shown in _compact(_clean(app, "request view")), "the request view does not show the item"
        for key in _view_keys(stepper):
            await pilot.press(key)
            await settle(pilot)
            _clean(app, f"after {key}")
            await _close_dialogs(app, pilot, stepper, key)
        await pilot.press("2")
        await settle(pilot)
        raw = visible(jsonio.dumps(item.payload).decode()[1:-1])  # JSON's escapes, then made visible
        assert raw in _compact(_clean(app, "raw view")), "the raw view does not show the item"


async def test_every_key_of_the_stepper_on_the_whole_corpus(tmp_path):
    """Every key the stepper binds (whatever is bound next too), on a run holding every item at once;
    every view the stepper holds must be reached by some key (a view added later is visited here)."""
    path = write_hostile_run(tmp_path / "run.jsonl", Item("all", ALL, ""))
    app = app_for(path, tmp_path, at=3)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        stepper = app.screen
        views = {child.id for child in stepper.views.children}
        reached = set()
        for key, action in _stepper_keys(stepper):
            await pilot.press(key)
            await settle(pilot)
            _clean(app, f"after {key} ({action})")
            await _close_dialogs(app, pilot, stepper, key)
            reached.add(stepper.views.current)
        assert views <= reached, f"views no key shows (so no test looked at them): {views - reached}"
        pressed: set[tuple[str, str]] = set()
        for view_key in _view_keys(stepper):  # then each view's own keys, and the list's, with it focused
            await pilot.press(view_key)
            await settle(pilot)
            for widget in [w for w in stepper.query("*") if w.focusable and w.region.area]:
                keys = [key for key, _ in _keys_of(widget)]
                for key in [k for k in keys if (type(widget).__name__, k) not in pressed]:
                    widget.focus()
                    await pilot.press(key)
                    await settle(pilot)
                    _clean(app, f"{type(widget).__name__} key {key} in view {stepper.views.current}")
                    await _close_dialogs(app, pilot, stepper, key)
                    pressed.add((type(widget).__name__, key))
        assert len({name for name, _ in pressed}) >= 4, pressed  # the list and each view's own widget


async def test_search_palette_and_goto_show_hostile_text_as_text(tmp_path):
    item = Item("all", ALL, "")
    path = write_hostile_run(tmp_path / "run.jsonl", item)
    app = app_for(path, tmp_path, at=1)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"markup", "enter")
        await settle(pilot)
        assert "[bold red]markup[/]" in _clean(app, "search")
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"tool call get")
        await pilot.pause(0.5)
        await settle(pilot)
        text = _clean(app, "command palette")
        assert "[@click=app.quit]quit[/]" in text and "\\x1b[2J" in text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("colon", *"5", "enter")
        await settle(pilot)
        assert app.screen.index == 5 and app.is_running  # a [@click=app.quit] in the run quit nothing
        _clean(app, "after go to")


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
        text = _compact(_clean(app, "run list"))
        assert CORPUS[0].shown in text
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        _clean(app, "stepper opened from the run list")


def _file_name(text: str) -> str:
    return text.replace("\x00", "").replace("/", "_")


#: A file name's worth of the corpus (a name is at most 255 bytes).
NAME = "\x1b[2J\x1b]0;t\x07\x9b1m\u202e[bold]b[/][@click=app.quit]q[/]"


async def test_the_picker_shows_hostile_names_and_first_words(tmp_path):
    samples = tmp_path / "samples"
    for item in CORPUS:
        write_hostile_run(samples / _file_name(f"{item.name}{item.payload}.jsonl"), item)
    broken = tmp_path / _file_name(f"broken{NAME}.jsonl")
    broken.write_bytes(b"\x1b[2J{{{ not a run")
    state = tmp_path / "state"
    state.mkdir()
    recent = [{"path": str(broken), "run": None, "title": f"title{ALL}", "messages": 3, "opened": 1.0}]
    (state / "recent.json").write_bytes(jsonio.dumps({"recent": recent}))
    sessions = tmp_path / "claude" / "projects" / _file_name(f"proj{NAME}")
    sessions.mkdir(parents=True)
    record = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
              "message": {"role": "user", "content": f"session words {ALL}"}}
    (sessions / _file_name(f"sess{NAME}.jsonl")).write_bytes(jsonio.dumps(record) + b"\n")
    app = app_for(None, tmp_path, samples=samples)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        text = _compact(_clean(app, "picker"))
        for item in CORPUS:
            assert item.shown.replace("\\x00", "") in text or item.markup, f"{item.name}: the file name is not shown"
        assert "session words" in text and "title" in text
        options = app.screen.options
        broken_at = next(k for k, option in enumerate(options._options)
                         if option.id and app.screen.entries[option.id].path == str(broken))
        options.highlighted = broken_at
        await pilot.press("enter")
        await settle(pilot)
        assert "cannot open" in _clean(app, "picker error line")
        await pilot.press("question_mark")
        await settle(pilot)
        _clean(app, "help over the picker")


async def test_a_notification_naming_a_hostile_file_is_safe(tmp_path):
    path = write_hostile_run(tmp_path / "run.jsonl", CORPUS[0])
    app = app_for(path, tmp_path)
    async with app.run_test(size=(200, 60), notifications=True) as pilot:  # run_test hides toasts unless asked
        await settle(pilot)
        app.load(str(tmp_path / _file_name(f"gone{NAME}.jsonl")), None)  # as when the picker's file went away
        await settle(pilot)
        await pilot.pause(0.2)
        text = _compact(_clean(app, "toast"))
        assert "Cannot open" in text and "\\x1b[2J" in text


async def test_the_last_line_of_defence_draws_escapes_even_if_a_call_site_forgot(tmp_path):
    """A widget that puts raw run text on screen (a bug): the app's line filter still shows it."""
    from textual.widgets import Static
    from rich.text import Text

    path = write_hostile_run(tmp_path / "run.jsonl", CORPUS[0])
    app = app_for(path, tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        parts = [BY_NAME[name] for name in ("csi_clear", "c1_controls", "bidi")]  # Rich itself drops BEL, CR, BS
        raw = "forgot" + "".join(p.payload for p in parts)
        app.screen.status.update(Text(raw))  # the status line, given raw run text
        await settle(pilot)
        text = _clean(app, "a careless widget")
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
