"""The content check on planted secrets and real smuggling payloads: ``check`` flags every hidden text
(saying what it says) and every secret (kind and last four only), ``convert --redact`` writes a run
without a single secret, and the opaque values a replay needs (signatures, redacted thinking, ids)
come through byte-exact and are never taken for secrets."""

from __future__ import annotations

import orjson
import pytest
from planted import HIDDEN, REDACTED_DATA, SECRETS, SIGNATURE, leaked, planted, write_planted_run

from tui.cli import main
from tui.core.secrets import find_in, redact_text
from tui.formats import open_run


def _main(capfd, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capfd.readouterr()
    return code, captured.out, captured.err


@pytest.fixture()
def run_file(tmp_path):
    return write_planted_run(tmp_path / "planted.jsonl")


@pytest.mark.parametrize("kind", list(SECRETS))
def test_each_kind_is_found_named_and_redacted(kind):
    text = planted(kind)
    found = find_in(text)
    assert [s.kind for s in found] == [kind]
    redacted, _ = redact_text(text)
    assert f"⟨redacted: {kind}⟩" in redacted and not leaked(redacted)


def test_check_names_every_secret_by_kind_place_and_last_four_never_the_secret(run_file, capfd):
    code, out, err = _main(capfd, "check", run_file)
    assert code == 0, err  # warnings only
    assert not leaked(out + err)
    lines = [line for line in out.splitlines() if "secret_in_content" in line]
    for kind, secret in SECRETS.items():
        last4 = secret.replace("\n-----END RSA PRIVATE KEY-----", "")[-4:]
        mine = [line for line in lines if f"{kind} in" in line]
        places = {line.split(" in the ")[1].split(",")[0] for line in mine}
        assert {"text", "tool input headers.auth", "tool result"} <= places, (kind, places)
        assert all(line.endswith(f"ending …{last4}") for line in mine), mine
    system = [line for line in lines if line.startswith(f"{run_file}: ")]
    assert len(system) == 2 and all("in the system prompt" in line for line in system)


def test_check_flags_each_hidden_text_and_says_what_it_says(run_file, capfd):
    code, out, _ = _main(capfd, "check", run_file)
    hidden = [line for line in out.splitlines() if "hidden_text" in line]
    assert any(f":2.0: warning hidden_text: likely injection: " in line and HIDDEN["tags"][1] in line
               and "message 3" in line for line in hidden), hidden
    assert any(":0.0: " in line and HIDDEN["zero_width"][1] in line and HIDDEN["zero_width"][2] in line
               for line in hidden), hidden
    last = [line for line in hidden if line.split(": warning")[0].endswith(":23.0")]
    assert last and HIDDEN["bidi"][1] in last[0] and HIDDEN["selectors"][1] in last[0], hidden
    assert "likely injection" not in last[0]  # no tool result: the model wrote it


def test_check_json_holds_the_same_findings_without_a_secret(run_file, capfd):
    code, out, _ = _main(capfd, "check", run_file, "--json")
    doc = orjson.loads(out)
    rules = [f["rule"] for f in doc["findings"]]
    assert rules.count("secret_in_content") == 2 + 1 + 3 * len(SECRETS) and rules.count("hidden_text") == 3
    assert not leaked(out)


def test_signatures_and_opaque_values_are_never_secrets_and_survive_convert_redact(run_file, tmp_path, capfd):
    target = tmp_path / "redacted.turnscope.json"
    code, out, err = _main(capfd, "convert", run_file, "--redact", "-o", target)
    assert code == 0, err
    assert "secrets redacted" in out and not leaked(out + err)
    data = target.read_bytes()
    assert not leaked(data), "a secret reached the converted file"
    doc = orjson.loads(data)
    blocks = [b for m in doc["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert [b["signature"] for b in blocks if b["type"] == "thinking"] == [SIGNATURE] * len(SECRETS)
    assert [b["data"] for b in blocks if b["type"] == "redacted_thinking"] == [REDACTED_DATA] * len(SECRETS)
    assert [b["id"] for b in blocks if b["type"] == "tool_use"] == [f"toolu_{k:02d}" for k in range(len(SECRETS))]
    text = data.decode()
    for kind in SECRETS:
        assert text.count(f"⟨redacted: {kind}⟩") >= 3, kind
    # hidden text is flagged, not removed: the redacted file still holds it exactly
    assert HIDDEN["tags"][0] in orjson.loads(data)["messages"][2]["content"][0]["content"]
    again = open_run(str(target))
    code, out, _ = _main(capfd, "check", target)
    assert "secret_in_content" not in out and len(again.messages) == 2 + 2 * len(SECRETS)


def test_convert_without_redact_keeps_every_byte(run_file, capfd):
    code, out, _ = _main(capfd, "convert", run_file)
    assert code == 0 and len(leaked(out)) == len(SECRETS)  # the run as it is: convert alone never changes text


@pytest.mark.parametrize("kind", list(SECRETS))
def test_a_secret_deep_in_a_long_tool_output_is_found_and_its_span_is_whole(kind):
    """The plugins run only on the lines that could hold a secret: one among a thousand lines of prose
    and short JSON rows is still found, and redacted whole (a private key over its many lines)."""
    prose = "\n".join(f'row {k}: {{"status": "ok", "n": {k}}} the parcel was scanned' for k in range(500))
    text = f"{prose}\n{planted(kind)}\n{prose}"
    found = find_in(text)
    assert [s.kind for s in found] == [kind]
    redacted, _ = redact_text(text)
    assert not leaked(redacted) and redacted.startswith(prose) and redacted.endswith(prose)


def test_a_title_kept_in_the_recent_runs_list_holds_no_secret_not_even_a_cut_one():
    from tui.core.secrets import redact_title

    assert redact_title("Deploy it. " + planted("Slack Token")[:40]) == "Deploy it. the key is ⟨redacted: Slack Token⟩"
    cut = "Use " + SECRETS["AWS Access Key"][:14] + "…"
    assert redact_title(cut) == "Use …" and redact_title("the parcel was scanned and deliv…").endswith("deliv…")


def test_the_fast_path_on_a_runs_json_agrees_with_the_walk(tmp_path):
    """``content_findings`` settles a run with no hidden text and no secret on its JSON without a walk; it
    must never settle a run that has some: each planted kind alone, and each hidden payload alone."""
    from hostile import CORPUS

    from tui.core.content_check import content_findings
    from tui.core.hidden import hidden_in
    from tui.core.run import Run

    def one(text: str, where: str) -> Run:
        messages = [{"role": "user", "content": "hello"},
                    {"role": "assistant", "content": [
                        {"type": "thinking", "thinking": "x", "signature": SIGNATURE},
                        {"type": "tool_use", "id": "toolu_" + "A" * 24, "name": "t",
                         "input": {"q": text if where == "input" else "x"}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_" + "A" * 24,
                                                  "content": text if where == "result" else "ok"}]}]
        return Run(messages=messages, system=text if where == "system" else None)

    assert content_findings(one("nothing to see here", "result")) == []
    for where in ("input", "result", "system"):
        for kind in SECRETS:
            assert [f.rule for f in content_findings(one(planted(kind), where))] == ["secret_in_content"], (kind, where)
        for item in CORPUS:  # whatever the walk finds in a payload, the fast path lets through to it
            rules = [f.rule for f in content_findings(one(item.payload, where))]
            assert ("hidden_text" in rules) == bool(hidden_in(item.payload)), (item.name, where)
        for text, _, _ in HIDDEN.values():
            assert [f.rule for f in content_findings(one(text, where))] == ["hidden_text"], (text, where)


def test_the_fast_path_settled_value_by_value_agrees_with_the_walk_too(tmp_path, monkeypatch):
    """The run's JSON is settled in pieces (a whole 100 MB run's JSON and its mask doubled the memory): with
    every value a piece of its own, the planted secrets and hidden payloads still all reach the walk."""
    from tui.core import content_check

    monkeypatch.setattr(content_check, "PIECE_BYTES", 1)
    test_the_fast_path_on_a_runs_json_agrees_with_the_walk(tmp_path)

def test_a_secret_under_any_key_of_a_tool_input_is_found_and_redacted_an_id_of_a_block_is_not(tmp_path, capfd):
    """Inside a tool's input every key is the model's text (``{"data": ..., "id": ..., "signature": ...}``);
    outside it, a block's id, signature and data are opaque and stay as they are."""
    from tui.core.content_check import content_findings
    from tui.core.run import Run

    secret = SECRETS["GitHub Token"]
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_x", "name": "post",
                     "input": {"data": planted("GitHub Token"), "id": planted("GitHub Token"),
                               "nested": {"signature": planted("GitHub Token"), "type": planted("GitHub Token")}}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "ok"}]}]
    found = content_findings(Run(messages=messages))
    assert sorted(f.message.split(",")[0] for f in found) == sorted(
        f"GitHub Token in the tool input {path}" for path in ("data", "id", "nested.signature", "nested.type"))
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(m) for m in messages) + b"\n")
    code, out, _ = _main(capfd, "convert", path, "--redact")
    assert code == 0 and secret not in out and out.count("⟨redacted: GitHub Token⟩") == 4


