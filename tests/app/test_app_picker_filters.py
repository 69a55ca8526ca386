"""The picker and a file's run list: real sessions first and the samples last, a project shown as its path,
``/`` filtering by typed text, and the run list sorted by date, size and score (tau-bench's reward)."""

from __future__ import annotations

import os

from app_helpers import app_for, screen_text, settle

from tui.app.screens.picker import PickerScreen
from tui.app.screens.run_list import RunListScreen
from tui.app.screens.stepper import StepperScreen
from tui.core import jsonio
from tui.formats import load_runs


def _session(tmp_path, cwd: str | None):
    project = tmp_path / "claude" / "projects" / "-home-me-proj-spotter"
    project.mkdir(parents=True)
    first = {"type": "user", "message": {"role": "user", "content": "why does the build fail"}, "uuid": "a",
             "sessionId": "s1"}
    if cwd is not None:
        first["cwd"] = cwd
    records = [first, {"type": "assistant", "parentUuid": "a", "uuid": "b",
                       "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "Looking."}]}}]
    path = project / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    path.write_bytes(b"\n".join(jsonio.dumps(r) for r in records) + b"\n")
    return path


async def _type(pilot, key: str, typed: str) -> None:
    await pilot.press(key, "ctrl+u", *[{" ": "space"}.get(c, c) for c in typed], "enter")
    await settle(pilot)


async def test_sessions_come_before_the_samples_and_a_project_shows_as_its_path(tmp_path):
    _session(tmp_path, os.path.expanduser("~/proj/spotter"))
    app = app_for(None, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert text.index("Claude Code sessions") < text.index("Sample runs (bundled)")
        assert "~/proj/spotter · 4d5611e5" in text and "-home-me-proj-spotter" not in text


async def test_slash_filters_the_picker_and_an_empty_answer_shows_all(tmp_path):
    _session(tmp_path, "/srv/build")
    app = app_for(None, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        every = len(screen.entries)
        await _type(pilot, "slash", "OTHER_account")  # any case
        assert [e.label for e in screen.entries.values()] == ["other_account.jsonl"]
        assert f"1 of {every} runs hold 'OTHER_account'" in screen_text(app)
        await pilot.press("enter")  # the one row left is highlighted: it opens
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        await pilot.press("escape")
        await settle(pilot)
        await _type(pilot, "slash", "")
        assert len(app.screen.entries) == every + 1  # and the run just opened, now recent


async def test_the_run_list_filters_sorts_by_reward_and_opens_the_run_shown(tmp_path, realruns):
    path = realruns / "taubench__gpt-4o-airline.json"
    runs = load_runs(str(path))
    app = app_for(path, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunListScreen)
        assert "reward 1.0" in screen_text(app) or "reward 0.0" in screen_text(app)
        for _ in range(4):  # file, date, messages, calls, score
            await pilot.press("o")
        assert screen.order == "score" and "sorted by score (lowest first)" in screen_text(app)
        shown = screen.shown()
        rewards = [runs[k].meta["reward"] for k in shown]
        assert rewards == sorted(rewards) and rewards[0] < rewards[-1]
        await pilot.press("o", "o", "o")  # file, date, then messages: the most first
        assert [len(runs[k].messages) for k in screen.shown()] == sorted((len(r.messages) for r in runs), reverse=True)
        await _type(pilot, "slash", "task 7 ")
        chosen = screen.shown()
        assert chosen and all(runs[k].meta["task_id"] == 7 for k in chosen)
        assert f"{len(chosen)} shown" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        assert app.screen.view.run.source.run_index == chosen[0]


def test_a_sessions_count_is_the_messages_of_the_run_it_opens(realruns):
    from pathlib import Path

    from tui.app.sources import describe_session

    for name in ("spotter__short.jsonl", "ccviewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
                 "ccviewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"):
        count, _ = describe_session(Path(realruns / name))
        assert count == len(load_runs(str(realruns / name))[0].messages), name
