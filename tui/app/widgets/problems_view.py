"""The Problems view: every finding of the grammar check (and what the loader noticed); Enter jumps.

An ``OptionList`` (virtualised), one option per finding: its mark and severity, where
(``INDEX[.BLOCK]``), the rule, the API's message and the likely cause. Enter posts
``ProblemsView.Jump`` with the index; the screen moves the cursor there.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.app.render import styles as palette
from tui.app.app_messages import IndexMessage
from tui.app.render.lines import wrap_offsets
from tui.core.view.run_view import RunView
from tui.app.render.traceparts import value_text
from tui.app.widgets.cursor_rows import vim_bindings
from tui.core.safe import one_line


def hang(prompt: Text, width: int) -> Text:
    """``prompt`` with each of its lines wrapped at ``width`` under its own text (two columns in), where the
    option list would wrap them to the margin, under the severity marks."""
    if width < 20 or all(line.cell_len <= width for line in prompt.split("\n")):
        return prompt
    out = Text()
    for n, line in enumerate(prompt.split("\n")):
        if n:
            out.append("\n")
        if line.cell_len <= width:
            out.append_text(line)
            continue
        plain = line.plain
        indent = len(plain) - len(plain.lstrip(" ")) + 2
        cut = wrap_offsets(plain, width, 1)[0][1]  # the first row takes the whole width
        first = line[:cut]
        first.rstrip()
        out.append_text(first)
        rest = line[cut:]
        if rest.plain.startswith(" "):
            rest = rest[1:]
        spans = wrap_offsets(rest.plain, width - indent)
        for piece in rest.divide([end for _, end in spans[:-1]]):
            piece = piece.copy()
            piece.rstrip()
            if piece.plain.startswith(" "):
                piece = piece[1:]
            out.append("\n" + " " * indent)
            out.append_text(piece)
    return out


class ProblemsView(OptionList):
    """Findings, sorted by index."""

    HELP = ("Every finding of the grammar check: severity, index (and block), rule, the API's own words and a "
            "likely cause; then the provenance warnings (a tool input that no earlier message, system prompt "
            "or tool schema holds: the model produced it); then what the loader noticed. Enter (or a click) "
            "jumps to the index.")
    BINDINGS = vim_bindings("problems")

    class Jump(IndexMessage):
        """Go to message ``index``."""

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self._targets: dict[str, int] = {}
        self.shown = False
        self._filled_width = 0

    def _text_width(self) -> int:
        """The columns an option's text gets: the view less its scrollbar and the options' padding."""
        return self.size.width - self.styles.gutter.width - self.styles.scrollbar_size_vertical - 2

    def on_resize(self) -> None:
        if self.shown and self._text_width() != self._filled_width:
            highlighted = self.highlighted
            self.fill()
            if highlighted is not None and highlighted < self.option_count:
                self.highlighted = highlighted

    def fill(self) -> None:
        """Attributes down: the findings arrived (or changed)."""
        view = self.view
        options: list[Option | None] = []
        self._targets.clear()
        if view.findings is None:
            options.append(Option(Text("checking the run …", palette.NOTE), disabled=True))
        elif not view.findings:
            options.append(Option(Text("No findings: every request in this run obeys the grammar the API checks.",
                                       palette.NOTE), disabled=True))
        for k, finding in enumerate(view.findings or []):
            mark, style = palette.MARK.get(finding.severity, ("•", ""))
            where = finding.where() or "request"
            prompt = Text.assemble((mark, style), " ", (finding.severity.ljust(7), style), " ",
                                   (where.ljust(6), "bold"), " ", (one_line(finding.rule), palette.DIM), "\n  ",
                                   one_line(finding.message))
            if finding.cause:
                prompt.append_text(Text.assemble("\n  ", ("likely cause: ", palette.DIM), one_line(finding.cause)))
            options.append(self._option(prompt, f"finding-{k}", finding.index))
        options += self._provenance_options()
        warnings = view.run.warnings
        if warnings:
            options.append(None)
            for k, warning in enumerate(warnings):
                where = warning.where()
                prompt = Text.assemble(("• loader ", palette.DIM), (where + " " if where else "", "bold"),
                                       one_line(warning.text))
                options.append(self._option(prompt, f"warning-{k}", warning.index))
        width = self._filled_width = self._text_width()
        self.set_options([Option(hang(o.prompt, width), id=o.id, disabled=o.disabled)
                          if isinstance(o, Option) and isinstance(o.prompt, Text) else o for o in options])
        self.shown = True

    def _provenance_options(self) -> list[Option | None]:
        """Provenance warnings, apart from the grammar's and named as such."""
        unsourced = self.view.analyses.unsourced
        if unsourced is None:
            return [None, Option(Text("provenance: tracing the tool inputs of every turn …", palette.NOTE),
                                 disabled=True)]
        if not unsourced:
            return []
        mark, style = palette.MARK["warning"]
        options: list[Option | None] = [None, Option(Text(
            f"Provenance warnings ({len(unsourced)}): tool inputs that no earlier message, the system prompt or a "
            "tool schema holds", palette.HEADING), disabled=True)]
        for k, (i, value) in enumerate(unsourced):
            prompt = Text.assemble((mark, style), " ", ("warning".ljust(7), style), " ",
                                   (f"{i}.{value.block}".ljust(6), "bold"), " ",
                                   ("provenance warning: value not in the prefix", palette.DIM), "\n  ",
                                   f"{one_line(str(value.name))} {one_line(value.path)} = ",
                                   value_text(value.value), ": no earlier message, the system prompt or a tool "
                                   "schema holds it, so the model produced it")
            options.append(self._option(prompt, f"provenance-{k}", i))
        return options

    def _option(self, prompt: Text, option_id: str, index: int | None) -> Option:
        """One entry; Enter on it jumps to message ``index`` (when it is about one)."""
        if index is not None:
            self._targets[option_id] = index
        return Option(prompt, id=option_id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = self._targets.get(event.option.id or "")
        if index is None:
            self.notify("This finding is about the whole request, not one message.", markup=False)
            return
        self.post_message(self.Jump(index))
