"""Bad input, case by case, as a user meets it: each verb in a fresh process under a timeout, and the app.

For each registered format's first example: an empty file, a blank one, a BOM, CRLF line ends, a
truncated last line, invalid UTF-8, NaN, an integer of 2^80, 10,000 and 1,000 levels of nesting,
a 5 MB string, null messages and an unknown block type (for YAML also deep flow nesting, a
billion-laughs and an alias cycle); every real run cut and flipped; and the stepper on an odd
file of each format. Each ends in a loaded run or exit 2 and one line naming the file.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys

import orjson
import pytest

from conftest import REPO
from fuzz_docs import Doc, _slots, examples, parse
from tui.core.errors import LoadError, UsageError
from tui.formats import formats
from verbs import call

NAMES = [m.NAME for m in formats()]


def _verbs_in_a_process(files: list, quick: bool = False) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "helpers" / "verbs.py"), *(["--quick"] if quick else []),
                           *map(str, files)], capture_output=True, env=env, cwd=REPO, timeout=600)
    reports = [orjson.loads(line) for line in proc.stdout.splitlines()]
    assert len(reports) == len(files), proc.stderr.decode()
    return reports


def test_every_real_run_cut_and_flipped_in_a_fresh_process(realruns, tmp_path):
    """Every file in ../shared/realruns cut at a third, two thirds and one byte short, and with a byte
    flipped in the middle: each verb keeps the contract (big files: the verbs that load differently)."""
    small, big = [], []
    for source in sorted(p for p in realruns.iterdir() if p.is_file() and p.name.split("__")[0] in (
            "spotter", "ccviewer", "pydanticai", "llmanthropic", "taubench", "sweagent")):
        data = source.read_bytes()
        middle = len(data) // 2
        damaged = {"third": data[: len(data) // 3], "two_thirds": data[: 2 * len(data) // 3], "short": data[:-1],
                   "flipped": data[:middle] + bytes([data[middle] ^ 0x40]) + data[middle + 1:]}
        for how, changed in damaged.items():
            path = tmp_path / f"{how}__{source.name}"
            path.write_bytes(changed)
            (big if len(data) > 1_000_000 else small).append(path)
    for report in _verbs_in_a_process(small) + _verbs_in_a_process(big, quick=True):
        assert not report["problems"], "\n".join(report["problems"])

def _first_example(name: str):
    return examples()[name][0]


def _cases(name: str) -> dict[str, tuple[bytes, str]]:
    """case -> (file bytes, what must happen: "loads", "refused", or "either")."""
    path = _first_example(name)
    data = path.read_bytes()
    doc = parse(path)
    lines = data.rstrip(b"\n").split(b"\n")
    last = lines[-1]
    cut = b"\n".join(lines[:-1] + [last[: len(last) // 2]]) if len(lines) > 1 else data[: len(data) // 2]
    quoted = data.find(b'"', data.find(b'"text"') + 6) if b'"text"' in data else data.find(b'"')
    invalid_utf8 = data[:quoted + 1] + b"\xff\xfe\xc3(" + data[quoted + 1:] if quoted >= 0 else data + b"\xff"
    one_line = doc.kind == "jsonl"
    cases = {
        "empty": (b"", "refused"),
        "blank": (b"\n \r\n\t\n", "refused"),
        "bom": (b"\xef\xbb\xbf" + data, "loads"),
        "crlf": (data.replace(b"\n", b"\r\n"), "loads"),
        "truncated_last_line": (cut, "loads" if one_line else "either"),
        "invalid_utf8": (invalid_utf8, "either"),
        "nan": (data.replace(b'"max_tokens":', b'"max_tokens":NaN,"was":', 1)
                if b'"max_tokens"' in data else data.replace(b"1", b"NaN", 1), "either"),
        "huge_int": (_with(doc, 2**80), "loads"),
        "deep_10000": (_with(doc, "DEEP").replace(b'"DEEP"', b"[" * 10_000 + b"]" * 10_000), "either"),
        "deep_1000": (_with(doc, "DEEP").replace(b'"DEEP"', b"[" * 1000 + b"]" * 1000), "either"),
        "long_string": (_with(doc, "L" * 5_000_000), "loads"),
        "null_messages": (data.replace(b'"messages": [', b'"messages": null, "was": [', 1)
                          .replace(b'"messages":[', b'"messages":null,"was":[', 1), "either"),
        "unknown_block": (_with(doc, {"type": "future_block_type", "payload": {"k": [1, 2]}}), "loads"),
    }
    if doc.kind == "yaml":
        laughs = "".join(f"  l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * 10)}]\n" for k in range(1, 9))
        cases.update({
            "yaml_deep_flow": (data.replace(b"interactions:", b"deep: " + b"[" * 10_000 + b"]" * 10_000
                                            + b"\ninteractions:", 1), "refused"),
            "yaml_billion_laughs": (b"laughs:\n  l0: &l0 [lol, lol]\n" + laughs.encode() + data, "refused"),
            "yaml_alias_cycle": (b"loop: &loop [1, *loop]\n" + data, "either"),
            "yaml_invalid_utf8": (data.replace(b"interactions:", b"junk: \"\xff\xfe\"\ninteractions:", 1), "refused"),
        })
    return cases


def _with(doc: Doc, *values) -> bytes:
    """``doc`` with each value put where a block or a field would be: inside the first list of dicts found
    (a content array, a message list), else as an extra key of the first object."""
    changed = copy.deepcopy(doc.value)
    for value in values:
        for parent, key in _slots(changed):
            child = parent[key]
            if isinstance(child, list) and child and all(isinstance(c, dict) for c in child) and \
                    any("type" in c for c in child):
                child.append(value)
                break
        else:
            for parent, key in _slots(changed):
                if isinstance(parent[key], dict):
                    parent[key][f"extra_field_{len(parent[key])}"] = value
                    break
    return Doc(doc.kind, changed).dumps(as_yaml=False)  # a cassette as JSON: the replacements below need JSON


@pytest.mark.parametrize("name", NAMES)
def test_special_inputs_in_a_fresh_process(tmp_path, name):
    if not examples()[name]:
        pytest.skip(f"no example of {name}")
    suffix = _first_example(name).suffix
    files, expect = [], {}
    for case, (data, what) in _cases(name).items():
        path = tmp_path / f"{case}{suffix}"
        path.write_bytes(data)
        files.append(str(path))
        expect[str(path)] = what
    for report in _verbs_in_a_process(files):
        assert not report["problems"], "\n".join(report["problems"])
    for path, what in expect.items():
        if what == "either":
            continue
        code, _, stderr = call(["check", path])
        if what == "loads":
            assert code in (0, 1), f"{name} {os.path.basename(path)}: should load: {stderr}"
        else:
            assert code == 2 and re.match(rf"turnscope: {re.escape(path)}(:\d+:\d+)?: ", stderr), stderr


@pytest.mark.parametrize("name", NAMES)
async def test_the_app_opens_odd_files_of_each_format(tmp_path, name):
    """The stepper on a file holding nesting 1,000 deep, an integer past 64 bits, a 2 MB string and an
    unknown block: every view, every index; or, if the file cannot be opened, the CLI's one line."""
    from app_helpers import app_for, settle

    from tui.app.screens.run_list import RunListScreen

    if not examples()[name]:
        pytest.skip(f"no example of {name}")
    example = _first_example(name)
    data = _with(parse(example), "DEEP", 2**80, "L" * 2_000_000, {"type": "future_block_type", "x": [1]},
                 {"type": ["not", "a", "string"]}, None).replace(b'"DEEP"', b"[" * 1000 + b"]" * 1000)
    path = tmp_path / f"odd{example.suffix}"
    path.write_bytes(data)
    try:
        app = app_for(path, tmp_path)
    except (LoadError, UsageError):
        code, _, stderr = call(["check", str(path)])
        assert code == 2 and stderr.count("\n") == 1
        return
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        if isinstance(app.screen, RunListScreen):
            await pilot.press("enter")
            await settle(pilot)
        for key in ("2", "3", "4", "1", "G", "s", "t", "tab", "enter", "g", "2", "w"):
            await pilot.press(key)
            await settle(pilot)
        assert app.is_running
