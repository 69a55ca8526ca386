"""Each loader of issue 2 (request body, native run file, bare message list), the sidecar
system prompt and tools, and detection from the content (``--format`` forces one)."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES
from runbuild import ASK, TOOL, assistant, result, text, use, user, write_json, write_jsonl
from scripts.sample_content import MODEL, REFUND, SYSTEM, TOOLS
from tui.core.errors import LoadError, UsageError
from tui.core.run import EXACT, RECONSTRUCTED
from tui.formats import load_runs, open_run

HEADER = {"system": SYSTEM, "tools": TOOLS, "params": {"model": MODEL, "max_tokens": 1024}}


# -- request bodies ---------------------------------------------------------------------------

def test_request_body_is_exact_and_keeps_everything_as_loaded():
    run = open_run(str(SAMPLES / "refund/request.json"))
    raw = json.loads((SAMPLES / "refund/request.json").read_text())
    assert run.source.format == "request" and run.source.prefix == EXACT
    assert run.messages == REFUND[:7] == raw["messages"]
    assert run.system == SYSTEM and run.tools == TOOLS
    assert run.params == {"model": MODEL, "max_tokens": 1024}
    assert run.order == ["model", "max_tokens", "system", "tools", "messages"]
    assert not run.prefill and [c.message for c in run.calls] == [1, 3, 5]


def test_request_body_with_a_prefill(tmp_path):
    path = write_json(tmp_path / "body.json", {"messages": [ASK, assistant("{")], "max_tokens": 64,
                                                "model": MODEL, "temperature": 0, "stop_sequences": ["}"]})
    run = open_run(str(path))
    assert run.prefill and run.calls == []  # the prefill was written by the caller, not produced
    assert run.params == {"max_tokens": 64, "model": MODEL, "temperature": 0, "stop_sequences": ["}"]}
    assert run.system is None and run.tools is None


def test_array_of_request_bodies_is_several_runs(tmp_path):
    bodies = [{"model": MODEL, "messages": REFUND[:k]} for k in (1, 3, 5)]
    runs = load_runs(str(write_json(tmp_path / "bodies.json", bodies)))
    assert [len(r.messages) for r in runs] == [1, 3, 5]
    assert [(r.source.run_index, r.source.run_count) for r in runs] == [(0, 3), (1, 3), (2, 3)]
    assert open_run(str(tmp_path / "bodies.json"), run=2).messages == REFUND[:5]
    with pytest.raises(UsageError, match="no run 3; the file holds 3"):
        open_run(str(tmp_path / "bodies.json"), run=3)


def test_recorded_request_bodies_from_real_cassettes_load_as_exact_runs(realruns, tmp_path):
    yaml = pytest.importorskip("yaml")
    loaded = 0
    for cassette in sorted(realruns.glob("pydanticai__*.yaml")):
        for k, exchange in enumerate(yaml.safe_load(cassette.read_text())["interactions"]):
            body = exchange["request"]["parsed_body"]
            run = open_run(str(write_json(tmp_path / f"{cassette.stem}-{k}.json", body)))
            assert run.source.format == "request" and run.exact
            assert run.messages == body["messages"]
            assert run.params == {key: v for key, v in body.items() if key not in ("messages", "system", "tools")}
            assert run.prefill == (body["messages"][-1]["role"] == "assistant")
            loaded += 1
    assert loaded >= 15


# -- bare message lists -----------------------------------------------------------------------

def test_json_array_of_messages():
    run = open_run(str(SAMPLES / "refund/messages.json"))
    assert run.source.format == "messages" and run.source.prefix == RECONSTRUCTED
    assert run.messages == REFUND and run.system is None and run.tools is None and run.params == {}
    assert [c.message for c in run.calls] == [1, 3, 5, 7] and not run.prefill


def test_json_array_of_arrays_is_several_runs(tmp_path):
    runs = load_runs(str(write_json(tmp_path / "runs.json", [REFUND, REFUND[:4]])))
    assert [len(r.messages) for r in runs] == [8, 4]
    assert [r.source.run_index for r in runs] == [0, 1]


def test_jsonl_with_a_header_line():
    run = open_run(str(SAMPLES / "refund/run.jsonl"))
    assert run.source.format == "messages"
    assert run.messages == REFUND and run.system == SYSTEM and run.tools == TOOLS
    assert run.params == {"model": MODEL, "max_tokens": 1024}
    assert run.warnings == []


def test_jsonl_header_with_params_inline(tmp_path):
    path = write_jsonl(tmp_path / "run.jsonl", {"model": MODEL, "max_tokens": 99, "system": "Be brief."}, *REFUND[:2])
    run = open_run(str(path))
    assert run.params == {"model": MODEL, "max_tokens": 99} and run.system == "Be brief."
    assert run.messages == REFUND[:2]


def test_jsonl_without_a_header(tmp_path):
    run = open_run(str(write_jsonl(tmp_path / "run.jsonl", *REFUND)))
    assert run.messages == REFUND and run.system is None and run.params == {}


def _with_bad_line(tmp_path):
    lines = [json.dumps(HEADER), *(json.dumps(m) for m in REFUND[:3]), '{"role": "assistant", "content": [',
             *(json.dumps(m) for m in REFUND[4:])]
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_jsonl_bad_line_loads_the_rest_and_names_the_line(tmp_path):
    run = open_run(str(_with_bad_line(tmp_path)))
    assert run.messages == REFUND[:3] + REFUND[4:]
    assert len(run.warnings) == 1
    assert run.warnings[0].line == 5 and "invalid JSON" in run.warnings[0].text


def test_jsonl_bad_line_is_an_error_in_strict_mode(tmp_path):
    path = _with_bad_line(tmp_path)
    with pytest.raises(LoadError) as caught:
        load_runs(str(path), strict=True)
    assert (caught.value.line, caught.value.col) == (5, 35)  # just past the line's last character
    assert caught.value.line_text().startswith(f"{path}:5:35: invalid JSON")


# -- native -----------------------------------------------------------------------------------

def test_native_file_with_recorded_requests_and_responses():
    run = open_run(str(SAMPLES / "broken/rewritten_turn.turnscope.json"))
    assert run.source.format == "native" and run.exact
    assert [c.message for c in run.calls] == [1, 3, 5, 7]
    assert run.calls[1].response == REFUND[3]["content"]  # what the provider returned
    assert run.messages[3]["content"] == [REFUND[3]["content"][1]]  # what the loop stored
    assert [c.request.messages for c in run.calls] == [1, 3, 5, 7]
    assert run.calls[0].request_id == "req_011sample1"


def test_native_multi_run_file(tmp_path, cli):
    source = write_json(tmp_path / "bodies.json", [{"model": MODEL, "messages": REFUND[:k]} for k in (3, 7)])
    assert cli("convert", source, "-o", tmp_path / "both.turnscope.json").code == 0
    runs = load_runs(str(tmp_path / "both.turnscope.json"))
    assert [(r.source.format, len(r.messages), r.source.run_count, r.exact) for r in runs] == \
        [("native", 3, 2, True), ("native", 7, 2, True)]


def test_native_file_of_an_unknown_version_is_refused(tmp_path):
    path = write_json(tmp_path / "future.json", {"turnscope": 2, "messages": []})
    with pytest.raises(LoadError, match="unsupported native version 2"):
        open_run(str(path))


# -- sidecars ---------------------------------------------------------------------------------

@pytest.mark.parametrize("content, expected", [
    (SYSTEM + "\n", SYSTEM),  # plain text; the editor's trailing newline is dropped
    ("  Be brief.\n\n", "  Be brief.\n"),  # only one newline is the editor's
    (json.dumps("Be brief.\n"), "Be brief.\n"),  # a JSON string is taken as it is
    (json.dumps([text("Be brief.", cache_control={"type": "ephemeral"})]),
     [text("Be brief.", cache_control={"type": "ephemeral"})]),
    (json.dumps({"system": "From a request body.", "messages": []}), "From a request body."),
])
def test_system_sidecar(tmp_path, content, expected):
    (tmp_path / "system.txt").write_text(content)
    run = open_run(str(SAMPLES / "refund/messages.json"), system=str(tmp_path / "system.txt"))
    assert run.system == expected
    assert [w.text for w in run.warnings] == [f"system prompt attached from {tmp_path / 'system.txt'}"]


@pytest.mark.parametrize("value", [TOOLS, {"tools": TOOLS}, {"model": MODEL, "tools": TOOLS, "messages": []}])
def test_tools_sidecar(tmp_path, value):
    path = write_json(tmp_path / "tools.json", value)
    run = open_run(str(SAMPLES / "refund/messages.json"), tools=str(path))
    assert run.tools == TOOLS


def test_sidecars_replace_what_the_file_holds_and_say_so(tmp_path):
    write_json(tmp_path / "tools.json", [TOOL])
    (tmp_path / "system.txt").write_text("Be brief.")
    run = open_run(str(SAMPLES / "refund/request.json"), system=str(tmp_path / "system.txt"),
                   tools=str(tmp_path / "tools.json"))
    assert run.system == "Be brief." and run.tools == [TOOL]
    assert [w.text.split(" from ")[0] for w in run.warnings] == ["system prompt replaced", "tool schemas replaced"]


def test_the_bundled_separate_files_make_the_same_run_as_the_jsonl():
    joined = open_run(str(SAMPLES / "refund/run.jsonl"))
    separate = open_run(str(SAMPLES / "refund/messages.json"), system=str(SAMPLES / "refund/system.txt"),
                        tools=str(SAMPLES / "refund/tools.json"))
    assert (separate.messages, separate.system, separate.tools) == (joined.messages, joined.system, joined.tools)


@pytest.mark.parametrize("content, what", [
    ('{"name": "x"}', "--tools must be a JSON list"),
    ("[1, 2", "invalid JSON"),
])
def test_bad_tools_sidecar(tmp_path, content, what):
    (tmp_path / "tools.json").write_text(content)
    with pytest.raises(LoadError, match=what):
        open_run(str(SAMPLES / "refund/messages.json"), tools=str(tmp_path / "tools.json"))


# -- detection --------------------------------------------------------------------------------

@pytest.mark.parametrize("name, value, fmt", [
    ("body.jsonl", {"model": MODEL, "messages": REFUND[:3]}, "request"),  # the name does not matter
    ("messages.txt", REFUND, "messages"),
    ("run.json", None, "native"),
])
def test_format_is_detected_from_the_content(tmp_path, name, value, fmt):
    if value is None:
        (tmp_path / name).write_bytes((SAMPLES / "broken/rewritten_turn.turnscope.json").read_bytes())
    else:
        write_json(tmp_path / name, value)
    assert open_run(str(tmp_path / name)).source.format == fmt


def test_a_pretty_printed_request_body_is_not_mistaken_for_json_lines():
    assert open_run(str(SAMPLES / "refund/request.json")).source.format == "request"


def test_format_can_be_forced(tmp_path):
    path = write_jsonl(tmp_path / "one.jsonl", {"model": MODEL, "messages": REFUND[:3]})
    assert open_run(str(path)).source.format == "request"
    with pytest.raises(LoadError, match=r"one.jsonl:1:1: not in the messages format: line 1 has no 'role' key"):
        open_run(str(path), fmt="messages")  # a format that does not fit says where and which key
    with pytest.raises(LoadError, match="not a request body"):
        open_run(str(SAMPLES / "refund/messages.json"), fmt="request")
    with pytest.raises(UsageError, match="unknown format 'yaml'"):
        open_run(str(path), fmt="yaml")


def test_messages_are_kept_exactly_as_loaded(tmp_path):
    odd = [{"role": "user", "content": [text("hi", citations=None)], "x-extra": {"kept": True}},
           assistant(use("toolu_01Ab", "get_shipment", order_id="4471", nested={"a": [1, 2.5, None]})),
           user(result("toolu_01Ab", [text("done")], is_error=False))]
    run = open_run(str(write_json(tmp_path / "odd.json", odd)))
    assert run.messages == odd
    assert json.dumps(run.messages) == json.dumps(odd)  # key order too


def test_jsonl_with_a_bom_and_crlf_line_ends(tmp_path):
    path = tmp_path / "win.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(json.dumps(m).encode() for m in REFUND) + b"\r\n")
    assert open_run(str(path)).messages == REFUND


def test_jsonl_whose_first_line_is_broken_still_loads_the_rest(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"role": "user", "cont\n' + "\n".join(json.dumps(m) for m in REFUND[1:]) + "\n")
    run = open_run(str(path))
    assert run.messages == REFUND[1:]
    assert [(w.line, w.text.split(":")[0]) for w in run.warnings] == [(1, "skipped")]


def test_a_truncated_pretty_printed_body_is_a_parse_error_not_json_lines(tmp_path):
    path = tmp_path / "body.json"
    text_ = json.dumps({"model": MODEL, "messages": REFUND}, indent=2)
    path.write_text(text_[: len(text_) // 2])
    with pytest.raises(LoadError) as caught:
        open_run(str(path))
    assert caught.value.what.startswith("invalid JSON") and caught.value.line > 10
