"""The Tokens view: what each request cost and why, drawn with the Line API.

A summary (the run's wall, model and loop time; totals, the part every request carries), the messages with the largest carried
cost (tokens x the later requests that sent them again; Enter goes to one), then one bar per
model call: ``░`` the part the previous request had already sent, ``█`` what this request
added. Bars are plain characters, so they read without colour and at 80 columns. Every number
says how it was obtained: ``~`` an offline estimate, ``=`` counted by count_tokens, a plain
number the usage the provider recorded (and each call row names its kind). The report comes
from a worker (``tui.core.tokens``); the call rows are built only when drawn, so a run of
20,000 calls costs its visible rows.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.reactive import var

from tui.app import keys
from tui.app.app_messages import IndexMessage
from tui.app.render import styles as palette
from tui.app.render.lines import Part, Rows, Target
from tui.app.run_state import RunState
from tui.app.widgets.lineview import LineView
from tui.core.run import Run
from tui.core.safe import one_line
from tui.core.timing import call_timings, duration, run_timing
from tui.core.summary import describe_message
from tui.core.tokens import ESTIMATED, EXACT, RECORDED, CallTokens, TokenReport
from tui.core.view.analyses import mark
from tui.core.view.run_view import RunView

#: Messages listed under "largest carried cost".
TOP = 8
#: The bar's two characters: shapes, not colours, so they read with NO_COLOR (and draw at cell width).
CARRIED, NEW = "░", "█"
LEGEND = f"{CARRIED} carried: the previous request had sent it already  {NEW} new: added by this request"


def n(value: int, kind: str) -> str:
    return f"{mark(kind)}{value:,}"


def kinds_text(calls: list[CallTokens]) -> str:
    counts = {k: sum(1 for c in calls if c.kind == k) for k in (RECORDED, EXACT, ESTIMATED)}
    return ", ".join(f"{count} {kind}" for kind, count in counts.items() if count)


def time_row(run: Run) -> Text:
    """The run's time: wall, model and loop (tools), as recorded (``tui.core.timing``)."""
    timing = run_timing(call_timings(run))
    if timing is None:
        return Text("time: not recorded by this source", palette.DIM)
    timed = "" if timing.timed == timing.calls else f", {timing.timed} of {timing.calls} calls timed"
    text = Text.assemble("wall ", (duration(timing.wall_ms), "bold"), " · model ", (duration(timing.model_ms), "bold"),
                         timed, " · loop (tools) ", (duration(timing.loop_ms), "bold"))
    if timing.derived:
        text.append(" · derived from the transcript's line timestamps", palette.NOTE)
    return text


class CallBars(Part):
    """One row per model call: call, message, input, new, kind and the bar. Built when drawn."""

    def __init__(self, calls: list[CallTokens]):
        self.calls = calls
        self.scale = max((c.total_input for c in calls), default=0)
        self._row_of = {c.call: k for k, c in enumerate(calls)}

    def count(self, width: int) -> int:
        return len(self.calls)

    def row(self, k: int, width: int) -> Text:
        c = self.calls[k]
        text = Text(f"{c.call + 1:>5} {c.message:>6}  {n(c.total_input, c.kind):>10} "
                    f"{mark(c.kind) + ('+' if c.new >= 0 else '') + f'{c.new:,}':>10}  {c.kind:<9} ")
        room = max(width - text.cell_len - 1, 4)
        total = round(c.total_input / self.scale * room) if self.scale else 0
        new = min(round(max(c.new, 0) / self.scale * room), total) if self.scale else 0
        if c.total_input and not total:
            total = 1
        text.append(CARRIED * (total - new), palette.CARRIED)
        text.append(NEW * new, palette.NEW)
        return text

    def target_at(self, k: int) -> Target:
        return ("call", self.calls[k].call)

    def row_of(self, target: Target) -> int | None:
        if target and target[0] == "call":
            return self._row_of.get(target[1])
        return None


