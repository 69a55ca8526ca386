"""The stepper's two dialogs: a one-line prompt (``:`` go to index, ``/`` search) and the key list (``?``).

The key list is built from the screen below: the app, the screen and each widget on it
that has a ``HELP`` attribute, in the order they appear, with their bindings (keymap
applied, hidden aliases included) grouped by what they do. Nothing lists keys by hand.
"""

from __future__ import annotations

from rich.text import Text
from textual import getters
from textual.app import ComposeResult
from textual.binding import BindingsMap
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from tui.app import keys
from tui.app.render import styles as palette


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line; dismiss with the text (or None when cancelled)."""

    HELP = "Type and press Enter; Escape cancels."
    BINDINGS = keys.PROMPT
    answer = getters.query_one("#prompt-input", Input)

    def __init__(self, question: str, placeholder: str = "", value: str = "", *, name: str | None = None,
                 password: bool = False) -> None:
        super().__init__(name=name)
        self.question = question
        self.placeholder = placeholder
        self.value = value
        self.password = password  # the typed text is shown as dots (an API key)

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt"):
            yield Static(Text(self.question, "bold"), id="prompt-question")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input", password=self.password)

    def on_mount(self) -> None:
        self.answer.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _title(node: DOMNode) -> str:
    name = type(node).__name__
    words = "".join(" " + c.lower() if c.isupper() else c for c in name).strip()
    return words[0].upper() + words[1:]


def key_rows(node: DOMNode, keymap: dict[str, str], key_display) -> list[tuple[str, str]]:
    """(keys, description) for each action ``node`` binds, ids only (the remappable ones)."""
    bindings = BindingsMap.from_keys({k: list(v) for k, v in node._bindings.key_to_bindings.items()})
    if keymap:
        bindings.apply_keymap(keymap)
    grouped: dict[tuple[str, str], list[str]] = {}
    for _, found in bindings.key_to_bindings.items():
        for binding in found:
            if binding.id is None or binding.system:
                continue
            description = binding.description or binding.action
            keys = grouped.setdefault((binding.action, description), [])
            shown = key_display(binding)
            if shown not in keys:
                keys.append(shown)
    rows: dict[str, list[str]] = {}
    for (_, description), keys in grouped.items():
        rows.setdefault(description, [])
        rows[description] += [k for k in keys if k not in rows[description]]
    return [(", ".join(keys), description) for description, keys in rows.items()]


def help_text(screen: Screen) -> Text:
    app = screen.app
    sources: list[DOMNode] = [app, screen]
    seen: set[type] = {type(app), type(screen)}
    for widget in screen.query("*"):
        if getattr(type(widget), "HELP", None) and type(widget) not in seen:
            seen.add(type(widget))
            sources.append(widget)
    text = Text()
    for node in sources:
        rows = key_rows(node, getattr(app, "keymap", None) or {}, app.get_key_display)
        about = getattr(type(node), "HELP", "")
        if not rows and not about:
            continue
        text.append(_title(node) + "\n", palette.HEADING)
        if about:
            text.append(about + "\n", palette.DIM)
        for shown_keys, description in rows:
            text.append(f"  {shown_keys:<16}", "bold")
            text.append(f" {description}\n")
        text.append("\n")
    text.append("Also: tab / shift+tab move the focus, ctrl+p opens the command palette "
                "(go to message N, tool call NAME, tool_use id; diff against a file). Keys are remappable by id "
                "(keymap.json in the config directory).", palette.DIM)
    return text


class HelpScreen(ModalScreen[None]):
    """All keys, and what each part of the screen is for."""

    HELP = "This list. Escape, q or ? closes it."
    BINDINGS = keys.HELP

    def __init__(self, below: Screen) -> None:
        super().__init__()
        self.below = below

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(help_text(self.below), id="help-text")

    def action_close(self) -> None:
        self.dismiss(None)
