"""The diff screen: two runs side by side from the first index where they diverge.

A header (both files, where they diverge, how many changes), the two runs message beside
message from the divergence on (``tui.app.render.diffparts``; A above B below 110 columns, ``s``
switches), and the list of changes with their kinds (``tui.core.diff``): Enter on one shows
it in the runs, ``n``/``p`` step from change to change. The diff is computed in a worker, so
two long runs never block the keys. Opened from the stepper (``D``, or the command palette:
"Diff against a file…") or from the command line (``turnscope A --diff B``,
``turnscope diff A B --tui``); Escape goes back.
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
from tui.app.render import styles as palette
from tui.app.render.diffparts import SIDE
from tui.app.widgets.diff_view import DiffView
from tui.app.widgets.keys_footer import KeysFooter
from tui.core.diff import Change, RunDiff, aligned, diff_runs
from tui.core.paths import short_path
from tui.core.run import Run
from tui.core.safe import one_line


class ChangesList(OptionList):
    """The changes, one per line, with their kinds; Enter shows one in the runs above."""

    HELP = ("Every change from the first divergence on: [index.block] kind path: before -> after "
            "([request] for the system prompt, tools and params). Enter shows it in the runs above.")
    BINDINGS = keys.CHANGES


class DiffScreen(Screen):
    """Two runs side by side from where they diverge."""

    HELP = ("The diff of two runs from their first divergence: the runs message beside message (A | B, or "
            "A above B when narrow) and the list of changes. tab moves between them.")
    BINDINGS = keys.DIFF

    header = getters.query_one("#diff-header", Static)
    diff_view = getters.query_one("#diff-view", DiffView)
    changes = getters.query_one("#diff-changes", ChangesList)

    class Computed(Message):
        """The worker compared the runs."""

        def __init__(self, result: RunDiff, pairs: list, by_pair: dict[int, list[Change]],
                     change_pairs: list[int | None]) -> None:
            super().__init__()
            self.result, self.pairs, self.by_pair, self.change_pairs = result, pairs, by_pair, change_pairs

    def __init__(self, a: Run, b: Run, path_a: str, path_b: str) -> None:
        super().__init__()
        self.a, self.b = a, b
        self.path_a, self.path_b = path_a, path_b
        self.result: RunDiff | None = None
        self.change_pairs: list[int | None] = []

    def compose(self) -> ComposeResult:
        yield Static(id="diff-header")
        yield DiffView(id="diff-view")
        yield ChangesList(id="diff-changes")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.header.update(self._header())
        self.changes.set_options([Option(Text("comparing the two runs …", palette.NOTE), disabled=True)])
        self.diff_view.focus()
        self._compare()

    def _header(self) -> Text:
        """Where they diverge first (the point of the screen), then the two files: by their paths when
        they fit, else by their names, so B's name is not the part cut off."""
        width = max(self.app.size.width - 2, 20)  # the header's padding
        a, b = short_path(self.path_a), short_path(self.path_b)
        names = os.path.basename(a) or a, os.path.basename(b) or b
        text = Text()
        short = names if names[0] != names[1] else (a, b)
        for (pa, pb), compact in (((a, b), False), (short, False), (short, True)):
            text = self._header_with(pa, pb, compact)
            if text.cell_len <= width:
                return text
        text.truncate(width, overflow="ellipsis")
        return text

    def _header_with(self, path_a: str, path_b: str, compact: bool) -> Text:
        text = Text("diff", "bold")
        result = self.result
        if result is None:
            text.append(" · comparing …", "italic")
        elif result.same:
            text.append(" · the runs are the same", "bold")
        else:
            where = "none in the messages" if result.first_divergence is None else f"message {result.first_divergence}"
            text.append(f" · {'from' if compact else 'first divergence:'} {where} · {len(result.changes)} change"
                        f"{'s' * (len(result.changes) != 1)}", "bold")
        count_a, count_b = ("", "") if compact else (f" ({len(self.a.messages)})", f" ({len(self.b.messages)})")
        text.append_text(Text.assemble(" · A ", (one_line(path_a), "bold"), f"{count_a} · B ",
                                       (one_line(path_b), "bold"), count_b))
        text.no_wrap, text.overflow = True, "ellipsis"
        return text

    def on_resize(self) -> None:
        self.header.update(self._header())

    @work(thread=True, exclusive=True, group="diff")
    def _compare(self) -> None:
        result = diff_runs(self.a, self.b)
        pairs = list(aligned(self.a.messages, self.b.messages, result.first_divergence))
        of_a = {i: n for n, (i, _, _) in enumerate(pairs) if i is not None}
        of_b = {k: n for n, (_, k, _) in enumerate(pairs) if k is not None}
        by_pair: dict[int, list[Change]] = {}
        change_pairs: list[int | None] = []
        for c in result.changes:
            n = None if c.index is None else (of_b.get(c.index) if c.kind == "message_added" else of_a.get(c.index))
            change_pairs.append(n)
            if n is not None:
                by_pair.setdefault(n, []).append(c)
        self.post_message(self.Computed(result, pairs, by_pair, change_pairs))

    def on_diff_screen_computed(self, message: Computed) -> None:
        self.result, self.change_pairs = message.result, message.change_pairs
        self.header.update(self._header())
        self.diff_view.set_diff(self.a, self.b, message.result, message.pairs, message.by_pair)
        if message.result.same:
            options = [Option(Text("No changes: same messages, system prompt, tools and params.", palette.NOTE),
                              disabled=True)]
        else:
            options = [Option(Text(c.describe(60)), id=f"change-{k}") for k, c in enumerate(message.result.changes)]
        self.changes.set_options(options)
        count = len(message.result.changes)
        self.changes.border_title = f"{count} change{'s' * (count != 1)} · enter: show it above · tab: the runs"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id.startswith("change-"):
            self.diff_view.go_to_pair(self.change_pairs[int(option_id[7:])])
            self.diff_view.focus()

    def action_change(self, step: int) -> None:
        if self.diff_view.step_change(step) is None:
            self.notify("No later change." if step > 0 else "No earlier change.", timeout=2)

    def action_switch(self) -> None:
        mode = self.diff_view.switch_layout()
        self.notify("A beside B" if mode == SIDE else "A above B", timeout=2)

    def action_close(self) -> None:
        self.dismiss()
