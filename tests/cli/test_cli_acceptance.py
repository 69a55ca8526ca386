"""Acceptance findings on the command line: what a user typed and saw, held so it stays fixed.

Each test names the defect it guards against; they run the CLI in a fresh process as a user does.
"""

from conftest import SAMPLES
from fake_messages_api import serve

REFUND = SAMPLES / "refund" / "run.jsonl"


def test_a_negative_index_out_of_range_is_named_as_typed(cli):
    # `show --at -99` on an 8-message run said "index -91 is out of range": a number the user never typed
    for verb in ("show", "trace", "account"):
        done = cli(verb, REFUND, "--at", "-99")
        assert done.code == 2 and done.stdout == ""
        assert done.stderr == ("turnscope: index -99 is out of range: the run has 8 messages (0..7), "
                               "and 8 is the next request; -1..-8 count back\n"), verb


def test_list_honours_run_and_refuses_one_the_file_lacks(cli, realruns):
    # `list FILE --run 200` on tau-bench's 200 runs listed all of them and exited 0
    taubench = realruns / "taubench__gpt-4o-airline.json"
    missing = cli("list", taubench, "--run", "200")
    assert missing.code == 2 and missing.stdout == ""
    assert missing.stderr == (f"turnscope: {taubench}: there is no run 200; the file holds 200 "
                              "(0..199, see `turnscope list`)\n")
    one = cli("list", taubench, "--run", "7")
    assert one.code == 0
    assert one.stdout.splitlines()[2:] == ["   7        25     12  task 7 · trial 0 · reward 0.0"]


def test_table_rows_stay_within_80_columns(cli, realruns):
    # tokens' "largest carried cost" rows listed every block of a message (447 columns on a subagent
    # run), and list's title column ran to 105: at 80 columns each row wrapped into the next
    subagent = realruns / "spotter__4d5611e5-241a-462a-8d15-5122611a9569__subagents__agent-a2898e3.jsonl"
    tokens = cli("tokens", subagent).stdout.splitlines()
    ranked = tokens[tokens.index("largest carried cost (tokens x the later requests that sent it again):") + 1:]
    assert len(ranked) == 5
    assert all(len(row) <= 80 for row in ranked), max(ranked, key=len)
    assert ranked[0].startswith("  message 6: 38,720 x 8 = 309,760  (apportioned) result toolu_01Tex9")
    assert ranked[0].endswith("…")
    rows = cli("list", realruns / "ccviewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl").stdout.splitlines()[2:]
    assert len(rows) == 6 and all(len(row) <= 80 for row in rows), max(rows, key=len)
    assert rows[1] == "   1        18      9  subagent: Create React components for the TODO app in a …"


def test_exact_counts_mark_the_output_as_estimated(cli, tmp_path):
    # `tokens --exact` printed each call's output (an offline estimate: count_tokens counts the request,
    # never the answer) without the `~` every other estimate carries, on a row marked "exact"
    with serve() as api:
        done = cli("tokens", REFUND, "--exact", env={**api.env(), "XDG_CACHE_HOME": str(tmp_path)})
    assert done.code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "~ marks an estimate: count_tokens counts the input only, so the output is estimated" in lines
    rows = [line.split() for line in lines if line.endswith("  exact")]
    assert len(rows) == 4
    for row in rows:  # call msg input cache-rd cache-wr output carried new kind
        assert not row[2].startswith("~") and row[5].startswith("~"), row
    total = next(line.split() for line in lines if line.lstrip().startswith("total"))
    assert not total[1].startswith("~") and total[4].startswith("~")


def test_verb_help_reads_at_80_columns_without_source_markup(cli):
    # `turnscope check --help` printed the docstring raw: ``FILE:INDEX[.BLOCK]...`` with its
    # reStructuredText marks, in lines of 90 characters that wrapped mid-word at 80 columns
    for verb in ("check", "show", "tokens", "trace", "account", "stats", "diff", "branch", "convert", "list",
                 "record", "export"):
        done = cli(verb, "--help", env={"COLUMNS": "80"})
        assert done.code == 0
        assert "``" not in done.stdout and "**" not in done.stdout, verb
        # every line: the usage, the description and the argument lists (the branch usage's
        # experiment form ran to 85 columns)
        long = [line for line in done.stdout.splitlines()
                if len(line) > 80 and " " in line.strip()]  # one long word (a JSON schema) may overrun
        assert long == [], (verb, long)
    check = cli("check", "--help", env={"COLUMNS": "80"}).stdout
    assert "Text: FILE:INDEX[.BLOCK]: error|warning RULE: message (request-level findings\nhave no index)" in check


