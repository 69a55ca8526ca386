"""The typed messages screens and workers post upward: a run chosen, loaded or failed; work done.

Widgets hold their own small messages (``MessageList.Moved``, ``ProblemsView.Jump``…), most
of them an ``IndexMessage``; these are the ones that cross screens or come back from workers.
"""

from __future__ import annotations

from textual.message import Message

from tui.core.search import Matches
from tui.core.grammar import Finding
from tui.core.provenance import Value
from tui.core.run import Run
from tui.core.tokens import TokenReport


class IndexMessage(Message):
    """The base of a widget's message about one row or message ``index`` (each widget names its own,
    so a handler reads ``on_<widget>_<message>``)."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class RunChosen(Message):
    """The user picked a file (and, in a multi-run file, a run) to open."""

    def __init__(self, path: str, run: int | None = None) -> None:
        super().__init__()
        self.path = path
        self.run = run


class RunsLoaded(Message):
    """A worker finished loading ``path``: one run or several to choose from."""

    def __init__(self, path: str, runs: list[Run], run: int | None) -> None:
        super().__init__()
        self.path = path
        self.runs = runs
        self.run = run


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
