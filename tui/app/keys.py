"""Every key of the app, as data: one binding table per screen and widget, each binding with an id.

A class takes its table from here (``BINDINGS = keys.STEPPER``), so the keys of a screen, the
order its footer shows them in and what leaves a narrow footer first (``*_FOOTER_DROP``, read
by ``tui.app.footer_fit``) are read in one place. Ids are ``TABLE.NAME``; a keymap file can
move any of them — ``keymap.json`` in turnscope's config directory, for example
``{"stepper.next_match": "ctrl+n"}``. Vim-style aliases (``.vim``) and second keys are
hidden from the footer; ``?`` lists every key.
"""

from __future__ import annotations

from textual.binding import Binding

# -- shapes shared by several tables ---------------------------------------------------------


def cursor_bindings(prefix: str, down: str = "Down", up: str = "Up", first: str = "Top", last: str = "Bottom",
                    names: tuple[str, str, str, str] = ("down", "up", "top", "bottom"),
                    group: Binding.Group | None = None) -> list[Binding]:
    """The cursor keys as data, with ids ``PREFIX.NAME`` (``names``: down, up, first, last). Down/Up are in the
    footer only when given a ``group``; j/k, their vim aliases (``.vim``), never are; nor PgDn/PgUp, Home/End."""
    down_id, up_id, first_id, last_id = (f"{prefix}.{name}" for name in names)
    shown = group is not None
    return [
        Binding("down", "cursor(1)", down, show=shown, id=down_id, group=group),
        Binding("j", "cursor(1)", down, show=False, id=f"{down_id}.vim"),
        Binding("up", "cursor(-1)", up, show=shown, id=up_id, group=group),
        Binding("k", "cursor(-1)", up, show=False, id=f"{up_id}.vim"),
        Binding("pagedown", "page(1)", "Page down", show=False, id=f"{prefix}.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id=f"{prefix}.page_up"),
        Binding("home", "edge(-1)", first, show=False, id=first_id),
        Binding("end", "edge(1)", last, show=False, id=last_id),
    ]


def vim_bindings(prefix: str) -> list[Binding]:
    """j/k for an ``OptionList`` (or a screen that forwards them to one): vim aliases of Down/Up, hidden."""
    return [
        Binding("j", "cursor_down", "Down", show=False, id=f"{prefix}.down.vim"),
        Binding("k", "cursor_up", "Up", show=False, id=f"{prefix}.up.vim"),
    ]


def fold_bindings(prefix: str, space: bool = True) -> list[Binding]:
    """Enter (and Space, unless ``space`` is False) opens or folds what the cursor is on: ``action_toggle``."""
    bindings = [Binding("enter", "toggle", "Open/fold", show=False, id=f"{prefix}.toggle")]
    if space:
        bindings.append(Binding("space", "toggle", "Open/fold", show=False, id=f"{prefix}.toggle.space"))
    return bindings


# -- the app ---------------------------------------------------------------------------------

APP = [
    Binding("q", "quit", "Quit", id="app.quit"),
    Binding("question_mark", "help", "Keys", id="app.help"),
    Binding("f1", "help", "Keys", show=False, id="app.help.f1"),
]

# -- the stepper and its widgets -------------------------------------------------------------

CALL = Binding.Group("Call")
MATCH = Binding.Group("Match")
FINDING = Binding.Group("Finding")
VIEW = Binding.Group("View", compact=True)
STEP = Binding.Group("Step")
SPLIT = Binding.Group("Split", compact=True)

#: The stepper's own keys, in the footer's order. ``b`` always shows (branching is the what-if
#: feature), ``B`` and ``D`` while there is room (``STEPPER_FOOTER_DROP``).
STEPPER = [
    Binding("n", "call(1)", "Next model call", id="stepper.next_call", group=CALL),
    Binding("p", "call(-1)", "Previous model call", id="stepper.prev_call", group=CALL),
    Binding("g", "edge(-1)", "First message", show=False, id="stepper.first"),
    Binding("G", "edge(1)", "Last message", show=False, id="stepper.last"),
    Binding("colon", "goto", "Go to index", show=False, id="stepper.goto"),
    Binding("slash", "search", "Search", id="stepper.search"),
    Binding("greater_than_sign", "match(1)", "Next match", id="stepper.next_match", group=MATCH),
    Binding("less_than_sign", "match(-1)", "Previous match", id="stepper.prev_match", group=MATCH),
    Binding("right_square_bracket", "finding(1)", "Next finding", id="stepper.next_finding", group=FINDING),
    Binding("left_square_bracket", "finding(-1)", "Previous finding", id="stepper.prev_finding", group=FINDING),
    Binding("ctrl+o", "jump(-1)", "Back", id="stepper.jump_back"),
    # ctrl+i is Tab to a terminal (the focus key): forward is ctrl+n
    Binding("ctrl+n", "jump(1)", "Forward", show=False, id="stepper.jump_forward"),
    Binding("s", "toggle('system')", "System prompt", show=False, id="stepper.system"),
    Binding("t", "toggle('tools')", "Tools", show=False, id="stepper.tools"),
    Binding("1", "view('request')", "Request view", id="stepper.view_request", group=VIEW),
    Binding("2", "view('raw')", "Raw view", id="stepper.view_raw", group=VIEW),
    Binding("3", "view('account')", "Account view", id="stepper.view_account", group=VIEW),
    Binding("4", "view('problems')", "Problems view", id="stepper.view_problems", group=VIEW),
    Binding("5", "view('tokens')", "Tokens view", id="stepper.view_tokens", group=VIEW),
    # 6 is on the tabs row (``6 Resp``) and in ``?``; in the footer ``12345 View`` keeps ``↑↓ Step`` at 80 columns
    Binding("6", "view('response')", "Response view", show=False, id="stepper.view_response", group=VIEW),
    Binding("plus", "split(1)", "List wider", id="stepper.split_wider", group=SPLIT),
    Binding("minus", "split(-1)", "List narrower", id="stepper.split_narrower", group=SPLIT),
    Binding("f", "zoom", "Zoom", id="stepper.zoom"),
    Binding("y", "copy", "Copy", id="stepper.copy"),
    Binding("c", "copy", "Copy", show=False, id="stepper.copy.alt"),
    Binding("escape", "back", "Back to the list", show=False, id="stepper.back"),
    Binding("F", "follow(False)", "Following", id="stepper.follow"),
    Binding("F", "follow(True)", "Follow the file", show=False, id="stepper.follow.start"),
    Binding("b", "branch", "Branch", id="stepper.branch"),
    Binding("B", "branches", "Branches", id="stepper.branches"),
    Binding("D", "diff", "Diff against a file", id="stepper.diff"),
    Binding("L", "latency", "Latency column", show=False, id="stepper.latency"),
    Binding("ampersand", "filter", "Filter the list", show=False, id="stepper.filter"),
    Binding("enter", "into_pane", "Into the pane", show=False, id="stepper.into_pane"),
]

#: What leaves the stepper's footer when it does not fit, first entry first.
#: Always there: / Search, 12345 View, b Branch, q Quit, ? Keys. At 80 columns on a clean run the
#: footer is ↑↓ Step, n p Call, / Search, 12345 View, b Branch, q Quit, ? Keys; a run with findings
#: swaps Step and Call for ] [ Finding, an active search for > < Match; a focused view's own keys
#: (enter, w, x) go before Call does; after a jump ``^o Back`` stays longest (the status line names ] [ and > <).
#: ``?`` lists every key.
STEPPER_FOOTER_DROP = (
    ("problems.rule",),
    ("problems.severity",),
    ("stepper.split_wider", "stepper.split_narrower"),
    ("stepper.zoom",),
    ("stepper.diff",),
    ("stepper.copy",),
    ("stepper.branches",),
    ("tokens.go",),  # enter: the Tokens view's heading says so
    ("request.toggle",),  # enter: the request pane's heading says so
    ("response.toggle",),  # enter: the events row says so
    ("list.next", "list.prev"),
    ("stepper.next_call", "stepper.prev_call"),
    ("raw.exact",),
    ("tokens.exact",),
    ("stepper.next_finding", "stepper.prev_finding"),
    ("stepper.next_match", "stepper.prev_match"),  # the status line names ] [ and > < too
    ("stepper.jump_back",),  # ^o Back: only while there is a jump to go back from
)

MESSAGE_LIST = cursor_bindings("list", "Next message", "Previous message", "First message", "Last row",
                               names=("next", "prev", "first", "last"), group=STEP)
LINES = cursor_bindings("lines")
REQUEST = [
    Binding("enter", "activate", "Open/fold", id="request.toggle"),
    Binding("space", "activate", "Open/fold", show=False, id="request.toggle.space"),
    Binding("z", "fold_all", "Fold all", show=False, id="request.fold_all"),
]
RAW = [
    Binding("w", "exact", "Exact/pretty", id="raw.exact"),
    Binding("j", "scroll_down", "Scroll down", show=False, id="raw.down.vim"),
    Binding("k", "scroll_up", "Scroll up", show=False, id="raw.up.vim"),
    Binding("l", "scroll_right", "Scroll right", show=False, id="raw.right.vim"),
    Binding("h", "scroll_left", "Scroll left", show=False, id="raw.left.vim"),
]
PROBLEMS = [
    *vim_bindings("problems"),
    Binding("v", "severity", "Severity filter", id="problems.severity"),
    Binding("r", "rule", "Rule filter", id="problems.rule"),
]
TOKENS = [
    Binding("enter", "go", "Go to message", id="tokens.go"),
    Binding("x", "exact", "Count exactly", id="tokens.exact"),
]
RESPONSE = [Binding("enter", "toggle", "Open/fold", id="response.toggle")]
TURNS = fold_bindings("turns")

# -- opening runs ----------------------------------------------------------------------------

PICKER_LIST = vim_bindings("picker")
PICKER = [Binding("r", "rescan", "Rescan", id="picker.rescan"),
          Binding("slash", "filter", "Filter", id="picker.filter")]
RUNS = [Binding("escape", "back", "Back", id="runs.back"), *vim_bindings("runs"),
        Binding("slash", "filter", "Filter", id="runs.filter"),
        Binding("o", "order", "Sort", id="runs.order")]

# -- diff ------------------------------------------------------------------------------------

CHANGES = vim_bindings("changes")
DIFF = [
    Binding("n", "change(1)", "Next change", id="diff.next_change"),
    Binding("p", "change(-1)", "Previous change", id="diff.prev_change"),
    Binding("s", "switch", "Side by side/stacked", id="diff.switch"),
    Binding("escape", "close", "Back", id="diff.back"),
]
DIFF_VIEW = fold_bindings("diff", space=False)

# -- branch ----------------------------------------------------------------------------------

EDITOR = [
    Binding("ctrl+s", "review", "Send…", id="branch.send"),
    Binding("e", "tool_error", "Error", id="branch.tool_error"),
    Binding("d", "delete", "Delete", id="branch.delete"),
    Binding("i", "tool_input", "Input", id="branch.tool_input"),
    Binding("m", "model", "Model", id="branch.model"),
    Binding("u", "restore", "Undo", id="branch.restore"),
    Binding("k", "api_key", "API key", id="branch.api_key"),  # shown only while no key is set
    Binding("escape", "close", "Close", id="branch.close"),
]
#: At 80 columns the quick edits do not all fit beside ``? Keys``: these leave the footer first.
EDITOR_FOOTER_DROP = (("branch.model",), ("branch.restore",), ("branch.delete",))
TARGETS = [
    *cursor_bindings("targets", first="First", last="Last", names=("down", "up", "first", "last")),
    Binding("enter", "select", "Edit", show=False, id="targets.edit"),  # the editor says "enter edits it"
]
REVIEW = [
    Binding("enter", "send", "Send", id="review.send"),
    Binding("ctrl+s", "send", "Send", show=False, id="review.send.ctrl_s"),
    Binding("plus", "steps(1)", "More steps", id="review.more_steps"),
    Binding("minus", "steps(-1)", "Fewer steps", id="review.fewer_steps"),
    Binding("r", "resolver", "Resolver", id="review.resolver"),
    Binding("s", "samples(1)", "More samples", id="review.more_samples"),
    Binding("S", "samples(-1)", "Fewer samples", id="review.fewer_samples"),
    Binding("c", "control", "Control", id="review.control"),
    Binding("e", "event", "Event…", id="review.event"),
    Binding("escape", "back", "Back to editing", id="review.back"),
]
#: At 80 columns the review's keys do not all fit beside ``? Keys``: these leave the footer first.
REVIEW_FOOTER_DROP = (("review.fewer_samples",), ("review.fewer_steps",), ("review.event",), ("review.control",),
                      ("review.more_steps",), ("review.resolver",))
ANSWER = [
    Binding("ctrl+s", "answer(False)", "Send result", id="answer.result"),
    Binding("ctrl+t", "answer(True)", "Send as error", id="answer.error"),
    Binding("escape", "stop", "Stop the branch", id="answer.stop"),
]
BRANCH_RUN = [
    Binding("escape", "cancel", "Cancel", id="branch_run.cancel"),
    Binding("escape", "back", "Back", id="branch_run.back"),
    Binding("o", "open", "Open in stepper", id="branch_run.open"),
    Binding("v", "compare", "Side by side", id="branch_run.compare"),
    Binding("r", "retry", "Retry", id="branch_run.retry"),
]
TREE = [
    Binding("enter", "compare", "Side by side", id="tree.compare"),
    Binding("o", "open", "Open in stepper", id="tree.open"),
    Binding("h", "hide", "Hide failed", id="tree.hide"),
    Binding("d", "delete", "Delete", id="tree.delete"),
    Binding("escape", "back", "Back", id="tree.back"),
]
EXPERIMENT = [
    Binding("enter", "compare", "Side by side", priority=True, id="experiment.compare"),  # over the list's own
    Binding("o", "open", "Stepper", id="experiment.open"),
    Binding("r", "resume", "Continue", id="experiment.resume"),
    Binding("escape", "cancel", "Stop", id="experiment.cancel"),
    Binding("escape", "back", "Back", id="experiment.back"),
]
PAIR = [
    Binding("n", "jump(1)", "Next message", id="pair.next"),
    Binding("p", "jump(-1)", "Previous message", id="pair.prev"),
    Binding("x", "switch", "Switch side", id="pair.switch"),
    Binding("escape", "back", "Back", id="pair.back"),
]
PAIR_ROWS = fold_bindings("pair")

# -- dialogs ---------------------------------------------------------------------------------

PROMPT = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]
HELP = [
    Binding("escape", "close", "Close", id="help.close"),
    Binding("q", "close", "Close", show=False, id="help.close.q"),
    Binding("question_mark", "close", "Close", show=False, id="help.close.question"),
]
