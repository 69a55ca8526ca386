"""The grammar check: every rule the Messages API enforces on a request, as findings.

``check_run`` checks a run as the request it amounts to (all its messages, its system,
tools and params), plus the run-level findings: a run that ends on unanswered tool calls,
and, for recorded sources, stored turns and requests that differ from what was recorded.
``check_request`` checks one request body (a dict as POSTed). Each finding names its
rule slug, message index and block index, the API's own error text where it is known,
and a likely cause in the seeds' terms.
"""

from __future__ import annotations

from typing import Any

from tui.core.grammar.findings import Finding, Findings, sort_findings
from tui.core.grammar.rules import ERROR, RULES, WARNING, Rule
from tui.core.request_headers import MID_CONVERSATION_SYSTEM, allows_system_messages
from tui.core.run import Run

__all__ = ["ERROR", "WARNING", "RULES", "Rule", "Finding", "check_run", "check_request", "has_errors"]


def check_run(run: Run, strict: bool = False) -> list[Finding]:
    """All findings for a run, sorted by index."""
    from tui.core.grammar import messages, pairing, recorded, request

    last = len(run.messages) - 1
    final_role = run.messages[-1].get("role") if run.messages and isinstance(run.messages[-1], dict) else None
    out = Findings(strict=strict, unsent=last if final_role == "assistant" and not run.prefill else None)
    messages.check(out, run.messages, run.params, prefill=run.prefill, system_messages=allows_system_messages(run))
    pairing.check(out, run.messages, prefill=run.prefill)
    request.check(out, run.system, run.tools, run.params, run.messages)
    recorded.check(out, run)
    cut = run.meta.get("cut_off")
    if isinstance(cut, dict):
        text = str(cut.get("text", ""))
        shown = text if len(text) <= 2000 else text[:2000] + f"… ({len(text) - 2000:,} more characters)"
        out.add("line_cut_off", None, None, detail=f"line {cut.get('line')}: cut off, {cut.get('bytes'):,} bytes: {shown}")
    if run.exact and not any(c.request is not None for c in run.calls):
        _required(out, run.params)  # the file is the request body itself
    return sort_findings(_accepted(_without_prefilled(_without_paused(out.items, run), run), run))


def check_request(body: dict[str, Any], strict: bool = False, betas: list[str] | None = None) -> list[Finding]:
    """Findings for one request body: its final assistant message, if any, is a prefill; ``betas``
    are the ones its ``anthropic-beta`` header named (a body alone carries none)."""
    from tui.core.grammar import messages, pairing, request

    msgs = body.get("messages")
    out = Findings(strict=strict, unsent=None)
    if not isinstance(msgs, list):
        out.add("messages_empty", None, None, detail="messages is missing or not a list")
        return out.items
    prefill = bool(msgs) and isinstance(msgs[-1], dict) and msgs[-1].get("role") == "assistant"
    params = {k: v for k, v in body.items() if k not in ("messages", "system", "tools")}
    system_messages = any(b.startswith(MID_CONVERSATION_SYSTEM) for b in betas or ())
    messages.check(out, msgs, params, prefill=prefill, system_messages=system_messages)
    pairing.check(out, msgs, prefill=prefill)
    request.check(out, body.get("system"), body.get("tools"), params, msgs)
    _required(out, params)
    return sort_findings(out.items)


#: The fields the API rejects a request without ("max_tokens: Field required").
REQUIRED = ("model", "max_tokens")


def _required(out: Findings, params: dict[str, Any]) -> None:
    for name in REQUIRED:
        if name not in params:
            out.add("required_field", None, None, detail=f"{name}: Field required (the API's answer to a body "
                                                         f"without {name!r})")


def _without_paused(items: list[Finding], run: Run) -> list[Finding]:
    """A turn the model paused (``stop_reason: pause_turn``) is continued by the next call's answer:
    two assistant messages in a row that the API merges into one turn, not a lost results message."""
    paused = {c.message + 1 for c in run.calls if c.stop_reason == "pause_turn"}
    if not paused:
        return items
    return [f for f in items if not (f.rule == "consecutive_assistant" and f.index in paused)]


def _without_prefilled(items: list[Finding], run: Run) -> list[Finding]:
    """An answer that continues the caller's prefill follows it as a second assistant turn: the request
    ended on the caller's assistant message, so the two in a row are the prefill and its continuation,
    not a loop that lost a results message."""
    return [f for f in items if not (f.rule == "consecutive_assistant" and f.index and run.caller_prefill(f.index - 1))]


def _accepted(items: list[Finding], run: Run) -> list[Finding]:
    """Evidence of acceptance beats a rule: an error on a message that a request the API answered carried
    (a recorded 200, or a transcript's answer with its request id and usage) is a warning that says so.
    The loader rebuilds what the client sent where it knows how; this is the net for what it does not."""
    if not any(f.severity == ERROR and f.index is not None for f in items):
        return items
    reach: list[tuple[int, int]] = []  # (messages the answered request held, its call)
    for k, call in enumerate(run.calls):
        answered = call.status == 200 or (call.status is None and call.request_id is not None
                                          and call.usage is not None)
        if answered and call.message < len(run.messages):
            reach.append((call.request.messages if call.request is not None else call.message, k))
    if not reach:
        return items
    held, k = max(reach)
    out = []
    for f in items:
        if f.severity == ERROR and f.index is not None and f.index < held:
            f = Finding(WARNING, f.rule, f.index, f.block,
                        f"{f.message} (yet model call {k + 1} was answered with message {f.index} in its request: "
                        "the API accepted it, so what was sent differs from what the source stores)",
                        "the source stores this message in another form than the client sent it")
        out.append(f)
    return out


def has_errors(findings: list[Finding]) -> bool:
    return any(f.severity == ERROR for f in findings)
