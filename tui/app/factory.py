"""``make_app``: the one way to build the app, shared by the command line, the tests and the screenshot script.

Given a path it loads the file here, before any Textual code runs, so a file that cannot
be loaded raises ``LoadError``/``UsageError`` to the caller (the CLI prints one line and
exits 2). It is two steps, ``load_opening`` (the file loaded, the options read: no Textual
imported yet) and ``app_of`` (the app built on it), so a file that cannot be loaded never
costs a Textual import; the command line forks the analyses' processes after both, before the
app runs (``launch.fork_analyses``).
Without a path the app opens the run picker. An experiment file (``turnscope branch --samples K``)
opens its experiment screen over the stepper of its original run (or over the picker when that
run is not available). The state directory (recent runs),
the cache directory (the picker's exact counts), the Claude Code home and the samples
directory can be pointed elsewhere (tests do).
A keymap file (``keymap.json`` in the config directory: binding id -> keys) remaps keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.app.sources import SAMPLES
from tui.core import collector
from tui.core import jsonio
from tui.core.branch.marker import is_experiment
from tui.core.errors import LoadError, UsageError
from tui.core.paths import settings
from tui.core.prefix import check_index
from tui.formats import load_runs, open_run
from tui.formats.options import LoadOptions

if TYPE_CHECKING:
    from tui.app.app import TurnscopeApp
    from tui.core.run import Run


def load_keymap(directory: Path) -> tuple[dict[str, str], str | None]:
    """The user's keymap, and a one-line problem if the file is there but unusable."""
    path = directory / "keymap.json"
    try:
        data = jsonio.loads(path.read_bytes(), str(path))
    except FileNotFoundError:
        return {}, None
    except (OSError, LoadError) as exc:
        return {}, f"keymap ignored: {exc}"
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        return {}, f"keymap ignored: {path} must map binding ids to keys, e.g. {{\"stepper.next_call\": \"N\"}}"
    return data, None


@dataclass
class Opening:
    """What the app opens on, loaded and read before any Textual code runs (``load_opening``): the file's runs
    (None: the picker), which run and index, the view, the options, the keymap, the directories, and what
    rides on top (a diff, a follower, an experiment); each field is ``TurnscopeApp``'s keyword of that name."""

    path: str | None
    runs: list[Run] | None
    run: int | None
    at: int
    view: str
    state_dir: Path
    claude_home: Path | None
    samples: Path
    keymap: dict[str, str]
    notice: str | None
    load_options: LoadOptions
    diff: tuple[str, Run] | None
    follower: Any
    cache_dir: Path | None
    experiment: tuple[Any, str | None] | None

    @property
    def chosen(self) -> Run | None:
        """The run the stepper opens on, if it opens on one run (not the picker, not a file's run list)."""
        if not self.runs or (self.run is None and len(self.runs) > 1):
            return None
        return self.runs[self.run or 0]


def make_app(path: str | None = None, **options: Any) -> TurnscopeApp:
    """The app on ``path`` (cursor at ``at``, run ``run`` of a multi-run file), or the picker; with
    ``diff`` (a second file, run ``diff_run``), the diff screen of the two on top of the stepper
    (``load_opening``'s options)."""
    return app_of(load_opening(path, **options))


def app_of(opening: Opening) -> TurnscopeApp:
    """The app on what ``load_opening`` loaded (Textual is imported here)."""
    from tui.app.app import TurnscopeApp

    return TurnscopeApp(**vars(opening))  # (``Opening``'s fields are the app's keyword arguments)


def load_opening(path: str | None = None, *, at: int = 0, run: int | None = None, fmt: str | None = None,
                 system: str | None = None, tools: str | None = None, view: str = "request",
                 state_dir: Path | None = None, claude_home: Path | None = None, samples: Path = SAMPLES,
                 keymap: dict[str, str] | None = None, diff: str | None = None,
                 diff_run: int | None = None, follow: bool = False,
                 context: str | None = None, cache_dir: Path | None = None) -> Opening:
    """``path`` loaded (cursor at ``at``, run ``run`` of a multi-run file), or None for the picker; with ``diff``
    (a second file, run ``diff_run``) that one too; the keymap and directories read. No Textual."""
    options = LoadOptions(fmt, system, tools, context)
    notice = None
    if keymap is None:
        keymap, notice = load_keymap(settings().config)
    state = state_dir if state_dir is not None else settings().state
    cache = cache_dir if cache_dir is not None else settings().cache  # the picker's exact counts
    runs = None
    follower = None
    experiment = experiment_note = None
    if path is not None and is_experiment(path):  # an experiment file: its screen over the parent run's stepper
        if follow or diff is not None:
            raise UsageError(f"{path}: an experiment file opens on its own (no --follow, no --diff)")
        from tui.core.branch import experiment as experiments  # the branch runner: only for an experiment

        experiment, why = experiments.load(path, open_run)
        experiment_note = why
        runs = [experiment.parent] if experiment.parent is not None else None
        run, at, path = None, experiment.at if runs else 0, runs[0].source.path if runs else None
    elif path is not None:
        if follow:  # the follower loads it (with the collector paused), and reads on from where the load ended
            from tui.formats.follow import Follower

            follower = Follower(path, **options.kwargs())
            runs = follower.runs
        else:
            # with the collector paused (``load_runs``); lazy: a file of several runs opens on their list
            runs = load_runs(path, lazy=True, **options.kwargs())
        collector.keep_out_loaded()  # read-only from here: later collections skip the run
        if run is not None and not 0 <= run < len(runs):
            raise UsageError(f"{path}: there is no run {run}; the file holds {len(runs)} "
                             f"(0..{len(runs) - 1}, see `turnscope list`)")
        chosen = runs[run or 0]
        if run is not None or len(runs) == 1:
            at = check_index(chosen, at)
    other = None
    if diff is not None:
        if runs is None:
            raise UsageError("--diff needs a run to compare: turnscope A --diff B")
        run = 0 if run is None else run  # the stepper opens on a run, not on A's run list
        other = (diff, open_run(diff, run=diff_run, fmt=fmt))
    return Opening(path=path, runs=runs, run=run, at=at, view=view, state_dir=state, claude_home=claude_home,
                   samples=samples, keymap=keymap, notice=notice, load_options=options, diff=other,
                   follower=follower, cache_dir=cache,
                   experiment=(experiment, experiment_note) if experiment is not None else None)
