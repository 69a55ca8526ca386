"""Diff of two runs: the first divergence of a run and its edited copy, block-level changes, the verb."""

from __future__ import annotations

import copy
import json

from conftest import SAMPLES
from run_files import refund, write_jsonl
from tui.core.diff import diff_runs
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
INVENTED = SAMPLES / "invented_order_id.jsonl"


def _edited(tmp_path, edit, header_edit=None):
    header, messages = refund()
    edited = copy.deepcopy(messages)
    edit(edited)
    if header_edit:
        header_edit(header)
    return open_run(str(write_jsonl(tmp_path / "edited.jsonl", edited, header)))


def test_edited_result_diverges_where_it_was_edited(tmp_path):
    def edit(messages):
        messages[2]["content"][0]["content"] = messages[2]["content"][0]["content"].replace("8900", "9900")
    d = diff_runs(open_run(str(REFUND)), _edited(tmp_path, edit))
    assert d.first_divergence == 2
    [change] = d.changes
    assert (change.index, change.block, change.kind) == (2, 0, "tool_result_changed")
    assert change.path == ".content | fromjson | .[0].total_cents"
    assert (change.before, change.after) == (8900, 9900)


def test_invented_order_id_run_diverges_at_message_5():
    d = diff_runs(open_run(str(REFUND)), open_run(str(INVENTED)))
    assert d.first_divergence == 5
    first = d.changes[0]
    assert (first.index, first.block, first.kind, first.path) == (5, 0, "tool_input_changed", ".input.order_id")
    assert (first.before, first.after) == ("4471", "4417")
    kinds = [(c.index, c.kind) for c in d.changes]
    assert (6, "tool_result_error_changed") in kinds and (6, "tool_result_changed") in kinds
    assert (7, "text_changed") in kinds
    assert all(c.index >= 5 for c in d.changes)


def test_blocks_and_messages_added_or_removed(tmp_path):
    def edit(messages):
        messages[1]["content"].pop(0)  # the narration text dropped: the rewritten turn
        del messages[6:]
    d = diff_runs(open_run(str(REFUND)), _edited(tmp_path, edit))
    assert d.first_divergence == 1
    assert [(c.index, c.block, c.kind) for c in d.changes] == [
        (1, 0, "block_removed"), (6, None, "message_removed"), (7, None, "message_removed")]


def test_an_inserted_message_is_one_addition_not_a_shift(tmp_path):
    def edit(messages):
        messages.insert(1, {"role": "assistant", "content": [{"type": "text", "text": "One moment."}]})
        messages.insert(2, {"role": "user", "content": "Take your time."})
    d = diff_runs(open_run(str(REFUND)), _edited(tmp_path, edit))
    assert d.first_divergence == 1
    assert [(c.index, c.kind) for c in d.changes] == [(1, "message_added"), (2, "message_added")]


def test_same_messages_different_system_and_tools(tmp_path):
    def header_edit(header):
        header["system"] = header["system"].replace("50,000", "5,000")
        header["tools"][2]["description"] = "Return the policy text."
    d = diff_runs(open_run(str(REFUND)), _edited(tmp_path, lambda m: None, header_edit))
    assert d.first_divergence is None and not d.same
    assert [(c.index, c.kind, c.path) for c in d.changes] == [
        (None, "system_changed", None), (None, "tools_changed", ".tools[2]")]


def test_diff_verb(cli, tmp_path):
    same = cli("diff", REFUND, REFUND, "--json")
    assert same.code == 0 and json.loads(same.stdout) == {"first_divergence": None, "changes": []}
    different = cli("diff", REFUND, INVENTED, "--json")
    assert different.code == 1
    doc = json.loads(different.stdout)
    assert doc["first_divergence"] == 5
    assert all({"index", "block", "kind", "before", "after"} <= set(c) for c in doc["changes"])
    text = cli("diff", REFUND, INVENTED).stdout
    assert "first divergence: message 5 (messages 0-4 are the same)" in text
    assert '[5.0] tool_input_changed .input.order_id: "4471" -> "4417"' in text
    bad = cli("diff", REFUND, tmp_path / "missing.jsonl")
    assert bad.code == 2 and len(bad.stderr.strip().splitlines()) == 1
