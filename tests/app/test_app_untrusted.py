"""Run text is data: escape sequences and markup in a run never reach the terminal, in any view.

The run below carries ESC/CSI, OSC 52 (clipboard), OSC 8 (links), BEL, C1 controls, bidi
overrides and Rich/Textual markup in a tool result, a text block, a tool name and id, and
the system prompt. Each view is rendered, and the composited screen (what Textual writes)
and the SVG export must hold no control character; the escapes show as ``\\x1b`` text
and the markup shows literally.
"""

from __future__ import annotations

import re

import pytest
from app_helpers import app_for, screen_text, settle, write_run

NASTY = ("\x1b[31mRED\x1b[0m \x1b]52;c;SGVsbG8=\x07 \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ "
         "\x07bell \x9b31m c1 \u202eevil\u202c [bold red]markup[/] [link=https://x.example]l[/link] $x \x1b[2J")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def nasty_run(tmp_path):
    header = {"system": "sys " + NASTY, "tools": [{"name": "get[bold]x[/bold]", "description": NASTY,
                                                  "input_schema": {"type": "object"}}],
              "params": {"model": "m", "max_tokens": 10}}
    messages = [
        {"role": "user", "content": "hello " + NASTY},
        {"role": "assistant", "content": [{"type": "text", "text": "calling " + NASTY},
                                          {"type": "tool_use", "id": "toolu_[b]1\x1b[0m", "name": "get[bold]x[/bold]",
                                           "input": {"q": NASTY}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_[b]1\x1b[0m",
                                      "content": NASTY * 3, "is_error": True}]},
        {"role": "user", "content": "again " + NASTY},  # two user turns: a finding, so Problems has rows
    ]
    return write_run(tmp_path / "nasty.jsonl", messages, header)


def _assert_clean(app, where: str) -> str:
    text = screen_text(app)
    bad = CONTROL.findall(text)
    assert not bad, f"{where}: control characters reached the screen: {bad!r}"
    svg = app.export_screenshot()
    assert not CONTROL.findall(svg), f"{where}: control characters in the SVG export"
    return text


async def test_no_control_byte_reaches_the_screen_in_any_view(nasty_run, tmp_path):
    app = app_for(nasty_run, tmp_path, at=2)
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await pilot.press("s", "t")  # open the System prompt and the Tools
        await settle(pilot)
        text = _assert_clean(app, "request view")
        assert "\\x1b[31mRED" in text  # shown, visibly
        assert "[bold red]markup[/]" in text  # not interpreted
        assert "\\x07bell" in text and "\\x9b31m" in text and "\\u202eevil" in text
        for key, view in (("2", "raw"), ("3", "account"), ("4", "problems")):
            await pilot.press(key)
            await settle(pilot)
            _assert_clean(app, view)
        await pilot.press("1", "slash")
        await settle(pilot)
        await pilot.press(*"markup", "enter")
        await settle(pilot)
        assert "[bold red]markup[/]" in _assert_clean(app, "search")
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"tool call get")
        await settle(pilot)
        assert "get[bold]x[/bold]" in _assert_clean(app, "command palette")


async def test_raw_view_shows_escapes_as_json_text(nasty_run, tmp_path):
    app = app_for(nasty_run, tmp_path, at=3, view="raw")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        text = _assert_clean(app, "raw view")
        assert "\\u001b[31mRED" in text  # JSON's own escape for ESC
        await pilot.press("tab", "w")  # the exact bytes, wrapped: every character is on screen
        await settle(pilot)
        text = _assert_clean(app, "raw view, exact bytes")
        assert "\\x9b31m" in text  # C1, which JSON leaves raw, made visible
