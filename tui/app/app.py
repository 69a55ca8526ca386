"""The turnscope Textual app: composes the screens and routes what they report.

It opens the run picker, a file's run list, or the stepper on one run; loads files the
picker chose in a worker (``RunChosen`` -> ``RunsLoaded`` / ``LoadFailed``); and holds the
app-wide keys (quit, all keys). It is the only place that builds a screen: a screen asks
for another with a typed ``Open*`` message (``tui.app.app_messages``) and the app pushes it
(dialogs that answer their caller are pushed by the caller). Everything else lives in
``tui.app.screens`` and ``tui.app.widgets``. Build it with ``tui.app.factory.make_app``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

from textual import on, work
from textual.app import App
from textual.filter import LineFilter

from tui.app import app_messages as events
from tui.app import keys
from tui.app.legible_lines import LegibleLines, severity_colours
from tui.app.safe_lines import ThenVisible, VisibleLines
from tui.app.screens.stepper import StepperScreen
from tui.app.sources import SAMPLES, remember
from tui.app import strip_cycles
from tui.core import collector
from tui.core.errors import LoadError, UsageError
from tui.core.run import Run
from tui.core.run_links import RunLinks
from tui.core.safe import one_line
from tui.core.view.run_view import RunView
from tui.formats import load_runs, open_run
from tui.formats.options import LoadOptions

if TYPE_CHECKING:  # the picker, a file's run list, experiments and following are imported when first used:
    # a start on a run shows none of them first
    from tui.app.screens.picker import PickerScreen
    from tui.app.screens.run_list import RunListScreen
    from tui.core.branch.experiment import Experiment
    from tui.formats.follow import Follower


strip_cycles.install()  # drawn rows freed by their counts, not left to the collector (``strip_cycles``)
_VISIBLE_LINES = VisibleLines()


class TurnscopeApp(App):
    """Step through an agent run one message index at a time."""

    CSS_PATH = "turnscope.tcss"
    TITLE = "turnscope"
    HELP = "turnscope: q quits from anywhere, ? or F1 shows this list, ctrl+p opens the command palette."
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = keys.APP

    def __init__(self, *, runs: list[Run] | None = None, path: str | None = None, run: int | None = None,
                 at: int = 0, view: str = "request", state_dir: Path, claude_home: Path | None = None,
                 samples: Path = SAMPLES, keymap: dict[str, str] | None = None, notice: str | None = None,
                 load_options: LoadOptions | None = None, diff: tuple[str, Run] | None = None,
                 follower: Follower | None = None, cache_dir: Path | None = None,
                 experiment: tuple[Experiment, str | None] | None = None) -> None:
        self._our_filter: ThenVisible | None = None  # before super().__init__: Textual may ask for the filters
        super().__init__()
        self.initial = (path, runs, run, at, view)
        self.state_dir = state_dir
        self.claude_home = claude_home
        self.samples = samples
        self.cache_dir = cache_dir  # the picker keeps its exact counts here (None: not kept)
        self.notice = notice
        self.load_options = load_options or LoadOptions()
        self.links: dict[str, RunLinks] = {}  # a file's runs and the links between them, by path
        self.diff = diff  # (path, run): open the diff screen of the run against it (``--diff``)
        #: An experiment file opened (and why its original run is not available): its screen on top, as saved.
        self.experiment = experiment
        #: Follow mode: the follower of each file opened following (``--follow``, a live run in the picker).
        self.followers: dict[str, Follower] = {path: follower} if follower is not None and path else {}
        #: Where branch files go; None: the user data dir (``tui.core.branch.store.branches_root``).
        self.branch_data_dir: str | None = None
        #: Where the palette's screenshot goes: the first folder that exists, else the last made (tests set it).
        self.screenshot_dirs: tuple[Path, ...] | None = None
        #: The user's keymap (binding id -> keys), as given to ``set_keymap``: the help lists the keys it sets
        #: (Textual keeps its copy private).
        self.keymap: dict[str, str] = dict(keymap or {})
        if keymap:
            self.set_keymap(keymap)

    def on_mount(self) -> None:
        collector.for_steps()  # the collector's thresholds for drawing steps (``tui.core.collector``)
        path, runs, run, at, view = self.initial
        if runs is None:
            self.push_screen(self.picker())
        else:
            self.open_runs(path or runs[0].source.path, runs, run, at, view)
            if self.diff is not None and isinstance(self.screen, StepperScreen):
                run = self.screen.view.run
                self.open_diff(events.OpenDiff(run, self.diff[1], run.source.path, self.diff[0]))
        if self.experiment is not None:
            from tui.app.screens.experiment import ExperimentScreen

            self.push_screen(ExperimentScreen(self.experiment[0], start=False, parent_note=self.experiment[1]))
        if self.notice:
            self.notify(one_line(self.notice), severity="warning", markup=False, timeout=8)

    def get_line_filters(self) -> list[LineFilter]:
        """Textual's filters (true colour, NO_COLOR, ...); under NO_COLOR ``LegibleLines`` (no text below 4.5:1
        contrast); then ``VisibleLines``: no line drawn sends a control character. All of them as one filter
        (``ThenVisible``): a filter costs a new strip for each new line it passes. Made again when Textual's
        enabled filters change (a theme, ``ansi_color``)."""
        textual = tuple(super().get_line_filters())
        ours = self._our_filter
        if ours is None or ours.before != textual:
            if ours is None:
                theme = self.ansi_theme_dark if self.current_theme.dark else self.ansi_theme_light
                legible = LegibleLines() if self.no_color else LegibleLines(severity_colours(theme))
            else:
                legible = ours.first
            self._our_filter = ours = ThenVisible(legible, _VISIBLE_LINES, textual)
        return [ours]

    # -- routing -------------------------------------------------------------------------

    def open_runs(self, path: str, runs: list[Run], run: int | None, at: int = 0, view: str = "request",
                  default: bool = False) -> None:
        """A loaded file: its run list when it holds several and none was named, else the stepper; ``default``
        (a picker row, which describes run 0): the stepper on run 0 over the run list (Escape goes there)."""
        if run is None and len(runs) > 1:
            from tui.app.screens.run_list import RunListScreen

            self.push_screen(RunListScreen(path, runs))
            if not default:
                return
            run = 0
        chosen = runs[run or 0]
        follower = self.followers.get(path)
        following = None
        if follower is not None:
            from tui.formats.follow import Following

            following = Following(follower, run or 0)
        # The analyses' process loads the file itself (core imports no loader): how, picklable.
        loader = None if following else functools.partial(open_run, path, run or 0, **self.load_options.kwargs())
        screen = StepperScreen(RunView(following.run if following else chosen), at, view, following, loader=loader)
        collector.keep_out_loaded()  # a run built when first asked for (an .eval sample) is read-only too
        if len(runs) > 1 and following is None:  # links between the file's runs (subagents, compactions)
            links = self.links.get(path)
            if links is None or links.runs is not runs:
                links = self.links[path] = RunLinks(runs)
            screen.links = links
        self.push_screen(screen)
        # after the screen is drawn: on a start its first frame does not wait for the file (a thread's 5-30 ms
        # of the interpreter, and more on its first write: the secrets' patterns the title is redacted with)
        self.call_after_refresh(self.remember_run, path, run if len(runs) > 1 else None, chosen.title(),
                                len(chosen.messages))

    @on(events.OpenStepper)
    def open_stepper(self, event: events.OpenStepper) -> None:
        self.push_screen(StepperScreen(RunView(event.run), event.at))

    @on(events.OpenPicker)
    def open_picker(self, _: events.OpenPicker) -> None:
        self.switch_screen(self.picker())

    def picker(self) -> PickerScreen:
        """The run picker, on this app's places; it counts sessions with the options files are opened with."""
        from tui.app.screens.picker import PickerScreen

        return PickerScreen(self.state_dir, self.claude_home, self.samples, self.cache_dir, self.load_options.kwargs())

    @on(events.OpenLinkedRun)
    def open_linked_run(self, event: events.OpenLinkedRun) -> None:
        """A subagent call's run, or the other side of a compaction: a stepper over the first, whose way back
        (ctrl+o, Escape) is popping it."""
        links = self.links.get(event.path)
        if links is None or not 0 <= event.run < len(links.runs):
            return
        loader = functools.partial(open_run, event.path, event.run, **self.load_options.kwargs())
        screen = StepperScreen(RunView(links.runs[event.run]), event.at, loader=loader)
        screen.links, screen.linked_from = links, event.origin
        self.push_screen(screen)

    @on(events.OpenDiff)
    def open_diff(self, event: events.OpenDiff) -> None:
        from tui.app.screens.diff import DiffScreen

        self.push_screen(DiffScreen(event.a, event.b, event.path_a, event.path_b))

    @on(events.OpenSideBySide)
    def open_side_by_side(self, event: events.OpenSideBySide) -> None:
        from tui.app.screens.side_by_side import SideBySideScreen

        self.push_screen(SideBySideScreen(event.parent, event.branch, event.at))

    @on(events.OpenBranchEditor)
    def open_branch_editor(self, event: events.OpenBranchEditor) -> None:
        from tui.app.screens.branch.editor import BranchEditorScreen

        sidecars = {"system": self.load_options.system, "tools": self.load_options.tools}
        try:
            screen = BranchEditorScreen(event.run, event.at, sidecars, data_dir=self.branch_data_dir)
        except UsageError as exc:
            self.notify(str(exc), title="Cannot branch here", severity="error", markup=False)
            return
        self.push_screen(screen)

    @on(events.OpenBranchTree)
    def open_branch_tree(self, event: events.OpenBranchTree) -> None:
        from tui.app.screens.branch.tree import BranchTreeScreen

        self.push_screen(BranchTreeScreen(event.run, self.branch_data_dir))

    @on(events.OpenBranchRun)
    def open_branch_run(self, event: events.OpenBranchRun) -> None:
        from tui.app.screens.branch.run import BranchRunScreen

        self.push_screen(BranchRunScreen(event.branch, event.max_steps, event.built))

    @on(events.OpenExperiment)
    def open_experiment(self, event: events.OpenExperiment) -> None:
        from tui.app.screens.experiment import ExperimentScreen

        self.push_screen(ExperimentScreen(event.experiment))

    @on(events.RunChosen)
    def _chosen(self, event: events.RunChosen) -> None:
        self.load(event.path, event.run, event.follow, event.default)

    def on_run_list_screen_picked(self, event: RunListScreen.Picked) -> None:
        self.open_runs(event.path, event.runs, event.run)

    def on_runs_loaded(self, event: events.RunsLoaded) -> None:
        self.open_runs(event.path, event.runs, event.run, default=event.default)

    def on_load_failed(self, event: events.LoadFailed) -> None:
        from tui.app.screens.picker import PickerScreen

        if isinstance(self.screen, PickerScreen):
            self.screen.show_error(event.text)
        else:
            self.notify(one_line(event.text), title="Cannot open", severity="error", markup=False)

    # -- workers -------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="load")
    def load(self, path: str, run: int | None, follow: bool = False, default: bool = False) -> None:
        try:
            if follow:
                from tui.formats.follow import Follower

                follower = Follower(path, **self.load_options.kwargs())
                runs = follower.runs
                self.followers[path] = follower
            else:
                self.followers.pop(path, None)
                runs = load_runs(path, lazy=True, **self.load_options.kwargs())  # the run list, then one run
            if run is not None and not 0 <= run < len(runs):
                raise UsageError(f"{path}: there is no run {run}; the file holds {len(runs)}")
        except LoadError as exc:
            self.post_message(events.LoadFailed(path, exc.line_text()))
            return
        except UsageError as exc:
            self.post_message(events.LoadFailed(path, str(exc)))
            return
        collector.keep_out_loaded()  # the run is read-only from here: keep the collector from walking it on every step
        self.post_message(events.RunsLoaded(path, runs, run, default))

    @work(thread=True, group="recent")
    def remember_run(self, path: str, run: int | None, title: str, messages: int) -> None:
        """The run goes first in the recent-runs list (written atomically, ``sources.remember``)."""
        remember(self.state_dir, path, run, title, messages)

    # -- the palette's screenshot -------------------------------------------------------

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        """The palette's "Screenshot": an SVG of the screen in the Downloads folder, or, where there is none
        (over SSH), turnscope's user data folder; written atomically, and the notification says where."""
        from datetime import datetime

        from tui.core.jsonio import atomic_write
        from tui.core.paths import settings, short_path

        dirs = (Path(path),) if path else self.screenshot_dirs or (
            platformdirs.user_downloads_path(), settings().data / "screenshots")
        folder = next((d for d in dirs[:-1] if d.is_dir()), dirs[-1])
        stamp = datetime.now().strftime(time_format or "%Y-%m-%dT%H_%M_%S")
        target = folder / (filename or f"turnscope_{stamp}.svg")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(target, self.export_screenshot().encode("utf-8"))
        except OSError as exc:
            self.notify(f"{short_path(str(target))}: {exc.strerror or exc}", title="Screenshot not saved",
                        severity="error", markup=False)
            return None
        self.notify(f"Saved to {short_path(str(target))}", title="Screenshot", markup=False)
        return str(target)

    # -- keys ----------------------------------------------------------------------------

    def action_help(self) -> None:
        from tui.app.screens.dialogs import HelpScreen  # not needed for the first screen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))
