"""The command line as a user runs it (``python -m tui`` in a fresh process): output formats,
exit codes, one-line errors for files that cannot be loaded, several runs in one file, and
``convert -o``."""

from __future__ import annotations

import json
import os
import re

import pytest

from conftest import SAMPLES
from runbuild import ASK, assistant, text, write_json
from scripts.sample_content import MODEL, REFUND

LINE = re.compile(r"^(?P<file>[^:]+?)(?::(?P<index>\d+)(?:\.(?P<block>\d+))?)?: "
                  r"(?P<severity>error|warning) (?P<rule>[a-z_]+): (?P<message>.+)$")


# -- check: text --------------------------------------------------------------------------------

def test_check_text_lines(cli):
    path = SAMPLES / "broken/orphan_result_retry.jsonl"
    done = cli("check", path)
    assert (done.code, done.stderr) == (1, "")
    lines = done.stdout.splitlines()
    assert lines[0] == (f"{path}:3: warning consecutive_user: two user turns in a row (the API merges them, "
                        "but the loop is broken): messages 2 and 3")
    assert lines[1].startswith("  likely cause: ")
    assert lines[2] == (f"{path}:3.0: error unexpected_tool_use_id: messages.3.content.0: unexpected `tool_use_id` "
                        "found in `tool_result` blocks: toolu_01Ef. Each `tool_result` block must have a "
                        "corresponding `tool_use` block in the previous message.")
    assert lines[3].startswith("  likely cause: results appended before their assistant turn")
    assert len(lines) == 4


def test_every_finding_line_has_the_documented_shape(cli):
    files = sorted((SAMPLES / "broken").glob("*")) + [SAMPLES / "refund/run.jsonl"]
    done = cli("check", *files)
    assert done.code == 1
    findings = [line for line in done.stdout.splitlines() if not line.startswith("  likely cause: ")]
    for line in findings:
        if line.endswith(")") and ": ok (" in line:
            continue
        match = LINE.match(line)
        assert match, line
        assert match["file"] in {str(f) for f in files}
    assert f"{SAMPLES / 'refund/run.jsonl'}: ok (8 messages, 4 model calls, reconstructed prefixes)" in done.stdout


def test_request_level_findings_have_no_index(cli, tmp_path):
    path = write_json(tmp_path / "tools.json", {"model": MODEL, "messages": [ASK],
                                                "tools": [{"name": "a b", "input_schema": {"type": "object"}}]})
    done = cli("check", path)
    assert done.stdout.splitlines()[0] == (f"{path}: error tool_name_pattern: tools.0.custom.name: String should "
                                           "match pattern '^[a-zA-Z0-9_-]{1,128}$' [name 'a b']")


# -- check: JSON --------------------------------------------------------------------------------

def test_check_json_shape(cli):
    path = SAMPLES / "broken/only_first_call.jsonl"
    done = cli("check", "--json", path)
    assert done.code == 1
    doc = json.loads(done.stdout)
    assert {"file", "format", "valid", "messages", "findings"} <= set(doc)
    assert (doc["file"], doc["format"], doc["valid"], doc["messages"]) == (str(path), "messages", False, 3)
    assert doc["findings"] == [{
        "severity": "error", "rule": "tool_use_without_result", "index": 2, "block": None,
        "message": "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: "
                   "toolu_01Cd. Each `tool_use` block must have a corresponding `tool_result` block in the next "
                   "message. [unanswered: get_shipment toolu_01Cd]",
        "cause": "only calls[0] was dispatched; the other calls in the turn were never answered"}]


def test_check_json_one_object_per_file_and_null_index(cli, tmp_path):
    bad = write_json(tmp_path / "b.json", {"messages": [ASK], "tools": [{"name": "x", "input_schema": {}}]})
    done = cli("check", "--json", SAMPLES / "refund/request.json", bad)
    first, second = (json.loads(line) for line in done.stdout.splitlines())
    assert (first["valid"], first["findings"], first["format"]) == (True, [], "request")
    assert second["findings"][0]["index"] is None and second["findings"][0]["rule"] == "tool_input_schema"


