"""``turnscope branch`` end to end: the CLI in a fresh process, the real anthropic SDK, and a fake
Messages API on 127.0.0.1 that records every request it receives."""

import hashlib

import orjson
import pytest

from conftest import SAMPLES, run_cli
from fake_messages_api_stream import DUMMY_KEY, Error, Turn, stream_api, text, tool_use  # noqa: F401
from tui.core.branch import store
from tui.core.grammar import check_run
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
ERROR_TEXT = "policy service unavailable (503)"
POLICY = "Shipments with no carrier scan for 21+ days may be refunded in full without return, provided order status is shipped."


def _raw_refund():
    lines = REFUND.read_bytes().splitlines()
    return orjson.loads(lines[0]), [orjson.loads(line) for line in lines[1:]]


def _sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def branch(api, tmp_path, *args, env=None):
    full = {**api.env(), "XDG_DATA_HOME": str(tmp_path / "data"), **(env or {})}
    return run_cli("branch", *map(str, args), env=full)


def _files(root):
    return [p for p in root.rglob("*") if p.is_file()]


def test_branching_the_refund_run_sends_exactly_the_edited_request(stream_api, tmp_path):
    parent_sha = _sha(REFUND)
    stream_api.add(Turn([text("Let me try the policy once more."),
                         tool_use("toolu_B1", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"),
                   Turn([text("Your refund can go ahead.")]))
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT)
    assert result.code == 0, result.stderr

    header, messages = _raw_refund()
    edited4 = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01Ef",
                                            "content": ERROR_TEXT, "is_error": True}]}
    first, second = stream_api.bodies
    assert first == {**header["params"], "system": header["system"], "tools": header["tools"],
                     "messages": [*messages[:4], edited4], "stream": True}
    headers = stream_api.requests[0]["headers"]  # the SDK sends the key as x-api-key or a Bearer token
    assert DUMMY_KEY in (headers.get("x-api-key"), headers.get("authorization", "").removeprefix("Bearer "))
    # the recorded resolver answered the identical call from the branch's world: the edited error again
    assert second["messages"][:5] == first["messages"]
    assert second["messages"][5] == {"role": "assistant", "content": [
        {"type": "text", "text": "Let me try the policy once more."},
        {"type": "tool_use", "id": "toolu_B1", "name": "lookup_policy", "input": {"topic": "lost_shipment"}}]}
    assert second["messages"][6] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_B1", "content": ERROR_TEXT, "is_error": True}]}
    assert POLICY not in str(second["messages"])
    assert "answered by recorded, from the edit (message 4)" in result.stdout
    assert "Your refund can go ahead." in result.stdout

    saved = [p for p in _files(tmp_path / "data") if p.name.endswith(store.SUFFIX)]
    assert len(saved) == 1 and saved[0].parent.name == parent_sha[:16]
    assert f"saved: {saved[0]}" in result.stdout
    run = open_run(str(saved[0]))
    assert len(run.messages) == 8 and run.messages[7]["content"] == [{"type": "text", "text": "Your refund can go ahead."}]
    assert run.lineage["parent"]["sha256"] == parent_sha and run.lineage["at"] == 4
    assert run.lineage["status"] == "end_turn" and run.lineage["resolver"] == "recorded"
    call = run.call_for(5)
    assert (call.request_id, call.stop_reason, call.model, call.usage["input_tokens"]) == \
        ("req_fake_001", "tool_use", "claude-fake-1", 1200)
    assert call.duration_ms is not None and call.started
    assert check_run(run) == []
    assert _sha(REFUND) == parent_sha
    for path in _files(tmp_path):
        assert DUMMY_KEY.encode() not in path.read_bytes(), path
    assert DUMMY_KEY not in result.stdout + result.stderr


def test_json_output_and_a_model_override(stream_api, tmp_path):
    stream_api.add(Turn([text("Refunded.")]))
    out = tmp_path / "b.turnscope.json"
    result = branch(stream_api, tmp_path, REFUND, "--at", -2, "--model", "claude-other", "-o", out, "--json")
    assert result.code == 0, result.stderr
    doc = orjson.loads(result.stdout)
    assert doc == {"path": str(out), "at": 6, "steps": 1, "stop_reason": "end_turn", "first": 7, "error": None,
                   "messages": [{"role": "assistant", "content": [{"type": "text", "text": "Refunded."}]}],
                   "from_edit": [], "unanswered": None}
    assert stream_api.bodies[0]["model"] == "claude-other"
    lineage = open_run(str(out)).lineage
    assert lineage["model"] == "claude-other" and lineage["patch"] == [
        {"op": "add", "path": "/model", "value": "claude-other"}]


