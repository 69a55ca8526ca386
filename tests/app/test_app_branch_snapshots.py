"""SVG snapshots of the branch editor and the side-by-side view (pytest-textual-snapshot). Look at a
changed snapshot as a PNG before accepting it with ``--snapshot-update``.

The editor is the refund run at index 4 with lookup_policy's result made an error (the quick
edit); the side-by-side view is a branch made through the runner and the fake Messages API,
saved under a fixed name so the picture does not depend on the time.
"""

from __future__ import annotations

import pytest
from app_helpers import settle
from branch_app_helpers import POLICY_DOWN, api_env, branch_app, checked, type_text  # noqa: F401
from conftest import REPO
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401

from tui.app.screens.side_by_side import SideBySideScreen
from tui.core.branch import patch as patches, runner, store
from tui.core.branch.resolvers import Resolution, ManualResolver
from tui.formats import open_run

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
REFUND = "sample_runs/refund/run.jsonl"


@pytest.fixture(autouse=True)
def _in_checkout(monkeypatch):
    monkeypatch.chdir(REPO)


async def _edited(pilot) -> None:
    await settle(pilot)
    await pilot.press("b")
    await settle(pilot)
    await pilot.press("e")
    await settle(pilot)
    await pilot.press("ctrl+u")
    await type_text(pilot, POLICY_DOWN)
    await pilot.press("enter")
    await checked(pilot)


def test_branch_editor(snap_compare, tmp_path):
    assert snap_compare(branch_app(tmp_path, path=REFUND), terminal_size=(130, 36), run_before=_edited)


def test_branch_editor_at_80x24(snap_compare, tmp_path):
    assert snap_compare(branch_app(tmp_path, path=REFUND), terminal_size=(80, 24), run_before=_edited)


@pytest.fixture
async def made_branch(api_env, tmp_path):
    api_env.add(Turn([text("I couldn't confirm the policy, so let me check returns."),
                      tool_use("toolu_N1", "lookup_policy", {"topic": "returns"})], "tool_use"),
                Turn([text("I can't refund this without the policy. I've passed it to a colleague, who will "
                           "reply within one working day.")]))
    parent = open_run(REFUND)
    base = patches.base_document(parent, 4)
    branch = runner.start(parent, 4, patches.tool_error(base, "toolu_01Ef", POLICY_DOWN), resolver="recorded",
                          parent_sha=store.sha256_of(REFUND), output=tmp_path / "branch.turnscope.json")

    async def ask(call):
        return Resolution("Returns are accepted within 30 days.", via="manual")

    async for _ in runner.Runner(branch, ManualResolver(ask)).events():
        pass
    return parent, store.load(branch.path)


def _side_by_side(parent, branch):
    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.push_screen(SideBySideScreen(parent, branch, 4))
        await settle(pilot)

    return run_before


def test_side_by_side(snap_compare, made_branch, tmp_path):
    assert snap_compare(branch_app(tmp_path, path=REFUND), terminal_size=(130, 36),
                        run_before=_side_by_side(*made_branch))


def test_side_by_side_at_80x24(snap_compare, made_branch, tmp_path):
    assert snap_compare(branch_app(tmp_path, path=REFUND), terminal_size=(80, 24),
                        run_before=_side_by_side(*made_branch))


def test_experiment_at_80x24(snap_compare, api_env, tmp_path, monkeypatch):
    """Three samples of the edit against a control, at most one at a time (so which sample got which
    scripted answer is fixed), the event issue_refund counted; saved under a relative name."""
    from test_app_experiment import Script

    from tui.app.screens.experiment import ExperimentScreen
    from tui.core.branch import experiment as experiments
    from branch_app_helpers import until_text

    api_env.responder = Script()
    parent_path = str(REPO / REFUND)
    parent = open_run(parent_path)
    monkeypatch.chdir(tmp_path)
    exp = experiments.create(parent, 4, patches.tool_error(patches.base_document(parent, 4), "toolu_01Ef", POLICY_DOWN),
                             samples=3, control=True, resolver="recorded", parent_sha=store.sha256_of(parent_path),
                             concurrency=1, event="issue_refund", output="x.experiment.json")

    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.push_screen(ExperimentScreen(exp))
        await until_text(pilot, "all 6 samples done")
        await settle(pilot)

    assert snap_compare(branch_app(tmp_path, path=parent_path), terminal_size=(80, 24), run_before=run_before)
