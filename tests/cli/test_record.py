"""``turnscope record`` between the real anthropic SDK and the tests' fake Messages API.

The recorder runs in its own process as a user runs it; the SDK talks to it over HTTP
through ``base_url`` and the fake sees what arrives. Every test compares bytes at both ends
(what the SDK sent with what the fake received, what the fake sent with what the SDK got)
and then loads the recording the way ``turnscope FILE`` does.
"""

from __future__ import annotations

import http.client
import json
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import anthropic
import pytest

from fake_messages_api_stream import DUMMY_KEY, Error, Turn, text, tool_use
from recorder_process import Recorder
from recording_fake import Chunked, Gzip, seen_api  # noqa: F401 - the fixture
from tui.core.prefix import call_request
from tui.core.run import EXACT
from tui.formats import load_runs

TOOLS = [{"name": "lookup", "description": "Look a word up.",
          "input_schema": {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}}]


class Sent:
    """The request bodies the SDK put on the wire (an httpx event hook: the SDK is not patched)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def hook(self, request) -> None:  # an httpx request
        self.bodies.append(request.read())


def client(url: str, sent: Sent | None = None, **options) -> anthropic.Anthropic:
    hooks = {"request": [sent.hook]} if sent is not None else {}
    return anthropic.Anthropic(base_url=url, api_key=DUMMY_KEY, max_retries=options.pop("max_retries", 0),
                               http_client=anthropic.DefaultHttpxClient(event_hooks=hooks), **options)


@pytest.fixture
def recorder(seen_api, tmp_path):
    started: list[Recorder] = []

    def start(upstream: str | None = None, name: str = "rec.jsonl") -> Recorder:
        rec = Recorder.start(tmp_path / name, upstream or seen_api.url)
        started.append(rec)
        return rec

    yield start
    for rec in started:
        if rec.process.poll() is None:
            rec.kill()


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_streamed_and_json_calls_pass_byte_for_byte_and_load_as_an_exact_run(seen_api, recorder):
    rec = recorder()
    sent = Sent()
    sdk = client(rec.url, sent)
    seen_api.add(Turn([text("I will look it up."), tool_use("toolu_1", "lookup", {"word": "refund"})], "tool_use"),
                 Turn([text("Refunds take 5 days.")]))
    messages = [{"role": "user", "content": "How long do refunds take? Use the tool."}]
    with sdk.messages.with_streaming_response.create(model="claude-fake-1", max_tokens=300, tools=TOOLS,
                                                     system="Be brief.", messages=messages, stream=True) as raw:
        streamed = b"".join(raw.iter_bytes())
    with sdk.messages.stream(model="claude-fake-1", max_tokens=300, tools=TOOLS, system="Be brief.",
                             messages=messages) as stream:
        first = stream.get_final_message()
    assert first.stop_reason == "end_turn" or first.content  # the SDK parsed the streamed answer
    seen_api.add(Turn([text("Refunds take 5 days.")]))
    messages += [{"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "5 days"}]}]
    raw_json = sdk.messages.with_raw_response.create(model="claude-fake-1", max_tokens=300, tools=TOOLS,
                                                     system="Be brief.", messages=messages)
    answer = raw_json.parse()
    assert rec.stop() == 0

    posts = [s for s in seen_api.seen if s.method == "POST"]
    assert [s.body for s in posts] == sent.bodies  # byte-identical bodies at the fake
    assert streamed == posts[0].sent  # byte-identical answers at the client, streamed ...
    assert raw_json.http_response.content == posts[2].sent  # ... and JSON
    assert answer.content[0].text == "Refunds take 5 days."
    credentials = {posts[0].headers.get("x-api-key"), posts[0].headers.get("authorization", "").removeprefix("Bearer ")}
    assert DUMMY_KEY in credentials  # forwarded (the SDK sends it as x-api-key or a bearer token)

    data = rec.output.read_bytes()
    for post in posts:
        assert post.body in data  # the exact bytes, verbatim in the record
    records = lines(rec.output)
    assert records[0]["response"]["body_raw"].encode() == posts[0].sent
    assert [r["response"]["status_code"] for r in records] == [200, 200, 200]
    assert records[0]["request_id"] == "req_fake_001"
    assert all(r["request"]["timestamp"] <= r["response"]["first_byte_timestamp"] <= r["response"]["timestamp"]
               for r in records)

    runs = load_runs(str(rec.output))
    calls = [(run, k) for run in runs for k in range(len(run.calls))]
    assert all(run.source.prefix == EXACT for run in runs)
    assert sorted(json.dumps(call_request(run, k), sort_keys=True) for run, k in calls) == \
        sorted(json.dumps(json.loads(p.body), sort_keys=True) for p in posts)
    longest = runs[0]
    assert len(longest.calls) == 2 and longest.messages[-1]["content"][0]["text"] == "Refunds take 5 days."
    assert longest.system == "Be brief." and longest.tools == TOOLS


def test_parallel_streams_are_served_at_once(seen_api, recorder):
    rec = recorder()
    seen_api.barrier = threading.Barrier(8)  # opens only when all 8 requests are at the fake together
    seen_api.responder = lambda body: Turn([text(f"answer to {body['messages'][0]['content']}")])
    sdk = client(rec.url, timeout=30)
    answers: dict[int, str] = {}

    def call(k: int) -> None:
        with sdk.messages.stream(model="claude-fake-1", max_tokens=50,
                                 messages=[{"role": "user", "content": f"question {k}"}]) as stream:
            answers[k] = stream.get_final_message().content[0].text

    threads = [threading.Thread(target=call, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert rec.stop() == 0
    assert answers == {k: f"answer to question {k}" for k in range(8)}
    assert not seen_api.barrier.broken
    runs = load_runs(str(rec.output))
    assert sorted(run.messages[1]["content"][0]["text"] for run in runs) == sorted(answers.values())


def test_an_overloaded_529_passes_through_and_is_recorded_as_refused(seen_api, recorder):
    rec = recorder()
    seen_api.add(Error(529, "overloaded_error", "Overloaded", {"x-should-retry": "false"}))
    sdk = client(rec.url)
    with pytest.raises(anthropic.APIStatusError) as refused:
        sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert refused.value.status_code == 529
    assert refused.value.response.content == seen_api.seen[0].sent
    assert refused.value.response.headers["request-id"] == "req_fake_001"
    rec.stop()
    (record,) = lines(rec.output)
    assert record["response"]["status_code"] == 529
    run = load_runs(str(rec.output))[0]
    assert run.calls[0].status == 529
    assert any("answered 529" in w.text and "overloaded_error" in w.text for w in run.warnings)


def test_an_upstream_that_closes_mid_stream_cuts_the_client_and_the_record_says_so(seen_api, recorder):
    rec = recorder()
    seen_api.add(Chunked(Turn([text("This answer is cut short somewhere in the middle.")]), cut_after=4))
    sdk = client(rec.url)
    got: list[str] = []
    with pytest.raises(Exception, match="incomplete chunked read"):  # the cut, as httpx reports it
        with sdk.messages.stream(model="claude-fake-1", max_tokens=10,
                                 messages=[{"role": "user", "content": "hi"}]) as stream:
            for event in stream:
                got.append(event.type)
    assert "message_start" in got and "message_stop" not in got
    rec.stop()
    (record,) = lines(rec.output)
    assert "upstream closed" in record["partial"]
    assert record["response"]["body_raw"].startswith("event: message_start")
    run = load_runs(str(rec.output))[0]
    assert len(run.messages) == 1 and run.calls[0].status == 200
    assert any("partial" in w.text and "upstream closed" in w.text for w in run.warnings)


def test_an_unreachable_upstream_is_a_502_envelope_naming_it(tmp_path, recorder):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    rec = recorder(upstream=dead)
    sdk = client(rec.url)
    with pytest.raises(anthropic.APIStatusError) as refused:
        sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert refused.value.status_code == 502
    body = refused.value.response.json()
    assert body["type"] == "error" and body["error"]["type"] == "api_error"
    assert dead in body["error"]["message"] and "unreachable" in body["error"]["message"]
    rec.stop()
    (record,) = lines(rec.output)
    assert record["response"]["status_code"] == 502 and record["answered_by_recorder"]


def _hung_up(connection: socket.socket, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                return True
        except BlockingIOError:
            pass
        except OSError:
            return True
        time.sleep(0.02)
    return False


def test_a_client_that_disconnects_cancels_the_upstream_and_leaves_a_partial_record(seen_api, recorder):
    rec = recorder()
    seen_api.add(Turn([text("a long answer that the client will never wait for")], stall_after=3))
    sdk = client(rec.url)
    with sdk.messages.with_streaming_response.create(model="claude-fake-1", max_tokens=10, stream=True,
                                                     messages=[{"role": "user", "content": "hi"}]) as response:
        chunks = response.iter_bytes()  # held: a dropped iterator would close the stream at once
        assert b"message_start" in next(chunks)
        assert seen_api.stalled.wait(10)
    # the client is gone: the recorder must hang up on the upstream, not wait for its answer
    assert _hung_up(seen_api.connections[0])
    deadline = time.monotonic() + 10
    while not rec.output.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    rec.stop()
    (record,) = lines(rec.output)
    assert "client disconnected" in record["partial"]
    assert "message_start" in record["response"]["body_raw"]
    assert seen_api.seen[0].body in rec.output.read_bytes()
    run = load_runs(str(rec.output))[0]
    assert len(run.messages) == 1
    assert any("client disconnected" in w.text for w in run.warnings)


def test_sigkill_mid_stream_leaves_every_complete_record_loadable(seen_api, recorder):
    rec = recorder()
    seen_api.add(Turn([text("first answer")]), Turn([text("second answer")]),
                 Turn([text("never finished")], stall_after=4))
    sdk = client(rec.url, timeout=5)
    history = [{"role": "user", "content": "one"}]
    for word in ("two",):
        answer = sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=history)
        history += [{"role": "assistant", "content": answer.content[0].text}, {"role": "user", "content": word}]
    sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=history)
    hung = threading.Thread(target=lambda: _ignore(lambda: sdk.messages.create(
        model="claude-fake-1", max_tokens=10, messages=history, stream=True).get_final_message()))
    hung.start()
    assert seen_api.stalled.wait(10)
    rec.process.send_signal(signal.SIGKILL)
    rec.kill()
    hung.join(timeout=30)
    assert len(lines(rec.output)) == 2  # every line whole
    runs = load_runs(str(rec.output))
    assert len(runs) == 1 and len(runs[0].calls) == 2 and runs[0].source.prefix == EXACT


def _ignore(call) -> None:
    try:
        call()
    except Exception:  # noqa: BLE001 - the recorder is killed under this call on purpose
        pass


def test_a_planted_key_reaches_the_upstream_and_no_written_byte(seen_api, recorder, tmp_path):
    planted = "sk-ant-planted-4c1b9e0a7f-SECRET"
    rec = recorder()
    seen_api.add(Turn([text("ok")]), Error(401, "authentication_error", "bad key",
                                           {"set-cookie": f"session={planted}; HttpOnly"}))
    sdk = anthropic.Anthropic(base_url=rec.url, api_key=planted, max_retries=0,
                              default_headers={"authorization": f"Bearer {planted}", "cookie": f"sid={planted}",
                                               "proxy-authorization": f"Basic {planted}",
                                               "x-gateway-token": planted})
    sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=[{"role": "user", "content": "hi"}],
                        metadata={"user_id": "u1"}, extra_query={"api_key": planted}, extra_body={"mcp_servers": [
                            {"type": "url", "url": "https://mcp.example", "name": "m",
                             "authorization_token": planted}]})
    with pytest.raises(anthropic.AuthenticationError):
        sdk.messages.count_tokens(model="claude-fake-1", messages=[{"role": "user", "content": "hi"}])
        sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    rec.stop()
    at_fake = seen_api.seen[0].headers
    assert at_fake["authorization"] == f"Bearer {planted}"
    assert at_fake["cookie"] == f"sid={planted}" and at_fake["x-gateway-token"] == planted
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    written += (rec.stdout + rec.stderr).encode()
    assert len(lines(rec.output)) == 3
    assert planted.encode() not in written
    assert planted[8:20].encode() not in written  # nor a part of it
    assert lines(rec.output)[0]["request"]["redacted"] == ["mcp_servers[0].authorization_token"]


def test_other_endpoints_are_forwarded_with_their_query_and_only_messages_calls_are_kept(seen_api, recorder):
    rec = recorder()
    sdk = client(rec.url)
    models = sdk.models.list(limit=2)
    assert models.data[0].id == "claude-fake-1"
    counted = sdk.messages.count_tokens(model="claude-fake-1", messages=[{"role": "user", "content": "hi"}])
    assert counted.input_tokens > 7
    rec.stop()
    assert seen_api.seen[0].method == "GET" and seen_api.seen[0].path == "/v1/models?limit=2"
    (record,) = lines(rec.output)
    assert record["request"]["url"].endswith("/v1/messages/count_tokens?beta=true") or \
        record["request"]["url"].endswith("/v1/messages/count_tokens")
    assert record["response"]["body"] == {"input_tokens": counted.input_tokens}


def test_a_client_that_expects_100_continue_is_told_to_go_on_before_it_sends_the_body(seen_api, recorder):
    # curl and some HTTP stacks send "Expect: 100-continue" with a large body and wait for the go-ahead
    rec = recorder()
    seen_api.add(Turn([text("went on")]))
    body = json.dumps({"model": "claude-fake-1", "max_tokens": 10,
                       "messages": [{"role": "user", "content": "x" * 5000}]}).encode()
    host, port = rec.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: " + host.encode() + b"\r\nContent-Type: application/json"
                           b"\r\nx-api-key: " + DUMMY_KEY.encode() + b"\r\nExpect: 100-continue\r\nContent-Length: "
                           + str(len(body)).encode() + b"\r\n\r\n")
        interim = b""
        while b"\r\n\r\n" not in interim:
            interim += connection.recv(1)  # the body is not sent until the proxy says so
        assert interim.startswith(b"HTTP/1.1 100 Continue")
        connection.sendall(body)
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        assert answer.status == 200 and json.loads(answer.read())["content"][0]["text"] == "went on"
    assert seen_api.seen[0].body == body  # the body reached the upstream unchanged
    rec.stop()
    (record,) = lines(rec.output)
    assert "expect" not in record["request"]["headers"]


def test_a_compressed_answer_passes_compressed_and_is_recorded_decompressed(seen_api, recorder):
    rec = recorder()
    seen_api.add(Gzip(Turn([text("squeezed")])))
    body = json.dumps({"model": "claude-fake-1", "max_tokens": 10,
                       "messages": [{"role": "user", "content": "hi"}]}).encode()
    host, port = rec.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("POST", "/v1/messages", body=body, headers={"x-api-key": DUMMY_KEY, "accept-encoding": "gzip",
                                                                   "content-type": "application/json"})
    response = connection.getresponse()
    raw = response.read()  # http.client does not decode: the bytes as they came
    assert response.getheader("content-encoding") == "gzip"
    connection.close()
    assert raw == seen_api.seen[0].sent and raw[:2] == b"\x1f\x8b"
    rec.stop()
    (record,) = lines(rec.output)
    assert record["response"]["body"]["content"] == [{"type": "text", "text": "squeezed"}]
    assert load_runs(str(rec.output))[0].messages[-1]["content"][0]["text"] == "squeezed"


def test_two_recorders_never_write_one_file(seen_api, recorder, cli):
    rec = recorder()
    second = cli("record", "-o", str(rec.output), "--upstream", seen_api.url, timeout=30)
    assert second.code == 2 and "another recorder is writing this file" in second.stderr
    rec.stop()


def test_a_port_in_use_is_one_line_and_leaves_no_file(seen_api, cli, tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        out = tmp_path / "never.jsonl"
        result = cli("record", "-o", str(out), "--upstream", seen_api.url, "--port", str(busy.getsockname()[1]),
                     "--", sys.executable, "-c", "pass", timeout=30)
    assert result.code == 2 and "cannot listen on 127.0.0.1:" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not out.exists()


def test_an_existing_file_is_never_written_over(seen_api, cli, tmp_path):
    out = tmp_path / "kept.jsonl"
    out.write_bytes(b"somebody's data\n")
    result = cli("record", "-o", str(out), "--upstream", seen_api.url, "--", sys.executable, "-c", "pass", timeout=30)
    assert result.code == 2 and "already holds data" in result.stderr
    assert out.read_bytes() == b"somebody's data\n"


def test_the_record_keeps_every_header_but_credentials():
    from tui.record.recording import kept_headers, safe_url

    kept = kept_headers([("X-Api-Key", "k"), ("Authorization", "Bearer k"), ("Cookie", "c"), ("Set-Cookie", "s"),
                         ("Proxy-Authorization", "p"), ("x-goog-api-key", "k"), ("X-Gateway-Token", "t"),
                         ("anthropic-ratelimit-tokens-limit", "80000"), ("anthropic-beta", "a"),
                         ("anthropic-beta", "b"), ("x-claude-code-session-id", "s1"), ("request-id", "req_1")])
    assert kept == {"anthropic-ratelimit-tokens-limit": "80000", "anthropic-beta": "a, b",
                    "x-claude-code-session-id": "s1", "request-id": "req_1"}
    assert safe_url("https://user:pw@gw.example/v1/messages?beta=true&api_key=k") == \
        "https://gw.example/v1/messages?beta=true&api_key=%5Bdropped%5D"


def test_a_record_cut_by_a_kill_mid_write_costs_only_that_record(seen_api, recorder):
    rec = recorder()
    seen_api.add(Turn([text("one")]), Turn([text("two")]))
    sdk = client(rec.url)
    history = [{"role": "user", "content": "a"}]
    first = sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=history)
    history += [{"role": "assistant", "content": first.content[0].text}, {"role": "user", "content": "b"}]
    sdk.messages.create(model="claude-fake-1", max_tokens=10, messages=history)
    rec.stop()
    whole = rec.output.read_bytes()
    cut = whole[: len(whole) - len(whole.splitlines()[-1]) // 2]  # the last write stopped half way
    rec.output.write_bytes(cut)
    (run,) = load_runs(str(rec.output))
    assert len(run.calls) == 1 and run.messages[-1]["content"][0]["text"] == "one"
    assert any(w.line == 2 for w in run.warnings)  # the cut line is named, not silently dropped


def test_a_chunked_request_body_reaches_the_upstream_as_the_same_bytes(seen_api, recorder):
    # a client that streams its body (curl with a pipe, some HTTP stacks) sends it chunked
    rec = recorder()
    seen_api.add(Turn([text("chunks joined")]))
    body = json.dumps({"model": "claude-fake-1", "max_tokens": 10,
                       "messages": [{"role": "user", "content": "y" * 3000}]}).encode()
    pieces = [body[:1000], body[1000:1001], body[1001:]]
    host, port = rec.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-api-key: "
                           + DUMMY_KEY.encode() + b"\r\nTransfer-Encoding: chunked\r\n\r\n")
        for piece in pieces:
            connection.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            time.sleep(0.05)  # in separate reads at the recorder
        connection.sendall(b"0\r\n\r\n")
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        assert answer.status == 200 and json.loads(answer.read())["content"][0]["text"] == "chunks joined"
    assert seen_api.seen[0].body == body
    assert seen_api.seen[0].headers["content-length"] == str(len(body))
    assert "transfer-encoding" not in seen_api.seen[0].headers
    rec.stop()
    (record,) = lines(rec.output)
    assert body in rec.output.read_bytes() and record["response"]["status_code"] == 200


def test_a_head_request_is_answered_and_the_connection_serves_the_next_request(seen_api, recorder):
    rec = recorder()
    host, port = rec.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("HEAD", "/v1/models")
    head = connection.getresponse()
    # the fake has no HEAD handler: http.server's 501, from the upstream (the recorder makes no 501)
    assert head.status == 501 and head.read() == b""
    connection.request("GET", "/v1/models?limit=1")  # the same connection: the HEAD's answer did not hang it
    models = connection.getresponse()
    assert models.status == 200 and json.loads(models.read())["data"][0]["id"] == "claude-fake-1"
    connection.close()
    rec.stop()
    assert [s.method for s in seen_api.seen] == ["GET"]


class _KeepAliveThenDrop(threading.Thread):
    """An HTTP/1.1 upstream that keeps each connection open after its first answer, then closes it
    under the next request without answering (as a server that timed the idle connection out)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.connections = 0
        self.answered: list[bytes] = []

    def run(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            reader = connection.makefile("rb")
            for answers in (True, False):
                head = b""
                while not head.endswith(b"\r\n\r\n"):
                    byte = reader.read(1)
                    if not byte:
                        return
                    head += byte
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                body = reader.read(length)
                if not answers:
                    return  # closed under the second request
                self.answered.append(body)
                payload = json.dumps({"id": "msg_k", "type": "message", "role": "assistant", "model": "m",
                                      "content": [{"type": "text", "text": f"answer {len(self.answered)}"}],
                                      "stop_reason": "end_turn", "stop_sequence": None,
                                      "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
                connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                                   % (len(payload), payload))


def test_a_kept_alive_upstream_connection_closed_under_a_request_is_not_a_502(recorder):
    upstream = _KeepAliveThenDrop()
    upstream.start()
    rec = recorder(upstream=upstream.url)
    sdk = client(rec.url)
    texts = [sdk.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": word}]).content[0].text
             for word in ("one", "two", "three")]
    upstream.listener.close()
    assert texts == ["answer 1", "answer 2", "answer 3"]
    assert upstream.connections >= 2  # the closed connections were replaced, the requests sent again on new ones
    rec.stop()
    assert len(lines(rec.output)) == 3 and not any("partial" in r for r in lines(rec.output))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a disk that is always full)")
def test_a_full_disk_loses_only_the_record_the_agent_is_answered_and_told_nothing_false(seen_api, tmp_path):
    full = tmp_path / "full.jsonl"
    full.symlink_to("/dev/full")  # every write fails with ENOSPC, as on a full disk
    rec = Recorder.start(full, seen_api.url)
    try:
        seen_api.add(Turn([text("one")]), Turn([text("two")]))
        sdk = client(rec.url, timeout=10)
        answers = [sdk.messages.create(model="claude-fake-1", max_tokens=10,
                                       messages=[{"role": "user", "content": word}]).content[0].text
                   for word in ("a", "b")]  # the second on the same kept-alive connection
    finally:
        rec.stop()
    assert answers == ["one", "two"]
    told = [line for line in rec.stderr.splitlines() if "not recorded" in line]
    assert len(told) == 2 and all("No space left" in line for line in told)
    assert "Traceback" not in rec.stderr


class _TlsUpstream:
    """An HTTPS upstream with a certificate of its own (made with the openssl tool), streaming an
    answer in chunks over a kept-alive connection."""

    def __init__(self, folder: Path) -> None:
        import http.server
        import ssl
        import subprocess

        self.cert, key = folder / "cert.pem", folder / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                        str(self.cert), "-days", "2", "-subj", "/CN=localhost", "-addext",
                        "subjectAltName=DNS:localhost"], check=True, capture_output=True)
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                seen.append((self.headers.get("host"), body))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for k in range(3):
                    event = f"event: ping\ndata: {{\"k\": {k}}}\n\n".encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://localhost:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _post(url: str, body: bytes, times: int = 1) -> list[tuple[int, bytes]]:
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    answers = []
    for _ in range(times):  # on the one kept-alive connection
        connection.request("POST", "/v1/messages", body=body, headers={"content-type": "application/json",
                                                                       "x-api-key": DUMMY_KEY})
        response = connection.getresponse()
        answers.append((response.status, response.read()))
    connection.close()
    return answers


