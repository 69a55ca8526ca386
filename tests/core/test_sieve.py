"""The sieve (``tui.core.sieve``) lets the wanted index skip a message only where walking it would place
nothing: with it the wanted index still gives every wanted key the full index's place, however the JSON
text spells a value (escapes, ``\\uXXXX``, ``\\/``, exponents, decimals that round), and it does skip a
message that holds none of the values still sought."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.core import sieve as sieve_module
from tui.core.sieve import Sieve
from tui.core.valueindex import COARSE, FINE, index_messages
from tui.core.values import number_key
from tui.core.wanted import WantedScope, index_wanted

_ALPHABET = "ab1_-./:@, 9\u00e9x=\t\n\\\"0ne"
_TEXT = st.text(alphabet=_ALPHABET, max_size=20)
_NUMBER_TEXT = st.sampled_from(["4471", "4.471e3", "4471E0", "4470.9999999", "4471.0000001", "4,471", "-4471",
                                "4471.5", "0.5", "5e-05", "1e+16", "12.50", "447", "44710", "x4471", "4471x"])


def _values(texts: list[str]) -> list:
    out = [4471, 4471.0, 4471.5, 0.5, 5e-05, 1e16, 12.5, 447, "4471", "n4471"]
    for text in texts:
        out += COARSE.findall(text) + FINE.findall(text) + [text, text[1:4], text.strip()]
        out += [number[1] for t in COARSE.findall(text) if (number := number_key(t)) is not None]
    return [v for v in out if not (isinstance(v, str) and len(v) < 2)]


def _same(messages: list, values: list) -> None:
    full = index_messages(messages)
    got = index_wanted(messages, values)
    for value in values:
        keys = ([("s", value)] if isinstance(value, str) else []) + [k for k in [number_key(value)] if k]
        for key in keys:
            assert got.get(key) == full.get(key), (key, messages)
        if isinstance(value, str):
            for before in range(len(messages) + 1):
                assert got.search(value, before) == full.search(value, before), (value, before, messages)


def _spelled(obj: object, ascii_only: bool, slashes: bool) -> str:
    text = json.dumps(obj, ensure_ascii=ascii_only)
    return text.replace("/", "\\/") if slashes else text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.one_of(_TEXT, _NUMBER_TEXT), min_size=1, max_size=6),
       shapes=st.lists(st.sampled_from(["text", "json", "json-ascii", "json-slashes", "raw-number", "nested"]),
                       min_size=1, max_size=6))
def test_wanted_places_stand_with_the_sieve_however_the_json_text_spells_them(texts, shapes):
    messages = []
    for k, text in enumerate(texts):
        shape = shapes[k % len(shapes)]
        if shape == "text":
            content = text
        elif shape == "raw-number":  # a number literal as the tool wrote it, inside JSON text
            content = f'[{{"n": {text}}}]' if number_key(text.replace(",", "")) or "e" in text.lower() else \
                _spelled([text], False, False)
        elif shape == "nested":
            content = _spelled({"inner": _spelled([text, {"k": text}], True, False)}, False, False)
        else:
            content = _spelled([{"note": text, text: 1}], shape == "json-ascii", shape == "json-slashes")
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": content}]})
    _same(messages, _values(texts))


def _sieve(values: list) -> Sieve:
    return Sieve(WantedScope(values, lambda: None))


def _result(content: str) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": content}]}


def test_a_message_without_any_value_sought_is_skipped_and_one_with_a_value_is_not():
    sieve = _sieve(["cus_8123", 4471, "order=4471"])
    assert not sieve.needs(_result("2026-04-12T13:45:12Z INFO svc=orders order=4472 parcel late"))
    assert not sieve.needs(_result("44710 x4471 cus_81234"))  # the values occur, but not bounded
    assert sieve.needs(_result("line\n4471 shipped"))  # after an escape
    assert sieve.needs(_result('[{"id": "cus_8123"}]'))
    assert sieve.needs(_result("refund 4,471 cents"))  # a grouped number


def test_a_number_whose_digits_do_not_show_makes_its_message_walked():
    sieve = _sieve([4471])
    for spelled in ('[{"n": 4.471e3}]', '[{"n": 4470.9999999999999}]', '["\\u0034471"]'):
        assert sieve.needs(_result(spelled)), spelled
    assert not sieve.needs(_result('[{"n": 4472.5}, "toolu_01233e5abc"]'))  # an id is no exponent


def test_a_value_spelled_in_a_way_the_json_text_hides_is_placed_where_the_full_index_places_it():
    cases = [("café_1", '["caf\\u00e9_1"]'), ("a/b_1", '["a\\/b_1"]'), ("new_4471", "C:\\new_4471"),
             ("tab_9", "x\\tab_9"), (4471, '[{"n": 4.471e3}]'), (4471, "[4470.9999999999999]"),
             ("x 4471", '["x\\n4471", "x 4471"]'), (4471, "line\n4471")]
    for value, content in cases:
        messages = [_result("nothing here"), _result(content), _result("the end")]
        full = index_messages(messages)
        key = ("s", value) if isinstance(value, str) else number_key(value)
        assert full.get(key) is not None or full.search(value, None) is not None, value  # the case holds it
        _same(messages, [value])


def _block(text: str, shape: str) -> dict:
    if shape == "text":
        return {"type": "text", "text": text}
    if shape == "tool_use":
        return {"type": "tool_use", "id": "toolu_1", "name": "step", "input": {"a": text, "b": [text, 1]}}
    if shape == "nested":
        return {"type": "tool_result", "tool_use_id": "t",
                "content": _spelled({"inner": _spelled([text, {"k": text}], True, False)}, False, False)}
    if shape == "blocks":
        return {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": text}]}
    return {"type": "tool_result", "tool_use_id": "t",
            "content": _spelled([{"note": text, text: 1}], shape == "json-ascii", shape == "json-slashes")}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.one_of(_TEXT, _NUMBER_TEXT), min_size=1, max_size=8),
       shapes=st.lists(st.sampled_from(["text", "tool_use", "nested", "blocks", "json", "json-ascii",
                                        "json-slashes"]), min_size=1, max_size=8),
       per=st.integers(1, 4), repeat=st.booleans())
def test_wanted_places_stand_when_the_sieve_rules_out_strings_of_a_message_it_walks(texts, shapes, per, repeat):
    """A message the sieve lets through has its strings asked one by one (``Sieve.holds``): those ruled out
    are not walked, and a short one is remembered as ruled out (fewer keys are sought later, never more).
    Several strings per message, spelled every way, the same ones again in later messages: the places stand."""
    blocks = [_block(text, shapes[k % len(shapes)]) for k, text in enumerate(texts)]
    messages = [{"role": "user", "content": blocks[k:k + per]} for k in range(0, len(blocks), per)]
    if repeat:
        messages += [{"role": "assistant", "content": list(reversed(blocks))}, *messages]
    _same(messages, _values(texts))


def test_a_string_that_holds_no_value_sought_is_ruled_out_and_one_that_holds_one_is_not():
    sieve = _sieve(["cus_8123", 4471, "order=4471"])
    assert not sieve.holds("toolu_0123abc search_orders 44710")
    assert sieve.holds("paid by cus_8123")
    assert sieve.holds('[{"n": 4.471e3}]') and sieve.holds('["\\u0034471"]')  # JSON text hiding a value's digits
    assert sieve.holds("x\\n4471")  # an escape inside JSON text glues a letter to the digits


def test_an_exponent_that_is_none_does_not_stop_the_same_letters_being_read_as_one_later():
    """A match that decided nothing is remembered only for a pattern whose keys are all placed: ``1e3`` inside
    an id is no exponent, the same three characters in a number later are."""
    sieve = _sieve([4471])
    assert not sieve.needs(_result('["toolu_01231e3abc"]'))
    assert sieve.needs(_result('[{"n": 4.471e3}]'))
    assert not sieve.needs(_result('["toolu_01231e3abc"]'))
    assert sieve.holds('[{"n": 4.471e3}]')


_PLAIN_TEXT = st.text(alphabet="ab xAB\n\t", max_size=24)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.one_of(_PLAIN_TEXT, _TEXT, _NUMBER_TEXT), min_size=1, max_size=8),
       extra=st.lists(_PLAIN_TEXT, max_size=4),
       shapes=st.lists(st.sampled_from(["text", "tool_use", "blocks", "json", "string"]), min_size=1, max_size=8))
def test_plain_strings_left_out_of_the_scan_keep_every_place(texts, extra, shapes, monkeypatch):
    """While no string sought is letters and whitespace only, a long plain string (here: any, ``LONG`` 0) is
    left out of a message's scan and a plain string is ruled out unscanned: the places stand, whether plain
    values are sought (then nothing is left out) or not."""
    import tui.core.sieve as sieve_module

    monkeypatch.setattr(sieve_module, "LONG", 0)
    messages = []
    for k, text in enumerate(texts):
        shape = shapes[k % len(shapes)]
        messages.append({"role": "user", "content": text} if shape == "string" else
                        {"role": "user", "content": [_block(text, shape), _block(text.upper(), "text")]})
    _same(messages, _values(texts) + [e for e in extra if len(e) >= 2])


def test_a_plain_string_is_scanned_while_a_plain_value_is_sought():
    plain = "refund late parcel " * 100
    sieve = _sieve(["cus_8123", "late parcel"])
    assert sieve.needs(_result(plain)) and sieve.holds(plain)
    sieve = _sieve(["cus_8123", 4471])
    assert not sieve.needs(_result(plain)) and not sieve.holds(plain)
    assert sieve.needs(_result(plain + "cus_8123"))


_COMPILED = sieve_module._compiled_prepare
_BYTES = st.lists(st.sampled_from([b"\\", b"n", b"r", b"t", b"b", b"f", b"u", b"/", b'"', b"a", b"Z", b"9", b"_", b" ",
                                   b"\x00", b"\x7f", b"\xc3\xa9", b"\xff", b"\\\\", b"\\n4471"]), max_size=40).map(b"".join)


@pytest.mark.skipif(_COMPILED is None, reason="sieve_text not built (no C compiler at install)")
@settings(max_examples=2000, deadline=None)
@given(_BYTES)
def test_the_compiled_view_of_json_text_is_the_python_passes_to_the_byte(data):
    """``sieve_text.prepare`` (one pass in C) gives what the scan reads as the Python passes make it: None for a
    hidden character (a backslash before ``u`` or ``/``), else the translated bytes, escapes' letters blanked
    left to right (``\\\\n`` is a backslash, then ``n``), between separators."""
    assert _COMPILED(data) == sieve_module._prepared(data)


@pytest.mark.skipif(_COMPILED is None, reason="sieve_text not built (no C compiler at install)")
def test_the_compiled_view_of_every_real_message_is_the_python_passes(realruns):
    import orjson

    from tui.formats import load_runs

    seen = 0
    for path in sorted(p for p in realruns.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".yaml")):
        try:
            runs = load_runs(str(path))
        except Exception:  # noqa: BLE001 - the broken samples: no messages
            continue
        for run in runs:
            for message in run.messages:
                data = orjson.dumps(message.get("content") if isinstance(message, dict) else message)
                assert _COMPILED(data) == sieve_module._prepared(data), (path.name, data[:200])
                seen += 1
    assert seen > 1000

