"""The stepper driven by keys through Textual's Pilot, as a user over SSH would drive it."""

from __future__ import annotations

from app_helpers import REFUND, app_for, screen_text, settle, stepper, write_run
from conftest import SAMPLES
from textual import events

from tui.core.prefix import request_json
from tui.formats import open_run


async def test_stepping_moves_the_index_and_the_request_follows(tmp_path):
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert stepper(app).index == 0
        await pilot.press("j", "down", "j")
        await settle(pilot)
        assert stepper(app).index == 3
        text = screen_text(app)
        assert "message 3 of 8 · model call 2 of 4" in text
        assert "message 3 · assistant · call 2 · the model's output" in text
        await pilot.press("k", "up")
        await settle(pilot)
        assert stepper(app).index == 1
        await pilot.press("G")
        assert stepper(app).index == 7
        await pilot.press("g")
        assert stepper(app).index == 0


async def test_n_and_p_move_by_model_call(tmp_path):
    app = app_for(REFUND, tmp_path, at=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        assert stepper(app).index == 3
        await pilot.press("n", "n")
        assert stepper(app).index == 7
        await pilot.press("n")  # no later call: stays
        assert stepper(app).index == 7
        await pilot.press("p", "p")
        assert stepper(app).index == 3


async def test_go_to_index_and_a_bad_index_is_refused(tmp_path):
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon", "6", "enter")
        await settle(pilot)
        assert stepper(app).index == 6
        assert "message 6 · user · loop · the loop's output" in screen_text(app)
        await pilot.press("colon", "9", "9", "enter")
        await settle(pilot)
        assert stepper(app).index == 6
        await pilot.press("colon", "minus", "1", "enter")
        await settle(pilot)
        assert stepper(app).index == 7


async def test_search_then_next_and_previous_match(tmp_path):
    app = app_for(REFUND, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"AMOUNT_CENTS", "enter")  # any case; in tool inputs and results
        await settle(pilot)
        screen = stepper(app)
        assert screen.matches.rows == [5, 6]
        assert screen.index == 5
        await pilot.press("greater_than_sign")
        assert screen.index == 6
        await pilot.press("greater_than_sign")  # wraps round
        assert screen.index == 5
        await pilot.press("less_than_sign")
        assert screen.index == 6
        assert "match 2 of 2" in screen_text(app)


async def test_next_finding_and_enter_on_a_problem_jump_to_its_index(tmp_path):
    app = app_for(SAMPLES / "broken" / "orphan_result_retry.jsonl", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket")
        assert stepper(app).index == 3
        await pilot.press("g", "4")
        await settle(pilot)
        assert "unexpected_tool_use_id" in screen_text(app)
        await pilot.press("down", "enter")  # the second finding (3.0) -> message 3, request view
        await settle(pilot)
        screen = stepper(app)
        assert screen.index == 3 and screen.view_name == "request"
        assert "✗ error unexpected_tool_use_id" in screen_text(app)


async def test_system_and_tools_sections_toggle_and_schemas_open(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        pane = stepper(app).request
        assert not any("## Refunds" in row for row in pane.text_rows())
        await pilot.press("s")
        await settle(pilot)
        assert any("## Refunds" in row for row in pane.text_rows())
        await pilot.press("s", "t")
        await settle(pilot)
        rows = pane.text_rows()
        assert not any("## Refunds" in row for row in rows)
        assert any("get_shipment  Get the carrier" in row for row in rows)
        assert not any('"required"' in row for row in rows)
        await pilot.press("tab", "down", "down", "enter")  # focus the pane, open get_shipment's schema
        await settle(pilot)
        assert any('"required": [' in row for row in pane.text_rows())


async def test_enter_opens_a_folded_message_and_a_long_result(tmp_path):
    long = "\n".join(f"log line {k}" for k in range(500))
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "logs", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": long}]},
                {"role": "assistant", "content": "done"}]
    app = app_for(write_run(tmp_path / "long.jsonl", messages), tmp_path, at=3)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        pane = stepper(app).request
        rows = pane.text_rows()
        assert any("log line 3" in row for row in rows) and not any("log line 499" in row for row in rows)
        assert any("enter: expand" in row for row in rows)
        await pilot.press("tab")
        pane.move_cursor(next(y for y, row in enumerate(rows) if "enter: expand" in row))
        await pilot.press("enter")
        await settle(pilot)
        assert any("log line 499" in row for row in pane.text_rows())


async def test_views_switch_and_show_their_own_content(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        text = screen_text(app)
        assert '"max_tokens": 1024' in text and "pretty-printed" in text
        await pilot.press("3")
        await settle(pilot)
        assert "It was produced by model call 3 of 4" in screen_text(app)
        await pilot.press("4")
        await settle(pilot)
        assert "No findings" in screen_text(app)
        await pilot.press("1")
        await settle(pilot)
        assert "the model's output" in screen_text(app)


async def test_copy_puts_the_exact_request_body_on_the_clipboard(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.clipboard.encode() == request_json(open_run(str(REFUND)), 5)


async def test_thinking_not_returned_is_said_so_with_its_signature(tmp_path):
    run = open_run(str(SAMPLES / "redacted_thinking.jsonl"))
    at = next(i for i, m in enumerate(run.messages) if m["role"] == "assistant")
    app = app_for(SAMPLES / "redacted_thinking.jsonl", tmp_path, at=at)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "thinking not returned by the provider" in screen_text(app)
        assert "characters)" in screen_text(app)


async def test_usable_at_80x24_with_the_panes_stacked(tmp_path):
    app = app_for(REFUND, tmp_path, at=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        assert screen.has_class("-narrow")
        assert screen.message_list.region.bottom <= screen.request.region.y
        assert screen.request.region.height >= 8
        text = screen_text(app)
        assert "Step" in text and "Quit" in text and "Keys" in text
        await pilot.press("j", "2", "3", "4", "1")
        await settle(pilot)
        assert screen.index == 6


async def test_the_app_widget_count_does_not_grow_with_the_run(tmp_path):
    def run_of(n: int):
        messages = [{"role": "user", "content": "q"}]
        for k in range(n // 2):
            messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": "f", "input": {}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": "r"}]}]
        return write_run(tmp_path / f"run{n}.jsonl", messages)

    counts = []
    for n in (20, 20_000):
        app = app_for(run_of(n), tmp_path, at=-1)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            counts.append(len(app.screen.query("*")))  # the footer is one widget, whatever keys it shows
            assert len(stepper(app).request._parts) < 30
    assert counts[0] == counts[1]


async def test_a_rewritten_turn_shows_what_the_provider_returned(tmp_path):
    app = app_for(SAMPLES / "broken" / "rewritten_turn.turnscope.json", tmp_path, at=3)
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        rows = stepper(app).request.text_rows()
        returned = next(y for y, row in enumerate(rows) if "what model call 2 returned" in row)
        assert any("No scan in over a month" in row for row in rows[returned:])
        assert "exact prefix" in screen_text(app)
        assert any("assistant_turn_rewritten" in row for row in rows[:returned])


async def test_images_and_documents_are_placeholders_with_type_and_size(tmp_path):
    messages = [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD" * 1000}},
        {"type": "document", "source": {"type": "url", "url": "https://example.com/policy.pdf"}, "title": "Policy"},
        {"type": "text", "text": "what is this?"}]},
        {"role": "assistant", "content": "a picture"}]
    app = app_for(write_run(tmp_path / "images.jsonl", messages), tmp_path, at=0)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "[image · image/png · 3.0 KB (base64)]" in text
        assert "[document · url · url https://example.com/policy.pdf · Policy]" in text
        assert "QUJDQUJD" not in text


