"""``turnscope stats`` over the whole ``../shared/realruns`` folder: every format the loaders read is
counted, run by run, and the files that are not runs (licences, notes, the inventory) are skipped."""

from __future__ import annotations

import json
import math
import os
from collections import Counter

from tui.core.errors import LoadError
from tui.formats import load_runs


def test_stats_reads_every_run_of_every_format_in_the_realruns_folder(cli, realruns):
    # By hand: every file under the folder, each loaded on its own.
    expected: Counter = Counter()
    formats: Counter = Counter()
    runs = files = skipped = 0
    for root, _, names in os.walk(realruns):
        for name in names:
            files += 1
            try:
                loaded = load_runs(os.path.join(root, name))
            except LoadError:
                skipped += 1
                continue
            runs += len(loaded)
            for run in loaded:
                expected[len(run.calls)] += 1
                formats[run.source.format] += 1
    assert set(formats) >= {"claude-code", "vcr", "openai"}  # transcripts, cassettes, tau-bench and SWE-agent
    assert formats["openai"] >= 201  # tau-bench's 200 trajectories and one SWE-agent run
    result = cli("stats", realruns, "--json")
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert (doc["runs"], doc["files"], doc["skipped"]) == (runs, files, skipped)
    assert doc["calls"]["histogram"] == {str(k): expected[k] for k in sorted(expected)}
    assert doc["calls"]["max"] == max(expected)
    ordered = sorted(expected.elements())  # nearest rank: the ceil(p% x n)-th smallest
    for p in (50, 90, 99):
        assert doc["calls"][f"p{p}"] == ordered[math.ceil(p / 100 * len(ordered)) - 1]
    ended = sum(doc["ended"].values())
    assert ended == runs and sum(doc["tokens"]["kinds"].values()) == runs
    assert doc["tokens"]["kinds"].get("recorded", 0) > 0 and doc["tokens"]["kinds"].get("estimated", 0) >= 201
    text = cli("stats", realruns)
    assert text.code == 0 and f"{runs} runs in {files - skipped} files ({skipped} other files skipped" in text.stdout
    assert "suggested iteration cap:" in text.stdout
