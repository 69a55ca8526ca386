"""The branch verb answers from the edited world, and a finished branch resumes without a key."""

import os

import orjson
import pytest

from conftest import SAMPLES, run_cli
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
DOWN = "policy service unavailable"


def _branch(api, tmp_path, *args, env=None):
    return run_cli("branch", *map(str, args), env={**api.env(), "XDG_DATA_HOME": str(tmp_path / "data"), **(env or {})})


def test_resume_json_on_a_finished_branch_needs_no_api_key(stream_api, tmp_path):
    stream_api.add(Turn([text("Once more."), tool_use("toolu_W1", "lookup_policy", {"topic": "lost_shipment"})],
                        "tool_use"),
                   Turn([text("The policy service is down; I have asked a manager.")]))
    out = tmp_path / "b.turnscope.json"
    first = _branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", DOWN, "-o", out, "--json")
    assert first.code == 0, first.stderr
    doc = orjson.loads(first.stdout)
    assert doc["from_edit"] == [{"index": 6, "tool_use_id": "toolu_W1", "from": 4}]
    assert doc["messages"][1]["content"][0]["is_error"] is True
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    again = run_cli("branch", "--resume", str(out), "--json",
                    env={**{k: "" for k in ("ANTHROPIC_API_KEY",)}, "XDG_DATA_HOME": str(tmp_path / "data"),
                         "PATH": env.get("PATH", "")})
    assert again.code == 0, again.stderr
    resumed = orjson.loads(again.stdout)
    assert resumed["stop_reason"] == "end_turn" and resumed["steps"] == 0 and resumed["error"] is None
    assert len(stream_api.bodies) == 2  # nothing more was sent


def test_an_unfinished_branch_still_asks_for_the_key_before_sending(stream_api, tmp_path):
    stream_api.add(Turn([tool_use("toolu_W2", "lookup_policy", {"topic": "returns"})], "tool_use"))
    out = tmp_path / "b.turnscope.json"
    assert _branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", DOWN, "-o", out).code == 0
    again = run_cli("branch", "--resume", str(out), "--json", env={"ANTHROPIC_API_KEY": "",
                                                                   "XDG_DATA_HOME": str(tmp_path / "data")})
    assert again.code == 2 and "ANTHROPIC_API_KEY is not set" in again.stderr
    assert open_run(str(out)).lineage["status"] == "stopped"
