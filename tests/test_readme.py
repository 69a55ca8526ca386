"""README stays true: the quick start's run command works on the bundled run, and the rules
table is the one ``scripts/rules_table.py`` generates from ``rules.py``."""

from __future__ import annotations

import re

from conftest import REPO
from scripts.rules_table import readme_with_table

README = (REPO / "README.md").read_text()


def _block_after(marker: str) -> str:
    return re.search(re.escape(marker) + r"\n```sh\n(.+?)\n```", README, re.S).group(1)


def test_rules_table_is_current():
    assert readme_with_table(README) == README, "run `python scripts/rules_table.py --write`"


def test_quick_start_runs_the_bundled_refund_run(cli):
    command = _block_after("<!-- run-command -->")
    turnscope = command.split("&&")[-1].split()
    assert turnscope[0].endswith("bin/turnscope")
    done = cli(*turnscope[1:])
    assert done.code == 0 and done.stderr == ""
    assert "the request for message 5 of 8, sent by model call 3 of 4" in done.stdout
    assert "== message 5: the response to this request (call 3) ==" in done.stdout


def test_quick_start_is_two_commands():
    assert len(re.findall(r"<!-- (run|test)-command -->\n```sh\n[^\n]+\n```", README)) == 2
    assert _block_after("<!-- test-command -->").endswith("python -m pytest -q")
