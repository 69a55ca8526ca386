"""An experiment: one edit sampled K times against a control (the same request, unedited), each
sample its own branch file, all of them named by one experiment file.

The API takes no seed, so samples are independent draws; the control arm is what makes a
count of the edited arm mean something. ``create`` checks the edit, writes every sample's
branch file (messages 0..N, nothing sent yet) and the experiment file, all atomically, before
anything is sent; ``ExperimentRunner`` runs the unfinished samples concurrently, at most C at
a time, through one SDK client (its own retries and backoff first); a sample that still ends on
a 429, a 529, a 5xx or a network failure halves the pool's width (never below one) and is tried
again from its last saved turn after a pause, and the pool widens again one step per sample
that completes. A stop or a kill keeps every turn each sample saved; ``load`` + the runner
continue the unfinished samples and never send a finished one again.

The experiment file (``*.experiment.json``)::

    {"turnscope_experiment": 1, "parent": {path, sha256, run, format, ...}, "at": N,
     "patch": [...], "control_patch": [...], "model": M, "samples": K, "control": true,
     "concurrency": C, "resolver": SPEC, "max_steps": S, "event": SPEC or null,
     "created": ISO TIME, "estimate": {...}, "arms": {"edited": [FILE, ...], "control": [...]}}

Sample files are named relative to the experiment file (``<name>.samples/edited-01.turnscope.json``),
in a folder of their own so a run's branch list is not flooded by them.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tui.core import estimate as estimates, jsonio
from tui.core.branch import api, marker, patch as patches, runner, store
from tui.core.branch.events import ApiFailure, Finished
from tui.core.branch.resolvers import Resolver
from tui.core.branch.tally import Arm, Event, Sample, summary
from tui.core.errors import LoadError, UsageError
from tui.core.run import Run

VERSION = 1
DEFAULT_CONCURRENCY = 4
#: Attempts per sample when the API keeps answering 429/529/5xx or the network fails.
ATTEMPTS = 6
BACKOFF_VARIABLE = "TURNSCOPE_EXPERIMENT_BACKOFF"  # seconds of the first pause (default 1), doubling
DONE = ("end_turn", "stop_sequence", "max_tokens", "refusal", "pause_turn", "max_steps", "stopped")


def new_path(parent_sha: str, at: int, k: int, data_dir: Any = None) -> Path:
    base = store.new_path(parent_sha, at, data_dir)
    return base.with_name(base.name[:-len(store.SUFFIX)] + f"-x{k}" + marker.SUFFIX)


def samples_folder(path: Path) -> Path:
    return path.with_name(path.name[:-len(marker.SUFFIX)] + ".samples") if path.name.endswith(marker.SUFFIX) \
        else path.with_name(path.name + ".samples")


#: Above this many estimated input tokens (the first calls of every sample, both arms) the app asks
#: before sending an experiment; ``TURNSCOPE_CONFIRM_TOKENS`` sets another (0: always ask).
CONFIRM_TOKENS = 50_000


def confirm_tokens() -> int:
    """The estimated input tokens above which an experiment is confirmed before it is sent."""
    value = os.environ.get("TURNSCOPE_CONFIRM_TOKENS", "").strip()
    return int(value) if value.isdigit() else CONFIRM_TOKENS


def request_estimate(parent: Run, at: int, patch: list[Any], control_patch: list[Any], k: int,
                     control: bool) -> dict[str, Any]:
    """Input tokens of the first call of every sample, before anything is sent.

    Recorded usage of the request that produced message N+1, where the run recorded one, moved by
    the estimated size of the edit; else the offline estimate. ``source`` says which."""
    base = patches.base_document(parent, at)
    edited = estimates.request_tokens(patches.apply(base, patch, at))
    unedited = estimates.request_tokens(patches.apply(base, control_patch, at))
    call = parent.call_for(at + 1) if at + 1 < len(parent.messages) else None
    usage = call.usage if call is not None and isinstance(call.usage, dict) else {}
    recorded = sum(int(usage.get(f) or 0) for f in ("input_tokens", "cache_creation_input_tokens",
                                                        "cache_read_input_tokens"))
    if recorded > 0:
        per_edited, per_control = max(1, recorded + edited - unedited), recorded
        source = (f"recorded usage of message {at + 1}'s request, moved by the estimated size of the edit "
                  f"({edited - unedited:+d})")
    else:
        per_edited, per_control, source = edited, unedited, "estimated offline (no usage recorded)"
    arms = 2 if control else 1
    total = per_edited * k + (per_control * k if control else 0)
    return {"per_request": {"edited": per_edited, **({"control": per_control} if control else {})},
            "samples": k, "arms": arms, "input_tokens": total, "source": source,
            "recorded": recorded > 0, "note": "first model call of each sample only; each further step adds its own"}


@dataclass
class Experiment:
    """An experiment file and its samples."""

    path: Path
    doc: dict[str, Any]
    parent: Run | None = None
    branches: dict[tuple[str, int], runner.Branch] = field(default_factory=dict)

    @property
    def at(self) -> int:
        return int(self.doc["at"])

    @property
    def arms(self) -> list[str]:
        return list(self.doc["arms"])

    def sample_path(self, arm: str, k: int) -> Path:
        return self.path.parent / self.doc["arms"][arm][k]

    def samples(self) -> list[tuple[str, int]]:
        return [(arm, k) for arm in self.arms for k in range(len(self.doc["arms"][arm]))]

    def save(self) -> None:
        jsonio.atomic_write(self.path, jsonio.dumps(self.doc) + b"\n")

    def branch(self, arm: str, k: int) -> runner.Branch:
        """The sample's branch, made now (nothing sent) if a kill came before it was written."""
        key = (arm, k)
        if key not in self.branches:
            path = self.sample_path(arm, k)
            if path.exists():
                self.branches[key] = runner.Branch(store.load(path), path, self.parent)
            else:
                if self.parent is None:
                    raise UsageError(f"{path} is missing and the parent run is not available to remake it")
                patch = self.doc["patch"] if arm == "edited" else self.doc["control_patch"]
                self.branches[key] = runner.start(self.parent, self.at, patch, resolver=self.doc["resolver"],
                                                  parent_sha=self.doc["parent"]["sha256"],
                                                  max_steps=self.doc["max_steps"], output=path,
                                                  extra={"experiment": {"file": self.path.name, "arm": arm,
                                                                        "sample": k + 1}})
        return self.branches[key]

    def finished(self, arm: str, k: int) -> bool:
        branch = self.branch(arm, k)
        return runner.is_finished(branch) or branch.lineage.get("status") in DONE

    def event(self) -> Event | None:
        """The event the experiment file names (``--event``, or chosen in the app), if any."""
        return Event.parse(self.doc["event"]) if self.doc.get("event") else None

    def tally(self, event: Event | None = None) -> dict[str, Any]:
        """The summary of every sample saved so far (``tally.summary``), plus the original run's row."""
        return self.summarise(*self.outcomes(event))

    def summarise(self, arms: list[Arm], original: Sample | None, event: Event | None) -> dict[str, Any]:
        """``tally`` of outcomes already read (``outcomes``): the app reads them once for its rows and this."""
        temperature = self.parent.params.get("temperature") if self.parent is not None and self.parent.params else None
        doc = summary(arms, original, event, temperature)
        doc.update({"experiment": str(self.path), "at": self.at, "model": self.doc.get("model"),
                    "samples": self.doc.get("samples"), "estimate": self.doc.get("estimate"),
                    "files": {arm: [str(self.sample_path(arm, k)) for k in range(len(self.doc["arms"][arm]))]
                              for arm in self.arms}})
        return doc

    def outcomes(self, event: Event | None = None) -> tuple[list[Arm], Sample | None, Event | None]:
        """Every sample's outcome so far, per arm (one ``Sample`` each), and the original run's."""
        if event is None:
            event = self.event()
        arms = []
        for arm in self.arms:
            out = Arm(arm)
            for k in range(len(self.doc["arms"][arm])):
                path = self.sample_path(arm, k)
                run = self.branches[(arm, k)].run if (arm, k) in self.branches else (
                    store.load(path) if path.exists() else None)
                out.samples.append(Sample.of(run, self.at, event, str(path)) if run is not None
                                   else Sample(str(path), "missing", 0, "(not started)", (), None))
            arms.append(out)
        original = None
        if self.parent is not None:
            last = self.parent.calls[-1].stop_reason if self.parent.calls else None
            original = Sample.of(self.parent, self.at, event, self.parent.source.path, status=str(last or "end_turn"))
        return arms, original, event