# -- exit codes ---------------------------------------------------------------------------------

def test_exit_codes(cli, tmp_path):
    assert cli("check", SAMPLES / "refund/run.jsonl").code == 0
    assert cli("check", SAMPLES / "broken/skipped_result.jsonl").code == 1
    assert cli("check", tmp_path / "missing.json").code == 2
    warned = SAMPLES / "broken/rewritten_turn.turnscope.json"  # warnings only
    assert cli("check", warned).code == 0
    assert cli("check", "--strict", warned).code == 1
    assert cli("check", "--strict", SAMPLES / "refund/run.jsonl").code == 0


def test_an_unreadable_file_does_not_stop_the_others(cli, tmp_path):
    done = cli("check", tmp_path / "missing.json", SAMPLES / "refund/run.jsonl", SAMPLES / "broken/skipped_result.jsonl")
    assert done.code == 2
    assert done.stderr == f"turnscope: {tmp_path / 'missing.json'}: cannot read: No such file or directory\n"
    assert ": ok (8 messages" in done.stdout and "tool_use_without_result" in done.stdout


def test_strict_reports_the_weakly_evidenced_rules(cli, tmp_path):
    path = write_json(tmp_path / "r.json", {"messages": [ASK, assistant(text("Hm.")), {"role": "user", "content": [
        {"type": "tool_use", "id": "toolu_01Ab", "name": "x", "input": {}}]}]})
    assert "tool_use_in_user" not in cli("check", path).stdout
    strict = cli("check", "--strict", path)
    assert strict.code == 1 and re.search(r":2\.0: warning tool_use_in_user: ", strict.stdout)


def test_a_bad_jsonl_line_is_a_warning_and_an_error_with_strict(cli, tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in REFUND[:2]) + "\n{broken\n" +
                    "\n".join(json.dumps(m) for m in REFUND[2:]) + "\n")
    done = cli("check", path)
    assert done.code == 0
    assert done.stdout.splitlines()[0] == (f"{path}: warning load: line 3: skipped: invalid JSON: "
                                           "unexpected character, expected a string key")
    strict = cli("check", "--strict", path)
    assert strict.code == 1
    assert strict.stdout.splitlines()[0].startswith(f"{path}: error load: line 3: skipped")


# -- files that cannot be loaded ----------------------------------------------------------------

BAD = {
    "truncated.json": ('{"model": "m", "messages": [{"role": "user", "content": "hi"}', 1, 62),  # just past the end
    "malformed.json": ('{"messages": [\n  {"role": "user", "content": "hi"},,\n]}', 2, 37),  # the second comma
    "unknown.json": ('{"prompt": "hi", "completion": "there"}', 1, 1),
    "text.txt": ("hello there\n", 1, 1),
    "empty.json": ("", 1, 1),
    "blank.jsonl": ("  \n\n", 1, 1),
    "binary.bin": (b"\x00\x01\xff\xfe", 1, 1),
    "native2.json": ('{"turnscope": 2, "messages": []}', 1, 1),
}


@pytest.mark.parametrize("name", BAD)
@pytest.mark.parametrize("verb", ["check", "show", "list", "convert"])
def test_a_file_that_cannot_be_loaded_gives_one_line_and_exit_2(cli, tmp_path, name, verb):
    content, line, col = BAD[name]
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    done = cli(verb, path)
    assert done.code == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"turnscope: {path}:{line}:{col}: ")


@pytest.mark.parametrize("kind", ["missing", "directory", "not a directory"])
def test_a_path_that_cannot_be_read(cli, tmp_path, kind):
    path = {"missing": tmp_path / "nope.json", "directory": tmp_path,
            "not a directory": SAMPLES / "refund/run.jsonl" / "x"}[kind]
    done = cli("show", path)
    assert done.code == 2 and "Traceback" not in done.stderr
    assert re.fullmatch(rf"turnscope: {re.escape(str(path))}: (cannot read: .+|is a directory, not a run file)\n",
                        done.stderr)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_a_file_without_read_permission(cli, tmp_path):
    path = write_json(tmp_path / "secret.json", {"messages": [ASK]})
    path.chmod(0)
    done = cli("check", path)
    assert (done.code, done.stderr) == (2, f"turnscope: {path}: cannot read: Permission denied\n")


