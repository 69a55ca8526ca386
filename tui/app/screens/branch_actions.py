"""The stepper's branch keys: ``b`` edits the request at index N and re-runs the model, ``B`` lists the branches.

A mixin for ``StepperScreen`` (like ``StepperActions``), so the stepper's own module only
adds it to its bases and its bindings. The branch screens are imported when first used.
Branch files go under the user data dir (``tui.core.branch.store.branches_root``); the
app's ``branch_data_dir`` attribute, when set, replaces it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from textual.binding import Binding

from tui.core.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from tui.app.screens.stepper import StepperScreen


# Both in the footer: ``b`` always (branching is the what-if feature), ``B`` while there is
# room (``STEPPER_FOOTER_DROP`` in actions.py says what leaves a narrow footer first).
BRANCH_BINDINGS = [
    Binding("b", "branch", "Branch", id="stepper.branch"),
    Binding("B", "branches", "Branches", id="stepper.branches"),
]


class BranchActions:
    """Actions bound in ``BRANCH_BINDINGS``."""

    def _branchable(self: StepperScreen) -> bool:
        path = self.view.run.source.path
        if not path or not os.path.isfile(path):
            self.notify("This run has no file on disk to branch from.", severity="error", markup=False)
            return False
        return True

    def action_branch(self: StepperScreen) -> None:
        from tui.app.screens.branch.editor import BranchEditorScreen

        if not self._branchable():
            return
        at = min(self.index, self.view.total - 1)
        if at < 0:
            self.notify("The run has no messages to branch from.", severity="error", markup=False)
            return
        options = getattr(self.app, "load_options", {}) or {}
        try:
            screen = BranchEditorScreen(self.view.run, at, {"system": options.get("system"),
                                                             "tools": options.get("tools")},
                                        data_dir=getattr(self.app, "branch_data_dir", None))
        except UsageError as exc:
            self.notify(str(exc), title="Cannot branch here", severity="error", markup=False)
            return
        self.app.push_screen(screen)

    def action_branches(self: StepperScreen) -> None:
        from tui.app.screens.branch.tree import BranchTreeScreen

        if self._branchable():
            self.app.push_screen(BranchTreeScreen(self.view.run, getattr(self.app, "branch_data_dir", None)))