def test_a_huge_token_run_is_scanned_at_its_ends_fast():
    """A 2.5 MB run of token characters (a dump, media) is no credential; one glued to either end is found."""
    from tui.core.content_check import content_findings
    from tui.core.run import Run

    def run_of(text: str) -> Run:
        return Run(messages=[{"role": "user", "content": [{"type": "text", "text": text}]}])

    assert content_findings(run_of("x" * 2_500_000)) == []
    for text in ("x" * 2_500_000 + SECRETS["GitHub Token"], SECRETS["AWS Access Key"] + "x" * 2_500_000):
        assert [f.rule for f in content_findings(run_of(text))] == ["secret_in_content"]


def test_the_pre_check_holds_every_pattern_of_every_plugin_used():
    """detect-secrets is imported only when one of its plugins' patterns matches (``could_match``), from a copy
    of them: for the installed release it must be their very patterns and flags, and every plugin must
    yield only what its patterns match (a ``RegexBasedDetector``), so a sample none matches holds no secret."""
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector

    from tui.core import secrets

    assert secrets._installed_release() == secrets._PATTERNS_OF  # else the copy is not used: bring it up to date
    used = []
    for plugin in secrets.detectors():
        assert isinstance(plugin, RegexBasedDetector), type(plugin).__name__
        assert type(plugin).analyze_string in (RegexBasedDetector.analyze_string, JwtTokenDetector.analyze_string)
        used += [(pattern.pattern, pattern.flags) for pattern in plugin.denylist]
    assert sorted(used) == sorted((p.pattern, p.flags) for p in secrets.pre_check())
    for kind in SECRETS:
        assert secrets.could_match(planted(kind)), kind
    assert not secrets.could_match("nothing to see here, order 4471, kb/tracking_policy.md")


