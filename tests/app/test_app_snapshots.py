"""SVG snapshots of the main screens (pytest-textual-snapshot). Look at a changed snapshot before accepting it:
``pytest tests/app/test_app_snapshots.py --snapshot-update`` rewrites them, ``snapshot_report.html`` shows diffs.

Paths are relative to the checkout and the state and Claude Code home are temporary, so the
pictures do not depend on the machine; the session in the picker has a fixed time (UTC).
"""

from __future__ import annotations

import time

import pytest
from app_helpers import app_for
from conftest import REPO
from test_app_open import _session


@pytest.fixture(autouse=True)
def _in_checkout(monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def _settled(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_refund_request_view_at_5(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, at=5)
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settled)


def test_refund_raw_view(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, at=5, view="raw")
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settled)


def test_refund_account_view(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, at=3, view="account")
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settled)


def test_broken_run_problems_view(snap_compare, tmp_path):
    app = app_for("sample_runs/broken/orphan_result_retry.jsonl", tmp_path, view="problems")
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settled)


def test_picker(snap_compare, tmp_path):
    _session(tmp_path)
    app = app_for(None, tmp_path)
    assert snap_compare(app, terminal_size=(110, 34), run_before=_settled)


def test_refund_at_80x24(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, at=5)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_settled)
