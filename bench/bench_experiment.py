"""An experiment's own overhead per sample, and the time to summarise 100 samples, measured, not asserted.

    python bench/bench_experiment.py [--samples 40] [--summary 100]

Against the tests' fake Messages API on 127.0.0.1 answering at once (one short text turn), in
one process, side by side:
- the same streamed request sent N times through the SDK alone (one client, one at a time);
- an experiment of N samples on the refund run (concurrency 1, so the two are comparable):
  the branch files made up front, each sample's runner, saves, the pool, the tally.
The overhead per sample is (experiment - SDK alone) / N; the target is under 20 ms.
Then the summary of an experiment of ``--summary`` finished samples (loading every sample
file, counting, Wilson intervals, the text lines the CLI prints); the target is under 100 ms;
and the same for the app's experiment screen (the outcomes and tally it reads after each sample
ends, its summary and every row built).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))

from fake_messages_api_stream import FakeMessagesAPI, Turn, text  # noqa: E402

from tui.commands.branch_experiment import summary_lines  # noqa: E402
from tui.core.branch import api, experiment as experiments, patch as patches, store  # noqa: E402
from tui.core.branch.resolvers import make_resolver  # noqa: E402
from tui.core.branch.tally import Event  # noqa: E402
from tui.formats import open_run  # noqa: E402

REFUND = ROOT / "sample_runs" / "refund" / "run.jsonl"


async def sdk_alone(n: int) -> float:
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, 4)
    body = patches.apply(base, patches.tool_error(base, "toolu_01Ef", "down"), 4)
    client = api.make_client()
    t0 = time.perf_counter()
    for _ in range(n):
        await api.stream_turn(client, body, 5, lambda event: None)
    elapsed = time.perf_counter() - t0
    await client.close()
    return elapsed


def make_experiment(folder: Path, n: int) -> experiments.Experiment:
    parent = open_run(str(REFUND))
    base = patches.base_document(parent, 4)
    return experiments.create(parent, 4, patches.tool_error(base, "toolu_01Ef", "down"), samples=n, control=False,
                              resolver="recorded", parent_sha=store.sha256_of(REFUND), concurrency=1,
                              event="issue_refund", output=folder / f"bench-{n}.experiment.json")


async def experiment_run(exp: experiments.Experiment) -> None:
    work = experiments.ExperimentRunner(exp, lambda b: make_resolver("recorded", exp.parent, edited=b.run))
    await work.run()


def screen_text_ms(exp: experiments.Experiment) -> float:
    """The app's experiment screen after a sample ends: outcomes and tally read, summary and rows built."""
    from tui.app.screens.experiment import ExperimentScreen, sample_text

    screen = ExperimentScreen(exp)
    t0 = time.perf_counter()
    arms, original, event = exp.outcomes()
    screen.arms, screen.original, screen.tally = arms, original, exp.summarise(arms, original, event)
    screen._summary_text()
    for arm in arms:
        for k, sample in enumerate(arm.samples):
            sample_text(k, sample, len(str(len(arm.samples))), k == 0)
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--summary", type=int, default=100)
    args = parser.parse_args()
    fake = FakeMessagesAPI().start()
    fake.responder = lambda body: Turn([text("Sorry, I cannot confirm the policy.")])
    os.environ.update(fake.env())
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        asyncio.run(sdk_alone(3))  # warm up: imports, the first connection
        alone = asyncio.run(sdk_alone(args.samples))
        t0 = time.perf_counter()
        exp = make_experiment(folder, args.samples)
        asyncio.run(experiment_run(exp))
        tally = exp.tally()
        summary_lines(tally)
        whole = time.perf_counter() - t0
        per_sdk, per_exp = alone / args.samples * 1000, whole / args.samples * 1000
        print(f"SDK alone: {per_sdk:.1f} ms per request · experiment: {per_exp:.1f} ms per sample "
              f"· overhead {per_exp - per_sdk:.1f} ms per sample (target < 20 ms) · {args.samples} samples")

        big = make_experiment(folder, args.summary)
        asyncio.run(experiment_run(big))
        reopened, _ = experiments.load(big.path, open_run)
        t0 = time.perf_counter()
        lines = summary_lines(reopened.tally(Event.parse("issue_refund")))
        took = (time.perf_counter() - t0) * 1000
        print(f"summary of {args.summary} samples (load every file, count, intervals, {len(lines)} lines): "
              f"{took:.1f} ms (target < 100 ms)")
        print(f"experiment screen, {args.summary} samples: {screen_text_ms(reopened):.1f} ms to read the outcomes "
              "and build its summary and every row (what it does after each sample ends; target < 100 ms)")
    fake.stop()


if __name__ == "__main__":
    main()
