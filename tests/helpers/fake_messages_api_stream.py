"""A small fake Messages API on 127.0.0.1 for branch tests: JSON and SSE streaming, scripted per test.

The real anthropic SDK talks to it through ``ANTHROPIC_BASE_URL`` with a dummy key; the
SDK is never patched. Each ``POST /v1/messages`` takes the next scripted reply (or asks
``responder(body)``) and every request received is recorded (path with its query, headers with
lower-case names, JSON body, and the body's bytes as received). ``POST /v1/messages/count_tokens``
answers a count (``fake_count``) without taking a reply; any other path (and every GET) is a 404
in the API's error envelope, so a client's side calls get an answer, not a hang.

- ``Turn(content, stop_reason)``: a model turn, streamed as the real API streams it
  (message_start, content_block_start/delta/stop with text split into small deltas and
  tool inputs as partial JSON, message_delta, message_stop) or as one JSON message.
  ``stall_after=K`` sends K events, sets ``api.stalled`` and then hangs until released;
  ``cut_after=K`` closes the connection after K events; ``error_after=K`` sends an SSE
  ``error`` event (overloaded_error) after K events; ``delay`` waits before answering.
  ``in_flight``/``peak_in_flight`` count the ``/v1/messages`` requests being answered at once.
- ``Error(status, type, message)``: the API's error envelope with a ``request-id`` header.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest

from fake_messages_api import fake_count

DUMMY_KEY = "sk-ant-fake-9f3c1e7d5b2a-DO-NOT-WRITE"
MODEL = "claude-fake-1"


@dataclass
class Turn:
    content: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    model: str = MODEL
    usage: dict[str, Any] = field(default_factory=lambda: {"input_tokens": 1200, "output_tokens": 40})
    stall_after: int | None = None  # events to send before hanging (to kill a client mid-stream)
    cut_after: int | None = None  # events to send before closing the connection
    error_after: int | None = None  # events to send before an SSE error event (overloaded_error)
    delay: float = 0.0  # seconds to wait before answering (so concurrent requests overlap)


@dataclass
class Error:
    status: int
    type: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def tool_use(id_: str, name: str, input_: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": id_, "name": name, "input": input_}


def sse_events(turn: Turn, message_id: str) -> list[tuple[str, dict[str, Any]]]:
    start_usage = {"input_tokens": turn.usage["input_tokens"], "output_tokens": 1}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": turn.model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": start_usage}})]
    for k, block in enumerate(turn.content):
        kind = block["type"]
        if kind == "text":
            start, deltas = {"type": "text", "text": ""}, [
                {"type": "text_delta", "text": block["text"][i:i + 7]} for i in range(0, len(block["text"]), 7)]
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            raw = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": raw[i:i + 5]} for i in range(0, len(raw), 5)]
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]},
                      {"type": "signature_delta", "signature": block["signature"]}]
        else:
            start, deltas = block, []
        events.append(("content_block_start", {"type": "content_block_start", "index": k, "content_block": start}))
        if k == 0:
            events.append(("ping", {"type": "ping"}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": k, "delta": d}) for d in deltas]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": k}))
    events.append(("message_delta", {"type": "message_delta", "delta": {
        "stop_reason": turn.stop_reason, "stop_sequence": None}, "usage": {"output_tokens": turn.usage["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class FakeMessagesAPI:
    def __init__(self) -> None:
        self.replies: deque[Turn | Error] = deque()
        self.responder: Callable[[dict[str, Any]], Turn | Error] | None = None
        self.requests: list[dict[str, Any]] = []
        self.stalled = threading.Event()
        self.release = threading.Event()
        self._count = 0
        self._lock = threading.Lock()
        self.in_flight = 0  # POST /v1/messages being answered right now
        self.peak_in_flight = 0  # the most answered at once
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = None
                api._serve(self, body, raw)

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                with api._lock:
                    api.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                         "body": None, "raw": b"", "method": "GET"})
                api._answer(self, 404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def env(self) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": DUMMY_KEY}

    def add(self, *replies: Turn | Error) -> None:
        self.replies.extend(replies)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.message_requests]

    @property
    def message_requests(self) -> list[dict[str, Any]]:
        """The ``POST /v1/messages`` requests (any query, e.g. ``?beta=true``), in the order received."""
        return [r for r in self.requests if r["path"].split("?")[0] == "/v1/messages" and r.get("method") != "GET"]

    def start(self) -> FakeMessagesAPI:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def _answer(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _serve(self, handler: BaseHTTPRequestHandler, body: Any, raw: bytes = b"") -> None:
        path = handler.path.split("?")[0]
        with self._lock:
            record = {"path": handler.path, "headers": {k.lower(): v for k, v in handler.headers.items()},
                      "body": body, "raw": raw, "method": "POST"}
            self.requests.append(record)
            if path != "/v1/messages":
                status, payload = (200, {"input_tokens": fake_count(body)}) if path == "/v1/messages/count_tokens" \
                    and isinstance(body, dict) else (404, {"type": "error", "error": {
                        "type": "not_found_error", "message": f"fake server: no {path}"}})
            else:
                status, payload = 0, {}
        if status:
            self._answer(handler, status, payload)
            return
        with self._lock:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            self._reply(handler, body, record)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _reply(self, handler: BaseHTTPRequestHandler, body: Any, record: dict[str, Any]) -> None:
        with self._lock:
            self._count += 1
            number = self._count
            record["number"] = number  # the request-id and message id its answer carries
            if self.responder is not None:
                reply: Turn | Error = self.responder(body)
            elif self.replies:
                reply = self.replies.popleft()
            else:
                reply = Error(400, "invalid_request_error", "fake server: no reply scripted",
                              {"x-should-retry": "false"})
        request_id = f"req_fake_{number:03d}"
        if isinstance(reply, Error):
            payload = json.dumps({"type": "error", "error": {"type": reply.type, "message": reply.message},
                                  "request_id": request_id}).encode()
            handler.send_response(reply.status)
            for name, value in {"content-type": "application/json", "request-id": request_id,
                                "retry-after-ms": "5", **reply.headers}.items():
                handler.send_header(name, value)
            handler.send_header("content-length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        message_id = f"msg_fake_{number:03d}"
        if reply.delay:
            time.sleep(reply.delay)
        if not (isinstance(body, dict) and body.get("stream")):
            payload = json.dumps({"id": message_id, "type": "message", "role": "assistant", "model": reply.model,
                                  "content": reply.content, "stop_reason": reply.stop_reason,
                                  "stop_sequence": None, "usage": reply.usage}).encode()
            handler.send_response(200)
            handler.send_header("content-type", "application/json")
            handler.send_header("request-id", request_id)
            handler.send_header("content-length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("request-id", request_id)
        handler.send_header("cache-control", "no-cache")
        handler.end_headers()
        for sent, (name, data) in enumerate(sse_events(reply, message_id)):
            if reply.stall_after is not None and sent == reply.stall_after:
                handler.wfile.flush()
                self.stalled.set()
                self.release.wait(timeout=60)
                return
            if sent == reply.cut_after:
                return
            if sent == reply.error_after:
                error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
                handler.wfile.write(f"event: error\ndata: {json.dumps(error)}\n\n".encode())
                return
            handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()
            time.sleep(0.001)


@pytest.fixture
def stream_api():
    api = FakeMessagesAPI().start()
    try:
        yield api
    finally:
        api.stop()
