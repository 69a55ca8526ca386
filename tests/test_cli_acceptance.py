"""Acceptance findings on the command line: what a user typed and saw, held so it stays fixed.

Each test names the defect it guards against; they run the CLI in a fresh process as a user does.
"""

from conftest import SAMPLES

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
