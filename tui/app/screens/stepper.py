"""The stepper: the message list beside the request for message N, and the Raw, Account, Problems views.

The screen owns the index N. Widgets post what the user did (``MessageList.Moved``,
``ProblemsView.Jump``); the screen sets N and hands it down to the list, the header and
the visible view. Keys that act on the whole run (model calls, findings, search, go to,
views, copy) are bindings here; the slow ones (grammar check, search, serialising a
body) run in workers and come back as messages.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Static

from tui.app import app_messages as events
from tui.app.command_palette import GoToProvider
from tui.core.view.run_view import RunView
from tui.app.screens.actions import STEPPER_BINDINGS, StepperActions
from tui.app.screens.analysis_actions import AnalysisActions, DiffProvider, with_analysis_bindings
from tui.app.screens.branch_actions import BRANCH_BINDINGS, BranchActions
from tui.app.widgets.account_view import AccountView
from tui.app.widgets.message_list import MessageList
from tui.app.widgets.problems_view import ProblemsView
from tui.app.widgets.raw_view import RawView
from tui.app.widgets.request_pane import RequestPane
from tui.app.widgets.tokens_view import TokensView
from tui.core.safe import one_line
from tui.core.words import counted

VIEWS = ("request", "raw", "account", "problems", "tokens")
#: The views that follow the index: each one's attribute on the screen (the Problems view lists the whole run).
SHOWS_INDEX = {"request": "request", "raw": "raw", "account": "account_view", "tokens": "tokens_view"}


def short_path(path: str) -> str:
    """``path`` relative to the working directory when under it, else with ``~`` for home."""
    if not path:
        return "(no file)"
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute)
    if not relative.startswith(".."):
        return relative
    home = os.path.expanduser("~")
    return "~" + absolute[len(home):] if absolute.startswith(home + os.sep) else absolute
TITLES = {"request": "Request", "raw": "Raw", "account": "Account", "problems": "Problems", "tokens": "Tokens"}


class StepperScreen(AnalysisActions, BranchActions, StepperActions, Screen):
    """One run, one index at a time."""

    HELP = ("The stepper. The message list (left or top) picks index N; the right (or lower) pane shows the "
            "request that produced it (1), its exact JSON (2), the account of it (3), all findings (4) or "
            "what each request cost in tokens (5). D diffs the run against another file. b edits the request "
            "at N and re-runs the model from there (a branch); B lists the run's branches.")
    BINDINGS = with_analysis_bindings([*STEPPER_BINDINGS, *BRANCH_BINDINGS])
    COMMANDS = {GoToProvider, DiffProvider}

    header = getters.query_one("#run-header", Static)
    tabs = getters.query_one("#tabs", Static)
    status = getters.query_one("#status", Static)
    message_list = getters.query_one("#messages", MessageList)
    views = getters.query_one("#views", ContentSwitcher)
    request = getters.query_one("#request", RequestPane)
    raw = getters.query_one("#raw", RawView)
    account_view = getters.query_one("#account", AccountView)
    problems = getters.query_one("#problems", ProblemsView)
    tokens_view = getters.query_one("#tokens", TokensView)

    def __init__(self, view: RunView, at: int = 0, view_name: str = "request") -> None:
        super().__init__()
        self.view = view
        self.index = max(0, min(at, view.rows - 1))
        self.view_name = view_name if view_name in VIEWS else "request"
        self.matches = None

    def compose(self) -> ComposeResult:
        # The header, tabs and status lines get their text now, and the screen its breakpoint
        # class (wide or narrow) before the first layout: then the first frame drawn is the full
        # screen, not one that a re-layout and a second frame complete.
        self._breakpoint_now()
        yield Static(self.header_text(), id="run-header")
        with Horizontal(id="panes"):
            yield MessageList(self.view, id="messages")
            with Vertical(id="right"):
                yield Static(self.tabs_text(self.view_name), id="tabs")
                with ContentSwitcher(initial=self.view_name, id="views"):
                    yield RequestPane(self.view, id="request")
                    yield RawView(self.view.run, id="raw")
                    yield AccountView(self.view, id="account")
                    yield ProblemsView(self.view, id="problems")
                    yield TokensView(self.view, id="tokens")
        yield Static(self.status_text(), id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.message_list.focus()
        self.message_list.set_cursor(self.index)
        self._show_current()  # the header, tabs and status have their text from compose
        self._focus_view(self.view_name)
        if self.view.findings is None:
            # After the first full screen is out: the check holds the GIL for a while on a big run.
            self.call_after_refresh(lambda: self.set_timer(0.05, self.check_run))
        else:
            self.start_analyses()

    def _breakpoint_now(self) -> None:
        """The class Textual's first resize event gives the screen (``HORIZONTAL_BREAKPOINTS``), now."""
        points = (self.app.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is None
                  else self.HORIZONTAL_BREAKPOINTS) or []
        width = self.app.size.width
        chosen = next((name for at, name in sorted(points, reverse=True) if width >= at), None)
        for _, name in points:
            self.set_class(name == chosen, name, update=False)

    # -- the index (attributes down) -----------------------------------------------------

    def go_to(self, index: int) -> None:
        """Make ``index`` the current message everywhere."""
        self.index = max(0, min(index, self.view.rows - 1))
        self.hold_analyses()  # background work waits while the user steps
        self.message_list.set_cursor(self.index)
        self.header.update(self.header_text(), layout=False)
        self._show_current()

    def _show_current(self) -> None:
        shown = SHOWS_INDEX.get(self.view_name)
        if shown is not None:
            getattr(self, shown).show(self.index)
        elif not self.problems.shown:
            self.problems.fill()

    def header_text(self) -> Text:
        """Where we are first (index, call), then exact or reconstructed, the format and the file; on a
        narrow terminal the file by its name and without the word "prefix", so the file still shows."""
        width = max(self.app.size.width - 2, 20)  # the header's padding
        source = self.view.run.source
        full = short_path(source.path)
        text = Text()
        for where, word in ((full, " prefix"), (os.path.basename(full) or full, " prefix"),
                            (os.path.basename(full) or full, "")):
            text = self._header(where, word)
            if text.cell_len <= width:
                return text
        text.truncate(width, overflow="ellipsis")
        return text

    def _header(self, where: str, word: str) -> Text:
        view, n = self.view, self.index
        run = view.run
        source = run.source
        text = Text()
        if n >= view.total:
            text.append(f"next request after {counted(view.total, 'message')}", "bold")
        else:
            text.append(f"message {n} of {view.total}", "bold")
        k = run.call_index(n)
        if k is not None:
            text.append(f" · model call {k + 1} of {len(run.calls)}")
        elif n < view.total:
            calls = len(run.calls)
            kind = view.producers[n].kind
            whose = {"caller": "by the caller", "loop": "by the loop", "prefill": "the caller's prefill"}.get(
                kind, "produced by no recorded call")
            text.append(f" · {whose} ({calls} model call{'s' * (calls != 1)})")
        call = run.call_for(n)
        exact = run.exact or (call is not None and call.request is not None)
        text.append(" · ")
        text.append("exact" if exact else "reconstructed", "bold green" if exact else "bold yellow")
        text.append(f"{word} · ")
        where += f"#{source.run_index}" if source.run_count > 1 else ""
        text.append(one_line(where), "bold")
        text.append(f" ({one_line(source.format)})")
        text.no_wrap, text.overflow = True, "ellipsis"
        return text

    def on_resize(self) -> None:
        self.header.update(self.header_text(), layout=False)

    def tabs_text(self, name: str) -> Text:
        counts = ""
        if self.view.findings is not None:
            counts = f" ({len(self.view.findings) + len(self.view.analyses.unsourced or [])})"
        tabs = Text()
        for n, key in enumerate(VIEWS, 1):
            label = f" {n} {TITLES[key]}{counts if key == 'problems' else ''} "
            tabs.append(label, "reverse bold" if key == name else "dim")
            tabs.append(" ")
        return tabs

    def show_view(self, name: str) -> None:
        self.view_name = name
        self.views.current = name
        self.tabs.update(self.tabs_text(name))
        self._show_current()
        self._focus_view(name)

    def _focus_view(self, name: str) -> None:
        focused = self.focused
        if name == "problems":
            self.problems.focus()
        elif name == "tokens":
            self.tokens_view.focus()
        elif focused is None or focused in (self.problems, self.tokens_view):
            self.message_list.focus()

    def describe_status(self) -> None:
        self.status.update(self.status_text())

    def status_text(self) -> Text:
        view = self.view
        text = Text()
        if view.findings is None:
            text.append("checking the run …", "italic")
        else:
            errors = sum(1 for f in view.findings if f.severity == "error")
            warnings = len(view.findings) - errors
            text.append(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}",
                        "bold red" if errors else "")
            cut = view.run.meta.get("cut_off")
            if isinstance(cut, dict):
                text.append(f" (line {cut.get('line')} cut off)", "bold")
            unsourced = len(view.analyses.unsourced or [])
            if unsourced:
                text.append(f", {unsourced} provenance warning{'s' * (unsourced != 1)}", "bold")
            if view.findings or unsourced:
                text.append("  ] [ next/previous finding", "dim")
        if self.matches is not None:
            text.append("   search " + one_line(self.matches.describe()))
            if self.matches.rows:
                text.append("  > < next/previous match", "dim")
        return text

    # -- messages up ---------------------------------------------------------------------

    @on(MessageList.Moved)
    def _moved(self, event: MessageList.Moved) -> None:
        self.go_to(event.index)

    @on(ProblemsView.Jump)
    @on(TokensView.Jump)
    def _jump(self, event: ProblemsView.Jump | TokensView.Jump) -> None:
        self.go_to(event.index)
        self.show_view("request")
        self.message_list.focus()

    def on_findings_ready(self, event: events.FindingsReady) -> None:
        self.view.set_findings(event.findings)
        self.message_list.marks_changed()
        self.problems.fill()
        if self.view_name == "request":
            self.request.show(self.index, follow=False)
        self.show_view(self.view_name)
        self.describe_status()
        self.refresh_bindings()
        self.start_analyses()

    def on_search_done(self, event: events.SearchDone) -> None:
        self.matches = event.matches
        self.request.set_highlight(event.matches.query if event.matches.rows else None)
        found = event.matches.step(event.origin, 1)
        if found is not None:
            self.go_to(found)
        self.describe_status()
        self.refresh_bindings()