@pytest.mark.skipif(not __import__("shutil").which("openssl"), reason="needs the openssl tool to make a certificate")
def test_an_https_upstream_is_verified_and_streams_through(tmp_path):
    upstream = _TlsUpstream(tmp_path)
    body = b'{"model":"claude-fake-1","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}'
    trusted = Recorder.start(tmp_path / "trusted.jsonl", upstream.url, env={"SSL_CERT_FILE": str(upstream.cert)})
    try:
        answers = _post(trusted.url, body, times=2)
    finally:
        trusted.stop()
    events = b"".join(f"event: ping\ndata: {{\"k\": {k}}}\n\n".encode() for k in range(3))
    assert answers == [(200, events)] * 2
    assert upstream.seen == [(upstream.url.removeprefix("https://"), body)] * 2  # the upstream's own Host
    assert len(lines(trusted.output)) == 2
    untrusted = Recorder.start(tmp_path / "untrusted.jsonl", upstream.url)  # the system's CAs: not this one
    try:
        ((status, answer),) = _post(untrusted.url, body)
    finally:
        untrusted.stop()
    upstream.server.shutdown()
    assert status == 502 and "CERTIFICATE_VERIFY_FAILED" in json.loads(answer)["error"]["message"]
    assert len(upstream.seen) == 2  # nothing reached it unverified


