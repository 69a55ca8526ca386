"""Command palette providers on the stepper: "go to message N", "go to tool call NAME", "go to tool_use ID",
and "diff against a file…".

Tool names and ids come from the run, so the hits are built as plain ``Content`` (the
palette's own ``highlight`` and ``help`` would read them as markup) from strings already
made visible by ``one_line``.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.markup import escape

from tui.core.view.run_view import RunView


class Stepping(Protocol):
    """What the providers ask of the screen they are on (the stepper): its run, its index, a way to move."""

    view: RunView
    index: int

    def go_to(self, index: int) -> None: ...

    def jump_to(self, index: int) -> None: ...

    def action_diff(self) -> None: ...

_INDEX = re.compile(r"\s*(?:go\s*to\s*)?(?:message\s*)?(-?\d+)\s*$", re.IGNORECASE)
MAX_ID_HITS = 40


def plain_hit(matcher: Matcher, text: str) -> Content:
    """``text`` with the matched letters marked, never parsed as markup."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class GoToProvider(Provider):
    """Jump to a message by index, by tool name, or by tool_use id."""

    @property
    def stepper(self) -> Stepping:
        return cast(Stepping, self.screen)

    def _go(self, index: int) -> None:
        self.stepper.jump_to(index)  # a palette target is a jump: ctrl+o comes back

    def _next_of(self, rows: list[int]) -> int:
        here = self.stepper.index
        return next((i for i in rows if i > here), rows[0])

    async def search(self, query: str) -> Hits:
        view = self.stepper.view
        matcher = self.matcher(query)
        found = _INDEX.match(query)
        if found:
            n = int(found.group(1))
            n = n + view.total if n < 0 else n
            if 0 <= n < view.rows:
                what = (f"{view.role(n)} · {view.producers[n].label} · {view.summary(n)}" if n < view.total
                        else "the next request")
                text = f"Go to message {n}"
                yield Hit(1.0, Content(text), partial(self._go, n), help=escape(what[:120]))
        for name, rows in view.tool_names().items():
            text = f"Go to tool call {name}"
            score = matcher.match(text)
            if score > 0:
                target = self._next_of(rows)
                yield Hit(score, plain_hit(matcher, text), partial(self._go, target),
                          help=_calls_it(rows, target))
        needle = query.strip().lower()
        if len(needle) >= 3:
            shown = 0
            for i, name, tool_id in view.tool_calls():
                if needle in tool_id.lower():
                    text = f"Go to tool_use {tool_id}"
                    yield Hit(0.9, plain_hit(matcher, text), partial(self._go, i),
                              help=escape(f"{name} at message {i}"))
                    shown += 1
                    if shown >= MAX_ID_HITS:
                        break

    async def discover(self) -> Hits:
        view = self.stepper.view
        yield DiscoveryHit(Content("Go to message N (type the index)"), partial(self._go, self.stepper.index),
                           help="Type a number, e.g. 5")
        for name, rows in list(view.tool_names().items())[:30]:
            target = self._next_of(rows)
            yield DiscoveryHit(Content(f"Go to tool call {name}"), partial(self._go, target),
                               help=_calls_it(rows, target))


def _calls_it(rows: list[int], target: int) -> str:
    """The palette's help for a tool name: how many turns call it, and where the next one is."""
    turns = "1 turn calls it" if len(rows) == 1 else f"{len(rows)} turns call it"
    return f"{turns}; next at message {target}"


class DiffProvider(Provider):
    """The command palette's "Diff against a file…": asks for a path, then opens the diff screen."""

    TEXT = "Diff against a file…"

    def _open(self) -> None:
        cast(Stepping, self.screen).action_diff()

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        score = matcher.match(self.TEXT)
        if score > 0:
            yield Hit(score, matcher.highlight(self.TEXT), self._open, help="compare this run with another file (D)")

    async def discover(self) -> Hits:
        yield DiscoveryHit(Content(self.TEXT), self._open, help="compare this run with another file (D)")
