"""The HTTP headers that shape what a request means, kept beside a run (``Run.meta``).

Two headers change what the Messages API accepts and does: ``anthropic-version`` and
``anthropic-beta`` (a comma-separated list: ``mid-conversation-system-...`` makes a
``role: "system"`` message valid, ``interleaved-thinking-...`` allows thinking between tool
calls, ...); the URL's query (Claude Code posts to ``/v1/messages?beta=true``) goes with them.
A loader of recorded exchanges keeps them as ``meta[HEADERS_KEY] = {"anthropic-version": ...,
"anthropic-beta": ..., "query": ...}`` (never any other header: credentials stay out).
A loader that knows what its client sends but did not record it (a Claude Code transcript)
names those betas in ``meta[CLIENT_BETAS_KEY]``; they count for the grammar check, and are
never shown as recorded.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from tui.core.run import Run

HEADERS_KEY = "request_headers"
CLIENT_BETAS_KEY = "client_betas"
SHAPING = ("anthropic-version", "anthropic-beta")
MID_CONVERSATION_SYSTEM = "mid-conversation-system-"

_CREDENTIAL_WORDS = ("key", "token", "secret", "password", "auth", "signature", "sig", "credential")


def shaping_headers(headers: Mapping[str, Any] | Iterable[tuple[str, Any]] | None,
                    url: str | None = None) -> dict[str, str]:
    """The headers that shape a request (lower-case names), and the URL's query without credentials."""
    items = headers.items() if isinstance(headers, Mapping) else (headers or ())
    out: dict[str, str] = {}
    for name, value in items:
        key = str(name).lower()
        if key in SHAPING:
            if isinstance(value, list):
                value = ",".join(str(v) for v in value)
            if isinstance(value, str) and value:
                out[key] = ",".join(filter(None, (out.get(key, ""), value))) if key == "anthropic-beta" else value
    query = _query(url)
    if query:
        out["query"] = query
    return out


def _query(url: str | None) -> str:
    if not isinstance(url, str) or "?" not in url:
        return ""
    kept = []
    for pair in url.split("?", 1)[1].split("#", 1)[0].split("&"):
        name = pair.split("=", 1)[0].lower()
        if pair and not any(word in name for word in _CREDENTIAL_WORDS):
            kept.append(pair)
    return "&".join(kept)


def recorded_headers(run: Run) -> dict[str, str]:
    headers = run.meta.get(HEADERS_KEY) if isinstance(run.meta, dict) else None
    return {k: v for k, v in headers.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(headers, dict) else {}


def betas(run: Run) -> list[str]:
    """The betas a run's requests carry: recorded ones, then the ones its client is known to send."""
    out = [b.strip() for b in recorded_headers(run).get("anthropic-beta", "").split(",") if b.strip()]
    client = run.meta.get(CLIENT_BETAS_KEY) if isinstance(run.meta, dict) else None
    if isinstance(client, list):
        out += [b for b in client if isinstance(b, str) and b not in out]
    return out


def allows_system_messages(run: Run) -> bool:
    return any(b.startswith(MID_CONVERSATION_SYSTEM) for b in betas(run))


def header_lines(run: Run) -> list[str]:
    """``name: value`` lines of the recorded headers, then the client's known betas (said to be not recorded)."""
    recorded = recorded_headers(run)
    lines = [f"{name}: {recorded[name]}" for name in (*SHAPING, "query") if name in recorded]
    client = run.meta.get(CLIENT_BETAS_KEY) if isinstance(run.meta, dict) else None
    if isinstance(client, list) and client:
        lines.append("betas its client sends (not recorded): " + ",".join(str(b) for b in client))
    return lines


def sdk_options(run: Run) -> dict[str, Any]:
    """``extra_headers`` / ``extra_query`` for the SDK, so a branch sends what the recorded run sent:
    its anthropic-version, its betas (and its client's known ones) and its URL query."""
    recorded = recorded_headers(run)
    headers: dict[str, str] = {}
    if "anthropic-version" in recorded:
        headers["anthropic-version"] = recorded["anthropic-version"]
    sent = betas(run)
    if sent:
        headers["anthropic-beta"] = ",".join(sent)
    query = {}
    for pair in recorded.get("query", "").split("&"):
        if pair:
            name, _, value = pair.partition("=")
            query[name] = value
    options: dict[str, Any] = {}
    if headers:
        options["extra_headers"] = headers
    if query:
        options["extra_query"] = query
    return options


def carried(parent: Run) -> dict[str, Any]:
    """The ``meta`` entries a branch of ``parent`` keeps, so it sends the same headers."""
    return {key: parent.meta[key] for key in (HEADERS_KEY, CLIENT_BETAS_KEY)
            if isinstance(parent.meta, dict) and key in parent.meta}


def headers_brief(run: Run) -> str:
    """One short line for a view's header: "sent with anthropic-version V · N betas · ?QUERY"."""
    recorded = recorded_headers(run)
    said = betas(run)
    parts = [f"anthropic-version {recorded['anthropic-version']}"] if "anthropic-version" in recorded else []
    if said:
        parts.append(f"{len(said)} beta{'s' if len(said) != 1 else ''}" + ("" if recorded.get("anthropic-beta")
                                                                           else " (its client's, not recorded)"))
    if recorded.get("query"):
        parts.append(f"?{recorded['query']}")
    return ("sent with " + " · ".join(parts)) if parts else ""  # one line at 80 columns; the Request view lists them
