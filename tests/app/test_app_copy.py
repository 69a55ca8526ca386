"""``y`` copies the exact request body through OSC 52; a body larger than OSC 52 carries is not sent:
the stepper says so and writes it to a file the user names instead (never the run's own file)."""

from __future__ import annotations

from app_helpers import REFUND, app_for, settle

from tui.app.screens import stepper
from tui.app.screens.dialogs import PromptScreen
from tui.core.prefix import request_json
from tui.formats import open_run


def _told(app) -> list[str]:
    told: list[str] = []
    notify = app.notify
    app.notify = lambda message, **kw: (told.append(message), notify(message, **kw))[1]
    return told


async def test_a_body_too_large_for_osc_52_is_offered_as_a_file(tmp_path, monkeypatch):
    body = request_json(open_run(str(REFUND)), 5)
    monkeypatch.setattr(stepper, "OSC52_LIMIT", len(body) - 1)  # this body is one byte too large
    app = app_for(REFUND, tmp_path, at=5)
    told = _told(app)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append
    target = tmp_path / "body.json"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen) and copied == []  # nothing was sent, nothing claimed
        assert "more than OSC 52 carries" in app.screen.question and "nothing was copied" in app.screen.question
        app.screen.answer.value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert target.read_bytes() == body
        assert told[-1] == f"Wrote the request body for message 5 (reconstructed bytes): {len(body):,} bytes to {target}"
        await pilot.press("y")
        await settle(pilot)
        app.screen.answer.value = str(REFUND)  # the run's own file: refused
        await pilot.press("enter")
        await settle(pilot)
        assert "never written" in told[-1]


async def test_a_body_that_fits_is_copied_and_says_so(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    told = _told(app)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert copied == [request_json(app.screen.view.run, 5).decode()]
        assert told[-1].startswith("Copied the request body for message 5")
