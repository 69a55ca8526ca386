"""Evidence of acceptance beats a rule: no error finding on anything a real source shows the API accepted.

Every run of every file in ``../shared/realruns`` is checked as ``turnscope check`` checks it, and every
request a cassette recorded with status 200 is checked on its own, both as the file holds it and as
turnscope rebuilds it for that call. A model call that answered proves its request was accepted, so an
error finding there means the rebuilt prefix or the rule is wrong.
"""

from __future__ import annotations

from loader_helpers import recorded_bodies
from tui.core.grammar import ERROR, check_request, check_run
from tui.core.prefix import call_request
from tui.formats import load_runs

FAMILIES = ("spotter", "ccviewer", "pydanticai", "llmanthropic", "taubench", "sweagent")


def _files(realruns):
    return sorted(p for p in realruns.iterdir() if p.is_file() and p.name.split("__")[0] in FAMILIES)


def _errors(findings):
    return [f"{f.where()} {f.rule}: {f.message}" for f in findings if f.severity == ERROR]


def test_no_real_run_has_an_error_finding(realruns):
    failures, runs = [], 0
    for path in _files(realruns):
        for run in load_runs(str(path)):
            runs += 1
            failures += [f"{path.name}#{run.source.run_index} {e}" for e in _errors(check_run(run))]
    assert runs >= 230  # 24 files; taubench alone holds 200 runs
    assert failures == []


def test_no_recorded_200_request_has_an_error_finding_on_its_own(realruns):
    failures, checked = [], 0
    for path in _files(realruns):
        if path.suffix != ".yaml":
            continue
        for k, (body, status) in enumerate(recorded_bodies(path)):
            if status == 200:
                checked += 1
                failures += [f"{path.name} request {k + 1} {e}" for e in _errors(check_request(body))]
    assert checked >= 23
    assert failures == []


def test_no_accepted_call_is_rebuilt_into_a_request_with_an_error(realruns):
    """The request turnscope shows for each answered call (recorded or rebuilt from a transcript)."""
    failures, calls = [], 0
    for path in _files(realruns):
        if path.name.startswith("taubench"):
            continue  # 200 runs of the same shape; the run check above covers them
        for run in load_runs(str(path)):
            for k, call in enumerate(run.calls):
                if call.status not in (None, 200) or call.message >= len(run.messages):
                    continue
                calls += 1
                found = check_request(call_request(run, k))
                if not run.exact:  # a transcript records no params: the rebuilt body has no max_tokens to check
                    found = [f for f in found if f.rule != "required_field"]
                failures += [f"{path.name}#{run.source.run_index} call {k + 1} {e}" for e in _errors(found)]
    assert calls > 300
    assert failures == []
