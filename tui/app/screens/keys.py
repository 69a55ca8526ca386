"""The stepper's keys, as data: every binding has an id, so a keymap file can move it.

Remap by id in ``keymap.json`` in turnscope's config directory, for example
``{"stepper.next_match": "ctrl+n"}`` (see README). Vim-style aliases are hidden from the
footer; ``?`` lists them all.
"""

from __future__ import annotations

from textual.binding import Binding

CALL = Binding.Group("Call")
MATCH = Binding.Group("Match")
FINDING = Binding.Group("Finding")
VIEW = Binding.Group("View", compact=True)

STEPPER_BINDINGS = [
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
    Binding("s", "toggle('system')", "System prompt", show=False, id="stepper.system"),
    Binding("t", "toggle('tools')", "Tools", show=False, id="stepper.tools"),
    Binding("1", "view('request')", "Request view", id="stepper.view_request", group=VIEW),
    Binding("2", "view('raw')", "Raw view", id="stepper.view_raw", group=VIEW),
    Binding("3", "view('account')", "Account view", id="stepper.view_account", group=VIEW),
    Binding("4", "view('problems')", "Problems view", id="stepper.view_problems", group=VIEW),
    Binding("y", "copy", "Copy", id="stepper.copy"),
    Binding("c", "copy", "Copy", show=False, id="stepper.copy.alt"),
    Binding("escape", "back", "Back to the list", show=False, id="stepper.back"),
]
