"""A one-line JSON document (a request body as most tools write it) is parsed once, not once per sniff."""

from tui.core import jsonio
from tui.formats import document, load_runs


def test_a_one_line_request_body_is_parsed_once(tmp_path, monkeypatch):
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    path = tmp_path / "request.json"
    path.write_bytes(jsonio.dumps(body) + b"\n")
    calls = []
    real = jsonio.loads

    def counting(data, *args, **kwargs):
        calls.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(document.jsonio, "loads", counting)
    runs = load_runs(str(path))
    assert runs[0].messages == body["messages"]
    assert len([n for n in calls if n >= path.stat().st_size - 1]) == 1


def test_a_jsonl_file_still_sniffs_its_first_line(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yo"}\n')
    assert document.read_document(str(path)).first_line() == {"role": "user", "content": "hi"}
