"""What was sent, and nothing else; what was lost, said up front. A JSON Lines header line's keys that are
not request fields are the run's metadata, never in the request; a last line cut off mid-write (the
in-flight turn of an agent that crashed) is said by the status bar, the message list and ``check``, and
its bytes can be read."""

from __future__ import annotations

import orjson

from app_helpers import app_for, screen_text, settle
from tui.core import native
from tui.core.grammar import check_run
from tui.core.prefix import request_json
from tui.formats import load_runs

HEADER = {"type": "header", "model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Be brief.",
          "metadata": {"generator": "my-agent 0.3", "run_id": "r-17"}}
MESSAGES = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Refund order 4471."}]
CUT = b'{"role":"assistant","content":[{"type":"text","text":"Let me look up order 44'


def _jsonl(path, *values, tail=b""):
    path.write_bytes(b"".join(orjson.dumps(v) + b"\n" for v in values) + tail)
    return path


def test_header_keys_that_are_not_request_fields_never_reach_the_request(tmp_path, cli):
    path = _jsonl(tmp_path / "run.jsonl", HEADER, *MESSAGES)
    [run] = load_runs(str(path))
    body = orjson.loads(request_json(run, 1))
    assert set(body) == {"model", "max_tokens", "system", "messages"}
    assert run.meta["header"] == {"type": "header", "metadata": HEADER["metadata"]}
    shown = cli("show", path, "--at", "1")
    assert 'run metadata (the header line\'s other keys; never sent): {"type":"header","metadata":' in shown.stdout
    assert b'"generator"' not in orjson.dumps(orjson.loads(cli("show", path, "--at", "1", "--json").stdout))
    checked = cli("check", path)
    assert "header keys kept as the run's metadata, not sent in any request" in checked.stdout


def test_the_apis_own_metadata_user_id_is_a_request_field(tmp_path):
    path = _jsonl(tmp_path / "run.jsonl", {**HEADER, "metadata": {"user_id": "u-1"}}, *MESSAGES)
    [run] = load_runs(str(path))
    assert run.params["metadata"] == {"user_id": "u-1"} and run.meta["header"] == {"type": "header"}


def test_a_cut_off_last_line_is_said_by_check_and_kept_to_be_read(tmp_path, cli):
    path = _jsonl(tmp_path / "crashed.jsonl", HEADER, *MESSAGES, tail=CUT)
    [run] = load_runs(str(path))
    assert len(run.messages) == 3
    assert run.meta["cut_off"] == {"line": 5, "bytes": len(CUT), "text": CUT.decode()}
    [finding] = [f for f in check_run(run) if f.rule == "line_cut_off"]
    assert finding.severity == "warning" and CUT.decode() in finding.message
    result = cli("check", path)
    assert f"warning line_cut_off:" in result.stdout and f"line 5: cut off, {len(CUT)} bytes" in result.stdout
    [back] = native.runs_from_document(orjson.loads(native.dumps([run])), "x")
    assert back.meta["cut_off"]["text"] == CUT.decode()  # convert keeps the bytes too


def test_a_cut_off_line_that_splits_a_character_keeps_every_byte_readable(tmp_path):
    cut = '{"role":"assistant","content":"Caf\u00e9 '.encode() + "\u00e9".encode()[:1]
    path = _jsonl(tmp_path / "crashed.jsonl", *MESSAGES, tail=cut)
    [run] = load_runs(str(path))
    assert run.meta["cut_off"]["text"].endswith("Café \\xc3") and run.meta["cut_off"]["bytes"] == len(cut)


async def test_the_status_bar_and_the_last_row_say_the_line_was_cut_off(tmp_path):
    path = _jsonl(tmp_path / "crashed.jsonl", HEADER, *MESSAGES, tail=CUT)
    app = app_for(path, tmp_path, at=3)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert f"3 next request · line 5: cut off, {len(CUT)} bytes" in text
        assert "0 errors, △ 1 warning (line 5 cut off)" in text
