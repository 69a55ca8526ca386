"""The typed messages screens and workers post upward: a run chosen, loaded or failed; work done; open a screen.

Widgets hold their own small messages (``MessageList.Moved``, ``ProblemsView.Jump``…), most
of them an ``IndexMessage``; these are the ones that cross screens or come back from workers.
The ``Open*`` messages are how a screen asks for another: the app (``tui.app.app``) is the
only place that builds a screen and pushes it, so no screen imports another's class
(dialogs that answer their caller, ``PromptScreen`` and the like, are pushed by the caller).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # names in annotations only: importing the branch runner, provenance and the token report
    # here put them on every start, before the first screen, which needs none of them
    from tui.core.branch.experiment import Experiment
    from tui.core.branch.resolvers import Resolver
    from tui.core.branch.runner import Branch
    from tui.core.grammar import Finding
    from tui.core.provenance import Value
    from tui.core.run import Run
    from tui.core.search import Matches
    from tui.core.tokens import TokenReport


class IndexMessage(Message):
    """The base of a widget's message about one row or message ``index`` (each widget names its own,
    so a handler reads ``on_<widget>_<message>``)."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class RunChosen(Message):
    """The user picked a file (and, in a multi-run file, a run) to open; ``default``: the file's default run
    (run 0, the one the picker's row describes), with the file's run list beneath it when it holds several."""

    def __init__(self, path: str, run: int | None = None, follow: bool = False, default: bool = False) -> None:
        super().__init__()
        self.path = path
        self.run = run
        self.follow = follow  # a live file: open it following
        self.default = default


class RunsLoaded(Message):
    """A worker finished loading ``path``: one run or several to choose from."""

    def __init__(self, path: str, runs: list[Run], run: int | None, default: bool = False) -> None:
        super().__init__()
        self.path = path
        self.runs = runs
        self.run = run
        self.default = default  # as ``RunChosen.default``


class LoadFailed(Message):
    """A worker could not load a file; ``text`` is the one line a user needs."""

    def __init__(self, path: str, text: str) -> None:
        super().__init__()
        self.path = path
        self.text = text


class FindingsReady(Message):
    """The grammar check of the run finished."""

    def __init__(self, findings: list[Finding]) -> None:
        super().__init__()
        self.findings = findings


class SearchDone(Message):
    """A search over every block finished."""

    def __init__(self, matches: Matches, origin: int) -> None:
        super().__init__()
        self.matches = matches
        self.origin = origin


class CopyReady(Message):
    """The exact request body for ``index`` is serialised and ready for the clipboard."""

    def __init__(self, index: int, text: str) -> None:
        super().__init__()
        self.index = index
        self.text = text


class TokensReady(Message):
    """The token report of the run is computed (``exact``: counted through count_tokens; ``note`` says how)."""

    def __init__(self, report: TokenReport, exact: bool = False, note: str | None = None) -> None:
        super().__init__()
        self.report = report
        self.exact = exact
        self.note = note


class TokensFailed(Message):
    """Exact counting failed; ``text`` is the one line a user needs."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class UnsourcedReady(Message):
    """Provenance of every tool turn is traced: the values no earlier message holds."""

    def __init__(self, unsourced: list[tuple[int, Value]]) -> None:
        super().__init__()
        self.unsourced = unsourced


class DiffLoaded(Message):
    """A file to diff the run against is loaded (``note``: which of its runs was taken, if several)."""

    def __init__(self, path: str, run: Run, note: str | None = None) -> None:
        super().__init__()
        self.path = path
        self.run = run
        self.note = note


# -- open a screen (handled by the app) ---------------------------------------------------------


class OpenStepper(Message):
    """Step through ``run`` from index ``at`` (a branch opened from its run screen or the tree)."""

    def __init__(self, run: Run, at: int = 0) -> None:
        super().__init__()
        self.run = run
        self.at = at


class OpenPicker(Message):
    """The picker, in place of the screen that asked (a run list opened first has nowhere else to go back to)."""


class OpenLinkedRun(Message):
    """Open run ``run`` of the file ``path`` at message ``at``, linked from a place in another run of it
    (a subagent call, a compaction); ``origin`` says where, for the run opened."""

    def __init__(self, path: str, run: int, at: int, origin: str) -> None:
        super().__init__()
        self.path, self.run, self.at, self.origin = path, run, at, origin


class OpenDiff(Message):
    """The diff screen of run ``a`` (file ``path_a``) against run ``b`` (file ``path_b``)."""

    def __init__(self, a: Run, b: Run, path_a: str, path_b: str) -> None:
        super().__init__()
        self.a, self.b = a, b
        self.path_a, self.path_b = path_a, path_b


class OpenSideBySide(Message):
    """A branch beside the run it was made from (``parent``), from the branch index ``at``."""

    def __init__(self, parent: Run, branch: Run, at: int) -> None:
        super().__init__()
        self.parent = parent
        self.branch = branch
        self.at = at


class OpenBranchEditor(Message):
    """Edit the request for message ``at + 1`` of ``run`` and send it as a branch."""

    def __init__(self, run: Run, at: int) -> None:
        super().__init__()
        self.run = run
        self.at = at


class OpenBranchTree(Message):
    """The branches saved for ``run``'s file."""

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run = run


class OpenBranchRun(Message):
    """Run the saved ``branch`` (at most ``max_steps`` model calls; ``built``: the resolver chosen in the review)."""

    def __init__(self, branch: Branch, max_steps: int, built: Resolver | None) -> None:
        super().__init__()
        self.branch = branch
        self.max_steps = max_steps
        self.built = built


class OpenExperiment(Message):
    """Run (or show) ``experiment``: K samples of an edit against a control, one column per arm."""

    def __init__(self, experiment: Experiment) -> None:
        super().__init__()
        self.experiment = experiment
