"""The stepper's review views driven by keys: the Tokens view, the message list's token column,
provenance of tool inputs (and its warnings in Problems), exact counts, and the diff screen."""

from __future__ import annotations

import copy
import json
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from app_helpers import REFUND, app_for, screen_text, settle
from conftest import REPO, SAMPLES
from fake_messages_api import fake_count, serve
from run_files import refund, write_jsonl

from tui.app.analyses import RunAnalyses, Stopped, compact
from tui.app.screens.diff import DiffScreen
from tui.app.screens.stepper import StepperScreen
from tui.app.widgets.tokens_view import CARRIED, NEW
from tui.core.count_tokens import count_body
from tui.core.prefix import request_at
from tui.core.tokens import token_report
from tui.formats import open_run

INVENTED = SAMPLES / "invented_order_id.jsonl"


def _stepper(app) -> StepperScreen:
    assert isinstance(app.screen, StepperScreen)
    return app.screen


async def _cursor_to(pilot, view, needle: str) -> None:
    """Move ``view``'s cursor with the keyboard (Home, then Down) to the first row holding ``needle``."""
    row = next(y for y, text in enumerate(view.text_rows()) if needle in text)
    view.focus()
    await pilot.press("home", *["down"] * row)
    await settle(pilot)
    assert needle in view.text_rows()[view.cursor]


def _joined(view) -> str:
    """A view's rows as one line of text, wrapped rows joined again."""
    return " ".join(row.strip() for row in view.text_rows())


def _call_rows(rows: list[str]) -> list[str]:
    return [r for r in rows if r.rstrip().endswith((CARRIED, NEW)) and ("estimated" in r or "recorded" in r
                                                                        or "exact" in r)]


