"""Experiments in the app, driven by keys through Pilot: the review dialog's samples K, control and
event; the cost confirmation before K x (arms) calls are sent; the temperature-0 warning; the
experiment screen (one column per arm, each sample a row, the counts and Wilson intervals on top)
with its samples sent through the real anthropic SDK to the fake Messages API; Enter opening a
sample beside the original; Escape stopping a running experiment with its saved turns kept."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from app_helpers import REFUND, app_for, screen_text, settle
from branch_app_helpers import (api_env, branch_app, open_editor, policy_error, review, type_text,  # noqa: F401
                                until, until_text)
from fake_messages_api_stream import DUMMY_KEY, Turn, stream_api, text, tool_use  # noqa: F401

from tui.app.screens.branch.review import ReviewScreen
from tui.app.screens.dialogs import PromptScreen
from tui.app.screens.experiment import ExperimentScreen
from tui.app.screens.side_by_side import SideBySideScreen
from tui.app.screens.stepper import StepperScreen
from tui.core.branch import experiment as experiments, patch as patches
from tui.formats import open_run

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
REFUND_CALL = {"order_id": "4471", "amount_cents": 8900}


@pytest.fixture(autouse=True)
def always_confirm(monkeypatch):
    """Every experiment here is confirmed before it is sent (threshold 0), unless a test sets another."""
    monkeypatch.setenv("TURNSCOPE_CONFIRM_TOKENS", "0")


def _edited(body) -> bool:
    return body["messages"][4]["content"][0].get("is_error") is True


class Script:
    """Edited arm: the 2nd first request refunds, the others ask a manager; control: always refunds;
    after a refund's (recorded) result, the final answer."""

    def __init__(self, stall: bool = False):
        self.edited_first = itertools.count(1)
        self.stall = stall

    def __call__(self, body):
        if len(body["messages"]) > 5:
            return Turn([text("Your refund is on its way.")])
        if self.stall:
            return Turn([text("This answer never finishes arriving.")], stall_after=4)
        if _edited(body):
            k = next(self.edited_first)
            if k == 2:
                return Turn([tool_use(f"toolu_E{k}", "issue_refund", REFUND_CALL)], "tool_use")
            return Turn([text("I can't confirm the policy right now, so I've asked a manager to look at it.")])
        return Turn([tool_use("toolu_C1", "issue_refund", REFUND_CALL)], "tool_use")


def _no_key_anywhere(root):
    for path in root.rglob("*"):
        if path.is_file():
            assert DUMMY_KEY.encode() not in path.read_bytes(), path


async def _send_confirmed(pilot, asking: str = "") -> ExperimentScreen:
    """Enter in the review, then y to the cost confirmation (holding ``asking``): the experiment screen."""
    app = pilot.app
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, PromptScreen), what="the cost confirmation")
    if asking:
        await until_text(pilot, asking)
    await type_text(pilot, "y")
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, ExperimentScreen), what="the experiment screen")
    return app.screen


async def _reviewed(pilot) -> ReviewScreen:
    await open_editor(pilot)
    await policy_error(pilot)
    await review(pilot)
    assert isinstance(pilot.app.screen, ReviewScreen)
    return pilot.app.screen


async def _two_samples(pilot) -> str:
    """In the review dialog, ``s``: two samples, the control on by itself; the screen's text then."""
    await pilot.press("s")
    return await until_text(pilot, "samples 2 with a control")


