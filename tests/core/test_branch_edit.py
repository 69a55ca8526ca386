"""The branch editor's model (no Textual): whatever is edited, the patch applied to the parent request
gives exactly the edited request, the parent request is never changed, and drafts that do not parse
block sending."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from app_helpers import REFUND
from tui.core import jsonio
from tui.core.branch import patch as patches
from tui.core.branch.edit import EditSession, json_text
from tui.formats import open_run

PARENT = open_run(str(REFUND))
BASE = patches.base_document(PARENT, 4)
BASE_BYTES = jsonio.dumps(BASE)
SESSION_KEYS = [t.key for t in EditSession(BASE, 4).targets]

values = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=8),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                      max_leaves=6)
edits = st.lists(st.tuples(st.sampled_from(SESSION_KEYS), st.sampled_from(["set", "delete", "restore", "error"]),
                           values), max_size=6)


@settings(max_examples=150, deadline=None)
@given(edits)
def test_the_patch_turns_the_parent_request_into_the_edited_one(steps):
    session = EditSession(BASE, 4)
    for key, what, value in steps:
        if what == "set":
            if key[0] == "params":
                value = {"model": "m", "max_tokens": 5, "temperature": value}
            session.set(key, value)
        elif what == "delete" and key[0] == "block":
            session.delete(key)
        elif what == "error" and key[0] == "block" and isinstance(session.current(key), dict) \
                and session.current(key).get("type") == "tool_result":
            session.tool_error(key, str(value))
        else:
            session.restore(key)
    patch = session.patch()
    assert patches.apply(BASE, patch, 4) == session.document()
    assert jsonio.dumps(BASE) == BASE_BYTES  # the parent request is never changed
    assert (patch == []) == (session.document() == BASE)


def test_the_quick_edit_matches_the_headless_one():
    session = EditSession(BASE, 4)
    session.tool_error(("block", 4, 0), "policy service unavailable (503)")
    headless = patches.apply(BASE, patches.tool_error(BASE, "toolu_01Ef", "policy service unavailable (503)"), 4)
    assert session.document() == headless
    assert session.check().sendable


def test_a_draft_that_does_not_parse_blocks_sending_and_says_where():
    session = EditSession(BASE, 4)
    assert not session.set_text(("system",), '"unterminated')
    verdict = session.check()
    assert not verdict.sendable and verdict.problems[0].startswith("system prompt: not valid JSON (line 1")
    assert session.set_text(("system",), '"a new system prompt"')
    assert session.check().sendable and session.document()["system"] == "a new system prompt"


def test_params_cannot_smuggle_messages_in():
    session = EditSession(BASE, 4)
    assert not session.set_text(("params",), '{"model": "m", "max_tokens": 5, "messages": []}')
    assert not session.check().sendable


def test_the_editor_text_keeps_no_terminal_control_and_parses_back():
    value = {"t": "a\x1b[31m\u202eb\x9b\u2028c\ufeff"}
    text = json_text(value)
    assert all(ch == "\n" or ch.isprintable() for ch in text)
    assert jsonio.loads(text) == value
