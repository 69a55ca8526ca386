"""``turnscope branch --samples K --control``: an experiment on the refund run through the real SDK
and the fake Messages API, scripted to answer each request differently. The counts and intervals
the summary prints equal a hand count of the saved sample files; the control arm sends the
unedited request; the fake server counts that no more than C requests are ever in flight; a 429
in the middle is retried; a SIGKILL then --resume finishes without re-sending finished samples;
no byte written anywhere holds the API key."""

import itertools
import os
import signal
import subprocess
import sys

import orjson
import pytest

from conftest import REPO, SAMPLES, run_cli
from fake_messages_api_stream import DUMMY_KEY, Error, Turn, stream_api, text, tool_use  # noqa: F401
from tui.core.branch import store
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
DOWN = "policy service unavailable"
REFUND_CALL = {"order_id": "4471", "amount_cents": 8900}


def _edited(body) -> bool:
    return body["messages"][4]["content"][0].get("is_error") is True


class Script:
    """Edited arm: the 2nd and 4th first requests refund, the others ask a manager; control: always
    refunds. After a refund's (recorded) result, the model's final answer. ``fail_at``: the request
    numbers answered 429 instead (retried by the experiment)."""

    def __init__(self, delay=0.15, fail_at=(), stall_at=None):
        self.edited_first = itertools.count(1)
        self.number = itertools.count(1)
        self.delay, self.fail_at, self.stall_at = delay, set(fail_at), stall_at
        self.failed = []  # the bodies answered 429

    def __call__(self, body):  # called under the fake server's lock: one at a time
        n = next(self.number)
        if n in self.fail_at:
            self.failed.append(body)
            return Error(429, "rate_limit_error", "Number of requests has exceeded your rate limit",
                         {"x-should-retry": "false"})
        if len(body["messages"]) > 5:
            return Turn([text("Your refund is on its way.")], delay=self.delay)
        if _edited(body):
            k = next(self.edited_first)
            if k == self.stall_at:
                return Turn([text("This answer never finishes arriving.")], stall_after=4)
            if k in (2, 4):
                return Turn([tool_use(f"toolu_E{k}", "issue_refund", REFUND_CALL)], "tool_use", delay=self.delay)
            return Turn([text("I can't confirm the policy right now, so I've asked a manager to look at it.")],
                        delay=self.delay)
        return Turn([tool_use(f"toolu_C{n}", "issue_refund", REFUND_CALL)], "tool_use", delay=self.delay)


def _env(api, tmp_path, **more):
    return {**api.env(), "XDG_DATA_HOME": str(tmp_path / "data"), "TURNSCOPE_API_RETRIES": "0",
            "TURNSCOPE_EXPERIMENT_BACKOFF": "0.05", **more}


def _hand_count(paths):
    """Samples whose continuation called issue_refund, read straight from the files."""
    hits = 0
    for path in paths:
        messages = open_run(str(path)).messages
        hits += any(b.get("type") == "tool_use" and b.get("name") == "issue_refund"
                    for m in messages[5:] if m["role"] == "assistant" for b in m["content"])
    return hits


def _no_key_anywhere(root):
    for path in root.rglob("*"):
        if path.is_file():
            assert DUMMY_KEY.encode() not in path.read_bytes(), path


