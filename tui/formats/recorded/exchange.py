"""One recorded HTTP exchange with the Messages API, whatever recorder wrote it.

Recorders differ in how they keep bodies: already parsed, a JSON string, bytes (maybe
gzip- or deflate-compressed), or raw server-sent events for a streamed answer. ``Exchange``
holds the request body parsed and the answer put back together as one message, and
nothing else: headers are read for the status, the request id and the encoding and then
dropped, so credentials (``authorization``, ``x-api-key``, cookies) never reach a ``Run``; the
request headers that shape what it means (``anthropic-version``, ``anthropic-beta``) and the URL's
query are kept (``tui.core.request_headers.shaping_headers``).
Credential fields inside a request body (an MCP server's ``authorization_token``) are
removed too, and said so.
"""

from __future__ import annotations

import gzip
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tui.core import jsonio
from tui.formats.recorded import sse

#: Keys that hold credentials; removed wherever they appear outside the messages.
CREDENTIAL_KEYS = frozenset({
    "authorization", "authorization_token", "api_key", "apikey", "x-api-key", "x_api_key", "access_token",
    "refresh_token", "client_secret", "cookie", "set-cookie", "proxy-authorization",
})
#: Body fields that are the run's content, never searched for credentials.
_CONTENT_FIELDS = ("messages", "system", "tools")


@dataclass
class Exchange:
    """A request and its answer; ``where`` names it for warnings (``line 4``, ``interaction 2``)."""

    where: str
    line: int | None
    method: str
    path: str  # URL path, no host or query
    body: Any  # the request body parsed (a dict for a Messages API call)
    status: int | None = None
    message: dict[str, Any] | None = None  # the answer as one message (JSON body or reassembled stream)
    error: str | None = None  # why the call produced no message
    request_id: str | None = None
    started: str | None = None
    duration_ms: float | None = None
    notes: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # credential fields removed from the body
    headers: dict[str, str] = field(default_factory=dict)  # anthropic-version, anthropic-beta, query
    raw: str | None = None  # the request body's text as recorded (None: the recorder kept it parsed)
    answer: str | None = None  # the answer's body text as recorded (JSON or SSE; None: kept parsed)
    first_byte_ms: float | None = None  # sending to the answer's first byte, where the recorder measured it

    def keep_raw(self, text: Any) -> None:
        """Keep the body text the recorder wrote, unless credentials had to be taken out of it (then the
        body shown is re-serialised without them, and the exact text is not kept anywhere)."""
        self.raw = text if isinstance(text, str) and not self.dropped and isinstance(self.body, dict) else None

    @property
    def is_messages_call(self) -> bool:
        return self.path.rstrip("/").endswith("/v1/messages") and isinstance(self.body, dict) \
            and isinstance(self.body.get("messages"), list)

    @property
    def is_count_tokens(self) -> bool:
        return self.path.rstrip("/").endswith("/count_tokens")

    @property
    def accepted(self) -> bool:
        return self.status == 200 and self.message is not None and self.error is None


def url_path(url: Any) -> str:
    if not isinstance(url, str):
        return ""
    try:
        return urlsplit(url).path or url.split("?", 1)[0]
    except ValueError:  # a damaged URL (an unclosed "[" reads as a broken IPv6 host)
        return url.split("?", 1)[0]


def header(headers: Any, name: str) -> str | None:
    """A header's value, any case; vcrpy keeps values as lists."""
    if not isinstance(headers, dict):
        return None
    name = name.lower()
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
            if isinstance(value, list):
                value = value[0] if value else None
            return value if isinstance(value, str) else None
    return None


def decode_bytes(raw: Any, encoding: str | None) -> tuple[str | None, str | None]:
    """Body bytes (or text) as text: gunzip/inflate as the header says or the magic bytes show."""
    if raw is None or isinstance(raw, str):
        return raw, None
    if not isinstance(raw, (bytes, bytearray)):
        return None, f"body is {type(raw).__name__}, not text"
    data = bytes(raw)
    encoding = (encoding or "").lower()
    try:
        if data[:2] == b"\x1f\x8b" or "gzip" in encoding:
            data = gzip.decompress(data)
        elif "deflate" in encoding:
            data = zlib.decompress(data)
        elif "br" in encoding or "zstd" in encoding:
            return None, f"body is {encoding}-compressed, which turnscope cannot read"
    except (OSError, EOFError, zlib.error) as exc:
        return None, f"body does not decompress ({exc})"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"body is not UTF-8 (byte {exc.start})"


def parse_request(raw: Any, where: str) -> tuple[Any, str | None]:
    """A request body: parsed already, or JSON text."""
    if raw is None or isinstance(raw, (dict, list)):
        return raw, None
    if isinstance(raw, str):
        try:
            return jsonio.fast_loads(raw), None
        except jsonio.FastDecodeError:
            return raw, f"{where}: the request body is not JSON"
    return None, f"{where}: the request body is {type(raw).__name__}"


def read_answer(exchange: Exchange, parsed: Any, text: str | None, content_type: str | None) -> None:
    """Set ``message`` or ``error`` from a JSON body (``parsed``) or body text (JSON or SSE); the text is
    kept as the answer's body as sent (``answer``)."""
    exchange.answer = text if parsed is None and isinstance(text, str) and text else None
    if parsed is None and text is not None:
        stripped = text.lstrip()
        if "event-stream" in (content_type or "") or stripped.startswith(("event:", "data:")):
            _read_stream(exchange, text)
            return
        try:
            parsed = jsonio.fast_loads(text) if stripped else None
        except jsonio.FastDecodeError:
            exchange.error = f"the answer is neither JSON nor an event stream ({stripped[:40]!r})"
            return
    if isinstance(parsed, dict) and parsed.get("type") == "error":
        error = parsed.get("error") if isinstance(parsed.get("error"), dict) else {}
        exchange.error = f"{error.get('type', 'error')}: {error.get('message', '')}".strip()
        exchange.request_id = exchange.request_id or parsed.get("request_id")
    elif isinstance(parsed, dict) and isinstance(parsed.get("content"), list):
        exchange.message = parsed
    elif exchange.status == 200 and exchange.is_messages_call:
        exchange.error = "the answer holds no message"
    if exchange.status not in (None, 200) and exchange.error is None:
        exchange.error = f"HTTP {exchange.status}"
        exchange.message = None


def _read_stream(exchange: Exchange, text: str) -> None:
    stream = sse.reassemble(text)
    exchange.notes += [f"{exchange.where}: streamed answer: {p}" for p in stream.problems]
    if stream.error is not None:
        exchange.error = f"{stream.error.get('type', 'error')}: {stream.error.get('message', '')}".strip()
    elif stream.message is None:
        exchange.error = "the event stream holds no message"
    else:
        exchange.message = stream.message


def drop_credentials(body: Any) -> list[str]:
    """Remove credential fields from a request body's params (``mcp_servers``, ``metadata``, ...);
    messages, system and tools are content and are left alone. Returns the paths it dropped."""
    dropped: list[str] = []
    if isinstance(body, dict):
        for key in list(body):
            if key not in _CONTENT_FIELDS:
                _drop(body, key, key, dropped)
    return dropped


def _drop(parent: Any, key: Any, path: str, dropped: list[str]) -> None:
    value = parent[key]
    if isinstance(key, str) and key.lower() in CREDENTIAL_KEYS:
        del parent[key]
        dropped.append(path)
    elif isinstance(value, dict):
        for inner in list(value):
            _drop(value, inner, f"{path}.{inner}", dropped)
    elif isinstance(value, list):
        for k in range(len(value)):
            _drop(value, k, f"{path}[{k}]", dropped)
