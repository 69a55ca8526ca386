"""Branch mode in the app, driven by keys through Pilot: edit at index 4 of the refund run, send it
through the real anthropic SDK to the fake Messages API, answer a new tool call by hand, and see
the branch saved; an edit that breaks the grammar cannot be sent; a 400 is shown in the API's words."""

from __future__ import annotations

import pytest
from app_helpers import REFUND, screen_text, settle
from branch_app_helpers import (POLICY_DOWN, api_env, branch_app, checked, expected_request,  # noqa: F401
                                open_editor, policy_error, send, type_text, until, until_text)
from fake_messages_api_stream import Error, Turn, stream_api, text, tool_use  # noqa: F401

from tui.app.screens.dialogs import PromptScreen
from tui.app.screens.branch.dialogs import AnswerScreen
from tui.app.screens.branch.editor import BranchEditorScreen
from tui.app.screens.branch.review import ReviewScreen
from tui.app.screens.branch.run import BranchRunScreen
from tui.core.branch import store

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


async def test_edit_send_stream_answer_by_hand_and_save(api_env, tmp_path):
    api_env.add(Turn([text("I couldn't reach the policy service, so let me check returns instead."),
                      tool_use("toolu_N1", "lookup_policy", {"topic": "returns"})], "tool_use"),
                Turn([text("I can't refund this without the policy. I've passed it to a colleague.")]))
    parent_bytes = REFUND.read_bytes()
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await open_editor(pilot)
        assert editor.key == ("block", 4, 0)  # the cursor starts on message N's first block
        shown = await policy_error(pilot)
        assert "✓ no findings: this request can be sent" in shown
        assert "patch 3 ops" in shown
        assert '"is_error": true' in editor.editor.text

        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen)
        review = await until_text(pilot, "Send this branch?")
        assert "messages 0..4 as edited, the 3" in review and "claude-sonnet-4-5" in review
        assert '"path": "/messages/4/content/0/is_error"' in review  # the patch itself, before sending
        await pilot.press("enter")

        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), what="the manual resolver's dialog")
        asked = await until_text(pilot, "lookup_policy")  # the dialog is pushed a frame before it is drawn
        assert "lookup_policy" in asked and "toolu_N1" in asked and '"topic": "returns"' in asked
        await type_text(pilot, "Returns are accepted within 30 days.")
        await pilot.press("ctrl+s")

        run_screen = app.screen
        assert isinstance(run_screen, BranchRunScreen)
        done = await until_text(pilot, "the model ended its turn after 2 model calls")
        assert "I couldn't reach the policy service" in done  # the streamed turn, as it was saved
        assert "lookup_policy toolu_N1: answered by manual" in done
        assert "passed it to a colleague" in done
        path = run_screen.saved_path

    saved = store.load(path)  # the branch file is a native run that loads
    assert len(saved.messages) == 8 and saved.lineage["at"] == 4 and saved.lineage["status"] == "end_turn"
    assert saved.messages[6]["content"] == [{"type": "tool_result", "tool_use_id": "toolu_N1",
                                             "content": "Returns are accepted within 30 days."}]
    sent = api_env.bodies[0]
    assert sent.pop("stream") is True
    assert sent == expected_request()  # exactly the edited request: system, tools, params, 0..3, edited 4
    assert api_env.bodies[1]["messages"][5:] == saved.messages[5:7]
    assert REFUND.read_bytes() == parent_bytes