def test_error_lines_show_control_characters(cli, tmp_path):
    path = tmp_path / "evil.json"
    path.write_text('{"\\u001b]0;pwned\\u0007": 1}')
    done = cli("check", path)
    assert done.code == 2 and "\x1b" not in done.stderr and "\\x1b]0;pwned\\x07" in done.stderr


# -- several runs in one file -------------------------------------------------------------------

@pytest.fixture
def two_runs(tmp_path):
    return write_json(tmp_path / "runs.json", [REFUND, [REFUND[0], assistant(text("Let me check.")),
                                                         {"role": "user", "content": "Where is it?"}]])


def test_list(cli, two_runs):
    done = cli("list", two_runs)
    assert done.code == 0
    assert done.stdout.splitlines() == [
        f"{two_runs}: 2 runs (messages, reconstructed prefixes)",
        " run  messages  calls  title",
        "   0         8      4  I never got order 4471 and I want my money back.",
        "   1         3      1  I never got order 4471 and I want my money back.",
    ]


def test_run_k_picks_one_everywhere(cli, two_runs):
    assert json.loads(cli("show", two_runs, "--run", "1", "--json").stdout)["messages"] == \
        [REFUND[0], assistant(text("Let me check.")), {"role": "user", "content": "Where is it?"}]
    checked = cli("check", two_runs)
    assert checked.stdout.splitlines()[0].startswith(f"{two_runs}#0: ok")
    assert f"{two_runs}#1:" in checked.stdout
    assert cli("check", two_runs, "--run", "1").stdout.startswith(f"{two_runs}#1: ")
    converted = json.loads(cli("convert", two_runs, "--run", "1").stdout)
    assert len(converted["messages"]) == 3
    missing = cli("show", two_runs, "--run", "2")
    assert missing.code == 2
    assert missing.stderr == f"turnscope: {two_runs}: there is no run 2; the file holds 2 (0..1, see `turnscope list`)\n"


# -- show ---------------------------------------------------------------------------------------

def test_show_text_says_exact_or_reconstructed(cli):
    exact = cli("show", SAMPLES / "refund/request.json", "--at", "5").stdout.splitlines()
    assert exact[1] == "prefix: exact (the request as it was recorded; --json prints it re-serialised)"
    assert exact[2] == "the request for message 5 of 7, sent by model call 3 of 3"
    rebuilt = cli("show", SAMPLES / "refund/run.jsonl", "--at", "5").stdout.splitlines()
    assert rebuilt[1] == "prefix: reconstructed (rebuilt from the run's messages; no request was recorded)"


def test_show_text_sections(cli):
    lines = cli("show", SAMPLES / "refund/run.jsonl", "--at", "5").stdout.splitlines()
    for heading in ("== params ==", "== system ==", "== tools (4) ==", "== messages 0..4 (5) ==",
                    "== message 5: the response to this request (call 3) =="):
        assert heading in lines
    assert 'model: "claude-sonnet-4-5"' in lines and "max_tokens: 1024" in lines
    assert "    tool_use toolu_01Gh issue_refund {\"order_id\":\"4471\",\"amount_cents\":8900}" in lines
    assert lines.index("== message 5: the response to this request (call 3) ==") > lines.index("[4] user (loop)")


def test_show_text_of_a_source_without_system_or_tools(cli):
    lines = cli("show", SAMPLES / "refund/messages.json", "--at", "2").stdout.splitlines()
    assert lines[2] == "messages 0..1: what the loop held when it appended message 2 of 8 (no model call produced it)"
    assert lines[3].startswith("note: this source holds no system prompt and no tool schemas")
    assert lines[5:7] == ["== params ==", "(none recorded)"]
    assert "== message 2: appended by the loop, not a model response ==" in lines


def test_show_marks_a_stored_turn_that_differs_from_the_response(cli):
    out = cli("show", SAMPLES / "broken/rewritten_turn.turnscope.json", "--at", "5").stdout
    assert "[3] assistant (call 2) · stop_reason tool_use · stored turn differs from what the provider returned" in out


