"""Every view and screen of the app shows hostile run text visibly and lets no control character through.

Each corpus item is placed everywhere run text can be (``hostile.hostile_run``) and the stepper
is driven through every surface it offers, found generically so that views and screens added
later are covered too: every key the stepper binds (views, folds, search, palette, help, go-to,
and whatever is bound next), every screen a key pushes, and each view's own keys. After each
step the composited screen (what Textual writes to the terminal) and the SVG export must hold
no control character. The Request and Raw views must show the item. The run list, the picker,
toasts, the line filter and a real terminal are in test_hostile_app_screens.py.
"""

from __future__ import annotations

import pytest
from app_helpers import app_for, settle
from hostile import ALL, CORPUS, Item, write_hostile_run
from hostile_app_helpers import clean, compact

from tui.app.screens.stepper import StepperScreen
from tui.core import jsonio
from tui.core.safe import visible

#: Keys that leave the stepper or act outside the terminal: pressed by the tests that are about them.
SKIP_ACTIONS = {"quit", "back", "copy"}


def _keys_of(node) -> list[tuple[str, str]]:
    """(key, action): one key for each action ``node`` binds (the keymap applied), the ones to skip left out."""
    found: dict[str, str] = {}
    for key, bindings in node._bindings.key_to_bindings.items():
        for binding in bindings:
            if binding.action.split("(")[0] not in SKIP_ACTIONS:
                found.setdefault(binding.action, key)
    return [(key, action) for action, key in found.items()]


def _stepper_keys(screen) -> list[tuple[str, str]]:
    return _keys_of(screen)


def _view_keys(screen) -> list[str]:
    """The keys that switch the stepper's view (bindings to a ``view(...)`` action), in order."""
    return [key for key, action in _stepper_keys(screen) if action.startswith("view(")]


async def _close_dialogs(app, pilot, stepper, key: str) -> None:
    """Close what ``key`` opened (a dialog, the palette, the key list, the branch editor, the branch
    tree): each is checked, then Escape must lead back to the stepper within a few presses."""
    for _ in range(5):
        if app.screen is stepper:
            return
        await pilot.press("escape")
        await settle(pilot)
        clean(app, f"after closing what {key} opened")
    assert app.screen is stepper, f"{key} left the stepper and Escape does not lead back"


@pytest.mark.parametrize("item", CORPUS, ids=lambda i: i.name)
async def test_each_item_in_every_view_is_shown_and_sends_no_control(tmp_path, item):
    path = write_hostile_run(tmp_path / "run.jsonl", item)
    app = app_for(path, tmp_path, at=3)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        stepper = app.screen
        assert isinstance(stepper, StepperScreen)
        await pilot.press("s", "t")  # the system prompt and the tools open
        await settle(pilot)
        assert item.shown in compact(clean(app, "request view")), "the request view does not show the item"
        for key in _view_keys(stepper):
            await pilot.press(key)
            await settle(pilot)
            clean(app, f"after {key}")
            await _close_dialogs(app, pilot, stepper, key)
        await pilot.press("2")
        await settle(pilot)
        raw = visible(jsonio.dumps(item.payload).decode()[1:-1])  # JSON's escapes, then made visible
        assert raw in compact(clean(app, "raw view")), "the raw view does not show the item"


async def test_every_key_of_the_stepper_on_the_whole_corpus(tmp_path):
    """Every key the stepper binds (whatever is bound next too), on a run holding every item at once;
    every view the stepper holds must be reached by some key (a view added later is visited here)."""
    path = write_hostile_run(tmp_path / "run.jsonl", Item("all", ALL, ""))
    app = app_for(path, tmp_path, at=3)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        stepper = app.screen
        views = {child.id for child in stepper.views.children}
        reached = set()
        for key, action in _stepper_keys(stepper):
            await pilot.press(key)
            await settle(pilot)
            clean(app, f"after {key} ({action})")
            await _close_dialogs(app, pilot, stepper, key)
            reached.add(stepper.views.current)
        assert views <= reached, f"views no key shows (so no test looked at them): {views - reached}"
        pressed: set[tuple[str, str]] = set()
        if stepper.zoomed:  # the first loop's f may have left one side zoomed: both sides back
            stepper.action_zoom()
        for view_key in _view_keys(stepper):  # then each view's own keys, and the list's, with it focused
            await pilot.press(view_key)
            await settle(pilot)
            for widget in [w for w in stepper.query("*") if w.focusable and w.region.area]:
                keys = [key for key, _ in _keys_of(widget)]
                for key in [k for k in keys if (type(widget).__name__, k) not in pressed]:
                    widget.focus()
                    await pilot.press(key)
                    await settle(pilot)
                    clean(app, f"{type(widget).__name__} key {key} in view {stepper.views.current}")
                    await _close_dialogs(app, pilot, stepper, key)
                    pressed.add((type(widget).__name__, key))
        assert len({name for name, _ in pressed}) >= 4, pressed  # the list and each view's own widget


async def test_search_palette_and_goto_show_hostile_text_as_text(tmp_path):
    item = Item("all", ALL, "")
    path = write_hostile_run(tmp_path / "run.jsonl", item)
    app = app_for(path, tmp_path, at=1)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"markup", "enter")
        await settle(pilot)
        shown = clean(app, "search")  # literal markup; a row may break between "]" and a word
        assert "[bold red]markup[/]" in shown or ("[bold red]" in shown and "markup[/]" in shown)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"tool call get")
        await pilot.pause(0.5)
        await settle(pilot)
        text = clean(app, "command palette")
        assert "[@click=app.quit]quit[/]" in text and "\\x1b[2J" in text
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("colon", *"5", "enter")
        await settle(pilot)
        assert app.screen.index == 5 and app.is_running  # a [@click=app.quit] in the run quit nothing
        clean(app, "after go to")
