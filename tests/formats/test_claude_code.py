"""Claude Code transcripts: the rebuilt thread is the message list Claude Code sent, on the real files.

Split turns (one line per content block), results on sibling branches, compaction, inline and
separate subagents, per-call usage; and on a synthetic file: a rewind, an API error line Claude
Code wrote itself, a transcript-only line."""

from __future__ import annotations

import shutil

import orjson
import pytest

from loader_helpers import FIXTURES
from tui.core.grammar import check_run
from tui.formats import load_runs

PAIRING = {"tool_use_without_result", "unexpected_tool_use_id", "results_split_across_turns", "consecutive_user",
           "tool_result_not_first", "tool_use_unanswered_at_end", "duplicate_tool_use_id"}


def _lines(path):
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _transcripts(realruns):
    return sorted(p for p in realruns.glob("*.jsonl") if p.name.startswith(("spotter", "ccviewer")))


def test_every_rebuilt_thread_answers_every_tool_use_in_the_next_turn(realruns):
    threads = 0
    for path in _transcripts(realruns):
        for run in load_runs(str(path)):
            findings = [f for f in check_run(run) if f.rule in PAIRING]
            assert findings == [], f"{path.name} run {run.source.run_index}: {[f.message for f in findings]}"
            threads += 1
    assert threads >= 15


def test_lines_of_one_answer_are_one_turn_with_the_blocks_in_the_order_written(realruns):
    for path in _transcripts(realruns):
        written: dict[str, list] = {}
        for line in _lines(path):
            message = line.get("message") or {}
            if line.get("type") == "assistant" and message.get("id"):
                written.setdefault(message["id"], []).extend(message["content"])
        for run in load_runs(str(path)):
            rebuilt = {w.index for w in run.warnings if "rebuilt as sent" in w.text}
            for call in run.calls:
                content = run.messages[call.message]["content"]
                blocks = {b.get("id") or b.get("text") or b.get("signature") for b in content}
                [answer] = [ws for ws in written.values()
                            if {b.get("id") or b.get("text") or b.get("signature") for b in ws} - {"\n\n"} == blocks]
                if call.message in rebuilt:  # the whitespace block written ahead of the thinking is left out
                    answer = answer[1:]
                assert content == answer, f"{path.name}: message {call.message}"


