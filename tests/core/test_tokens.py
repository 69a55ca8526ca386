"""Token cost per call and per message: carried cost, growth, recorded usage, exact counts, and the
estimate's measured error against usage the provider recorded."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES
from fake_messages_api import fake_count, serve
from run_files import refund, write_native
from tui.core import estimate
from tui.core.count_tokens import count_body
from tui.core.prefix import request_at
from tui.core.summary import tool_results
from tui.core.tokens import APPORTIONED, ESTIMATED, RECORDED, token_report
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"


def test_carried_cost_of_the_largest_result_is_its_tokens_times_the_later_requests():
    run = open_run(str(REFUND))
    report = token_report(run)
    results = [m for m in report.messages if tool_results(run.messages[m.index])]
    largest = max(results, key=lambda m: m.tokens)
    assert largest.index == 2  # the order row and the shipment: the biggest result of the refund run
    requests_with_it = [c for c in run.calls if c.message > largest.index]  # every later request re-sends it
    later = len(requests_with_it) - 1  # ... after the first one that sent it
    assert later == 2
    assert largest.carried == largest.tokens * later
    assert largest.tokens > 0
    # It leads the carried-cost ranking, ahead of the caller's message sent more often but far smaller.
    assert report.top_carried(1)[0].index == 2


def test_every_request_adds_up_to_fixed_part_plus_what_it_carried_plus_what_it_added():
    run = open_run(str(REFUND))
    report = token_report(run)
    assert report.kinds == {ESTIMATED}
    for c in report.calls:
        body = request_at(run, c.message).body
        assert c.input_tokens == estimate.request_tokens(body)  # the fast path equals a full estimate
        added = sum(report.messages[i].tokens for i in c.added)
        assert abs(c.new - (added if c.call else c.total_input)) <= len(c.added)  # rounding only
    # sum over requests of their input = fixed x calls + sum(message tokens x sends)
    rebuilt = report.fixed * len(report.calls) + sum(m.tokens * m.sends for m in report.messages)
    assert abs(report.total_input - rebuilt) <= len(report.calls) * len(report.messages)
    assert report.calls[1].added == [1, 2] and report.calls[3].added == [5, 6]


def test_recorded_usage_is_used_as_recorded_and_growth_is_apportioned_to_the_added_messages(tmp_path):
    header, messages = refund()
    usage = [(1400, 0, 0, 60), (10, 1400, 1280, 40), (12, 2680, 230, 30), (8, 2910, 160, 50)]
    calls = [{"message": m, "usage": {"input_tokens": a, "cache_read_input_tokens": b,
                                      "cache_creation_input_tokens": c, "output_tokens": d}}
             for m, (a, b, c, d) in zip((1, 3, 5, 7), usage)]
    path = write_native(tmp_path / "recorded.turnscope.json", messages, calls, system=header["system"],
                        tools=header["tools"], params=header["params"])
    report = token_report(open_run(str(path)))
    assert [c.kind for c in report.calls] == [RECORDED] * 4
    assert [c.total_input for c in report.calls] == [1400, 2690, 2922, 3078]
    assert [c.output_tokens for c in report.calls] == [60, 40, 30, 50]
    assert report.calls[1].cache_read_input_tokens == 1400
    assert [c.new for c in report.calls[1:]] == [1290, 232, 156]
    # The added messages are scaled so that they sum to each recorded growth.
    for c in report.calls[1:]:
        assert sum(report.messages[i].tokens for i in c.added) == pytest.approx(c.new, abs=1)
        assert all(report.messages[i].kind == APPORTIONED for i in c.added)
    assert report.fixed_kind == RECORDED


def test_json_has_the_shape_the_issue_gives(cli):
    result = cli("tokens", REFUND, "--json")
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {"calls", "messages"} <= set(doc)
    assert all(set(c) == {"message", "input_tokens", "output_tokens", "cache_read_input_tokens",
                          "cache_creation_input_tokens", "kind"} for c in doc["calls"])
    assert all(set(m) == {"index", "tokens", "carried"} for m in doc["messages"])
    assert [c["kind"] for c in doc["calls"]] == ["estimated"] * 4
    assert [c["message"] for c in doc["calls"]] == [1, 3, 5, 7]


def test_table_marks_estimates_and_names_the_top_carried_message(cli):
    result = cli("tokens", REFUND)
    assert result.code == 0, result.stderr
    assert "~ marks an estimate" in result.stdout
    assert "estimated" in result.stdout
    top = result.stdout.split("largest carried cost")[1].strip().splitlines()[1]
    assert top.lstrip().startswith("message 2:")


def test_exact_counts_go_through_the_sdk_to_count_tokens_and_are_cached(cli, tmp_path):
    env_cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = open_run(str(REFUND))
    with serve() as api:
        first = cli("tokens", REFUND, "--exact", "--json", env={**api.env(), **env_cache})
        assert first.code == 0, first.stderr
        assert len(api.requests) == 4
        assert all(r["path"] == "/v1/messages/count_tokens" for r in api.requests)
        assert all("sk-ant-test-dummy" in (r["headers"].get("x-api-key") or r["headers"].get("authorization", ""))
                   for r in api.requests)  # the SDK's own auth header, with the dummy key
        sent = [r["body"] for r in api.requests]
        assert all("max_tokens" not in body for body in sent)  # only the fields count_tokens takes
        assert sent[2]["messages"] == run.messages[:5] and sent[2]["system"] == run.system
        doc = json.loads(first.stdout)
        expected = [fake_count(count_body(request_at(run, m).body)) for m in (1, 3, 5, 7)]
        assert [c["input_tokens"] for c in doc["calls"]] == expected
        assert {c["kind"] for c in doc["calls"]} == {"exact"}
        assert "4 sent, 0 from the cache" in first.stderr

        again = cli("tokens", REFUND, "--exact", "--json", env={**api.env(), **env_cache})
        assert again.code == 0, again.stderr
        assert len(api.requests) == 4  # nothing new went over the network
        assert "0 sent, 4 from the cache" in again.stderr
        assert json.loads(again.stdout)["calls"] == doc["calls"]
    cached = list((tmp_path / "cache" / "turnscope" / "count_tokens").glob("*.json"))
    assert len(cached) == 4


def test_nothing_is_sent_without_exact(cli, tmp_path):
    with serve() as api:
        result = cli("tokens", REFUND, env={**api.env(), "XDG_CACHE_HOME": str(tmp_path)})
        assert result.code == 0
        assert api.requests == []


def test_count_tokens_refusal_and_missing_key_are_one_line_and_exit_2(cli, tmp_path):
    with serve(status=400) as api:
        refused = cli("tokens", REFUND, "--exact", env={**api.env(), "XDG_CACHE_HOME": str(tmp_path)})
    assert refused.code == 2
    assert refused.stderr.strip().splitlines() == [
        "turnscope: count_tokens refused the request (400): fake refusal"]
    no_key = cli("tokens", REFUND, "--exact", env={"ANTHROPIC_API_KEY": "", "XDG_CACHE_HOME": str(tmp_path)})
    assert no_key.code == 2 and len(no_key.stderr.strip().splitlines()) == 1
    assert "ANTHROPIC_API_KEY" in no_key.stderr


def test_estimates_against_recorded_usage_stay_within_the_documented_error(realruns):
    pytest.importorskip("yaml")
    from scripts import estimate_error

    (requests, outputs), growth = estimate_error.cassette_samples(realruns), estimate_error.growth_samples(realruns)
    bounds = estimate_error.DOCUMENTED
    whole, grown, out = (estimate_error.summary(s) for s in (requests, growth, outputs))
    assert whole["n"] >= 10 and grown["n"] >= 100 and out["n"] >= 5
    assert whole["median"] <= bounds["request_median"] and whole["p90"] <= bounds["request_p90"]
    assert grown["median"] <= bounds["growth_median"] and grown["p90"] <= bounds["growth_p90"]
    assert out["median"] <= bounds["output_median"] and out["p90"] <= bounds["output_p90"]


def test_tokens_shows_the_usage_recorded_in_a_claude_code_transcript_and_a_cassette(cli, realruns):
    """``turnscope tokens`` on real files: the numbers are the provider's usage as the file recorded it,
    read here by hand from the raw lines and the cassette's response bodies."""
    yaml = pytest.importorskip("yaml")
    transcript = realruns / "spotter__tool_heavy.jsonl"
    usage_by_id: dict[str, dict] = {}
    for line in transcript.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "assistant" and not record.get("isSidechain"):
            usage_by_id[record["message"]["id"]] = record["message"]["usage"]  # the last line of an answer wins
    cassette = realruns / "pydanticai__test_multiple_parallel_tool_calls.yaml"
    responses = [i["response"]["parsed_body"]["usage"] for i in yaml.safe_load(cassette.read_text())["interactions"]]
    for path, expected in ((transcript, list(usage_by_id.values())), (cassette, responses)):
        result = cli("tokens", path, "--json")
        assert result.code == 0, result.stderr
        calls = json.loads(result.stdout)["calls"]
        assert [c["kind"] for c in calls] == ["recorded"] * len(expected)
        fields = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        assert [[c[f] for f in fields] for c in calls] == [[u.get(f) or 0 for f in fields] for u in expected]
        text = cli("tokens", path).stdout
        assert "recorded token counts" in text and "~ marks an estimate" not in text


