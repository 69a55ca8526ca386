"""A footer that fits the terminal: the least important keys leave it first, ``? Keys`` never does.

The footer (``tui.app.widgets.keys_footer.KeysFooter``) lays every shown binding out in one row
and cuts whatever passes the right edge, which at 80 columns was ``? Keys`` itself as soon as a
run had findings or a search was active. ``FittedFooter`` is a mixin for a screen: it overrides
``active_bindings`` (what the footer draws; the key list ``?`` is built from the bindings
themselves and still shows every key) so that, while the footer would be wider than the
screen, the bindings named in ``FOOTER_DROP`` are hidden from it, first entry first; then
any of those that fits again comes back, the more important first. Only ``show`` changes:
every key keeps working.

``footer_entries`` is what the footer draws and what is fitted, one list, so the widths fitted are
the widths drawn (the ones Textual 8's own footer gave its items): a key alone is ``key +
description + 3`` cells (`` q Quit ``); a group of keys (`` n p Call ``) is the keys plus one
cell around each, plus the label and one; a compact group (`` 12345 View ``) is the keys, the
label and three; the command palette key docked on the right is its own item. A test renders the
footer and checks it ends with ``? Keys`` at 80 columns in every state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import groupby
from typing import TYPE_CHECKING, Sequence

from rich.cells import cell_len
from textual.binding import ActiveBinding

if TYPE_CHECKING:  # pragma: no cover
    from textual.screen import Screen


@dataclass(frozen=True)
class FooterKey:
    """One key as the footer draws it: the key pressed on a click, as displayed, enabled, its tooltip."""

    key: str
    display: str
    enabled: bool
    tooltip: str


@dataclass(frozen=True)
class FooterEntry:
    """One item of the footer: a key and its description, or a group's keys and the group's label."""

    ids: frozenset[str]  # the binding ids it shows (what ``fit`` hides)
    keys: tuple[FooterKey, ...]
    description: str
    grouped: bool = False
    compact: bool = False

    @property
    def width(self) -> int:
        keys = [cell_len(key.display) for key in self.keys]
        if not self.grouped:
            return keys[0] + cell_len(self.description) + 3
        return sum(keys) + cell_len(self.description) + (3 if self.compact else len(keys) + 2)


def footer_entries(active: dict[str, ActiveBinding], key_display) -> list[FooterEntry]:
    """The footer's items in order, as Textual's ``Footer`` groups them: the shown bindings by action (the
    first binding of an action is drawn), runs of two or more actions of one group as that group."""
    by_action: dict[str, list[ActiveBinding]] = {}
    for item in active.values():
        if item.binding.show:
            by_action.setdefault(item.binding.action, []).append(item)
    entries = []
    for group, members in groupby(by_action.values(), lambda found: found[0].binding.group):
        members = list(members)
        if group is not None and len(members) > 1:
            keys = tuple(FooterKey(m[0].binding.key, key_display(m[0].binding), m[0].enabled,
                                   m[0].tooltip or m[0].binding.description) for m in members)
            entries.append(FooterEntry(frozenset(b.binding.id or "" for m in members for b in m), keys,
                                       group.description, grouped=True, compact=group.compact))
            continue
        for found in members:
            first = found[0]
            key = FooterKey(first.binding.key, key_display(first.binding), first.enabled, first.tooltip)
            entries.append(FooterEntry(frozenset(b.binding.id or "" for b in found), (key,), first.binding.description))
    return entries


def footer_items(active: dict[str, ActiveBinding], key_display) -> list[tuple[set[str], int]]:
    """The footer's items: (binding ids in it, width in cells)."""
    return [(set(entry.ids), entry.width) for entry in footer_entries(active, key_display)]


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
    """Mixin for a screen with a ``KeysFooter``: ``FOOTER_DROP`` leaves the footer, in order, while it is too wide."""

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
