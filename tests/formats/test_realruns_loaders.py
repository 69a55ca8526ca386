"""Every real run in ../shared/realruns, as a user runs it: ``check``, ``show``, ``list`` and ``convert``
in a fresh process; and each converts to the native format and back without loss."""

from __future__ import annotations

import orjson
import pytest

from loader_helpers import FIXTURES, recorded_bodies, round_trip, same_run
from tui.formats import load_runs

EXPECTED_FORMAT = {"spotter": "claude-code", "ccviewer": "claude-code", "pydanticai": "vcr",
                   "llmanthropic": "vcr", "taubench": "openai", "sweagent": "openai"}


def _run_files(realruns):
    return sorted(p for p in realruns.iterdir() if p.is_file() and p.name.split("__")[0] in EXPECTED_FORMAT)


def test_every_real_file_is_detected_as_its_format(realruns):
    files = _run_files(realruns)
    inventory = orjson.loads((realruns / "inventory.json").read_bytes())
    assert {p.name for p in files} == {item["file"] for item in inventory}
    for path in files:
        runs = load_runs(str(path))
        assert {r.source.format for r in runs} == {EXPECTED_FORMAT[path.name.split("__")[0]]}, path.name


def test_every_real_file_converts_to_native_and_back_without_loss(realruns):
    for path in _run_files(realruns) + sorted(p for p in FIXTURES.glob("*/*") if p.suffix != ".py"):
        runs, back = round_trip(path)
        assert len(back) == len(runs), path.name
        for a, b in zip(runs, back):
            assert same_run(a, b), f"{path.name} run {a.source.run_index}"


def test_check_reads_every_real_file_in_one_process(realruns, cli):
    files = _run_files(realruns)
    result = cli("check", *files, "--json", timeout=300)
    assert result.code in (0, 1), result.stderr
    assert result.stderr == ""
    docs = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert {d["file"] for d in docs} == {str(p) for p in files}
    assert sum(1 for d in docs if d["file"].endswith("taubench__gpt-4o-airline.json")) == 200
    for doc in docs:
        if doc["prefix"] == "reconstructed":
            assert doc["warnings"], f"{doc['file']}: a reconstructed run says how it was rebuilt"


@pytest.mark.parametrize("verb", ["list", "show", "convert"])
def test_list_show_and_convert_work_on_every_real_file(realruns, cli, tmp_path, verb):
    for path in _run_files(realruns):
        args = [verb, path]
        if verb == "convert":
            args += ["-o", tmp_path / (path.name + ".turnscope.json")]
        result = cli(*args)
        assert result.code == 0 and result.stderr == "", f"{verb} {path.name}: {result.stderr}"
        if verb == "list":
            assert f"{path}:" in result.stdout.splitlines()[0]
        elif verb == "show":
            assert "== params ==" in result.stdout and "== messages " in result.stdout
        else:
            back = cli("list", tmp_path / (path.name + ".turnscope.json"))
            assert back.code == 0 and "(native," in back.stdout


def test_show_json_of_a_recorded_call_is_exactly_the_body_it_sent(realruns, cli):
    path = realruns / "pydanticai__test_anthropic_mixed_strict_tool_run.yaml"
    result = cli("show", path, "--at", "3", "--json")
    assert orjson.loads(result.stdout) == recorded_bodies(path)[1][0]
