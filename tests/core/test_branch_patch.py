"""The branch edit: which document a patch applies to, the quick edits, and the check that refuses
an edited request the API would reject. No model calls here."""

import copy

import orjson
import pytest

from conftest import SAMPLES
from tui.core.branch import patch as patches
from tui.core.errors import UsageError
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"


def _raw_refund():
    """The refund run straight from its JSONL lines, without the loaders."""
    lines = REFUND.read_bytes().splitlines()
    header = orjson.loads(lines[0])
    return header, [orjson.loads(line) for line in lines[1:]]


@pytest.fixture
def refund():
    return open_run(str(REFUND))


def test_the_document_is_the_request_holding_messages_0_to_n(refund):
    header, messages = _raw_refund()
    base = patches.base_document(refund, 4)
    assert base["messages"] == messages[:5]
    assert base["system"] == header["system"] and base["tools"] == header["tools"]
    assert base["model"] == header["params"]["model"] and base["max_tokens"] == header["params"]["max_tokens"]


def test_tool_error_turns_the_result_into_an_error_and_leaves_the_parent_alone(refund):
    before = copy.deepcopy(refund.messages)
    base = patches.base_document(refund, 4)
    edited = patches.apply(base, patches.tool_error(base, "toolu_01Ef", "policy service unavailable (503)"), 4)
    block = edited["messages"][4]["content"][0]
    assert block == {"type": "tool_result", "tool_use_id": "toolu_01Ef",
                     "content": "policy service unavailable (503)", "is_error": True}
    assert edited["messages"][:4] == before[:4]
    assert refund.messages == before and base["messages"][4] == before[4]
    assert patches.require_sendable(edited) == []


def test_an_unknown_tool_use_id_names_the_ones_there(refund):
    base = patches.base_document(refund, 4)
    with pytest.raises(UsageError, match="toolu_01Ab, toolu_01Cd, toolu_01Ef"):
        patches.tool_error(base, "toolu_nope", "x")


def test_an_edit_the_api_would_reject_cannot_be_sent(refund):
    base = patches.base_document(refund, 4)
    edited = patches.apply(base, patches.delete_block(base, 4, 0), 4)
    with pytest.raises(patches.EditRejected) as info:
        patches.require_sendable(edited)
    rules = {(f.rule, f.index) for f in info.value.findings}
    assert rules == {("empty_content", 4), ("tool_use_without_result", 4)}
    assert str(info.value).startswith("the edited request would be rejected: message 4: empty_content")


def test_a_patch_for_another_document_fails_on_its_test_op(refund):
    other = patches.base_document(refund, 2)
    edit = patches.tool_error(other, "toolu_01Ab", "boom")  # targets /messages/2/content/0
    shifted = [{**op, "path": op["path"].replace("/messages/2/", "/messages/4/")} for op in edit]
    with pytest.raises(patches.PatchError, match="does not fit"):
        patches.apply(patches.base_document(refund, 4), shifted, 4)


@pytest.mark.parametrize("bad, words", [
    ({"op": "remove", "path": "/messages/4"}, "removes messages"),
    ({"op": "replace", "path": "/messages/9/content", "value": "x"}, "does not apply"),
    ({"op": "frobnicate", "path": "/model"}, "does not apply"),
    ({"op": "remove", "path": "/model"}, "no 'model'"),
])
def test_bad_patches_are_refused_with_a_reason(refund, bad, words):
    with pytest.raises(patches.PatchError, match=words):
        patches.apply(patches.base_document(refund, 4), [bad], 4)


def test_a_patch_must_be_a_list_of_operations(refund):
    with pytest.raises(patches.PatchError, match="list of operations"):
        patches.apply(patches.base_document(refund, 4), {"op": "add"}, 4)


def test_editing_a_tool_input_at_an_assistant_turn_is_sendable(refund):
    base = patches.base_document(refund, 3)
    edited = patches.apply(base, patches.tool_input(base, "toolu_01Ef", {"topic": "returns"}), 3)
    assert edited["messages"][3]["content"][1]["input"] == {"topic": "returns"}
    patches.require_sendable(edited)  # the unanswered call is for the resolver, not an error


def test_an_assistant_turn_without_calls_would_be_a_prefill(refund):
    base = patches.base_document(refund, 7)
    with pytest.raises(UsageError, match="prefill"):
        patches.require_sendable(patches.apply(base, patches.param("temperature", 0), 7))


def test_system_tool_and_param_edits(refund):
    base = patches.base_document(refund, 4)
    schema = {"type": "object", "properties": {"topic": {"type": "string"}}}
    edit = (patches.system("Be terse.") + patches.tool_field(base, "lookup_policy", "description", "Policy text.")
            + patches.tool_field(base, "lookup_policy", "input_schema", schema)
            + patches.param("model", "claude-other") + patches.param("temperature", 0.2)
            + patches.param("thinking", {"type": "enabled", "budget_tokens": 1024}))
    edited = patches.apply(base, edit, 4)
    assert edited["system"] == "Be terse."
    tool = edited["tools"][2]
    assert tool["name"] == "lookup_policy" and tool["description"] == "Policy text." and tool["input_schema"] == schema
    assert (edited["model"], edited["temperature"], edited["thinking"]["type"]) == ("claude-other", 0.2, "enabled")
    with pytest.raises(UsageError, match="no tool named 'nope'.*lookup_policy"):
        patches.tool_field(base, "nope", "description", "x")


def test_a_removed_param_and_a_bad_tool_schema_are_caught(refund):
    base = patches.base_document(refund, 4)
    with pytest.raises(patches.PatchError, match="no 'max_tokens'"):
        patches.apply(base, patches.param("max_tokens", None), 4)
    broken = patches.apply(base, patches.tool_field(base, "get_shipment", "input_schema", {"type": "string"}), 4)
    with pytest.raises(patches.EditRejected, match="tool_input_schema"):
        patches.require_sendable(broken)


def test_diff_gives_a_patch_that_rebuilds_the_edit(refund):
    base = patches.base_document(refund, 4)
    edited = copy.deepcopy(base)
    edited["messages"][4]["content"][0]["content"] = "no policy found"
    edited["system"] = "other"
    made = patches.diff(base, edited)
    assert made and patches.apply(base, made, 4) == edited


def test_an_index_past_the_run_is_refused(refund):
    with pytest.raises(UsageError, match="out of range"):
        patches.base_document(refund, 8)
