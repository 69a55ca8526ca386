"""The account of every message of a long run stays linear, and a long stretch without a model turn is
summarised, not listed message by message (a 20,000-message run took 90 s; one sentence listed them all)."""

from __future__ import annotations

from tui.core import account as account_module
from tui.core import run_facts as run_facts_module
from tui.core.account import accounts
from tui.core.run_facts import HISTORY_ITEMS
from tui.core.run import Run, Source


def _run(messages):
    return Run(messages=messages, source=Source(path="long.jsonl", format="messages"))


def test_the_work_per_message_does_not_grow_with_the_run(monkeypatch):
    calls = {"n": 0}
    real = account_module.tool_uses

    def counted(message):
        calls["n"] += 1
        return real(message)

    monkeypatch.setattr(account_module, "tool_uses", counted)
    monkeypatch.setattr(run_facts_module, "tool_uses", counted)
    work = {}
    for size in (400, 4000):
        calls["n"] = 0
        accounts(_run([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}] * (size // 2)))
        work[size] = calls["n"]
    assert work[4000] < 12 * work[400], work  # ten times the messages, about ten times the work


def test_a_long_stretch_of_caller_messages_is_counted_not_listed():
    run = _run([{"role": "user", "content": f"note {k}"} for k in range(500)])
    visible = accounts(run)[499][2]
    assert "messages 1-486 (486 messages)" in visible
    assert visible.count("the caller's message") == HISTORY_ITEMS + 1  # message 0 and the latest twelve
    assert "note 498" in visible and "note 250" not in visible
