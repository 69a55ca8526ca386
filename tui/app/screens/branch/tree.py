"""A run's branch tree: the branches saved for the run file, and under each its own branches.

Listed by ``tui.core.branch.store.list_branches`` (in a worker: it hashes each file) from
the user data dir, the run file's folder and the working directory, so a branch saved with
``-o`` beside the run is listed too. Each row: the branch index, why it stopped, its messages, model,
resolver, when it was made and its file. Enter shows the branch beside the run it was
made from (its parent: this run, or the branch above it) from the branch index; ``o``
opens it in the stepper (a branch file is a native run file).
"""

from __future__ import annotations

import os

from rich.text import Text
from textual import getters, work
from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.app import keys
from tui.app.app_messages import OpenSideBySide, OpenStepper
from tui.app.render import styles as palette
from tui.app.screens.dialogs import PromptScreen
from tui.app.widgets.keys_footer import KeysFooter
from tui.core.branch import patch as patches, store
from tui.core.errors import LoadError
from tui.core.run import Run
from tui.core.safe import one_line


def flatten(entries: list[store.BranchEntry], depth: int = 0, parent: str | None = None) -> list[tuple[int, store.BranchEntry, str | None]]:
    """(depth, entry, parent path or None for the run itself), depth first."""
    rows = []
    for entry in entries:
        rows.append((depth, entry, parent))
        rows += flatten(entry.children, depth + 1, entry.path)
    return rows


def entry_text(depth: int, entry: store.BranchEntry) -> Text:
    """Three lines: index, status, size, model, resolver; the patch in one line; when it was made and its file."""
    lineage = entry.lineage
    indent = "  " * depth + ("└ " if depth else "")
    text = Text()
    text.append(indent, palette.DIM)
    text.append(f"at {entry.at}", "bold")
    text.append(f" · {one_line(entry.status)}", palette.WARNING if entry.status in ("api_error", "cancelled") else "")
    text.append(f" · {entry.messages} messages · {one_line(str(lineage.get('model')))}"
                f" · {one_line(str(lineage.get('resolver')))}", palette.DIM)
    text.append("\n" + " " * len(indent) + "  edit: ", palette.DIM)
    text.append(one_line(patches.describe(lineage.get("patch"))))
    created = one_line(str(lineage.get("created", ""))[:19].replace("T", " "))
    text.append("\n" + " " * len(indent) + f"  {created} · ", palette.DIM)
    text.append(one_line(os.path.basename(entry.path)))
    return text


#: Why a branch stopped that ``h`` hides: it failed or was cancelled.
FAILED = ("api_error", "cancelled", "error")


