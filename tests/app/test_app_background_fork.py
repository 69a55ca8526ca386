"""The analyses of the run the app starts on, forked before the app runs (``launch.fork_analyses``, after
``load_opening`` and ``app_of`` as launch calls them: no thread runs yet): the stepper adopts those
processes (no spawned ones, no second load), shows what the app's own thread finds, and closing the run or
quitting ends them; a run the stepper would not analyse in processes is not forked for."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from analysis_helpers import INVENTED, stepper
from app_helpers import REFUND, app_for, opening_for, screen_text
from test_app_background import analysed, assert_same, gone, results, shown
from test_app_diff import _drawn_in_a_terminal

from tui.app.factory import app_of
from tui.app.launch import fork_analyses
from tui.core import spawn
from tui.core.view import background


@pytest.fixture
def forking(monkeypatch):
    """Files of any size analysed in processes; forking allowed although pytest runs threads of its own
    (they never touch what the child runs: the analyses and a pipe)."""
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    monkeypatch.setattr(spawn, "forkable", lambda: True)
    yield
    background._adopt(None, None)  # nothing left waiting for the next test


async def forked_results(path, tmp_path, at: int = 5) -> tuple[dict, list[int]]:
    opening = opening_for(path, tmp_path, at=at)
    app = app_of(opening)
    assert fork_analyses(opening)  # as launch does, the app built, before it runs
    early = [w.process.pid for _, workers in background._EARLY for w in workers]
    async with app.run_test(size=(200, 50)) as pilot:
        screen = stepper(app)
        await analysed(pilot, screen)
        assert screen.background is not None and screen.background.forked
        assert [p.pid for p in screen.background.processes] == early  # adopted, none spawned
        assert background._EARLY == []
        out = shown(app, screen, at)
    assert all(gone(pid) for pid in early)
    return out, early


async def test_the_forked_processes_find_what_the_app_finds_in_its_own_thread(tmp_path, monkeypatch, forking):
    for path in (INVENTED, REFUND):
        there, early = await forked_results(path, tmp_path / "a")
        assert len(early) == len(background.groups())
        here = await results(path, tmp_path / "b", monkeypatch, process=False)
        monkeypatch.setattr(background, "PROCESS_FROM", 0)
        assert_same(there, here)


async def test_closing_the_run_ends_its_forked_processes_at_once(tmp_path, forking, monkeypatch):
    monkeypatch.setattr(background, "_send", _held)  # the children wait before they analyse: still running
    opening = opening_for(REFUND, tmp_path, at=0)
    app = app_of(opening)
    assert fork_analyses(opening)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = stepper(app)
        for _ in range(50):
            if screen.background is not None:
                break
            await asyncio.sleep(0.1)
        processes = screen.background.processes
        assert screen.background.forked and processes and all(p.is_alive() for p in processes)
        await pilot.press("j")
        await pilot.pause()
        assert "message 1 of" in screen_text(app)  # answered while they work
        app.pop_screen()  # closing the run
        await pilot.pause()
        assert screen.background is None and all(gone(p.pid) for p in processes)


def _held(conn, run, jobs):
    import time

    time.sleep(60)


async def test_quitting_the_app_ends_the_forked_processes_it_is_waiting_for(tmp_path, forking, monkeypatch):
    monkeypatch.setattr(background, "_send", _held)
    opening = opening_for(REFUND, tmp_path, at=0)
    app = app_of(opening)
    assert fork_analyses(opening)
    processes = [w.process for _, workers in background._EARLY for w in workers]
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(50):
            if stepper(app).background is not None:
                break
            await asyncio.sleep(0.1)
        assert stepper(app).background.processes == processes and all(p.is_alive() for p in processes)
        await pilot.press("q")
        await pilot.pause()
    assert all(gone(p.pid) for p in processes)


def test_no_fork_where_the_stepper_would_not_use_processes(tmp_path, monkeypatch):
    monkeypatch.setattr(spawn, "forkable", lambda: True)
    small = opening_for(REFUND, tmp_path / "a")  # the default bound: a small file is analysed in the app's thread
    assert not fork_analyses(small) and background._EARLY == []
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    assert not fork_analyses(opening_for(REFUND, tmp_path / "b", diff=str(INVENTED)))
    assert not fork_analyses(opening_for(REFUND, tmp_path / "c", follow=True))
    assert not fork_analyses(opening_for(None, tmp_path / "d"))  # the picker
    assert background._EARLY == []
    monkeypatch.setattr(spawn, "forkable", lambda: False)  # a process running threads
    assert not fork_analyses(opening_for(REFUND, tmp_path / "e"))


def test_launch_forks_the_analyses_before_the_app_runs(tmp_path):
    """``turnscope FILE`` on a large file: the analyses' processes are forked while the app runs no thread (built,
    not yet running; they wait while it draws its first screen), and the app then adopts them and lets them
    work: a real command line in a pty, its children's pids read from /proc, with the size bound lowered
    through the environment."""
    record = tmp_path / "forked.json"
    driver = (
        "import atexit, sys, orjson\n"
        "from tui.core import spawn\n"
        "from tui.core.view import background\n"
        "background.PROCESS_FROM = 0\n"
        "real, record, got = background.fork_early, sys.argv.pop(1), {'spawned': 0}\n"
        "def fork_early(run, jobs=None):\n"
        "    import threading\n"
        "    got['threads'] = threading.active_count()\n"
        "    got['forked'] = real(run, jobs)\n"
        "    got['pids'] = [w.process.pid for _, workers in background._EARLY for w in workers]\n"
        "    return got['forked']\n"
        "background.fork_early = fork_early\n"
        "real_start = spawn.start\n"
        "def start(target, args, name, fork=False, **options):\n"
        "    got['spawned'] += not fork and name == 'turnscope-analyses'\n"
        "    return real_start(target, args, name, fork, **options)\n"
        "spawn.start = start\n"
        "atexit.register(lambda: open(record, 'wb').write(orjson.dumps(got)))\n"
        "from tui.cli import main\n"
        "sys.argv[0] = 'turnscope'\n"
        "raise SystemExit(main())\n")
    drawn = _drawn_in_a_terminal([str(record), str(REFUND), "--at", "5"], (b"warning", b"message 5 of"), tmp_path,
                                 python=("-c", driver))
    got = orjson.loads(record.read_bytes())
    assert got["forked"] and len(got["pids"]) == len(background.groups()), got
    assert got["spawned"] == 0, got  # the stepper adopted the forked processes: it started none of its own
    assert got["threads"] == 1, got  # forked before the app runs a thread of its own
    assert drawn.rfind(b"warning") > drawn.rfind(b"checking the run") > 0  # the forked results arrived, later
    assert all(gone(pid) for pid in got["pids"])


def _frame_order(monkeypatch, started: str) -> list[str]:
    """What happened first: the app's first frame drawn, or the stepper's ``started`` method called."""
    from tui.app.app import TurnscopeApp
    from tui.app.screens.stepper import StepperScreen

    order = []
    display, start = TurnscopeApp._display, getattr(StepperScreen, started)

    def _display(app, screen, renderable):
        if renderable is not None and not app._batch_count and "frame" not in order:
            order.append("frame")
        display(app, screen, renderable)

    def starting(screen):
        order.append("analyses")
        return start(screen)

    monkeypatch.setattr(TurnscopeApp, "_display", _display)
    monkeypatch.setattr(StepperScreen, started, starting)
    return order


async def test_the_forked_analyses_start_only_once_the_first_frame_is_out(tmp_path, forking, monkeypatch):
    """On two cores the processes analysing beside the first frame slowed it: they are set to work after it."""
    order = _frame_order(monkeypatch, "start_background")
    there, early = await forked_results(INVENTED, tmp_path / "a")
    assert order == ["frame", "analyses"] and len(early) == len(background.groups())


async def test_a_small_run_is_checked_in_the_app_only_once_the_first_frame_is_out(tmp_path, monkeypatch):
    """Below the size bound the check runs in a thread of the app, which holds the interpreter: after the frame."""
    order = _frame_order(monkeypatch, "check_run")
    here = await results(INVENTED, tmp_path, monkeypatch, process=False)
    assert order == ["frame", "analyses"] and here["findings"] is not None


async def test_a_textual_that_never_calls_the_frame_hook_still_starts_the_analyses(tmp_path, forking, monkeypatch):
    from tui.app import start_frames

    monkeypatch.setattr(start_frames, "HOOKED", False)  # as if Textual had renamed _compositor_refresh
    there, _ = await forked_results(INVENTED, tmp_path / "a")
    here = await results(INVENTED, tmp_path / "b", monkeypatch, process=False)
    monkeypatch.setattr(background, "PROCESS_FROM", 0)
    assert_same(there, here)
