"""Property tests: the renderer never loses or splits text, and never draws past the width.

For any run text (CJK, emoji with joiners and skin tones, combining marks, tabs, CRLF, a lone
CR, control characters) and any width from 10 to 200: the rows joined (with the newlines and
the spaces a row broke at) give back the text as drawn, exactly; no row is wider than the width
in terminal cells; a grapheme is never split; and a marked value (a search, a traced value, a
changed value in a diff) is marked on every row it reaches, so the marked characters joined
give back the value. The same holds for the request pane's blocks and rows, the message list,
the side-by-side screen and the diff screen.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len, split_graphemes
from rich.text import Text

from runbuild import assistant, run_of, text, user
from tui.app.render.blocks import INDENT, message_parts, text_part
from tui.app.render.diffparts import SEPARATOR, SIDE, STACKED, PairPart
from tui.app.render.lines import PartLayout, Rows, display, wrap_offsets
from tui.core.view.run_view import RunView
from tui.app.screens.side_by_side import GAP, Paired
from tui.app.widgets.message_list import LATENCY_WIDTH, MessageList, latency_label
from tui.app.widgets.turns_view import turn_parts
from tui.core.diff import Change

PIECES = ["a", "word", "8900", "src/app.py", " ", " ", "  ", "还没到", "中文", "👍🏽", "👨\u200d👩\u200d👧", "❤️",
          "e\u0301", "n\u0303o", "\t", "\r\n", "\r", "\n", "\x1b[31m", "\x07", "\x00", ",", ".", "-", "(", ")",
          "🇫🇷", "ｆｕｌｌ", "x" * 30]
RUN_TEXT = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
#: A value to mark: its characters occur nowhere else in the text, and it may be longer than a row.
NEEDLE = st.text(alphabet="§0123456789", min_size=1, max_size=120).map(lambda s: "§" + s)
WIDTH = st.integers(min_value=10, max_value=200)
MARK = "reverse"
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def boundaries(s: str) -> set[int]:
    """Where a grapheme starts or ends, line by line (a newline is no part of a grapheme)."""
    out, at = {len(s)}, 0
    for line in s.split("\n"):
        out |= {at + a for a, _, _ in split_graphemes(line)[0]} | {at + len(line)}
        at += len(line) + 1
    return out


def marked_chars(rows: list[Text], style: str = MARK) -> str:
    """Every character drawn in ``style``, row after row."""
    out = []
    for row in rows:
        chars = [False] * len(row.plain)
        for span in row.spans:
            if str(span.style) == style:
                for k in range(span.start, min(span.end, len(chars))):
                    chars[k] = True
        out.append("".join(c for c, on in zip(row.plain, chars) if on))
    return "".join(out)


def squeeze(s: str) -> str:
    return "".join(s.split())


@PROPS
@given(RUN_TEXT, WIDTH)
def test_wrapped_rows_give_back_the_text_and_fit_the_width(raw, width):
    shown = display(raw)
    spans = wrap_offsets(shown, width)
    cuts = boundaries(shown)
    prev = 0
    for n, (start, end) in enumerate(spans):
        gap = shown[prev:start]
        assert n == 0 and gap == "" or gap == "\n" or (gap.strip(" ") == "" if gap else True), repr(gap)
        assert cell_len(shown[start:end]) <= width, (shown[start:end], width)
        assert start in cuts and end in cuts, "a grapheme was split"
        prev = end
    assert prev == len(shown)
    assert "\r" not in shown and "\x1b" not in shown  # CR of CRLF is a line end, the rest are escapes


def test_crlf_is_a_line_end_and_a_lone_cr_an_escape():
    shown = display("one\r\ntwo\rthree\x1b[31m")
    assert shown == "one\ntwo\\x0dthree\\x1b[31m"
    assert [shown[a:b] for a, b in wrap_offsets(shown, 40)] == ["one", "two\\x0dthree\\x1b[31m"]


def test_a_number_is_not_split_where_a_space_is_near():
    shown = "refund of 8900 for order 4471"
    for width in range(10, 30):
        rows = [shown[a:b] for a, b in wrap_offsets(shown, width)]
        assert all(row in shown.split() or " " in row for row in rows) and "8900" in " ".join(rows).split(), rows


def test_a_wide_line_keeps_every_character_past_the_wrap():
    """The case from the issue: a line with CJK wrapped in the Request pane lost the characters at the wrap."""
    shown = "…还没到 and then plain english words follow"
    part = text_part(shown, Text(" " * INDENT), ("block", 0, 0), True, 0)
    for width in range(20, 60):
        rows = [part.row(k, width).plain for k in range(part.count(width))]
        assert squeeze("".join(rows)) == squeeze(shown), rows
        assert all(cell_len(row) <= width for row in rows)


@PROPS
@given(RUN_TEXT, RUN_TEXT, NEEDLE, WIDTH, st.sampled_from(["  text          ", " " * INDENT, "  a_long_label_here ",
                                                           "  tool_result  "]))
def test_a_block_keeps_every_character_and_marks_a_value_on_every_row(before, after, needle, width, head):
    raw = before + needle + after
    part = text_part(raw, Text(head), ("block", 0, 0), True, 0)
    rows = [part.marked(k, width, [(needle, MARK, True)]) for k in range(part.count(width))]
    assert all(row.cell_len <= width for row in rows), [(row.plain, row.cell_len) for row in rows]
    assert squeeze("".join(row.plain for row in rows)) == squeeze(head + display(raw))
    assert marked_chars(rows) == needle


@PROPS
@given(RUN_TEXT, NEEDLE, WIDTH)
def test_fixed_rows_wrap_under_their_head_and_keep_their_styles(raw, needle, width):
    value = Text(needle, "bold")
    row = Text.assemble("    ", (".order_id", "bold"), " = ", value, "  ← ", display(raw).replace("\n", " "))
    part = Rows([row], breaks=[(len("    .order_id = ") + len(needle) + 2, 6)])
    rows = [part.marked(k, width, [(needle, MARK, True)]) for k in range(part.count(width))]
    assert all(r.cell_len <= width for r in rows)
    assert squeeze("".join(r.plain for r in rows)) == squeeze(row.plain)
    assert marked_chars(rows) == needle
    bold = "".join(r.plain[s.start:s.end] for r in rows for s in r.spans if str(s.style) == "bold")
    assert squeeze(bold) == squeeze(".order_id" + needle)  # the row's own styles stay on every piece


@PROPS
@given(st.lists(RUN_TEXT, min_size=1, max_size=4), WIDTH)
def test_message_list_rows_fit_and_show_a_prefix_of_the_summary(texts, width):
    messages = [user(text(t or "x")) if k % 2 == 0 else assistant(text(t or "x")) for k, t in enumerate(texts)]
    view = RunView(run_of(messages))
    widget = MessageList(view)
    for i in range(view.rows):
        row = widget.line_text(i, width)
        assert row.cell_len <= width, (row.plain, width)
        if i < view.total:
            summary, stop = view.summary(i), view.stop_reason(i) or ""
            shown = row.plain.rstrip()
            if stop and shown.endswith(stop):
                shown = shown[: -len(stop)].rstrip()
            shown = shown[shown.index('"'):] if '"' in shown else ""
            assert shown == summary or (shown.endswith("…") and summary.startswith(shown[:-1])) or not shown, \
                (shown, summary)


@PROPS
@given(RUN_TEXT, RUN_TEXT, NEEDLE, st.integers(min_value=23, max_value=200))
def test_side_by_side_rows_keep_both_sides_whole(left_text, right_text, needle, width):
    left = turn_parts(3, assistant(text(left_text + needle)), "call 1", {(3, 0)})
    right = turn_parts(3, assistant(text(needle + right_text)), "branch call 1", {(3, 0)})
    part = Paired(left, right, ("message", 3))
    half = (width - len(GAP)) // 2
    left_doc, right_doc = PartLayout(left, half), PartLayout(right, width - len(GAP) - half)
    rows = [part.marked(k, width, [(needle, MARK, True)]) for k in range(part.count(width))]
    for k, row in enumerate(rows):
        assert row.cell_len <= width
        if k < len(left_doc):
            assert row.plain.startswith(left_doc.row(k).plain)
        if k < len(right_doc):
            assert row.plain.endswith(GAP + right_doc.row(k).plain)
    for doc, body in ((left_doc, left_text + needle), (right_doc, needle + right_text)):
        assert squeeze(display(body)) in squeeze("".join(doc.row(k).plain for k in range(len(doc))))
    lefts, rights = [], []
    for k, row in enumerate(rows):
        at = row.plain.index(GAP, len(left_doc.row(k).plain) if k < len(left_doc) else 0)
        lefts.append(row[:at])
        rights.append(row[at + len(GAP):])
    assert marked_chars(lefts) == needle and marked_chars(rights) == needle


@PROPS
@given(RUN_TEXT, RUN_TEXT, st.text(alphabet="§0123456789", min_size=1, max_size=50), WIDTH,
       st.sampled_from([SIDE, STACKED]))
def test_diff_pairs_fit_the_width_and_mark_the_changed_value_on_every_row(a_text, b_text, digits, width, mode):
    before, after = "§" + digits, "§" + digits[::-1] + "9"
    a = assistant({"type": "tool_use", "id": "t1", "name": "issue_refund", "input": {"amount": before}},
                  text(a_text))
    b = assistant({"type": "tool_use", "id": "t1", "name": "issue_refund", "input": {"amount": after}},
                  text(b_text))
    change = Change(3, 0, "tool_input_changed", before, after, ".input.amount")
    part = PairPart(0, (3, a), (3, b), [change], mode, True)
    rows = [part.row(k, width) for k in range(part.count(width))]
    assert all(row.cell_len <= width for row in rows), [(r.plain, r.cell_len) for r in rows]
    drawn = squeeze("".join(r.plain for r in rows).replace("│", ""))
    folded = "…" in drawn  # a block past BLOCK_ROWS rows folds with its size (not lost: Enter opens it)
    for value in (before, after, display(a_text), display(b_text)):
        assert squeeze(value) in drawn or mode == SIDE or folded
    if folded:
        return
    if mode == SIDE:  # each side on its own, the changes below them
        sides = [(r[: r.plain.index(SEPARATOR)], r[r.plain.index(SEPARATOR) + len(SEPARATOR):])
                 for r in rows if SEPARATOR in r.plain]
        marked_a = marked_chars([a for a, _ in sides], "bold reverse")  # palette.SOURCE
        marked_b = marked_chars([b for _, b in sides], "bold reverse")
        assert marked_a == before and marked_b == after
    else:
        assert marked_chars(rows, "bold reverse") == before + after


def test_message_parts_never_draw_past_narrow_widths():
    message = assistant({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                         "input": {"query": "还没到 " * 20}}, text("👨\u200d👩\u200d👧 " * 40))
    parts = message_parts(0, message, {(0, 0), (0, 1)})
    for width in range(10, 80):
        doc = PartLayout(parts, width)
        assert all(doc.row(y).cell_len <= width for y in range(len(doc))), width


@given(st.floats(min_value=0, max_value=99 * 24 * 3_600_000, allow_nan=False), st.booleans())
def test_a_call_time_fits_the_latency_column_whole(ms, derived):
    """Up to 99 days, derived or not: the L column's text is never wider than the column (it would be cut)."""
    assert cell_len(latency_label(ms, derived)) <= LATENCY_WIDTH
