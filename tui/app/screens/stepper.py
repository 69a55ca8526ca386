"""The stepper: the message list beside the request for message N, and the Raw, Account, Problems, Tokens views.

One class, in sections: layout, the index, messages up, keys, the review analyses, branch.
The screen owns the index N. Widgets post what the user did (``MessageList.Moved``,
``ProblemsView.Jump``); the screen sets N, and N and the run's analyses go down through one
call, ``set_run_state``: it moves ``run_state`` (``tui.app.run_state``), which the list, the
Problems and the Tokens views are bound to (``data_bind`` in ``compose``), and the visible view
is shown at N (``SHOWS_INDEX``). Keys that act on the whole run (model calls, findings, search, go to,
views, copy, diff, branch) are bindings (``tui.app.keys.STEPPER``); the slow ones (grammar
check, search, serialising a body, token report, provenance) run in workers and come back
as typed messages (``tui.app.app_messages``) handled on the UI thread; no worker touches a
widget. The background analyses wait while the user steps (``IDLE`` seconds of quiet).
Other screens (diff, branch editor, branch tree) are asked for with ``Open*`` messages;
the app builds them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.text import Text
from textual import getters, on, work
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Static
from textual.worker import get_current_worker

from tui.app import app_messages as events
from tui.app import keys
from tui.app.command_palette import DiffProvider, GoToProvider
from tui.app.footer_fit import FittedFooter
from tui.app.render import styles as palette
from tui.app.run_state import RunState
from tui.app.start_frames import StartFrames
from tui.app.screens.dialogs import PromptScreen
from tui.app.share import ShareProvider
from tui.app.widgets.account_view import AccountView
from tui.app.widgets.keys_footer import KeysFooter
from tui.app.widgets.message_list import MessageList
from tui.app.widgets.problems_view import ProblemsView
from tui.app.widgets.raw_view import RawView
from tui.app.widgets.request_pane import RequestPane
from tui.app.widgets.response_view import ResponseView
from tui.app.widgets.tokens_view import TokensView
from tui.core import collector
from tui.core.errors import LoadError, UsageError
from tui.core.grammar import check_run
from tui.core.jsonio import atomic_write
from tui.core.paths import short_path
from tui.core.prefix import request_at, request_json
from tui.core.safe import one_line
from tui.core.grammar.findings import sort_findings
from tui.core.search import Matches, search, search_beside
from tui.core.view.analyses import Stopped
from tui.core.run_links import Link, RunLinks
from tui.core.view.filter import MessageFilter
from tui.core.view.jumps import JumpList
from tui.core.view.run_view import RunView
from tui.core.words import counted

if TYPE_CHECKING:  # in annotations only; what follows a file, the content check and the analyses' process are
    # imported where they are used, after the first screen: importing them is start-up time it does not need
    from tui.app.widgets.follow_watch import FollowStarted, FollowWatch
    from tui.core.tokens import TokenReport
    from tui.core.view.background import Background
    from tui.formats.follow import Following

#: The largest body ``y`` sends through OSC 52: terminals and tmux refuse or cut larger ones (xterm's
#: and tmux's buffers are around a megabyte of base64); a larger body is offered as a file instead.
OSC52_LIMIT = 1_000_000
#: Seconds without a step before the background analyses go on.
IDLE = 0.3

VIEWS = ("request", "raw", "account", "problems", "tokens", "response")
#: The list's share of a wide screen (percent) and its rows on a narrow one: the default, the bounds, a step.
SPLIT_WIDE, SPLIT_WIDE_RANGE, SPLIT_WIDE_STEP = 46, (15, 85), 8
SPLIT_NARROW, SPLIT_NARROW_RANGE, SPLIT_NARROW_STEP = 7, (3, 40), 3
#: The views that follow the index: each one's attribute on the screen (the Problems view lists the whole run).
SHOWS_INDEX = {"request": "request", "raw": "raw", "account": "account_view", "tokens": "tokens_view",
               "response": "response_view"}


TITLES = {"request": "Request", "raw": "Raw", "account": "Account", "problems": "Problems", "tokens": "Tokens",
          "response": "Response"}
SHORT_TITLES = {"request": "Req", "raw": "Raw", "account": "Acct", "problems": "Prob", "tokens": "Tok",
                "response": "Resp"}


def follow_watch():
    """``tui.app.widgets.follow_watch`` (what watches a followed file), imported when first needed: only a
    followed run uses it, and importing it is start-up time the first screen does not need."""
    from tui.app.widgets import follow_watch as module

    return module


def same_text(a: Text, b: Text | None) -> bool:
    """Whether ``a`` draws as ``b`` does: the same characters, spans and base style (``Text.__eq__`` leaves
    the base style out)."""
    return b is not None and a == b and a.style == b.style and a.justify == b.justify


class AnalysesFailed(Message):
    """The analyses' process could not analyse the run (it changed on disk, say): analyse it here."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class StepperScreen(FittedFooter, StartFrames, Screen):
    """One run, one index at a time."""

    HELP = ("The stepper. The message list (left or top) picks index N; the right (or lower) pane shows the "
            "request that produced it (1), its exact JSON (2), the account of it (3), all findings (4) or "
            "what each request cost in tokens (5), or what its model call returned and when (6). + and - move "
            "the split between them, f zooms the focused side to the whole screen (f again: both). D diffs the "
            "run against another file. b edits the request at N and re-runs the model from there (a branch); "
            "B lists the run's branches. ctrl+o goes back after a jump, & filters the list.")
    BINDINGS = keys.STEPPER
    FOOTER_DROP = keys.STEPPER_FOOTER_DROP
    COMMANDS = {GoToProvider, DiffProvider, ShareProvider}

    #: The index and which analyses have arrived: set only by ``set_run_state``; the views that show
    #: them are bound to it in ``compose``.
    run_state: var[RunState] = var(RunState(), init=False)

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
    response_view = getters.query_one("#response", ResponseView)

    def __init__(self, view: RunView, at: int = 0, view_name: str = "request",
                 following: Following | None = None, loader=None) -> None:
        super().__init__()
        self.view = view
        self.loader = loader  # a picklable ``() -> Run`` that loads this run again: for the analyses' process
        self.background: Background | None = None
        self.index = max(0, min(at, view.rows - 1))
        self.set_reactive(StepperScreen.run_state, RunState(index=self.index))
        self.view_name = view_name if view_name in VIEWS else "request"
        self.matches = None
        self.following = following  # follow mode: the file is watched and the run grows (F)
        if following is not None:
            following.looked(self.index)
        self.jumps = JumpList()  # ctrl+o / ctrl+n
        self.filter = MessageFilter()  # & : the message list shows only what it holds
        #: What opened this run from another (a subagent's Task call): ctrl+o with no jump left goes back there.
        self.linked_from: str | None = None
        self.links: RunLinks | None = None  # the file's runs, when it holds several (set by the app)
        self._checked = view.total  # the messages the findings shown cover (follow mode grows the run)
        self._recheck = None
        #: The list's share of a wide screen, its rows on a narrow one, and which side is zoomed (``+ - f``).
        self.split_share, self.split_rows, self.zoomed = SPLIT_WIDE, SPLIT_NARROW, None

    def compose(self) -> ComposeResult:
        # The header, tabs and status lines get their text now, and the screen its breakpoint
        # class (wide or narrow) before the first layout: then the first frame drawn is the full
        # screen, not one that a re-layout and a second frame complete.
        self._breakpoint_now()
        yield Static(self.header_text(), id="run-header")
        with Horizontal(id="panes"):
            yield MessageList(self.view, id="messages").data_bind(StepperScreen.run_state)
            with Vertical(id="right"):
                self._tabs_drawn = self.tabs_text(self.view_name)
                yield Static(self._tabs_drawn, id="tabs")
                with ContentSwitcher(initial=self.view_name, id="views"):
                    yield RequestPane(self.view, id="request")
                    yield RawView(self.view.run, id="raw")
                    yield AccountView(self.view, id="account")
                    yield ProblemsView(self.view, id="problems").data_bind(StepperScreen.run_state)
                    yield TokensView(self.view, id="tokens").data_bind(StepperScreen.run_state)
                    yield ResponseView(self.view, id="response")
        self._status_drawn = self.status_text()
        yield Static(self._status_drawn, id="status")
        yield KeysFooter()
        if self.following is not None:
            yield follow_watch().FollowWatch(self.following)

    def on_mount(self) -> None:
        self.message_list.focus()
        self.message_list.set_cursor(self.index)
        self._show_current()  # the header, tabs and status have their text from compose
        self._focus_view(self.view_name)
        if self.view.findings is None and self._in_process():
            self.after_first_frame(self.start_background)  # its processes never share the CPU with that frame
        elif self.view.findings is None:
            self.after_first_frame(self.check_run)  # in a thread here: it holds the interpreter for a while
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
        if self.following is not None:
            self.following.looked(self.index)
        self.hold_analyses()  # background work waits while the user steps
        collector.stepped()  # no young collection inside the step (``tui.core.collector``)
        self.set_run_state(index=self.index)
        self.header.update(self.header_text(), layout=False)
        self._show_current()
        if self.links is not None:
            self.describe_status()

    def set_run_state(self, *, index: int | None = None, findings: list | None = None,
                      report: TokenReport | None = None, note: str | None = None,
                      unsourced: list | None = None) -> None:
        """The one way the index and the run's analyses go down: the view model takes what a worker
        computed, ``run_state`` moves, and each view bound to it redraws what it shows (the list its
        cursor and marks, Problems its findings, Tokens its report and ``note``); then the screen's own
        lines (tabs, status, keys) and the visible view when findings or provenance notes arrived."""
        parts: list[str] = []
        values: dict[str, object] = {}
        if index is not None:
            parts.append("step")
            values["index"] = index
        if findings is not None:
            self.view.set_findings(findings)
            parts.append("findings")
        if report is not None:
            self.view.analyses.set_report(report)
            parts.append("tokens")
            values["note"] = note
        if unsourced is not None:
            self.view.set_unsourced(unsourced)
            parts.append("unsourced")
        self.run_state = self.run_state.bumped(*parts, **values)
        if (findings is not None or unsourced is not None) and self.filter.finding:
            self._refilter()
        if findings is not None or unsourced is not None:
            self.show_view(self.view_name)
            self.describe_status()
            can = self.check_action("finding", (1,))
            if can != self._finding_keys:  # the footer is built again only when ] [ come or go (tens of ms)
                self._finding_keys = can
                self.refresh_bindings()

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

    def jump_to(self, index: int) -> None:
        """A jump (go to, a source, a finding, a match, a palette target, first/last): ``go_to``, with the
        place it leaves from kept in the jump list (``ctrl+o`` goes back)."""
        target = max(0, min(index, self.view.rows - 1))
        self.jumps.jumped(self.index, target)
        self.go_to(target)
        self.refresh_bindings()

    def action_jump(self, step: int) -> None:
        """``ctrl+o`` back to where the last jump left from (none left in this run: back to the run that
        linked here), ``ctrl+n`` forward again."""
        place = self.jumps.back(self.index) if step < 0 else self.jumps.forward(self.index)
        if place is None:
            if step < 0 and self.linked_from is not None and len(self.app.screen_stack) > 2:
                self.app.pop_screen()
            return
        self.go_to(place)
        self.refresh_bindings()

    def _header(self, where: str, word: str) -> Text:
        view, n = self.view, self.index
        run = view.run
        source = run.source
        text = Text()
        following = self.following
        if following is not None and following.on:  # first: it must show at 80 columns too
            text.append("following", "bold reverse")
            text.append(f" · {following.unseen} new · " if following.unseen else " · ", "bold")
        if n >= view.total:
            text.append(f"next request after {counted(view.total, 'message')}", "bold")
        else:
            text.append(f"message {n} of {view.total}", "bold")
        if self.filter:  # first too: what the list leaves out must show at 80 columns
            hidden = view.rows - len(self.message_list.shown or ())
            text.append(f" · filter {self.filter.describe()}: {hidden} hidden", "bold reverse")
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
        recorded = call is not None and call.request is not None
        converted = recorded and bool(call.request.converted) and not run.exact
        exact = run.exact or (recorded and not converted)
        text.append(" · ")
        word_of = "exact" if exact else "converted" if converted else "reconstructed"
        text.append(word_of, "bold green" if exact else "bold yellow")
        context = run.meta.get("context_from") if isinstance(run.meta, dict) else None
        if not exact and isinstance(context, str):  # --context RECORDING[#CALL]
            text.append(", context from " + one_line(os.path.basename(context)), "bold yellow")
        text.append(f"{word} · ")
        where += f"#{source.run_index}" if source.run_count > 1 else ""
        text.append(one_line(where), "bold")
        text.append(f" ({one_line(source.format)})")
        text.no_wrap, text.overflow = True, "ellipsis"
        return text

    def on_resize(self) -> None:
        self.header.update(self.header_text(), layout=False)
        self.call_after_refresh(lambda: self.show_tabs(self.view_name))
        if self.zoomed or self.split_share != SPLIT_WIDE or self.split_rows != SPLIT_NARROW:
            self.call_after_refresh(self.apply_split)

    def tabs_text(self, name: str) -> Text:
        """The views' tabs in one row of the pane: their titles, else short titles, else the numbers with
        the current view's title (the row is one line high: nothing is cut)."""
        counts = ""
        if self.view.findings is not None:
            errors, warnings, notes = self.view.counts()
            counts = f" ({errors + warnings}{f' +{notes} notes' if notes else ''})"
        width = self._tabs_width()
        tabs = Text()
        for titles in (TITLES, SHORT_TITLES, None):
            tabs = Text()
            for n, key in enumerate(VIEWS, 1):
                title = TITLES[key] if titles is None and key == name else "" if titles is None else titles[key]
                label = f" {n}{' ' + title if title else ''}{counts if key == 'problems' and title else ''} "
                tabs.append(label, "reverse bold" if key == name else "dim")
                tabs.append(" ")
            if tabs.cell_len <= width:
                break
        return tabs

    def _tabs_width(self) -> int:
        """The tabs row's width: the pane's when laid out, else what the layout will give it."""
        try:
            right = self.query_one("#right").size.width
        except NoMatches:  # before compose
            right = 0
        if not right:
            width = self.app.size.width
            right = width if self.has_class("-narrow") else width - width * self.split_share // 100
        return max(right - 2, 10)  # the row's padding

    def show_view(self, name: str) -> None:
        self.view_name = name
        self.views.current = name
        self.show_tabs(name)
        self._show_current()
        self._focus_view(name)

    def show_tabs(self, name: str) -> None:
        """The tabs row drawn again when its text changed. Without a layout: the row is one line high
        whatever it says (``#tabs``), and a layout of the whole screen (the footer's keys, both lists' bars)
        cost 100-200 ms of the first step after the first screen, which a resize's tabs update asked for."""
        text = self.tabs_text(name)
        if not same_text(text, self._tabs_drawn):
            self._tabs_drawn = text
            self.tabs.update(text, layout=False)

    def _focus_view(self, name: str) -> None:
        focused = self.focused
        if name == "problems":
            self.problems.focus()
        elif name == "tokens":
            self.tokens_view.focus()
        elif focused is None or focused in (self.problems, self.tokens_view):
            self.message_list.focus()

    def describe_status(self) -> None:
        text = self.status_text()
        if not same_text(text, self._status_drawn):  # the same words: nothing to draw (a step with links asks each time)
            self.set_status(text)

    def set_status(self, text: Text) -> None:
        """The status line says ``text`` (every update goes through here: ``describe_status`` compares).
        Without a layout while it stays one row: a layout of the whole screen, asked for when the findings
        or the provenance notes arrive, was a 30-50 ms frame a key pressed then waited behind."""
        was, self._status_drawn = self._status_drawn, text
        self.status.update(text, layout=not (self._one_row(text) and was is not None and self._one_row(was)))

    def _one_row(self, text: Text) -> bool:
        """Whether the status line draws ``text`` in one row (no newline, within its content's width)."""
        return "\n" not in text.plain and text.cell_len <= self.status.size.width

    def status_text(self) -> Text:
        """The findings, the search and the links of this place; the key hints go first when it is too long."""
        note = self.link_note()
        width = max(self.app.size.width - 2, 20)
        text = self._status(hints=True)
        if text.cell_len + (note.cell_len + 3 if note is not None else 0) > width:  # the footer names the keys
            text = self._status(hints=False)
        if note is None:
            return text
        return Text.assemble(note, " · ", text) if text.plain else note

    def _status(self, hints: bool) -> Text:
        view = self.view
        text = Text()
        if view.findings is None:
            text.append("checking the run …", "italic")
        else:
            errors, warnings, unsourced = view.counts()
            text.append(f"{palette.MARK['error'][0] + ' ' if errors else ''}{errors} error{'s' * (errors != 1)}",
                        palette.ERROR if errors else "")
            text.append(", ")
            text.append(f"{palette.MARK['warning'][0] + ' ' if warnings else ''}{warnings} "
                        f"warning{'s' * (warnings != 1)}", palette.WARNING if warnings else "")
            cut = view.run.meta.get("cut_off")
            if isinstance(cut, dict):
                text.append(f" (line {cut.get('line')} cut off)", "bold")
            if unsourced:
                text.append(f" · {unsourced} provenance note{'s' * (unsourced != 1)}", palette.NOTE_MARK)
            if (view.findings or unsourced) and hints:
                text.append("  ] [ next/previous finding", "dim")
            if self._checked < view.total:
                text.append(f"  (checked up to message {self._checked - 1}; again when the file is quiet)", "italic")
        if self.matches is not None:
            text.append("   search " + one_line(self.matches.describe()))
            if self.matches.rows and hints:
                text.append("  > < next/previous match", "dim")
        return text

    def link_note(self) -> Text | None:
        """The status line's note on the links of this place: where Enter leads, what started this run."""
        link = self.link()
        if link is not None:
            return Text.assemble(("enter", "bold"), f": run {link.run}, {link.what}")
        if self.linked_from is not None and self.links is not None:
            here = self.view.run.source.run_index
            started = self.links.started_by(here)
            by = (f"started by run {started[0]}'s Task call at message {started[1]}" if started is not None
                  else f"opened from {self.linked_from}")
            return Text.assemble(by + " · ", ("ctrl+o", "bold"), " back")
        return None

    # -- messages up ---------------------------------------------------------------------

    @on(MessageList.Moved)
    def _moved(self, event: MessageList.Moved) -> None:
        self.go_to(event.index)

    @on(ProblemsView.Jump)
    @on(TokensView.Jump)
    def _jump(self, event: ProblemsView.Jump | TokensView.Jump) -> None:
        self.jump_to(event.index)
        self.show_view("request")
        self.message_list.focus()

    def on_findings_ready(self, event: events.FindingsReady) -> None:
        self.set_run_state(findings=event.findings)
        self.start_analyses()

    def on_search_done(self, event: events.SearchDone) -> None:
        self.matches = event.matches
        self.request.set_highlight(event.matches.query if event.matches.rows or event.matches.beside else None)
        found = event.matches.step(event.origin, 1)
        if found is not None:
            self.jump_to(found)
        self.describe_status()
        self.refresh_bindings()

    # -- follow mode (``tui.formats.follow`` holds the logic) ----------------------------

    def on_follow_watch_updated(self, event: FollowWatch.Updated) -> None:
        """More of the file arrived: the run grows under the cursor, which moves on only from the end."""
        assert self.following is not None
        before = self.view.total
        self.view.grow(self.following.run)
        self.raw.run = self.view.run
        self.message_list.rows_changed()
        self._refilter()
        if event.update.notice:
            self.notify(one_line(event.update.notice), title="Following", severity="warning", markup=False)
        index = self.following.cursor(self.index, before)
        if index != self.index or event.update.reloaded or self.index >= self.view.total:
            self.go_to(index)
        else:
            self.header.update(self.header_text(), layout=False)
        self._check_again()

    def on_follow_watch_failed(self, event: FollowWatch.Failed) -> None:
        self.notify(one_line(event.problem), title="Following", severity="error", markup=False)

    def _check_again(self) -> None:
        """The grammar check again once the file has been quiet for 2 seconds: on a long run the check
        holds the interpreter for most of a second, which would slow every step if it ran on each
        line; until then the status line says how far the findings go."""
        if self._recheck is not None:
            self._recheck.stop()
        self._recheck = self.set_timer(2.0, self._check_now)
        self.describe_status()

    def _check_now(self) -> None:
        self._checked = self.view.total
        self.check_run()

    def action_follow(self, on: bool) -> None:
        """F: follow the file (and go to its end, as ``less +F``), or stop following."""
        if self.following is None:
            self.notify("reading the file to follow it …", title="Following", markup=False, timeout=2)
            self.start_following()
            return
        self.following.on = on
        if on:
            self.go_to(self.view.total - 1)
            self.query_one(follow_watch().FollowWatch).poll_now()
        else:
            self.header.update(self.header_text(), layout=False)
        self.refresh_bindings()

    def on_follow_started(self, event: FollowStarted) -> None:
        self.following = event.following
        self.mount(follow_watch().FollowWatch(event.following))
        self.view.grow(event.following.run)
        self.raw.run = self.view.run
        self.message_list.rows_changed()
        self._refilter()
        self.go_to(self.view.total - 1)
        self.refresh_bindings()

    # -- keys (``keys.STEPPER``) -----------------------------------------------------------

    @work(thread=True, exclusive=True, group="findings")
    def check_run(self) -> None:
        from tui.core.content_check import content_findings  # with the regex module: after the first screen

        run = self.view.run
        self.post_message(events.FindingsReady(sort_findings([*check_run(run), *content_findings(run)])))

    @work(thread=True, exclusive=True, group="follow-start")
    def start_following(self) -> None:
        from tui.formats.follow import Follower, Following

        source = self.view.run.source
        try:
            follower = Follower(source.path, **self.app.load_options.kwargs())
        except (LoadError, UsageError, OSError) as exc:
            text = exc.line_text() if isinstance(exc, LoadError) else str(exc)
            self.app.call_from_thread(self.notify, one_line(text), title="Cannot follow", severity="error",
                                      markup=False)
            return
        self.post_message(follow_watch().FollowStarted(Following(follower, source.run_index)))

    @work(thread=True, exclusive=True, group="search")
    def run_search(self, query: str, origin: int) -> None:
        worker = get_current_worker()
        hits = search(self.view.run, query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(events.SearchDone(Matches(query, hits, beside=search_beside(self.view.run, query)),
                                                origin))

    @work(thread=True, exclusive=True, group="copy")
    def copy_request(self, index: int) -> None:
        body = request_json(self.view.run, index)
        self.post_message(events.CopyReady(index, body.decode("utf-8", "surrogateescape")))

    def on_copy_ready(self, event: events.CopyReady) -> None:
        body = event.text.encode("utf-8", "surrogateescape")
        wording = request_at(self.view.run, event.index).wording
        if len(body) > OSC52_LIMIT:  # not sent: a terminal would drop or cut it, and "Copied" would be a lie
            self._offer_file(event.index, body, wording)
            return
        self.app.copy_to_clipboard(event.text)
        self.notify(f"Copied the request body for message {event.index} ({wording}): {len(body):,} bytes, via OSC 52",
                    title="Copied", markup=False)

    def _offer_file(self, index: int, body: bytes, wording: str) -> None:
        """A body too large for OSC 52: say so, and write it to a file the user names instead (never the run's)."""
        def answer(value: str | None) -> None:
            if not value or not value.strip():
                self.notify("Not copied and not written.", timeout=3, markup=False)
                return
            path = os.path.abspath(os.path.expanduser(value.strip()))
            if path == os.path.abspath(self.view.run.source.path):
                self.notify("That is the run's own file: input files are never written.", severity="error",
                            markup=False)
                return
            try:
                atomic_write(path, body)
            except OSError as exc:
                self.notify(f"{short_path(path)}: {exc.strerror or exc}", title="Not written", severity="error",
                            markup=False)
                return
            self.notify(f"Wrote the request body for message {index} ({wording}): {len(body):,} bytes to "
                        f"{short_path(path)}", title="Written", markup=False)

        self.app.push_screen(PromptScreen(
            f"The request body for message {index} is {len(body):,} bytes, more than OSC 52 carries "
            f"({OSC52_LIMIT:,}): nothing was copied. Write it to a file? (Enter writes, Escape cancels)",
            value=f"turnscope-request-{index}.json"), answer)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "match":
            return self.matches is not None and bool(self.matches.rows)
        if action == "finding":
            return bool(self.view.findings) or bool(self.view.analyses.unsourced)
        if action == "back":
            return self.matches is not None or len(self.app.screen_stack) > 2
        if action == "jump":  # shown while there is somewhere to go
            if parameters[0] < 0:
                return self.jumps.can_back() or (self.linked_from is not None and len(self.app.screen_stack) > 2)
            return self.jumps.can_forward()
        if action == "follow":  # F stops while following (and shows so), starts otherwise
            following = self.following is not None and self.following.on
            return bool(parameters[0]) != following
        return True

    def _go_or_say(self, found: int | None, step: int, what: str, jump: bool = False) -> None:
        """Go to ``found``, or say there is no later (earlier) ``what``."""
        if found is None:
            self.notify(f"No {'later' if step > 0 else 'earlier'} {what}.", timeout=2)
        elif jump:
            self.jump_to(found)
        else:
            self.go_to(found)

    def _shown_next(self, find, step: int) -> int | None:
        """``find(i, step)`` from N, past the rows the list's filter hides."""
        found = find(self.index, step)
        shown = set(self.message_list.shown) if self.filter and self.message_list.shown is not None else None
        while found is not None and shown is not None and found not in shown:
            found = find(found, step)
        return found

    def action_call(self, step: int) -> None:
        self._go_or_say(self._shown_next(self.view.next_call, step), step, "model call")

    def action_filter(self) -> None:
        """&: filter the message list (role:, tool:, finding, words); an empty answer turns it off."""
        def answer(value: str | None) -> None:
            if value is not None:
                self.set_filter(MessageFilter.parse(value))

        self.app.push_screen(PromptScreen("Filter the list: role:user (or assistant), tool:NAME, finding, words; "
                                          "every term must hold; empty: off", placeholder="role:assistant tool:Bash",
                                          value=self.filter.describe().replace("'", "")), answer)

    def set_filter(self, wanted: MessageFilter) -> None:
        self.filter = wanted
        shown = wanted.rows(self.view) if wanted else None
        self.message_list.set_shown(shown, self.index)
        if shown is not None and self.index not in shown:  # N hidden: the next shown message (or the last)
            later = [i for i in shown if i > self.index]
            self.go_to(later[0] if later else shown[-1])
        else:
            self.header.update(self.header_text(), layout=False)
        if shown is not None and len(shown) == 1:
            self.notify(f"No message matches {wanted.describe()}; & and an empty answer turn the filter off.",
                        timeout=4, markup=False)

    def _refilter(self) -> None:
        """The run grew or its findings arrived: the filter again over what is there now."""
        if self.filter:
            self.message_list.set_shown(self.filter.rows(self.view), self.index)
            self.header.update(self.header_text(), layout=False)

    def action_edge(self, step: int) -> None:
        self.jump_to(0 if step < 0 else max(self.view.total - 1, 0))

    def action_finding(self, step: int) -> None:
        self._go_or_say(self._shown_next(self.view.next_finding, step), step, "finding", jump=True)

    def action_match(self, step: int) -> None:
        if self.matches is None:
            return
        found = self.matches.step(self.index, step)
        if found is not None:
            self.jump_to(found)
        self.describe_status()

    def action_goto(self) -> None:
        last = self.view.total

        def answer(value: str | None) -> None:
            if value is None or not value.strip():
                return
            try:
                n = int(value.strip())
            except ValueError:
                self.notify(f"Not an index: {value[:40]!r}", severity="error", markup=False)
                return
            n = n + last if n < 0 else n
            if not 0 <= n <= last:
                self.notify(f"No message {value.strip()[:20]}: the run has 0..{last - 1} (and {last}, the next request)",
                            severity="error", markup=False)
                return
            self.jump_to(n)

        self.app.push_screen(PromptScreen(f"Go to message (0..{last - 1}, {last} is the next request)",
                                          placeholder="index"), answer)

    def action_search(self) -> None:
        def answer(value: str | None) -> None:
            if value:
                self.set_status(Text(f"searching every block for {one_line(value[:60])!r} …", "italic"))
                self.run_search(value, self.index)

        previous = self.matches.query if self.matches is not None else ""
        self.app.push_screen(PromptScreen("Search every block (text, thinking, tool names, inputs and results), "
                                          "the system prompt and the tools; Escape clears it",
                                          placeholder="words", value=previous), answer)

    def action_toggle(self, section: str) -> None:
        if self.view_name != "request":
            self.show_view("request")
        self.request.toggle((section,))

    def action_view(self, name: str) -> None:
        self.show_view(name)

    def action_split(self, step: int) -> None:
        """Move the split between the list and the views (wider/taller list with 1, narrower with -1)."""
        if self.has_class("-narrow"):
            low, high = SPLIT_NARROW_RANGE
            self.split_rows = max(low, min(high, self.split_rows + step * SPLIT_NARROW_STEP))
        else:
            low, high = SPLIT_WIDE_RANGE
            self.split_share = max(low, min(high, self.split_share + step * SPLIT_WIDE_STEP))
        self.zoomed = None
        self.apply_split()

    def action_zoom(self) -> None:
        """The focused side (the list, or the view) to the whole screen; again: both sides back."""
        if self.zoomed:
            self.zoomed = None
        else:
            self.zoomed = "list" if self.focused is self.message_list else "views"
        self.apply_split()

    def apply_split(self) -> None:
        """The list's size and the zoom as set by ``split``/``zoom`` (on a resize too: the layout may have
        switched between beside and above)."""
        zoomed = self.zoomed
        right = self.query_one("#right")
        self.message_list.display = zoomed != "views"
        right.display = zoomed != "list"
        styles = self.message_list.styles
        if zoomed == "list":
            styles.width, styles.height = "100%", "1fr"
        elif self.has_class("-narrow"):
            styles.width, styles.height = None, self.split_rows
        else:
            styles.width, styles.height = f"{self.split_share}%", None
        if zoomed == "views" and self.focused is self.message_list:
            {"problems": self.problems, "tokens": self.tokens_view}.get(self.view_name, self.request).focus()
        if self.message_list.display:
            self.call_after_refresh(self.message_list.follow_cursor)
        self.call_after_refresh(lambda: self.show_tabs(self.view_name))

    def action_copy(self) -> None:
        self.copy_request(self.index)

    def link(self) -> Link | None:
        """Where message N leads in another run of the file (a subagent call, a compaction), or None."""
        if self.links is None or self.links.runs[self.view.run.source.run_index] is not self.view.run:
            return None
        return self.links.at(self.view.run.source.run_index, self.index)

    def action_into_pane(self) -> None:
        """Enter on the message list: a subagent call opens the subagent's run (a compaction's first or last
        message the run on its other side); any other message moves the focus into the view (Tab comes back)."""
        link = self.link() if self.focused is self.message_list else None
        if link is not None:
            here = self.view.run.source.run_index
            self.post_message(events.OpenLinkedRun(self.view.run.source.path, link.run, link.at,
                                                   f"message {self.index} of run {here}"))
            return
        if self.focused is self.message_list:
            pane = {"raw": self.raw.raw_lines}.get(self.view_name) or getattr(self, SHOWS_INDEX.get(
                self.view_name, "problems"))
            if pane.display:
                pane.focus()

    def action_latency(self) -> None:
        """L: the message list's latency column (each model call's time, as recorded) on or off."""
        self.message_list.show_latency = not self.message_list.show_latency
        self.message_list.marks_changed()

    def action_back(self) -> None:
        """Escape: clear the search first; then back to the list (or the run a link came from)."""
        if self.matches is not None:
            self.matches = None
            self.request.set_highlight(None)
            self.describe_status()
            self.refresh_bindings()
            return
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()

    # -- the review analyses: tokens, provenance, exact counts ------------------------------

    analyses_started = False
    #: Whether ``] [`` (next/previous finding) were offered when the footer was last built.
    _finding_keys = False

    def _in_process(self) -> bool:
        """Whether this run is analysed in separate processes: a large file (``background.large``: files
        this large; smaller ones in a thread here, where the work takes less time than starting a process)."""
        if self.loader is None or self.following is not None:
            return False
        from tui.core.view import background

        return background.large(self.view.run.source.path)

    def start_background(self) -> None:
        """The check, the token report and every trace in the analyses' process; results come as messages."""
        self.analyses_started = True
        from tui.core.view.background import Background

        self.view.analyses.expect_traces()
        self.background = Background(self.view.run, self.loader, self._delivered, quiet=self.view.analyses.gate)
        self.background.start()

    def _delivered(self, kind: str, value) -> None:
        """From the analyses' reading thread: each result as the message the thread workers post."""
        if kind == "findings":
            self.post_message(events.FindingsReady(value))
        elif kind == "tokens":
            self.post_message(events.TokensReady(value))
        elif kind == "traces":
            self.post_message(events.UnsourcedReady(self.view.analyses.set_traces(value)))
        elif kind == "failed":
            self.post_message(AnalysesFailed(value))

    def on_analyses_failed(self, event: AnalysesFailed) -> None:
        """Analyse here what the process did not send."""
        self.background = None
        self.view.analyses.traces_failed()
        if self.view.findings is None:
            self.analyses_started = False
            self.check_run()  # its result starts the rest
        elif self.view.analyses.report is None or self.view.analyses.unsourced is None:
            self.analyses_started = False
            self.start_analyses()

    def on_unmount(self) -> None:
        """The run is closed: its background work stops now."""
        if self.background is not None:
            self.background.stop()
            self.background = None

    def start_analyses(self) -> None:
        if not self.analyses_started:
            self.analyses_started = True
            self.analyse_run()

    @work(thread=True, exclusive=True, group="analyses")
    def analyse_run(self) -> None:
        worker = get_current_worker()
        analyses = self.view.analyses
        tick = analyses.ticker(lambda: worker.is_cancelled)
        try:
            self.post_message(events.TokensReady(analyses.compute_tokens(tick=tick)))
            self.post_message(events.UnsourcedReady(analyses.compute_unsourced(tick)))
        except Stopped:
            return

    _resume_timer = None

    def hold_analyses(self) -> None:
        """A step: background analyses wait until the keys have been quiet for ``IDLE`` seconds."""
        self.view.analyses.hold()
        if self._resume_timer is None:
            self._resume_timer = self.set_timer(IDLE, self._resume_analyses)
        else:
            self._resume_timer.reset()

    def _resume_analyses(self) -> None:
        self._resume_timer = None
        self.view.analyses.resume()
        collector.settle()  # the keys are quiet: what the steps drew leaves the collector's full walks

    @work(thread=True, exclusive=True, group="exact")
    def count_exactly(self) -> None:
        from tui.core.count_tokens import CountError, TokenCounter

        counter = TokenCounter(model=self.view.run.model)
        try:
            report = self.view.analyses.compute_tokens(counter)
        except CountError as exc:
            self.post_message(events.TokensFailed(str(exc)))
            return
        self.post_message(events.TokensReady(report, exact=True, note=f"count_tokens: {counter.sent} sent, "
                                                                       f"{counter.hits} from the cache"))

    def on_tokens_ready(self, event: events.TokensReady) -> None:
        self.set_run_state(report=event.report, note=event.note)

    def on_tokens_failed(self, event: events.TokensFailed) -> None:
        # No analysis changed: a line of the Tokens view's own, as its ``x`` key writes.
        self.tokens_view.fill(f"exact counts failed: {event.text}")
        self.notify(event.text, title="count_tokens", severity="error", markup=False)

    def on_unsourced_ready(self, event: events.UnsourcedReady) -> None:
        self.set_run_state(unsourced=event.unsourced)

    def on_tokens_view_exact_wanted(self, _: TokensView.ExactWanted) -> None:
        self.count_exactly()

    def on_request_pane_source_chosen(self, event: RequestPane.SourceChosen) -> None:
        place = event.value.source
        if place is None:
            return
        if isinstance(place.index, int):
            self.jump_to(place.index)
        self.request.show_source(event.value, event.text)
        self.request.focus()
        where = f"message {place.index}" if isinstance(place.index, int) else f"the {place.index}"
        self.notify(f"{event.value.path} came from {where} (marked)", timeout=3, markup=False)

    def action_diff(self) -> None:
        def answer(value: str | None) -> None:
            if value and value.strip():
                self.load_diff(value.strip())

        self.app.push_screen(PromptScreen("Diff this run against a file (path; its first run if it holds several)",
                                          placeholder="path"), answer)

    @work(thread=True, exclusive=True, group="diff-load")
    def load_diff(self, path: str) -> None:
        from tui.formats import load_runs

        try:
            runs = load_runs(path)
        except LoadError as exc:
            self.post_message(events.LoadFailed(path, exc.line_text()))
            return
        except (UsageError, OSError) as exc:
            self.post_message(events.LoadFailed(path, f"{path}: {exc}"))
            return
        note = f"{path} holds {len(runs)} runs: comparing with run 0" if len(runs) > 1 else None
        self.post_message(events.DiffLoaded(path, runs[0], note))

    def on_diff_loaded(self, event: events.DiffLoaded) -> None:
        event.stop()
        if event.note:
            self.notify(event.note, markup=False)
        self.post_message(events.OpenDiff(self.view.run, event.run, self.view.run.source.path, event.path))

    def on_load_failed(self, event: events.LoadFailed) -> None:
        """The file to diff against cannot be loaded: one line, in the status bar and as a notification."""
        event.stop()
        self.set_status(Text.assemble(("cannot diff: ", "bold"), one_line(event.text)))
        self.notify(event.text, title="Cannot diff", severity="error", markup=False)

    # -- branch: ``b`` edits the request at N, ``B`` lists the run's branches ---------------

    def _branchable(self) -> bool:
        path = self.view.run.source.path
        if not path or not os.path.isfile(path):
            self.notify("This run has no file on disk to branch from.", severity="error", markup=False)
            return False
        return True

    def action_branch(self) -> None:
        if not self._branchable():
            return
        at = min(self.index, self.view.total - 1)
        if at < 0:
            self.notify("The run has no messages to branch from.", severity="error", markup=False)
            return
        self.post_message(events.OpenBranchEditor(self.view.run, at))

    def action_branches(self) -> None:
        if self._branchable():
            self.post_message(events.OpenBranchTree(self.view.run))