async def test_tokens_view_draws_a_bar_per_call_and_marks_every_estimate(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    report = token_report(open_run(str(REFUND)))
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        view = _stepper(app).tokens_view
        rows = view.text_rows()
        calls = _call_rows(rows)
        assert len(calls) == 4
        for row, c in zip(calls, report.calls):
            assert f"~{c.total_input:,}" in row and "estimated" in row  # the kind on every number
        bars = [r.rstrip().split("estimated")[1].strip() for r in calls]
        assert set(bars[0]) == {NEW}  # the first request carries nothing from an earlier one
        assert all(CARRIED in b and NEW in b for b in bars[1:])
        assert [len(b) for b in bars] == sorted(len(b) for b in bars)  # longer as the requests grow
        assert any(f"total input ~{report.total_input:,}" in r for r in rows)
        assert any(r.startswith("~ marks an estimate") for r in rows)
        # The cursor follows the message list: on the call that produced message 5.
        assert rows[view.cursor].split()[:2] == ["3", "5"]
        assert "12345 View" in screen_text(app)  # the key is in the footer, with the other views


async def test_enter_on_a_top_carried_message_jumps_to_it(tmp_path):
    report = token_report(open_run(str(REFUND)))
    top = report.top_carried(1)[0]
    app = app_for(REFUND, tmp_path, at=7)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        view = _stepper(app).tokens_view
        await _cursor_to(pilot, view, f"message {top.index} ")
        assert f"x {top.sends - 1} = ~{top.carried}" in view.text_rows()[view.cursor]
        await pilot.press("enter")
        await settle(pilot)
        screen = _stepper(app)
        assert screen.index == top.index == 2
        assert screen.view_name == "request"
        assert "message 2 · user · loop · the loop's output" in screen_text(app)


async def test_message_list_shows_each_requests_input_tokens(tmp_path):
    report = token_report(open_run(str(REFUND)))
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = _stepper(app)
        width = screen.message_list.size.width
        rows = [screen.message_list.row_text(i, width).plain for i in range(8)]
        for c in report.calls:
            assert f"~{compact(c.total_input)}" in rows[c.message]
        assert "~" not in rows[0] and "~" not in rows[2]  # no model call produced them: no request of theirs
        assert f"~{compact(report.calls[0].total_input)}" in screen_text(app)


async def test_recorded_usage_is_shown_unmarked(tmp_path, realruns):
    path = realruns / "spotter__tool_heavy.jsonl"
    report = token_report(open_run(str(path)))
    app = app_for(path, tmp_path, view="tokens")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = _stepper(app).tokens_view.text_rows()
        calls = _call_rows(rows)
        assert [r.split()[2] for r in calls] == [f"{c.total_input:,}" for c in report.calls]  # no ~: recorded
        assert all("recorded" in r for r in calls)
        assert not any(r.startswith("~ marks") for r in rows)
        first = _stepper(app).message_list.row_text(report.calls[0].message, 100).plain
        assert compact(report.calls[0].total_input) in first and "~" not in first


async def test_tokens_are_counted_in_a_worker_and_the_keys_still_work(tmp_path, monkeypatch):
    """The report is slow on a long run: until it arrives the view says so and stepping goes on."""
    release = threading.Event()
    real = RunAnalyses.compute_tokens

    def slow(self, *args, **kwargs):
        release.wait(10)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(RunAnalyses, "compute_tokens", slow)
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
        await pilot.press("j", "j", "5")
        await pilot.pause(0.1)
        screen = _stepper(app)
        assert screen.index == 2
        assert any("counting the tokens of every request" in r for r in screen.tokens_view.text_rows())
        release.set()
        await settle(pilot)
        assert _call_rows(screen.tokens_view.text_rows())


def test_background_analyses_wait_while_the_user_steps_and_stop_when_cancelled():
    """``hold`` (every step) makes the workers wait at their next message; ``resume`` lets them go on; a
    cancelled worker stops there instead of keeping the app from closing."""
    analyses = RunAnalyses(open_run(str(REFUND)))
    cancelled = threading.Event()
    done: list = []
    analyses.hold()
    worker = threading.Thread(target=lambda: done.append(analyses.compute_tokens(
        tick=analyses.ticker(cancelled.is_set))))
    worker.start()
    worker.join(0.5)
    assert worker.is_alive() and not done  # held: nothing computed while the user steps
    analyses.resume()
    worker.join(10)
    assert done and done[0].calls  # resumed: the report is made
    analyses.hold()
    stopped: list = []

    def trace_all() -> None:
        try:
            analyses.compute_unsourced(analyses.ticker(cancelled.is_set))
        except Stopped:
            stopped.append(True)

    worker = threading.Thread(target=trace_all)
    worker.start()
    cancelled.set()
    worker.join(5)
    assert not worker.is_alive() and stopped


async def test_exact_counts_go_to_count_tokens_only_when_confirmed(tmp_path, monkeypatch):
    run = open_run(str(REFUND))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with serve() as api:
        for key, value in api.env().items():
            monkeypatch.setenv(key, value)
        app = app_for(REFUND, tmp_path, view="tokens")
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            view = _stepper(app).tokens_view
            await pilot.press("x")
            await settle(pilot)
            assert "x again sends 4 request(s) of this run to the count_tokens endpoint" in _joined(view)
            await pilot.press("up", "x")  # another key cancelled it: this x asks again, nothing is sent
            await settle(pilot)
            assert api.requests == []
            assert "x again sends 4 request(s)" in _joined(view)
            await pilot.press("x")
            await settle(pilot)
            assert len(api.requests) == 4
            rows = view.text_rows()
            expected = [fake_count(count_body(request_at(run, m).body)) for m in (1, 3, 5, 7)]
            assert [r.split()[2] for r in _call_rows(rows)] == [f"={n:,}" for n in expected]
            assert all("exact" in r for r in _call_rows(rows))
            assert "count_tokens: 4 sent, 0 from the cache" in _joined(view)


async def test_provenance_of_8900_goes_to_message_2_with_the_value_marked(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        pane = _stepper(app).request
        rows = pane.text_rows()
        assert any('.order_id = "4471"  ← message 0 (caller) · block 0 · .text [18:22]' in r for r in rows)
        assert any(".amount_cents = 8900  ← message 2 (loop) · block 0 · .content | fromjson |" in r for r in rows)
        await _cursor_to(pilot, pane, ".amount_cents = 8900")
        await pilot.press("enter")
        await settle(pilot)
        screen = _stepper(app)
        assert screen.index == 2 and screen.view_name == "request" and screen.focused is pane
        row = pane.text_rows()[pane.cursor]
        assert '"total_cents":8900' in row
        # On screen, 8900 is drawn marked (reverse video: it reads without colour too), the rest of the row not.
        y = pane.cursor - pane.scroll_offset.y
        strip = pane.render_line(y)
        marked = "".join(s.text for s in strip if s.style is not None and s.style.reverse)
        assert marked == "8900"


async def test_an_invented_order_id_is_flagged_and_listed_as_a_provenance_warning(tmp_path):
    app = app_for(INVENTED, tmp_path, at=5)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = _stepper(app)
        rows = screen.request.text_rows()
        assert any('.order_id = "4417"  △ not in the prefix: produced by the model' in r for r in rows)
        assert "1 provenance warning" in screen_text(app)
        assert screen.view.severity(5) == "warning"  # the △ in the message list
        await pilot.press("g", "4")
        await settle(pilot)
        text = screen_text(app)
        assert "Provenance warnings (1)" in text
        assert "provenance warning: value not in the prefix" in text and '.order_id = "4417"' in text
        assert "4 Problems (1)" in text
        await pilot.press("down", "enter")  # the only option that goes anywhere
        await settle(pilot)
        assert screen.index == 5
        await pilot.press("g", "right_square_bracket")  # ] stops at the provenance warning too
        assert screen.index == 5


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
        pair = next(r for r in view.text_rows() if '"total_cents":' in r)
        left, right = pair.split(" │ ")
        assert '"total_cents":8900' in left and '"total_cents":9900' in right  # A beside B
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


def _drawn_in_a_terminal(argv: list[str], needles: tuple[bytes, ...], state: Path, timeout: float = 60) -> bytes:
    """Run ``turnscope ARGV`` on a pty of 100x30 until every needle is drawn, then press q; what was drawn."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(REPO), "NO_COLOR": "1",
           "TURNSCOPE_STATE_DIR": str(state), "TURNSCOPE_CONFIG_DIR": str(state)}
    proc = subprocess.Popen([sys.executable, "-m", "tui", *argv], stdin=slave, stdout=slave, stderr=slave, env=env,
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


HOSTILE = ("\x1b[31mRED\x1b[0m \x1b]52;c;SGVsbG8=\x07 \x9b31m \u202eevil\u202c [bold red]markup[/] "
           "[link=https://x.example]l[/link] \x1b[2J")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


async def test_run_text_in_the_new_views_is_shown_never_obeyed(tmp_path):
    header = {"system": "sys", "tools": [{"name": "get[b]x[/b]", "description": HOSTILE,
                                          "input_schema": {"type": "object"}}], "params": {"model": "m"}}
    messages = [{"role": "user", "content": "look up " + HOSTILE},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_[b]1", "name": "get[b]x[/b]",
                                                   "input": {"q": HOSTILE, "made_up": "zz " + HOSTILE}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_[b]1",
                                              "content": HOSTILE * 2}]},
                {"role": "assistant", "content": "done " + HOSTILE}]
    path = write_jsonl(tmp_path / "hostile.jsonl", messages, header)
    edited = copy.deepcopy(messages)
    edited[3]["content"] = "other " + HOSTILE
    other = write_jsonl(tmp_path / "hostile_b.jsonl", edited, header)
    app = app_for(path, tmp_path, at=1, diff=str(other))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)

        def clean(where: str) -> str:
            text = screen_text(app)
            assert not CONTROL.findall(text), f"{where}: control characters reached the screen"
            assert not CONTROL.findall(app.export_screenshot()), f"{where}: control characters in the SVG"
            return text

        assert "[bold red]markup[/]" in clean("diff screen") and "\\x1b[31mRED" in clean("diff screen")
        await pilot.press("escape")
        await settle(pilot)
        text = clean("request pane with provenance")
        assert "made_up" in text and "not in the prefix" in text
        for key, where in (("4", "problems"), ("5", "tokens")):
            await pilot.press(key)
            await settle(pilot)
            clean(where)


async def test_account_verb_prints_the_text_the_account_view_shows(cli, tmp_path):
    result = cli("account", INVENTED, "--json")
    assert result.code == 0, result.stderr
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    app = app_for(INVENTED, tmp_path, view="account")
    async with app.run_test(size=(120, 40)) as pilot:
        for doc in docs:
            _stepper(app).go_to(doc["index"])
            await settle(pilot)
            shown = _stepper(app).account_view.body.content.plain
            for sentence in doc["sentences"]:
                assert sentence in shown


async def test_tokens_view_of_a_long_run_draws_only_the_rows_on_screen(tmp_path, monkeypatch):
    from tui.app.widgets.tokens_view import CallBars

    messages = [{"role": "user", "content": "go"}]
    for k in range(3000):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": "f",
                                                        "input": {"n": k}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}",
                                                   "content": f"result {k}"}]}]
    path = write_jsonl(tmp_path / "long.jsonl", messages)
    built: list[int] = []
    real = CallBars.row
    monkeypatch.setattr(CallBars, "row", lambda self, k, width: built.append(k) or real(self, k, width))
    app = app_for(path, tmp_path, view="tokens", at=4001)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        view = _stepper(app).tokens_view
        assert len(view.document) > 3000  # one row per call...
        drawn = set(built)
        assert 0 < len(drawn) <= 60  # ...but only the rows on screen were built
        assert 2000 in drawn  # the cursor's row, call 2001 (it produced message 4001), is on screen
        assert view.text_rows()[view.cursor].split()[:2] == ["2001", "4001"]


async def test_exact_counts_without_a_key_say_so_and_keep_the_estimates(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    app = app_for(REFUND, tmp_path, view="tokens")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("x", "x")
        await settle(pilot)
        view = _stepper(app).tokens_view
        assert "exact counts failed: exact counts call the count_tokens endpoint: set ANTHROPIC_API_KEY" in _joined(view)
        assert all("estimated" in r for r in _call_rows(view.text_rows()))
