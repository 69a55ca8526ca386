"""Tracing every tool turn searches the prefix once for all the values no message holds by key
(``PrefixText.prefetch``, ``Provenance.prefetch``); what each search answers must be what a search of
each value alone answers, however the values overlap each other in the text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.core.prefixtext import PrefixText
from tui.core.provenance import Provenance
from tui.core.view.background import tool_turns
from tui.formats import open_run

REALRUNS = Path(__file__).resolve().parents[3] / "shared" / "realruns"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"

ALPHABET = "ab1_-= ."


def texts_of(strings: list[list[str]]) -> PrefixText:
    text = PrefixText()
    for i, message in enumerate(strings):
        for k, s in enumerate(message):
            text.append(i, k, ".text", s)
    text.flush()
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.text(ALPHABET, max_size=12), min_size=1, max_size=3), min_size=1, max_size=6),
       st.lists(st.text(ALPHABET, min_size=1, max_size=5), min_size=1, max_size=8),
       st.data())
def test_prefetched_searches_answer_what_one_search_each_answers(messages, needles, data):
    alone, together = texts_of(messages), texts_of(messages)
    together.prefetch(needles)
    for needle in needles:
        for before in data.draw(st.lists(st.integers(0, len(messages)), min_size=1, max_size=3)):
            assert together.find(needle, before) == alone.find(needle, before), (needle, before)


def test_a_value_hidden_inside_a_longer_match_is_still_found():
    text = texts_of([["x ab-c y"], ["ab"]])
    text.prefetch(["ab-c", "ab", "b-c"])  # the regex matches ab-c: ab and b-c occur inside it
    alone = texts_of([["x ab-c y"], ["ab"]])
    for needle in ("ab", "b-c", "ab-c"):
        assert text.find(needle, 2) == alone.find(needle, 2)
    assert text.find("ab", 2) == (0, 2, 4)  # "x ab-c y": bounded by the space and the hyphen
    assert text.find("b-c", 2) is None  # "a" before it continues it


def runs() -> list[Path]:
    found = sorted(p for p in REALRUNS.rglob("*.jsonl") if p.stat().st_size < 3_000_000)[:12]
    return found + sorted(SAMPLES.glob("*.jsonl"))


def test_every_trace_of_real_runs_is_the_same_with_the_prefix_searched_once():
    checked = 0
    for path in runs():
        try:
            run = open_run(str(path))
        except Exception:  # noqa: BLE001 - not every file there is a run of this format
            continue
        turns = list(tool_turns(run))
        once, each = Provenance(run), Provenance(run)
        once.prefetch(turns)
        assert [once.trace(n) for n in turns] == [each.trace(n) for n in turns], path
        checked += bool(turns)
    assert checked >= 3
