"""Who produced each message and which transition it caused, and the four-sentence account,
on the seeds' refund run and its broken variants."""

from __future__ import annotations

import pytest

from conftest import SAMPLES
from runbuild import ASK, assistant, run_of, text, use, user, result
from tui.core.account import account
from tui.core.producers import producers
from tui.core.run import ModelCall
from tui.formats import open_run


@pytest.fixture
def refund():
    return open_run(str(SAMPLES / "refund/run.jsonl"))


def test_refund_producer_table(refund):
    table = producers(refund)
    assert [(p.index, p.kind, p.call, p.parity_break) for p in table] == [
        (0, "caller", None, False), (1, "model", 0, False), (2, "loop", None, False), (3, "model", 1, False),
        (4, "loop", None, False), (5, "model", 2, False), (6, "loop", None, False), (7, "model", 3, False)]
    # Parity names the producer while the alternation holds: even the loop's (or caller's), odd the model's.
    assert all((p.kind == "model") == (p.index % 2 == 1) for p in table)
    assert [p.label for p in table] == ["caller", "call 1", "loop", "call 2", "loop", "call 3", "loop", "call 4"]
    assert [(p.stop_reason, p.stop_inferred) for p in table if p.kind == "model"] == \
        [("tool_use", True)] * 3 + [("end_turn", True)]


def test_refund_transitions(refund):
    assert [p.transition for p in producers(refund)] == [
        "the caller's message hands control to the model",
        "tool_use hands control to the loop",
        "results hand control back to the model",
        "tool_use hands control to the loop",
        "results hand control back to the model",
        "tool_use hands control to the loop",
        "results hand control back to the model",
        "end_turn ends the run",
    ]


def test_recorded_stop_reasons_are_used_and_the_caller_can_write_again():
    run = open_run(str(SAMPLES / "other_account.jsonl"))
    table = producers(run)
    assert len(run.calls) == 7
    assert (table[7].transition, table[8].kind, table[8].transition) == (
        "end_turn returns control to the caller", "caller", "the caller's message hands control to the model")
    recorded = run_of([ASK, assistant(text("Partial"))], calls=[ModelCall(message=1, stop_reason="max_tokens")])
    p = producers(recorded)[1]
    assert (p.stop_reason, p.stop_inferred, p.transition) == ("max_tokens", False, "max_tokens cut the turn off: the run ends here")


def test_parity_breaks_are_marked_where_they_happen():
    table = producers(open_run(str(SAMPLES / "broken/orphan_result_retry.jsonl")))
    assert [p.index for p in table if p.parity_break] == [3]
    assert table[3].transition == "the run stops here: the next request was never answered"
    two = producers(run_of([ASK, assistant(use("toolu_01Ab")), assistant("Hm."), user(result("toolu_01Ab"))]))
    assert [p.index for p in two if p.parity_break] == [2]
    assert two[1].transition == "tool_use hands control to the loop" and two[2].call == 1


def test_prefill_and_unanswered_calls():
    table = producers(open_run(str(SAMPLES / "refund/request.json")))
    assert table[6].transition == "the run stops here: the next request was never answered"
    prefilled = run_of([ASK, assistant("{")], prefill=True)
    assert (producers(prefilled)[1].kind, prefilled.calls) == ("prefill", [])
    stopped = producers(run_of([ASK, assistant(use("toolu_01Ab"))]))
    assert stopped[1].transition == "tool_use hands control to the loop, which never answered: the run ends here"


def test_producers_upto_is_a_prefix_of_the_table(refund):
    assert producers(refund, upto=4) == producers(refund)[:4]


def test_account_of_message_3_of_the_refund_run(refund):
    """The seed's drill for message 3: what it is, who produced it, what the model could see
    (and so knew: shipped, 8900 cents, 33 days without a scan), why control moved."""
    what, who, visible, why = account(refund, 3)
    assert what.startswith("Message 3 is an assistant turn")
    assert "lookup_policy" in what and "lost_shipment" in what and "1 tool_use" in what
    assert who == "It was produced by model call 2 of 4 (claude-sonnet-4-5)."
    assert "messages 0-2" in visible
    assert "message 0" in visible and "turn 1" in visible and "results at message 2" in visible
    for fact in ('"status":"shipped"', '"total_cents":8900', '"last_scan":"33d ago"', "search_orders", "get_shipment"):
        assert fact in visible
    assert "system prompt" in visible and "4 tool schemas" in visible
    assert "tool call" in why and "control moved to the loop" in why and "message 4 comes from the loop" in why


def test_account_of_the_money_moving_message(refund):
    what, who, visible, why = account(refund, 6)
    assert "toolu_01Gh" in what
    assert who == "It was appended by the loop, carrying results for the tool calls of message 5."
    assert "issue_refund" in visible and '"amount_cents":8900' in visible and "message 5" in visible
    assert why == "Results hand control back to the model; message 7 comes from model call 4."


def test_account_of_every_message_has_four_sentences_tied_to_the_index(refund):
    for i in range(len(refund.messages)):
        sentences = account(refund, i)
        assert len(sentences) == 4 and sentences[0].startswith(f"Message {i} is")
        assert all(s.endswith(".") for s in sentences)
    assert account(refund, 7)[3] == "The turn contains no tool call (stop_reason end_turn, inferred), so the run ends here (nothing follows message 7)."


def test_account_says_when_the_source_holds_no_system_prompt():
    run = open_run(str(SAMPLES / "refund/messages.json"))
    assert "no system prompt or tool schemas recorded" in account(run, 1)[2]


def test_account_of_an_orphan_result_names_no_asking_turn():
    run = open_run(str(SAMPLES / "broken/orphan_result_retry.jsonl"))
    what, who, visible, why = account(run, 3)
    assert who == "It was appended by the loop, carrying tool results no earlier turn asked for."
    assert visible.startswith("Messages 0-2 came before it")
