"""What the app tests of the hostile corpus share: a screen that must be clean, and file names."""

from __future__ import annotations

from app_helpers import screen_text
from hostile import leaks

#: A file name's worth of the corpus (a name is at most 255 bytes).
NAME = "\x1b[2J\x1b]0;t\x07\x9b1m\u202e[bold]b[/][@click=app.quit]q[/]"


def clean(app, where: str) -> str:
    """The composited screen (what Textual writes) and its SVG export hold no control character."""
    text = screen_text(app)
    assert not leaks(text), f"{where}: control characters reached the screen: {leaks(text)!r}"
    assert not leaks(app.export_screenshot()), f"{where}: control characters in the SVG export"
    return text


def compact(text: str) -> str:
    """The screen's text without line breaks and padding, so a marker split over two rows is still found."""
    return "".join(line.strip() for line in text.split("\n"))


def file_name(text: str) -> str:
    """``text`` as part of a file name: no NUL (no path can hold one) and no slash."""
    return text.replace("\x00", "").replace("/", "_")
