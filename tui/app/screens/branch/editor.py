"""The branch editor: edit the request at index N, see the grammar check as you type, then send it.

The list (left, or top at 80 columns) holds every part that can be edited: the params
(model, max_tokens, temperature, thinking, ...), the system prompt, each tool's
description and schema, and every block of messages 0..N. The part under the cursor is
in the JSON editor beside it; quick edits act on it from the list (``e`` a tool_result
becomes an error, ``d`` deletes a block, ``i`` changes a tool_use input, ``m`` the model,
``u`` undoes). The edited request is checked a moment after each change, in a worker;
an edit that the API would reject cannot be sent, and the finding says where (index and
block). ``ctrl+s`` shows the RFC 6902 patch and what will be sent, then starts the branch
(``tui.core.branch.runner.start``) and opens the run screen. Quick edits are offered only
where they apply (``check_action``) and not while the JSON editor has the keys. Sending asks
for the API key first (nothing is saved without one), shows ``ReviewScreen`` (step limit and
resolver), then hashes the parent and saves the branch file in a worker (``runner.start``)
and opens ``BranchRunScreen``; with K > 1 samples chosen in the review it saves the experiment
(``tui.core.branch.experiment.create``) and opens ``ExperimentScreen``. The edits themselves are in
``tui.core.branch.edit``.
"""

from __future__ import annotations

import functools
import os

from rich.text import Text
from textual import getters, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static, TextArea

from tui.app import keys
from tui.app.app_messages import OpenBranchRun, OpenExperiment
from tui.app.footer_fit import FittedFooter
from tui.app.render import styles as palette
from tui.app.screens.branch.dialogs import finding_lines
from tui.app.screens.branch.review import ReviewChoice, ReviewScreen
from tui.app.screens.dialogs import PromptScreen
from tui.app.widgets.keys_footer import KeysFooter
from tui.app.widgets.target_list import TargetList
from tui.core import jsonio
from tui.core.branch import api, experiment as experiments, runner, store
from tui.core.branch import patch as patches
from tui.core.branch.edit import EditSession, Key, Verdict, verdict_for
from tui.core.errors import LoadError, UsageError
from tui.core.run import Run
from tui.core.safe import one_line

#: Seconds after the last key before the edited request is checked.
DEBOUNCE = 0.25


def json_language() -> str | None:
    """``"json"`` when tree-sitter's JSON grammar is installed (highlighting), else plain text.

    tree-sitter 0.26 crashes the process (a segfault) under Textual 8's TextArea, so with
    it installed the editor stays plain text rather than taking the app down.
    """
    from importlib.metadata import PackageNotFoundError, version
    from importlib.util import find_spec

    try:
        major, minor = (int(p) for p in version("tree-sitter").split(".")[:2])
    except (PackageNotFoundError, ValueError):  # not installed (or a version we cannot read): plain text
        return None
    if (major, minor) >= (0, 26):
        return None
    # The grammar TextArea loads for "json" (one of its ``available_languages``) is this package.
    return "json" if find_spec("tree_sitter_json") is not None else None


class BranchStarted(Message):
    """The branch file (or, with K samples, the experiment) is saved (``branch``), or why it could not be."""

    def __init__(self, branch: runner.Branch | experiments.Experiment | None, error: str | None,
                 choice: ReviewChoice) -> None:
        super().__init__()
        self.branch = branch
        self.error = error
        self.choice = choice


