"""The Problems view: every finding of the grammar check (and what the loader noticed); Enter jumps.

An ``OptionList`` (virtualised), one option per finding: its mark and severity, where
(``INDEX[.BLOCK]``), the rule, the API's message and the likely cause. Enter posts
``ProblemsView.Jump`` with the index; the screen moves the cursor there.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import var
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.app import keys
from tui.app.app_messages import IndexMessage
from tui.app.render import styles as palette
from tui.app.render.lines import wrap_offsets
from tui.app.render.traceparts import value_text
from tui.app.run_state import RunState
from tui.core.provenance import not_found
from tui.core.safe import one_line
from tui.core.view.run_view import RunView


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


#: The severity filter, cycled with ``v``: what each shows (notes are below warnings, hidden at first).
SEVERITIES = (("errors and warnings", ("error", "warning")), ("everything", ("error", "warning", "note")),
              ("errors", ("error",)), ("warnings", ("warning",)), ("provenance notes", ("note",)))
#: The rule a provenance note is filed under in the rule filter.
PROVENANCE_RULE = "provenance"


class ProblemsView(OptionList):
    """Findings, sorted by index: errors and warnings first; provenance notes behind the severity filter."""

    HELP = ("Every finding of the grammar check: severity, index (and block), rule, the API's own words and a "
            "likely cause, with the content check's hidden_text (text a person does not see) and secret_in_content "
            "(a credential, by kind and last four characters); then the provenance notes (a class below "
            "warnings: an id, number or path in a tool input that no earlier message holds), shown with v; then "
            "what the loader noticed. v cycles the severities shown, r the rule. Enter (or a click) jumps to "
            "the index.")
    BINDINGS = keys.PROBLEMS

    class Jump(IndexMessage):
        """Go to message ``index``."""

    #: Bound to the stepper's: filled again when the findings or the provenance notes arrive.
    run_state: var[RunState] = var(RunState(), init=False)

    def __init__(self, view: RunView, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = view
        self._targets: dict[str, int] = {}
        self.shown = False
        self._filled_width = 0
        self.severity = 0  # an index into SEVERITIES
        self.rule: str | None = None  # None: every rule

    def _text_width(self) -> int:
        """The columns an option's text gets: the view less its scrollbar and the options' padding."""
        return self.size.width - self.styles.gutter.width - self.styles.scrollbar_size_vertical - 2

    def on_resize(self) -> None:
        if self.shown and self._text_width() != self._filled_width:
            highlighted = self.highlighted
            self.fill()
            if highlighted is not None and highlighted < self.option_count:
                self.highlighted = highlighted

    def on_focus(self) -> None:
        """A focused view has a selected row: Enter jumps at once."""
        if self.highlighted is None:
            self.action_first()

    # -- filters -------------------------------------------------------------------------

    def rules(self) -> list[str]:
        """The rules present, in order of first appearance (provenance last)."""
        found = list(dict.fromkeys(f.rule for f in self.view.findings or []))
        return found + ([PROVENANCE_RULE] if self.view.analyses.unsourced else [])

    def _shows(self, severity: str, rule: str) -> bool:
        return severity in SEVERITIES[self.severity][1] and self.rule in (None, rule)

    def action_severity(self) -> None:
        self.severity = (self.severity + 1) % len(SEVERITIES)
        self._refill()

    def action_rule(self) -> None:
        rules = [None, *self.rules()]
        self.rule = rules[(rules.index(self.rule) + 1) % len(rules)] if self.rule in rules else None
        if self.rule == PROVENANCE_RULE and "note" not in SEVERITIES[self.severity][1]:
            self.severity = 1  # the rule's findings are notes: show them
        self._refill()

    def _refill(self) -> None:
        self.fill()
        self.action_first()

    def filter_text(self) -> Text:
        errors, warnings, notes = self.view.counts()
        text = Text.assemble(("showing ", palette.DIM), (SEVERITIES[self.severity][0], "bold"),
                             (" · rule ", palette.DIM), (one_line(self.rule or "any"), "bold"),
                             ("  v: severity  r: rule", palette.DIM))
        hidden = notes if "note" not in SEVERITIES[self.severity][1] else 0
        if hidden:
            text.append(f"\n{hidden} provenance note{'s' * (hidden != 1)} hidden (v shows them)", palette.NOTE)
        return text

    # -- filling -------------------------------------------------------------------------

    def watch_run_state(self, old: RunState, new: RunState) -> None:
        if new.changed(old) & {"findings", "unsourced"}:
            if self.display:
                self.fill()
            else:  # not on screen: filled when shown (thousands of provenance notes held a step for a second)
                self.shown = False

    def fill(self) -> None:
        """Attributes down: the findings arrived (or changed)."""
        view = self.view
        options: list[Option | None] = []
        self._targets.clear()
        if view.findings is None:
            options.append(Option(Text("checking the run …", palette.NOTE), disabled=True))
        else:
            options.append(Option(self.filter_text(), disabled=True))
        if view.findings is not None and not view.findings:
            options.append(Option(Text("No findings: every request in this run obeys the grammar the API checks.",
                                       palette.NOTE), disabled=True))
        for k, finding in enumerate(view.findings or []):
            if not self._shows(finding.severity, finding.rule):
                continue
            mark, style = palette.MARK.get(finding.severity, ("•", ""))
            where = finding.where() or "request"
            prompt = Text.assemble((mark, style), " ", (finding.severity.upper().ljust(7), style), " ",
                                   (where.ljust(6), "bold"), " ", (one_line(finding.rule), palette.DIM), "\n  ",
                                   one_line(finding.message))
            if finding.cause:
                prompt.append_text(Text.assemble("\n  ", ("likely cause: ", palette.DIM), one_line(finding.cause)))
            options.append(self._option(prompt, f"finding-{k}", finding.index))
        if "note" in SEVERITIES[self.severity][1] and self.rule in (None, PROVENANCE_RULE):
            options += self._provenance_options()
        warnings = view.run.warnings
        if warnings and self.rule is None and self.severity in (0, 1, 3):
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
        if self.has_focus:
            self.action_first()

    def _provenance_options(self) -> list[Option | None]:
        """Provenance notes, apart from the grammar's and named as such."""
        unsourced = self.view.analyses.unsourced
        if unsourced is None:
            return [None, Option(Text("provenance: tracing the tool inputs of every turn …", palette.NOTE),
                                 disabled=True)]
        if not unsourced:
            return []
        mark, style = palette.MARK["note"]
        missing = not_found(self.view.run)
        options: list[Option | None] = [None, Option(Text(
            f"Provenance notes ({len(unsourced)}): ids, numbers and paths in tool inputs that no earlier message "
            "holds", palette.HEADING), disabled=True)]
        for k, (i, value) in enumerate(unsourced):
            prompt = Text.assemble((mark, style), " ", ("NOTE".ljust(7), style), " ",
                                   (f"{i}.{value.block}".ljust(6), "bold"), " ",
                                   (PROVENANCE_RULE, palette.DIM), "\n  ",
                                   f"{one_line(str(value.name))} {one_line(value.path)} = ",
                                   value_text(value.value), f": {missing}")
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
