"""The footer: the keys a screen offers, drawn as one line of text by one widget.

Textual's ``Footer`` composes a widget for each key (19 on the stepper at 120 columns) and
composes them all again whenever the keys change, which lays the whole screen out again: 30 ms
to compose and 40-45 ms to lay out on the stepper's first screen, and a key pressed then waited
behind it. ``KeysFooter`` draws the same row (the same items, widths and styles, from
``tui.app.footer_fit.footer_entries``) as one ``Text``: a change of keys redraws this one line,
never a layout. A click on a key presses it (a disabled key rings the bell), as on Textual's
footer; the pointer on a key shows its description as a tooltip.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

from tui.app.footer_fit import FooterEntry, FooterKey, footer_entries

if TYPE_CHECKING:  # pragma: no cover
    from textual.screen import Screen

BORDER = "▏"  # before the command palette's key, docked on the right (Textual's ``vkey`` border)


class KeysFooter(Widget, can_focus=False):
    """One row at the bottom of its container: the screen's shown keys, then the command palette's on the right."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keys-footer--key", "keys-footer--description", "keys-footer--border",
                         "keys-footer--hover"}
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        .keys-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keys-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .keys-footer--border {
            color: $foreground 20%;
        }
        .keys-footer--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._spans: list[tuple[int, int, FooterKey]] = []  # where each key is drawn: [start, end) cells
        self._hover: int | None = None  # the span the pointer is on

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        """The screen's keys changed: this line is drawn again (never a layout), reading them when it is drawn
        (here the screen may be mounting still). Not while the app has lost the focus, as Textual's footer."""
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.refresh()

    def shown(self) -> tuple:
        """What the footer draws now: its entries, the command palette's key (or None), its width."""
        app, active = self.app, self.screen.active_bindings
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _, binding, enabled, tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = FooterEntry(frozenset((binding.id or "",)), (FooterKey(
                binding.key, app.get_key_display(binding), enabled, binding.tooltip or binding.description),),
                binding.description)
        return tuple(footer_entries(active, app.get_key_display)), palette, self.size.width

    def render(self) -> Text:
        entries, palette, width = self.shown()
        key_style = self.get_component_rich_style("keys-footer--key")
        text_style = self.get_component_rich_style("keys-footer--description")
        hover_style = self.get_component_rich_style("keys-footer--hover", partial=True)
        line, spans = Text(no_wrap=True, overflow="crop", end=""), []

        def key(found: FooterKey, before: str = "", after: str = "") -> None:
            start = line.cell_len
            style = key_style if found.enabled else key_style + Style(dim=True)
            line.append(before + found.display + after, style)
            spans.append((start, line.cell_len, found))

        def describe(words: str, found: FooterKey | None, before: str = "", after: str = "") -> None:
            style = text_style if found is None or found.enabled else text_style + Style(dim=True)
            line.append(before + words + after, style)
            if found is not None:  # a key alone: its description is part of it (a click on it presses it)
                start, _, _ = spans[-1]
                spans[-1] = (start, line.cell_len, found)

        for entry in entries:
            if not entry.grouped:
                key(entry.keys[0], " ", " ")
                describe(entry.description, entry.keys[0], after=" ")
            elif entry.compact:  # ``12345 View``
                line.append(" ")
                for found in entry.keys:
                    key(found)
                describe(entry.description, None, " ", " ")
            else:  # ``n p Call``
                for found in entry.keys:
                    line.append(" ")
                    key(found)
                describe(entry.description, None, " ", " ")
        if palette is not None:
            found = palette.keys[0]
            right = cell_len(BORDER) + cell_len(found.display) + cell_len(palette.description) + 2
            line.truncate(max(width - right, 0), pad=True)
            spans = [span for span in spans if span[1] <= line.cell_len]
            line.append(BORDER, self.get_component_rich_style("keys-footer--border"))
            key(found)
            describe(palette.description, found, " ", " ")
        if self._hover is not None and self._hover < len(spans):
            start, end, _ = spans[self._hover]
            line.stylize(hover_style, start, end)
        self._spans = spans
        line.stylize_before(self.rich_style)
        return line

    def key_at(self, x: int) -> FooterKey | None:
        """The key drawn at cell ``x`` of the line (a key alone with its description), or None."""
        return next((found for start, end, found in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        found = self.key_at(event.x)
        if found is None:
            return
        event.stop()
        if found.enabled:
            self.app.simulate_key(found.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        at = next((n for n, (start, end, _) in enumerate(self._spans) if start <= event.x < end), None)
        if at != self._hover:
            self._hover = at
            self.tooltip = self._spans[at][2].tooltip or None if at is not None else None
            self.refresh()

    def on_leave(self, _: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()
