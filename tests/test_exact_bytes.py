"""Exact means byte-exact: where a source holds a request's bytes (a cassette's body string, a trace log's
body text), ``show --json``, the Raw view, its sha256 and the copy key give those bytes; where it holds
only parsed JSON, they say "re-serialised"."""

from __future__ import annotations

import hashlib

import orjson
import yaml

from app_helpers import app_for, screen_text, settle
from loader_helpers import FIXTURES
from tui.app.render.rawbody import RawBody
from tui.core import native
from tui.core.prefix import request_at, request_json
from tui.formats import load_runs

PREFILL = FIXTURES / "vcr" / "prefill.yaml"  # its body was written with json.dumps' default separators


def _body_strings(path) -> list[str]:
    return [i["request"]["body"] for i in yaml.safe_load(path.read_bytes())["interactions"]
            if isinstance(i["request"].get("body"), str)]


def test_a_body_written_with_default_separators_comes_out_byte_for_byte(cli):
    [recorded] = _body_strings(PREFILL)
    assert '", "' in recorded and '": "' in recorded
    shown = cli("show", PREFILL, "--at", "2", "--json")
    assert shown.stdout.encode() == recorded.encode() + b"\n"
    [run] = load_runs(str(PREFILL))
    body = RawBody.build(run, 2)
    assert body.exact == recorded.encode() and body.sha256 == hashlib.sha256(recorded.encode()).hexdigest()
    assert body.wording == "exact bytes as POSTed"
    assert "prefix: exact (the request as it was recorded; --json prints its bytes as POSTed)" in \
        cli("show", PREFILL, "--at", "2").stdout


def test_every_real_cassette_body_string_is_shown_as_recorded(realruns):
    checked = 0
    for path in sorted(realruns.glob("*.yaml")):
        strings = set(_body_strings(path))
        for run in load_runs(str(path)):
            for call in run.calls:
                if call.request.raw is None:
                    continue
                checked += 1
                assert call.request.raw in strings, path.name
                assert request_json(run, call.message) == call.request.raw.encode()
                assert orjson.loads(call.request.raw) == request_at(run, call.message).body
    assert checked >= 4  # the llm cassettes keep body strings; pydantic-ai's keep parsed bodies


def test_a_parsed_body_is_said_to_be_re_serialised(realruns, cli):
    path = realruns / "pydanticai__test_anthropic_mixed_strict_tool_run.yaml"
    [run] = load_runs(str(path))
    assert all(c.request.raw is None for c in run.calls)
    assert RawBody.build(run, 3).wording == "re-serialised from the recorded JSON"
    assert "--json prints it re-serialised" in cli("show", path, "--at", "3").stdout


def test_a_body_whose_credentials_were_dropped_is_not_called_exact_bytes():
    [run] = load_runs(str(FIXTURES / "vcr" / "refused_then_fixed.yaml"))
    assert all(c.request.raw is None for c in run.calls)
    assert b"sk-live-ORDERS-SECRET" not in request_json(run, 3)


def test_the_recorded_bytes_survive_convert():
    runs = load_runs(str(PREFILL))
    [back] = native.runs_from_document(orjson.loads(native.dumps(runs)), "x")
    assert request_json(back, 2) == _body_strings(PREFILL)[0].encode()


async def test_the_raw_view_names_what_its_bytes_are(tmp_path):
    app = app_for(PREFILL, tmp_path, at=2, view="raw")
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert "w: exact bytes as POSTed · y copies the exact bytes" in screen_text(app)
    app = app_for(FIXTURES / "vcr" / "refused_then_fixed.yaml", tmp_path, at=3, view="raw")
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "w: re-serialised from the recorded JSON" in text and "exact bytes" not in text
