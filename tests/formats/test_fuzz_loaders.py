"""Bad input gets a clear answer, from every registered loader and every verb: a loaded run (with
warnings or findings) or exit 2 and one line naming the file, never a traceback, never a hang.

Property-based (hypothesis): each format's example files with their structure mutated (wrong
types, missing and extra keys, null where a list belongs, unknown block types, long and hostile
strings, huge numbers, deep nesting), random documents forced through every loader, random
message lists through the grammar check and the analyses, and byte-level damage to the real runs
in ../shared/realruns. ``TURNSCOPE_FUZZ_EXAMPLES`` sets how many examples each property tries
(default 25; the suite's runtime stays modest); ``TURNSCOPE_FUZZ_EXAMPLES=500`` searches harder.

The deterministic cases (an empty file, a BOM, ...) are in test_bad_input_cases.py.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_docs import byte_mutation, examples, mutated, parse, values
from tui.core import jsonio, native
from tui.core.account import accounts
from tui.core.diff import diff_runs
from tui.core.errors import LoadError, UsageError
from tui.core.grammar import check_request, check_run
from tui.core.prefix import request_at, request_json
from tui.core.provenance import Provenance
from tui.core.run import Run, Source
from tui.core.tokens import token_report
from tui.formats import formats, load_runs
from verbs import VERBS, run_verbs

EXAMPLES = int(os.environ.get("TURNSCOPE_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("TURNSCOPE_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large, HealthCheck.large_base_example])
NAMES = [m.NAME for m in formats()]


def test_every_format_has_an_example():
    """Each registered loader is fuzzed from its own examples: a loader without a fixture is not."""
    missing = [name for name, files in examples().items() if not files]
    assert not missing, f"add a small example file (tests/fixtures/) for: {missing}"


def _write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", NAMES)
def test_mutated_examples_of_each_format_keep_the_contract(tmp_path_factory, name):
    files = examples()[name]
    if not files:
        pytest.skip(f"no example of {name}")
    docs = [(path, parse(path)) for path in files[:4]]
    tmp = tmp_path_factory.mktemp(name)

    @FUZZ
    @given(data=st.data())
    def check(data):
        path, doc = docs[data.draw(st.integers(0, len(docs) - 1), label="example")]
        changed = data.draw(mutated(doc), label="mutations")
        target = _write(tmp, path.name, changed.dumps(as_yaml=data.draw(st.booleans())))
        problems = run_verbs(target)
        assert not problems, "\n".join(problems)

    check()


@pytest.mark.parametrize("name", NAMES)
def test_random_documents_forced_through_each_loader(tmp_path_factory, name):
    """``--format NAME`` on anything at all: the loader says why it is not that format, or loads what it can."""
    tmp = tmp_path_factory.mktemp(name)

    @FUZZ
    @given(value=values, lines=st.booleans(), more=st.lists(values, max_size=4))
    def check(value, lines, more):
        data = b"\n".join(jsonio.dumps(v) for v in [value, *more]) if lines else jsonio.dumps(value)
        target = _write(tmp, "doc.json", data)
        try:
            runs = load_runs(str(target), fmt=name)
        except (LoadError, UsageError):
            return
        for run in runs:
            _analyse(run)

    check()


def _analyse(run: Run) -> None:
    """What the verbs and the app compute from a run; none of it may raise on a run that loaded."""
    check_run(run)
    check_run(run, strict=True)
    total = len(run.messages)
    for n in sorted({0, 1, total // 2, max(total - 1, 0), total}):
        if n <= total:
            request_at(run, n)
            request_json(run, n)
    accounts(run)
    token_report(run)
    provenance = Provenance(run)
    for n in range(min(total, 30)):
        provenance.trace(n)
    diff_runs(run, run)
    native.dumps([run])


message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", None, 5])},
                                optional={"content": values, "extra": values})
blocks = st.lists(st.one_of(values, st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image", "future", "redacted_thinking"])},
    optional={"text": values, "id": values, "name": values, "input": values, "tool_use_id": values,
              "content": values, "is_error": values, "thinking": values, "signature": values})), max_size=4)
turns = st.lists(st.one_of(message, values, st.builds(lambda role, b: {"role": role, "content": b},
                                                       st.sampled_from(["user", "assistant"]), blocks)), max_size=8)


@settings(max_examples=EXAMPLES * 4, deadline=None, derandomize=not os.environ.get("TURNSCOPE_FUZZ_RANDOM"))
@given(messages=turns, system=values, tools=values, params=st.dictionaries(st.sampled_from(
    ["model", "max_tokens", "thinking", "tool_choice", "temperature"]), values, max_size=3))
def test_the_grammar_check_and_the_analyses_take_any_message_list(messages, system, tools, params):
    run = Run(messages=messages, system=system, tools=tools, params=params,
              source=Source(path="fuzz.json", format="messages"))
    _analyse(run)
    body = {**params, "messages": messages, "system": system, "tools": tools}
    check_request(body)
    check_request(body, strict=True)


@pytest.mark.parametrize("name", ["spotter__short.jsonl", "llmanthropic__test_tools.yaml",
                                  "pydanticai__test_anthropic_code_execution_tool.yaml",
                                  "sweagent__marshmallow-code__marshmallow-1867.traj",
                                  "spotter__tool_heavy.jsonl"])
def test_byte_damage_to_real_runs_keeps_the_contract(realruns, tmp_path_factory, name):
    original = (realruns / name).read_bytes()
    tmp = tmp_path_factory.mktemp("bytes")

    @FUZZ
    @given(data=byte_mutation(original))
    def check(data):
        target = _write(tmp, name, data)
        problems = run_verbs(target)
        assert not problems, "\n".join(problems)

    check()


def test_the_verbs_list_covers_every_verb_that_reads_a_run():
    from tui.cli import VERBS as REGISTERED

    covered = {argv[0] for argv in VERBS}
    # record reads no run file: it writes one (tests/cli/test_record.py)
    assert set(REGISTERED) - covered <= {"branch", "record"}, "a new verb: add it to tests/helpers/verbs.py VERBS"
