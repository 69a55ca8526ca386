"""An experiment running (or finished): one column per arm, each sample a row, the summary on top.

The screen drives ``tui.core.branch.experiment.ExperimentRunner`` — the headless runner of
``turnscope branch --samples K``, unchanged — in a thread worker with its own event loop, so
the K x (arms) model calls, their saving and the tally after each sample never hold the UI.
After each sample ends the worker reads every sample's outcome (``Experiment.outcomes``) and
the summary (``Experiment.tally``: counts, the Wilson interval of the named event per arm, the
difference between the arms, the honest notes) and posts them up. Columns: edited and, with a
control, control; each row is one sample: why it stopped, its steps, the named event, its
first action. Enter opens the highlighted sample beside the original run (the side-by-side
screen); ``o`` opens it in the stepper. Escape stops the experiment while it runs (every turn
a sample saved is kept), then goes back; ``r`` continues the samples that did not finish (as
``turnscope branch --resume FILE`` does: a finished sample is never sent again). A sample that
failed (after the runner's retries of a 429/529 or a network failure) shows the API's words.
Tool calls are answered as headless: the resolver chosen in the review, ``recorded`` stopping a
sample at a call the run never made (K samples have no one to ask).
"""

from __future__ import annotations

import asyncio
import os
import shlex
from typing import Any

from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static

from tui.app import keys
from tui.app.app_messages import OpenSideBySide, OpenStepper
from tui.app.render import styles as palette
from tui.app.widgets.keys_footer import KeysFooter
from tui.core.branch import api, experiment as experiments, patch as patches, store
from tui.core.branch.experiment import SampleDone
from tui.core.branch.resolvers import make_resolver
from tui.core.branch.tally import Arm, Sample, percent
from tui.core.errors import LoadError
from tui.core.run import Run
from tui.core.safe import one_line

#: What each arm's column is called.
ARM_TITLES = {"edited": "edited (the branch's edit)", "control": "control (the same request, unedited)"}
#: A sample's status as one mark that reads without colour.
STATUS_MARK = {"end_turn": "✓", "stop_sequence": "✓", "running": "…", "missing": "·", "api_error": "✗",
               "error": "✗", "cancelled": "■"}


def sample_text(k: int, sample: Sample, digits: int, cursor: bool, failure: str | None = None) -> Text:
    """One sample's row: number, why it stopped, steps, the named event (yes/no); its first action below."""
    mark = STATUS_MARK.get(sample.status, "■")
    text = Text()
    text.append("▶ " if cursor else "  ", "bold")
    text.append(f"{k + 1:>{digits}} ", palette.DIM)
    label = {"running": "not done yet", "missing": "not started"}.get(sample.status, sample.status)
    text.append(f"{mark} {one_line(label)}",
                palette.ERROR if mark == "✗" else (palette.WARNING if mark == "■" else ""))
    if sample.status not in ("missing", "running"):
        text.append(f" · {sample.steps} step{'s' * (sample.steps != 1)}", palette.DIM)
        if sample.event is not None:
            text.append(" · event ", palette.DIM)
            text.append("yes" if sample.event else "no", "bold" if sample.event else "")
        text.append("\n" + " " * (digits + 3))
        text.append(one_line(sample.first))
    if failure:
        text.append("\n" + " " * (digits + 3))
        text.append(one_line(failure), palette.ERROR)
    return text