def test_a_call_the_parent_never_made_stops_headless_and_the_file_loads(stream_api, tmp_path):
    stream_api.add(Turn([tool_use("toolu_B2", "lookup_policy", {"topic": "returns"})], "tool_use"))
    out = tmp_path / "b.turnscope.json"
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT,
                    "-o", out, "--json")
    assert result.code == 0, result.stderr
    assert orjson.loads(result.stdout)["stop_reason"] == "stopped"
    run = open_run(str(out))
    assert run.messages[-1] == {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_B2", "name": "lookup_policy", "input": {"topic": "returns"}}]}
    assert run.lineage["status"] == "stopped"
    assert [f.rule for f in check_run(run) if f.severity == "error"] == []


def test_the_stop_resolver_leaves_even_a_recorded_call_unanswered(stream_api, tmp_path):
    stream_api.add(Turn([tool_use("toolu_B3", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"))
    out = tmp_path / "b.turnscope.json"
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT,
                    "--resolver", "stop", "-o", out)
    assert result.code == 0, result.stderr
    assert "tool call is left unanswered" in result.stdout
    assert len(stream_api.bodies) == 1 and len(open_run(str(out)).messages) == 6


def test_the_python_resolver_calls_the_users_function_and_resume_continues(stream_api, tmp_path):
    (tmp_path / "mytools.py").write_text(
        "def dispatch(name, input):\n"
        "    if name == 'issue_refund':\n"
        "        raise RuntimeError('payments API down')\n"
        "    return {'tool': name, 'got': input}\n")
    stream_api.add(Turn([tool_use("toolu_P1", "lookup_policy", {"topic": "returns"}),
                         tool_use("toolu_P2", "issue_refund", {"order_id": "4471", "amount_cents": 8900})], "tool_use"),
                   Turn([text("The refund failed.")]))
    out = tmp_path / "b.turnscope.json"
    first = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT,
                   "--resolver", "stop", "-o", out)
    assert first.code == 0 and len(stream_api.bodies) == 1
    resumed = run_cli("branch", "--resume", str(out), "--resolver", "python:mytools:dispatch", cwd=tmp_path,
                      env={**stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "data")})
    assert resumed.code == 0, resumed.stderr
    answers = stream_api.bodies[1]["messages"][6]["content"]
    assert answers == [
        {"type": "tool_result", "tool_use_id": "toolu_P1",
         "content": '{"tool":"lookup_policy","got":{"topic":"returns"}}'},
        {"type": "tool_result", "tool_use_id": "toolu_P2", "content": "RuntimeError: payments API down",
         "is_error": True}]
    run = open_run(str(out))
    assert len(run.messages) == 8 and run.lineage["status"] == "end_turn"
    assert run.lineage["resumed"][0]["resolver"] == "python:mytools:dispatch"


def test_the_step_limit_stops_before_answering_more_calls(stream_api, tmp_path):
    stream_api.responder = lambda body: Turn(
        [tool_use(f"toolu_L{len(body['messages'])}", "get_shipment", {"order_id": "4471"})], "tool_use")
    out = tmp_path / "b.turnscope.json"
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT,
                    "--max-steps", 2, "-o", out, "--json")
    assert result.code == 0, result.stderr
    doc = orjson.loads(result.stdout)
    assert (doc["stop_reason"], doc["steps"], len(stream_api.bodies)) == ("max_steps", 2, 2)
    run = open_run(str(out))
    assert len(run.messages) == 8 and run.messages[-1]["role"] == "assistant"
    # get_shipment {order_id: 4471} was recorded at message 2: the step-1 call got that answer
    assert run.messages[6]["content"][0]["content"] == '{"carrier":"DHL","state":"in_transit","last_scan":"33d ago"}'
    assert run.lineage["max_steps"] == 2
    again = branch(stream_api, tmp_path, "--resume", out, "--json")  # the limit is the branch's own
    assert again.code == 0 and orjson.loads(again.stdout)["stop_reason"] == "max_steps"
    assert len(stream_api.bodies) == 2 and len(open_run(str(out)).messages) == 8
    more = branch(stream_api, tmp_path, "--resume", out, "--max-steps", 3, "--json")
    assert orjson.loads(more.stdout)["steps"] == 1 and len(stream_api.bodies) == 3
    assert stream_api.bodies[2]["messages"][8]["content"][0]["tool_use_id"] == "toolu_L7"


def test_a_400_shows_the_apis_message_and_loses_nothing(stream_api, tmp_path):
    message = "messages.6: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_X"
    stream_api.add(Turn([tool_use("toolu_E1", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"),
                   Error(400, "invalid_request_error", message))
    out = tmp_path / "b.turnscope.json"
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT, "-o", out)
    assert result.code == 3
    assert f"the API answered 400 invalid_request_error: {message} (request req_fake_002)" in result.stderr
    assert "saved up to message 6" in result.stderr and "--resume" in result.stderr
    run = open_run(str(out))
    assert len(run.messages) == 7 and run.lineage["status"] == "api_error"
    assert run.messages[6]["content"][0]["tool_use_id"] == "toolu_E1"
    stream_api.add(Turn([text("Done after all.")]))
    again = branch(stream_api, tmp_path, "--resume", out)
    assert again.code == 0, again.stderr
    assert stream_api.bodies[2]["messages"] == run.messages
    assert open_run(str(out)).messages[7]["content"][0]["text"] == "Done after all."


@pytest.mark.parametrize("reply, words, attempts", [
    (Error(401, "authentication_error", "invalid x-api-key"), "401 authentication_error: invalid x-api-key", 1),
    (Error(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit"),
     "429 rate_limit_error: Number of request tokens", 3),
    (Error(529, "overloaded_error", "Overloaded"), "529 overloaded_error: Overloaded", 3),
])
def test_api_failures_exit_3_after_the_sdks_retries(stream_api, tmp_path, reply, words, attempts):
    stream_api.responder = lambda body: reply
    out = tmp_path / "b.turnscope.json"
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT, "-o", out)
    assert result.code == 3 and words in result.stderr
    assert len(stream_api.bodies) == attempts  # the SDK's own retries, then the failure
    assert len(open_run(str(out)).messages) == 5
    assert DUMMY_KEY not in result.stderr and DUMMY_KEY.encode() not in out.read_bytes()


def test_a_network_failure_exits_3_and_keeps_the_branch(tmp_path):
    out = tmp_path / "b.turnscope.json"
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": DUMMY_KEY}
    result = run_cli("branch", str(REFUND), "--at", "4", "--tool-error", "toolu_01Ef", ERROR_TEXT, "-o", str(out),
                     env=env)
    assert result.code == 3 and "could not reach the API" in result.stderr
    assert "http://127.0.0.1:9" in result.stderr  # the error names the URL it could not reach
    assert open_run(str(out)).lineage["status"] == "api_error"


def test_no_key_says_how_to_set_it_and_sends_nothing(stream_api, tmp_path):
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT,
                    env={"ANTHROPIC_API_KEY": ""})
    assert result.code == 2
    assert "ANTHROPIC_API_KEY is not set" in result.stderr and "export ANTHROPIC_API_KEY=" in result.stderr
    assert stream_api.requests == [] and _files(tmp_path) == []


@pytest.mark.parametrize("args, words", [
    (["--at", "4", "--patch", "PATCH"], "would be rejected: message 4: empty_content"),
    (["--at", "4", "--tool-error", "toolu_zz", "x"], "no tool_result block with tool_use_id 'toolu_zz'"),
    (["--at", "4"], "nothing to change"),
    (["--at", "7", "--model", "m"], "prefill"),
    (["--at", "4", "--model", "m", "--resolver", "python:no_such_module_xyz:f"], "cannot import no_such_module_xyz"),
    (["--at", "4", "--model", "m", "--resolver", "manual"], "needs the app"),
    (["--at", "4", "--model", "m", "-o", str(REFUND)], "refusing to overwrite"),
])
def test_bad_input_exits_2_and_writes_nothing(stream_api, tmp_path, args, words):
    patch = tmp_path / "p.json"
    patch.write_bytes(b'[{"op": "remove", "path": "/messages/4/content/0"}]')
    before = _sha(REFUND)
    result = branch(stream_api, tmp_path, REFUND, *[str(patch) if a == "PATCH" else a for a in args])
    assert result.code == 2 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert stream_api.requests == [] and not (tmp_path / "data").exists() and _sha(REFUND) == before


def test_a_malformed_patch_file_names_line_and_column(stream_api, tmp_path):
    patch = tmp_path / "p.json"
    patch.write_bytes(b'[\n  {"op": "add",, "path": "/model"}\n]')
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--patch", patch)
    assert result.code == 2 and result.stderr.startswith(f"turnscope: {patch}:2:")


def test_run_text_is_printed_safely(stream_api, tmp_path):
    stream_api.add(Turn([text("ok \x1b]52;c;ZXZpbA==\x07 done")]))
    result = branch(stream_api, tmp_path, REFUND, "--at", 6, "--model", "m", "-o", tmp_path / "b.json")
    assert result.code == 0
    assert "\x1b" not in result.stdout and "\\x1b]52;c;ZXZpbA==\\x07" in result.stdout



@pytest.mark.parametrize("turn, words", [
    (Turn([text("Half of an answer that is cut off.")], cut_after=5),
     "could not reach the API: the stream ended before the message was complete"),
    (Turn([text("Half of an answer, then an error event.")], error_after=5),
     "the API stopped the stream with overloaded_error: Overloaded"),
])
def test_a_stream_that_breaks_off_keeps_no_partial_turn(stream_api, tmp_path, turn, words):
    stream_api.add(Turn([tool_use("toolu_S1", "lookup_policy", {"topic": "lost_shipment"})], "tool_use"), turn)
    out = tmp_path / "b.turnscope.json"
    result = branch(stream_api, tmp_path, REFUND, "--at", 4, "--tool-error", "toolu_01Ef", ERROR_TEXT, "-o", out)
    assert result.code == 3 and words in result.stderr, result.stderr
    run = open_run(str(out))
    assert len(run.messages) == 7 and run.messages[-1]["role"] == "user"


def test_resume_wants_a_branch_file(stream_api, tmp_path):
    result = branch(stream_api, tmp_path, "--resume", REFUND)
    assert result.code == 2 and "not a branch file" in result.stderr
    result = branch(stream_api, tmp_path, REFUND, "--resume", REFUND)
    assert result.code == 2 and "--resume takes only the branch file" in result.stderr


def test_a_patch_file_and_a_system_file_change_what_is_sent(stream_api, tmp_path):
    header, messages = _raw_refund()
    patch = tmp_path / "p.json"
    patch.write_bytes(orjson.dumps([{"op": "add", "path": "/temperature", "value": 0},
                                    {"op": "replace", "path": "/tools/2/description", "value": "Policy text."}]))
    system = tmp_path / "system.txt"
    system.write_text("You are terse.\n")
    stream_api.add(Turn([text("one")]), Turn([text("two")]))
    assert branch(stream_api, tmp_path, REFUND, "--at", 6, "--patch", patch, "-o", tmp_path / "a.json").code == 0
    assert branch(stream_api, tmp_path, REFUND, "--at", 6, "--system-file", system, "-o", tmp_path / "b.json").code == 0
    patched, prompted = stream_api.bodies
    assert patched["temperature"] == 0 and patched["tools"][2]["description"] == "Policy text."
    assert patched["tools"][:2] == header["tools"][:2] and patched["system"] == header["system"]
    assert patched["messages"] == messages[:7]
    assert prompted["system"] == "You are terse." and prompted["tools"] == header["tools"]
    assert "temperature" not in prompted


def test_a_real_recorded_request_is_branched_exactly(stream_api, tmp_path, realruns):
    """llm-anthropic's cassette: the second request (two tool results, temperature, stream) as a run."""
    yaml = pytest.importorskip("yaml")
    cassette = yaml.safe_load((realruns / "llmanthropic__test_tools.yaml").read_text())
    raw = cassette["interactions"][1]["request"]["body"]
    body = orjson.loads(raw if isinstance(raw, str) else raw["string"])
    request = tmp_path / "request.json"
    request.write_bytes(orjson.dumps(body))
    second = body["messages"][2]["content"][1]
    stream_api.add(Turn([text("That lookup failed, so I cannot say.")]))
    result = branch(stream_api, tmp_path, request, "--at", 2, "--tool-error", second["tool_use_id"], "timed out",
                    "-o", tmp_path / "b.json")
    assert result.code == 0, result.stderr
    edited = orjson.loads(orjson.dumps(body))
    edited["messages"][2]["content"][1] = {**second, "content": "timed out", "is_error": True}
    assert stream_api.bodies == [edited]