class TokensView(LineView):
    """Tokens per model call and the messages that cost the most."""

    HELP = ("Tokens: what each request cost. Totals, then the messages with the largest carried cost "
            "(tokens x the later requests that sent them again), then a bar per model call: ░ what the "
            "previous request had already sent, █ what this one added. ~ marks an offline estimate (README "
            "gives its error), = a count from the count_tokens endpoint; plain numbers are the usage the "
            "provider recorded. Enter on a message or call goes to it; x counts exactly (sends the requests "
            "to count_tokens, after you confirm).")
    BINDINGS = keys.TOKENS

    class Jump(IndexMessage):
        """Go to message ``index``."""

    class ExactWanted(Message):
        """The user asked for exact counts (and confirmed)."""

    #: Bound to the stepper's: the report (and its note) arrived; shown, the cursor goes to N's call.
    run_state: var[RunState] = var(RunState(), init=False)

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self.report: TokenReport | None = None
        self.note: str | None = None  # a line about exact counting: asked, running, failed
        self._confirm = False
        self._index: int | None = None  # the message the list is on: the cursor follows its call
        self._stale = False  # a report arrived while the view was hidden: fill it when shown

    def on_mount(self) -> None:
        self.fill()

    def fill(self, note: str | None = None) -> None:
        """Attributes down: the report arrived (or changed), or a note about counting."""
        if note is not None:
            self.note = note
        self._stale = False
        self.report = self.view.analyses.report
        keep = self.target()
        self.set_parts(self._parts_for(self.report), keep)

    def watch_run_state(self, old: RunState, new: RunState) -> None:
        if "tokens" in new.changed(old):
            if not self.display:  # not on screen: filled when shown (``show``), not in the middle of a step
                self._stale, self.note = True, new.note if new.note is not None else self.note
                return
            self.fill(new.note)
            self.show(new.index)  # the view on screen (the switcher shows one): its cursor follows N

    def show(self, index: int) -> None:
        """Follow the message list: the cursor on the call that produced ``index`` (or the next one)."""
        self._index = index
        if self._stale:
            self.fill()
        if self.report is None or not self.report.calls:
            return
        calls = self.report.calls
        k = next((c.call for c in calls if c.message >= index), calls[-1].call)
        row = self.document.first_row_of(("call", k))
        if row is not None:
            self.move_cursor(row)

    def on_resize(self) -> None:
        """Shown for the first time, or the terminal changed: lay out again, the cursor on the same row."""
        keep = self.target()
        super().on_resize()
        row = self.document.first_row_of(keep) if keep is not None else None
        if row is not None:
            self.move_cursor(row)
        elif self._index is not None:
            self.show(self._index)
        else:
            self.move_cursor(self.cursor)

    def _parts_for(self, report: TokenReport | None) -> list[Part]:
        run = self.view.run
        if report is None:
            return [Rows([Text("Tokens", palette.HEADING),
                          Text("counting the tokens of every request …", palette.NOTE)])]
        calls = report.calls
        head = Text.assemble(("Tokens", palette.HEADING), f" · {len(calls)} model call{'s' * (len(calls) != 1)}")
        if calls:
            head.append(f" · {kinds_text(calls)}")
        rows = [head, time_row(run)]
        if ESTIMATED in report.kinds:
            rows.append(Text("~ marks an estimate: this source recorded no usage (README \"Tokens\" gives the "
                             "error measured against recorded usage)", palette.DIM))
        if self.note:
            rows.append(Text(self.note, palette.NOTE))
        total_kind = ESTIMATED if ESTIMATED in report.kinds else ""
        rows.append(Text(f"total input {n(report.total_input, total_kind)} · cache read "
                         f"{sum(c.cache_read_input_tokens for c in calls):,} · cache write "
                         f"{sum(c.cache_creation_input_tokens for c in calls):,} · output "
                         f"{n(report.total_output, total_kind)}"))
        rows.append(Text(f"every request carries {n(report.fixed, report.fixed_kind)} tokens of system prompt, "
                         f"tool schemas and overhead ({report.fixed_kind})"))
        parts: list[Part] = [Rows(rows), Rows([Text("")])]
        ranked = report.top_carried(TOP)
        carried = [Text.assemble(("Largest carried cost", palette.HEADING),
                                 ("  tokens x the later requests that sent it again · enter: go there", palette.DIM))]
        targets: list[Target] = [None]
        if not ranked:
            carried.append(Text("  (none: no message was sent more than once)", palette.DIM))
            targets.append(None)
        for m in ranked:
            kind = ESTIMATED if m.kind == ESTIMATED else ""
            what = one_line(describe_message(run.messages[m.index], 30))
            carried.append(Text.assemble(f"  message {m.index:<5} ",
                                         (f"{n(m.tokens, kind)} x {m.sends - 1} = {n(m.carried, kind)}", "bold"),
                                         (f"  ({m.kind}) ", palette.DIM), what))
            targets.append(("message", m.index))
        parts += [Rows(carried, targets=targets, wrap=False), Rows([Text("")])]
        parts.append(Rows([Text.assemble(("Requests", palette.HEADING), ("  " + LEGEND, palette.DIM)),
                           Text(f"{'call':>5} {'msg':>6}  {'input':>10} {'new':>10}  {'kind':<9} bar", palette.DIM)],
                          wrap=False))
        if calls:
            parts.append(CallBars(calls))
        else:
            parts.append(Rows([Text("  (no model call in this run)", palette.DIM)]))
        return parts

    # -- keys ----------------------------------------------------------------------------

    def action_go(self) -> None:
        target = self.target()
        if not target or self.report is None:
            return
        if target[0] == "message":
            self.post_message(self.Jump(target[1]))
        elif target[0] == "call":
            self.post_message(self.Jump(self.report.calls[target[1]].message))

    def action_exact(self) -> None:
        if self.report is None:
            return
        if not self._confirm:
            self._confirm = True
            self.fill(f"x again sends {len(self.report.calls)} request(s) of this run to the count_tokens endpoint "
                      "(ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL; counts are cached on disk); any other key: nothing sent")
            return
        self._confirm = False
        self.fill("counting through count_tokens …")
        self.post_message(self.ExactWanted())

    def on_key(self, event) -> None:
        """Any key but the exact-count one again cancels the confirmation."""
        if self._confirm and not any(b.action == "exact" for b in self._bindings.key_to_bindings.get(event.key, [])):
            self._confirm = False
            self.fill("")
