"""A footer that fits the terminal: the least important keys leave it first, ``? Keys`` never does.

Textual's ``Footer`` lays every shown binding out in one row and cuts whatever passes the
right edge, which at 80 columns was ``? Keys`` itself as soon as a run had findings or a
search was active. ``FittedFooter`` is a mixin for a screen: it overrides
``active_bindings`` (what the footer draws; the key list ``?`` is built from the bindings
themselves and still shows every key) so that, while the footer would be wider than the
screen, the bindings named in ``FOOTER_DROP`` are hidden from it, first entry first; then
any of those that fits again comes back, the more important first. Only ``show`` changes:
every key keeps working.

Widths are the ones Textual 8's footer gives its items (non-compact footer): a key alone
is ``key + description + 3`` cells; a group of keys (``n p Call``) is the keys plus one
cell around each, plus the label and one; a compact group (``12345 View``) is the keys,
the label and three; the command palette key docked on the right is its own item. A test
renders the footer and checks it ends with ``? Keys`` at 80 columns in every state.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import groupby
from typing import TYPE_CHECKING, Sequence

from rich.cells import cell_len
from textual.binding import ActiveBinding
from textual.widgets import Footer

try:  # Textual's own key widget (private: ``mount_all`` below only saves time with it, and does without)
    from textual.widgets._footer import FooterKey
except ImportError:  # pragma: no cover - a Textual that moved it: the keys are styled as Textual does
    FooterKey = None

if TYPE_CHECKING:  # pragma: no cover
    from textual.screen import Screen


def footer_items(active: dict[str, ActiveBinding], key_display) -> list[tuple[set[str], int]]:
    """The footer's items as Textual's ``Footer`` composes them: (binding ids in it, width in cells)."""
    by_action: dict[str, list[ActiveBinding]] = {}
    for item in active.values():
        if item.binding.show:
            by_action.setdefault(item.binding.action, []).append(item)
    items = []
    for group, members in groupby(by_action.values(), lambda found: found[0].binding.group):
        members = list(members)
        if group is not None and len(members) > 1:
            keys = [cell_len(key_display(m[0].binding)) for m in members]
            label = cell_len(group.description)
            width = sum(keys) + label + (3 if group.compact else len(keys) + 2)
            items.append(({b.binding.id or "" for m in members for b in m}, width))
            continue
        for found in members:
            binding = found[0].binding
            width = cell_len(key_display(binding)) + cell_len(binding.description) + 3
            items.append(({b.binding.id or "" for b in found}, width))
    return items


def fit(active: dict[str, ActiveBinding], width: int, drop: Sequence[Sequence[str]],
        key_display, palette: int = 0) -> dict[str, ActiveBinding]:
    """``active`` with the bindings of ``drop`` (first entry first) hidden until the footer fits ``width``."""
    items = footer_items(active, key_display)
    hidden: set[str] = set()

    def used(without: set[str]) -> int:
        return sum(w for ids, w in items if not ids <= without) + palette

    dropped = []
    for ids in drop:
        if used(hidden) <= width:
            break
        hidden.update(ids)
        dropped.append(set(ids))
    for ids in reversed(dropped[:-1]):  # put back what still fits, the more important first
        if used(hidden - ids) <= width:
            hidden -= ids
    if not hidden:
        return active
    return {key: item._replace(binding=replace(item.binding, show=False))
            if item.binding.id in hidden and item.binding.show else item
            for key, item in active.items()}


class FittedFooter:
    """Mixin for a screen with a ``Footer``: ``FOOTER_DROP`` leaves the footer, in order, while it is too wide."""

    #: Binding ids to hide from the footer when it does not fit, least important first; each
    #: entry goes as a whole (a group's keys together). Keys not named here always stay.
    FOOTER_DROP: Sequence[Sequence[str]] = ()

    @property
    def active_bindings(self: Screen) -> dict[str, ActiveBinding]:
        active = super().active_bindings  # type: ignore[misc]
        if not self.FOOTER_DROP or not self.is_mounted:
            return active
        app = self.app
        palette = 0
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            found = active[app.COMMAND_PALETTE_BINDING].binding
            palette = cell_len(app.get_key_display(found)) + cell_len(found.description) + 3
        return fit(active, self.footer_width(), self.FOOTER_DROP, app.get_key_display, palette)

    def footer_width(self: Screen) -> int:
        """The cells the footer has: the screen's width (a dialog whose footer sits in a box says its own)."""
        return self.size.width

    def on_resize(self: Screen) -> None:
        self.refresh_bindings()  # the footer is laid out again for the new width


class KeysFooter(Footer):
    """A ``Footer`` rebuilt at most once per frame, and only when its keys (what ``compose`` reads) changed."""

    _pending = False
    _shown: tuple | None = None

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True  # what Footer.bindings_changed sets: its compose draws the keys from now
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._pending:
            self._pending = True
            self.call_after_refresh(self._rebuild)

    def shown(self) -> tuple:
        """What the footer draws: each binding shown, its key as displayed, text, group, state."""
        app = self.app
        return tuple((binding.key, app.get_key_display(binding), binding.description, binding.action, enabled,
                      tooltip, binding.show, binding.group.description if binding.group else None,
                      binding.group.compact if binding.group else None)
                     for _, binding, enabled, tooltip in self.screen.active_bindings.values())

    async def _rebuild(self) -> None:
        self._pending = False
        if not self.is_attached:
            return
        shown = self.shown()
        if shown != self._shown:
            self._shown = shown
            await self.recompose()

    def mount_all(self, widgets, *args, **kwargs):
        """Each key made with the footer's ``compact`` already, before it mounts (a ``recompose`` mounts the
        keys here): a ``FooterKey`` starts compact and is bound to the footer's value, so each key's styles were
        worked out on its mount, again for the class its start value adds and once more when the binding took
        it away (19 keys on the stepper at 120 columns: 40-50 ms of CPU before the first screen). The palette's key
        is not bound (it stays compact, as Textual makes it)."""
        widgets = list(widgets)
        todo = list(widgets) if FooterKey is not None else []
        while todo:  # (Textual's private attributes read with defaults: a Textual without them mounts as before)
            widget = todo.pop()
            bound = getattr(widget, "_reactive_connect", None) or {}
            if isinstance(widget, FooterKey) and "compact" in bound:  # bound to ours
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            todo.extend(getattr(widget, "_pending_children", ()))  # a group's keys, composed inside it
        return super().mount_all(widgets, *args, **kwargs)