def test_credentials_in_the_upstream_url_are_sent_as_basic_auth_and_never_written(seen_api, recorder, tmp_path):
    """A gateway behind ``--upstream https://user:pass@host`` gets Basic credentials when the agent sends no
    ``Authorization`` of its own (an agent's own header wins); the password is in no written byte."""
    import base64

    password = "gw-pass-9d2e71SECRET"
    host = seen_api.url.split("://", 1)[1]
    rec = recorder(upstream=f"http://gate%40way:{password}@{host}")
    seen_api.add(Turn([text("one")]), Turn([text("two")]))
    port = int(rec.url.rsplit(":", 1)[1])
    plain = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # an agent that sends x-api-key only
    plain.request("POST", "/v1/messages", body=json.dumps({"model": "claude-fake-1", "max_tokens": 10, "messages": [
        {"role": "user", "content": "a"}]}), headers={"x-api-key": DUMMY_KEY, "content-type": "application/json",
                                                     "anthropic-version": "2023-06-01"})
    assert plain.getresponse().read() and plain.close() is None
    anthropic.Anthropic(base_url=rec.url, api_key=DUMMY_KEY, max_retries=0,
                        default_headers={"authorization": "Bearer own-token"}).messages.create(
        model="claude-fake-1", max_tokens=10, messages=[{"role": "user", "content": "b"}])
    rec.stop()
    first, second = (seen.headers for seen in seen_api.seen)
    assert first["authorization"] == "Basic " + base64.b64encode(f"gate@way:{password}".encode()).decode()
    assert second["authorization"] == "Bearer own-token"
    assert first["host"] == host  # userinfo is not a Host
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()) + (rec.stdout + rec.stderr).encode()
    assert len(lines(rec.output)) == 2
    assert password.encode() not in written and base64.b64encode(f"gate@way:{password}".encode()) not in written
