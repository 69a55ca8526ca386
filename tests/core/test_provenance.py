"""Where each tool input value came from: the refund run's 8900, an invented order id, numeric forms,
the matching rules, and the ``trace`` verb."""

from __future__ import annotations

import json

from conftest import SAMPLES
from run_files import refund, write_jsonl
from tui.core.provenance import Provenance, trace, trace_of, trace_row, unsourced_of
from tui.core.view.background import tool_turns
from tui.formats import open_run

REFUND = SAMPLES / "refund" / "run.jsonl"
INVENTED = SAMPLES / "invented_order_id.jsonl"


def _value(t, path):
    [v] = [v for v in t.values if v.path == path]
    return v


def test_8900_in_message_5_is_sourced_from_message_2():
    t = trace(open_run(str(REFUND)), 5)
    amount = _value(t, ".amount_cents")
    assert amount.value == 8900
    assert amount.source.index == 2
    assert amount.source.block == 0  # the search_orders result, inside its JSON text
    assert amount.source.path == ".content | fromjson | .[0].total_cents"
    order = _value(t, ".order_id")
    assert order.source.index == 0  # the customer wrote 4471 before any lookup returned it
    assert (order.source.start, order.source.end) == (18, 22)
    assert t.unsourced == []


def test_an_invented_order_id_is_flagged_as_produced_by_the_model():
    t = trace(open_run(str(INVENTED)), 5)
    order = _value(t, ".order_id")
    assert order.value == "4417" and order.source is None and order.unsourced
    assert _value(t, ".amount_cents").source.index == 2
    assert [v.path for v in Provenance(open_run(str(INVENTED))).unsourced()[0][1:]] == [".order_id"]


def test_system_prompt_and_tool_schemas_are_sources_when_no_message_holds_the_value():
    run = open_run(str(REFUND))
    assert _value(trace(run, 1), ".customer_id").source.index == "system"
    topic = _value(trace(run, 3), ".topic").source
    assert topic.index == "tools" and topic.block == 2 and topic.path == ".input_schema.properties.topic.enum[0]"


def _run_with(tmp_path, result_content, tool_input, text="Please help."):
    header, _ = refund()
    messages = [
        {"role": "user", "content": text},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "search_orders",
                                           "input": {"customer_id": "cus_8123"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": result_content}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "issue_refund",
                                           "input": tool_input}]},
    ]
    return open_run(str(write_jsonl(tmp_path / "run.jsonl", messages, header)))


def test_numeric_forms_count_both_ways(tmp_path):
    as_string = _run_with(tmp_path, '{"total": "8900"}', {"order_id": "4471", "amount_cents": 8900}, "Order 4471.")
    assert _value(trace(as_string, 3), ".amount_cents").source.path == ".content | fromjson | .total"
    as_number = _run_with(tmp_path, '{"total": 8900}', {"order_id": "4471", "amount_cents": "8900"}, "Order 4471.")
    assert _value(trace(as_number, 3), ".amount_cents").source.index == 2
    grouped = _run_with(tmp_path, "The order total is 8,900 cents.", {"amount_cents": 8900.0})
    source = _value(trace(grouped, 3), ".amount_cents").source
    assert source.index == 2 and source.path == ".content" and (source.start, source.end) == (19, 24)


def test_part_of_a_longer_token_is_not_a_source(tmp_path):
    run = _run_with(tmp_path, '{"id": "4471", "last_scan": "33d ago", "ref": "re_9d2"}',
                    {"order_id": "447", "days": 33, "ref": "9d2", "whole": "re_9d2"})
    t = trace(run, 3)
    assert _value(t, ".order_id").source is None  # 447 is not 4471
    assert _value(t, ".days").source is None  # 33 is not "33d"
    assert _value(t, ".ref").source is None  # 9d2 is the tail of re_9d2, not a token of its own
    assert _value(t, ".whole").source.index == 2


def test_several_words_are_found_in_text_with_their_span(tmp_path):
    run = _run_with(tmp_path, "Shipments with no carrier scan for 21+ days may be refunded in full without return.",
                    {"reason": "refunded in full without return", "note": "lost shipment"})
    t = trace(run, 3)
    reason = _value(t, ".reason").source
    assert reason.index == 2 and reason.start == 51 and reason.how == "text"
    assert _value(t, ".note").source is None


def test_trivial_values_are_listed_but_never_traced_or_flagged(tmp_path):
    run = _run_with(tmp_path, "true 1 x", {"notify": True, "count": 1, "flag": "x", "empty": "", "none": None,
                                          "order_id": "4471"}, "Order 4471 please")
    t = trace(run, 3)
    trivial = {v.path for v in t.values if v.trivial}
    assert trivial == {".notify", ".count", ".flag", ".empty", ".none"}
    assert all(v.source is None and not v.unsourced for v in t.values if v.trivial)
    assert [v.path for v in t.traced] == [".order_id"]


