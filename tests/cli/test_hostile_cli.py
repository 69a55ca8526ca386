"""Every text the command line writes is safe for a terminal: each item of the hostile corpus, placed
everywhere run text can be (and in file names and arguments), on every verb's output and error lines.

Text output shows the item visibly (``\\x1b[2J``, markup literally) and holds no control character;
``--json`` escapes it as JSON does and parses back to exactly the run's text; on a terminal (a pty)
the C1 and bidi characters JSON leaves raw are ``\\u`` escapes too. Most cases run the command
line in-process (``tui.cli.main``, output captured at the file descriptors) to keep the matrix
fast; a few run it as a user does, in a fresh process or under a pty.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

import orjson
import pytest
from conftest import REPO, run_cli
from hostile import ALL, CORPUS, Item, contains_payload, leaks, write_hostile_run

from tui.cli import main
from tui.core.safe import one_line

#: surface -> (arguments after the verb's file(s), JSON output?, must the item be shown in the output?)
SURFACES = {
    "check": (["check", "{f}"], False, False),
    "check --json": (["check", "{f}", "--json"], True, False),
    "show": (["show", "{f}", "--at", "3"], False, True),
    "show --at 5": (["show", "{f}", "--at", "5"], False, True),
    "show --json": (["show", "{f}", "--at", "3", "--json"], True, True),
    "show --curl": (["show", "{f}", "--at", "3", "--curl"], False, False),
    "export": (["export", "{f}", "-o", "{f}.html"], False, False),
    "export md": (["export", "{f}", "--format", "md", "-o", "{f}.md"], False, False),
    "list": (["list", "{f}"], False, False),
    "convert": (["convert", "{f}"], True, True),
    "tokens": (["tokens", "{f}"], False, False),
    "tokens --json": (["tokens", "{f}", "--json"], True, False),
    "trace": (["trace", "{f}"], False, True),
    "trace --json": (["trace", "{f}", "--json"], True, True),
    "account": (["account", "{f}"], False, True),
    "account --json": (["account", "{f}", "--json"], True, True),
    "stats": (["stats", "{f}"], False, False),
    "stats --json": (["stats", "{f}", "--json"], True, False),
    "diff": (["diff", "{plain}", "{f}"], False, True),
    "diff --json": (["diff", "{plain}", "{f}", "--json"], True, True),
}


def _file_name(text: str) -> str:
    """``text`` as part of a file name: no NUL (no path can hold one) and no slash."""
    return text.replace("\x00", "").replace("/", "_")


def _main(capfd, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capfd.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory):
    """One run file per corpus item, and a plain run of the same shape for ``diff``."""
    root = tmp_path_factory.mktemp("hostile")
    for item in CORPUS:
        write_hostile_run(root / f"{item.name}.jsonl", item)
    write_hostile_run(root / "plain.jsonl", Item("plain", "PLAIN", "PLAIN"))
    return root


@pytest.mark.parametrize("surface", list(SURFACES))
@pytest.mark.parametrize("item", CORPUS, ids=lambda i: i.name)
def test_each_item_on_each_verb_is_shown_never_sent(runs_dir, capfd, item, surface):
    args, as_json, shows = SURFACES[surface]
    argv = [a.format(f=runs_dir / f"{item.name}.jsonl", plain=runs_dir / "plain.jsonl") for a in args]
    code, out, err = _main(capfd, *argv)
    assert code in (0, 1), err
    assert not leaks(err), f"{surface}: control characters on stderr: {leaks(err)!r}"
    if as_json:
        assert not [c for c in out if c < " " and c != "\n"], f"{surface}: a C0 control in JSON output"
        values = [orjson.loads(line) for line in out.split("\n") if line.strip()]
        if shows:
            assert contains_payload(values, item.payload), f"{surface}: the run's text did not come through exactly"
        return
    assert not leaks(out), f"{surface}: control characters reached the terminal: {leaks(out)!r}"
    if shows:
        assert item.shown in out, f"{surface}: {item.shown!r} is not shown"


def test_convert_to_a_file_writes_the_text_exactly_and_says_so_safely(runs_dir, tmp_path, capfd):
    target = tmp_path / "out\x1b[2J\x07.turnscope.json"
    code, out, err = _main(capfd, "convert", runs_dir / "osc52_clipboard.jsonl", "-o", target)
    assert code == 0, err
    assert out == f"wrote {one_line(str(target))} (1 run)\n" and not leaks(out)
    assert contains_payload(orjson.loads(target.read_bytes()), CORPUS[3].payload)


@pytest.mark.parametrize("verb", ["check", "show", "list", "convert", "tokens", "trace", "account", "stats"])
@pytest.mark.parametrize("item", CORPUS, ids=lambda i: i.name)
def test_a_hostile_file_name_in_an_error_line(tmp_path, capfd, verb, item):
    """A missing file and a broken file, both named with the item: one line, exit 2, the name shown."""
    name = _file_name(f"run{item.payload}.jsonl")
    missing = tmp_path / ("missing" + name)
    code, out, err = _main(capfd, verb, missing)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("turnscope: ") and not leaks(err)
    assert one_line(str(missing)) in err
    broken = tmp_path / name
    broken.write_bytes(b'{"messages": [{"role": "user", "content": "x"},\n  {"role": ]}\n')
    code, out, err = _main(capfd, verb, broken)
    assert code == 2 and err.count("\n") == 1 and not leaks(err), err
    assert err.startswith(f"turnscope: {one_line(str(broken))}:2:")


@pytest.mark.parametrize("item", CORPUS, ids=lambda i: i.name)
def test_a_hostile_file_name_on_a_good_run(tmp_path, capfd, item):
    path = write_hostile_run(tmp_path / _file_name(f"ok{item.payload}.jsonl"), item)
    for argv in (["check", path], ["list", path], ["tokens", path], ["trace", path], ["diff", path, path],
                 ["show", path, "--at", "2"], ["stats", tmp_path]):
        code, out, err = _main(capfd, *argv)
        assert code in (0, 1), err
        assert not leaks(out) and not leaks(err), f"{argv[0]}: {leaks(out + err)!r}"


def test_stats_names_a_hostile_file_it_skips(tmp_path, capfd):
    (tmp_path / "runs").mkdir()
    write_hostile_run(tmp_path / "runs" / "good.jsonl", CORPUS[0])
    (tmp_path / "runs" / "bad\x1b]0;t\x07.jsonl").write_bytes(b"\x1b[2J not json")
    code, out, err = _main(capfd, "stats", tmp_path / "runs", tmp_path / "runs" / "bad\x1b]0;t\x07.jsonl")
    assert code == 2 and "bad\\x1b]0;t\\x07.jsonl" in err
    assert not leaks(out) and not leaks(err)


def test_arguments_argparse_echoes_are_shown_not_sent(capfd, runs_dir):
    with pytest.raises(SystemExit) as exit_:
        main(["show", str(runs_dir / "bel.jsonl"), "--at", "1", "\x1b]52;c;ZXZpbA==\x07extra"])
    code = exit_.value.code
    err = capfd.readouterr().err
    assert code == 2 and "\\x1b]52;c;ZXZpbA==\\x07extra" in err and not leaks(err)


def test_the_app_launcher_error_line_is_one_safe_line(tmp_path):
    """``turnscope FILE`` for a file that cannot be opened: the line is printed before any Textual code runs."""
    missing = tmp_path / "gone\x1b[2J\x9b\u202e.jsonl"
    result = run_cli(str(missing))
    assert result.code == 2 and result.stderr.count("\n") == 1 and not leaks(result.stderr)
    assert one_line(str(missing)) in result.stderr


def test_every_verb_in_a_fresh_process(runs_dir, tmp_path):
    """The same guarantee as a user gets it: the whole corpus in one run, every verb, a real process."""
    path = write_hostile_run(tmp_path / "all.jsonl", Item("all", ALL, ""))
    for args, as_json, _ in SURFACES.values():
        argv = [a.format(f=path, plain=runs_dir / "plain.jsonl") for a in args]
        result = run_cli(*argv)
        assert result.code in (0, 1) and "Traceback" not in result.stderr, (argv, result.stderr)
        assert not leaks(result.stderr)
        assert (not leaks(result.stdout)) if not as_json else "\x1b" not in result.stdout, argv


def _in_pty(*argv: str) -> bytes:
    """What ``turnscope ARGV`` writes to a terminal (a pty: stdout is a tty)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1", "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "tui", *argv], cwd=REPO, env=env, stdin=follower,
                            stdout=follower, stderr=follower)
    os.close(follower)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        proc.wait(timeout=60)
    return b"".join(chunks)


