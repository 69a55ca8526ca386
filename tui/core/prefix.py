"""The request that produced message N: params, system, tools and messages 0..N-1.

For an odd index produced by model call k this is call k's request; for an even index it
is the request that would have been sent with the same prefix (what the loop held when
it appended message N). Where the source recorded the request (``exact`` prefixes), the
call's ``RecordedRequest`` deltas are applied, so the body is the one that was POSTed;
otherwise it is rebuilt from the run (``reconstructed``). Message objects are shared
with the run, never copied or rewritten, so building a request at any N is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core import jsonio
from tui.core.errors import UsageError
from tui.core.run import ModelCall, Run
from tui.core.words import counted

DEFAULT_HEAD = ("model", "max_tokens")


@dataclass
class RequestAt:
    """A request body and what is known about it."""

    index: int
    body: dict[str, Any]
    exact: bool  # taken from a recorded request, byte for byte
    call: int | None  # 0-based model call that produced message ``index``
    model_from_call: bool = False  # the model came from the call record, not the request
    converted: bool = False  # recorded in another API's shape and converted (neither exact nor rebuilt)
    #: The body's bytes as the source recorded them; None: re-serialised from the parsed body.
    raw: bytes | None = None

    def bytes(self) -> bytes:
        """The body as POSTed: the recorded bytes where the source kept them, else ``body`` serialised."""
        return self.raw if self.raw is not None else jsonio.dumps(self.body)

    @property
    def wording(self) -> str:
        """How the bytes were had: ``exact bytes as POSTed``, ``re-serialised`` or ``reconstructed``."""
        if self.raw is not None:
            return "exact bytes as POSTed"
        if self.converted:
            return "converted bytes (recorded in another API's shape)"
        return "re-serialised from the recorded JSON" if self.exact else "reconstructed bytes"


def check_index(run: Run, n: int) -> int:
    """Accept 0..len(messages) (len: the request that would be sent next); negatives count back."""
    total = len(run.messages)
    given = n  # the error names the index the user typed, not what counting back made of it
    if n < 0:
        n += total
    if not 0 <= n <= total:
        if total == 0:
            raise UsageError(f"index {given} is out of range: the run has no messages (0 is its only request)")
        back = f"; -1..-{total} count back" if given < 0 else ""
        raise UsageError(f"index {given} is out of range: the run has {counted(total, 'message')} (0..{total - 1}), "
                         f"and {total} is the next request{back}")
    return n


def request_at(run: Run, n: int) -> RequestAt:
    n = check_index(run, n)
    k = run.call_index(n)
    call = run.calls[k] if k is not None else None
    body, model_from_call = _body(run, n, call)
    recorded = call is not None and call.request is not None
    converted = recorded and bool(call.request.converted)
    raw = call.request.raw.encode("utf-8", "surrogatepass") if recorded and call.request.raw is not None \
        and not converted else None
    return RequestAt(n, body, exact=(recorded and not converted) or run.exact, call=k,
                     model_from_call=model_from_call, converted=converted and not run.exact, raw=raw)


def call_request(run: Run, k: int) -> dict[str, Any]:
    """The body model call ``k`` sent, also for a call that produced no message (a refused request)."""
    call = run.calls[k]
    count = call.request.messages if call.request is not None else call.message
    return _body(run, count, call)[0]


def request_head(run: Run, n: int) -> tuple[dict[str, Any], int]:
    """``request_at(run, n).body`` without its ``messages``, and how many messages it sends. For the
    analyses that look at every request of a long run: slicing each prefix made them quadratic."""
    n = check_index(run, n)
    k = run.call_index(n)
    fields, count, _ = _head(run, n, run.calls[k] if k is not None else None)
    return fields, len(range(len(run.messages))[:count])


def _body(run: Run, n: int, call: ModelCall | None) -> tuple[dict[str, Any], bool]:
    fields, count, model_from_call = _head(run, n, call)
    recorded = call.request if call is not None else None
    messages: list[Any] = run.messages[:count]
    if recorded is not None and recorded.replaced:
        messages = [recorded.replaced.get(i, m) for i, m in enumerate(messages)]
    fields["messages"] = messages
    return _ordered(fields, run.order if recorded is None or recorded.order is None else recorded.order), \
        model_from_call


def _head(run: Run, n: int, call: ModelCall | None) -> tuple[dict[str, Any], int, bool]:
    """The request's fields but ``messages`` (unordered), how many messages it sends, and whether the
    model came from the call record."""
    recorded = call.request if call is not None else None
    system, tools, params = run.system, run.tools, run.params
    has_system, has_tools = system is not None, tools is not None
    count = n
    if recorded is not None:
        count = recorded.messages
        if recorded.system is not None:
            system, has_system = recorded.system, True
        if recorded.tools is not None:
            tools, has_tools = recorded.tools, True
        if recorded.has_system is False:
            has_system = False
        if recorded.has_tools is False:
            has_tools = False
        if recorded.params is not None:
            params = recorded.params
    model_from_call = False
    if "model" not in params and call is not None and call.model:
        params = {"model": call.model, **params}
        model_from_call = True
    fields: dict[str, Any] = dict(params)
    if has_system:
        fields["system"] = system
    if has_tools:
        fields["tools"] = tools
    return fields, count, model_from_call


def _ordered(fields: dict[str, Any], order: list[str] | None) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if order:
        for key in order:
            if key in fields:
                body[key] = fields[key]
    else:
        for key in DEFAULT_HEAD:
            if key in fields:
                body[key] = fields[key]
    for key, value in fields.items():
        if key not in body and key not in ("system", "tools", "messages"):
            body[key] = value
    for key in ("system", "tools", "messages"):
        if key in fields and key not in body:
            body[key] = fields[key]
    return body


def request_json(run: Run, n: int, indent: bool = False) -> bytes:
    """Exactly the JSON body that was (or would be) POSTed for message ``n``: the recorded bytes where the
    source kept them (``indent`` pretty-prints the parsed body instead)."""
    req = request_at(run, n)
    return jsonio.dumps(req.body, indent=True) if indent else req.bytes()
