"""The review analyses of a large file run in a separate process: the same findings, token report, traces
and provenance notes as when they run in the app's own process, steps answered while they run, and the
process gone as soon as the run is closed or the app quits."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from pathlib import Path

from analysis_helpers import INVENTED, stepper
from app_helpers import REFUND, app_for, opening_for, screen_text, settle

from slow_loader import HeldUntil

from tui.app.factory import app_of
from tui.app.screens.stepper import StepperScreen
from tui.core.view import background
from tui.core.view.run_view import RunView
from tui.formats import open_run


async def analysed(pilot, screen: StepperScreen, tries: int = 600) -> None:
    """Wait (at most a minute) until every analysis is in: findings, tokens, provenance notes."""
    analyses = screen.view.analyses
    for _ in range(tries):
        if screen.view.findings is not None and analyses.report is not None and analyses.unsourced is not None:
            await settle(pilot)
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the analyses never arrived")


async def results(path, tmp_path, monkeypatch, process: bool, at: int = 5) -> dict:
    monkeypatch.setattr(background, "PROCESS_FROM", 0 if process else 1 << 60)
    app = app_for(path, tmp_path, at=at)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = stepper(app)
        await analysed(pilot, screen)
        assert (screen.background is not None) == process
        return shown(app, screen, at)


def assert_same(there: dict, here: dict) -> None:
    """Two ``shown`` the same, each part on its own (a failure names the part)."""
    for part in ("findings", "report", "fixed", "labels", "unsourced", "trace", "screen"):
        assert there[part] == here[part], part


def shown(app, screen, at: int) -> dict:
    """What the stepper holds and shows once analysed: findings, token report, unsourced values, traces, screen."""
    analyses = screen.view.analyses
    traced = {n: analyses.trace(n) for n in range(screen.view.total) if analyses.trace(n) is not None}
    return {"findings": screen.view.findings, "report": analyses.report.as_json(),
            "fixed": (analyses.report.fixed, analyses.report.fixed_kind),
            "unsourced": analyses.unsourced, "trace": traced.get(at), "screen": screen_text(app),
            "labels": [analyses.input_label(i) for i in range(screen.view.total)]}


async def test_the_process_finds_what_the_app_finds_in_its_own_process(tmp_path, monkeypatch):
    for path in (INVENTED, REFUND):
        there = await results(path, tmp_path / "a", monkeypatch, process=True)
        here = await results(path, tmp_path / "b", monkeypatch, process=False)
        assert_same(there, here)


async def test_an_invented_value_is_noted_from_the_process(tmp_path, monkeypatch):
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    app = app_for(INVENTED, tmp_path, at=5)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = stepper(app)
        await analysed(pilot, screen)
        rows = screen.request.text_rows()
        assert any('.order_id = "4417"  ◦ note: not in the prefix: produced by the model' in r for r in rows)
        assert "1 provenance note" in screen_text(app)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as stat:  # still listed: only as a zombie nobody has reaped
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


async def _open_held(app, pilot, flag: Path, wait: bool = True) -> StepperScreen:
    """Another run of the refund file opened on top, its analyses' process held before it has the run (the app
    sends it once ``flag`` exists); with ``wait``, until that process is running."""
    run = open_run(str(REFUND))
    run.meta["held"] = HeldUntil(str(flag))
    other = StepperScreen(RunView(run), 0, loader=functools.partial(open_run, str(REFUND)))
    app.push_screen(other)
    await pilot.pause()
    for _ in range(50 if wait else 0):
        if other.background is not None and other.background.alive:
            break
        await asyncio.sleep(0.1)
    return other


async def test_steps_are_answered_while_the_process_works_and_closing_the_run_ends_it(tmp_path, monkeypatch):
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    flag = tmp_path / "go"
    app = app_for(REFUND, tmp_path, at=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await analysed(pilot, stepper(app))
        first = stepper(app).background.processes
        other = await _open_held(app, pilot, flag)  # another run opened: its own process, held before it loads
        processes = other.background.processes
        assert processes and all(p.is_alive() for p in processes) and other.view.findings is None
        await pilot.press("j", "j", "j")
        await pilot.pause()
        assert other.index == 3 and "message 3 of" in screen_text(app)  # answered while the process works
        assert other.view.analyses.report is None  # nothing computed here meanwhile
        app.pop_screen()  # closing the run
        await pilot.pause()
        assert all(gone(p.pid) for p in processes)
        assert other.background is None
    assert first and all(gone(p.pid) for p in first)  # quitting ends the other one (already done, or stopped)


async def test_the_analyses_arrive_once_the_process_has_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    flag = tmp_path / "go"
    app = app_for(REFUND, tmp_path, at=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await analysed(pilot, stepper(app))
        other = await _open_held(app, pilot, flag, wait=False)
        await pilot.press("j")
        flag.write_text("go")
        await analysed(pilot, other)
        base = app.screen_stack[1].view  # the same file, analysed by the first screen's process
        assert other.view.findings == base.findings and other.view.analyses.unsourced == base.analyses.unsourced
        assert other.view.analyses.report.as_json() == base.analyses.report.as_json()
        processes = other.background.processes
    assert processes and all(gone(p.pid) for p in processes)


async def test_a_file_changed_since_it_was_opened_is_not_read_again(tmp_path, monkeypatch):
    """The app sends the process the run it holds: the file is not loaded again, so a file changed (or gone)
    since it was opened does not matter."""
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    copy = tmp_path / "run.jsonl"
    copy.write_bytes(REFUND.read_bytes())
    app = app_for(copy, tmp_path, at=0)
    copy.write_bytes(INVENTED.read_bytes())
    async with app.run_test(size=(120, 40)) as pilot:
        screen = stepper(app)
        await analysed(pilot, screen)
        assert screen.background is not None and screen.background.processes  # the process did the work
        assert screen.view.analyses.report.as_json() == RunView(open_run(str(REFUND))).analyses.compute_tokens().as_json()
        assert screen.view.analyses.unsourced == RunView(open_run(str(REFUND))).analyses.compute_unsourced()


async def test_a_run_that_cannot_be_sent_is_loaded_and_a_changed_file_analysed_in_the_app(tmp_path, monkeypatch):
    """A run holding something that does not pickle (a plug-in's run may) goes by the file: the process loads
    it, sees it is not the run the app holds (the file changed since), and says so; the app does the work."""
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    copy = tmp_path / "run.jsonl"
    copy.write_bytes(REFUND.read_bytes())
    opening = opening_for(copy, tmp_path, at=0)
    opening.chosen.meta["unpicklable"] = threading.Lock()
    app = app_of(opening)
    copy.write_bytes(INVENTED.read_bytes())  # the process loads another run than the app holds
    async with app.run_test(size=(120, 40)) as pilot:
        screen = stepper(app)
        await analysed(pilot, screen)
        assert screen.background is None  # it said so, and the app did the work itself
        assert screen.view.analyses.report.as_json() == RunView(open_run(str(REFUND))).analyses.compute_tokens().as_json()


async def test_quitting_the_app_ends_the_analyses_it_is_waiting_for(tmp_path, monkeypatch):
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    app = app_for(REFUND, tmp_path, at=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await analysed(pilot, stepper(app))
        other = await _open_held(app, pilot, tmp_path / "never")
        processes = other.background.processes
        assert processes and all(p.is_alive() for p in processes)
        await pilot.press("q")  # quit, from the stepper
        await pilot.pause()
    assert all(gone(p.pid) for p in processes)
