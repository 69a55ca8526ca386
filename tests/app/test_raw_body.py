"""The Raw view's body (``RawBody``) shows every line of the request's JSON pretty-printed, with its exact size and
sha256, without holding a copy of the body: at the last index of a long run the body is the whole run, and
holding its bytes, its pretty text and their decoded forms had taken the app from 233 MB to 579 MB."""

from __future__ import annotations

import hashlib
import tracemalloc

from loader_helpers import every_run

from tui.app.render.rawbody import RawBody
from tui.core import jsonio
from tui.core.prefix import request_at
from tui.formats import open_run


def _same_as_the_whole_body(body: RawBody, request) -> None:
    whole = jsonio.dumps(request.body, indent=True)
    lines = whole.split(b"\n")
    assert len(body) == len(lines)
    assert [body.pretty_line(y) for y in range(len(body))] == lines
    assert body.width == max(map(len, lines))
    exact = request.bytes()
    assert (body.size, body.sha256) == (len(exact), hashlib.sha256(exact).hexdigest())
    assert body.exact == exact
    text = exact.decode("utf-8", "replace")
    assert body.exact_chars == len(text)
    for width in (7, 80, 997):  # the exact mode's rows, wrapped at a width: every character once, in order
        rows = [body.exact_window(r * width, (r + 1) * width) for r in range(-(-len(text) // width))]
        assert "".join(rows) == text and all(len(row) == width for row in rows[:-1])


def test_every_line_size_and_sha256_are_the_whole_body_s_on_every_real_and_sample_run(realruns):
    """At the first, middle and last message and the next request of every run: the pretty lines, drawn one by
    one, are the body pretty-printed at once (commas between messages, none after the last); the width is the
    widest line's; the size and sha256 are the exact bytes' (recorded or re-serialised)."""
    checked = recorded = 0
    for path, run in every_run(realruns):
        for index in sorted({0, len(run.messages) // 2, max(len(run.messages) - 1, 0), len(run.messages)}):
            request = request_at(run, index)
            _same_as_the_whole_body(RawBody(index, request), request)
            checked += 1
            recorded += request.raw is not None
    assert checked > 500 and recorded >= 2


def test_messages_of_every_shape_are_laid_out_as_the_whole_body(tmp_path):
    """A message that is a bare string, one with empty content, one whose text holds newlines, quotes and
    characters beyond ASCII, and a body whose messages key is not the last: the same lines."""
    lines = [
        {"system": "say \"hi\"", "tools": [], "params": {"model": "m", "max_tokens": 5, "metadata": {"messages": []}}},
        {"role": "user", "content": "line one\nline two \u2192 \u00e9 \U0001f600 \"quoted\""},
        {"role": "assistant", "content": []},
        {"role": "user", "content": [{"type": "text", "text": "{\"messages\": []}"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": [1, 2.5, None]}}]},
    ]
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(jsonio.dumps(line) for line in lines) + b"\n")
    run = open_run(str(path))
    for index in range(len(run.messages) + 1):
        request = request_at(run, index)
        _same_as_the_whole_body(RawBody(index, request), request)


def test_the_body_of_a_late_request_is_not_held(tmp_path):
    """At the last index of an 8 MB run the body is about 8 MB: building it and drawing its last screen, pretty
    and exact, keeps less than a tenth of that, and never holds half of it at once (one message at a time: orjson's buffer for a 190 KB message is about 2.3 MB;
    the body held whole, as bytes and pretty-printed, was twice the body)."""
    from scripts.make_large_run import build

    path = tmp_path / "long.jsonl"
    path.write_bytes(build(8_000_000, "jsonl", seed=5))
    run = open_run(str(path))
    index = len(run.messages) - 1
    size = len(request_at(run, index).bytes())
    assert size > 7_000_000
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        body = RawBody.build(run, index)
        last_rows = [body.exact_window(at, at + 120) for at in range(body.exact_chars - 120 * 40, body.exact_chars, 120)]
        lines = [body.line(y) for y in range(len(body) - 40, len(body))]
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert body.size == size and len(body) > 40_000 and lines[-1] == "}" and last_rows[-1].endswith("}")
    assert kept - before < size / 10, (kept - before, size)
    assert peak - before < size / 2, (peak - before, size)
