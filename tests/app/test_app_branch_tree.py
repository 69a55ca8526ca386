"""The branch tree and the side-by-side view: branches (and branches of branches) made through the
real runner and the fake Messages API are listed under the run — those in the data dir and those
saved with ``-o`` beside the run or in the working folder; opening one shows original and branch
from the branch index, two columns when wide, one side at a time (x switches) at 80x24."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from app_helpers import REFUND, screen_text, settle
from conftest import SAMPLES, run_cli
from branch_app_helpers import api_env, branch_app, until, until_text  # noqa: F401
from fake_messages_api_stream import Turn, stream_api, text  # noqa: F401

from tui.app.screens.branch.editor import BranchEditorScreen
from tui.app.screens.branch.tree import BranchTreeScreen
from tui.app.screens.side_by_side import SideBySideScreen
from tui.app.screens.stepper import StepperScreen
from tui.core.branch import patch as patches, runner, store
from tui.core.branch.resolvers import StopResolver
from tui.formats import open_run

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


async def _make_branch(parent_path, data_dir, message: str) -> str:
    """A branch at 4 with lookup_policy's result an error, run to its end through the SDK."""
    parent = open_run(str(parent_path))
    base = patches.base_document(parent, 4)
    edit = patches.tool_error(base, "toolu_01Ef", message)
    branch = runner.start(parent, 4, edit, resolver="stop", parent_sha=store.sha256_of(parent_path),
                          data_dir=data_dir)
    async for _ in runner.Runner(branch, StopResolver()).events():
        pass
    return str(branch.path)


@pytest.fixture
async def tree(api_env, tmp_path):
    """Two branches of the refund run, and one branch of the first of them."""
    data = tmp_path / "data"
    api_env.add(Turn([text("Sorry: the policy service is down, so I can't refund this yet.")]),
                Turn([text("A second try: still no policy.")]),
                Turn([text("The nested branch's answer.")]))
    first = await _make_branch(REFUND, data, "policy service unavailable (503)")
    second = await _make_branch(REFUND, data, "timeout")
    nested = await _make_branch(first, data, "permission denied")
    return {"first": first, "second": second, "nested": nested, "data": data}


async def test_the_tree_lists_branches_of_branches(tree, tmp_path):
    parent_bytes = REFUND.read_bytes()
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        assert isinstance(app.screen, BranchTreeScreen)
        shown = await until_text(pilot, "2 made from it, 1 from its branches")
        rows = [(depth, entry.path) for depth, entry, _ in app.screen.rows]
        assert rows == [(0, tree["first"]), (1, tree["nested"]), (0, tree["second"])]
        assert shown.count("at 4 · end_turn · 6 messages") == 3
        assert "└ at 4" in shown  # the nested one, indented under its parent

        await pilot.press("down", "enter")  # the nested branch: beside the branch it was made from
        await settle(pilot)
        assert isinstance(app.screen, SideBySideScreen)
        pair = screen_text(app)
        assert "Sorry: the policy service is down" in pair  # its parent (the first branch), left
        assert "The nested branch's answer." in pair
        assert "permission denied" in pair and "policy service unavailable (503)" in pair
    assert REFUND.read_bytes() == parent_bytes


async def test_side_by_side_from_the_branch_index_aligned_by_index(tree, tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await until_text(pilot, "made from it")
        await pilot.press("enter")  # the first branch, beside the run itself
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SideBySideScreen)
        rows = screen.view.text_rows()
        assert rows[0].startswith("[4] user · as recorded") and "│ [4] user · edited" in rows[0]
        assert "[0]" not in "".join(rows) and "[3]" not in "".join(rows)  # from the branch index on
        row5 = next(k for k, r in enumerate(rows) if r.startswith("[5]"))
        assert "│ [5] assistant · branch call 1 · end_turn" in rows[row5]  # same row on both sides
        assert "issue_refund" in "".join(rows[row5:row5 + 3])  # what the original did at 5
        assert "Sorry: the policy service is down" in "".join(rows[row5:row5 + 3])
        assert any("[6] no message 6: the branch stopped before it" in r for r in rows)
        await pilot.press("n")  # n jumps a message: the cursor on index 5's first row
        assert screen.view.cursor == row5


