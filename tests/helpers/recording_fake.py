"""The faulty fake Messages API, seen byte by byte: what a recording proxy must pass on unchanged.

``SeenMessagesAPI`` is ``faulty_api.FaultyMessagesAPI`` plus what tests of ``turnscope record``
need to compare bytes at both ends and to break the upstream in the ways a real one breaks:

- ``seen``: for every request, its method, path with query, headers, the body's exact bytes
  and the exact bytes of the answer's body as sent (after the status line and headers);
- ``GET`` (``/v1/models?...``) answers a small JSON list, and ``count_tokens`` a count;
- ``Gzip(turn)``: the JSON answer gzip-compressed with ``content-encoding: gzip``;
- ``Chunked(turn, cut_after=K)``: a streamed answer in chunked encoding that stops after K
  events without the final chunk, so the client sees the connection cut mid-answer;
- ``barrier``: when set, every ``/v1/messages`` request waits at it before its answer (a
  recorder that served requests one at a time would never let it open);
- ``connections``: each request's server-side socket, to see the upstream hang up.
"""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest

from fake_messages_api import fake_count
from fake_messages_api_stream import Turn, sse_events
from faulty_api import FaultyMessagesAPI


@dataclass
class Gzip:
    turn: Turn


@dataclass
class Chunked:
    turn: Turn
    cut_after: int


class _Tee:
    """The handler's output file, keeping a copy of every byte written."""

    def __init__(self, real: Any):
        self.real = real
        self.data = bytearray()

    def write(self, data: bytes) -> int:
        self.data += data
        return self.real.write(data)

    def flush(self) -> None:
        self.real.flush()

    def __getattr__(self, name: str) -> Any:  # closed, close, ...: the real file's
        return getattr(self.real, name)

    def body(self) -> bytes:
        head, _, rest = bytes(self.data).partition(b"\r\n\r\n")
        return rest


@dataclass
class Seen:
    """One request as it arrived, and the answer's body bytes as written so far.

    ``sent`` reads the handler's output copy when asked, not when the handler returns: a
    client can hold the whole answer before the handler thread gets to run its next line.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    tee: _Tee | None = field(default=None, repr=False)

    @property
    def sent(self) -> bytes:
        return self.tee.body() if self.tee is not None else b""


@dataclass
class _State:
    seen: list[Seen] = field(default_factory=list)
    connections: list[Any] = field(default_factory=list)


class SeenMessagesAPI(FaultyMessagesAPI):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Seen] = []
        self.connections: list[Any] = []
        self.barrier: threading.Barrier | None = None
        base = self.server.RequestHandlerClass
        api = self

        class Handler(base):  # type: ignore[misc, valid-type]
            def _begin(self) -> Seen:
                length = int(self.headers.get("content-length") or 0)
                seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                            self.rfile.read(length))
                self.wfile = seen.tee = _Tee(self.wfile)
                with api._lock:
                    api.seen.append(seen)
                    api.connections.append(self.connection)
                return seen

            def _json(self, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                seen = self._begin()
                self._json(200, {"data": [{"type": "model", "id": "claude-fake-1"}], "path": self.path})

            def do_POST(self) -> None:  # noqa: N802
                seen = self._begin()
                body = json.loads(seen.body or b"null")
                path = self.path.split("?")[0]
                if path.endswith("/count_tokens"):
                    self._json(200, {"input_tokens": fake_count(body)}, {"request-id": "req_count"})
                elif api.replies and isinstance(api.replies[0], (Gzip, Chunked)):
                    with api._lock:
                        reply = api.replies.popleft()
                        api.requests.append({"path": self.path, "headers": seen.headers, "body": body})
                    self._special(reply)
                else:
                    if api.barrier is not None:
                        api.barrier.wait(timeout=20)
                    api._serve(self, body)

            def _special(self, reply: Gzip | Chunked) -> None:
                if isinstance(reply, Gzip):
                    turn = reply.turn
                    data = gzip.compress(json.dumps({
                        "id": "msg_gzip", "type": "message", "role": "assistant", "model": turn.model,
                        "content": turn.content, "stop_reason": turn.stop_reason, "stop_sequence": None,
                        "usage": turn.usage}).encode())
                    self.send_response(200)
                    for name, value in (("content-type", "application/json"), ("content-encoding", "gzip"),
                                        ("request-id", "req_gzip"), ("content-length", str(len(data)))):
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.protocol_version = "HTTP/1.1"
                self.send_response(200)
                for name, value in (("content-type", "text/event-stream"), ("transfer-encoding", "chunked"),
                                    ("request-id", "req_chunked")):
                    self.send_header(name, value)
                self.end_headers()
                for sent, (name, data) in enumerate(sse_events(reply.turn, "msg_chunked")):
                    if sent == reply.cut_after:
                        break
                    event = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                    self.wfile.flush()
                self.close_connection = True  # no final chunk: the answer is cut

        self.server.RequestHandlerClass = Handler


@pytest.fixture
def seen_api():
    api = SeenMessagesAPI().start()
    try:
        yield api
    finally:
        api.stop()
