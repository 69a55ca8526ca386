"""Size: a file too big for this machine is refused with its size and the limit before a byte is read;
a single 100 MB string opens, folded, and nothing proportional to it runs on the UI thread.

The bound: ``tui.formats.document.max_bytes()``, one eighth of physical memory (at least 64 MB),
or ``TURNSCOPE_MAX_BYTES``. A parse takes about four times the file, so the largest file
turnscope opens peaks at about half the machine's memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import orjson
import pytest
from app_helpers import app_for, screen_text, settle
from conftest import REPO
from verbs import VERBS

from tui.formats.document import max_bytes

MB = 1_000_000
#: Peak memory from VmHWM: ru_maxrss survives exec on Linux, so a child of a big pytest process
#: would report the parent's peak.
_MEASURED = ("import sys\nfrom tui.cli import main\ncode = main(sys.argv[1:])\n"
             "peak = [line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM')][0]\n"
             "sys.__stderr__.write(f'MAXRSS {peak}\\n')\n"
             "sys.exit(code)\n")


def _measured(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, int]:
    """``turnscope ARGV`` in a fresh process: exit code, stderr (without the last line), peak memory in KB."""
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    proc = subprocess.run([sys.executable, "-c", _MEASURED, *argv], capture_output=True, text=True, env=full,
                          cwd=REPO, timeout=300)
    lines = proc.stderr.splitlines()
    assert lines and lines[-1].startswith("MAXRSS "), proc.stderr
    return proc.returncode, "\n".join(lines[:-1]), int(lines[-1].split()[1])


def _sparse(path, size: int):
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


@pytest.mark.parametrize("argv", VERBS, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_a_1_gb_file_is_refused_with_its_size_by_every_verb_without_reading_it(tmp_path, argv):
    big = _sparse(tmp_path / "huge.jsonl", 1_000 * MB)
    code, stderr, peak_kb = _measured(*[a.format(f=big) for a in argv], env={"TURNSCOPE_MAX_BYTES": str(512 * MB)})
    assert code == 2 and stderr == (f"turnscope: {big}: file is 1,000 MB; the limit on this machine is 512 MB "
                                    "(set TURNSCOPE_MAX_BYTES to change it)"), stderr
    assert peak_kb < 200_000, "the file was read before it was refused"


def test_the_real_bound_of_this_machine_refuses_a_file_one_byte_over_it(tmp_path):
    limit = max_bytes()
    assert limit >= 64 * MB
    with_env = {k: v for k, v in os.environ.items() if k != "TURNSCOPE_MAX_BYTES"}
    over = _sparse(tmp_path / "over.json", limit + 1)
    proc = subprocess.run([sys.executable, "-m", "tui", "check", str(over)], capture_output=True, text=True,
                          env={**with_env, "PYTHONPATH": str(REPO)}, cwd=REPO, timeout=120)
    assert proc.returncode == 2 and f"the limit on this machine is {limit / MB:,.0f} MB" in proc.stderr


def test_the_app_launcher_refuses_before_the_terminal_is_touched(tmp_path):
    big = _sparse(tmp_path / "huge.json", 3 * MB)
    proc = subprocess.run([sys.executable, "-m", "tui", str(big)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO), "TURNSCOPE_MAX_BYTES": str(MB)}, cwd=REPO)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"turnscope: {big}: file is 3 MB; the limit on this machine is 1 MB " \
                          "(set TURNSCOPE_MAX_BYTES to change it)\n"


async def test_the_picker_says_why_a_big_file_does_not_open(tmp_path, monkeypatch):
    monkeypatch.setenv("TURNSCOPE_MAX_BYTES", str(MB))
    big = _sparse(tmp_path / "huge.jsonl", 3 * MB)
    app = app_for(None, tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.post_message(__import__("tui.app.app_messages", fromlist=["RunChosen"]).RunChosen(str(big), None))
        await settle(pilot)
        assert "file is 3 MB; the limit on this machine is 1 MB" in screen_text(app)


# -- one 100 MB string -------------------------------------------------------------------------

HUNDRED_MB = 100 * MB


@pytest.fixture(scope="module")
def hundred_mb_run(tmp_path_factory):
    """A run whose tool result is one string of 100 MB (words, a control character now and then)."""
    big = ("word " * 199 + "\x1b[2J\n") * (HUNDRED_MB // 1000)
    messages = [{"role": "user", "content": "read the log"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": big}]},
                {"role": "assistant", "content": [{"type": "text", "text": "it is long"}]}]
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(m) for m in messages) + b"\n")
    return path


def test_the_command_line_reads_a_100_mb_string_in_bounded_memory(hundred_mb_run):
    size = hundred_mb_run.stat().st_size
    for argv in (["check", str(hundred_mb_run)], ["show", str(hundred_mb_run), "--at", "3", "--json"]):
        code, stderr, peak_kb = _measured(*argv)
        assert code == 0, stderr
        assert peak_kb * 1000 < 8 * size, f"{argv[0]}: peak {peak_kb / 1000:,.0f} MB for a {size / MB:,.0f} MB file"


class _MainThreadWork:
    """Record the largest input each O(size) function of the app handles on the UI thread."""

    NAMES = ("visible", "one_line", "already_visible", "utf8_already_visible", "display", "wrap_offsets",
             "dumps", "request_json", "request_at")

    def __init__(self, monkeypatch):
        self.largest: dict[str, int] = {}
        self.main = threading.main_thread()
        for module in [m for name, m in list(sys.modules.items()) if name.startswith("tui.") and m is not None]:
            for name in self.NAMES:
                original = getattr(module, name, None)
                if callable(original) and not isinstance(original, type):
                    monkeypatch.setattr(module, name, self._wrap(name, original))

    def _wrap(self, name, original):
        def wrapped(*args, **kwargs):
            if threading.current_thread() is self.main:
                size = max((_size(a) for a in args), default=0)
                self.largest[name] = max(self.largest.get(name, 0), size)
            return original(*args, **kwargs)
        return wrapped

    def worst(self) -> tuple[str, int]:
        return max(self.largest.items(), key=lambda kv: kv[1], default=("nothing", 0))


def _size(value) -> int:
    if isinstance(value, (str, bytes)):
        return len(value)
    from tui.core.run import Run

    if isinstance(value, Run):  # a request built on the UI thread copies the run's messages (cheap: references)
        return 0
    return 0


async def test_the_app_folds_a_100_mb_string_and_never_handles_it_on_the_ui_thread(hundred_mb_run, tmp_path,
                                                                                   monkeypatch):
    app = app_for(hundred_mb_run, tmp_path, at=3)
    work = _MainThreadWork(monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "100,000,000 characters" in text and "enter: expand" in text  # folded, with its size
        for keys in (["k"], ["j"], ["2"], ["w"], ["1"], ["g"], ["G"], ["3"], ["1"]):
            await pilot.press(*keys)
            await settle(pilot)
        assert app.screen.index == 3
        request = app.screen.request
        request.focus()
        await pilot.press("home")
        for _ in range(60):
            if request.target() == ("block", 2, 0):
                break
            await pilot.press("j")
        assert request.target() == ("block", 2, 0), "the cursor did not reach the folded block"
        await pilot.press("enter")  # expand the 100 MB block: escaped and wrapped in a worker
        await settle(pilot)
        assert len(request.document) > HUNDRED_MB // 1200  # every row of it is there to scroll to ...
        await pilot.press("pagedown", "pagedown", "end", "home")
        await settle(pilot)
        assert len(request._strips) < 200  # ... and only the rows on screen were ever drawn
        assert "\\x1b[2J" in screen_text(app)
    name, largest = work.worst()
    assert largest < 2 * MB, f"{name} handled {largest:,} characters on the UI thread"
