"""The branch editor's keys: quick edits, closing, and sending (review the patch, save, run).

``EditorActions`` is a mixin for ``BranchEditorScreen`` (as ``StepperActions`` is for the
stepper), so the screen module stays about layout and checking. Quick edits act on the
part under the list's cursor and are offered only where they apply (``check_action``: a
tool_result can become an error, a tool_use gets a new input, a block can be deleted);
they are not offered while the JSON editor has the keys. Sending asks for the API key
first (nothing is saved without one), shows ``ReviewScreen`` (step limit and resolver), then
hashes the parent and saves the branch file in a worker (``runner.start``, the lineage naming
the chosen resolver) and opens ``BranchRunScreen``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.binding import Binding
from textual.message import Message

from tui.app.footer_fit import FittedFooter
from tui.app.screens.branch.review import ReviewChoice, ReviewScreen
from tui.app.screens.dialogs import PromptScreen
from tui.core import jsonio
from tui.core.branch import api, runner, store
from tui.core.errors import LoadError, UsageError
from tui.core.safe import one_line

if TYPE_CHECKING:  # pragma: no cover
    from tui.app.screens.branch.editor import BranchEditorScreen

EDITOR_BINDINGS = [
    Binding("ctrl+s", "review", "Send…", id="branch.send"),
    Binding("e", "tool_error", "Error", id="branch.tool_error"),
    Binding("d", "delete", "Delete", id="branch.delete"),
    Binding("i", "tool_input", "Input", id="branch.tool_input"),
    Binding("m", "model", "Model", id="branch.model"),
    Binding("u", "restore", "Undo", id="branch.restore"),
    Binding("escape", "close", "Close", id="branch.close"),
]


class BranchStarted(Message):
    """The branch file is saved (``branch``), or why it could not be (``error``)."""

    def __init__(self, branch: runner.Branch | None, error: str | None, choice: ReviewChoice) -> None:
        super().__init__()
        self.branch = branch
        self.error = error
        self.choice = choice


class EditorActions(FittedFooter):
    """Actions bound in ``EDITOR_BINDINGS``."""

    #: At 80 columns the quick edits do not all fit beside ``? Keys``: these leave the footer first.
    FOOTER_DROP = (("branch.model",), ("branch.restore",), ("branch.delete",))

    def check_action(self: BranchEditorScreen, action: str, parameters: tuple[object, ...]) -> bool | None:
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
        if action == "review":
            ready = self.verdict is not None and not self.pending and self.verdict.sendable
            return True if ready and not self._starting else None
        return True

    def on_descendant_focus(self: BranchEditorScreen) -> None:
        self.refresh_bindings()

    def action_tool_error(self: BranchEditorScreen) -> None:
        key = self.key

        def answer(value: str | None) -> None:
            if value is not None:
                self.session.tool_error(key, value)
                self._after_quick_edit()

        self.app.push_screen(PromptScreen("The tool's error message (the result becomes is_error: true)",
                                          value="the tool failed"), answer)

    def action_tool_input(self: BranchEditorScreen) -> None:
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

    def action_delete(self: BranchEditorScreen) -> None:
        self.session.delete(self.key)
        self._after_quick_edit()

    def action_restore(self: BranchEditorScreen) -> None:
        self.session.restore(self.key)
        self._after_quick_edit()

    def action_model(self: BranchEditorScreen) -> None:
        current = str(self.session.current(("params",)).get("model") or "")

        def answer(value: str | None) -> None:
            if value and value.strip() and value.strip() != current:
                self.session.model(value.strip())
                self._relabel(("params",))
                if self.key == ("params",):
                    self._load()
                self._schedule_check()

        self.app.push_screen(PromptScreen("Send the branch to model", value=current), answer)

    def action_close(self: BranchEditorScreen) -> None:
        if self.focused is self.editor:
            self.options.focus()
            return
        if self.session.edited_count():
            self.notify("Branch edits discarded.", timeout=3)
        self.dismiss()

    # -- sending -------------------------------------------------------------------------

    def action_review(self: BranchEditorScreen) -> None:
        self._commit()
        verdict = self.verdict
        if verdict is None or self.pending or not verdict.sendable:
            return
        try:
            api.api_key()
        except api.NoApiKey as exc:
            self.notify(str(exc), title="No API key", severity="error", markup=False, timeout=15)
            return
        doc = self.session.document()
        screen = ReviewScreen(parent=self.run.source.path, at=self.at,
                              dropped=len(self.run.messages) - self.at - 1, model=str(doc.get("model")),
                              patch=self.session.patch(), verdict=verdict, max_steps=runner.DEFAULT_MAX_STEPS,
                              saving_to=str(store.branches_root(self.data_dir)))

        def answer(choice: ReviewChoice | None) -> None:
            if choice is not None and not self._starting:
                self._starting = True
                self.refresh_bindings()
                self._start(self.session.patch(), choice)

        self.app.push_screen(screen, answer)

    @work(thread=True, exclusive=True, group="branch-start")
    def _start(self: BranchEditorScreen, patch: list, choice: ReviewChoice) -> None:
        """Hash the parent, apply and check the patch, save the branch file (the runner sends nothing yet)."""
        try:
            sha = store.sha256_of(self.run.source.path)
            branch = runner.start(self.run, self.at, patch, resolver=choice.resolver, parent_sha=sha,
                                  max_steps=choice.max_steps, data_dir=self.data_dir, sidecars=self.sidecars)
        except (UsageError, LoadError) as exc:
            self.post_message(BranchStarted(None, str(exc), choice))
        except OSError as exc:
            self.post_message(BranchStarted(None, f"cannot save the branch: {exc.strerror or exc}", choice))
        else:
            self.post_message(BranchStarted(branch, None, choice))

    def on_branch_started(self: BranchEditorScreen, message: BranchStarted) -> None:
        self._starting = False
        self.refresh_bindings()
        if message.branch is None:
            self.notify(message.error or "the branch could not start", title="Not sent", severity="error",
                        markup=False, timeout=10)
            return
        from tui.app.screens.branch.run import BranchRunScreen

        choice = message.choice
        self.app.push_screen(BranchRunScreen(message.branch, choice.max_steps, choice.built))