class ExperimentScreen(Screen):
    """K samples of an edit against a control: one column per arm, the summary on top."""

    HELP = ("An experiment: the edited request sampled K times (and, with a control, the unedited one K times), "
            "each sample its own branch file. The summary says how often the named event happened per arm, "
            "with its 95% interval (wide with few samples), and the difference between the arms. Tab moves "
            "between the columns; Enter shows the highlighted sample beside the original run; o opens it in "
            "the stepper; Escape stops the experiment (every saved turn is kept), then goes back; r continues "
            "the samples that did not finish.")
    BINDINGS = keys.EXPERIMENT

    summary = getters.query_one("#experiment-summary", Static)
    status = getters.query_one("#experiment-status", Static)

    class Progress(Message):
        """The samples' outcomes and the summary, read in the worker after a sample ended."""

        def __init__(self, arms: list[Arm], original: Sample | None, tally: dict[str, Any],
                     done: SampleDone | None = None) -> None:
            super().__init__()
            self.arms, self.original, self.tally, self.done = arms, original, tally, done

    class Ended(Message):
        """The runner returned: every sample ended, it was stopped (``cancelled``), or it failed (``error``)."""

        def __init__(self, cancelled: bool = False, error: str | None = None) -> None:
            super().__init__()
            self.cancelled, self.error = cancelled, error

    class Loaded(Message):
        """A sample's branch file was read to open (``run``), or why it could not be (``error``)."""

        def __init__(self, run: Run | None, error: str | None, stepper: bool) -> None:
            super().__init__()
            self.run, self.error, self.stepper = run, error, stepper

    def __init__(self, experiment: experiments.Experiment, start: bool = True, parent_note: str | None = None) -> None:
        """``start``: run the unfinished samples at once (a new experiment); else (an experiment file
        opened again) show what its files hold, and r continues what did not finish. ``parent_note``: why
        the original run is not available (then no sample is shown beside it)."""
        super().__init__()
        self.experiment = experiment
        self.parent_note = parent_note
        self.arms: list[Arm] = []
        self.original: Sample | None = None
        self.tally: dict[str, Any] | None = None
        self.running = start
        self.ended: ExperimentScreen.Ended | None = None
        self._runner_loop: asyncio.AbstractEventLoop | None = None
        self._runner_task: asyncio.Task | None = None
        self._stop = False
        self._cursor: dict[str, int] = {}  # the column's id -> the row drawn with the ▶ mark
        #: (arm, sample) -> the API's words for a sample that ended on an error (this session's runs)
        self.failures: dict[tuple[str, int], str] = {}

    # -- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="experiment-top"):
            yield Static(id="experiment-summary")
        with Horizontal(id="experiment-arms"):
            for arm in self.experiment.arms:
                with Vertical(classes="experiment-arm"):
                    yield Static(Text(ARM_TITLES.get(arm, arm), "bold"), classes="experiment-arm-title")
                    yield OptionList(id=f"experiment-{arm}", classes="experiment-samples")
        yield Static(id="experiment-status")
        yield KeysFooter()

    def lists(self) -> list[OptionList]:
        return [self.query_one(f"#experiment-{arm}", OptionList) for arm in self.experiment.arms]

    def on_mount(self) -> None:
        self.lists()[0].focus()
        if self.running:
            self.status.update(Text("starting …", palette.NOTE))
            self._drive()
        else:
            self.status.update(Text("reading the samples …", palette.NOTE))
            self._read()

    @work(thread=True, exclusive=True, group="experiment")
    def _read(self) -> None:
        """The saved outcomes, read from the samples' files (nothing is sent)."""
        arms, original, event = self.experiment.outcomes()
        self.post_message(self.Progress(arms, original, self.experiment.summarise(arms, original, event)))

    # -- the runner (a thread of its own) -------------------------------------------------

    @work(thread=True, exclusive=True, group="experiment")
    def _drive(self) -> None:
        exp = self.experiment
        spec = str(exp.doc.get("resolver") or "recorded")

        def progress(done: SampleDone | None = None) -> None:  # in the runner's thread: the files are read here
            arms, original, event = exp.outcomes()
            self.post_message(self.Progress(arms, original, exp.summarise(arms, original, event), done))

        async def main() -> None:
            self._runner_loop, self._runner_task = asyncio.get_running_loop(), asyncio.current_task()
            if self._stop:
                raise asyncio.CancelledError
            runner = experiments.ExperimentRunner(
                exp, lambda branch: make_resolver(spec, exp.parent, edited=branch.run), on_done=progress)
            await runner.run()

        try:
            progress()
            asyncio.run(main())
        except (asyncio.CancelledError, KeyboardInterrupt):
            progress()
            self.post_message(self.Ended(cancelled=True))
        except Exception as exc:  # noqa: BLE001 - said on the screen; every saved turn is kept
            self.post_message(self.Ended(error=api.redact(f"{type(exc).__name__}: {exc}")))
        else:
            progress()
            self.post_message(self.Ended())

    def on_experiment_screen_progress(self, message: Progress) -> None:
        self.arms, self.original, self.tally = message.arms, message.original, message.tally
        done = message.done
        if done is not None and not done.skipped:
            key = (done.arm, done.k)
            if done.finished.error is not None:
                self.failures[key] = (f"{done.finished.error.line()} (after {done.attempts} attempt"
                                      f"{'s' * (done.attempts != 1)})")
            else:
                self.failures.pop(key, None)
        self._show()

    def on_experiment_screen_ended(self, message: Ended) -> None:
        self.running, self.ended = False, message
        self._show()
        self.refresh_bindings()

    # -- drawing -------------------------------------------------------------------------

    def _show(self) -> None:
        self.summary.update(self._summary_text())
        self.status.update(self._status_text())
        self._rows()

    def _rows(self) -> None:
        """Every sample's row (after a sample ended); the cursor mark goes with them."""
        self._cursor = {}
        for arm, options in zip(self.arms, self.lists()):
            if options.option_count != len(arm.samples):
                options.clear_options()
                options.add_options([Text("") for _ in arm.samples])
                options.highlighted = 0 if arm.samples else None
            for k in range(len(arm.samples)):
                self._row(arm, options, k)
        self.refresh_bindings()

    def _row(self, arm: Arm, options: OptionList, k: int) -> None:
        cursor = options is self.focused and options.highlighted == k
        if cursor:
            self._cursor[options.id or ""] = k
        options.replace_option_prompt_at_index(k, sample_text(k, arm.samples[k], len(str(len(arm.samples))), cursor,
                                                              self.failures.get((arm.name, k))))

    def _move_cursor(self) -> None:
        """The ▶ mark follows the highlighted row of the focused column: only the rows it leaves and enters
        are drawn again (an arm of 100 samples stays quick to move through)."""
        for arm, options in zip(self.arms, self.lists()):
            marked = self._cursor.pop(options.id or "", None)
            if marked is not None and marked < len(arm.samples):
                self._row(arm, options, marked)
            if options is self.focused and options.highlighted is not None and options.highlighted < len(arm.samples):
                self._row(arm, options, options.highlighted)
        self.refresh_bindings()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._move_cursor()

    def on_descendant_focus(self) -> None:
        self._move_cursor()

    def _summary_text(self) -> Text:
        """The experiment in a line, its edit; the named event per arm and the difference; the honest notes;
        then each arm's first actions and the original run's row."""
        exp, doc = self.experiment, self.experiment.doc
        text = Text()
        text.append(f"experiment at message {exp.at}", "bold")
        arms = f"{doc.get('samples')} samples" + (" + a control" if doc.get("control") else "")
        text.append(f" of {one_line(os.path.basename(str(doc['parent'].get('path'))))} · {arms} · "
                    f"{one_line(str(doc.get('model')))}\n", palette.DIM)
        text.append("edit: ", palette.DIM)
        text.append(one_line(patches.describe(doc.get("patch"))) + "\n")
        if exp.parent is None and self.parent_note:  # said first: Enter (beside the original) is not offered
            text.append("original run: ", "bold")
            text.append(f"not available ({one_line(self.parent_note)})\n", palette.WARNING)
        tally = self.tally
        if tally is None:
            text.rstrip()
            return text
        event = tally.get("event")
        if event is not None:
            text.append(f"{one_line(event)}: ", "bold")
            counts = []
            for name, arm in tally["arms"].items():
                e = arm.get("event") or {}
                low, high = e.get("interval95", (0.0, 1.0))
                counts.append(f"{name} {e.get('count', 0)}/{e.get('of', 0)} (95% {percent(low)} to {percent(high)})")
            text.append(" · ".join(counts) + "\n")
            difference = tally.get("difference")
            if difference is not None:
                low, high = difference["interval95"]
                text.append("edited - control: ", "bold")
                text.append(f"{difference['edited_minus_control'] * 100:+.0f} points (95% interval "
                            f"{low * 100:+.0f} to {high * 100:+.0f})\n")
        for note in tally.get("notes", []):
            text.append(f"note: {one_line(note)}\n", palette.NOTE)
        for name, arm in tally["arms"].items():
            first = " · ".join(f"{one_line(v)} x{n}" for v, n in arm["first_action"]) or "-"
            text.append(f"{name} first action: ", "bold")
            text.append(f"{first} ({arm['completed']}/{arm['samples']} done)\n")
        original = tally.get("original")
        if original is not None:
            text.append("original run: ", "bold")
            text.append(f"first action {one_line(original['first_action'])} · {one_line(original['stop_reason'])} · "
                        f"{original['steps']} steps"
                        + (f" · {one_line(event)}: {'yes' if original['event'] else 'no'}" if event else "") + "\n")
        text.rstrip()
        return text

    def _status_text(self) -> Text:
        total = sum(len(arm.samples) for arm in self.arms)
        done = sum(len(arm.done) for arm in self.arms)
        resume = f"turnscope branch --resume {shlex.quote(str(self.experiment.path))}"
        if self.running:
            return Text.assemble((f"{done} of {total} samples done", "bold"),
                                 f" · at most {self.experiment.doc.get('concurrency')} at a time · ",
                                 ("escape stops (saved turns are kept)", palette.DIM))
        ended = self.ended
        if ended is not None and ended.error:
            return Text.assemble(("✗ the experiment stopped: ", palette.ERROR), one_line(ended.error),
                                 f" · continue with {one_line(resume)}")
        if done < total:
            why = "stopped" if ended is not None and ended.cancelled else "ended" if ended is not None else "saved"
            return Text.assemble((f"■ {why}: {done} of {total} samples done", palette.WARNING),
                                 f" · r continues (or {one_line(resume)}) · ", ("escape: back", palette.DIM))
        return Text.assemble((f"✓ all {total} samples done", "bold"), " · saved: ",
                             one_line(str(self.experiment.path)),
                             (" · enter: beside the original · o: stepper · escape: back", palette.DIM))

    # -- keys ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running
        if action == "back":
            return not self.running
        if action == "resume":
            return not self.running and any(len(arm.done) < len(arm.samples) for arm in self.arms)
        if action in ("compare", "open"):
            chosen = self._chosen()
            return chosen is not None and chosen.status not in ("running", "missing")
        return True

    def _chosen(self) -> Sample | None:
        for arm, options in zip(self.arms, self.lists()):
            if options is self.focused and options.highlighted is not None and options.highlighted < len(arm.samples):
                return arm.samples[options.highlighted]
        return None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_compare()

    def action_compare(self) -> None:
        self._open(False)

    def action_open(self) -> None:
        self._open(True)

    def _open(self, stepper: bool) -> None:
        chosen = self._chosen()
        if chosen is None or chosen.status in ("running", "missing"):
            self.notify("That sample has not saved a turn yet.", timeout=3)
            return
        if not stepper and self.experiment.parent is None:
            self.notify("The original run is not available.", severity="error", markup=False)
            return
        self._load(chosen.path, stepper)

    @work(thread=True, exclusive=True, group="experiment-load")
    def _load(self, path: str, stepper: bool) -> None:
        try:
            self.post_message(self.Loaded(store.load(path), None, stepper))
        except LoadError as exc:
            self.post_message(self.Loaded(None, exc.line_text(), stepper))

    def on_experiment_screen_loaded(self, message: Loaded) -> None:
        if message.run is None:
            self.notify(message.error or "cannot open the sample", title="Cannot open", severity="error",
                        markup=False)
        elif message.stepper:
            self.post_message(OpenStepper(message.run, self.experiment.at))
        elif self.experiment.parent is not None:
            self.post_message(OpenSideBySide(self.experiment.parent, message.run, self.experiment.at))

    def action_cancel(self) -> None:
        self.status.update(Text("stopping … (turns in flight are dropped; saved turns stay)", palette.NOTE))
        self._cancel()

    def _cancel(self) -> None:
        self._stop = True
        loop, task = self._runner_loop, self._runner_task
        if loop is not None and task is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed in between: the runner has returned
                pass

    def action_resume(self) -> None:
        """Continue the samples that did not finish, from their last saved turns."""
        if self.running:
            return
        self.running, self.ended, self._stop = True, None, False
        self._runner_loop = self._runner_task = None
        self.refresh_bindings()
        self.status.update(Text("continuing the unfinished samples …", palette.NOTE))
        self._drive()

    def action_back(self) -> None:
        self.dismiss()

    def on_unmount(self) -> None:
        if self.running:
            self._cancel()
