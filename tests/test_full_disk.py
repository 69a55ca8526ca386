"""A full disk, a read-only file system, a permission error: one line, and the previous file whole.

A full disk is a real one where the test may mount a 64 KB tmpfs (root, and mounts allowed);
otherwise those cases skip, and the same failures are also made in-process (``os.fsync`` or
``mkstemp`` raising ENOSPC, EACCES or EROFS), which always runs. What is written: converted
runs, branch files (at the start and mid-run), count_tokens caches, the app's recent runs.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import orjson
import pytest
from app_helpers import app_for, settle
from conftest import SAMPLES, run_cli
from fake_messages_api import serve as serve_counts
from fake_messages_api_stream import Turn, stream_api, text, tool_use  # noqa: F401
from verbs import call

from tui.core import jsonio
from tui.formats import open_run

#: The SDK warns that the sample runs' model is deprecated; in a real process that warning is not shown.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


@pytest.fixture
def tiny_fs():
    """A 64 KB tmpfs of our own (skipped where mounting is not allowed)."""
    mountpoint = Path(tempfile.mkdtemp(prefix="turnscope-tinyfs-"))
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mountpoint)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        mountpoint.rmdir()
        pytest.skip(f"cannot mount a small tmpfs here ({result.stderr.strip()}); the in-process tests cover it")
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], capture_output=True)
        mountpoint.rmdir()


def _fill(root: Path, leave: int = 0) -> None:
    """Take the file system's free space, all but ``leave`` bytes."""
    free = shutil.disk_usage(root).free - leave
    filler = root / "filler"
    with open(filler, "ab") as handle:
        try:
            handle.write(b"\0" * max(free, 0))
            handle.flush()
        except OSError:
            pass
    while shutil.disk_usage(root).free > leave + 4096:
        with open(root / f"filler{os.urandom(4).hex()}", "wb") as handle:
            try:
                handle.write(b"\0" * 4096)
            except OSError:
                break


def _leftovers(root: Path) -> list[str]:
    return [p.name for p in root.rglob("*.tmp")]


def test_convert_onto_a_full_disk_is_one_line_and_keeps_the_previous_file(tiny_fs):
    out = tiny_fs / "run.turnscope.json"
    out.write_bytes(b'{"previous": true}')
    _fill(tiny_fs)
    result = run_cli("convert", SAMPLES / "refund" / "run.jsonl", "-o", out)
    assert result.code == 2 and result.stderr == f"turnscope: {out}: cannot write: No space left on device\n"
    assert out.read_bytes() == b'{"previous": true}' and _leftovers(tiny_fs) == []


def test_convert_onto_a_read_only_file_system(tiny_fs):
    out = tiny_fs / "run.turnscope.json"
    out.write_bytes(b'{"previous": true}')
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_fs)], check=True)
    result = run_cli("convert", SAMPLES / "refund" / "run.jsonl", "-o", out)
    assert result.code == 2 and result.stderr == f"turnscope: {out}: cannot write: Read-only file system\n"
    assert out.read_bytes() == b'{"previous": true}'


def test_a_branch_that_cannot_be_saved_sends_nothing(tiny_fs, stream_api, tmp_path):
    _fill(tiny_fs, leave=2048)  # not enough for the branch file's first save
    out = tiny_fs / "b.turnscope.json"
    result = run_cli("branch", SAMPLES / "refund" / "run.jsonl", "--at", "4", "--model", "m", "-o", out,
                     env={**stream_api.env(), "XDG_DATA_HOME": str(tmp_path / "data")})
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr == f"turnscope: cannot save the branch to {out}: No space left on device; nothing was sent\n"
    assert stream_api.requests == [] and not out.exists() and _leftovers(tiny_fs) == []


def test_exact_counts_on_a_full_cache_disk_are_right_and_say_the_cache_is_not_kept(tiny_fs):
    _fill(tiny_fs, leave=0)
    with serve_counts() as counts:
        result = run_cli("tokens", SAMPLES / "refund" / "run.jsonl", "--exact", "--json",
                         env={**counts.env(), "XDG_CACHE_HOME": str(tiny_fs / "cache")})
    assert result.code == 0, result.stderr
    assert "cannot write the count_tokens cache" in result.stderr and "No space left on device" in result.stderr
    assert orjson.loads(result.stdout)["calls"][0]["kind"] == "exact" and _leftovers(tiny_fs) == []


def _failing_after(count: int, code: int):
    """An ``os.fsync`` that works for ``count`` files, then fails with ``code`` (a directory's fsync,
    which atomic_write does after the rename and may fail harmlessly, is not counted)."""
    real = os.fsync
    calls = {"n": 0}

    def fsync(fd):
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return real(fd)
        calls["n"] += 1
        if calls["n"] > count:
            raise OSError(code, os.strerror(code))
        return real(fd)
    return fsync


def test_a_save_that_fails_mid_branch_keeps_every_complete_turn(tmp_path, stream_api, monkeypatch):
    """The disk fills between two saves (in-process: fsync fails from the third save on)."""
    for name, value in stream_api.env().items():
        monkeypatch.setenv(name, value)
    stream_api.add(Turn([text("Checking."), tool_use("toolu_S1", "lookup_policy", {"topic": "lost_shipment"})],
                        "tool_use"), Turn([text("Done.")]))
    out = tmp_path / "b.turnscope.json"
    monkeypatch.setattr(os, "fsync", _failing_after(2, errno.ENOSPC))  # the start and the first turn are saved
    code, _, stderr = call(["branch", str(SAMPLES / "refund" / "run.jsonl"), "--at", "4", "--tool-error",
                            "toolu_01Ef", "down", "-o", str(out)])
    monkeypatch.undo()
    assert code == 3 and stderr.count("\n") == 1, stderr
    assert stderr.startswith(f"turnscope: cannot save the branch to {out}: No space left on device; the file keeps")
    assert "--resume" in stderr
    run = open_run(str(out))
    assert len(run.messages) == 6 and run.messages[5]["content"][1]["id"] == "toolu_S1"  # the last good save
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS])
def test_an_atomic_write_that_fails_leaves_the_previous_file(tmp_path, monkeypatch, code):
    target = tmp_path / "state.json"
    target.write_bytes(b"previous")
    monkeypatch.setattr(os, "fsync", _failing_after(0, code))
    with pytest.raises(OSError):
        jsonio.atomic_write(target, b"new" * 1000)
    assert target.read_bytes() == b"previous" and _leftovers(tmp_path) == []


def test_convert_with_no_permission_to_write_is_one_line(tmp_path, monkeypatch, capfd):
    out = tmp_path / "out.json"
    out.write_bytes(b"previous")

    def refused(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    code, _, stderr = call(["convert", str(SAMPLES / "refund" / "run.jsonl"), "-o", str(out)])
    assert code == 2 and stderr == f"turnscope: {out}: cannot write: Permission denied\n"
    assert out.read_bytes() == b"previous"


async def test_the_app_state_on_a_full_disk_keeps_the_previous_recent_runs(tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.mkdir()
    previous = jsonio.dumps({"recent": [{"path": str(SAMPLES / "refund" / "run.jsonl"), "run": None,
                                         "title": "before", "messages": 9, "opened": 1.0}]})
    (state / "recent.json").write_bytes(previous)
    monkeypatch.setattr(os, "fsync", _failing_after(0, errno.ENOSPC))
    app = app_for(SAMPLES / "where_is_my_order.jsonl", tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("j", "2")
        await settle(pilot)
        assert app.is_running  # the state could not be saved: nothing for the user to do, nothing lost
    assert (state / "recent.json").read_bytes() == previous and _leftovers(state) == []
