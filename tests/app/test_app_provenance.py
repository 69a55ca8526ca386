"""Provenance in the stepper, driven by keys: where each tool input came from, Enter to the source with the
value marked, invented values as provenance warnings in Problems; the Account view's text; and run text in
the new views shown, never obeyed."""

from __future__ import annotations

import copy
import json
import re

from analysis_helpers import INVENTED, cursor_to, stepper
from app_helpers import REFUND, app_for, screen_text, settle
from run_files import write_jsonl


async def test_provenance_of_8900_goes_to_message_2_with_the_value_marked(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        pane = stepper(app).request
        rows = pane.text_rows()
        assert any('.order_id = "4471"  ← message 0 (caller) · block 0 · .text [18:22]' in r for r in rows)
        assert any(".amount_cents = 8900  ← message 2 (loop) · block 0 · .content | fromjson |" in r for r in rows)
        await cursor_to(pilot, pane, ".amount_cents = 8900")
        await pilot.press("enter")
        await settle(pilot)
        screen = stepper(app)
        assert screen.index == 2 and screen.view_name == "request" and screen.focused is pane
        row = pane.text_rows()[pane.cursor]
        assert "total_cents: 8900" in row  # the result's JSON shown field by field
        # On screen, 8900 is drawn marked (reverse video: it reads without colour too), the rest of the row not.
        y = pane.cursor - pane.scroll_offset.y
        strip = pane.render_line(y)
        marked = "".join(s.text for s in strip if s.style is not None and s.style.reverse)
        assert marked == "8900"


async def test_an_invented_order_id_is_flagged_and_listed_as_a_provenance_warning(tmp_path):
    app = app_for(INVENTED, tmp_path, at=5)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        rows = screen.request.text_rows()
        # the run records its system prompt and tools, so a value none of them holds is the model's
        assert any('.order_id = "4417"  ◦ note: not in the prefix: produced by the model' in r for r in rows)
        assert "1 provenance note" in screen_text(app)
        assert screen.view.severity(5) == "note"  # the ◦ in the message list, a class below warnings
        await pilot.press("g", "4")
        await settle(pilot)
        text = screen_text(app)
        assert "1 provenance note hidden (v shows them)" in text and "4 Problems (0 +1 notes)" in text
        assert "Provenance notes" not in text
        await pilot.press("v")  # the severity filter: everything
        await settle(pilot)
        text = screen_text(app)
        assert "Provenance notes (1)" in text and '.order_id = "4417"' in text
        await pilot.press("enter")  # the focused view has its first finding selected: Enter jumps at once
        await settle(pilot)
        assert screen.index == 5
        await pilot.press("g", "right_square_bracket")  # no error or warning: ] stops at the note
        assert screen.index == 5


async def test_account_verb_prints_the_text_the_account_view_shows(cli, tmp_path):
    result = cli("account", INVENTED, "--json")
    assert result.code == 0, result.stderr
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    app = app_for(INVENTED, tmp_path, view="account")
    async with app.run_test(size=(120, 40)) as pilot:
        for doc in docs:
            stepper(app).go_to(doc["index"])
            await settle(pilot)
            shown = stepper(app).account_view.body.content.plain
            for sentence in doc["sentences"]:
                assert sentence in shown


HOSTILE = ("\x1b[31mRED\x1b[0m \x1b]52;c;SGVsbG8=\x07 \x9b31m \u202eevil\u202c [bold red]markup[/] "
           "[link=https://x.example]l[/link] \x1b[2J")


CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


async def test_run_text_in_the_new_views_is_shown_never_obeyed(tmp_path):
    header = {"system": "sys", "tools": [{"name": "get[b]x[/b]", "description": HOSTILE,
                                          "input_schema": {"type": "object"}}], "params": {"model": "m"}}
    messages = [{"role": "user", "content": "look up " + HOSTILE},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_[b]1", "name": "get[b]x[/b]",
                                                   "input": {"q": HOSTILE, "made_up": "zz" + HOSTILE.replace(" ", "_")}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_[b]1",
                                              "content": HOSTILE * 2}]},
                {"role": "assistant", "content": "done " + HOSTILE}]
    path = write_jsonl(tmp_path / "hostile.jsonl", messages, header)
    edited = copy.deepcopy(messages)
    edited[3]["content"] = "other " + HOSTILE
    other = write_jsonl(tmp_path / "hostile_b.jsonl", edited, header)
    app = app_for(path, tmp_path, at=1, diff=str(other))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)

        def clean(where: str) -> str:
            text = screen_text(app)
            assert not CONTROL.findall(text), f"{where}: control characters reached the screen"
            assert not CONTROL.findall(app.export_screenshot()), f"{where}: control characters in the SVG"
            return text

        assert "[bold red]markup[/]" in clean("diff screen") and "\\x1b[31mRED" in clean("diff screen")
        await pilot.press("escape")
        await settle(pilot)
        text = clean("request pane with provenance")
        assert "made_up" in text and "◦ note: not in the prefix" in text
        for key, where in (("4", "problems"), ("5", "tokens")):
            await pilot.press(key)
            await settle(pilot)
            clean(where)
