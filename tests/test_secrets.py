"""Credentials are never stored or shown.

A recorded exchange's ``authorization``, ``x-api-key``, cookies and the like are dropped on load
(headers are never kept), credential fields in request bodies and URL queries too: nothing of
them reaches a run, a converted file or any output. The user's ``ANTHROPIC_API_KEY`` is used and
never written: a planted key is searched for in every file turnscope writes (data, cache, state
and config directories all pointed at the test's directory), in everything it prints, in the
app's screen and screenshot, including when an endpoint echoes the key back in an error.
"""

from __future__ import annotations

import base64

import orjson
import pytest
from app_helpers import app_for, screen_text, settle
from conftest import SAMPLES, run_cli
from fake_messages_api import serve as serve_counts
from fake_messages_api_stream import Error, Turn, stream_api, text, tool_use  # noqa: F401

from tui.core import native
from tui.formats import load_runs

SECRETS = {name: f"SECRET-{name}-7f3a9c" for name in (
    "authorization", "x-api-key", "cookie", "set-cookie", "proxy-authorization", "anthropic-admin-key",
    "x-goog-api-key", "api-key", "x-amz-security-token", "body-authorization-token", "body-api-key",
    "body-access-token", "query-key", "response-header")}
URL = f"https://api.anthropic.com/v1/messages?beta=true&key={SECRETS['query-key']}"


def _request_body() -> dict:
    return {"model": "claude-x", "max_tokens": 20, "messages": [{"role": "user", "content": "hello"}],
            "mcp_servers": [{"type": "url", "url": "https://mcp.example/sse", "name": "m",
                             "authorization_token": SECRETS["body-authorization-token"]}],
            "metadata": {"user_id": "u1", "api_key": SECRETS["body-api-key"]},
            "extra": {"nested": [{"access_token": SECRETS["body-access-token"]}]}}


def _headers() -> dict:
    return {"authorization": f"Bearer {SECRETS['authorization']}", "x-api-key": SECRETS["x-api-key"],
            "cookie": f"session={SECRETS['cookie']}", "proxy-authorization": f"Basic {SECRETS['proxy-authorization']}",
            "anthropic-admin-key": SECRETS["anthropic-admin-key"], "x-goog-api-key": SECRETS["x-goog-api-key"],
            "api-key": SECRETS["api-key"], "x-amz-security-token": SECRETS["x-amz-security-token"],
            "anthropic-version": "2023-06-01"}


ANSWER = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
          "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
          "usage": {"input_tokens": 3, "output_tokens": 1}}
RESPONSE_HEADERS = {"set-cookie": f"s={SECRETS['set-cookie']}", "request-id": "req_1",
                    "x-secret-echo": SECRETS["response-header"], "content-type": "application/json"}


def _trace(path):
    line = {"request": {"timestamp": 1.0, "method": "POST", "url": URL, "headers": _headers(), "body": _request_body()},
            "response": {"timestamp": 2.0, "status_code": 200, "headers": RESPONSE_HEADERS, "body": ANSWER},
            "logged_at": "2026-01-01T00:00:00Z"}
    path.write_bytes(orjson.dumps(line) + b"\n")
    return path


def _cassette(path):
    import yaml

    interaction = {"request": {"method": "POST", "uri": URL, "body": orjson.dumps(_request_body()).decode(),
                               "headers": {k: [v] for k, v in _headers().items()}},
                   "response": {"status": {"code": 200, "message": "OK"}, "body": {"string": orjson.dumps(ANSWER).decode()},
                                "headers": {k: [v] for k, v in RESPONSE_HEADERS.items()}}}
    path.write_text(yaml.safe_dump({"interactions": [interaction], "version": 1}))
    return path


def _leaked(data: str | bytes) -> list[str]:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return [name for name, secret in SECRETS.items() if secret in text]


