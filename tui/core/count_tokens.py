"""Exact input tokens through the Messages API ``count_tokens`` endpoint, cached on disk.

Nothing is sent unless a caller builds a ``TokenCounter`` (the CLI does only for
``--exact``). Each request body is reduced to the fields the endpoint accepts, hashed
(SHA-256 of its canonical JSON, keys sorted) and looked up under the platformdirs user
cache directory (``count_tokens/<hash>.json``) before anything goes over the network; a
fresh count is written there atomically. The anthropic SDK is imported only here, and only
when a count is actually needed, so the headless verbs start without it. It reads
``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL`` like every SDK client.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import orjson

from tui.core import jsonio

#: Request fields the count_tokens endpoint takes; the rest (max_tokens, temperature, stream...) are dropped.
COUNTED_FIELDS = ("model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers",
                  "context_management", "output_config", "output_format")
SDK_FIELDS = ("system", "tools", "tool_choice", "thinking")


class CountError(Exception):
    """count_tokens could not be reached or refused the request: one line for the user."""


def cache_dir() -> Path:
    from tui.core.paths import settings

    return settings().cache / "count_tokens"


def count_body(body: dict[str, Any], model: str | None = None) -> dict[str, Any]:
    out = {key: body[key] for key in COUNTED_FIELDS if key in body}
    if model:
        out["model"] = model
    return out


def request_key(body: dict[str, Any]) -> str:
    canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()


class TokenCounter:
    """``counter(body) -> input_tokens``; counts cached on disk, the network used only on a miss."""

    def __init__(self, model: str | None = None, directory: Path | None = None, client: Any = None):
        self.model = model
        self.directory = directory or cache_dir()
        self._client = client
        self.sent = 0  # requests that went over the network
        self.hits = 0  # counts answered from the cache
        self.cache_error: str | None = None  # why a count could not be cached (the count itself stands)

    def __call__(self, body: dict[str, Any]) -> int:
        counted = count_body(body, self.model)
        if not counted.get("model"):
            raise CountError("count_tokens needs a model and this run records none: pass --model NAME")
        key = request_key(counted)
        path = self.directory / f"{key}.json"
        cached = self._read(path)
        if cached is not None:
            self.hits += 1
            return cached
        tokens = self._count(counted)
        self.sent += 1
        try:
            jsonio.atomic_write(path, jsonio.dumps({"input_tokens": tokens, "model": counted["model"]}))
        except OSError as exc:  # a full disk, a read-only cache: the count is right, only not kept
            self.cache_error = f"cannot write the count_tokens cache {self.directory}: {exc.strerror or exc}"
        return tokens

    @staticmethod
    def _read(path: Path) -> int | None:
        try:
            value = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        tokens = value.get("input_tokens") if isinstance(value, dict) else None
        return tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None

    def _client_or_new(self) -> Any:
        if self._client is None:
            import anthropic

            if not os.environ.get("ANTHROPIC_API_KEY") and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
                raise CountError("exact counts call the count_tokens endpoint: set ANTHROPIC_API_KEY")
            from tui.core.branch.api import api_retries

            self._client = anthropic.Anthropic(timeout=_timeout(), max_retries=api_retries())
        return self._client

    def _count(self, counted: dict[str, Any]) -> int:
        import anthropic

        client = self._client_or_new()
        known = {key: counted[key] for key in SDK_FIELDS if key in counted}
        extra = {key: value for key, value in counted.items() if key not in (*SDK_FIELDS, "model", "messages")}
        try:
            result = client.messages.count_tokens(model=counted["model"], messages=counted["messages"], **known,
                                                  extra_body=extra or None)
        except anthropic.APIStatusError as exc:
            raise CountError(redact(f"count_tokens refused the request ({exc.status_code}): {_message(exc)}")) from None
        except anthropic.APIConnectionError as exc:
            raise CountError(redact(f"count_tokens could not be reached: {exc}")) from None
        return int(result.input_tokens)


def _timeout() -> float:
    """``TURNSCOPE_API_TIMEOUT`` when set, else a minute (a count is quick)."""
    from tui.core.branch.api import TIMEOUT_VARIABLE, api_timeout

    return api_timeout() if os.environ.get(TIMEOUT_VARIABLE, "").strip() else 60.0


def redact(text: str) -> str:
    from tui.core.branch.api import redact as without_key

    return without_key(text)


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
    return str(getattr(exc, "message", exc))
