"""The traces the analyses' process sends, kept pickled a piece at a time (``TraceRows``): every traced
message gives back its own trace and no other message gives one, the run's unsourced values come out in run
order, whatever the pieces' size; and the app keeps a fraction of the memory the tuples took."""

from __future__ import annotations

import pickle
import tracemalloc

from conftest import SAMPLES
from loader_helpers import every_run
from tui.core.provenance import Provenance, trace_of, trace_row, value_of
from tui.core.view.background import _pieces, tool_turns
from tui.core.view.trace_rows import TraceRows, piece
from tui.formats import open_run


def _rows(traces: dict, size: int) -> TraceRows:
    rows = TraceRows()
    for part in _pieces([(n, trace_row(t)) for n, t in traces.items()], size):
        rows.add(pickle.loads(pickle.dumps(piece(part))))  # as it crosses the pipe
    return rows


def test_each_traced_message_gives_its_own_trace_and_others_none(realruns):
    traced_runs = 0
    for _, run in every_run(realruns):
        provenance = Provenance(run)
        traces = {n: provenance.trace(n) for n in tool_turns(run)}
        traced_runs += bool(traces)
        unsourced = [(n, v) for n, t in traces.items() for v in t.unsourced]
        for size in (1, 3, 400):
            rows = _rows(traces, size)
            assert list(rows) == list(traces) and len(rows) == len(traces)
            for n in range(-1, len(run.messages) + 1):
                got = rows.get(n)
                assert (None if got is None else trace_of(got)) == traces.get(n), (run.source.path, size, n)
            assert [(n, value_of(v)) for n, v in rows.unsourced] == unsourced
            again = pickle.loads(pickle.dumps(rows))
            assert [again.get(n) for n in traces] == [rows.get(n) for n in traces] and again.unsourced == rows.unsourced
    assert traced_runs >= 20, traced_runs


def test_the_rows_take_a_fraction_of_the_memory_of_the_tuples():
    run = open_run(str(SAMPLES / "refund" / "run.jsonl"))
    provenance = Provenance(run)
    one = [(n, trace_row(provenance.trace(n))) for n in tool_turns(run)]
    # the refund run's traces 400 times over, each a copy of its own (as distinct traces are)
    many = [(k * len(run.messages) + n, pickle.loads(pickle.dumps(row))) for k in range(400) for n, row in one]
    sent = [pickle.dumps(piece(part)) for part in _pieces(many, 400)]
    tracemalloc.start()
    try:
        as_tuples = {n: pickle.loads(pickle.dumps(row)) for n, row in many}  # as the app took them in
        tuples = tracemalloc.get_traced_memory()[0]
        del as_tuples
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        rows = TraceRows()
        for data in sent:
            rows.add(pickle.loads(data))
        kept = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert len(rows) == len(many)
    assert kept * 3 < tuples, (kept, tuples)
