"""The cursor keys of the Line API lists (message list, request pane, branch editor's parts): each moves
the cursor a user sees, a click picks a row, and a keymap remaps them by id (keymap.json names ids, so
an id that changed would silently undo a user's keymap)."""

from __future__ import annotations

from app_helpers import REFUND, app_for, settle

from tui.app.screens.branch.editor import BranchEditorScreen


async def test_message_list_keys_step_n_and_follow_the_keymap(tmp_path):
    app = app_for(REFUND, tmp_path, keymap={"list.next": "x", "list.last": "e"})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        last = screen.view.rows - 1  # the "next request" row
        for keys, index in ((("x",), 1), (("j", "j"), 3), (("k",), 2), (("e",), last), (("home",), 0),
                            (("pagedown",), last), (("pageup",), 0)):
            await pilot.press(*keys)
            assert (screen.index, screen.message_list.cursor) == (index, index), keys
        await pilot.click("#messages", offset=(10, 4))  # the fifth row
        await settle(pilot)
        assert screen.index == 4 and "message 4 of" in screen.header.render().plain


async def test_request_pane_cursor_keys_follow_the_keymap(tmp_path):
    app = app_for(REFUND, tmp_path, at=5, keymap={"lines.bottom": "e", "lines.down": "x"})
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.screen.request
        pane.focus()
        assert len(pane.document) > pane.scrollable_content_region.height  # it scrolls
        await pilot.press("home")
        assert pane.cursor == 0
        await pilot.press("x", "j")
        assert pane.cursor == 2
        await pilot.press("e")
        assert pane.cursor == len(pane.document) - 1
        assert pane.scroll_offset.y > 0  # the last row is in view
        await pilot.press("k", "home")
        assert pane.cursor == 0 and pane.scroll_offset.y == 0
        assert app.screen.index == 5  # moving in the pane leaves N alone


async def test_branch_editor_part_list_keys_highlight_and_edit(tmp_path):
    app = app_for(REFUND, tmp_path, at=4, keymap={"targets.down": "x", "targets.first": "f"})
    app.branch_data_dir = str(tmp_path / "data")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, BranchEditorScreen)
        parts = editor.options
        await pilot.press("f")
        assert parts.cursor == 0
        await pilot.press("x", "j", "k", "x")
        await settle(pilot)
        assert parts.cursor == 2 and editor.key == editor.session.targets[2].key  # the editor shows that part
        await pilot.press("end")
        await settle(pilot)
        assert parts.cursor == parts.count - 1 and editor.key == editor.session.targets[-1].key
        await pilot.press("enter")
        assert app.focused is editor.editor