def test_unknown_format_says_what_the_file_is(cli, tmp_path):
    # a file holding `null` was refused as "not JSON (it starts with 'null')", and a UTF-16 file's BOM
    # showed as two replacement marks that hid which bytes they were
    scalar = tmp_path / "scalar.json"
    scalar.write_bytes(b"null\n")
    done = cli("check", scalar)
    assert done.code == 2 and done.stderr.startswith(f"turnscope: {scalar}:1:1: unknown format: a JSON value "
                                                     "that is null; turnscope reads native, ")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    done = cli("show", binary)
    assert done.code == 2 and len(done.stderr.splitlines()) == 1
    assert "unknown format: not JSON (it starts with '\\x89PNG\\x0d\\n\\x1a\\n\\x00\\x00')" in done.stderr
    assert "\ufffd" not in done.stderr


def test_a_utf16_file_is_named_as_such(cli, tmp_path):
    # a run saved as UTF-16 (Windows "Unicode") was "not JSON (it starts with '\xff\xfe{\x00"\x00s...')"
    utf16 = tmp_path / "run.jsonl"
    utf16.write_bytes(REFUND.read_text(encoding="utf-8").encode("utf-16"))
    done = cli("check", utf16)
    assert (done.code, done.stdout) == (2, "")
    assert done.stderr == (f"turnscope: {utf16}:1:1: this file is UTF-16 text (it starts with a UTF-16 "
                           "byte-order mark); turnscope reads UTF-8: convert it first (e.g. iconv -f UTF-16 "
                           "-t UTF-8)\n")


def test_account_closes_the_quote_of_a_value_it_cuts_short(cli, realruns):
    # the third sentence quoted a long unsourced value as `"xterm.js scroll not working …,` : the quote
    # never closed, so the reader could not tell where that value ended and the next began
    done = cli("account", realruns / "spotter__tool_heavy.jsonl", "--at", "5")
    assert done.code == 0
    # (the query is words the model wrote, not flagged; the session recorded no system prompt or tools,
    # so an unfound value is "not found in the messages", never "produced by the model")
    assert ('"assets/js/**/*.js" is not found in the messages (the system prompt and tools were not '
            "recorded)") in done.stdout
    assert "produced by the model" not in done.stdout


def test_stats_on_one_run_speaks_of_one_run(cli):
    # `stats` on a single run explained its cap as "over the 1 runs that ended ... 0 of the 1 runs"
    done = cli("stats", "--json", REFUND)
    assert done.code == 0
    assert '"cap_rule":"p99 of model calls over the 1 run that ended with end_turn is 4; x1.25 headroom, ' \
           'rounded up: 5. It would have stopped 0 of the 1 run."' in done.stdout


def test_stats_names_a_run_file_in_a_folder_that_failed_to_load(cli, tmp_path):
    # a truncated run file under a folder was counted with the READMEs as "skipped: not runs": the
    # figures silently lacked its runs
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(REFUND.read_bytes())
    (folder / "cut.json").write_bytes((SAMPLES / "refund" / "request.json").read_bytes()[:3000])
    (folder / "NOTES.txt").write_text("not a run\n")
    done = cli("stats", folder)
    assert done.code == 0
    assert done.stdout.splitlines()[:3] == [
        "1 run in 1 file (1 other file skipped: not runs)",
        "1 file could not be loaded (their runs are not counted):",
        f"  {folder / 'cut.json'}:4:2945: invalid JSON: unexpected end of data"]
    assert cli("stats", "--json", folder).stdout.rstrip().endswith('"files":3,"skipped":2,"broken":1}')


def test_resume_of_a_file_that_is_no_branch_says_so_plainly(cli, tmp_path):
    # `branch --resume` on the run itself (not its branch) answered "run.jsonl:2:1: invalid JSON: unexpected
    # content after document", and on a request body "unsupported native version None"
    hint = "not a branch file (one turnscope run with lineage, written by `turnscope branch`)"
    for path in (REFUND, SAMPLES / "refund" / "request.json"):
        done = cli("branch", "--resume", path, env={"ANTHROPIC_API_KEY": "unused", "XDG_DATA_HOME": str(tmp_path)})
        assert (done.code, done.stdout, done.stderr) == (2, "", f"turnscope: {path}: {hint}\n")


def test_trace_and_diff_close_the_quote_of_a_value_they_cut_short(cli, realruns):
    # trace and diff printed long strings as `"tail -5 /tmp/claude-1000/-home-marco-p…  NOT IN ...` and
    # `"Your order hasn't moved since 21 April, so I've … -> "I'm sorry...`: no closing quote
    trace = cli("trace", realruns / "spotter__tool_heavy.jsonl", "--at", "3").stdout
    assert '    .command = "tail -5 /tmp/claude-1000/-home-marco-…"  (words the model wrote: not flagged)' \
        in trace.splitlines()
    diff = cli("diff", REFUND, SAMPLES / "invented_order_id.jsonl").stdout
    assert ('[7.0] text_changed .text: "Your order hasn\'t moved since 21 April, so I\'ve…" -> '
            '"I\'m sorry, I couldn\'t issue the refund just now…"') in diff.splitlines()