async def test_an_experiment_from_the_review_dialog_counts_its_samples(api_env, tmp_path, monkeypatch):
    api_env.responder = Script()
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        dialog = await _reviewed(pilot)
        shown = screen_text(app)
        assert "samples 1 (s: sample K times, an experiment)" in shown
        await pilot.press("s", "s")  # K: 1 -> 2 -> 3; the control comes on with K > 1
        shown = await until_text(pilot, "input tokens for the first calls")
        assert "samples 3 with a control" in shown
        assert "3 samples of the edited request and 3 of the unedited one" in shown
        parent = open_run(str(REFUND))
        edit = patches.tool_error(patches.base_document(parent, 4), "toolu_01Ef", "policy service unavailable (503)")
        estimate = experiments.request_estimate(parent, 4, edit, [], 3, True)
        per = estimate["per_request"]
        assert (f"about {estimate['input_tokens']:,} input tokens for the first calls = {per['edited']:,} x 3 "
                f"(edited) + {per['control']:,} x 3 (control)") in re.sub(r"\s+", " ", shown)
        assert "temperature 0" not in shown  # the refund run sets none: the API's default samples
        monkeypatch.setenv("TURNSCOPE_CONFIRM_TOKENS", str(estimate["input_tokens"] - 1))  # just above: asked
        await pilot.press("c")  # without the control: K x 1 arm
        shown = await until_text(pilot, "samples 3 without a control")
        assert f"= {per['edited']:,} x 3 (edited);" in re.sub(r"\s+", " ", shown)
        await pilot.press("c")
        await pilot.press("e")  # the event to count
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), what="the event prompt")
        await type_text(pilot, "issue_refund")
        await pilot.press("enter")
        await until_text(pilot, "event issue_refund (e)")

        await pilot.press("enter")  # K > 1: the cost is asked first
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), what="the cost confirmation")
        asked = await until_text(pilot, "Send 6 branches (3 edited + 3 control)?")
        assert "input tokens for the first calls" in asked
        await pilot.press("escape")  # not confirmed: nothing is sent, the dialog stays
        await until_text(pilot, "not sent: the experiment was not confirmed")
        assert app.screen is dialog and api_env.requests == []
        await _send_confirmed(pilot)
        screen = app.screen
        done = await until_text(pilot, "all 6 samples done")
        assert DUMMY_KEY not in done
        assert "edited (the branch's edit)" in done and "control (the same request, unedited)" in done
        assert "issue_refund: edited 1/3 (95% 6% to 79%) · control 3/3 (95% 44% to 100%)" in done
        assert "edited first action: final answer x2 · issue_refund" in done and "(3/3 done)" in done
        assert done.count("· event yes") == 4 and done.count("· event no") == 2  # a row per sample
        assert "edited - control: -67 points" in done
        assert "the 95% interval is wide" in done  # K = 3 says so in words
        assert "original run: first action issue_refund" in done
        files = screen.tally["files"]
        assert len(files["edited"]) == len(files["control"]) == 3
        hits = {arm: sum(any(b.get("type") == "tool_use" and b.get("name") == "issue_refund"
                             for m in open_run(p).messages[5:] if m["role"] == "assistant" for b in m["content"])
                         for p in paths) for arm, paths in files.items()}
        assert hits == {"edited": 1, "control": 3}  # the screen's counts are a hand count of the files
        firsts = [b for b in api_env.bodies if len(b["messages"]) == 5]
        assert sum(_edited(b) for b in firsts) == 3
        base = patches.base_document(parent, 4)
        for body in firsts:  # the control arm sends the unedited request
            if not _edited(body):
                assert body["messages"] == base["messages"]

        await pilot.press("enter")  # the first edited sample beside the original
        await until(pilot, lambda: isinstance(app.screen, SideBySideScreen), what="the side-by-side view")
        assert app.screen.branch.source.path == files["edited"][0]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="back on the experiment")
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ExperimentScreen)
    _no_key_anywhere(tmp_path)


async def test_temperature_0_is_said_before_sending_and_manual_is_refused_for_k_samples(api_env, tmp_path):
    request = json.loads((REFUND.parent / "request.json").read_text())
    request["temperature"] = 0
    cold = tmp_path / "cold.json"
    cold.write_text(json.dumps(request))
    app = branch_app(tmp_path, path=cold)
    async with app.run_test(size=(120, 40)) as pilot:
        await _reviewed(pilot)
        assert "temperature 0" not in screen_text(app)  # one sample: nothing to say
        shown = await _two_samples(pilot)
        assert "the request sets temperature 0: the samples will likely be identical" in shown
        await pilot.press("r")  # recorded -> manual: a person cannot answer K samples at once
        await until_text(pilot, "the manual resolver answers one branch at a time")
        await pilot.press("enter")
        await until_text(pilot, "r chooses recorded, stop or python for K samples")
        assert isinstance(app.screen, ReviewScreen) and api_env.requests == []