async def test_at_80x24_one_side_at_a_time_and_x_switches(tree, tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await until_text(pilot, "made from it")
        await pilot.press("enter")
        await settle(pilot)
        shown = screen_text(app)
        assert "branch " in shown and "x shows the original" in shown
        assert "Sorry: the policy service is down" in shown and "issue_refund" not in shown
        await pilot.press("n")  # to message 5, then switch: the same index on the other side
        await pilot.press("x")
        await settle(pilot)
        shown = screen_text(app)
        assert "x shows the branch" in shown and "[5] assistant · call 3" in shown and "issue_refund" in shown
        assert app.screen.view.target() == ("message", 5)
        assert "x Switch side" in shown  # the footer shows the key


async def test_o_opens_a_branch_in_the_stepper(tree, tmp_path):
    app = branch_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        await until_text(pilot, "made from it")
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, StepperScreen) and app.screen.view.run.lineage,
                    what="the stepper on the branch")
        await settle(pilot)
        assert app.screen.index == 4
        assert app.screen.view.run.messages[5]["content"][0]["text"].startswith("Sorry: the policy")
        await pilot.press("b")  # a branch file can be branched again, in the app too
        await settle(pilot)
        assert isinstance(app.screen, BranchEditorScreen) and app.screen.run.source.path == tree["first"]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("B")  # the branch's own tree: the branch made from it
        await until_text(pilot, "1 made from it, 0 from its branches")


def _headless(api, run: Path, out: Path, message: str, cwd: Path) -> None:
    """``turnscope branch RUN --at 4 --tool-error ... -o OUT``, as a user would type it."""
    api.add(Turn([text(f"Answer for {out.name}.")]))
    result = run_cli("branch", run, "--at", "4", "--tool-error", "toolu_01Ef", message, "--resolver", "stop",
                     "-o", out, cwd=cwd, env={**api.env(), "XDG_DATA_HOME": str(cwd / "xdg")})
    assert result.code == 0, result.stderr


async def test_branches_saved_with_o_beside_the_run_or_in_the_working_folder_are_listed(api_env, tmp_path,
                                                                                         monkeypatch):
    runs, elsewhere = tmp_path / "runs", tmp_path / "elsewhere"
    runs.mkdir(), elsewhere.mkdir()
    run = runs / "refund.jsonl"
    shutil.copyfile(REFUND, run)  # sample_runs/ is never written: the branches go beside a copy
    other = runs / "other.jsonl"
    shutil.copyfile(SAMPLES / "where_is_my_order.jsonl", other)
    beside = runs / "what-if.turnscope.json"
    _headless(api_env, run, beside, "policy service unavailable (503)", tmp_path)
    nested = runs / "what-if-again.turnscope.json"
    _headless(api_env, beside, nested, "permission denied", tmp_path)  # a branch of the branch, beside it
    in_cwd = elsewhere / "from-here.turnscope.json"
    _headless(api_env, run, in_cwd, "timeout", elsewhere)
    (runs / "unrelated.turnscope.json").write_bytes(b'{"turnscope": 1, ' + b" " * 200_000 + b"garbage")
    other_branch = runs / "other-branch.turnscope.json"
    other_branch.write_bytes(beside.read_bytes().replace(store.sha256_of(run).encode(), b"0" * 64))
    before = {p.name: p.read_bytes() for p in runs.iterdir()}

    monkeypatch.chdir(elsewhere)  # turnscope started where the third branch was saved
    app = branch_app(tmp_path, path=run)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("B")
        shown = await until_text(pilot, "2 made from it, 1 from its branches")
        rows = [(depth, os.path.realpath(entry.path)) for depth, entry, _ in app.screen.rows]
        assert rows == [(0, str(beside)), (1, str(nested)), (0, str(in_cwd))]  # oldest first, nested under
        assert "what-if.turnscope.json" in shown and "└ at 4" in shown
        await pilot.press("enter")  # the -o branch, beside the run it was made from
        await settle(pilot)
        assert isinstance(app.screen, SideBySideScreen)
        assert "policy service unavailable (503)" in screen_text(app)
    assert {p.name: p.read_bytes() for p in runs.iterdir()} == before  # nothing written beside the run
    assert not (tmp_path / "data").exists()


async def test_a_branch_opened_in_the_stepper_marks_its_new_rows(tree, tmp_path):
    """The rows after the branch index carry ``+``, the edited message N ``*``; the run's own rows carry neither."""
    from tui.app.widgets.message_list import MessageList

    def rows(app) -> list[str]:
        listing = app.screen.query_one(MessageList)
        return [listing.row_text(i, 60).plain for i in range(len(app.screen.view.run.messages))]

    app = branch_app(tmp_path, path=tree["first"], at=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        branch = rows(app)
        assert [row[1] for row in branch] == [" "] * 4 + ["*", "+"]
        shown = screen_text(app)
        assert "+5 assistant" in shown and "*4 user" in shown
    app = branch_app(tmp_path / "original", path=REFUND, at=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert {row[1] for row in rows(app)} == {" "}
