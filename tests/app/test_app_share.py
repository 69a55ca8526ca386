"""The stepper's palette shares a run: "Export this run" writes the export and says where, asking first
(and showing what will be redacted, kinds and places only) when the run holds secrets; "Copy as cURL"
copies the request at N as a curl command that holds no key. At 80x24, keyboard only."""

from __future__ import annotations

from app_helpers import REFUND, app_for, screen_text, settle
from planted import SECRETS, leaked, write_planted_run

from tui.app.share import RedactScreen


def _notes(app) -> str:
    return " ".join(str(n.message) for n in app._notifications)
from tui.app.screens.stepper import StepperScreen


async def _palette(pilot, query: str) -> None:
    await pilot.press("ctrl+p")
    await settle(pilot)
    await pilot.press(*query)
    await pilot.pause(0.5)  # the palette searches its providers in the background
    await settle(pilot)
    await pilot.press("down", "enter")
    await settle(pilot)


async def test_export_of_a_run_with_secrets_asks_first_and_writes_it_redacted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write_planted_run(tmp_path / "planted.jsonl")
    app = app_for(path, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _palette(pilot, "export this run html")
        assert isinstance(app.screen, RedactScreen)
        text = screen_text(app)
        assert "This run holds 36 secrets." in text and "y / enter: export redacted" in text
        assert "AWS Access Key in the system prompt" in text and not leaked(text) and "ending" not in text
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, StepperScreen) and not (tmp_path / "planted.html").exists()
        assert "Nothing was written." in _notes(app)
        await _palette(pilot, "export this run html")
        await pilot.press("y")
        await settle(pilot)
        written = (tmp_path / "planted.html").read_bytes()
        assert not leaked(written) and all(f"⟨redacted: {kind}⟩".encode() in written for kind in SECRETS)
        assert "Wrote planted.html (html, 24 messages, the request at 0, 36 secrets redacted)" in _notes(app)
        assert not leaked(_notes(app))
    # Every byte the app wrote (its state, caches, the export) holds no secret; only the input does.
    written_files = [f for f in tmp_path.rglob("*") if f.is_file() and f.name != "planted.jsonl"]
    assert written_files and not [str(f) for f in written_files if leaked(f.read_bytes())]


async def test_export_of_a_clean_run_writes_without_asking(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _palette(pilot, "export this run markdown")
        assert isinstance(app.screen, StepperScreen)
        assert "Wrote run.md (md, " in _notes(app)
        text = (tmp_path / "run.md").read_text()
        assert "## Messages (" in text and "### \\[0\\] user" in text


async def test_copy_as_curl_copies_the_request_and_no_key(tmp_path, monkeypatch):
    key = SECRETS["Anthropic API Key"]
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    app = app_for(REFUND, tmp_path, at=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _palette(pilot, "copy as curl")
        copied = app.clipboard
        assert copied.startswith("curl -sS ") and '"x-api-key: $ANTHROPIC_API_KEY"' in copied
        assert key not in copied and key not in app.export_screenshot()
        assert "Copied the request for message 3 as a curl command" in _notes(app) and key not in _notes(app)


async def test_the_problems_view_lists_hidden_text_and_secrets_beside_the_grammar(tmp_path):
    from hostile_app_helpers import clean

    path = write_planted_run(tmp_path / "planted.jsonl")
    app = app_for(path, tmp_path)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        text = clean(app, "problems view")
        assert "warning 2.0    hidden_text" in text and "warning 1.3    secret_in_content" in text
        assert 'likely injection: hidden text in the tool result: tag characters saying "ignore previous' in text
        assert "AWS Access Key in the tool input headers.auth, ending …" in text
