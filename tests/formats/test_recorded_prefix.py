"""Recorded exchanges (cassettes, claude-trace logs): the prefix rebuilt at every call is the request
that call sent, field for field and in key order; and every request the API accepted checks clean."""

from __future__ import annotations

import pytest

from loader_helpers import FIXTURES, recorded_bodies
from tui.core.grammar import ERROR, check_request, check_run
from tui.core.prefix import call_request, request_at
from tui.formats import load_runs

FIXTURE_FILES = [FIXTURES / "vcr" / "refused_then_fixed.yaml", FIXTURES / "claude_trace" / "session.jsonl",
                 FIXTURES / "claude_trace" / "orphaned.jsonl"]


def _recorded_files(realruns):
    return sorted(realruns.glob("*.yaml")) + FIXTURE_FILES


def _calls_in_file_order(runs):
    """Every call of every run with its rebuilt body, in the order the exchanges were recorded."""
    calls = []
    for run in runs:
        for k, call in enumerate(run.calls):
            calls.append((call, run, call_request(run, k)))
    return calls


def test_every_call_rebuilds_the_exact_request_it_sent(realruns):
    checked = 0
    for path in _recorded_files(realruns):
        recorded = recorded_bodies(path)
        rebuilt = _calls_in_file_order(load_runs(str(path)))
        assert len(rebuilt) == len(recorded), path.name
        unmatched = list(rebuilt)
        for body, status in recorded:
            match = next((c for c in unmatched if c[2] == body and list(c[2]) == list(body)
                          and c[0].status == status), None)
            assert match is not None, f"{path.name}: no call rebuilds the request {list(body)}"
            unmatched.remove(match)
            checked += 1
    assert checked >= 30


def test_request_at_the_produced_message_is_the_calls_request(realruns):
    for path in _recorded_files(realruns):
        for run in load_runs(str(path)):
            assert run.exact
            for k, call in enumerate(run.calls):
                if run.call_index(call.message) != k:
                    continue  # a refused call whose retry produced the same message
                at = request_at(run, call.message)
                assert at.exact and at.call == k
                assert at.body == call_request(run, k), f"{path.name} call {k + 1}"


def test_every_request_the_api_accepted_checks_without_errors(realruns):
    accepted = 0
    for path in _recorded_files(realruns):
        for body, status in recorded_bodies(path):
            if status != 200:
                continue
            errors = [f for f in check_request(body) if f.severity == ERROR]
            assert errors == [], f"{path.name}: {[f.message for f in errors]}"
            accepted += 1
    assert accepted >= 30


def test_the_rebuilt_runs_of_accepted_requests_check_without_errors(realruns):
    for path in _recorded_files(realruns):
        for run in load_runs(str(path)):
            errors = [f for f in check_run(run) if f.severity == ERROR]
            assert errors == [], f"{path.name}: {[f.message for f in errors]}"


@pytest.mark.parametrize("name", ["llmanthropic__test_tools.yaml", "pydanticai__test_pause_turn_web_search_vcr.yaml"])
def test_runs_share_message_objects_with_no_copy_per_call(realruns, name):
    run = load_runs(str(realruns / name))[0]
    for k in range(len(run.calls)):
        body = call_request(run, k)
        for i, message in enumerate(body["messages"]):
            assert message is run.messages[i] or i in run.calls[k].request.replaced
