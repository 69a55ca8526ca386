"""The value index finds its tokens with a few C-level regex calls and places only the tokens it has not
seen; a trace must still name exactly the place a plain left-to-right walk of every token would: the
first string, and the first position in it. These tests hold the index to that walk (written out here
as the reference), and its search of the prefix's text to a plain scan of one joined string."""

from __future__ import annotations

import bisect

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.core import prefixtext
from tui.core.valueindex import COARSE, FINE, GROUPED, index_messages, number_key


def reference_tokens(text: str) -> list[tuple[str, int]]:
    """Every token of ``text`` in the order a walk registers them: each COARSE match, then the word
    runs inside it when it is joined by ``- . @ / : +``."""
    out = []
    for match in COARSE.finditer(text):
        out.append((match.group(), match.start()))
        if not FINE.fullmatch(match.group()):
            out += [(fine.group(), match.start() + fine.start()) for fine in FINE.finditer(match.group())]
    return out


def reference_places(texts: list[str]) -> dict[tuple[str, object], tuple]:
    """First place of every key over plain-text messages, walking every token of every string."""
    keys: dict[tuple[str, object], tuple] = {}

    def put(key, place):
        keys.setdefault(key, place)

    for i, text in enumerate(texts):
        put(("s", text), (i, None, None, "value"))
        if (number := number_key(text)) is not None:
            put(number, (i, None, None, "value"))
        for token, start in reference_tokens(text):
            put(("s", token), (i, start, start + len(token), "token"))
            if token[0].isdigit() and (number := number_key(token)) is not None:
                put(number, (i, start, start + len(token), "token"))
        for match in GROUPED.finditer(text):
            if (number := number_key(match.group().replace(",", ""))) is not None:
                put(number, (i, match.start(), match.end(), "token"))
    return keys


_TEXT = st.text(alphabet="ab1_-./:@, 9\u00e9\u00b2x=\t\x1c\u3000", max_size=24)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_TEXT, min_size=1, max_size=8))
def test_every_key_has_the_place_a_walk_of_every_token_gives(texts):
    scope = index_messages([{"role": "user", "content": text} for text in texts])
    expected = reference_places(texts)
    got = {}
    for text, place in scope.strings.items():
        got[("s", text)] = (place.index, place.start, place.end, place.how)
    for number, place in scope.numbers.items():
        got[("n", number)] = (place.index, place.start, place.end, place.how)
    assert got == expected


def test_a_log_of_new_tokens_on_every_line_places_each_where_it_first_appears():
    lines = [f"2026-04-{d:02d}T10:{d:02d}:00Z INFO order={4400 + d} shipped, id re_{d}x" for d in range(1, 29)]
    text = "\n".join(lines)
    scope = index_messages([{"role": "user", "content": "order 4401 late"}, {"role": "user", "content": text}])
    for d in (1, 17, 28):
        stamp = f"2026-04-{d:02d}T10:{d:02d}:00Z"
        place = scope.strings[stamp]
        assert (place.index, place.start) == (1, text.index(stamp))
        assert text[place.start:place.end] == stamp
    assert scope.strings["4401"].index == 0  # first seen in the caller's message, not in the log
    assert scope.numbers[4428].start == text.index("4428")


def plain_scan(texts: list[str], needle: str, before: int) -> tuple[int, int] | None:
    """The search as one joined string: the first bounded occurrence before message ``before``."""
    joined = prefixtext.SEPARATOR.join(texts)
    offsets, at = [], 0
    for text in texts:
        offsets.append(at)
        at += len(text) + 1
    end = offsets[before] - 1 if before < len(texts) else len(joined)
    at = 0
    while (at := joined.find(needle, at, max(end, 0))) >= 0:
        if prefixtext.bounded(joined, at, at + len(needle), needle):
            k = bisect.bisect_right(offsets, at) - 1
            return k, at - offsets[k]
        at += 1
    return None

def assert_scans_as_one_string(texts: list[str], needles: list[str]) -> None:
    """Each needle, before every message, found where a scan of the texts as one joined string finds it."""
    scope = index_messages([{"role": "user", "content": text} for text in texts])
    for before in range(len(texts) + 1):
        for needle in needles:
            place = scope.scan(needle, before)
            assert (None if place is None else (place.index, place.start)) == plain_scan(texts, needle, before)



@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(alphabet="ab c1-\x00é", max_size=30), min_size=1, max_size=8),
       needles=st.lists(st.text(alphabet="ab c1-\x00é", min_size=1, max_size=6), min_size=1, max_size=5),
       chunk=st.sampled_from([1, 7, 1 << 22]), alone=st.sampled_from([3, 9, 1 << 16]))
def test_searching_chunks_again_and_again_finds_what_one_joined_string_does(texts, needles, chunk, alone,
                                                                            monkeypatch):
    """Chunk edges, long strings kept apart, the memory of earlier searches and a growing ``before``
    never change a result."""
    monkeypatch.setattr(prefixtext, "CHUNK", chunk)
    monkeypatch.setattr(prefixtext, "ALONE", alone)
    assert_scans_as_one_string(texts, needles)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(_TEXT, min_size=1, max_size=8), few=st.sampled_from([0, 1, 3]), tries=st.sampled_from([0, 1]))
def test_splitting_a_string_or_finding_each_new_token_places_every_key_alike(texts, few, tries, monkeypatch):
    """A string with many new tokens is split into all its tokens, one with a few has each found with
    ``str.find`` (stepping over occurrences inside longer tokens, up to a limit): both give the walk's places."""
    from tui.core import valueindex

    monkeypatch.setattr(valueindex, "FEW", few)
    monkeypatch.setattr(valueindex, "FIND_TRIES", tries)
    scope = index_messages([{"role": "user", "content": text} for text in texts])
    got = {("s", text): (p.index, p.start, p.end, p.how) for text, p in scope.strings.items()}
    got.update({("n", number): (p.index, p.start, p.end, p.how) for number, p in scope.numbers.items()})
    assert got == reference_places(texts)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(alphabet="ab c1-\x00é", max_size=30), min_size=1, max_size=8),
       needles=st.lists(st.text(alphabet="ab c1-\x00é", min_size=1, max_size=6), min_size=1, max_size=5),
       shared=st.sampled_from([1, 4, 1 << 16]))
def test_the_runs_own_strings_kept_as_chunks_of_their_own_find_what_one_joined_string_does(texts, needles, shared,
                                                                                           monkeypatch):
    """A message's own string (not a parsed copy) is kept as a chunk by itself from ``SHARED`` characters on,
    not copied into a joined one: every search finds what a scan of one joined string finds."""
    monkeypatch.setattr(prefixtext, "SHARED", shared)
    assert_scans_as_one_string(texts, needles)
