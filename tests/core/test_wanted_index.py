"""The index of only the wanted values (``tui.core.wanted``) must give every wanted key the place the full
value index gives it, and every wanted string the text occurrence the full index's search finds, before
every message: it skips strings and words, and looks for text only where a value's anchor is a token."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.core import wanted as wanted_module
from tui.core.provenance import Provenance
from tui.core.valueindex import COARSE, FINE, index_messages
from tui.core.values import number_key
from tui.core.view.background import tool_turns
from tui.core.wanted import index_wanted
from tui.formats import open_run

_ALPHABET = "ab1_-./:@, 9\u00e9x=\t\x00{}[]\"0"
_TEXT = st.text(alphabet=_ALPHABET, max_size=24)
_PLAIN = st.text(alphabet="ab xAB\n", max_size=24)


def _values(texts: list[str], extra: list) -> list:
    """Values a tool call might hold: tokens and word runs of the texts, pieces of them, and others."""
    out = list(extra)
    for text in texts:
        out += COARSE.findall(text) + FINE.findall(text)
        out += [text, text[1:4], text[:6], text.strip()]
        out += [number[1] for t in COARSE.findall(text) if (number := number_key(t)) is not None]
    return [v for v in out if not (isinstance(v, str) and len(v) < 2)]


def _same(texts: list, values: list) -> None:
    messages = [{"role": "user", "content": text} if isinstance(text, str) else
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": text}]}
                for text in texts]
    full = index_messages(messages)
    got = index_wanted(messages, values)
    for value in values:
        keys = ([("s", value)] if isinstance(value, str) else []) + [k for k in [number_key(value)] if k]
        for key in keys:
            assert got.get(key) == full.get(key), (key, texts)
        if isinstance(value, str):
            for before in range(len(messages) + 1):
                assert got.search(value, before) == full.search(value, before), (value, before, texts)
    assert got._full is None  # every question was about a wanted value: the full index was never built


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_TEXT, min_size=1, max_size=8),
       extra=st.lists(st.one_of(_TEXT, st.integers(-20, 2000), st.sampled_from([9.0, 1.5, 0.5, 10.0])), max_size=6))
def test_every_wanted_value_has_the_place_and_text_the_full_index_gives(texts, extra):
    _same(texts, _values(texts, extra))


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.one_of(_PLAIN, _TEXT), min_size=1, max_size=8),
       extra=st.lists(st.one_of(_PLAIN, _TEXT), max_size=6), few=st.sampled_from([0, 1, 16]))
def test_plain_strings_skipped_or_searched_keep_every_place(texts, extra, few, monkeypatch):
    """Strings of letters and whitespace are skipped unless a value still sought could be in them (looked
    for one by one up to ``PLAIN_FEW`` values, else the string's words are examined): the places stand."""
    monkeypatch.setattr(wanted_module, "PLAIN_FEW", few)
    _same(texts, _values(texts, extra))


def test_json_text_and_numbers_in_any_form_are_placed_as_the_full_index_places_them():
    texts = ['[{"total_cents": 8900, "id": "re_9d2", "note": "refund 8,900 for order=4471"}]',
             "paid 8900.00 on 2024-05-20 for cus_8123", '{"a": {"b": "[1, \\"x-4471\\"]"}}',
             "order=4471 and 4471.0", "nothing here"]
    values = [8900, 8900.0, "8900", "re_9d2", "order=4471", 4471, "4471", "2024-05-20", "05", "cus_8123",
              "x-4471", "refund 8,900", "for order", "absent", "made_up_1", 12345, "=4471 and"]
    _same(texts, values)
    _same([[{"type": "text", "text": t}] for t in texts], values)


REALRUNS = Path(__file__).resolve().parents[3] / "shared" / "realruns"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def test_every_trace_of_real_runs_is_the_one_the_full_index_gives():
    checked = 0
    for path in sorted(p for p in REALRUNS.rglob("*") if p.is_file() and p.stat().st_size < 3_000_000) \
            + sorted(SAMPLES.rglob("*.json*")):
        try:
            run = open_run(str(path))
        except Exception:  # noqa: BLE001 - not every file there is a run
            continue
        turns = list(tool_turns(run))
        wanted, full = Provenance(run), Provenance(run)
        full._messages = index_messages(run.messages)  # the full index answers the same questions
        assert [wanted.trace(n) for n in turns] == [full.trace(n) for n in turns], path
        assert wanted.messages._full is None, path  # no question fell back to the full index
        checked += bool(turns)
    assert checked >= 10
