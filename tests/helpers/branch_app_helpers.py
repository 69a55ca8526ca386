"""Helpers for the in-app branch tests: the app with its branch files under a temporary data dir,
the fake Messages API in the environment, typing, and waiting for what a user would wait for."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea
from app_helpers import REFUND, app_for, screen_text, settle
from fake_messages_api_stream import FakeMessagesAPI

from tui.core.branch import patch as patches
from tui.formats import open_run

POLICY_DOWN = "policy service unavailable (503)"


@pytest.fixture
def api_env(stream_api: FakeMessagesAPI, monkeypatch) -> FakeMessagesAPI:
    """The fake server as the SDK's endpoint (ANTHROPIC_BASE_URL) with a dummy key."""
    for name, value in stream_api.env().items():
        monkeypatch.setenv(name, value)
    return stream_api


def branch_app(tmp_path: Path, path=REFUND, at: int = 4, **options):
    app = app_for(path, tmp_path, at=at, **options)
    app.branch_data_dir = str(tmp_path / "data")
    return app


async def type_text(pilot, text: str) -> None:
    """Type ``text`` as keys, once a text box has the focus (a dialog just pushed focuses its box on mount:
    keys pressed before that went to the screen, and the first characters were lost on a loaded machine)."""
    await until(pilot, lambda: isinstance(pilot.app.focused, (Input, TextArea)), what="a text box with the focus")
    await pilot.press(*["space" if c == " " else c for c in text])


async def until(pilot, condition, timeout: float = 30.0, what: str = "") -> None:
    """Pause until ``condition()`` holds (the app keeps running meanwhile)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what or condition}:\n{screen_text(pilot.app)}")
        await pilot.pause(0.05)


async def until_text(pilot, words: str, timeout: float = 30.0) -> str:
    await until(pilot, lambda: words in screen_text(pilot.app), timeout, repr(words))
    return screen_text(pilot.app)


async def checked(pilot) -> str:
    """Wait for the editor's debounced check to come back; the screen text."""
    from tui.app.screens.branch.editor import BranchEditorScreen

    screen = pilot.app.screen
    assert isinstance(screen, BranchEditorScreen)
    await until(pilot, lambda: not screen.pending, what="the edit to be checked")
    await settle(pilot)
    return screen_text(pilot.app)


def expected_request(at: int = 4, text: str = POLICY_DOWN) -> dict:
    """The refund run's request with lookup_policy's result turned into an error (the core's quick edit)."""
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, at)
    return patches.apply(base, patches.tool_error(base, "toolu_01Ef", text), at)


async def open_editor(pilot):
    """``b`` in the stepper: the branch editor at the stepper's index."""
    from tui.app.screens.branch.editor import BranchEditorScreen

    await settle(pilot)
    await pilot.press("b")
    await settle(pilot)
    assert isinstance(pilot.app.screen, BranchEditorScreen)
    return pilot.app.screen


async def policy_error(pilot, message: str = POLICY_DOWN) -> str:
    """The quick edit: e on the highlighted tool_result, type the message, Enter."""
    await pilot.press("e")
    await settle(pilot)
    await pilot.press("ctrl+u")  # clear the suggested text
    await type_text(pilot, message)
    await pilot.press("enter")
    return await checked(pilot)


async def review(pilot) -> str:
    """ctrl+s in the editor: the review dialog, once it says what will be sent."""
    await pilot.press("ctrl+s")
    return await until_text(pilot, "Send this branch?")


async def send(pilot, steps_down: int = 0) -> None:
    """Review the edit and send it (``steps_down`` times ``-`` first: a lower step limit)."""
    await review(pilot)
    for _ in range(steps_down):
        await pilot.press("minus")
    await pilot.press("enter")
