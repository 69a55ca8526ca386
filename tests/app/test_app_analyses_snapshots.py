"""SVG snapshots of the review views (pytest-textual-snapshot): the Tokens view, provenance under a tool
call, and the diff screen, wide and at 80x24. Look at a changed snapshot (as PNG) before accepting it with
``pytest tests/app/test_app_analyses_snapshots.py --snapshot-update``."""

from __future__ import annotations

import pytest
from app_helpers import app_for
from conftest import REPO


@pytest.fixture(autouse=True)
def _in_checkout(monkeypatch):
    monkeypatch.chdir(REPO)  # paths in the pictures are relative to the checkout


async def _settled(pilot) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_tokens_view(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, at=5, view="tokens")
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settled)


def test_tokens_view_at_80x24(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, at=5, view="tokens")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_settled)


def test_provenance_of_an_invented_order_id(snap_compare, tmp_path):
    app = app_for("sample_runs/invented_order_id.jsonl", tmp_path, at=5)
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settled)


def test_diff_screen(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, diff="sample_runs/invented_order_id.jsonl")
    assert snap_compare(app, terminal_size=(130, 40), run_before=_settled)


def test_diff_screen_at_80x24(snap_compare, tmp_path):
    app = app_for("sample_runs/refund/run.jsonl", tmp_path, diff="sample_runs/invented_order_id.jsonl")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_settled)
