"""Opening runs: the picker (samples, recent runs, Claude Code sessions), multi-run files, bad files, keys."""

from __future__ import annotations

import os

from app_helpers import REFUND, app_for, screen_text, settle

from tui.app.sources import load_recent
from tui.app.screens.dialogs import HelpScreen
from tui.app.screens.picker import PickerScreen
from tui.app.screens.run_list import RunListScreen
from tui.app.screens.stepper import StepperScreen
from tui.core import jsonio


def _session(tmp_path, words: str = "mix phx.server doesnt seem to start"):
    project = tmp_path / "claude" / "projects" / "-home-me-shop"
    project.mkdir(parents=True)
    records = [{"type": "user", "message": {"role": "user", "content": words}, "uuid": "a", "parentUuid": None},
               {"type": "assistant", "message": {"id": "msg_1", "role": "assistant",
                                                 "content": [{"type": "text", "text": "Looking."}]},
                "uuid": "b", "parentUuid": "a"},
               {"type": "assistant", "message": {"id": "msg_1", "role": "assistant",
                                                 "content": [{"type": "tool_use", "id": "t", "name": "Bash",
                                                              "input": {}}]}, "uuid": "c", "parentUuid": "b"},
               {"type": "user", "message": {"role": "user", "content": [
                   {"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}, "uuid": "d", "parentUuid": "c"},
               {"type": "user", "isSidechain": True, "message": {"role": "user", "content": "side"}, "uuid": "e",
                "parentUuid": None}]
    for record in records:
        record["sessionId"] = "55604662-cf2a-4331-851a-ec234028f8ca"
    path = project / "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
    path.write_bytes(b"\n".join(jsonio.dumps(r) for r in records) + b"\n")
    os.utime(path, (1_767_000_000, 1_767_000_000))
    return path


async def _choose(pilot, label: str) -> None:
    screen = pilot.app.screen
    assert isinstance(screen, PickerScreen)
    target = next(k for k, e in screen.entries.items() if e.label == label)
    while screen.options.highlighted is None or screen.options.get_option_at_index(
            screen.options.highlighted).id != target:
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)


async def test_the_picker_lists_samples_and_sessions_and_opens_a_sample(tmp_path):
    _session(tmp_path)
    app = app_for(None, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "refund/run.jsonl" in text and "8 messages" in text
        assert "tools.json" not in text  # a sidecar, not a run
        assert "-home-me-shop/55604662" in text and "3 messages · mix phx.server doesnt seem to start" in text
        await _choose(pilot, "refund/run.jsonl")
        assert isinstance(app.screen, StepperScreen)
        assert "refund/run.jsonl" in screen_text(app)
        await pilot.press("escape")  # back to the picker, which now lists the run as recent
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        assert [r.path for r in load_recent(tmp_path / "state")] == [str(REFUND.resolve())]
        assert str(REFUND.resolve()) in screen_text(app)


async def test_a_file_that_cannot_be_loaded_is_named_on_the_picker(tmp_path):
    path = _session(tmp_path)
    path.write_bytes(b'{"type": "user", "message": \n')
    app = app_for(None, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await _choose(pilot, "-home-me-shop/55604662")
        assert isinstance(app.screen, PickerScreen)
        assert "cannot open:" in screen_text(app)


async def test_a_multi_run_file_opens_its_run_list_first(tmp_path):
    runs = [[{"role": "user", "content": "first run"}, {"role": "assistant", "content": "a"}],
            [{"role": "user", "content": "second run"}, {"role": "assistant", "content": "b"}]]
    path = tmp_path / "two.json"
    path.write_bytes(jsonio.dumps(runs))
    app = app_for(path, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunListScreen)
        assert "second run" in screen_text(app)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        assert app.screen.view.run.title() == "second run"


async def test_help_lists_every_key_from_the_widgets_and_follows_the_keymap(tmp_path):
    app = app_for(REFUND, tmp_path, keymap={"stepper.next_call": "N"})
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await pilot.press("N")
        assert app.screen.index == 1
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").render())  # the whole list, scrolled or not
        assert "N " in text and "Next model call" in text
        assert "j, ↓" in text or "↓, j" in text  # the hidden vim alias is listed here
        assert "The message list:" in text  # the widget's own HELP
        await pilot.press("escape")
        assert isinstance(app.screen, StepperScreen)


def test_a_bad_file_is_one_line_and_exit_2_before_the_app_starts(cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": [\n  {"role": "user",, }\n]}')
    result = cli(str(bad))
    assert result.code == 2
    assert result.stderr.startswith(f"turnscope: {bad}:2:")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    missing = cli(str(tmp_path / "nope.jsonl"))
    assert missing.code == 2 and "cannot read" in missing.stderr
    out_of_range = cli(str(REFUND), "--at", "99")
    assert out_of_range.code == 2 and "out of range" in out_of_range.stderr
    assert cli(str(REFUND), "--bogus").code == 2


def test_the_picker_reads_real_claude_code_sessions(realruns):
    from tui.app.sources import describe_session

    count, words = describe_session(realruns / "spotter__short.jsonl")
    assert words == "mix phx.server doesnt seem to start"
    assert count >= 3


async def test_run_k_opens_that_run_of_a_multi_run_file_directly(tmp_path):
    runs = [[{"role": "user", "content": "first run"}], [{"role": "user", "content": "second run"},
                                                         {"role": "assistant", "content": "b"}]]
    path = tmp_path / "two.json"
    path.write_bytes(jsonio.dumps(runs))
    app = app_for(path, tmp_path, run=1, at=1)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        assert app.screen.index == 1 and app.screen.view.run.title() == "second run"
        assert "two.json#1" in app.screen.header_text().plain


async def test_the_picker_lists_codex_sessions_newest_first_and_opens_one(realruns, tmp_path):
    import shutil

    new_name = "codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
    old_name = "codemie__rollout-2026-01-02T18-39-45-019b7f94-51b4-7593-922e-ba12b5b73b52.jsonl"
    day = tmp_path / "codex" / "sessions" / "2026" / "05" / "11"
    day.mkdir(parents=True)
    older = tmp_path / "codex" / "sessions" / "2026" / "01" / "02"
    older.mkdir(parents=True)
    new = shutil.copy(realruns / "next" / new_name, day / new_name.split("__")[1])
    old = shutil.copy(realruns / "next" / old_name, older / old_name.split("__")[1])
    os.utime(old, (1_767_000_000, 1_767_000_000))
    os.utime(new, (1_778_000_000, 1_778_000_000))
    app = app_for(None, tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Codex sessions (codex format, reconstructed prefixes)" in text
        assert text.index("2026/05/11/2026-05-11T11-26-55") < text.index("2026/01/02/2026-01-02T18-39-45")
        # counted as the loader reads it (the head's 16 message items leave out the tool calls and results)
        assert "132 messages · show tools" in text and "7 messages · what is current repository" in text
        await _choose(pilot, "2026/01/02/2026-01-02T18-39-45")
        assert isinstance(app.screen, StepperScreen)
        assert len(app.screen.view.run.messages) == 7
        assert "reconstructed" in screen_text(app)


async def test_an_eval_opens_on_its_samples_list_and_enter_builds_the_chosen_sample(realruns, tmp_path):
    from loader_helpers import same_run

    from tui.formats import load_runs

    path = realruns / "next" / "inspect__2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
    whole = load_runs(str(path))
    app = app_for(path, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, RunListScreen)
        text = screen_text(app)
        assert "holds 10 runs" in text
        for run in whole[:5]:
            messages, calls = len(run.messages), len(run.calls)
            assert f"{messages} message{'s' * (messages != 1)}, {calls} model call" in text
            assert run.title()[:40] in text
        await pilot.press("down", "down", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen)
        assert same_run(app.screen.view.run, whole[3]) and app.screen.view.run.title().startswith("sample 4 epoch 1")