async def test_an_experiment_at_or_under_the_threshold_is_sent_without_asking(api_env, tmp_path, monkeypatch):
    api_env.responder = Script()
    parent = open_run(str(REFUND))
    edit = patches.tool_error(patches.base_document(parent, 4), "toolu_01Ef", "policy service unavailable (503)")
    cost = experiments.request_estimate(parent, 4, edit, [], 2, False)["input_tokens"]
    monkeypatch.setenv("TURNSCOPE_CONFIRM_TOKENS", str(cost))  # the cost is exactly the threshold: not above
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await _reviewed(pilot)
        await pilot.press("s", "c")  # K = 2, the control off
        shown = await until_text(pilot, f"about {cost:,} input tokens for the first calls")
        assert "samples 2 without a control" in shown  # the cost is still on the dialog
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ExperimentScreen), what="the experiment screen")
        await until_text(pilot, "all 2 samples done")  # sent, with no confirmation asked on the way
        files = app.screen.tally["files"]
        assert len(files["edited"]) == 2 and not files.get("control")  # K = 2 samples saved, no control arm
        firsts = [b for b in api_env.bodies if len(b["messages"]) == 5]
        assert len(firsts) == 2 and all(_edited(b) for b in firsts)  # two first calls, both of the edit


async def test_escape_stops_a_running_experiment_and_keeps_what_it_saved(api_env, tmp_path):
    api_env.responder = Script(stall=True)
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _reviewed(pilot)
        await _two_samples(pilot)
        await _send_confirmed(pilot)
        screen = app.screen
        await until(pilot, lambda: api_env.stalled.is_set(), what="a sample in flight")
        assert "0 of 4 samples done" in screen_text(app)
        await pilot.press("escape")
        stopped = await until_text(pilot, "stopped: 0 of 4 samples done")
        assert "turnscope branch --resume" in stopped
        assert stopped.count("■ cancelled") + stopped.count("… not done yet") == 4  # no sample claims an end
        files = screen.tally["files"]
        for arm in files.values():  # every sample's file is kept (messages 0..4, as created)
            for path in arm:
                assert len(open_run(path).messages) == 5
        saved = screen.experiment.path
    sent = len(api_env.requests)
    # The experiment file opened again later (``turnscope FILE.experiment.json``): its screen shows what
    # the files hold, nothing is sent until r; r continues the unfinished samples.
    api_env.responder = Script()
    api_env.release.set()
    again = app_for(str(saved), tmp_path)
    async with again.run_test(size=(80, 24)) as pilot:
        shown = await until_text(pilot, "saved: 0 of 4 samples done")
        assert isinstance(again.screen, ExperimentScreen) and "r continues" in shown
        assert shown.count("■ cancelled") + shown.count("… not done yet") == 4
        await settle(pilot)
        assert len(api_env.requests) == sent  # opening sends nothing
        await pilot.press("r")  # continue the unfinished samples
        await until_text(pilot, "all 4 samples done")
        for arm, paths in files.items():
            for path in paths:
                assert len(open_run(path).messages) > 5, (arm, path)
        await pilot.press("escape")  # back to the original run's stepper, at the branch point
        await settle(pilot)
        assert isinstance(again.screen, StepperScreen) and again.screen.index == 4
    _no_key_anywhere(tmp_path)


async def test_a_sample_the_api_refused_shows_the_api_words_and_can_be_continued(api_env, tmp_path):
    from fake_messages_api_stream import Error

    api_env.responder = lambda body: Error(400, "invalid_request_error",
                                           f"messages.4: the policy is malformed (key {DUMMY_KEY})")
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _reviewed(pilot)
        await pilot.press("s", "c")  # two samples, no control
        await until_text(pilot, "samples 2 without a control")
        await _send_confirmed(pilot, asking="Send 2 branches (2 edited)?")
        shown = await until_text(pilot, "ended: 0 of 2 samples done")
        assert shown.count("✗ api_error") == 2
        assert "the API answered 400 invalid_request_error: messages.4: the policy is" in shown
        assert DUMMY_KEY not in shown and "[ANTHROPIC_API_KEY]" in shown  # an echoed key is never shown
        await settle(pilot)  # the footer is drawn a frame after the bindings change
        assert "r Continue" in screen_text(app)
        assert len(api_env.requests) == 2  # a 400 is not retried
        api_env.responder = Script()
        await pilot.press("r")
        await until_text(pilot, "all 2 samples done")
        assert "api_error" not in screen_text(app)
    _no_key_anywhere(tmp_path)


