"""Run text on a terminal: every control or direction-changing character is shown, never sent,
and the fast paths agree with the slow one."""

from __future__ import annotations

import pytest

from tui.core.safe import _SURROGATE, _UNSAFE_LINE, already_visible, one_line, utf8_already_visible, visible


def test_escape_sequences_are_shown():
    assert visible("\x1b[31mred\x1b[0m\x07") == "\\x1b[31mred\\x1b[0m\\x07"
    assert visible("a\u202eb\u200bc\ufeff") == "a\\u202eb\\u200bc\\ufeff"
    assert visible("keeps\nnewlines\tand tabs") == "keeps\nnewlines\tand tabs"
    assert one_line("no\nnewlines\there") == "no\\nnewlines\\there"
    assert visible("C1 \x85 \x9b") == "C1 \\x85 \\x9b"
    assert visible("lone \ud800") == "lone \\ud800"


def test_the_printable_fast_path_is_sound():
    """``visible`` returns printable text untouched without a regex: every character it would
    escape must therefore be non-printable."""
    escaped = [c for c in range(0x110000) if _UNSAFE_LINE.match(chr(c)) or _SURROGATE.match(chr(c))]
    assert escaped and not [hex(c) for c in escaped if chr(c).isprintable()]


@pytest.mark.parametrize("text", ["plain", "£89.00 — “quoted” ✓ 日本", "tab\tnewline\n", "\x1b[2J", "x\x7f",
                                  "\u0085", "\u2028", "\u2066isolate", "\ufeffbom", "\ud83d lone", "", "é\x00"])
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
