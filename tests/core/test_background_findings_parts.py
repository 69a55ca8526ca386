"""The findings computed in parts (the grammar check and the content check beside the token report; or, where
the token counter is not compiled, half the content check there and the other half beside the provenance index:
``background.groups``) reach the app as the one job computes them: the same list, in the same order, delivered
once, as ``findings``."""

from __future__ import annotations

import functools
import threading

import orjson
import pytest
from planted import planted

from tui.core.content_check import STRIPE
from tui.core.view import background as bg
from tui.formats import open_run


def _run_file(tmp_path):
    """A run with both kinds of finding: a tool call never answered (the grammar) and a credential and hidden
    text in its turns (the content check), in both halves of the content check (``STRIPE`` messages apart)."""
    lines = [
        {"role": "user", "content": "deploy it; the key is " + planted("AWS Access Key")},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "deploy", "input": {}}]},
    ]
    while len(lines) < STRIPE + 2:
        lines += [{"role": "user", "content": f"and now step {len(lines)}?"},
                  {"role": "assistant", "content": [{"type": "text", "text": "done"}]}]
    lines += [
        {"role": "user", "content": "did it work? \u200b" + planted("GitHub Token")},
        {"role": "assistant", "content": [{"type": "text", "text": "yes"}]},
    ]
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in lines))
    return path


def _delivered(path, jobs):
    run = open_run(str(path))
    got, done = [], threading.Event()

    def deliver(kind, value):
        got.append((kind, value))
        if kind in ("done", "failed"):
            done.set()

    background = bg.Background(run, functools.partial(open_run, str(path)), deliver, jobs)
    background.start()
    try:
        assert done.wait(120)
    finally:
        background.stop()
    return got


@pytest.mark.parametrize("compiled", [True, False])
def test_findings_in_two_processes_are_delivered_once_as_the_single_job_finds_them(tmp_path, compiled):
    path = _run_file(tmp_path)
    split = _delivered(path, bg.groups(2, compiled))
    whole = _delivered(path, bg.groups(1))
    assert bg.groups(2, compiled) != bg.groups(1) and len(bg.groups(2, compiled)) == 2
    if not compiled:  # the content check's halves, one in each process
        assert all(any(job.startswith("content ") for job in group) for group in bg.groups(2, compiled))
    kinds = [kind for kind, _ in split]
    assert kinds.count("findings") == 1 and not any(k.endswith("-findings") for k in kinds), kinds
    findings = dict(split)["findings"]
    rules = {f.rule for f in findings}
    assert len(rules) >= 2 and any("secret" in r or "credential" in r for r in rules), rules
    assert findings == dict(whole)["findings"]  # (by value: pickles differ in which equal strings they share)
