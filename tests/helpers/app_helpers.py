"""Helpers for the stepper tests: build the app as the CLI does (``make_app``), away from the user's state,
and read what it put on the screen."""

from __future__ import annotations

from pathlib import Path

from textual.worker import WorkerCancelled

from conftest import SAMPLES

from tui.app.factory import app_of, load_opening
from tui.app.screens.stepper import StepperScreen
from tui.core import jsonio

REFUND = SAMPLES / "refund" / "run.jsonl"


def app_for(path: Path | str | None, tmp_path: Path, **options):
    """The app on ``path`` (or the picker), with state, cache and Claude Code home under ``tmp_path``."""
    return app_of(opening_for(path, tmp_path, **options))


def opening_for(path: Path | str | None, tmp_path: Path, **options):
    """What ``app_for``'s app opens on (``factory.load_opening``: nothing of Textual's yet)."""
    options.setdefault("keymap", {})
    options.setdefault("claude_home", tmp_path / "claude")
    options.setdefault("cache_dir", tmp_path / "cache")
    return load_opening(None if path is None else str(path), state_dir=tmp_path / "state", **options)


def stepper(app) -> StepperScreen:
    """The screen shown, which must be the stepper."""
    assert isinstance(app.screen, StepperScreen)
    return app.screen


def screen_text(app) -> str:
    """Every character the app would put on the terminal now (the composited screen)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def settle(pilot) -> None:
    """Wait until workers are done and the screen is redrawn: two frames in a row the same (a footer
    Textual recomposes after the bindings change is drawn a frame late on a busy machine)."""
    await pilot.pause()
    for _ in range(50):  # an exclusive worker replaced by a newer one ends cancelled: wait for the others
        try:
            await pilot.app.workers.wait_for_complete([w for w in pilot.app.workers if not w.is_cancelled])
            break
        except WorkerCancelled:
            continue
    await pilot.pause()
    last = screen_text(pilot.app)
    for _ in range(20):
        await pilot.pause()
        now = screen_text(pilot.app)
        if now == last:
            return
        last = now


def write_run(path: Path, messages: list, header: dict | None = None) -> Path:
    lines = ([jsonio.dumps(header)] if header else []) + [jsonio.dumps(m) for m in messages]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def long_run(path: Path, count: int, text) -> Path:
    """A run of ``count`` text messages, user and assistant by turns, message ``i`` saying ``text(i)``:
    long enough for the list and the request pane to scroll."""
    return write_run(path, [{"role": "user" if i % 2 == 0 else "assistant",
                             "content": [{"type": "text", "text": text(i)}]} for i in range(count)])
