"""The rows of the Response view: what message N's model call returned, and when (Rich only).

Status, request id, model, stop reason and usage as the source recorded them; the call's times
(sent, first byte, done, and the loop's time before the next request), each marked "derived from
the transcript's line timestamps" where a loader derived them rather than a recorder measuring
them (``tui.core.timing``); and, for recorded exchanges, the answer's body as the recorder kept
it: a JSON body shown whole, a stream's server-sent events behind a fold (Enter opens it). What
the source did not record says so, never a blank or a guess.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

from tui.app.render import styles as palette
from tui.app.render.lines import Part, Rows, Wrapped
from tui.core import jsonio
from tui.core.run import Run
from tui.core.safe import one_line
from tui.core.timing import CallTiming, duration
from tui.core.view.run_view import RunView

#: The fold of a streamed body's events (the row's target).
EVENTS = ("response", "events")
#: Usage fields in the order shown; any other field the source recorded follows them.
USAGE = (("input_tokens", "input"), ("output_tokens", "output"), ("cache_read_input_tokens", "cache read"),
         ("cache_creation_input_tokens", "cache write"))
LABEL_WIDTH = 14
_EVENT = re.compile(r"^event:", re.M)
_DATA = re.compile(r"^data:", re.M)


def streamed(body: str) -> bool:
    return body.lstrip().startswith(("event:", "data:"))


def event_count(body: str) -> int:
    """The server-sent events in ``body`` (its ``event:`` lines, or ``data:`` lines when it names none)."""
    return len(_EVENT.findall(body)) or len(_DATA.findall(body))


def _field(label: str, value: str, style: str = "") -> Text:
    return Text.assemble((f"  {label:<{LABEL_WIDTH}}", palette.LABEL), (one_line(value), style))


def _usage_value(value: Any) -> str:
    if isinstance(value, (dict, list, bool)) or value is None:
        return one_line(jsonio.dumps(value).decode("utf-8", "replace"))
    if isinstance(value, int):
        return f"{value:,}"
    return one_line(str(value))


def usage_rows(usage: dict[str, Any] | None) -> list[Text]:
    if not usage:
        return [_field("usage", "not recorded", palette.DIM)]
    rows = [_field(label, _usage_value(usage[key]) if key in usage else "not recorded",
                   "" if key in usage else palette.DIM) for key, label in USAGE]
    known = {key for key, _ in USAGE}
    for key, value in usage.items():
        if key not in known:
            rows.append(Text.assemble(("  " + one_line(str(key)), palette.DIM), " ", _usage_value(value)))
    return rows


def timing_rows(t: CallTiming | None, last: bool) -> list[Text]:
    if t is None or t.sent is None:
        return [_field("timing", "not recorded by this source", palette.DIM)]
    rows = [_field("sent", t.sent.isoformat(timespec="milliseconds"))]
    if t.first_byte_ms is not None:
        rows.append(_field("first byte", f"+{duration(t.first_byte_ms)}"))
    rows.append(_field("done", f"{t.done.isoformat(timespec='milliseconds')} (+{duration(t.model_ms)})"
                       if t.done is not None else "not recorded", "" if t.done is not None else palette.DIM))
    if last:
        rows.append(_field("loop after", "none: the last model call of the run", palette.DIM))
    else:
        rows.append(_field("loop after", f"{duration(t.loop_ms)} until the next request was sent"
                           if t.loop_ms is not None else "not known (a time missing, or the calls overlapped)",
                           "" if t.loop_ms is not None else palette.DIM))
    if t.derived:
        rows.append(Text("  derived from the transcript's line timestamps (when the lines were written), not "
                         "measured on the wire", palette.NOTE))
    return rows


def response_parts(view: RunView, index: int, timings: list[CallTiming], events_open: bool) -> list[Part]:
    """The document for message ``index``."""
    run: Run = view.run
    if index >= view.total:
        return [Rows([Text("Response", palette.HEADING),
                      Text("The next request was never sent: no response.", palette.NOTE)])]
    k = run.call_index(index)
    if k is None:
        producer = view.producers[index]
        return [Rows([Text.assemble((f"Response · message {index}", palette.HEADING)),
                      Text(f"No model call produced message {index} ({one_line(producer.label)}): "
                           "n goes to the next model call.", palette.NOTE)])]
    call = run.calls[k]
    head = Text.assemble((f"Response · message {index} · model call {k + 1} of {len(run.calls)}", palette.HEADING))
    rows = [head, Text("")]
    rows.append(_field("status", str(call.status) if call.status is not None else "not recorded",
                       "" if call.status in (None, 200) else palette.ERROR))
    rows.append(_field("request id", call.request_id or "not recorded", "" if call.request_id else palette.DIM))
    rows.append(_field("model", call.model or "not recorded", "" if call.model else palette.DIM))
    rows.append(_field("stop reason", call.stop_reason or "not recorded", "" if call.stop_reason else palette.DIM))
    rows += [Text(""), Text("Usage (as recorded)", palette.LABEL), *usage_rows(call.usage)]
    rows += [Text(""), Text("Timing", palette.LABEL), *timing_rows(timings[k] if k < len(timings) else None,
                                                                   k == len(run.calls) - 1)]
    rows.append(Text(""))
    parts: list[Part] = [Rows(rows)]
    body = call.response_body
    if body is None:
        parts.append(Rows([Text("Response body", palette.LABEL),
                           Text(f"  not recorded: the {one_line(run.source.format)} source keeps the answer as a "
                                "message, not the bytes the API sent", palette.DIM)]))
        return parts
    size = len(body.encode("utf-8", "surrogatepass"))
    if streamed(body):
        count = event_count(body)
        mark = palette.OPEN if events_open else palette.FOLDED
        parts.append(Rows([Text.assemble(("Response body as recorded", palette.LABEL),
                                         f" · {size:,} bytes, streamed")]))
        parts.append(Rows([Text.assemble(f"  {mark} ", (f"{count:,} server-sent event{'s' * (count != 1)}", "bold"),
                                         ("  enter: " + ("fold" if events_open else "open"), palette.DIM))],
                          target=EVENTS))
        if events_open:
            parts.append(Wrapped(body, head=Text(""), indent=4, raw=True))
    else:
        parts.append(Rows([Text.assemble(("Response body as recorded", palette.LABEL), f" · {size:,} bytes")]))
        parts.append(Wrapped(body, head=Text(""), indent=2, raw=True))
    return parts