def create(parent: Run, at: int, patch: list[Any], *, samples: int, control: bool, resolver: str,
           parent_sha: str, max_steps: int = runner.DEFAULT_MAX_STEPS, concurrency: int = DEFAULT_CONCURRENCY,
           control_patch: list[Any] | None = None, event: str | None = None, output: str | Path | None = None,
           data_dir: Any = None, sidecars: dict[str, str] | None = None) -> Experiment:
    """Check the edit, write the experiment file and every sample's branch file; nothing is sent."""
    if samples < 1:
        raise UsageError("--samples must be at least 1")
    if concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if event:
        Event.parse(event)
    control_patch = list(control_patch or [])
    base = patches.base_document(parent, at)
    edited = patches.apply(base, patch, at)
    patches.require_sendable(edited)
    path = Path(output) if output is not None else new_path(parent_sha, at, samples, data_dir)
    if path.exists():
        raise UsageError(f"{path} exists: choose another -o path, or continue it with --resume")
    folder = samples_folder(path)
    folder.mkdir(parents=True, exist_ok=True)
    width = len(str(samples))
    arms = {"edited": [f"{folder.name}/edited-{k + 1:0{width}d}{store.SUFFIX}" for k in range(samples)]}
    if control:
        arms["control"] = [f"{folder.name}/control-{k + 1:0{width}d}{store.SUFFIX}" for k in range(samples)]
    lineage = store.lineage(parent, parent_sha, at, patch, edited.get("model"), resolver, max_steps,
                            api.now_iso(), sidecars)
    doc = {marker.KEY: VERSION, "parent": lineage["parent"], "at": at, "patch": patch,
           "control_patch": control_patch, "model": edited.get("model"), "samples": samples, "control": control,
           "concurrency": concurrency, "resolver": resolver, "max_steps": max_steps, "event": event,
           "created": lineage["created"],
           "estimate": request_estimate(parent, at, patch, control_patch, samples, control), "arms": arms}
    experiment = Experiment(path, doc, parent)
    experiment.save()
    for arm, k in experiment.samples():
        experiment.branch(arm, k)
    return experiment


