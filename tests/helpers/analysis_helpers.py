"""Helpers for the tests of the stepper's review views (tokens, provenance, diff): move a view's cursor
with the keyboard, read its rows."""

from __future__ import annotations

from app_helpers import settle
from conftest import SAMPLES

from tui.app.screens.stepper import StepperScreen
from tui.app.widgets.tokens_view import CARRIED, NEW

INVENTED = SAMPLES / "invented_order_id.jsonl"


def stepper(app) -> StepperScreen:
    assert isinstance(app.screen, StepperScreen)
    return app.screen


async def cursor_to(pilot, view, needle: str) -> None:
    """Move ``view``'s cursor with the keyboard (Home, then Down) to the first row holding ``needle``."""
    row = next(y for y, text in enumerate(view.text_rows()) if needle in text)
    view.focus()
    await pilot.press("home", *["down"] * row)
    await settle(pilot)
    assert needle in view.text_rows()[view.cursor]


def joined(view) -> str:
    """A view's rows as one line of text, wrapped rows joined again."""
    return " ".join(row.strip() for row in view.text_rows())


def call_rows(rows: list[str]) -> list[str]:
    return [r for r in rows if r.rstrip().endswith((CARRIED, NEW)) and ("estimated" in r or "recorded" in r
                                                                        or "exact" in r)]
