"""The core pieces the stepper's review views stand on: every message of two runs paired for a
side-by-side diff, one change as one line, and the characters that hold a traced value at its source."""

from __future__ import annotations

import copy

from run_files import refund, write_jsonl
from tui.core.diff import aligned, diff_runs
from tui.core.provenance import Provenance, at_path, source_text
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
