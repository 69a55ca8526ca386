"""How the check reads a run, beyond single rules: turns merged as the API merges them, the
likely cause of each pairing break, the run's final response (never sent) versus a prefill
(sent), and real recorded requests the API accepted."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES
from runbuild import ASK, assistant, result, run_of, text, use, user
from tui.core.grammar import ERROR, WARNING, check_request, check_run
from tui.formats import open_run

CALLS = assistant(text("Let me pull up the order and its shipment."), use("toolu_01Ab", "search_orders"),
                  use("toolu_01Cd", "get_shipment"))


def rules(findings) -> list[tuple[str, str, int | None, int | None]]:
    return [(f.severity, f.rule, f.index, f.block) for f in findings]


# -- merged turns ---------------------------------------------------------------------------

def test_consecutive_same_role_turns_are_warnings_and_pairing_sees_them_merged():
    # Results split over two user messages: the API merges them into one turn that answers both.
    run = run_of([ASK, CALLS, user(result("toolu_01Ab")), user(result("toolu_01Cd")), assistant("Refunded.")])
    assert rules(check_run(run)) == [("warning", "consecutive_user", 3, None),
                                     ("warning", "results_split_across_turns", 3, None)]


def test_two_assistant_turns_merge_so_the_calls_of_the_first_are_answered_after_the_second():
    run = run_of([ASK, assistant(use("toolu_01Ab")), assistant(text("Checking.")), user(result("toolu_01Ab")),
                  assistant("Done.")])
    assert rules(check_run(run)) == [("warning", "consecutive_assistant", 2, None)]


def test_a_caller_message_between_a_turn_and_its_results_puts_text_before_the_results():
    run = run_of([ASK, CALLS, user("Any news?"), user(result("toolu_01Ab"), result("toolu_01Cd")), assistant("x")])
    found = check_run(run)
    assert rules(found) == [("error", "tool_result_not_first", 2, 0), ("warning", "consecutive_user", 3, None)]
    assert found[0].message.startswith("messages.2: `tool_use` ids were found without `tool_result` blocks "
                                       "immediately after: toolu_01Ab, toolu_01Cd.")
    assert "message 2" in found[0].cause and "merges" in found[0].cause


# -- causes ---------------------------------------------------------------------------------

def cause_of(findings, rule: str) -> str:
    return next(f.cause for f in findings if f.rule == rule)


def test_a_result_skipped_by_an_exception_handler():
    found = check_run(open_run(str(SAMPLES / "broken/skipped_result.jsonl")))
    assert rules(found) == [("error", "tool_use_without_result", 2, None)]
    assert "toolu_01Ab" in found[0].message and "search_orders" in found[0].message
    assert "exception handler" in found[0].cause and "is_error" in found[0].cause


def test_only_calls_0_dispatched():
    found = check_run(open_run(str(SAMPLES / "broken/only_first_call.jsonl")))
    assert rules(found) == [("error", "tool_use_without_result", 2, None)]
    assert "toolu_01Cd" in found[0].message and "toolu_01Ab" not in found[0].message.split("[")[0]
    assert "calls[0]" in found[0].cause


def test_only_calls_0_needs_several_calls_the_first_answered():
    # Three calls, the second answered: not calls[0]-only, a skipped result.
    run = run_of([ASK, assistant(use("toolu_01Ab"), use("toolu_01Cd"), use("toolu_01Ef")),
                  user(result("toolu_01Cd")), assistant("x")])
    assert "exception handler" in cause_of(check_run(run), "tool_use_without_result")


def test_results_appended_before_their_turn_and_the_turn_lost():
    found = check_run(open_run(str(SAMPLES / "broken/orphan_result_retry.jsonl")))
    assert rules(found) == [("warning", "consecutive_user", 3, None), ("error", "unexpected_tool_use_id", 3, 0)]
    assert "toolu_01Ef" in found[1].message
    assert "results appended before their assistant turn" in found[1].cause


def test_results_appended_before_their_turn_and_the_turn_appended_after():
    # The seed's broken loop on every iteration: results first, then the turn that asked for them.
    run = run_of([ASK, user(result("toolu_01Ab")), assistant(use("toolu_01Ab")), user(result("toolu_01Cd")),
                  assistant(use("toolu_01Cd"))])
    found = check_run(run)
    orphan = next(f for f in found if f.rule == "unexpected_tool_use_id" and f.index == 1)
    assert "results appended before their assistant turn" in orphan.cause and "message 2" in orphan.cause
    missing = next(f for f in found if f.rule == "tool_use_without_result" and f.index == 3)
    assert "toolu_01Ab" in missing.message
    assert "before the turn that asked for it" in missing.cause and "message 1" in missing.cause


def test_a_window_truncated_between_a_turn_and_its_results():
    found = check_run(open_run(str(SAMPLES / "broken/truncated_window.jsonl")))
    assert rules(found) == [("error", "unexpected_tool_use_id", 0, 0), ("error", "unexpected_tool_use_id", 0, 1)]
    assert all("truncated" in f.cause for f in found)


def test_a_truncation_that_cuts_the_start_to_an_assistant_turn():
    run = run_of([CALLS, user(result("toolu_01Ab"), result("toolu_01Cd")), assistant("x")])
    assert "truncated" in cause_of(check_run(run), "first_message_not_user")


def test_a_run_that_stops_on_unanswered_calls():
    found = check_run(run_of([ASK, CALLS]))
    assert rules(found) == [("warning", "tool_use_unanswered_at_end", 1, None)]
    assert "search_orders toolu_01Ab" in found[0].message and "get_shipment toolu_01Cd" in found[0].message


# -- the final message: a run's response (never sent) versus a prefill (sent) ----------------

def test_errors_in_the_runs_final_response_are_warnings():
    # The model returned an empty text block; nobody sent it back, but the next request would fail.
    found = check_run(run_of([ASK, assistant(text(""))]))
    assert rules(found) == [("warning", "empty_text_block", 1, 0)]
    assert "never sent back" in found[0].message


def test_the_same_error_earlier_in_the_run_is_an_error():
    found = check_run(run_of([ASK, assistant(text("")), user("Hello?"), assistant("Hi.")]))
    assert rules(found) == [("error", "empty_text_block", 1, 0)]


def test_an_empty_final_response_is_reported_but_an_empty_prefill_is_not():
    messages = [ASK, {"role": "assistant", "content": []}]
    assert rules(check_run(run_of(messages))) == [("warning", "empty_content", 1, None)]
    assert check_request({"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": messages}) == []


def test_trailing_whitespace_matters_in_a_prefill_only():
    messages = [ASK, assistant(text("The order is "))]
    assert rules(check_request({"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": messages})) == [("error", "final_assistant_trailing_whitespace", 1, 0)]
    assert check_run(run_of(messages)) == []


def test_a_whitespace_block_in_a_prefill_hits_the_trailing_whitespace_rule_instead():
    messages = [ASK, assistant(text("\n\n"))]
    assert rules(check_request({"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": messages})) == [("error", "final_assistant_trailing_whitespace", 1, 0)]
    assert rules(check_run(run_of(messages))) == [("warning", "whitespace_text_block", 1, 0)]


def test_a_request_file_ending_on_an_assistant_turn_is_a_prefill(tmp_path):
    path = tmp_path / "prefill.json"
    path.write_text(json.dumps({"model": "claude-opus-4-6", "max_tokens": 64,
                                "messages": [ASK, assistant("{")]}))
    run = open_run(str(path))
    assert run.prefill and len(run.calls) == 0
    assert rules(check_run(run)) == [("error", "prefill_unsupported", 1, None)]


# -- severities against what real recorded requests got back --------------------------------

def _recorded_bodies(realruns):
    yaml = pytest.importorskip("yaml")
    for path in sorted(realruns.glob("*.yaml")):
        for k, exchange in enumerate(yaml.safe_load(path.read_text())["interactions"]):
            request = exchange["request"]
            found = request.get("parsed_body")
            if found is None:
                raw = request.get("body")
                found = json.loads(raw["string"] if isinstance(raw, dict) else raw)
            yield f"{path.name}#{k}", found, exchange["response"]["status"]["code"]


def test_requests_the_real_api_accepted_have_no_errors(realruns):
    """Every request body recorded in the cassettes got a 200: the check must find no error in
    any of them (whitespace blocks and merged user turns are warnings, as the reference says)."""
    checked, warnings = 0, set()
    for name, found, status in _recorded_bodies(realruns):
        assert status == 200
        result_ = check_request(found)
        assert [f for f in result_ if f.severity == ERROR] == [], name
        warnings |= {f.rule for f in result_ if f.severity == WARNING}
        checked += 1
    assert checked >= 20
    assert {"whitespace_text_block", "consecutive_user"} <= warnings
