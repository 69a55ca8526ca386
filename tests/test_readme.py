"""README stays true: the quick start's run command works on the bundled run, and the rules
table is the one ``scripts/rules_table.py`` generates from ``rules.py``."""

from __future__ import annotations

import re

from app_helpers import app_for, screen_text, settle
from conftest import REPO
from scripts.rules_table import readme_with_table
from tui.app.launch import parser

README = (REPO / "README.md").read_text()


def _block_after(marker: str) -> str:
    return re.search(re.escape(marker) + r"\n```sh\n(.+?)\n```", README, re.S).group(1)


def test_rules_table_is_current():
    assert readme_with_table(README) == README, "run `python scripts/rules_table.py --write`"


async def test_quick_start_opens_the_stepper_on_the_bundled_refund_run(tmp_path, monkeypatch):
    """The first command's arguments, parsed by the launcher as the CLI does, open the stepper
    on message 5 of the refund run (driven headless through Pilot)."""
    command = _block_after("<!-- run-command -->")
    turnscope = command.split("&&")[-1].split()
    assert turnscope[0].endswith("bin/turnscope")
    args = parser().parse_args(turnscope[1:])
    monkeypatch.chdir(REPO)
    app = app_for(args.file, tmp_path, at=args.at, run=args.run, view=args.view)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
    assert "refund/run.jsonl" in text and "5 of 8" in text
    assert "call 3 of 4" in text


def test_quick_start_is_two_commands():
    assert len(re.findall(r"<!-- (run|test)-command -->\n```sh\n[^\n]+\n```", README)) == 2
    assert _block_after("<!-- test-command -->").endswith("python -m pytest -q -n auto")


def test_ci_runs_the_readmes_test_command_verbatim():
    """`.ci/run` writes the command out (so it plainly runs pytest) and that line is the README's."""
    script = (REPO / ".ci" / "run").read_text().rstrip("\n").splitlines()
    command = _block_after("<!-- test-command -->")
    assert f'TEST_COMMAND="{command}"' in script
    assert script[-1] == command  # the line that runs, last, so a failing test fails CI
