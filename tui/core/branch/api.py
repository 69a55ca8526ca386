"""One streamed model call through the official anthropic SDK, and its failures in plain words.

The key is read from ``ANTHROPIC_API_KEY`` and handed to the SDK only; it is never put
in a file, an event or an error text (``redact`` strips it from anything the SDK says).
``ANTHROPIC_BASE_URL`` is honoured, so any Anthropic-compatible endpoint works. The SDK
keeps its own retries (429, 529, 5xx, connection errors); what still fails comes back as
an ``ApiFailure`` carrying the API's own message.

The request body is sent as built (model, max_tokens and messages as the SDK's required
arguments, every other field as given through ``extra_body``), so what the endpoint
receives is the branch's request plus ``"stream": true``. The assistant turn stored is
the provider's content array as the SDK accumulated it from the stream, with only the
fields the stream carried (in the API's field order, type first).

The SDK's timeout and retries are its own defaults (600 s, 2 retries) unless
``TURNSCOPE_API_TIMEOUT`` (seconds) or ``TURNSCOPE_API_RETRIES`` say otherwise; a timeout
is reported with both, so a hung endpoint reads as what it is.

The SDK is imported only when a call is made, so the headless verbs start without it.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from typing import Any, Callable

from tui.core.branch.events import ApiFailure, BlockStarted, Delta
from tui.core.errors import UsageError
from tui.core.run import ModelCall, RecordedRequest

KEY_VARIABLE = "ANTHROPIC_API_KEY"
TIMEOUT_VARIABLE = "TURNSCOPE_API_TIMEOUT"
RETRIES_VARIABLE = "TURNSCOPE_API_RETRIES"
DEFAULT_TIMEOUT = 600.0  # the anthropic SDK's own default
DEFAULT_RETRIES = 2
KEY_HELP = ("ANTHROPIC_API_KEY is not set: branch mode calls the model with your own API key. "
            "Set it in the environment (export ANTHROPIC_API_KEY=...); ANTHROPIC_BASE_URL points "
            "turnscope at another Anthropic-compatible endpoint")
SDK_ARGUMENTS = ("model", "max_tokens", "messages")
WIRE_ORDER = ("type", "id", "name", "input", "text", "thinking", "signature", "data", "citations")


class NoApiKey(UsageError):
    """No key in the environment: nothing was sent."""


class IncompleteStream(Exception):
    """The stream ended before ``message_stop``: the turn is not complete and is not kept."""


class StreamStopped(Exception):
    """The stream began (the response's headers arrived), then nothing arrived for the timeout: the SDK does
    not send a stream again. Raised from the SDK's own timeout, which 0.x let out as the HTTP client's
    ``ReadTimeout`` and 2.x wraps in ``APITimeoutError``, the error of a call that never got an answer."""


def api_key() -> str:
    key = os.environ.get(KEY_VARIABLE, "").strip()
    if not key:
        raise NoApiKey(KEY_HELP)
    return key


def redact(text: str) -> str:
    """``text`` without the API key (in case an endpoint or library ever echoes it)."""
    key = os.environ.get(KEY_VARIABLE, "").strip()
    return text.replace(key, "[ANTHROPIC_API_KEY]") if len(key) >= 4 else text


def base_url() -> str:
    """Where model calls go: ``ANTHROPIC_BASE_URL``, else the SDK's default endpoint."""
    return (os.environ.get("ANTHROPIC_BASE_URL") or "").strip() or "https://api.anthropic.com"


def unreachable(timeout: float = 1.5) -> str | None:
    """Why ``ANTHROPIC_BASE_URL`` cannot be reached (a TCP connect to its host and port), or None.

    Only a base URL the user set is probed (the default endpoint is left to the SDK); nothing is sent."""
    url = (os.environ.get("ANTHROPIC_BASE_URL") or "").strip()
    if not url:
        return None
    import socket
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        return f"ANTHROPIC_BASE_URL={url} is not a URL: {exc}"
    if not host or parts.scheme not in ("http", "https"):
        return f"ANTHROPIC_BASE_URL={url} is not an http(s) URL"
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        return f"cannot reach {url} (ANTHROPIC_BASE_URL): {exc.strerror or exc}"
    return None


def check_environment() -> None:
    """The key is there and the timeout and retries are numbers: said before anything is sent or saved."""
    api_key()
    api_timeout()
    api_retries()


def api_timeout() -> float:
    """Seconds the SDK waits (to connect, and for each read of the stream): ``TURNSCOPE_API_TIMEOUT``."""
    return _number(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT, float)


def api_retries() -> int:
    """How many times the SDK retries a failed call (429, 5xx, connection errors, timeouts)."""
    return int(_number(RETRIES_VARIABLE, DEFAULT_RETRIES, int))


def _number(name: str, default: float, kind: type) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = kind(text)
    except ValueError:
        raise UsageError(f"{name}={text!r} is not a number") from None
    if value < 0 or value != value:
        raise UsageError(f"{name}={text!r} must not be negative")
    return value


def make_client() -> Any:
    """An ``AsyncAnthropic`` client for the key, base URL, timeout and retries in the environment."""
    key = api_key()
    timeout, retries = api_timeout(), api_retries()
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(api_key=key, base_url=os.environ.get("ANTHROPIC_BASE_URL") or None, timeout=timeout,
                          max_retries=retries)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


async def stream_turn(client: Any, body: dict[str, Any], index: int, emit: Callable[[Any], None],
                      options: dict[str, Any] | None = None) -> tuple[dict[str, Any], ModelCall]:
    """Send ``body`` streaming; ``emit`` each block start and delta; return the turn and its call.
    ``options``: the SDK's ``extra_headers``/``extra_query`` the recorded run sent (``request_headers.sdk_options``).
    A stream that began and then went quiet raises ``StreamStopped``."""
    required = {k: body[k] for k in SDK_ARGUMENTS}
    extra = {k: v for k, v in body.items() if k not in SDK_ARGUMENTS and k != "stream"}  # always streamed
    started, t0 = now_iso(), time.monotonic()
    began = False
    try:
        async with client.messages.stream(**required, extra_body=extra or None, **(options or {})) as stream:
            began = True  # the response's headers are in: from here on, a timeout is the stream going quiet
            message = await _read_stream(stream, index, emit)
            request_id = stream.request_id
            status = stream.response.status_code
    except Exception as exc:
        if began and _timed_out(exc):
            raise StreamStopped(str(exc)) from exc
        raise
    turn = {"role": "assistant", "content": [_wire_order(block.to_dict(mode="json")) for block in message.content]}
    usage = message.usage.to_dict(mode="json") if message.usage is not None else None
    call = ModelCall(message=index, usage=usage, stop_reason=message.stop_reason, model=message.model,
                     request_id=request_id, started=started,
                     duration_ms=round((time.monotonic() - t0) * 1000, 1),
                     request=RecordedRequest(messages=index), status=status)
    return turn, call


async def _read_stream(stream: Any, index: int, emit: Callable[[Any], None]) -> Any:
    """The stream's events emitted as they come; the final message once ``message_stop`` came."""
    complete = False
    async for event in stream:
        kind = event.type
        if kind == "message_stop":
            complete = True
        elif kind == "content_block_start":
            block = event.content_block
            emit(BlockStarted(index, event.index, block.type, getattr(block, "name", None)))
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                emit(Delta(index, event.index, "text", delta.text))
            elif delta.type == "thinking_delta":
                emit(Delta(index, event.index, "thinking", delta.thinking))
            elif delta.type == "input_json_delta":
                emit(Delta(index, event.index, "input_json", delta.partial_json))
    if not complete:
        raise IncompleteStream("the stream ended before the message was complete")
    return await stream.get_final_message()


def _timed_out(exc: BaseException) -> bool:
    """The SDK's timeout (2.x: ``APITimeoutError``) or the HTTP client's read timeout it let out (0.x)."""
    import anthropic

    return isinstance(exc, anthropic.APITimeoutError) or type(exc).__name__ == "ReadTimeout"


def _wire_order(block: dict[str, Any]) -> dict[str, Any]:
    """The block's fields in the API's order (type first); the SDK's models list them alphabetically."""
    head = [k for k in WIRE_ORDER if k in block]
    return {k: block[k] for k in [*head, *(k for k in block if k not in head)]}


def failure(exc: BaseException) -> ApiFailure:
    """What went wrong with a model call, in the API's own words where it gave any."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message, error_type = error["message"], error.get("type")
        else:
            message, error_type = (body if isinstance(body, str) else str(exc.message)), None
        status = exc.status_code if exc.status_code != 200 else None  # 200: an error event mid-stream
        return ApiFailure("status", redact(message), status=status, error_type=error_type,
                          request_id=exc.request_id)
    if isinstance(exc, StreamStopped):  # the stream began, then went quiet (``stream_turn``)
        return ApiFailure("connection", f"the stream stopped: nothing arrived for {api_timeout():g} s "
                                        f"({TIMEOUT_VARIABLE})")
    if isinstance(exc, anthropic.APITimeoutError):  # no answer at all: the SDK has retried
        retries = api_retries()
        return ApiFailure("connection", f"{base_url()}: no answer within {api_timeout():g} s ({TIMEOUT_VARIABLE}), "
                                        f"after the SDK's {retries} retr{'y' if retries == 1 else 'ies'}")
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        return ApiFailure("connection", redact(f"{base_url()}: {exc.message}{detail} (after the SDK's retries)"))
    if isinstance(exc, IncompleteStream):
        return ApiFailure("connection", str(exc))
    if isinstance(exc, anthropic.AnthropicError):
        return ApiFailure("other", redact(f"{type(exc).__name__}: {exc}"))
    name = type(exc).__name__
    if type(exc).__module__.startswith(("httpx", "httpcore", "ssl", "socket")) or isinstance(exc, OSError):
        return ApiFailure("connection", redact(f"the connection to {base_url()} broke: {name}: {exc}"))
    detail = f"{name}: {exc}" if str(exc) else name
    return ApiFailure("other", redact(f"the answer is not a Messages API stream ({detail})"))