class BranchTreeScreen(Screen):
    """The branches of one run file."""

    HELP = ("The branches made from this run (and, indented, the branches made from them), each with its edit "
            "in one line. Enter shows the highlighted branch beside the run it was made from; o opens it in the "
            "stepper; h hides (or shows again) the branches that failed or were cancelled; d deletes the "
            "highlighted branch file, after asking; Escape goes back.")
    BINDINGS = keys.TREE
    title_line = getters.query_one("#tree-title", Static)
    options = getters.query_one("#tree-options", OptionList)

    class Listed(Message):
        """The run's branches were found (in a worker): one row each."""

        def __init__(self, rows: list) -> None:
            super().__init__()
            self.rows = rows

    class Loaded(Message):
        """A branch (and its parent run) was loaded to open, or why it could not be (``error``)."""

        def __init__(self, parent: Run | None, branch: Run | None, at: int, error: str | None, open_only: bool) -> None:
            super().__init__()
            self.parent, self.branch, self.at, self.error, self.open_only = parent, branch, at, error, open_only

    def __init__(self, run: Run, data_dir: str | None = None) -> None:
        super().__init__()
        self.run = run
        self.data_dir = data_dir
        self.rows: list[tuple[int, store.BranchEntry, str | None]] = []
        self.all_rows: list[tuple[int, store.BranchEntry, str | None]] = []
        self.hide_failed = False

    def compose(self) -> ComposeResult:
        yield Static(Text(f"branches of {one_line(os.path.basename(self.run.source.path))} · looking …", "bold"),
                     id="tree-title")
        yield OptionList(id="tree-options")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.options.focus()
        self._list()

    @work(thread=True, exclusive=True, group="tree")
    def _list(self) -> None:
        self.post_message(self.Listed(flatten(store.list_branches(self.run.source.path, self.data_dir))))

    def on_branch_tree_screen_listed(self, message: Listed) -> None:
        self.all_rows = message.rows
        self._show()

    def _show(self) -> None:
        self.rows = [row for row in self.all_rows if not (self.hide_failed and row[1].status in FAILED)]
        hidden = len(self.all_rows) - len(self.rows)
        name = one_line(os.path.basename(self.run.source.path))
        top = sum(1 for depth, _, _ in self.rows if depth == 0)
        title = Text()
        title.append(f"branches of {name}", "bold")
        if hidden:  # first: the title is cut at the terminal's width
            title.append(f" · {hidden} failed or cancelled hidden (h shows)", palette.WARNING)
        title.append(f" · {top} made from it, {len(self.rows) - top} from its branches", palette.DIM)
        title.append(f" · looked in {one_line(str(store.branches_root(self.data_dir)))}, the run's folder and "
                     "the working folder", palette.DIM)
        title.no_wrap, title.overflow = True, "ellipsis"
        self.title_line.update(title)
        self.options.clear_options()
        if not self.rows:
            empty = (f"All {hidden} branches failed or were cancelled: h shows them." if hidden else
                     "No branches of this run yet: press b in the stepper at the message you want to change.")
            self.options.add_option(Option(Text(empty, palette.NOTE), disabled=True))
        else:
            self.options.add_options([Option(entry_text(depth, entry)) for depth, entry, _ in self.rows])
            self.options.highlighted = 0
        self.refresh_bindings()

    # -- opening -------------------------------------------------------------------------

    def _chosen(self) -> tuple[int, store.BranchEntry, str | None] | None:
        k = self.options.highlighted
        return self.rows[k] if k is not None and 0 <= k < len(self.rows) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_compare()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("compare", "open", "delete"):
            return bool(self.rows)
        return True

    def action_hide(self) -> None:
        """Hide the branches that failed or were cancelled (or show them again)."""
        self.hide_failed = not self.hide_failed
        self._show()

    def action_delete(self) -> None:
        """Delete the highlighted branch file, after asking (its own branches stay where they are)."""
        chosen = self._chosen()
        if chosen is None:
            return
        path = chosen[1].path

        def answer(value: str | None) -> None:
            if value is None or value.strip().lower() not in ("y", "yes"):
                self.notify("Kept.", timeout=3)
                return
            try:
                os.remove(path)
            except OSError as exc:
                self.notify(f"cannot delete {path}: {exc.strerror or exc}", title="Not deleted", severity="error",
                            markup=False)
                return
            self.notify(f"Deleted {os.path.basename(path)}.", markup=False, timeout=4)
            self._list()

        self.app.push_screen(PromptScreen(f"Delete the branch file {one_line(os.path.basename(path))}? "
                                          "Type y and Enter to delete it; Escape keeps it"), answer)

    def action_compare(self) -> None:
        chosen = self._chosen()
        if chosen is not None:
            self._load(chosen[1].path, chosen[2], chosen[1].at, False)

    def action_open(self) -> None:
        chosen = self._chosen()
        if chosen is not None:
            self._load(chosen[1].path, None, chosen[1].at, True)

    @work(thread=True, exclusive=True, group="tree-load")
    def _load(self, path: str, parent_path: str | None, at: int, open_only: bool) -> None:
        try:
            branch = store.load(path)
            parent = self.run if open_only or parent_path is None else store.load(parent_path)
        except LoadError as exc:
            self.post_message(self.Loaded(None, None, at, exc.line_text(), open_only))
            return
        self.post_message(self.Loaded(parent, branch, at, None, open_only))

    def on_branch_tree_screen_loaded(self, message: Loaded) -> None:
        if message.error is not None or message.branch is None:
            self.notify(message.error or "cannot open", title="Cannot open", severity="error", markup=False)
            return
        if message.open_only:
            self.post_message(OpenStepper(message.branch, message.at))
        else:
            self.post_message(OpenSideBySide(message.parent, message.branch, message.at))

    def action_back(self) -> None:
        self.dismiss()