def test_a_split_answer_with_results_written_between_its_lines(realruns):
    # agent-aac57f5: one answer's six tool_use lines interleave with the results of the first ones
    [run] = load_runs(str(realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04__subagents__agent-aac57f5.jsonl"))
    uses = [b["id"] for b in run.messages[3]["content"] if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for b in run.messages[4]["content"]]
    assert len(uses) == 6 and sorted(results) == sorted(uses)
    assert [m["role"] for m in run.messages] == ["user", "assistant"] * 3


def test_results_on_sibling_branches_are_kept(realruns):
    path = realruns / "spotter__short.jsonl"
    lines = _lines(path)
    by_uuid = {line["uuid"]: line for line in lines if "uuid" in line}
    walked, line = [], [x for x in lines if x.get("type") in ("user", "assistant")][-1]
    while line is not None:  # the naive walk back from the last record
        walked.append(line)
        line = by_uuid.get(line.get("parentUuid"))
    naive = {b.get("tool_use_id") for x in walked for b in (x["message"]["content"] if isinstance(
        x.get("message", {}).get("content"), list) else []) if b.get("type") == "tool_result"}
    assert naive == {"toolu_01FdQ8qTyVyZjE3Kw4dguQGx"}  # the naive walk loses a result
    [run] = load_runs(str(path))
    assert [b.get("tool_use_id") for b in run.messages[2]["content"]][:2] == [
        "toolu_0116Hyi5v8ut7Ffb7d8qV1Sc", "toolu_01FdQ8qTyVyZjE3Kw4dguQGx"]
    assert any("sibling branches" in w.text for w in run.warnings)


def test_a_compacted_session_starts_from_the_compact_summary(realruns):
    path = realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
    summary = next(x for x in _lines(path) if x.get("isCompactSummary"))
    after, before = load_runs(str(path))
    assert after.messages[0]["content"][0]["text"] == summary["message"]["content"]
    assert any("compacted" in w.text and w.line == 1481 for w in after.warnings)
    assert before.title().startswith("before the compaction at line 1481")
    assert before.messages[0]["content"].startswith("Work on bead spotter-4te")
    assert before.messages[-1]["content"][0]["text"].startswith("Perfect! I have successfully completed")


def test_inline_sidechains_are_further_runs(realruns):
    main, *subagents = load_runs(str(realruns / "ccviewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"))
    assert [r.title()[:40] for r in subagents] == ["subagent: Examine the package.json file(", "subagent: Analyze the current project st"]
    task_results = [b for m in main.messages if isinstance(m["content"], list) for b in m["content"]
                    if b.get("type") == "tool_result" and isinstance(b.get("content"), list)]
    final = subagents[0].messages[-1]["content"][0]["text"]
    assert any(final == part.get("text") for b in task_results for part in b["content"])
    prompts = {r.messages[0]["content"] for r in subagents}
    assert not any(m["content"] in prompts for m in main.messages if isinstance(m["content"], str))


def test_subagent_files_beside_a_session_are_further_runs(realruns, tmp_path):
    session = tmp_path / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
    shutil.copy(realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl", session)
    folder = tmp_path / "ae4a77f8-aedd-4bc1-888f-c94edc91af04" / "subagents"
    folder.mkdir(parents=True)
    for name in ("agent-aac57f5", "agent-acompact-946d2b"):
        shutil.copy(realruns / f"spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04__subagents__{name}.jsonl",
                    folder / f"{name}.jsonl")
    (folder / "agent-broken.jsonl").write_text("{not json\n")
    runs = load_runs(str(session))
    assert [r.title()[:31] for r in runs[2:]] == ["subagent agent-aac57f5: Search ", "subagent agent-acompact-946d2b:"]
    assert any("subagent file not read" in w.text and "agent-broken.jsonl" in w.text for w in runs[0].warnings)
    assert runs[2].source.path == str(folder / "agent-aac57f5.jsonl") and runs[2].source.run_index == 2
    assert any("2 subagent runs" in w.text for w in runs[0].warnings)


def test_a_subagent_file_alone_is_its_own_thread(realruns):
    [run] = load_runs(str(realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04__subagents__agent-acompact-946d2b.jsonl"))
    assert [m["role"] for m in run.messages] == ["user", "assistant"]
    assert any("not in this file" in w.text for w in run.warnings)
    assert run.meta["agent_id"] == "acompact-946d2b"


def test_each_call_keeps_the_usage_model_and_request_id_of_its_answer(realruns):
    path = realruns / "spotter__tool_heavy.jsonl"
    answers = {}
    for line in _lines(path):
        if line.get("type") == "assistant":
            answers[line["message"]["id"]] = line
    [run] = load_runs(str(path))
    assert len(run.calls) == 4
    for call in run.calls:
        line = next(x for x in answers.values() if x["requestId"] == call.request_id)
        assert call.usage == line["message"]["usage"] and call.model == line["message"]["model"]
        assert call.started is not None and call.duration_ms > 0


def test_the_prefix_is_said_to_be_reconstructed(realruns, cli):
    path = realruns / "spotter__tool_heavy.jsonl"
    [run] = load_runs(str(path))
    assert not run.exact and "no system prompt, tool schemas or params" in run.warnings[0].text
    shown = cli("show", path, "--at", "3")
    assert shown.code == 0 and "prefix: reconstructed" in shown.stdout
    assert "this source holds no system prompt and no tool schemas" in shown.stdout


def test_a_whitespace_block_ahead_of_thinking_is_left_out_as_claude_code_sends_it(realruns):
    """Stored ``[text "\\n\\n", thinking, text, tool_use]``; the session went on for dozens of calls, so the
    turn was sent with thinking first: it is rebuilt that way, said per message, and no error is reported."""
    path = realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
    stored = [line for line in _lines(path) if line.get("type") == "assistant"]
    assert stored[0]["message"]["content"][0] == {"type": "text", "text": "\n\n"}
    for run in load_runs(str(path))[:2]:
        assert [b["type"] for b in run.messages[1]["content"]][:1] == ["thinking"]
        assert not [f for f in check_run(run) if f.severity == "error"]
        notes = [w for w in run.warnings if "rebuilt as sent" in w.text]
        assert notes and all(w.index is not None and f"message {w.index}:" in w.text for w in notes)
        assert 'stores the turn as [text "\\n\\n", thinking, ...]' in notes[0].text
        assert "rewritten by the loop" not in " ".join(w.text for w in run.warnings)
    [short] = load_runs(str(realruns / "spotter__short.jsonl"))
    assert [b["type"] for b in short.messages[1]["content"]] == ["thinking", "text", "tool_use", "tool_use"]
    assert [f.rule for f in check_run(short)] == []


def test_rewinds_api_error_lines_and_transcript_only_lines_are_left_out():
    [run] = load_runs(str(FIXTURES / "claude_code" / "rewind.jsonl"))
    texts = [b.get("text") for m in run.messages for b in (m["content"] if isinstance(m["content"], list) else [])]
    assert "I will rewrite refund() entirely." not in texts and "API Error: 529 Overloaded" not in texts
    assert [m["role"] for m in run.messages] == ["user", "assistant", "user", "assistant"]
    assert [b.get("type") for b in run.messages[2]["content"]] == ["tool_result", "text", "text"]
    assert run.title() == "Refund rounding" and len(run.calls) == 2
    notes = " | ".join(w.text for w in run.warnings)
    for expected in ("abandoned branches", "Claude Code wrote itself", "shown only in the transcript view",
                     "tool results put before the other blocks"):
        assert expected in notes


@pytest.mark.parametrize("forced", ["claude-trace", "vcr"])
def test_forcing_a_format_that_does_not_fit_is_one_clear_line(realruns, cli, forced):
    result = cli("check", realruns / "spotter__short.jsonl", "--format", forced)
    assert result.code == 2 and "Traceback" not in result.stderr and result.stderr.startswith("turnscope: ")


def test_the_index_links_every_line_as_the_file_does_progress_lines_included(realruns):
    # progress lines are kept as bare links, not records: the tree must still be the file's own
    from tui.formats.document import read_document
    from tui.formats.transcript.records import read_index
    progress = 0
    for path in _transcripts(realruns):
        by_uuid = {}
        for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
            value = orjson.loads(line) if line.strip() else None
            if isinstance(value, dict) and isinstance(value.get("uuid"), str):
                by_uuid[value["uuid"]] = (value.get("parentUuid"), value.get("type"), value.get("isSidechain") is True,
                                          number)
        index = read_index(read_document(str(path)))
        linked = {uuid: (r.parent, r.kind, r.sidechain, r.line) for uuid, r in index.nodes.items()}
        assert linked == by_uuid, path.name
        assert index.skipped.get("progress", 0) == sum(1 for v in by_uuid.values() if v[1] == "progress")
        progress += index.skipped.get("progress", 0)
    assert progress > 1000


def test_a_thread_runs_through_the_progress_lines_it_hangs_off(realruns):
    # in this session a user prompt hangs off a chain of SessionStart hook lines
    path = realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
    lines = _lines(path)
    hooked = [x for x in lines if x.get("type") in ("user", "assistant") and any(
        y.get("uuid") == x.get("parentUuid") and y.get("type") == "progress" for y in lines)]
    assert len(hooked) >= 5
    after, before = load_runs(str(path))
    prompts = {m["content"] if isinstance(m["content"], str) else None for m in before.messages + after.messages}
    assert any(isinstance(x["message"]["content"], str) and x["message"]["content"] in prompts for x in hooked)
    assert not any("not in this file" in w.text for w in after.warnings + before.warnings)


def test_a_line_that_is_not_json_is_skipped_with_its_line_number(realruns, tmp_path):
    lines = (realruns / "spotter__short.jsonl").read_bytes().splitlines()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines[:4] + [b'{"type": "user", broken'] + lines[4:]) + b"\n")
    [run] = load_runs(str(path))
    assert len(run.messages) == 3
    assert any(w.line == 5 and "invalid JSON" in w.text for w in run.warnings)


def test_a_chain_ending_at_a_boundary_whose_parent_is_elsewhere_is_the_run_before_the_compaction():
    runs = load_runs(str(FIXTURES / "claude_code" / "compacted_elsewhere.jsonl"))
    assert [(len(r.messages), len(r.calls)) for r in runs] == [(2, 1), (4, 2)]
    assert runs[1].title().startswith("before the compaction at line 5: Round the refund correctly.")
    notes = " | ".join(w.text for r in runs for w in r.warnings)
    assert "abandoned branches" not in notes
    assert "names a parent (c-gone-0000) that is not in this file" in notes


def test_only_a_real_branch_point_makes_abandoned_lines_and_the_warning_says_where():
    [run] = load_runs(str(FIXTURES / "claude_code" / "rewind.jsonl"))
    [note] = [w for w in run.warnings if "abandoned branches" in w.text]
    assert "from the branch point at line 2" in note.text and note.line == 3


def test_a_compaction_agents_file_yields_its_one_run(realruns):
    for path in (FIXTURES / "claude_code" / "agent-acompact-retry.jsonl",
                 realruns / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04__subagents__agent-acompact-946d2b.jsonl"):
        [run] = load_runs(str(path))
        assert len(run.calls) == 1 and [m["role"] for m in run.messages] == ["user", "assistant"]
    [run] = load_runs(str(FIXTURES / "claude_code" / "agent-acompact-retry.jsonl"))
    assert any("no model call answered" in w.text and w.line == 1 for w in run.warnings)
