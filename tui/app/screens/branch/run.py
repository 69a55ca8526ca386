"""The branch running: each new turn streams in, tool calls are answered, every turn is saved.

The screen drives ``tui.core.branch.runner.Runner`` in an async worker and renders its
events: ``StepStarted``/``BlockStarted``/``Delta`` stream the assistant turn into the view,
``TurnSaved`` replaces it with the saved turn and shows the file it is in, ``ToolCall`` /
``ToolResolved`` say who answered each call, ``Finished`` says why it stopped. Tool calls
go to the resolver the lineage names (chosen in the review): recorded (the parent run's
own result for the same name and input, falling back to manual), manual (a dialog where
the user types the result, sends it as an error, or stops the branch), stop, or the
user's python:MODULE:FUNCTION. Escape cancels cleanly (``Runner.cancel``: the turn in
flight is dropped, every saved turn stays). API failures are shown in the API's words with
where the branch is saved; nothing is lost. ``o`` opens the branch in the stepper, ``v``
shows it beside the original.
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tui.app import keys
from tui.app.app_messages import OpenSideBySide, OpenStepper
from tui.app.render import styles as palette
from tui.app.screens.branch.dialogs import AnswerScreen
from tui.app.widgets.keys_footer import KeysFooter
from tui.app.widgets.turns_view import TurnsView
from tui.core.branch import runner, store
from tui.core.branch.api import now_iso
from tui.core.branch.outcome import WHY, kept_answers
from tui.core.branch.events import (BlockStarted, Delta, Event, Finished, StepStarted, ToolCall, ToolResolved,
                                    TurnSaved)
from tui.core.branch.edit import json_text
from tui.core.branch.resolvers import (Ambiguous, Answer, ManualResolver, RecordedAnswers, Resolution, Resolver,
                                       make_resolver)
from tui.core.errors import LoadError, UsageError
from tui.core.run import blocks_of
from tui.core.safe import one_line


class BranchRunScreen(Screen):
    """One branch being run (or finished): its turns, its status, where it is saved."""

    HELP = ("The branch running: the new assistant turn appears as it streams; tool calls are answered by the "
            "resolver chosen before sending (recorded: the original run's result for the same call, else you are "
            "asked; manual; stop; or your python function). Escape cancels (every saved turn "
            "stays); when it has finished, o opens the branch in the stepper and v shows it beside the original.")
    BINDINGS = keys.BRANCH_RUN

    header = getters.query_one("#branch-run-header", Static)
    turns = getters.query_one("#branch-turns", TurnsView)
    status = getters.query_one("#branch-run-status", Static)

    def __init__(self, branch: runner.Branch, max_steps: int | None = None, resolver: Resolver | None = None) -> None:
        super().__init__()
        self.branch = branch
        self.max_steps = max_steps
        self.resolver = resolver  # built by the review (a python: resolver); else from the lineage
        self.runner: runner.Runner | None = None
        self.finished: Finished | None = None
        self.saved_path = str(branch.path)
        self.step = 0
        self._dialog: AnswerScreen | None = None

    @property
    def at(self) -> int:
        return self.branch.lineage["at"]

    def compose(self) -> ComposeResult:
        yield Static(id="branch-run-header")
        yield TurnsView(id="branch-turns")
        yield Static(id="branch-run-status")
        yield KeysFooter()

    def on_mount(self) -> None:
        lineage = self.branch.lineage
        ops = len(lineage.get("patch") or [])
        text = Text()
        text.append(f"branch at message {self.at}", "bold")
        text.append(f" · patch of {ops} op{'s' * (ops != 1)} · model {one_line(str(lineage.get('model')))}"
                    f" · up to {self.max_steps or lineage.get('max_steps')} model calls"
                    f" · tool calls: {one_line(str(lineage.get('resolver')))}", palette.DIM)
        text.no_wrap, text.overflow = True, "ellipsis"
        self.header.update(text)
        messages = self.branch.run.messages
        for i in range(self.at, len(messages)):
            self.turns.add_message(i, messages[i], "edited" if i == self.at else "", palette.WARNING)
        self.turns.focus()
        self._say(Text("starting …", palette.NOTE))
        try:
            resolver = self.resolver or make_resolver(str(lineage.get("resolver") or "recorded"), self.branch.parent,
                                                      ManualResolver(self.ask), edited=self.branch.run)
        except UsageError as exc:  # a python: module that went away since the review: nothing is sent
            self.finished = Finished("error", 0, self.saved_path)
            self._say(Text.assemble(("✗ ", palette.ERROR), one_line(str(exc))))
            return
        self.runner = runner.Runner(self.branch, resolver, max_steps=self.max_steps)
        self.drive()

    # -- the runner ----------------------------------------------------------------------

    @work(exclusive=True, group="branch-run")
    async def drive(self) -> None:
        assert self.runner is not None
        try:
            async for event in self.runner.events():
                self.show(event)
        except Exception as exc:  # noqa: BLE001 - a save that failed: say so; the file keeps what it had
            self.finished = Finished("error", self.step, self.saved_path)
            self._say(Text.assemble(("✗ the branch stopped: ", palette.ERROR), one_line(f"{type(exc).__name__}: {exc}"),
                                    f" · saved up to message {len(self.branch.run.messages) - 1}: ",
                                    one_line(self.saved_path)))
            self.refresh_bindings()

    def show(self, event: Event) -> None:
        turns = self.turns
        if isinstance(event, StepStarted):
            self.step = event.step
            turns.start_stream(event.index)
            self._say(Text.assemble((f"model call {event.step}", "bold"),
                                    f": streaming message {event.index} from {one_line(str(event.model))} … ",
                                    ("escape cancels", palette.DIM)))
        elif isinstance(event, (BlockStarted, Delta)):
            turns.stream(event)
        elif isinstance(event, TurnSaved):
            self.saved_path = event.path
            call = event.call
            if call is not None:
                usage = call.usage or {}
                note = (f"branch call {self.step} · {call.stop_reason} · {usage.get('input_tokens', '?')} in / "
                        f"{usage.get('output_tokens', '?')} out")
            else:
                note = "tool results"
            turns.add_message(event.index, event.message, note)
            self._say(Text.assemble(f"saved message {event.index}: ", (one_line(event.path), "bold")))
        elif isinstance(event, ToolCall):
            self._say(Text.assemble("answering ", (one_line(event.name), "bold"), f" ({one_line(event.id)}) …"))
        elif isinstance(event, ToolResolved):
            how = "left unanswered" if event.result is None else f"answered by {one_line(event.via)}"
            turns.add_note(event.index, Text.assemble(
                ("  ↳ ", palette.DIM), (one_line(event.name), "bold"), f" {one_line(event.id)}: {how}",
                (" ERROR" if event.result and event.result.get("is_error") else "", palette.ERROR)))
        elif isinstance(event, Finished):
            self._finished(event)

    def _finished(self, event: Finished) -> None:
        self.finished = event
        self.turns.drop_stream()
        text = Text()
        last = len(self.branch.run.messages) - 1
        if event.error is not None:
            text.append("✗ ", palette.ERROR)
            text.append(one_line(event.error.line()), palette.ERROR)
            text.append(f"\nthe branch is saved up to message {last}: ")
            text.append(one_line(event.path), "bold")
            if self.retryable:
                text.append("\nr: retry from the last saved turn · escape: back", palette.DIM)
            else:
                text.append(" (turnscope branch --resume continues it)", palette.DIM)
        else:
            why = WHY.get(event.stop_reason, f"the model stopped: {event.stop_reason}")
            text.append("✓ " if event.stop_reason in ("end_turn", "stop_sequence") else "■ ",
                        "bold green" if event.stop_reason == "end_turn" else palette.WARNING)
            text.append(f"{why} after {event.steps} model call{'s' * (event.steps != 1)}")
            text.append(f" · {last + 1} messages saved: ")
            text.append(one_line(event.path), "bold")
            if kept_answers(self.branch.lineage):
                text.append("\n" + kept_answers(self.branch.lineage), palette.NOTE)
            text.append("\no: open in the stepper · v: beside the original · escape: back", palette.DIM)
        self._say(text)
        self.refresh_bindings()

    def _say(self, text: Text) -> None:
        self.status.update(text)

    async def ask(self, call: ToolCall) -> Resolution | None:
        """The manual resolver: a dialog; its answer (or None: stop) goes back to the runner."""
        future: asyncio.Future[Resolution | None] = asyncio.get_running_loop().create_future()

        def done(result: Resolution | None) -> None:
            if not future.done():
                future.set_result(result)

        note, value, error = self._offer(call)
        said = [b.get("text") for b in blocks_of(self.branch.run.messages[call.index])
                if isinstance(b, dict) and b.get("type") == "text"] if call.index < len(self.branch.run.messages) else []
        self._dialog = AnswerScreen(call, note, value=value, error=error,
                                    said="\n".join(t for t in said if isinstance(t, str)))
        self._say(Text.assemble("waiting for your answer to ", (one_line(call.name), "bold"), f" ({one_line(call.id)})"))
        self.app.push_screen(self._dialog, done)
        try:
            return await future
        except asyncio.CancelledError:
            if self._dialog is not None and self._dialog.is_attached and self.app.screen is self._dialog:
                self._dialog.dismiss(None)
            raise
        finally:
            self._dialog = None

    def _offer(self, call: ToolCall) -> tuple[str, str, bool]:
        """What the dialog says and fills in: the branch world's identical call, if there is one."""
        if call.why:
            return f"not answered from the recording: {call.why}", "", False
        found = RecordedAnswers(self.branch.parent, self.branch.run).lookup(call.name, call.input)
        if isinstance(found, Ambiguous):
            return f"not answered from the recording: {found.why}", "", False
        if isinstance(found, Answer):
            content = found.result.get("content")
            value = content if isinstance(content, str) else ("" if content is None else json_text(content))
            error = bool(found.result.get("is_error"))
            whose = "the edit's" if found.from_edit else "the original run's"
            return (f"the original run made this identical call: {whose} result (message {found.index}) is filled "
                    f"in{' (an error result: ctrl+t sends it as one)' if error else ''}; edit it or send it",
                    value, error)
        return "no identical call in the original run: type what the tool returns", "", False

    # -- keys ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        running = self.finished is None
        if action == "cancel":
            return running
        if action in ("back", "open", "compare"):
            return not running
        if action == "retry":
            return self.retryable
        return True

    @property
    def retryable(self) -> bool:
        """The branch stopped on a 429, a 529, a 5xx or a network failure: it can go on from its last saved turn."""
        error = self.finished.error if self.finished is not None else None
        if error is None:
            return False
        return error.kind == "connection" or (error.kind == "status" and (
            error.status is None or error.status in (408, 409, 429) or error.status >= 500))

    def action_retry(self) -> None:
        """Go on from the last saved turn: the same branch file, a new runner (nothing saved is sent again)."""
        if not self.retryable:
            return
        lineage = self.branch.lineage
        lineage.setdefault("resumed", []).append({"time": now_iso(), "from": len(self.branch.run.messages),
                                                  "resolver": str(lineage.get("resolver") or "recorded")})
        self.finished = None
        self.refresh_bindings()
        self._say(Text("retrying from the last saved turn …", palette.NOTE))
        resolver = self.runner.resolver if self.runner is not None else make_resolver(
            "stop", self.branch.parent)
        self.runner = runner.Runner(self.branch, resolver, max_steps=self.max_steps)
        self.drive()

    def action_cancel(self) -> None:
        if self.runner is not None:
            self._say(Text("cancelling … (the turn in flight is dropped; saved turns stay)", palette.NOTE))
            self.runner.cancel()

    def action_back(self) -> None:
        self.dismiss()

    def action_open(self) -> None:
        try:
            run = store.load(self.saved_path)
        except LoadError as exc:
            self.notify(exc.line_text(), title="Cannot open", severity="error", markup=False)
            return
        self.post_message(OpenStepper(run, self.at))

    def action_compare(self) -> None:
        if self.branch.parent is None:
            self.notify("The original run is not available.", severity="error", markup=False)
            return
        self.post_message(OpenSideBySide(self.branch.parent, self.branch.run, self.at))

    def on_unmount(self) -> None:
        if self.runner is not None and self.finished is None:
            self.runner.cancel()
