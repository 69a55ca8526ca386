"""The native run file: a ``Run`` as versioned JSON (``"turnscope": 1``), loaded back without loss.

One run is an object; a file of several runs is ``{"turnscope": 1, "runs": [...]}``.
Recorded requests are stored as their differences from the run (see ``RecordedRequest``),
so the file grows with the run, not with its square. Optional fields are omitted when
empty; ``system`` and ``tools`` are omitted when the run has none.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from tui.core import jsonio
from tui.core.grammar.recorded import returned_differs
from tui.core.run import LoadWarning, ModelCall, RecordedRequest, Run, Source

VERSION = 1


class NativeError(ValueError):
    """The native document is not one this version can read."""


def _request_to_dict(request: RecordedRequest) -> dict[str, Any]:
    out: dict[str, Any] = {"messages": request.messages}
    if request.replaced:
        out["replaced"] = {str(k): v for k, v in sorted(request.replaced.items())}
    for name in ("system", "tools", "params", "order", "has_system", "has_tools", "raw", "converted"):
        value = getattr(request, name)
        if value is not None:
            out[name] = value
    return out


def _call_to_dict(call: ModelCall, stored: Any) -> dict[str, Any]:
    out = {k: v for k, v in asdict(call).items()
           if v is not None and v is not False and k not in ("request", "response")}
    if call.request is not None:
        out["request"] = _request_to_dict(call.request)
    if returned_differs(call, stored):  # a stale difference (a moved cache_control breakpoint) is not written
        out["response"] = call.response
    return out


def run_to_dict(run: Run) -> dict[str, Any]:
    source = run.source
    out: dict[str, Any] = {
        "turnscope": VERSION,
        "source": {"path": source.path, "format": source.format, "prefix": source.prefix,
                   **({"title": source.title} if source.title else {})},
    }
    if run.lineage is not None:
        out["lineage"] = run.lineage
    out["params"] = run.params
    if run.system is not None:
        out["system"] = run.system
    if run.tools is not None:
        out["tools"] = run.tools
    if run.order is not None:
        out["order"] = run.order
    if run.prefill:
        out["prefill"] = True
    if run.meta:
        out["meta"] = run.meta
    out["calls"] = [_call_to_dict(c, run.messages[c.message] if c.message < len(run.messages) else None)
                    for c in run.calls]
    if run.warnings:
        out["warnings"] = [{k: v for k, v in asdict(w).items() if v is not None} for w in run.warnings]
    out["messages"] = run.messages
    return out


def dumps(runs: list[Run]) -> bytes:
    if len(runs) == 1:
        return jsonio.dumps(run_to_dict(runs[0]))
    return jsonio.dumps({"turnscope": VERSION, "runs": [run_to_dict(r) for r in runs]})


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise NativeError(what)


#: The type each optional field must have when present (a file edited by hand or damaged says
#: which field is wrong, rather than crashing whatever reads it later).
_CALL_TYPES = {"usage": dict, "stop_reason": str, "model": str, "request_id": str, "started": str,
               "duration_ms": (int, float), "status": int, "response": list, "response_body": str,
               "first_byte_ms": (int, float), "derived_timing": bool}
_REQUEST_TYPES = {"params": dict, "order": list, "has_system": bool, "has_tools": bool, "raw": str,
                  "converted": bool}
_RUN_TYPES = {"order": list, "lineage": dict, "meta": dict, "warnings": list}
_NAMES = {dict: "an object", list: "a list", str: "a string", int: "an integer", bool: "true or false",
          (int, float): "a number"}


def _typed(d: dict[str, Any], types: dict[str, Any], where: str) -> None:
    for name, kind in types.items():
        value = d.get(name)
        if value is not None:
            _need(isinstance(value, kind) and not (kind is int and isinstance(value, bool)),
                  f"{where}{name} must be {_NAMES[kind]}")


def _request_from_dict(d: Any, where: str) -> RecordedRequest:
    _need(isinstance(d, dict) and isinstance(d.get("messages"), int), f"{where}.request needs 'messages' (a count)")
    replaced = d.get("replaced") or {}
    _need(isinstance(replaced, dict), f"{where}.request.replaced must be an object")
    _typed(d, _REQUEST_TYPES, f"{where}.request.")
    try:
        replaced = {int(k): v for k, v in replaced.items()}
    except ValueError:
        raise NativeError(f"{where}.request.replaced keys must be message indices") from None
    return RecordedRequest(messages=d["messages"], replaced=replaced, system=d.get("system"),
                           tools=d.get("tools"), params=d.get("params"), order=d.get("order"),
                           has_system=d.get("has_system"), has_tools=d.get("has_tools"), raw=d.get("raw"),
                           converted=d.get("converted"))


def _call_from_dict(d: Any, k: int) -> ModelCall:
    where = f"calls.{k}"
    _need(isinstance(d, dict) and isinstance(d.get("message"), int), f"{where} needs 'message' (an index)")
    _typed(d, _CALL_TYPES, f"{where}.")
    fields = {name: d.get(name) for name in ("usage", "stop_reason", "model", "request_id", "started",
                                              "duration_ms", "status", "response_body", "first_byte_ms")}
    fields["derived_timing"] = d.get("derived_timing") is True
    request = _request_from_dict(d["request"], where) if d.get("request") is not None else None
    return ModelCall(message=d["message"], request=request, response=d.get("response"), **fields)


def run_from_dict(d: Any, path: str, run_index: int = 0, run_count: int = 1) -> Run:
    _need(isinstance(d, dict), "a run must be an object")
    _need(d.get("turnscope") == VERSION, f"unsupported native version {d.get('turnscope')!r} (this reads {VERSION})")
    messages = d.get("messages")
    _need(isinstance(messages, list), "'messages' must be a list")
    calls_raw = d.get("calls") or []
    _need(isinstance(calls_raw, list), "'calls' must be a list")
    params = d.get("params") or {}
    _need(isinstance(params, dict), "'params' must be an object")
    _typed(d, _RUN_TYPES, "")
    src = d.get("source") if isinstance(d.get("source"), dict) else {}
    warnings = [LoadWarning(str(w.get("text")), w.get("line"), w.get("index"))
                for w in (d.get("warnings") or []) if isinstance(w, dict)]
    calls = [_call_from_dict(c, k) for k, c in enumerate(calls_raw)]
    for k, call in enumerate(calls):
        # len(messages): a refused last call, whose request was sent but produced no message
        _need(0 <= call.message <= len(messages), f"calls.{k}.message {call.message} is not a message index")
    meta = dict(d.get("meta") or {})
    if src.get("path") and src.get("path") != path:
        meta.setdefault("converted_from", {"path": src.get("path"), "format": src.get("format")})
    return Run(
        messages=messages, system=d.get("system"), tools=d.get("tools"), params=params, calls=calls,
        source=Source(path=path, format="native", prefix=src.get("prefix", "reconstructed"),
                      run_index=run_index, run_count=run_count, title=src.get("title")),
        warnings=warnings, prefill=bool(d.get("prefill")), order=d.get("order"),
        lineage=d.get("lineage"), meta=meta,
    )


def runs_from_document(doc: Any, path: str) -> list[Run]:
    if isinstance(doc, dict) and isinstance(doc.get("runs"), list):
        _need(doc.get("turnscope") == VERSION, f"unsupported native version {doc.get('turnscope')!r}")
        items = doc["runs"]
        _need(bool(items), "'runs' is empty")
        return [run_from_dict(r, path, k, len(items)) for k, r in enumerate(items)]
    return [run_from_dict(doc, path)]