@pytest.mark.parametrize("argv", [["show", "{f}", "--at", "3", "--json"], ["account", "{f}", "--json"],
                                  ["convert", "{f}"], ["show", "{f}", "--at", "3"]])
def test_on_a_terminal_nothing_json_leaves_raw_gets_through(tmp_path, argv):
    path = write_hostile_run(tmp_path / "all.jsonl", Item("all", ALL, ""))
    args = [a.format(f=path) for a in argv]
    written = _in_pty(*args).decode("utf-8", "surrogatepass").replace("\r\n", "\n")
    assert not leaks(written), f"{args}: {leaks(written)!r}"
    if "--json" in args or args[0] == "convert":
        piped = run_cli(*args).stdout
        values = [orjson.loads(line) for line in written.split("\n") if line.strip()]
        assert values == [orjson.loads(line) for line in piped.split("\n") if line.strip()]
        assert args[0] == "account" or contains_payload(values, ALL)  # account quotes the first words only


def test_branch_output_and_its_error_lines_are_safe(tmp_path):
    """``branch`` prints the model's new turns and the tool results as they arrive: the whole corpus in
    a reply, a tool name and an id, text and --json; and a hostile path in its error lines."""
    from fake_messages_api_stream import FakeMessagesAPI, Turn, text, tool_use

    api = FakeMessagesAPI().start()
    try:
        hostile = write_hostile_run(tmp_path / "all.jsonl", Item("all", ALL, ""))
        run = REPO / "sample_runs" / "refund" / "run.jsonl"
        reply = Turn([text(f"reply {ALL}"), tool_use(f"toolu_{ALL}", f"get{ALL}", {"q": ALL})], "tool_use")
        api.add(reply, Turn([text(f"again {ALL}")]))
        env = {**api.env(), "XDG_DATA_HOME": str(tmp_path / "data")}
        result = run_cli("branch", run, "--at", "4", "--model", "m", "--resolver", "stop", "-o", tmp_path / "b.json",
                         env=env)
        assert result.code == 0, result.stderr
        assert not leaks(result.stdout) and not leaks(result.stderr)
        assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in result.stdout and "[@click=app.quit]quit[/]" in result.stdout
        as_json = run_cli("branch", run, "--at", "4", "--model", "m", "--resolver", "stop", "--json", env=env)
        assert as_json.code == 0 and "\x1b" not in as_json.stdout
        assert contains_payload(orjson.loads(as_json.stdout), ALL)
        missing = tmp_path / "gone\x1b]0;t\x07.json"
        rejected = run_cli("branch", hostile, "--at", "4", "--model", "m", env=env)  # its tool names are invalid
        assert rejected.code == 2 and rejected.stderr.count("\n") == 1 and not leaks(rejected.stderr)
        assert "would be rejected" in rejected.stderr and "\\x1b[2J" in rejected.stderr
        for argv in (["branch", "--resume", missing], ["branch", missing, "--at", "1", "--model", "m"]):
            failed = run_cli(*argv, env=env)
            assert failed.code == 2 and failed.stderr.count("\n") == 1 and not leaks(failed.stderr)
            assert one_line(str(missing)) in failed.stderr
    finally:
        api.stop()
