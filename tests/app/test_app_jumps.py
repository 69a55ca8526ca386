"""The way back: the jump list (ctrl+o back, ctrl+n forward; ctrl+i is Tab to a terminal), the links
between the runs of a Claude Code session (a Task call to its subagent's run and back, the parts before
and after a compaction), Enter from the list into the view, and Escape on a run list never quitting."""

from __future__ import annotations

import shutil

from app_helpers import REFUND, app_for, screen_text, settle, stepper

from tui.app.screens.picker import PickerScreen
from tui.app.screens.run_list import RunListScreen
from tui.core.view.jumps import JumpList

SESSION = "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def _footer(app) -> str:
    return screen_text(app).split("\n")[-1]


async def test_ctrl_o_goes_back_after_a_jump_and_ctrl_n_forward_again(tmp_path):
    app = app_for(REFUND, tmp_path, at=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "^o Back" not in _footer(app)  # nowhere to go back to yet
        await pilot.press("colon", "6", "enter")  # a jump
        await settle(pilot)
        assert stepper(app).index == 6 and "^o Back" in _footer(app)
        await pilot.press("k")  # a step is not a jump
        await pilot.press("G")  # a jump from 5 to 7, the last message
        await settle(pilot)
        await pilot.press("ctrl+o")
        assert stepper(app).index == 5
        await pilot.press("ctrl+o")
        assert stepper(app).index == 1
        await settle(pilot)
        assert "^o Back" not in _footer(app)
        await pilot.press("ctrl+n", "ctrl+n")
        assert stepper(app).index == 7
        await pilot.press("ctrl+o", "colon", "3", "enter")  # a new jump forgets what was ahead
        await settle(pilot)
        await pilot.press("ctrl+n")
        assert stepper(app).index == 3


async def test_a_search_match_and_a_provenance_source_are_jumps_too(tmp_path):
    app = app_for(REFUND, tmp_path, at=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"AMOUNT_CENTS", "enter")
        await settle(pilot)
        assert stepper(app).index == 5
        await pilot.press("greater_than_sign")
        assert stepper(app).index == 6
        await pilot.press("ctrl+o")
        assert stepper(app).index == 5
        await pilot.press("ctrl+o")
        assert stepper(app).index == 0


def test_the_jump_list_keeps_places_not_repeats():
    jumps = JumpList()
    jumps.jumped(1, 1)
    assert not jumps.can_back()
    jumps.jumped(1, 5)
    jumps.jumped(5, 9)
    assert jumps.back(9) == 5 and jumps.back(5) == 1 and jumps.back(1) is None
    assert jumps.forward(1) == 5 and jumps.forward(5) == 9 and not jumps.can_forward()


def _session(tmp_path, realruns):
    """The session laid out as Claude Code keeps it: the file, and its subagent files beside it."""
    folder = tmp_path / "proj"
    (folder / "sess" / "subagents").mkdir(parents=True)
    shutil.copy(realruns / f"{SESSION}.jsonl", folder / "sess.jsonl")
    for agent in ("agent-aac57f5", "agent-acompact-946d2b"):
        shutil.copy(realruns / f"{SESSION}__subagents__{agent}.jsonl", folder / "sess" / "subagents" / f"{agent}.jsonl")
    return folder / "sess.jsonl"


async def test_a_task_call_opens_its_subagents_run_and_the_way_back_returns_to_the_call(tmp_path, realruns):
    app = app_for(_session(tmp_path, realruns), tmp_path, run=1, at=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        caller = stepper(app)
        assert "enter: run 2, the subagent's" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        sub = stepper(app)
        assert sub is not caller and sub.view.run.source.run_index == 2 and sub.index == 0
        assert "started by run 1's Task call at message 9" in screen_text(app)
        assert "^o Back" in _footer(app)
        await pilot.press("ctrl+o")  # no jump in the subagent's run: back to the call
        await settle(pilot)
        assert app.screen is caller and caller.index == 9
        await pilot.press("j")  # message 10: no link here, Enter moves into the view
        await pilot.press("enter")
        assert app.screen is caller and app.focused is caller.request


async def test_a_run_after_a_compaction_links_to_the_run_before_it_and_back(tmp_path, realruns):
    app = app_for(_session(tmp_path, realruns), tmp_path, run=0, at=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "enter: run 1, before the compaction" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        before = stepper(app)
        assert before.view.run.source.run_index == 1 and before.index == len(before.view.run.messages) - 1
        assert "enter: run 0, after the compaction" in screen_text(app)
        await pilot.press("escape")  # Escape goes back too
        await settle(pilot)
        assert stepper(app).view.run.source.run_index == 0


async def test_escape_on_a_run_list_opened_first_goes_to_the_picker(tmp_path, realruns):
    app = app_for(_session(tmp_path, realruns), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunListScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen) and app.is_running
