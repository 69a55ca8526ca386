"""The diff screen: a run and its edited copy side by side from the first divergence, stacked at 80x24,
the changes list, opened from the stepper (D, the command palette) and from the command line."""

from __future__ import annotations

import copy
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from analysis_helpers import INVENTED
from app_helpers import REFUND, app_for, screen_text, settle
from conftest import REPO
from run_files import refund, write_jsonl

from tui.app.screens.diff import DiffScreen
from tui.app.screens.stepper import StepperScreen


def _edited_copy(tmp_path):
    header, messages = refund()
    edited = copy.deepcopy(messages)
    edited[2]["content"][0]["content"] = edited[2]["content"][0]["content"].replace("8900", "9900")
    return write_jsonl(tmp_path / "edited.jsonl", edited, header)


async def test_diff_screen_shows_the_first_divergence_side_by_side(tmp_path):
    edited = _edited_copy(tmp_path)
    app = app_for(REFUND, tmp_path, diff=str(edited))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen)
        text = screen_text(app)
        assert "first divergence: message 2 · 1 change" in text
        assert "Messages 0-1 are the same in both. From message 2 on:" in text
        assert "[2.0] tool_result_changed .content | fromjson | .[0].total_cents: 8900 -> 9900" in text
        view = app.screen.diff_view
        pair = next(r for r in view.text_rows() if "total_cents:" in r)  # a JSON result is shown as its fields
        left, right = pair.split(" │ ")
        assert "total_cents: 8900" in left and "total_cents: 9900" in right  # A beside B
        assert "= [3]" in "\n".join(view.text_rows())  # what follows is the same: one row each
        await pilot.press("s")  # stacked: A above B
        await settle(pilot)
        rows = view.text_rows()
        assert any(r.startswith(" A │") for r in rows) and any(r.startswith(" B │") for r in rows)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)


async def test_diff_at_80x24_is_stacked_and_the_changes_list_moves_the_view(tmp_path):
    app = app_for(REFUND, tmp_path, diff=str(INVENTED))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        view = screen.diff_view
        assert any(r.startswith(" A │") for r in view.text_rows())
        kinds = [o.prompt.plain for o in screen.changes.options]
        assert kinds[0].startswith('[5.0] tool_input_changed .input.order_id: "4471" -> "4417"')
        assert any("tool_result_error_changed" in k for k in kinds) and any("text_changed" in k for k in kinds)
        await pilot.press("n")
        await settle(pilot)
        first = view.cursor
        assert "[5]" in view.text_rows()[first]
        await pilot.press("n")
        assert view.cursor > first and "[6]" in view.text_rows()[view.cursor]
        await pilot.press("tab")
        await settle(pilot)
        assert screen.focused is screen.changes
        await pilot.press("end", "enter")  # the last change: message 7's text
        await settle(pilot)
        assert screen.focused is view and "[7]" in view.text_rows()[view.cursor]
        assert "Next change" in screen_text(app)


async def test_diff_from_the_stepper_and_a_bad_file_is_one_line(tmp_path):
    app = app_for(REFUND, tmp_path, at=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("D", *str(tmp_path / "missing.jsonl"), "enter")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        assert f"cannot diff: {tmp_path / 'missing.jsonl'}: cannot read" in screen_text(app)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"diff against")
        await pilot.pause(0.5)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press(*str(INVENTED), "enter")
        await settle(pilot)
        assert isinstance(app.screen, DiffScreen)
        assert "first divergence: message 5 · 4 changes" in screen_text(app)


ANSI = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|.)")


def _drawn_in_a_terminal(argv: list[str], needles: tuple[bytes, ...], state: Path, timeout: float = 60,
                         python: tuple[str, ...] = ("-m", "tui")) -> bytes:
    """Run ``turnscope ARGV`` (``python ... ARGV``) on a pty of 100x30 until every needle is drawn, then press q;
    what was drawn."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    # Without COLUMNS/LINES (a pytest-xdist worker has them: 80 columns), so the pty's own size is used.
    env = {**{k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}, "TERM": "xterm-256color", "PYTHONPATH": str(REPO), "NO_COLOR": "1",
           "TURNSCOPE_STATE_DIR": str(state), "TURNSCOPE_CONFIG_DIR": str(state)}
    proc = subprocess.Popen([sys.executable, *python, *argv], stdin=slave, stdout=slave, stderr=slave, env=env,
                            cwd=REPO, close_fds=True, start_new_session=True)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while not all(needle in ANSI.sub(b"", seen) for needle in needles):
            left = deadline - time.monotonic()
            assert left > 0, f"never drew {needles!r}: {ANSI.sub(b'', seen)[-500:]!r}"
            ready, _, _ = select.select([master], [], [], left)
            if ready:
                chunk = os.read(master, 1 << 16)
                if b"\x1b[?2026$p" in chunk:  # Textual asks whether synchronized output is supported
                    os.write(master, b"\x1b[?2026;2$y")
                seen += chunk
        os.write(master, b"q")
        # Read on until it exits, as a terminal does: the frames still queued when q arrives fill the pty's
        # buffer, and an app whose writes cannot land cannot close (Textual joins its writer thread).
        quit_by = time.monotonic() + 20
        while proc.poll() is None:
            assert time.monotonic() < quit_by, "still running 20 s after q"
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    seen += os.read(master, 1 << 16)
                except OSError:  # EIO: the app closed its end
                    break
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return ANSI.sub(b"", seen)


def test_the_command_line_opens_the_diff_screen(tmp_path):
    """``turnscope A --diff B`` and ``turnscope diff A B --tui`` open the diff screen in a real terminal."""
    for argv in (["sample_runs/refund/run.jsonl", "--diff", "sample_runs/invented_order_id.jsonl"],
                 ["diff", "sample_runs/refund/run.jsonl", "sample_runs/invented_order_id.jsonl", "--tui"]):
        _drawn_in_a_terminal(argv, (b"first divergence: message 5", b"tool_input_changed .input.order_id"), tmp_path)


def test_a_diff_file_that_cannot_be_read_is_one_line_before_the_app_starts(cli, tmp_path):
    for argv in ((REFUND, "--diff", tmp_path / "missing.jsonl"), ("diff", REFUND, tmp_path / "missing.jsonl", "--tui")):
        result = cli(*argv)
        assert result.code == 2
        assert result.stderr.strip().splitlines() == [
            f"turnscope: {tmp_path / 'missing.jsonl'}: cannot read: No such file or directory"]
        assert result.stdout == ""  # the terminal was never taken over
