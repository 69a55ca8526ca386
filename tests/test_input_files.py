"""Input files are never written, and every file turnscope writes goes through ``atomic_write``.

The tests run as root, where permission bits stop nothing, so besides a read-only directory and
sha256 before and after, every verb (and the app) runs under ``write_guard``: an audit hook that
records any open for writing, rename, removal, truncation or chmod of an input file. A full disk
and permission errors are in test_full_disk.py.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from app_helpers import app_for, settle
from conftest import REPO, SAMPLES
from fake_messages_api import serve as serve_counts
from fake_messages_api_stream import Turn, stream_api, text  # noqa: F401 - stream_api is a fixture
from verbs import call
from write_guard import no_writes_to

from tui.core import jsonio

#: The SDK warns that the sample runs' model is deprecated; in a real process that warning is not shown.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

FIXTURES = REPO / "tests" / "fixtures"
INPUTS = [SAMPLES / "refund" / "run.jsonl", SAMPLES / "refund" / "system.txt", SAMPLES / "refund" / "tools.json",
          SAMPLES / "refund" / "request.json", SAMPLES / "broken" / "rewritten_turn.turnscope.json",
          FIXTURES / "vcr" / "refused_then_fixed.yaml", FIXTURES / "claude_trace" / "session.jsonl",
          FIXTURES / "claude_code" / "rewind.jsonl", FIXTURES / "openai" / "two_ids.traj"]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _snapshot(root: Path) -> dict[str, tuple[str, int]]:
    return {str(p.relative_to(root)): (_sha(p), p.stat().st_mode) for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def read_only(tmp_path):
    """The inputs copied into a directory; files 0444, the directory 0555 (restored afterwards)."""
    root = tmp_path / "inputs"
    root.mkdir()
    for source in INPUTS:
        shutil.copy(source, root / source.name)
        (root / source.name).chmod(0o444)
    patches = {"patch.json": b'[{"op": "add", "path": "/temperature", "value": 0}]',
               "params.json": b'[{"op": "add", "path": "/max_tokens", "value": 100}, '
                              b'{"op": "add", "path": "/model", "value": "m"}]'}
    for name, data in patches.items():
        (root / name).write_bytes(data)
        (root / name).chmod(0o444)
    root.chmod(0o555)
    try:
        yield root
    finally:
        root.chmod(0o755)


def test_the_guard_sees_a_write(tmp_path):
    """The check below is not vacuous: a write-mode open, a replace and a removal are all seen."""
    target = tmp_path / "input.jsonl"
    target.write_bytes(b"{}")
    with no_writes_to(target) as attempts:
        with open(target, "rb"):
            pass
        assert attempts == []
        with open(target, "ab"):
            pass
        jsonio.atomic_write(target, b"[]")
    assert len(attempts) == 2 and "flags" in attempts[0] and "os.rename" in attempts[1]


def test_every_verb_leaves_read_only_inputs_untouched(read_only, tmp_path, stream_api, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name, value in stream_api.env().items():
        monkeypatch.setenv(name, value)
    stream_api.responder = lambda body: Turn([text("fine")])
    before = _snapshot(read_only)
    run, request = read_only / "run.jsonl", read_only / "request.json"
    sidecars = ["--system", str(read_only / "system.txt"), "--tools", str(read_only / "tools.json")]
    argvs = [["stats", str(read_only)], ["diff", str(run), str(request)]]
    for path in sorted(read_only.iterdir()):
        if path.suffix in (".txt",) or path.name in ("tools.json", "patch.json", "params.json"):
            continue
        f = str(path)
        argvs += [["check", f], ["check", f, "--json", "--strict"], ["show", f], ["show", f, "--json"],
                  ["list", f], ["convert", f], ["convert", f, "-o", str(tmp_path / f"{path.name}.native.json")],
                  ["tokens", f], ["trace", f], ["account", f]]
    argvs += [["show", str(run), *sidecars], ["check", str(read_only / "rewind.jsonl"), *sidecars],
              ["branch", str(run), "--at", "4", "--patch", str(read_only / "patch.json"), "-o", str(tmp_path / "b.json")],
              ["branch", str(read_only / "rewind.jsonl"), "--at", "2", "--patch", str(read_only / "params.json"),
               *sidecars],
              ["branch", "--resume", str(tmp_path / "b.json")]]
    with no_writes_to(read_only) as attempts:
        for argv in argvs:
            code, _, stderr = call(argv)
            assert code in (0, 1) and "Traceback" not in stderr, (argv, stderr)
        with serve_counts() as counts:
            monkeypatch.setenv("ANTHROPIC_BASE_URL", counts.base_url)
            code, _, stderr = call(["tokens", str(run), "--exact"])
            assert code == 0 and counts.requests, stderr
    assert attempts == [], attempts
    assert _snapshot(read_only) == before
    assert len(stream_api.bodies) >= 2  # the branches did run


async def test_the_app_leaves_read_only_inputs_untouched(read_only, tmp_path):
    before = _snapshot(read_only)
    with no_writes_to(read_only) as attempts:
        app = app_for(read_only / "run.jsonl", tmp_path, at=3)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            for key in ("2", "w", "3", "4", "1", "y", "j", "slash", "r", "e", "enter"):
                await pilot.press(key)
                await settle(pilot)
        picker = app_for(None, tmp_path, samples=read_only)
        async with picker.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
    assert attempts == [] and _snapshot(read_only) == before
    assert (tmp_path / "state" / "recent.json").exists()  # the app did save its own state, elsewhere


def test_every_writer_goes_through_atomic_write():
    """No module opens a file for writing itself: jsonio.atomic_write is the one writer."""
    offenders = []
    for path in (REPO / "tui").rglob("*.py"):
        source = path.read_text()
        for needle in ("open(", ".write_bytes(", ".write_text("):
            for line in source.splitlines():
                stripped = line.strip()
                if needle in stripped and not stripped.startswith("#") and (
                        needle != "open(" or any(m in stripped for m in ('"w', "'w", '"a', "'a", '"x', "'x", "+"))):
                    if path.name == "jsonio.py" or "/dev/null" in stripped:
                        continue
                    offenders.append(f"{path.relative_to(REPO)}: {stripped}")
    assert offenders == [], offenders