def load(path: str | os.PathLike[str], open_run: Callable[..., Run]) -> tuple[Experiment, str | None]:
    """Reopen an experiment file; the note says why its parent is unavailable, if it is."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError(str(path), f"cannot read: {exc.strerror or exc}") from None
    doc = jsonio.loads(data, str(path))
    if not isinstance(doc, dict) or doc.get(marker.KEY) != VERSION or not isinstance(doc.get("arms"), dict):
        raise LoadError(str(path), "not an experiment file (written by `turnscope branch --samples K`)")
    jsonio.remove_leftover_temporaries(path)
    parent, note = store.open_parent({"parent": doc.get("parent") or {}}, open_run)
    experiment = Experiment(path, doc, parent)
    for arm, k in experiment.samples():
        sample = experiment.sample_path(arm, k)
        if sample.exists():
            jsonio.remove_leftover_temporaries(sample)
    return experiment, note


class Pool:
    """At most ``limit`` samples at a time; a rate limit halves it (not below 1), a success widens it by one."""

    def __init__(self, width: int):
        self.width = width
        self.limit = width
        self.active = 0
        self.peak = 0
        self._changed = asyncio.Condition()

    async def __aenter__(self) -> Pool:
        async with self._changed:
            await self._changed.wait_for(lambda: self.active < self.limit)
            self.active += 1
            self.peak = max(self.peak, self.active)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        async with self._changed:
            self.active -= 1
            self._changed.notify_all()

    async def slow_down(self) -> None:
        async with self._changed:
            self.limit = max(1, self.limit // 2)

    async def speed_up(self) -> None:
        async with self._changed:
            if self.limit < self.width:
                self.limit += 1
                self._changed.notify_all()


def retryable(error: ApiFailure | None) -> bool:
    """429, 529, other 5xx, an error event mid-stream, or the network: worth another try later."""
    if error is None:
        return False
    if error.kind == "connection":
        return True
    return error.kind == "status" and (error.status is None or error.status in (408, 409, 429) or error.status >= 500)


class _SharedClient:
    """One SDK client for every sample: each runner's ``close`` leaves it open; ``aclose`` closes it."""

    def __init__(self, client: Any):
        self._client = client
        self.messages = client.messages

    async def close(self) -> None:
        pass

    async def aclose(self) -> None:
        await self._client.close()


