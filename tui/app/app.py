"""The turnscope Textual app: composes the screens and routes what they report.

It opens the run picker, a file's run list, or the stepper on one run; loads files the
picker chose in a worker (``RunChosen`` -> ``RunsLoaded`` / ``LoadFailed``); and holds the
app-wide keys (quit, all keys). Everything else lives in ``tui.app.screens`` and
``tui.app.widgets``. Build it with ``tui.app.factory.make_app``.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.filter import LineFilter

from tui.app import app_messages as events
from tui.core.view.run_view import RunView
from tui.app.safe_lines import VisibleLines
from tui.app.screens.picker import PickerScreen
from tui.app.screens.run_list import RunListScreen
from tui.app.screens.stepper import StepperScreen
from tui.app.sources import SAMPLES, remember
from tui.core.errors import LoadError, UsageError
from tui.core.run import Run
from tui.core.safe import one_line
from tui.formats import load_runs


_VISIBLE_LINES = VisibleLines()


class TurnscopeApp(App):
    """Step through an agent run one message index at a time."""

    CSS_PATH = "turnscope.tcss"
    TITLE = "turnscope"
    HELP = "turnscope: q quits from anywhere, ? or F1 shows this list, ctrl+p opens the command palette."
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Keys", id="app.help"),
        Binding("f1", "help", "Keys", show=False, id="app.help.f1"),
    ]

    def __init__(self, *, runs: list[Run] | None = None, path: str | None = None, run: int | None = None,
                 at: int = 0, view: str = "request", state_dir: Path, claude_home: Path | None = None,
                 samples: Path = SAMPLES, keymap: dict[str, str] | None = None, notice: str | None = None,
                 load_options: dict[str, Any] | None = None, diff: tuple[str, Run] | None = None) -> None:
        super().__init__()
        self.initial = (path, runs, run, at, view)
        self.state_dir = state_dir
        self.claude_home = claude_home
        self.samples = samples
        self.notice = notice
        self.load_options = load_options or {}
        self.diff = diff  # (path, run): open the diff screen of the run against it (``--diff``)
        if keymap:
            self.set_keymap(keymap)

    def on_mount(self) -> None:
        path, runs, run, at, view = self.initial
        if runs is None:
            self.push_screen(PickerScreen(self.state_dir, self.claude_home, self.samples))
        else:
            self.open_runs(path or runs[0].source.path, runs, run, at, view)
            if self.diff is not None and isinstance(self.screen, StepperScreen):
                from tui.app.screens.diff import DiffScreen

                self.push_screen(DiffScreen(self.screen.view.run, self.diff[1], self.screen.view.run.source.path,
                                            self.diff[0]))
        if self.notice:
            self.notify(one_line(self.notice), severity="warning", markup=False, timeout=8)

    def get_line_filters(self) -> list[LineFilter]:
        """Textual's filters (NO_COLOR, ...), then ``VisibleLines``: no line drawn sends a control character."""
        return [*super().get_line_filters(), _VISIBLE_LINES]

    # -- routing -------------------------------------------------------------------------

    def open_runs(self, path: str, runs: list[Run], run: int | None, at: int = 0, view: str = "request") -> None:
        """A loaded file: its run list when it holds several and none was named, else the stepper."""
        if run is None and len(runs) > 1:
            self.push_screen(RunListScreen(path, runs))
            return
        chosen = runs[run or 0]
        self.push_screen(StepperScreen(RunView(chosen), at, view))
        self.remember_run(path, run if len(runs) > 1 else None, chosen.title(), len(chosen.messages))

    @on(events.RunChosen)
    def _chosen(self, event: events.RunChosen) -> None:
        self.load(event.path, event.run)

    @on(RunListScreen.Picked)
    def _picked(self, event: RunListScreen.Picked) -> None:
        self.open_runs(event.path, event.runs, event.run)

    def on_runs_loaded(self, event: events.RunsLoaded) -> None:
        self.open_runs(event.path, event.runs, event.run)

    def on_load_failed(self, event: events.LoadFailed) -> None:
        if isinstance(self.screen, PickerScreen):
            self.screen.show_error(event.text)
        else:
            self.notify(one_line(event.text), title="Cannot open", severity="error", markup=False)

    # -- workers -------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="load")
    def load(self, path: str, run: int | None) -> None:
        try:
            runs = load_runs(path, **self.load_options)
            if run is not None and not 0 <= run < len(runs):
                raise UsageError(f"{path}: there is no run {run}; the file holds {len(runs)}")
        except LoadError as exc:
            self.post_message(events.LoadFailed(path, exc.line_text()))
            return
        except UsageError as exc:
            self.post_message(events.LoadFailed(path, str(exc)))
            return
        gc.freeze()  # the run is read-only from here: keep the collector from walking it on every step
        self.post_message(events.RunsLoaded(path, runs, run))

    @work(thread=True, group="recent")
    def remember_run(self, path: str, run: int | None, title: str, messages: int) -> None:
        remember(self.state_dir, path, run, title, messages)

    # -- keys ----------------------------------------------------------------------------

    def action_help(self) -> None:
        from tui.app.screens.dialogs import HelpScreen  # not needed for the first screen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))