@pytest.mark.parametrize("make", [_trace, _cassette], ids=["claude-trace", "vcr"])
def test_credentials_in_recorded_exchanges_are_dropped_on_load(tmp_path, make):
    path = make(tmp_path / ("log.jsonl" if make is _trace else "cassette.yaml"))
    raw = path.read_bytes()
    assert len(_leaked(raw)) == len(SECRETS)  # every one is in the file
    runs = load_runs(str(path))
    assert runs[0].calls and runs[0].messages[-1]["content"][0]["text"] == "hi"
    assert _leaked(native.dumps(runs)) == []
    warnings = " ".join(w.text for run in runs for w in run.warnings)
    assert "credentials dropped on load" in warnings
    outputs = []
    for argv in (["check", path, "--json"], ["show", path, "--json"], ["show", path], ["convert", path],
                 ["convert", path, "-o", tmp_path / "out.json"], ["tokens", path], ["account", path], ["list", path],
                 ["trace", path], ["stats", path, "--json"], ["diff", path, path]):
        result = run_cli(*argv)
        assert result.code in (0, 1), result.stderr
        outputs += [result.stdout, result.stderr]
    assert _leaked("".join(outputs)) == [] and _leaked((tmp_path / "out.json").read_bytes()) == []
    assert "mcp.example" in run_cli("show", path, "--json").stdout  # the rest of the body is kept


PLANTED = "sk-ant-api03-PLANTED-turnscope-9c41e0b7d2f5a8e3-NEVER-WRITE-ME"


def _forms(key: str) -> list[bytes]:
    return [key.encode(), key[-24:].encode(), base64.b64encode(key.encode()), key.encode().hex().encode()]


def _files_holding(root, key: str) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if any(form in data for form in _forms(key)):
                found.append(str(path))
    return found


async def test_a_planted_api_key_is_used_and_never_written_or_shown(tmp_path, stream_api, monkeypatch):
    home = tmp_path / "home"
    dirs = {"HOME": home, "XDG_DATA_HOME": home / "data", "XDG_CACHE_HOME": home / "cache",
            "XDG_STATE_HOME": home / "state", "XDG_CONFIG_HOME": home / "config",
            "TURNSCOPE_STATE_DIR": home / "turnscope-state", "TURNSCOPE_CONFIG_DIR": home / "turnscope-config"}
    env = {**{k: str(v) for k, v in dirs.items()}, "ANTHROPIC_BASE_URL": stream_api.url, "ANTHROPIC_API_KEY": PLANTED}
    refund = SAMPLES / "refund" / "run.jsonl"
    out = home / "branch.turnscope.json"
    printed = []

    def cli(*argv, **extra):
        result = run_cli(*map(str, argv), env={**env, **extra})
        printed.extend([result.stdout, result.stderr])
        return result

    stream_api.add(Turn([text("Looking again."), tool_use("toolu_K1", "lookup_policy", {"topic": "lost_shipment"})],
                        "tool_use"),
                   Error(401, "authentication_error", f"invalid x-api-key: {PLANTED}"))
    first = cli("branch", refund, "--at", 4, "--tool-error", "toolu_01Ef", "down", "-o", out)
    assert first.code == 3 and "[ANTHROPIC_API_KEY]" in first.stderr  # the echoed key is redacted
    stream_api.add(Turn([text("Resumed.")]), Turn([text("Another model.")]))
    assert cli("branch", "--resume", out).code == 0
    assert cli("branch", refund, "--at", 6, "--model", "m", "--json").code == 0  # into the data directory
    with serve_counts(status=401) as refusing:
        refusing_env = {"ANTHROPIC_BASE_URL": refusing.base_url}
        assert cli("tokens", refund, "--exact", **refusing_env).code == 2
    with serve_counts() as counts:
        assert cli("tokens", refund, "--exact", ANTHROPIC_BASE_URL=counts.base_url).code == 0
        seen = counts.requests[0]["headers"]
    assert cli("convert", out, "-o", home / "converted.json").code == 0
    assert PLANTED in (seen.get("x-api-key"), seen.get("authorization", "").removeprefix("Bearer "))
    sent = stream_api.requests[0]["headers"]
    assert PLANTED in (sent.get("x-api-key"), sent.get("authorization", "").removeprefix("Bearer "))

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    app = app_for(out, home)  # its state under home/state
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in ("2", "3", "4", "1", "y", "G"):
            await pilot.press(key)
            await settle(pilot)
            printed.append(screen_text(app))
        printed.append(app.export_screenshot())

    written = [p for p in home.rglob("*") if p.is_file()]
    assert any("branches" in str(p) for p in written) and any(p.name == "recent.json" for p in written)
    assert any("count_tokens" in str(p) for p in written)  # every kind of file was written ...
    assert _files_holding(home, PLANTED) == [] and _files_holding(tmp_path, PLANTED) == []  # ... none holds the key
    assert not any(form.decode() in "".join(printed) for form in _forms(PLANTED)[:2])