def test_an_experiment_counts_what_its_saved_samples_did(stream_api, tmp_path):
    script = Script(fail_at={3})
    stream_api.responder = script
    out = tmp_path / "x.experiment.json"
    result = run_cli("branch", str(REFUND), "--at", "4", "--tool-error", "toolu_01Ef", DOWN, "--samples", "5",
                     "--control", "--concurrency", "2", "--event", "issue_refund", "-o", str(out), "--json",
                     env=_env(stream_api, tmp_path))
    assert result.code == 0, result.stderr
    tally = orjson.loads(result.stdout)

    files = tally["files"]
    assert len(files["edited"]) == 5 and len(files["control"]) == 5
    assert all(os.path.exists(p) and store.load(p).lineage["status"] == "end_turn" for p in files["edited"] + files["control"])
    # the counts equal a hand count of the files, and the intervals Wilson's for 2/5 and 5/5
    edited, control = tally["arms"]["edited"]["event"], tally["arms"]["control"]["event"]
    assert (edited["count"], edited["of"]) == (_hand_count(files["edited"]), 5) == (2, 5)
    assert (control["count"], control["of"]) == (_hand_count(files["control"]), 5) == (5, 5)
    assert edited["interval95"] == pytest.approx([0.1176, 0.7693], abs=1e-4)
    assert control["interval95"] == pytest.approx([0.5655, 1.0], abs=1e-4)
    assert tally["difference"]["edited_minus_control"] == pytest.approx(-0.6)
    low, high = tally["difference"]["interval95"]
    assert -1 <= low < -0.6 < high < 0  # Newcombe's interval around -60 points, excluding 0
    assert dict(tally["arms"]["edited"]["first_action"]) == {
        "final answer": 3, 'issue_refund {"amount_cents":8900,"order_id":"4471"}': 2}
    assert tally["original"]["first_action"].startswith("issue_refund") and tally["original"]["event"] is True
    assert any("interval is wide" in note for note in tally["notes"])

    bodies = stream_api.bodies
    firsts = [b for b in bodies if len(b["messages"]) == 5]
    parent = open_run(str(REFUND))
    control_firsts = [b for b in firsts if not _edited(b)]
    failed = script.failed
    assert len(failed) == 1  # the 429 happened, and its request was sent again
    assert len(control_firsts) == 5 + sum(1 for b in failed if len(b["messages"]) == 5 and not _edited(b))
    assert all(b["messages"] == parent.messages[:5] for b in control_firsts)  # the unedited request
    assert stream_api.peak_in_flight <= 2  # the fake server's own count
    assert stream_api.peak_in_flight == 2  # and the pool did run two at once
    assert len(bodies) == 5 + 5 + 2 + 5 + 1  # first calls, the refunds' second calls, and the 429 again

    experiment = orjson.loads(out.read_bytes())
    assert experiment["samples"] == 5 and experiment["control"] is True and experiment["model"] == parent.params["model"]
    assert experiment["patch"] == store.load(files["edited"][0]).lineage["patch"]
    _no_key_anywhere(tmp_path)


def test_the_text_summary_says_the_cost_before_anything_is_sent(stream_api, tmp_path):
    stream_api.responder = Script(delay=0)
    result = run_cli("branch", str(REFUND), "--at", "4", "--tool-error", "toolu_01Ef", DOWN, "--samples", "3",
                     "--control", "--event", "issue_refund:amount_cents=8900", "-o", str(tmp_path / "y.experiment.json"),
                     env=_env(stream_api, tmp_path))
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    cost = next(k for k, line in enumerate(lines) if line.startswith("cost before sending"))
    first_sample = next(k for k, line in enumerate(lines) if line.startswith(("edited 1/3", "edited 2/3", "control")))
    assert cost < first_sample
    assert "x 3 (edited)" in lines[cost] and "x 3 (control)" in lines[cost]
    assert "recorded usage" in lines[cost] or "estimated" in lines[cost]
    assert "issue_refund:amount_cents=8900: 1/3" in result.stdout  # the 2nd edited sample refunds 8900
    assert "issue_refund:amount_cents=8900: 3/3" in result.stdout
    assert "interval is wide" in result.stdout
    # The experiment file is not a run: check and show say so in one line and point to what opens it
    # (before, it loaded as a request with no messages and check reported messages_empty).
    for verb in ("check", "show"):
        said = run_cli(verb, str(tmp_path / "y.experiment.json"))
        assert said.code == 2 and said.stdout == ""
        assert said.stderr.count("\n") == 1 and "an experiment file" in said.stderr
        assert "turnscope branch --resume FILE" in said.stderr and "Traceback" not in said.stderr


def test_a_kill_mid_experiment_then_resume_sends_only_the_unfinished_samples(stream_api, tmp_path):
    script = Script(delay=0, stall_at=3)
    stream_api.responder = script
    out = tmp_path / "k.experiment.json"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", **_env(stream_api, tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "tui", "branch", str(REFUND), "--at", "4", "--tool-error",
                             "toolu_01Ef", DOWN, "--samples", "4", "--concurrency", "1", "--event", "issue_refund",
                             "-o", str(out)], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert stream_api.stalled.wait(60), "the third sample never started streaming"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    doc = orjson.loads(out.read_bytes())
    paths = [out.parent / name for name in doc["arms"]["edited"]]
    finished = [p for p in paths if store.load(p).lineage["status"] == "end_turn"]
    assert len(finished) == 2  # samples 1 and 2 (2 refunds: two calls)
    before = {p: p.read_bytes() for p in finished}
    sent_before = len(stream_api.bodies)
    stream_api.release.set()

    result = run_cli("branch", "--resume", str(out), "--json", env=_env(stream_api, tmp_path))
    assert result.code == 0, result.stderr
    tally = orjson.loads(result.stdout)
    assert tally["arms"]["edited"]["completed"] == 4
    assert all(p.read_bytes() == before[p] for p in finished)  # finished samples untouched
    resent = stream_api.bodies[sent_before:]
    assert len(resent) == 3  # sample 3 again, sample 4 (a refund: two calls); nothing for 1 and 2
    assert tally["arms"]["edited"]["event"]["count"] == _hand_count([str(p) for p in paths]) == 2
    _no_key_anywhere(tmp_path)