def test_tokens_top_zero_leaves_the_section_out_and_a_negative_top_is_refused(cli):
    # `--top 0` claimed "(none: no message was sent more than once)" of the refund run, where every
    # message is sent again; `--top -2` listed all but the last two of the ranking
    zero = cli("tokens", REFUND, "--top", "0")
    assert zero.code == 0 and "largest carried cost" not in zero.stdout and "(none:" not in zero.stdout
    assert zero.stdout.splitlines()[-1] == "  call 4: ~+88 from messages 5 (~43), 6 (~46)"
    negative = cli("tokens", REFUND, "--top", "-2")
    assert (negative.code, negative.stdout, negative.stderr) == (2, "", "turnscope: --top must be 0 or more (got -2)\n")
    one = cli("tokens", REFUND, "--top", "1").stdout.splitlines()
    assert one[-2] == "largest carried cost (tokens x the later requests that sent it again):"
    assert one[-1].startswith("  message 2: ~90 x 2 = 180  (estimated) ")


def test_tokens_marks_an_estimated_growth_as_an_estimate(cli, realruns):
    # "call 2: +173 from messages 1 (~83), 2 (~90)": the growth of an estimated request went unmarked
    # while the table above showed the same number as ~173
    lines = cli("tokens", REFUND).stdout.splitlines()
    assert "  call 2: ~+173 from messages 1 (~83), 2 (~90)" in lines
    assert "   2    3     ~1,985         0         0     ~47    ~1,812     ~173  estimated" in lines
    recorded = cli("tokens", realruns / "spotter__tool_heavy.jsonl").stdout.splitlines()
    assert "  call 2: +206 from messages 1 (98), 2 (108)" in recorded


def test_tokens_names_which_run_of_a_multi_run_file_it_reports(cli, realruns):
    # show headed run 1 of a session "FILE#1", tokens headed it "FILE": the figures looked like the main thread's
    session = realruns / "ccviewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    first = cli("tokens", session, "--run", "1").stdout.splitlines()[0]
    assert first == f"{session}#1 · 3 model calls · recorded token counts"
    assert cli("show", session, "--run", "1").stdout.startswith(f"{session}#1 · ")


def test_diff_names_the_runs_it_compares(cli, realruns):
    # `diff T T --run-b 50` on tau-bench headed both sides with the same bare file name
    taubench = realruns / "taubench__gpt-4o-airline.json"
    done = cli("diff", taubench, taubench, "--run-b", "50")
    assert done.code == 1
    assert done.stdout.splitlines()[:2] == [f"A {taubench}#0 (31 messages)", f"B {taubench}#50 (25 messages)"]


def test_show_lists_a_tool_without_description_without_a_dangling_colon(cli, realruns):
    # "- get_user_country: " ended in a colon and a trailing space, as if the description were lost
    lines = cli("show", realruns / "pydanticai__test_anthropic_tool_with_thinking.yaml").stdout.splitlines()
    assert lines[lines.index("== tools (1) ==") + 1] == "- get_user_country"


def test_a_mistyped_verb_is_named_as_such(cli, tmp_path):
    # `turnscope chekc FILE` answered "unrecognized arguments: FILE": the typo was read as a file to open
    done = cli("chekc", REFUND)
    assert (done.code, done.stdout) == (2, "")
    assert done.stderr == ("turnscope: unknown verb 'chekc' (did you mean `turnscope check`?); the verbs are "
                           "check, show, list, convert, tokens, trace, account, stats, diff, branch, record, export, and "
                           "`turnscope FILE` opens the stepper\n")
    assert "unknown verb 'inspect';" in cli("inspect", REFUND).stderr
    missing = cli("runs.json")  # a file name is still a file to open
    assert missing.stderr == "turnscope: runs.json: cannot read: No such file or directory\n"


def test_tokens_does_not_say_a_source_recorded_no_usage_when_it_recorded_some(cli):
    # a trace log whose refused call has no usage (the others recorded theirs) was headed
    # "~ marks an estimate: this source recorded no usage"
    trace = SAMPLES.parent / "tests" / "fixtures" / "claude_trace" / "session.jsonl"
    lines = cli("tokens", trace).stdout.splitlines()
    assert lines[1] == '~ marks an estimate: the calls with no recorded usage (error measured in README, "Tokens")'
    assert cli("tokens", REFUND).stdout.splitlines()[1] == \
        '~ marks an estimate: this source recorded no usage (error measured in README, "Tokens")'
