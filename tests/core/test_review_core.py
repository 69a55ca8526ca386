"""The core pieces the stepper's review views stand on: every message of two runs paired for a
side-by-side diff, one change as one line, and the characters that hold a traced value at its source."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from run_files import refund, write_jsonl
from tui.core.diff import aligned, diff_runs
from tui.core.provenance import Provenance, at_path, source_text
from tui.core.valueindex import index_messages
from tui.formats import open_run


def test_aligned_pairs_every_message_from_the_divergence_equal_ones_included(tmp_path):
    header, messages = refund()
    edited = copy.deepcopy(messages)
    edited.insert(1, {"role": "assistant", "content": "One moment."})
    edited.insert(2, {"role": "user", "content": "Take your time."})
    edited[7]["content"][0]["input"]["amount_cents"] = 4450  # the refund (was message 5, now 7)
    a, b = messages, edited
    pairs = list(aligned(a, b, 1))
    assert pairs[:2] == [(None, 1, False), (None, 2, False)]  # inserted: nothing opposite
    assert pairs[2:6] == [(1, 3, True), (2, 4, True), (3, 5, True), (4, 6, True)]  # then the same, shifted
    assert pairs[6] == (5, 7, False)
    assert pairs[7:] == [(6, 8, True), (7, 9, True)]
    assert list(aligned(a, a, None)) == []  # no divergence: nothing to pair


def test_a_change_in_one_line(tmp_path):
    header, messages = refund()
    edited = copy.deepcopy(messages)
    edited[5]["content"][0]["input"]["order_id"] = "4417\x1b[2J"
    a = open_run(str(write_jsonl(tmp_path / "a.jsonl", messages, header)))
    b = open_run(str(write_jsonl(tmp_path / "b.jsonl", edited, header)))
    [change] = diff_runs(a, b).changes
    assert change.describe() == '[5.0] tool_input_changed .input.order_id: "4471" -> "4417\\u001b[2J"'


def test_at_path_follows_the_paths_the_value_index_writes():
    block = {"type": "tool_result", "content": '[{"id":"4471","total_cents":8900}]',
             "input": {"a b": {"c": [1, "x"]}}}
    assert at_path(block, ".content | fromjson | .[0].total_cents") == 8900
    assert at_path(block, '.input["a b"].c[1]') == "x"
    assert at_path(block, ".content | fromjson | .[3].id") is None
    assert at_path(block, ".nope") is None
    assert at_path("not json", ". | fromjson | .a") is None


def test_source_text_is_what_the_source_shows(tmp_path):
    header, messages = refund()
    run = open_run(str(write_jsonl(tmp_path / "r.jsonl", messages, header)))
    values = {v.path: v for v in Provenance(run).trace(5).values}
    assert source_text(run, values[".amount_cents"]) == "8900"  # inside the order row's JSON, in message 2
    assert source_text(run, values[".order_id"]) == "4471"  # a token of the customer's sentence
    # A number the prefix writes with a thousands separator is marked as written there.
    messages[0]["content"] = "I was charged 8,900 for order 4471."
    messages[2]["content"][0]["content"] = "[]"
    run = open_run(str(write_jsonl(tmp_path / "grouped.jsonl", messages, header)))
    amount = next(v for v in Provenance(run).trace(5).values if v.path == ".amount_cents")
    assert amount.source.index == 0
    assert source_text(run, amount) == "8,900"


_TEXT = st.text(alphabet="ab1_-. /é²\u0301", max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_TEXT, min_size=1, max_size=6), needle=_TEXT, before=st.integers(0, 7))
def test_the_word_check_never_changes_what_a_search_finds(texts, needle, before):
    """``Scope.search`` skips the scan when a word of the value is in no earlier string; on any text
    it finds exactly what the full scan finds."""
    scope = index_messages([{"role": "user", "content": text} for text in texts])
    assert scope.search(needle, before) == scope.scan(needle, before)


def test_tracing_a_made_up_value_does_not_scan_the_prefix(monkeypatch):
    messages = [{"role": "user", "content": f"order {k} shipped to the depot"} for k in range(50)]
    scope = index_messages(messages)
    monkeypatch.setattr(scope, "scan", lambda *a: pytest.fail("scanned for a value whose words never occur"))
    assert scope.search("refund the depot now", 50) is None  # "refund" is in no message
    monkeypatch.undo()
    assert scope.search("shipped to the depot", 50).index == 0


def test_a_value_in_message_0_is_not_its_own_source():
    """Nothing comes before message 0: its tool inputs are the model's (a scan bounded at 0 once ran to the end)."""
    from tui.core.run import Run

    run = Run(messages=[{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "search",
         "input": {"q": "alpha beta gamma", "note": "zz top", "order_id": "AB-40912"}}]}])
    values = Provenance(run).trace(0).values
    assert values and all(v.source is None for v in values)
    # prose the model writes is looked up but not flagged; an id with no source is
    assert [v.unsourced for v in values if "AB-40912" in repr(v)] == [True]
    assert index_messages(run.messages).scan("alpha beta gamma", 0) is None  # the scan alone, bounded at 0