@dataclass
class SampleDone:
    """One sample ended (or gave up): what ``ExperimentRunner.run``'s callback is told."""

    arm: str
    k: int
    finished: Finished
    attempts: int
    skipped: bool = False  # it had finished before this run: nothing was sent


class ExperimentRunner:
    """Runs an experiment's unfinished samples, at most ``concurrency`` at once."""

    def __init__(self, experiment: Experiment, resolver_for: Callable[[runner.Branch], Resolver], *,
                 concurrency: int | None = None, client_factory: Callable[[], Any] = api.make_client,
                 on_done: Callable[[SampleDone], None] | None = None):
        self.experiment = experiment
        self.resolver_for = resolver_for
        self.pool = Pool(concurrency or int(experiment.doc.get("concurrency") or DEFAULT_CONCURRENCY))
        self.client_factory = client_factory
        self.on_done = on_done or (lambda done: None)
        self.results: list[SampleDone] = []
        self.sample_seconds: list[float] = []

    async def run(self) -> list[SampleDone]:
        todo = []
        for arm, k in self.experiment.samples():
            branch = self.experiment.branch(arm, k)
            if self.experiment.finished(arm, k):
                done = SampleDone(arm, k, Finished(str(branch.lineage.get("status")), 0, str(branch.path)), 0, True)
                self.results.append(done)
                self.on_done(done)
            else:
                todo.append((arm, k))
        if not todo:
            return self.results
        shared = _SharedClient(self.client_factory())
        try:
            await asyncio.gather(*(self._sample(arm, k, shared) for arm, k in todo))
        finally:
            try:
                await asyncio.shield(shared.aclose())
            except BaseException:  # noqa: BLE001 - closing cannot lose anything saved
                pass
        return self.results

    async def _sample(self, arm: str, k: int, client: _SharedClient) -> None:
        branch = self.experiment.branch(arm, k)
        pause = _backoff()
        for attempt in range(1, ATTEMPTS + 1):
            async with self.pool:
                t0 = time.perf_counter()
                work = runner.Runner(branch, self.resolver_for(branch), client_factory=lambda: client)
                finished = None
                async for event in work.events():
                    if isinstance(event, Finished):
                        finished = event
                self.sample_seconds.append(time.perf_counter() - t0)
            assert finished is not None
            if not retryable(finished.error) or attempt == ATTEMPTS:
                break
            await self.pool.slow_down()
            branch.lineage.setdefault("resumed", []).append(
                {"time": api.now_iso(), "from": len(branch.run.messages), "resolver": branch.lineage.get("resolver"),
                 "why": finished.error.line() if finished.error else "retry"})
            await asyncio.sleep(pause)
            pause = min(pause * 2, 30.0)
        if finished.error is None:
            await self.pool.speed_up()
        done = SampleDone(arm, k, finished, attempt)
        self.results.append(done)
        self.on_done(done)


def _backoff() -> float:
    text = os.environ.get(BACKOFF_VARIABLE, "").strip()
    try:
        return max(0.0, float(text)) if text else 1.0
    except ValueError:
        raise UsageError(f"{BACKOFF_VARIABLE}={text!r} is not a number") from None