class BranchEditorScreen(FittedFooter, Screen):
    """Edit one part of the request for message N+1 (messages 0..N), then send it as a branch."""

    HELP = ("The branch editor. Pick a part of the request (params, system prompt, a tool, a block of any "
            "message up to N) and edit its JSON, or use a quick edit from the list. The edit is checked as "
            "you type; an edit the API would reject cannot be sent. ctrl+s reviews the patch and sends it.")
    BINDINGS = keys.EDITOR
    FOOTER_DROP = keys.EDITOR_FOOTER_DROP

    header = getters.query_one("#branch-header", Static)
    options = getters.query_one("#branch-targets", TargetList)
    editor = getters.query_one("#branch-text", TextArea)
    where = getters.query_one("#branch-where", Static)
    verdict_line = getters.query_one("#branch-verdict", Static)
    patch_line = getters.query_one("#branch-patch", Static)

    class Checked(Message):
        """The edited request was checked (in a worker); ``generation`` says which edit the verdict is for."""

        def __init__(self, generation: int, verdict: Verdict) -> None:
            super().__init__()
            self.generation = generation
            self.verdict = verdict

    def __init__(self, run: Run, at: int, sidecars: dict[str, str | None] | None = None,
                 data_dir: str | None = None) -> None:
        super().__init__()
        self.run = run
        self.at = at
        self.sidecars = {k: v for k, v in (sidecars or {}).items() if v}
        self.data_dir = data_dir
        self.session = EditSession(patches.base_document(run, at), at)
        self.key: Key = self.session.targets[0].key
        self.verdict: Verdict | None = None
        self.generation = 0
        self.checked_generation = -1
        self.pending = True  # the verdict shown is out of date (a change not yet checked)
        self._dirty = False  # the editor holds text not yet taken into the session
        self._timer = None
        self._starting = False
        self.endpoint_problem: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="branch-header")
        with Horizontal(id="branch-panes"):
            yield TargetList(len(self.session.targets), self._label, id="branch-targets")
            with Vertical(id="branch-edit"):
                yield Static(id="branch-where")
                language = json_language()
                yield TextArea.code_editor(language=language, theme="css", soft_wrap=True, id="branch-text")
        yield Static(id="branch-verdict")
        yield Static(id="branch-patch")
        yield KeysFooter()

    def on_mount(self) -> None:
        text = Text()
        text.append(f"branch at message {self.at}", "bold")
        text.append(f" · {one_line(os.path.basename(self.run.source.path))} · edit the request for message "
                    f"{self.at + 1}; messages after {self.at} are dropped", palette.DIM)
        text.no_wrap, text.overflow = True, "ellipsis"
        self.header.update(text)
        first = next((k for k, t in enumerate(self.session.targets) if t.key[0] in ("block", "content")
                      and t.key[1] == self.at), 0)
        self.key = self.session.targets[first].key
        self.options.focus()
        self._load()
        self.call_after_refresh(self.options.move_to, first)
        self._schedule_check()

    # -- the list ------------------------------------------------------------------------

    def _label(self, k: int) -> Text:
        target = self.session.targets[k]
        text = Text()
        text.append("✎ " if self.session.edited(target.key) else "  ", palette.WARNING)
        text.append(target.label, "strike" if self.session.deleted(target.key) else "")
        text.no_wrap, text.overflow = True, "ellipsis"
        return text

    def _relabel(self, key: Key) -> None:
        self.options.refresh_row(self.session.row[key])

    @on(TargetList.Highlighted)
    def _highlighted(self, event: TargetList.Highlighted) -> None:
        self._commit()
        self.key = self.session.targets[event.index].key
        self._load()

    @on(TargetList.Selected)
    def _selected(self, event: TargetList.Selected) -> None:
        if not self.session.deleted(self.key):
            self.editor.focus()

    def _load(self) -> None:
        """Put the part under the cursor in the editor."""
        target = self.session.by_key[self.key]
        self._dirty = False
        self.editor.load_text(self.session.text(self.key))
        self.editor.read_only = self.session.deleted(self.key)
        text = Text()
        text.append(target.pointer, "bold")
        if self.session.deleted(self.key):
            text.append(" · deleted (u restores it)", palette.WARNING)
        elif self.session.edited(self.key):
            text.append(" · edited (u undoes)", palette.WARNING)
        else:
            text.append(" · as in the run · enter edits it", palette.DIM)
        self.where.update(text)
        self.refresh_bindings()

    # -- editing -------------------------------------------------------------------------

    @on(TextArea.Changed, "#branch-text")
    def _changed(self, _: TextArea.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.editor.text == self.session.text(self.key):  # loaded, or typed back to what it was
            self._dirty = False
            self.pending = self.generation != self.checked_generation
        else:
            self._dirty = True
            self.pending = True  # nothing can be sent until this text is checked
            self._timer = self.set_timer(DEBOUNCE, self._commit)
        self._describe()
        self.refresh_bindings()

    def _commit(self) -> None:
        """Take the editor's text as the value of the current part (a draft if it does not parse)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if not self._dirty or self.session.deleted(self.key):
            return
        self._dirty = False
        text = self.editor.text
        if text == self.session.text(self.key):
            return
        self.session.set_text(self.key, text)
        self._relabel(self.key)
        self._schedule_check()

    def _after_quick_edit(self) -> None:
        self._relabel(self.key)
        self._load()
        self._schedule_check()

    def _schedule_check(self) -> None:
        self.generation += 1
        self.pending = True
        doc, problems = self.session.snapshot()
        self._check(self.generation, doc, problems)
        self._probe()
        self._describe()

    @work(thread=True, exclusive=True, group="branch-check")
    def _check(self, generation: int, doc: dict, problems: list[str]) -> None:
        self.post_message(self.Checked(generation, verdict_for(doc, problems)))

    @work(thread=True, exclusive=True, group="branch-endpoint")
    def _probe(self) -> None:
        """Once, as the editor opens: whether ANTHROPIC_BASE_URL answers at all (nothing is sent)."""
        self.post_message(self.Endpoint(api.unreachable()))

    class Endpoint(Message):
        """Why ``ANTHROPIC_BASE_URL`` cannot be reached (None: it can, or it is the default)."""

        def __init__(self, problem: str | None) -> None:
            super().__init__()
            self.problem = problem

    def on_branch_editor_screen_endpoint(self, message: Endpoint) -> None:
        self.endpoint_problem = message.problem
        self._describe()

    def _environment(self) -> tuple[str, str] | None:
        """(what is wrong, how to fix it) with sending from here, before any edit is built."""
        try:
            api.api_key()
        except api.NoApiKey:
            return ("ANTHROPIC_API_KEY is not set: this edit can be checked, not sent",
                    "k types a key (memory only); your edit is kept")
        if self.endpoint_problem:
            return self.endpoint_problem, "sending will fail until it answers"
        return None

    def on_branch_editor_screen_checked(self, message: Checked) -> None:
        if message.generation == self.generation:
            self.verdict = message.verdict
            self.checked_generation = message.generation
            self.pending = self._dirty
            self._describe()
            self.refresh_bindings()

    def _describe(self) -> None:
        """The verdict line (findings with index and block) and the patch line."""
        verdict = self.verdict
        text = Text()
        blocked = self._environment()
        if verdict is None or self.pending:
            text.append("checking the edited request …", palette.NOTE)
        elif verdict.sendable:
            text.append("✓ ", "bold green")
            warnings = len(verdict.findings)
            text.append("no findings" if not warnings else f"{warnings} warning{'s' * (warnings != 1)}, no errors")
            if blocked is None:
                text.append(": this request can be sent (ctrl+s)\n", palette.DIM)
            else:
                text.append(": the API would accept this request\n", palette.DIM)
            finding_lines(Verdict(verdict.findings), text)
        else:
            text.append("cannot be sent: ", palette.ERROR)
            text.append("the API would reject this request\n" if verdict.errors else "fix this first\n")
            finding_lines(verdict, text)
        if blocked is not None:
            text.rstrip()
            text.append("\n⚠ ", palette.WARNING)
            text.append(one_line(blocked[0]), palette.WARNING)
            text.append(f" · {blocked[1]}", palette.DIM)
        text.rstrip()
        self.verdict_line.update(text)
        ops = len(self.session.patch()) if not self.session.drafts else None
        patch = Text()
        patch.append("patch ", palette.DIM)
        patch.append("(not valid JSON yet)" if ops is None else f"{ops} op{'s' * (ops != 1)}", "bold")
        model = self.session.current(("params",)).get("model")
        patch.append(" · model ", palette.DIM)
        patch.append(one_line(str(model)), "bold")
        edited = self.session.edited_count()
        patch.append(f" · {edited} part{'s' * (edited != 1)} edited", palette.DIM)
        patch.no_wrap, patch.overflow = True, "ellipsis"
        self.patch_line.update(patch)

    # -- keys (``keys.EDITOR``): quick edits, closing ---------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        in_editor = self.focused is self.editor
        block = self.session.current(self.key) if self.key[0] == "block" else None
        kind = block.get("type") if isinstance(block, dict) else None
        if action == "tool_error":
            return not in_editor and kind == "tool_result"
        if action == "tool_input":
            return not in_editor and kind == "tool_use"
        if action == "delete":
            return not in_editor and self.key[0] == "block" and not self.session.deleted(self.key)
        if action == "model":
            return not in_editor
        if action == "restore":
            return not in_editor and self.session.edited(self.key)
        if action == "api_key":
            return not in_editor and not os.environ.get(api.KEY_VARIABLE, "").strip()
        if action == "review":
            ready = self.verdict is not None and not self.pending and self.verdict.sendable
            return True if ready and not self._starting else None
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def action_tool_error(self) -> None:
        key = self.key

        def answer(value: str | None) -> None:
            if value is not None:
                self.session.tool_error(key, value)
                self._after_quick_edit()

        self.app.push_screen(PromptScreen("The tool's error message (the result becomes is_error: true)",
                                          value="the tool failed"), answer)

    def action_tool_input(self) -> None:
        key = self.key
        block = self.session.current(key)

        def answer(value: str | None) -> None:
            if value is None:
                return
            try:
                parsed = jsonio.loads(value, "input")
            except LoadError as exc:
                self.notify(f"Not JSON: {exc.what}", severity="error", markup=False)
                return
            self.session.tool_input(key, parsed)
            self._after_quick_edit()

        self.app.push_screen(PromptScreen(f"New input for {one_line(str(block.get('name')))} (JSON)",
                                          value=jsonio.dumps(block.get("input")).decode("utf-8", "replace")), answer)

    def action_delete(self) -> None:
        self.session.delete(self.key)
        self._after_quick_edit()

    def action_restore(self) -> None:
        self.session.restore(self.key)
        self._after_quick_edit()

    def action_model(self) -> None:
        current = str(self.session.current(("params",)).get("model") or "")

        def answer(value: str | None) -> None:
            if value and value.strip() and value.strip() != current:
                self.session.model(value.strip())
                self._relabel(("params",))
                if self.key == ("params",):
                    self._load()
                self._schedule_check()

        self.app.push_screen(PromptScreen("Send the branch to model", value=current), answer)

    def action_api_key(self, then_review: bool = False) -> None:
        """Ask for the key (shown as dots) and keep it in this process's environment only: it is
        never written anywhere; the edit stays as it is."""

        def answer(value: str | None) -> None:
            if value and value.strip():
                os.environ[api.KEY_VARIABLE] = value.strip()
                self._describe()
                self.refresh_bindings()
                if then_review:
                    self.action_review()
            else:
                self.notify(api.KEY_HELP, title="No API key", severity="error", markup=False, timeout=15)

        self.app.push_screen(PromptScreen("ANTHROPIC_API_KEY is not set: the key to send this branch with "
                                          "(kept in memory for this session, never saved)", password=True), answer)

    def action_close(self) -> None:
        if self.focused is self.editor:
            self.options.focus()
            return
        if self.session.edited_count():
            self.notify("Branch edits discarded.", timeout=3)
        self.dismiss()

    def action_review(self) -> None:
        self._commit()
        verdict = self.verdict
        if verdict is None or self.pending or not verdict.sendable:
            return
        try:
            api.api_key()
        except api.NoApiKey:
            self.action_api_key(then_review=True)
            return
        doc = self.session.document()
        screen = ReviewScreen(parent=self.run.source.path, at=self.at,
                              dropped=len(self.run.messages) - self.at - 1, model=str(doc.get("model")),
                              patch=self.session.patch(), verdict=verdict, max_steps=runner.DEFAULT_MAX_STEPS,
                              saving_to=str(store.branches_root(self.data_dir)), temperature=doc.get("temperature"),
                              estimate=functools.partial(experiments.request_estimate, self.run, self.at,
                                                         self.session.patch(), control_patch(self.session.patch()),
                                                         1, True))

        def answer(choice: ReviewChoice | None) -> None:
            if choice is not None and not self._starting:
                self._starting = True
                self.refresh_bindings()
                self._start(self.session.patch(), choice)

        self.app.push_screen(screen, answer)

    @work(thread=True, exclusive=True, group="branch-start")
    def _start(self, patch: list, choice: ReviewChoice) -> None:
        """Hash the parent, apply and check the patch, save the branch file (the runner sends nothing yet);
        with K > 1 samples, the experiment file and every sample's branch file (``experiment.create``)."""
        try:
            sha = store.sha256_of(self.run.source.path)
            if choice.samples > 1:
                made = experiments.create(self.run, self.at, patch, samples=choice.samples, control=choice.control,
                                          resolver=choice.resolver, parent_sha=sha, max_steps=choice.max_steps,
                                          control_patch=control_patch(patch), event=choice.event,
                                          data_dir=self.data_dir, sidecars=self.sidecars)
            else:
                made = runner.start(self.run, self.at, patch, resolver=choice.resolver, parent_sha=sha,
                                    max_steps=choice.max_steps, data_dir=self.data_dir, sidecars=self.sidecars)
        except (UsageError, LoadError) as exc:
            self.post_message(BranchStarted(None, str(exc), choice))
        except OSError as exc:
            self.post_message(BranchStarted(None, f"cannot save the branch: {exc.strerror or exc}", choice))
        else:
            self.post_message(BranchStarted(made, None, choice))

    def on_branch_started(self, message: BranchStarted) -> None:
        self._starting = False
        self.refresh_bindings()
        if message.branch is None:
            self.notify(message.error or "the branch could not start", title="Not sent", severity="error",
                        markup=False, timeout=10)
            return
        choice = message.choice
        if isinstance(message.branch, experiments.Experiment):
            self.post_message(OpenExperiment(message.branch))
            return
        self.post_message(OpenBranchRun(message.branch, choice.max_steps, choice.built))


def control_patch(patch: list) -> list:
    """The control arm's patch: the edit's model change only, so the arms differ by the edit alone."""
    return [op for op in patch if isinstance(op, dict) and op.get("path") == "/model"]
