"""Reading big inputs: JSON lines are never parsed as one document while sniffing, a line iterator
that keeps nothing, and the collector paused during a load and restored after."""

import gc

import pytest

from tui.core import jsonio
from tui.core.errors import LoadError
from tui.formats import load_runs
from tui.formats.document import Document


def test_json_lines_are_not_tried_as_one_document():
    doc = Document("x.jsonl", b'{"role": "user", "content": "a"}\n{"role": "assistant", "content": "b"}\n')
    assert doc.is_json_lines() and doc.json_or_none() is None
    pretty = Document("x.json", b'{\n  "messages": []\n}\n')
    assert not pretty.is_json_lines() and pretty.json_or_none() == {"messages": []}
    one = Document("x.json", b'{"messages": []}\n')
    assert not one.is_json_lines() and one.json_or_none() == {"messages": []}


def test_iter_lines_numbers_lines_and_turns_bad_ones_into_warnings():
    doc = Document("x.jsonl", b'{"a": 1}\n\n{bad\n{"b": 2}\n')
    assert list(doc.iter_lines()) == [(1, {"a": 1}), (4, {"b": 2})]
    assert [(w.line, w.text.split(":")[0]) for w in doc.line_warnings] == [(3, "skipped")]
    shortcut = list(Document("x.jsonl", b'{"a": 1}\nSKIP\n').iter_lines(lambda line: "s" if line == b"SKIP" else None))
    assert shortcut == [(1, {"a": 1}), (2, "s")]


def test_blank_input_is_still_an_empty_file_error():
    with pytest.raises(LoadError, match="empty file"):
        jsonio.loads(b"  \n\t ")


@pytest.mark.parametrize("enabled", [True, False])
def test_a_load_leaves_the_garbage_collector_as_it_found_it(enabled, tmp_path):
    path = tmp_path / "run.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    (gc.enable if enabled else gc.disable)()
    try:
        load_runs(str(path))
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
        gc.unfreeze()
