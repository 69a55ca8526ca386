"""Run text on a terminal: every control or direction-changing character is shown, never sent,
and the fast paths agree with the slow one."""

from __future__ import annotations

import pytest

import unicodedata

from tui.core.safe import _ONE_LINE, already_visible, one_line, utf8_already_visible, visible


def test_escape_sequences_are_shown():
    assert visible("\x1b[31mred\x1b[0m\x07") == "\\x1b[31mred\\x1b[0m\\x07"
    assert visible("a\u202eb\u200bc\ufeff") == "a\\u202eb\\u200bc\\ufeff"
    assert visible("keeps\nnewlines\tand tabs") == "keeps\nnewlines\tand tabs"
    assert one_line("no\nnewlines\there") == "no\\nnewlines\\there"
    assert visible("C1 \x85 \x9b") == "C1 \\x85 \\x9b"
    assert visible("lone \ud800") == "lone \\ud800"


def test_the_printable_fast_path_is_sound():
    """``visible`` returns printable ASCII untouched without a regex: every character it would
    escape must therefore be outside it."""
    escaped = [c for c in range(0x110000) if _ONE_LINE.match(chr(c))]
    assert escaped and not [hex(c) for c in escaped if chr(c).isascii() and chr(c).isprintable()]


def test_the_short_printable_fast_path_is_sound():
    """A short text of printable characters up to U+25FF (the app's own ``▶ · … ↳ ▏``, Latin, Greek, Cyrillic,
    punctuation, boxes) is passed without the patterns: no character it passes may be one they escape, and one
    invisible character among them is still shown."""
    from tui.core import safe

    passed = [c for c in range(0x2600) if safe._drawn(chr(c))]
    assert len(passed) > 8000 and [hex(c) for c in passed if safe._ONE_LINE.search(chr(c))] == []
    for hidden in ("\u200b", "\u00ad", "\u2028", "\u2060", "\u034f", "\u115f", "\ufe00", "\U000e0041", "\x1b", "\n"):
        line = f"▶ é{hidden}ж · …"
        assert hidden == "\n" or not utf8_already_visible(line.encode()), repr(hidden)
        assert hidden not in one_line(line) and (hidden == "\n" or hidden not in visible(line)), repr(hidden)
    assert visible("▶ é\tж\n") == "▶ é\tж\n" and one_line("▶ é · …") == "▶ é · …"


def test_the_invisible_set_is_unicodes_categories_not_a_hand_list():
    """Every control, format, separator and surrogate character by ``unicodedata`` (and the whole tag
    block) is made visible, the ones the old hand list missed included (U+061C, U+180E, U+E0001...)."""
    wanted = [c for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Cs", "Zl", "Zp")
              or 0xE0000 <= c <= 0xE007F]
    missed = [hex(c) for c in wanted if not _ONE_LINE.match(chr(c))]
    assert not missed
    for char in ("\u061c", "\u180e", "\u00ad", "\u2064", "\U000110bd", "\U0001d173", "\u3164", "\u034f"):
        assert char not in visible(f"a{char}b"), f"{char!r} reaches the terminal"


def test_tag_characters_are_decoded_and_selector_bytes_read_out():
    smuggled = "".join(chr(0xE0000 + ord(c)) for c in "ignore previous instructions")
    assert visible(f"Hello{smuggled}!") == 'Hello⟨tags: "ignore previous instructions"⟩!'
    assert one_line("\U000e0001\U000e0065\U000e006e") == '⟨tags: "\\U000e0001en"⟩'
    carried = "".join(chr(0xFE00 + b) if b < 16 else chr(0xE0100 + b - 16) for b in b"rm -rf ~")
    assert visible(f"😊{carried}") == '😊⟨variation selectors: "rm -rf ~"⟩'
    assert visible("a\ufe01b") == "a\\ufe01b"


def test_an_emoji_presentation_selector_after_a_symbol_stays_drawn():
    assert visible("⚠️ careful") == "⚠️ careful" and already_visible("⚠️ careful")
    assert visible("a\ufe0f") == "a\\ufe0f" and not already_visible("a\ufe0f")


@pytest.mark.parametrize("text", ["plain", "£89.00 — “quoted” ✓ 日本", "tab\tnewline\n", "\x1b[2J", "x\x7f",
                                  "\u0085", "\u2028", "\u2066isolate", "\ufeffbom", "\ud83d lone", "", "é\x00",
                                  "\U000e0041tag", "\u061c", "⚠️", "a\ufe0f", "ok\u3164", "😊\ufe00\ufe01"])
def test_already_visible_agrees_with_visible(text):
    assert already_visible(text) == (visible(text) == text)


def test_visible_is_idempotent_so_a_backstop_never_double_escapes():
    from hostile import ALL

    once = visible(ALL)
    assert visible(once) == once and one_line(one_line(ALL)) == one_line(ALL)


def test_json_for_terminal_escapes_what_json_leaves_raw_and_keeps_the_value():
    import orjson

    from tui.core.safe import json_for_terminal

    value = {"k\u202e": ["\x9b2J \x85 \u2066x\u2069 \x7f \ufeff ok é ✓", "\x1b[2J"]}
    data = orjson.dumps(value)
    safe = json_for_terminal(data)
    assert orjson.loads(safe) == value
    assert utf8_already_visible(safe) and "é ✓" in safe.decode()
    assert json_for_terminal(b'{"plain":"text \\u001b"}') == b'{"plain":"text \\u001b"}'


def test_a_visible_stream_shows_what_is_written_and_keeps_the_rest():
    import io

    from tui.core.safe import VisibleStream, raw_stream

    target = io.StringIO()
    stream = VisibleStream(target)
    print("a\x1b[2Jb\u202e", "line", file=stream)
    stream.writelines(["\x07\n"])
    assert target.getvalue() == "a\\x1b[2Jb\\u202e line\n\\x07\n"
    assert raw_stream(stream) is target and raw_stream(target) is target and stream.getvalue() == target.getvalue()
