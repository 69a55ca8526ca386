"""``show --curl``: the request at N as a curl command that, pasted into a shell, sends the same request
body, with the key read from ``$ANTHROPIC_API_KEY`` when it runs and never written in the command. The
command is run for real (bash and curl) against the local fake Messages API."""

from __future__ import annotations

import os
import shutil
import subprocess

import orjson
import pytest
from conftest import run_cli
from fake_messages_api_stream import Turn, stream_api, text  # noqa: F401
from hostile import BY_NAME, leaks, write_hostile_run
from planted import SECRETS

from tui.core.prefix import request_at
from tui.formats import open_run

KEY = SECRETS["Anthropic API Key"]


@pytest.mark.parametrize("name", ["tag_smuggling", "osc52_clipboard", "bidi"])
def test_the_printed_command_sends_the_request_and_never_holds_the_key(tmp_path, stream_api, name):  # noqa: F811
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    path = write_hostile_run(tmp_path / "run.jsonl", BY_NAME[name])
    printed = run_cli("show", str(path), "--at", "3", "--curl", env={"ANTHROPIC_API_KEY": KEY})
    assert printed.code == 0, printed.stderr
    command = printed.stdout
    assert KEY not in command and KEY[-12:] not in command and "$ANTHROPIC_API_KEY" in command
    assert not leaks(command), "the command would send control or invisible characters to a terminal"
    stream_api.add(Turn([text("ok")]))
    sent = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": KEY, **{"ANTHROPIC_BASE_URL": stream_api.url}})
    assert sent.returncode == 0, sent.stderr
    assert orjson.loads(sent.stdout)["content"] == [{"type": "text", "text": "ok"}]
    [request] = stream_api.requests
    assert request["path"] == "/v1/messages" and request["headers"]["x-api-key"] == KEY
    assert request["headers"]["anthropic-version"] == "2023-06-01"
    assert request["body"] == request_at(open_run(str(path)), 3).body  # the same request, character for character


def test_without_a_key_the_command_still_names_only_the_variable(tmp_path):
    path = write_hostile_run(tmp_path / "run.jsonl", BY_NAME["bel"])
    printed = run_cli("show", str(path), "--curl", env={"ANTHROPIC_API_KEY": ""})
    assert printed.code == 0 and '-H "x-api-key: $ANTHROPIC_API_KEY"' in printed.stdout