def test_a_value_the_model_wrote_earlier_points_at_its_own_turn(tmp_path):
    header, _ = refund()
    messages = [
        {"role": "user", "content": "Refund my last order."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_shipment",
                                           "input": {"order_id": "9931"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "in transit"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "issue_refund",
                                           "input": {"order_id": "9931", "amount_cents": 500}}]},
    ]
    run = open_run(str(write_jsonl(tmp_path / "run.jsonl", messages, header)))
    first = _value(trace(run, 1), ".order_id")
    assert first.unsourced  # made up at message 1 ...
    again = _value(trace(run, 3), ".order_id")
    assert again.source.index == 1 and again.by_model  # ... and merely repeated at message 3


def test_trace_json_has_the_issue_shape(cli):
    result = cli("trace", REFUND, "--at", "5", "--json")
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["at"] == 5
    assert all(set(v) == {"tool_use_id", "path", "value", "source"} for v in doc["values"])
    [amount] = [v for v in doc["values"] if v["path"] == ".amount_cents"]
    assert amount == {"tool_use_id": "toolu_01Gh", "path": ".amount_cents", "value": 8900,
                      "source": {"index": 2, "block": 0, "path": ".content | fromjson | .[0].total_cents"}}
    invented = json.loads(cli("trace", INVENTED, "--at", "5", "--json").stdout)
    assert [v["source"] for v in invented["values"] if v["path"] == ".order_id"] == [None]


def test_trace_text_names_sources_and_flags_the_invented_id(cli):
    text = cli("trace", INVENTED, "--at", "5").stdout
    assert '.order_id = "4417"  NOT IN THE PREFIX: produced by the model' in text
    assert ".amount_cents = 8900  <- message 2 (loop) block 0 .content | fromjson | .[0].total_cents" in text
    every = cli("trace", REFUND)
    assert every.code == 0 and every.stdout.count("tool_use block") == 3  # messages 1, 3 and 5


def test_trace_of_a_message_without_tool_calls_and_out_of_range(cli):
    empty = cli("trace", REFUND, "--at", "7", "--json")
    assert empty.code == 0 and json.loads(empty.stdout) == {"at": 7, "values": []}
    bad = cli("trace", REFUND, "--at", "42")
    assert bad.code == 2 and len(bad.stderr.strip().splitlines()) == 1 and "out of range" in bad.stderr


def test_a_trace_is_the_same_whatever_was_traced_before_it_and_after_the_trip_to_the_app(tmp_path):
    """``find`` remembers a value's earliest place in the messages; a text occurrence before it is still the
    source of a turn before that place. Traced forwards, backwards or alone, each turn's trace is the same,
    and the tuples a worker sends (``trace_row``) make the same trace again, and the same unsourced values."""
    header, _ = refund()
    use = lambda k: {"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{k}", "name": "search",
                                                       "input": {"q": "late parcel", "order_id": "9931"}}]}
    done = lambda k: {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                                   "content": "nothing"}]}
    messages = [{"role": "user", "content": "my late parcel, order 9931"}, use(1), done(1), use(2), done(2), use(3)]
    runs = [open_run(str(write_jsonl(tmp_path / "run.jsonl", messages, header)))]
    runs += [open_run(str(p)) for p in sorted(SAMPLES.rglob("*.jsonl"))]
    kinds = set()
    for run in runs:
        turns = list(tool_turns(run))
        forwards, backwards = Provenance(run), Provenance(run)
        ahead = {n: forwards.trace(n) for n in turns}
        assert {n: backwards.trace(n) for n in reversed(turns)} == ahead
        assert {n: Provenance(run).trace(n) for n in turns} == ahead
        assert {n: trace_of(trace_row(t)) for n, t in ahead.items()} == ahead
        assert {n: unsourced_of(trace_row(t)) for n, t in ahead.items()} == {n: t.unsourced for n, t in ahead.items()}
        kinds |= {v.unsourced for t in ahead.values() for v in t.values}
    assert kinds == {True, False}  # values unsourced and not, among them
    first, later = _value(ahead_of(runs[0], 1), ".q"), _value(ahead_of(runs[0], 3), ".q")
    assert first.source.index == 0 and first.source.how == "text"  # a text occurrence before its first place
    assert later.source.index == 1 and later.source.how == "value"  # the value itself, once it was written


def ahead_of(run, n):
    provenance = Provenance(run)
    for k in tool_turns(run):  # the turns after n traced first: what they remember must not change n's
        if k > n:
            provenance.trace(k)
    return provenance.trace(n)


def test_a_tool_inputs_scalars_are_the_walks_whatever_its_shape():
    """``trace`` reads a tool input's scalars through a shortcut for an object of scalars: every input gives
    the paths and values, in the order, that the walk of the value index gives (object keys left out)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from tui.core.values import input_scalars
    from tui.core.valueindex import walk

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
    keys = st.sampled_from(["order_id", "a b", "", "é", "x1", "1x", "class", 'q"uote']) | st.text(max_size=4)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
                          max_leaves=12)

    @settings(max_examples=400, deadline=None)
    @given(values)
    def same(value):
        assert input_scalars(value) == [(path, scalar) for path, scalar, is_key in walk(value, "") if not is_key]

    same()
