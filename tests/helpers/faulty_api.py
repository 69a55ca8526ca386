"""The streaming fake Messages API, with the faults a real endpoint or proxy can have.

``FaultyMessagesAPI`` is ``fake_messages_api_stream.FakeMessagesAPI`` plus two more kinds of reply:

- ``Raw(body, status, content_type)``: whatever bytes a broken server or proxy sends (non-JSON, an
  HTML error page, an event stream that is not the API's), then the connection closes;
- ``Silent()``: the request is read and nothing is ever answered, not even headers (a hung
  endpoint) until the test releases it.

Replies are scripted in order with ``add`` as before; ``Turn`` and ``Error`` work unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from fake_messages_api_stream import FakeMessagesAPI


@dataclass
class Raw:
    body: bytes
    status: int = 200
    content_type: str = "text/event-stream"


@dataclass
class Silent:
    pass


class FaultyMessagesAPI(FakeMessagesAPI):
    def _serve(self, handler: Any, body: Any) -> None:
        with self._lock:
            reply = self.replies[0] if self.replies and self.responder is None else None
            if isinstance(reply, (Raw, Silent)):
                self.replies.popleft()
                self._count += 1
                self.requests.append({"path": handler.path, "body": body,
                                      "headers": {k.lower(): v for k, v in handler.headers.items()}})
            else:
                reply = None
        if reply is None:
            super()._serve(handler, body)
        elif isinstance(reply, Silent):
            self.stalled.set()
            self.release.wait(timeout=60)
        else:
            handler.send_response(reply.status)
            handler.send_header("content-type", reply.content_type)
            handler.send_header("request-id", f"req_raw_{self._count:03d}")
            handler.send_header("x-should-retry", "false")
            handler.end_headers()
            handler.wfile.write(reply.body)
            handler.wfile.flush()
            handler.close_connection = True


@pytest.fixture
def faulty_api():
    api = FaultyMessagesAPI().start()
    try:
        yield api
    finally:
        api.stop()