def test_another_release_of_the_library_is_asked_itself(monkeypatch):
    """With a release the copy was not made from, every sample goes to the library's plugins."""
    from tui.core import secrets

    monkeypatch.setattr(secrets, "_installed_release", lambda: "0.0.1")
    secrets.pre_check.cache_clear()
    try:
        assert secrets.pre_check() is None and secrets.could_match("nothing to see here")
        for kind in SECRETS:
            assert [s.kind for s in secrets.find_in(planted(kind))] == [kind]
    finally:
        monkeypatch.undo()
        secrets.pre_check.cache_clear()


@pytest.mark.parametrize("stripe", [1, 2, 5])
def test_the_content_check_in_parts_finds_what_it_finds_whole(run_file, monkeypatch, stripe):
    """Part k of m checks every m-th stripe of messages (part 0 the system prompt and tools too), as the
    analyses' two processes do: the parts' findings joined and sorted are the whole check's, in its order,
    each part finding only what lies in its own messages."""
    from tui.core import content_check
    from tui.core.grammar.findings import sort_findings

    monkeypatch.setattr(content_check, "STRIPE", stripe)
    run = open_run(str(run_file))
    whole = content_check.content_findings(run)
    assert len({f.index for f in whole}) > 5
    for m in (2, 3):
        parts = [content_check.content_findings(run, (k, m)) for k in range(m)]
        assert all(parts), [len(p) for p in parts]
        for k, found in enumerate(parts):
            mine = set(content_check.part_indices(len(run.messages), (k, m))) | ({None} if k == 0 else set())
            assert {f.index for f in found} <= mine
        assert sort_findings([f for found in parts for f in found]) == whole