async def test_at_80x24_without_colour_the_cursor_and_the_keys_read(api_env, tmp_path, monkeypatch):
    """NO_COLOR at 80x24: the review's footer keeps ? Keys; on the experiment screen the cursor row is
    marked ▶ (not only by colour), tab moves it to the control column, the footer shows Enter's key."""
    from test_app_footer import footer
    from test_app_palette import SVG_CHROME, _coloured

    monkeypatch.setenv("NO_COLOR", "1")
    api_env.responder = Script()
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _reviewed(pilot)
        await _two_samples(pilot)
        await settle(pilot)
        keys_row = next(line for line in screen_text(app).split("\n") if "⏎ Send" in line)
        assert "s More samples" in keys_row and "esc Back to editing" in keys_row  # the dialog's footer, whole
        shown = screen_text(app)  # the summary scrolls with the patch: the cost line is not cut at 24 rows
        assert "input tokens for the first calls" in shown and "saved under" in shown
        await _send_confirmed(pilot)
        await until_text(pilot, "all 4 samples done")
        await settle(pilot)
        assert app.no_color and _coloured(app.export_screenshot()) <= SVG_CHROME
        shown = footer(app)
        assert "Side by side" in shown and "o Stepper" in shown and shown.endswith("? Keys")
        left, right = app.screen.lists()
        assert "▶ 1 ✓ end_turn" in screen_text(app)
        assert str(left.get_option_at_index(0).prompt).startswith("▶")
        await pilot.press("tab")
        await settle(pilot)
        assert app.screen.focused is right
        assert str(right.get_option_at_index(0).prompt).startswith("▶")
        assert not str(left.get_option_at_index(0).prompt).startswith("▶")
        await pilot.press("down", "o")  # the second control sample, in the stepper, its new rows marked
        await until(pilot, lambda: not isinstance(app.screen, ExperimentScreen), what="the stepper")
        await settle(pilot)
        assert app.screen.view.run.source.path == app.screen_stack[-2].tally["files"]["control"][1]
        assert "+5 assistant" in screen_text(app)


async def test_an_experiment_whose_original_changed_opens_over_the_picker_and_says_why(api_env, tmp_path):
    """Its samples finished, then the original run changed: the screen says so, Enter (beside the
    original) does nothing, o still opens a sample in the stepper, Escape goes to the picker."""
    import shutil

    from tui.app.screens.picker import PickerScreen
    from tui.core.branch.store import sha256_of

    copy = tmp_path / "refund"
    shutil.copytree(REFUND.parent, copy)
    parent_path = copy / REFUND.name
    parent = open_run(str(parent_path))
    edit = patches.tool_error(patches.base_document(parent, 4), "toolu_01Ef", "policy service unavailable (503)")
    made = experiments.create(parent, 4, edit, samples=2, control=True, resolver="recorded",
                              parent_sha=sha256_of(str(parent_path)), output=tmp_path / "x.experiment.json")
    api_env.responder = Script()
    app = app_for(str(made.path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:  # the original is there: r runs the samples
        await until_text(pilot, "saved: 0 of 4 samples done")
        await pilot.press("r")
        await until_text(pilot, "all 4 samples done")
    with open(parent_path, "a", encoding="utf-8") as handle:  # the original changes after the experiment
        handle.write("\n")
    app = app_for(str(made.path), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        # the original's check comes after the samples are read: wait for its line, not for the samples'
        shown = await until_text(pilot, "original run: not available (the parent run")
        assert "changed since" in shown and "all 4 samples done" in shown
        await pilot.press("enter")  # a finished sample, but no original to show it beside
        await settle(pilot)
        assert isinstance(app.screen, ExperimentScreen)
        await pilot.press("o")  # the sample alone opens
        await until(pilot, lambda: isinstance(app.screen, StepperScreen), what="the sample in the stepper")
        assert app.screen.view.run.source.path == made.tally()["files"]["edited"][0]
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ExperimentScreen), what="back on the experiment")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