def test_show_defaults_to_the_last_request_sent(cli):
    last = cli("show", SAMPLES / "refund/run.jsonl", "--json").stdout
    assert len(json.loads(last)["messages"]) == 7  # the request behind the final response


def test_show_index_out_of_range(cli):
    done = cli("show", SAMPLES / "refund/run.jsonl", "--at", "12")
    assert done.code == 2
    assert done.stderr == ("turnscope: index 12 is out of range: the run has 8 messages (0..7), "
                           "and 8 is the next request\n")


def test_run_text_never_reaches_the_terminal_raw(cli, tmp_path):
    path = write_json(tmp_path / "esc.json", [ASK, assistant(text("\x1b[31mred\x1b[0m \x1b]52;c;cHduZWQ=\x07 \u202egnp"))])
    for args in (("show", path), ("check", "--strict", path), ("list", path)):
        out = cli(*args).stdout
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b[31mred\\x1b[0m \\x1b]52;c;cHduZWQ=\\x07 \\u202egnp" in cli("show", path).stdout


# -- convert ------------------------------------------------------------------------------------

def test_convert_to_stdout_is_the_native_file(cli):
    doc = json.loads(cli("convert", SAMPLES / "refund/run.jsonl").stdout)
    assert doc["turnscope"] == 1 and doc["messages"] == REFUND


def test_convert_refuses_to_overwrite_its_input(cli, tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes((SAMPLES / "refund/run.jsonl").read_bytes())
    before = path.read_bytes()
    for target in (path, tmp_path / "." / "run.jsonl"):
        done = cli("convert", path, "-o", target)
        assert done.code == 2
        assert done.stderr == f"turnscope: {target}: refusing to overwrite the input file\n"
    link = tmp_path / "link.json"
    link.symlink_to(path)
    assert cli("convert", path, "-o", link).code == 2
    assert path.read_bytes() == before


def test_convert_replaces_an_older_output_atomically(cli, tmp_path):
    out = tmp_path / "out.json"
    out.write_text("old")
    out.chmod(0o640)
    assert cli("convert", SAMPLES / "refund/run.jsonl", "-o", out).code == 0
    assert json.loads(out.read_text())["turnscope"] == 1
    assert oct(out.stat().st_mode & 0o777) == oct(0o640)  # the file's mode is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary file left


def test_convert_that_cannot_write_leaves_nothing_behind(cli, tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    done = cli("convert", SAMPLES / "refund/run.jsonl", "-o", target)
    assert done.code == 2 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"turnscope: {target}: cannot write: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_new_output_files_get_the_usual_permissions(cli, tmp_path):
    out = tmp_path / "new.json"
    assert cli("convert", SAMPLES / "refund/run.jsonl", "-o", out).code == 0
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask


def test_show_at_0_and_of_an_empty_run(cli, tmp_path):
    lines = cli("show", SAMPLES / "refund/run.jsonl", "--at", "0").stdout.splitlines()
    assert lines[2] == "nothing came before message 0 of 8: the run starts with it"
    assert "== messages (none) ==" in lines and "== message 0: written by the caller, not a model response ==" in lines
    empty = tmp_path / "header-only.jsonl"
    empty.write_text('{"system": "Be brief."}\n')
    assert cli("show", empty).stdout.splitlines()[2] == "the run holds no messages"
    assert cli("show", empty, "--at", "1").stderr == \
        "turnscope: index 1 is out of range: the run has no messages (0 is its only request)\n"
    assert cli("check", empty).stdout == f"{empty}: error messages_empty: messages must have at least one element\n"


def test_opening_a_file_with_stdout_not_a_terminal_points_to_show_and_starts_no_app(cli):
    from conftest import SAMPLES

    path = SAMPLES / "refund" / "run.jsonl"
    result = cli(str(path))  # stdout is a pipe here
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("turnscope: standard output is not a terminal")
    assert f"`turnscope show {path}`" in result.stderr and len(result.stderr.strip().splitlines()) == 1
