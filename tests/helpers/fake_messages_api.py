"""A small fake of the Messages API ``count_tokens`` endpoint on 127.0.0.1, for tests.

The real anthropic SDK talks to it over HTTP (``ANTHROPIC_BASE_URL``); nothing is patched.
It answers ``POST /v1/messages/count_tokens`` with a count that is a fixed function of the
body (``fake_count``), so a test can predict it, and records every request (path, headers with lower-case names,
parsed body). ``status`` makes it answer with an API error instead. Kept apart from the
streaming fake of ``/v1/messages`` so the two can be merged later.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator


def fake_count(body: dict[str, Any]) -> int:
    """The count the fake returns: 7 + one token per 4 bytes of the counted fields' JSON."""
    counted = {k: body.get(k) for k in ("system", "tools", "messages") if k in body}
    return 7 + len(json.dumps(counted, sort_keys=True, separators=(",", ":"))) // 4


@dataclass
class FakeMessagesAPI:
    host: str = "127.0.0.1"
    port: int = 0
    status: int = 200  # answer every request with this status (an API error when not 200)
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def env(self) -> dict[str, str]:
        """Environment for a client (or a ``turnscope`` process) that talks to this server."""
        return {"ANTHROPIC_BASE_URL": self.base_url, "ANTHROPIC_API_KEY": "sk-ant-test-dummy"}


def _handler(api: FakeMessagesAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = None
            api.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                 "body": body})
            if self.path.split("?")[0] != "/v1/messages/count_tokens":
                self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                return
            if api.status != 200:
                self._send(api.status, {"type": "error", "error": {"type": "invalid_request_error",
                                                                   "message": "fake refusal"}})
                return
            if not isinstance(body, dict) or "model" not in body or not isinstance(body.get("messages"), list):
                self._send(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                            "message": "model and messages are required"}})
                return
            self._send(200, {"input_tokens": fake_count(body)})

    return Handler


@contextmanager
def serve(status: int = 200) -> Iterator[FakeMessagesAPI]:
    """Run the fake in a thread for the duration of a ``with`` block."""
    api = FakeMessagesAPI(status=status)
    server = ThreadingHTTPServer((api.host, 0), _handler(api))
    api.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
