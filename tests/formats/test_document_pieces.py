"""JSON lines read in pieces: a JSONL file larger than its head is never read whole by a loader that
streams its lines, and what it yields (values, line numbers, bad-line warnings, the cut-off last
line, errors with their position) is exactly what the same bytes read whole give."""

import orjson
import pytest

from tui.core.errors import LoadError
from tui.formats import document, load_runs
from tui.formats.document import HEAD_BYTES, Document, read_document


def _lines(doc: Document) -> tuple:
    values = list(doc.iter_lines())
    return values, [(w.line, w.text) for w in doc.line_warnings], doc.cut_off


def _write_run(path, tail: bytes = b"", count: int = 400) -> bytes:
    header = orjson.dumps({"system": "s", "tools": []})
    rows = [orjson.dumps({"role": ("user", "assistant")[k % 2], "content": f"turn {k} " + "x" * (k * 7)})
            for k in range(count)]
    data = b"\n".join([header, *rows[:100], b"", b"{bad line", *rows[100:]]) + b"\n" + tail
    path.write_bytes(data)
    assert len(data) > HEAD_BYTES  # larger than the head: read in pieces
    return data


@pytest.mark.parametrize("piece", [64, 1000, 1 << 22])
@pytest.mark.parametrize("tail", [b"", b'{"role": "user", "content": "cut', b'{"role": "user", "content": "end"}',
                                  b"{cut\n\n  \n"])
def test_lines_read_in_pieces_are_those_of_the_whole_file(tmp_path, monkeypatch, piece, tail):
    monkeypatch.setattr(document, "PIECE_BYTES", piece)  # pieces smaller than a line, than the head, whole
    path = tmp_path / "run.jsonl"
    data = _write_run(path, tail)
    streamed = read_document(str(path))
    assert streamed.in_pieces
    assert _lines(streamed) == _lines(Document(str(path), data))
    assert streamed.in_pieces  # iterating never read the file whole
    assert streamed.first_bad_line().what == Document(str(path), data).first_bad_line().what


def test_a_message_jsonl_run_loads_the_same_without_reading_the_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    _write_run(path, b'{"role": "assistant", "content": "cut')
    whole = []
    real = document.Document.data.fget
    monkeypatch.setattr(document.Document, "data", property(lambda doc: whole.append(1) or real(doc)))
    run = load_runs(str(path))[0]
    assert whole == []  # sniffing and loading read lines, never the whole file
    assert len(run.messages) == 400 and run.system == "s"
    assert [w.line for w in run.warnings] == [103, 404]
    assert run.meta["cut_off"]["line"] == 404


def test_strict_mode_names_the_bad_line_and_column(tmp_path):
    path = tmp_path / "run.jsonl"
    _write_run(path)
    with pytest.raises(LoadError) as err:
        load_runs(str(path), strict=True)
    assert (err.value.line, err.value.col) == (103, 2)


def test_a_file_replaced_while_it_is_read_is_one_clear_error(tmp_path):
    path = tmp_path / "run.jsonl"
    _write_run(path)
    doc = read_document(str(path))
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b'{"role": "user", "content": "other"}\n')
    replacement.replace(path)
    with pytest.raises(LoadError, match="changed while it was read"):
        list(doc.iter_lines())