async def test_deleting_the_tool_result_shows_the_finding_and_cannot_be_sent(api_env, tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await open_editor(pilot)
        await pilot.press("d")
        shown = await checked(pilot)
        assert "cannot be sent: the API would reject this request" in shown
        assert "error message 4 tool_use_without_result" in shown  # the finding, with its index
        assert editor.check_action("review", ()) is None  # shown disabled in the footer
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor  # nothing to review, nothing sent
        await pilot.press("u")  # undo: sendable again
        assert "✓ no findings" in await checked(pilot)
    assert api_env.requests == []
    assert not (tmp_path / "data").exists()  # no branch file either


async def test_typing_invalid_json_blocks_sending_until_fixed(api_env, tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await open_editor(pilot)
        await pilot.press("enter")  # into the JSON editor
        assert app.focused is editor.editor
        await pilot.press("end", "backspace")  # the opening brace goes
        shown = await checked(pilot)
        assert "[4.0] user · tool_result toolu_01Ef: not valid JSON" in shown
        assert editor.check_action("review", ()) is None
        await pilot.press("{")
        assert "✓ no findings" in await checked(pilot)
        assert not editor.session.edited(("block", 4, 0))  # typed back to what it was: no edit
        await pilot.press("escape")  # out of the JSON editor, back to the list
        assert app.focused is editor.options
        await pilot.press("escape")  # and the editor closes, back to the stepper at the same index
        await settle(pilot)
        assert app.screen is not editor and app.screen.index == 4


async def test_a_400_is_shown_in_the_apis_words_and_nothing_is_lost(api_env, tmp_path):
    api_env.add(Error(400, "invalid_request_error", "messages.4.content.0: tool_result content is too spicy",
                      {"x-should-retry": "false"}))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        await send(pilot)
        shown = await until_text(pilot, "the API answered 400")
        assert "invalid_request_error: messages.4.content.0: tool_result content is too spicy" in shown
        assert "the branch is saved up to message 4" in shown
        path = app.screen.saved_path
        await pilot.press("escape")  # back to the editor, the edit still there
        await settle(pilot)
        assert isinstance(app.screen, BranchEditorScreen) and app.screen.session.edited(("block", 4, 0))
    saved = store.load(path)
    assert len(saved.messages) == 5 and saved.lineage["status"] == "api_error"
    assert saved.messages[4]["content"][0]["is_error"] is True


async def test_no_api_key_says_how_to_set_it_and_sends_nothing(api_env, tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await open_editor(pilot)
        shown = await checked(pilot)
        # said in the editor before any edit is built, never "this request can be sent"
        assert "ANTHROPIC_API_KEY is not set" in shown and "can be sent" not in shown
        await policy_error(pilot)
        await pilot.press("ctrl+s")  # asks for the key instead of refusing at send
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is editor and editor.session.edited(("block", 4, 0))  # the edit is kept
        notes = " ".join(str(n.message) for n in app._notifications)
        assert "ANTHROPIC_API_KEY is not set" in notes and "export ANTHROPIC_API_KEY=" in notes
    assert api_env.requests == [] and not (tmp_path / "data").exists()


async def test_a_key_typed_in_the_editor_keeps_the_edit_and_sends_it(api_env, tmp_path, monkeypatch):
    from fake_messages_api_stream import DUMMY_KEY

    monkeypatch.delenv("ANTHROPIC_API_KEY")
    api_env.add(Turn([text("Sorry, the policy service is down.")]))
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        editor = await open_editor(pilot)
        await policy_error(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        await type_text(pilot, DUMMY_KEY)
        assert DUMMY_KEY not in screen_text(app)  # typed as dots
        await pilot.press("enter")
        await until_text(pilot, "Send this branch?")
        assert editor.session.edited(("block", 4, 0))
        await pilot.press("enter")
        await until_text(pilot, "the model ended its turn", timeout=60)
        path = app.screen.saved_path
    assert api_env.bodies[0]["messages"][4]["content"][0]["is_error"] is True
    assert DUMMY_KEY.encode() not in open(path, "rb").read()


async def test_an_unreachable_base_url_is_said_in_the_editor_with_the_url(api_env, tmp_path, monkeypatch):
    import socket

    with socket.socket() as deaf:
        deaf.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{deaf.getsockname()[1]}"
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        app = branch_app(tmp_path)
        async with app.run_test(size=(120, 40)) as pilot:
            await open_editor(pilot)
            shown = await until_text(pilot, "cannot reach")
            assert f"cannot reach {url}" in shown


async def test_escape_cancels_a_stalled_stream_and_the_file_keeps_only_complete_turns(api_env, tmp_path):
    api_env.add(Turn([text("Let me think about what to tell the customer now that the policy is unavailable.")],
                     stall_after=6))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        await send(pilot)
        streaming = await until_text(pilot, "streaming …")
        await until(pilot, lambda: api_env.stalled.is_set(), what="the server to stall")
        streaming = await until_text(pilot, "Let me")  # part of the turn, as it arrived
        assert "[5] assistant · streaming …" in streaming
        await pilot.press("escape")
        shown = await until_text(pilot, "cancelled after 0 model calls")
        assert "streaming …" not in shown  # the turn in flight is dropped from the screen too
        path = app.screen.saved_path
    api_env.release.set()
    saved = store.load(path)
    assert len(saved.messages) == 5 and saved.lineage["status"] == "cancelled"
    assert saved.messages[4]["content"][0]["content"] == POLICY_DOWN


async def test_model_override_and_step_limit(api_env, tmp_path):
    api_env.add(Turn([tool_use("toolu_S1", "issue_refund", {"order_id": "4471", "amount_cents": 8900})], "tool_use"))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_editor(pilot)
        await pilot.press("m", "ctrl+u")
        await type_text(pilot, "claude-override-1")
        await pilot.press("enter")
        shown = await checked(pilot)
        assert "model claude-override-1" in shown and "✎ params · model, max_tokens" in shown
        await send(pilot, steps_down=9)  # a step limit of 1 model call
        shown = await until_text(pilot, "stopped at the step limit after 1 model call")
        assert "up to 1 model calls" in shown
        path = app.screen.saved_path
    sent = api_env.bodies[0]
    assert sent["model"] == "claude-override-1" and len(api_env.bodies) == 1
    saved = store.load(path)
    assert saved.lineage["model"] == "claude-override-1" and saved.lineage["max_steps"] == 1
    assert {"op": "replace", "path": "/model", "value": "claude-override-1"} in saved.lineage["patch"]
    assert saved.lineage["status"] == "max_steps" and len(saved.messages) == 6  # the call is left unanswered


@pytest.mark.parametrize("replies, expected", [
    ([Error(401, "authentication_error", "invalid x-api-key")],
     "the API answered 401 authentication_error: invalid x-api-key"),
    ([Error(529, "overloaded_error", "Overloaded")] * 3,  # the first try and the SDK's two retries
     "the API answered 529 overloaded_error: Overloaded"),
    ([Error(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")] * 3,
     "the API answered 429 rate_limit_error: Number of request tokens has exceeded"),
])
async def test_api_failures_are_shown_and_nothing_is_lost(api_env, tmp_path, replies, expected):
    api_env.add(*replies)
    app = branch_app(tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        await send(pilot)
        # the second line of the status is drawn once the Static has its new height: wait for it
        shown = await until_text(pilot, "the branch is saved up to message 4")
        assert expected in shown
        path = app.screen.saved_path
    assert len(api_env.bodies) == len(replies)
    saved = store.load(path)
    assert len(saved.messages) == 5 and saved.lineage["status"] == "api_error"


async def test_a_network_failure_is_shown_and_nothing_is_lost(api_env, tmp_path, monkeypatch):
    import socket

    # a port on 127.0.0.1 bound but not listening: connections are refused, and the port stays
    # ours for the whole test (closed, another test's fake server could take it meanwhile)
    with socket.socket() as deaf:
        deaf.bind(("127.0.0.1", 0))
        monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{deaf.getsockname()[1]}")
        app = branch_app(tmp_path)
        async with app.run_test(size=(140, 40)) as pilot:
            await open_editor(pilot)
            await policy_error(pilot)
            await send(pilot)
            shown = await until_text(pilot, "the branch is saved up to message 4", timeout=60)
            assert "could not reach the API" in shown
            path = app.screen.saved_path
    assert store.load(path).lineage["status"] == "api_error"


async def test_changing_a_tool_use_input_from_the_list(tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await open_editor(pilot)
        await pilot.press("up")  # [3.1] the lookup_policy call
        await settle(pilot)
        assert editor.key == ("block", 3, 1) and editor.check_action("tool_input", ()) is True
        assert editor.check_action("tool_error", ()) is False  # not a tool_result: not offered
        await pilot.press("i", "ctrl+u")
        await type_text(pilot, '{"topic": "returns"}')
        await pilot.press("enter")
        shown = await checked(pilot)
        assert "✓ no findings" in shown and '"topic": "returns"' in editor.editor.text
        patch = editor.session.patch()
        assert {"op": "replace", "path": "/messages/3/content/1/input/topic", "value": "returns"} in patch


async def test_recorded_then_an_error_result_then_a_call_left_unanswered(api_env, tmp_path):
    api_env.add(Turn([tool_use("toolu_E1", "issue_refund", {"order_id": "4471", "amount_cents": 8900})], "tool_use"),
                Turn([tool_use("toolu_E2", "issue_refund", {"order_id": "4471", "amount_cents": 100})], "tool_use"),
                Turn([tool_use("toolu_E3", "lookup_policy", {"topic": "returns"})], "tool_use"))
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await open_editor(pilot)
        await policy_error(pilot)
        await send(pilot)
        # E1 is the run's own call at message 5 (same tool, same input): its recorded result, no dialog
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen), what="the second call")
        assert app.screen.call.id == "toolu_E2"
        await type_text(pilot, "card declined")
        await pilot.press("ctrl+t")  # sent as an error result
        await until(pilot, lambda: isinstance(app.screen, AnswerScreen) and app.screen.call.id == "toolu_E3",
                    what="the third call")
        await pilot.press("escape")  # stop the branch here, the call unanswered
        shown = await until_text(pilot, "a tool call is left unanswered")
        assert "issue_refund toolu_E1: answered by recorded (message 6)" in shown
        assert "issue_refund toolu_E2: answered by manual (error) ERROR" in shown
        assert "lookup_policy toolu_E3: left unanswered" in shown
        path = app.screen.saved_path
    assert api_env.bodies[1]["messages"][6]["content"][0]["content"] == '{"refund_id":"re_9d2","amount_cents":8900,"state":"succeeded"}'
    assert api_env.bodies[2]["messages"][8]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_E2", "content": "card declined", "is_error": True}]
    saved = store.load(path)  # ends with the unanswered call: `turnscope branch --resume` can answer it
    assert saved.lineage["status"] == "stopped" and len(saved.messages) == 10
    assert saved.messages[-1]["content"][0]["id"] == "toolu_E3"
