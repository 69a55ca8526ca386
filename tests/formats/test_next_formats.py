"""The codex, inspect and har samples in realruns/next as a user meets them: ``check`` on all of them in
one process, ``list`` naming the format and the kind of prefix, and detection that claims no other
format's sample (the OTel, Langfuse and Gemini files are other loaders' to read)."""

from __future__ import annotations

import orjson

from tui.formats import detect
from tui.formats.document import read_document

OURS = {"codemie": "codex", "inspect": "inspect", "openllmetryjs": "har"}


def _ours(realruns):
    return sorted(p for p in (realruns / "next").iterdir() if p.name.split("__")[0] in OURS)


def test_check_reads_every_sample_with_no_error_finding(realruns, cli):
    files = _ours(realruns)
    assert len(files) == 19
    result = cli("check", *files, "--json", timeout=300)
    assert result.code == 0 and result.stderr == "", result.stdout[-2000:] + result.stderr
    docs = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert {d["file"] for d in docs} == {str(p) for p in files}
    for doc in docs:
        assert doc["format"] == OURS[doc["file"].rsplit("/", 1)[1].split("__")[0]]
        assert not [f for f in doc["findings"] if f["severity"] == "error"], doc["file"]
        if doc["prefix"] == "reconstructed":
            assert doc["warnings"], f"{doc['file']}: a reconstructed run says how it was rebuilt"


def test_list_names_the_format_and_whether_prefixes_are_exact(realruns, cli):
    seen = set()
    for path in _ours(realruns):
        result = cli("list", path)
        assert result.code == 0, result.stderr
        head = result.stdout.splitlines()[0]
        fmt = OURS[path.name.split("__")[0]]
        assert head.startswith(f"{path}: ") and f"({fmt}, " in head
        seen.add(head.rsplit("(", 1)[1])
    assert {"har, exact prefixes)", "har, reconstructed prefixes)", "codex, reconstructed prefixes)",
            "inspect, reconstructed prefixes)"} <= seen


def test_no_other_sample_in_next_is_taken_for_one_of_these_formats(realruns):
    for path in sorted((realruns / "next").iterdir()):
        if path.suffix == ".md" or path.name.split("__")[0] in OURS:
            continue
        try:
            name = detect(read_document(str(path))).NAME
        except Exception:  # noqa: BLE001 - not ours to read: any refusal is fine here
            continue
        assert name not in OURS.values(), path.name
