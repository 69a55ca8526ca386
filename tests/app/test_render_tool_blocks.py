"""Tool calls and results as people read them: field by field, multi-line strings as lines, payloads folded.

These build the request pane's rows for one message (``tui.app.blocks.message_parts``) and read them
as text, the way they are drawn; the Raw view (exact JSON) is tested apart and unchanged.
"""

from __future__ import annotations

import glob

import orjson

from runbuild import assistant, result, use, user
from tui.app.render.blocks import message_parts
from tui.app.render.lines import PartLayout
from tui.core.run import Run
from tui.formats import open_run



def rows_of(message, opened=frozenset(), width=100, i=1) -> list[str]:
    doc = PartLayout(message_parts(i, message, set(opened)), width)
    return [doc.row(y).plain for y in range(len(doc))]


def test_a_command_is_its_own_lines_and_crlf_is_a_line_end():
    message = assistant(use("toolu_1", "Bash", command="cd /repo &&\r\ngit status\r\ngit log -1\rX"))
    rows = rows_of(message, {(1, 0)})
    assert any(r.strip() == "command: 3 lines" for r in rows)
    assert any(r.strip() == "cd /repo &&" for r in rows) and any(r.strip() == "git status" for r in rows)
    assert any(r.strip() == "git log -1\\x0dX" for r in rows)  # a lone CR stays visible
    assert not any("\\n" in r or "\\r\\n" in r for r in rows)


def test_numbers_and_ids_are_plain_and_nested_objects_indented():
    message = assistant(use("toolu_1", "issue_refund", order_id="4471", amount_cents=8900,
                            meta={"reason": "lost", "tags": ["a", "b"]}))
    rows = rows_of(message)
    assert any(r.strip() == "order_id: 4471" for r in rows)
    assert any(r.strip() == "amount_cents: 8900" for r in rows)
    meta = next(k for k, r in enumerate(rows) if "meta:" in r)
    assert "{2 fields}" in rows[meta]
    reason = rows[meta + 1]
    assert reason.strip() == "reason: lost"
    assert len(reason) - len(reason.lstrip()) > len(rows[meta]) - len(rows[meta].lstrip())  # indented under it
    assert any(r.strip() == 'tags: ["a","b"]' for r in rows)


def test_a_nested_object_folds_and_a_payload_opens_when_flipped():
    data = "QUJD" * 500
    message = assistant(use("toolu_1", "f", meta={"reason": "lost"}, signature=data))
    rows = rows_of(message)
    assert not any(data[:100] in r for r in rows)
    assert any("signature:" in r and "2.0 KB base64" in r and "enter: expand" in r for r in rows)
    flipped = rows_of(message, {("fold", 1, 0, ".meta"), ("fold", 1, 0, ".signature")})
    assert not any("reason: lost" in r for r in flipped)  # the object folded
    assert "".join(r.strip() for r in flipped).count("QUJD") == 500  # the payload whole


def test_a_json_result_is_a_tree_and_plain_text_stays_text():
    message = user(result("toolu_1", orjson.dumps({"refund_id": "re_9d2", "lines": "a\nb"}).decode()),
                   result("toolu_2", "just text {not json"))
    rows = rows_of(message, {(1, 0), (1, 1)})
    assert any(r.strip() == "refund_id: re_9d2" for r in rows)
    assert not any('"refund_id"' in r for r in rows)
    assert any(r.strip() == "just text {not json" for r in rows)


def test_an_encrypted_content_field_is_one_line_with_its_size():
    message = user(result("toolu_1", [{"type": "text", "text": orjson.dumps(
        {"type": "web_search_result", "encrypted_content": "x" * 5000, "title": "A page"}).decode()}]))
    rows = rows_of(message, {(1, 0)})
    line = next(r for r in rows if "encrypted_content:" in r)
    assert "5.0 KB" in line and "x" * 80 not in "".join(rows)
    assert any(r.strip() == "title: A page" for r in rows)


def test_a_swe_agent_trajectory_reads_as_lines_not_escaped_json(realruns):
    path = glob.glob(str(realruns / "sweagent__*.traj"))[0]
    run: Run = open_run(path)
    shown = []
    for i, message in enumerate(run.messages[:12]):
        shown += rows_of(message, {(i, b) for b in range(20)}, width=120, i=i)
    text = "\n".join(shown)
    assert "\\x0d" not in text  # the output's CRLF line ends are line ends
    assert "from marshmallow.fields import TimeDelta" in text
    assert '\\n' not in text.replace("\\\\n", "")  # a multi-line input is lines, not \n-escaped JSON
