"""Write ``sample_runs/``: the refund run from the seeds, its siblings and its broken variants.

One source of truth for every sample file; ``tests/test_sample_runs.py`` checks that the
committed files are exactly what this script writes. Run: ``python scripts/make_sample_runs.py``.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.sample_content import (  # noqa: E402
    INVENTED_ORDER, MODEL, OTHER_ACCOUNT, REFUND, SYSTEM, THINKING_RUN, TOOLS, WHERE_IS_MY_ORDER)
from tui.core import jsonio  # noqa: E402

OUT = ROOT / "sample_runs"
PARAMS = {"model": MODEL, "max_tokens": 1024}


def _json(value) -> bytes:
    return jsonio.dumps(value, indent=True) + b"\n"


def _jsonl(header: dict | None, messages: list) -> bytes:
    lines = ([jsonio.dumps(header)] if header else []) + [jsonio.dumps(m) for m in messages]
    return b"\n".join(lines) + b"\n"


def _header() -> dict:
    return {"system": SYSTEM, "tools": TOOLS, "params": PARAMS}


def files() -> dict[str, bytes]:
    """Relative path -> bytes, for every sample file."""
    out: dict[str, bytes] = {}
    # The refund run, four ways: separate files, one request body, one JSONL with a header.
    out["refund/messages.json"] = _json(REFUND)
    out["refund/system.txt"] = SYSTEM.encode() + b"\n"
    out["refund/tools.json"] = _json(TOOLS)
    out["refund/request.json"] = _json({**PARAMS, "system": SYSTEM, "tools": TOOLS, "messages": REFUND[:7]})
    out["refund/run.jsonl"] = _jsonl(_header(), REFUND)
    out["other_account.jsonl"] = _jsonl(_header(), OTHER_ACCOUNT)
    out["where_is_my_order.jsonl"] = _jsonl(_header(), WHERE_IS_MY_ORDER)
    # The refund run with an order id the model made up at message 5 (provenance flags it; diff
    # against refund/run.jsonl diverges at 5).
    out["invented_order_id.jsonl"] = _jsonl(_header(), INVENTED_ORDER)
    thinking = {**PARAMS, "max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 2048}}
    out["redacted_thinking.jsonl"] = _jsonl({"system": SYSTEM, "tools": TOOLS, "params": thinking}, THINKING_RUN)
    out.update(broken())
    return out


def broken() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    # A retry wrapper appended results before their assistant turn, then raised: message 3 is
    # the results for toolu_01Ef and the assistant turn that asked for it was lost.
    orphan = copy.deepcopy(REFUND[:3]) + [copy.deepcopy(REFUND[4])]
    out["broken/orphan_result_retry.jsonl"] = _jsonl(_header(), orphan)
    # An exception handler logged and skipped search_orders: message 2 answers only toolu_01Cd.
    skipped = copy.deepcopy(REFUND[:3])
    skipped[2]["content"] = [skipped[2]["content"][1]]
    out["broken/skipped_result.jsonl"] = _jsonl(_header(), skipped)
    # Only calls[0] dispatched: message 2 answers toolu_01Ab and drops toolu_01Cd.
    first_only = copy.deepcopy(REFUND[:3])
    first_only[2]["content"] = [first_only[2]["content"][0]]
    out["broken/only_first_call.jsonl"] = _jsonl(_header(), first_only)
    # A context window sliced off the front, cutting between message 1 and its results.
    out["broken/truncated_window.jsonl"] = _jsonl(_header(), copy.deepcopy(REFUND[2:]))
    out["broken/rewritten_turn.turnscope.json"] = _json(_rewritten_native())
    return out


def _rewritten_native() -> dict:
    """The loop stored only the tool calls of message 3 (its text dropped), while the
    recorded response of call 2 holds both blocks; call 3's recorded request carried the
    rewritten turn, so the request the model saw differs from what it had returned."""
    messages = copy.deepcopy(REFUND)
    returned = copy.deepcopy(messages[3]["content"])
    messages[3]["content"] = [b for b in messages[3]["content"] if b["type"] == "tool_use"]
    calls = []
    for k, index in enumerate((1, 3, 5, 7)):
        call = {"message": index, "stop_reason": "end_turn" if index == 7 else "tool_use", "model": MODEL,
                "request_id": f"req_011sample{k + 1}", "request": {"messages": index}}
        if index == 3:
            call["response"] = returned
        calls.append(call)
    return {"turnscope": 1, "source": {"path": "sample_runs/broken/rewritten_turn.turnscope.json",
                                       "format": "native", "prefix": "exact"},
            "params": PARAMS, "system": SYSTEM, "tools": TOOLS, "calls": calls, "messages": messages}


def main() -> int:
    for rel, data in files().items():
        path = OUT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        jsonio.atomic_write(path, data)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"wrote {shown} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