def test_an_ascii_word_costs_what_the_piece_by_piece_count_says():
    """The estimate counts an ASCII word's pieces kind by kind (one regex per kind); it must be the
    number the piece-by-piece walk gives, for every mix of case, digits, punctuation and underscores."""
    import random

    from tui.core import estimate

    rng = random.Random(13)
    alphabet = "aAbZz09_-.,:;{}\"'xyzQWE\x00\x7f"
    for _ in range(5000):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60)))
        assert estimate._ascii_word_pieces(word) == estimate._pieces(word), word
    for word in ("HTTPServer", "parseJSONResponse", "cus_8123", "2024-05-20", "aaaaaaaaaaaaaaa", "___", "{\"id\":"):
        assert estimate._ascii_word_pieces(word) == estimate._pieces(word), word


def test_long_ascii_text_costs_what_the_piece_by_piece_count_says():
    """Text of LONG_TEXT characters or more is costed by bit sets over the whole string (letters cut at case
    changes, runs of digits, punctuation and underscores, whitespace runs with and without newlines): the
    same number as the piece-by-piece walk, including runs too long for the bit-set levels."""
    import random

    from tui.core import estimate

    rng = random.Random(13)
    alphabet = "aAbZzqQ09_-.,:;{}\"' \n\t\r\x0b\x1c\x00\x7f"
    chunks = ["aaaa", "AAAA", "HTTPServer", "parseJSON", "0000", " ", "  ", "\n", "\n    ", ".", "_", "x" * 200,
              "9" * 120, "-" * 80, "_" * 150, " " * 40, "\t", "2026-04-10T19:57:44Z", "order_id"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        assert estimate._class_pieces(text.encode()) == estimate._pieces(text), text
        assert estimate._python_text_tokens(text) == estimate._pieces(text) * estimate.SCALE
    for _ in range(500):
        text = "".join(rng.choice(chunks) for _ in range(rng.randrange(0, 300)))
        assert estimate._ascii_pieces(text) == estimate._pieces(text), text
    for n in range(1, 160):  # every run length, below and past the bit-set levels
        for run in ("a" * n, "Ab" * (n // 2) + "A", "Q" * n + "rs", "7" * n, "." * n, "_" * n, " " * n, "\t" * n):
            text = f"x {run} y\n{run}\n  {run}" + " pad" * 80
            assert estimate._ascii_pieces(text) == estimate._pieces(text), (n, run)