async def test_a_held_key_moves_once_per_frame_and_builds_the_request_once_not_per_repeat(tmp_path):
    """A held ``j`` is 40 key repeats arriving faster than the screen draws: the list's ``Moved`` is
    coalesced (``can_replace``), so the request for the index is built a few times, not 40, and ends
    on the message the 40 repeats reach (the findings and the analyses arrive once, not per step)."""
    messages = [{"role": "user", "content": "q"}]
    for k in range(40):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": "f", "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": "r"}]}]
    app = app_for(write_run(tmp_path / "run.jsonl", messages), tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = stepper(app)
        built, moves = [], []
        show, go_to = screen.request.show, screen.go_to
        screen.request.show = lambda index, follow=True: (built.append(index), show(index, follow))[1]
        screen.go_to = lambda index: (moves.append(index), go_to(index))[1]
        for _ in range(40):  # as a terminal sends a held key: all queued before the app reads one
            app.post_message(events.Key("j", "j"))
        await settle(pilot)
        assert screen.index == 40 and screen.message_list.cursor == 40
        assert "message 40 of 81" in screen_text(app)
        assert built and built[-1] == 40
        assert len(moves) <= 5, moves  # one per frame: 40 without coalescing
        assert len(built) <= len(moves) + 1, built
        # the index and the analyses reached every bound view through the one state the screen set
        state = screen.run_state
        assert state.index == 40 and state.findings == 1 and state.tokens == 1
        assert screen.message_list.run_state == screen.problems.run_state == screen.tokens_view.run_state == state
