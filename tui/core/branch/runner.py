"""The branch runner: send the edited request, answer tool calls, save every turn as it lands.

``start`` makes a branch from a parent run (edit applied and checked, file saved before
anything is sent); ``resume`` reopens a branch file. ``Runner(branch, resolver).events()``
is an async iterator of ``tui.core.branch.events`` the CLI prints and the app renders;
``Runner.cancel()`` stops it cleanly (a turn in flight is dropped, nothing saved is lost).

The loop keeps the seeds' ordering rule: the assistant turn is appended and saved the
instant its stream completes, before any of its tool calls is dispatched, and the user
turn of results is appended only when every call has its result. A save is one atomic
write of the whole file, so a crash or a kill at any moment leaves a file that loads and
that ``resume`` continues: from an assistant turn with unanswered calls it answers them,
from a user turn it sends the next request. It stops at the model's final turn, at the
step limit (model calls since the branch index), when a resolver leaves a call unanswered,
on cancel, or when the API fails. Answers given to a turn's calls are saved in the lineage
one by one and reused when the turn is answered again (``--resume``) after a stop or a kill.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from tui.core import jsonio
from tui.core.branch import api, patch as patches, store
from tui.core.branch.events import (ApiFailure, Event, Finished, StepStarted, ToolCall, ToolResolved,
                                    TurnSaved)
from tui.core.branch.resolvers import Resolver
from tui.core.errors import UsageError
from tui.core.prefix import check_index, request_at
from tui.core.request_headers import sdk_options
from tui.core.run import Run
from tui.core.summary import tool_uses

DEFAULT_MAX_STEPS = 10
ANSWERED = "answered"  # lineage key: answers kept from a turn the branch stopped part way through
FROM_EDIT = "from_edit"  # lineage key: [{"index", "tool_use_id", "from"}]: answers the edit gave
UNANSWERED = "unanswered"  # lineage key: {"index", "tool_use_id", "why"}: the call a stop left unanswered


class SaveError(OSError):
    """The branch file could not be written (a full disk, a permission): the file on disk is the
    previous save, whole (saves are atomic); the turn in memory is not in it."""

    def __init__(self, path: Path, cause: OSError):
        super().__init__(cause.errno, f"cannot save the branch to {path}: {cause.strerror or cause}")
        self.path = path


@dataclass
class Branch:
    """A branch being run: its run, its file, and the parent (for the recorded resolver)."""

    run: Run
    path: Path
    parent: Run | None = None

    @property
    def lineage(self) -> dict[str, Any]:
        assert self.run.lineage is not None
        return self.run.lineage

    @property
    def steps(self) -> int:
        """Model calls the branch has made (calls after the branch index)."""
        return sum(1 for c in self.run.calls if c.message > self.lineage["at"])

    def save(self, status: str | None = None) -> None:
        if status is not None:
            self.lineage["status"] = status
        try:
            store.save(self.run, self.path)
        except OSError as exc:
            raise SaveError(self.path, exc) from exc


def start(parent: Run, at: int, patch: list[dict[str, Any]], *, resolver: str, parent_sha: str,
          max_steps: int = DEFAULT_MAX_STEPS, output: str | Path | None = None, data_dir: Any = None,
          sidecars: dict[str, str] | None = None, extra: dict[str, Any] | None = None) -> Branch:
    """Apply and check the edit, then save the branch file (messages 0..N as edited).
    ``extra``: more lineage keys (an experiment's sample names its experiment)."""
    at = check_index(parent, at)  # a negative index counts back from the end
    base = patches.base_document(parent, at)
    edited = patches.apply(base, patch, at)
    patches.require_sendable(edited)
    path = Path(output) if output is not None else store.new_path(parent_sha, at, data_dir)
    if path.exists():
        raise UsageError(f"{path} exists: choose another -o path, or continue it with --resume")
    lineage = store.lineage(parent, parent_sha, at, patch, edited.get("model"), resolver, max_steps,
                            api.now_iso(), sidecars)
    lineage.update(extra or {})
    branch = Branch(store.branch_run(parent, edited, str(path), lineage), path, parent)
    branch.save()
    return branch


def resume(path: str | Path, open_run: Callable[..., Run]) -> tuple[Branch, str | None]:
    """Reopen a branch file; the note says why its parent is unavailable, if it is.

    ``open_run`` opens the parent run (``tui.formats.open_run``: the core reaches no loader)."""
    run = store.load(path)
    jsonio.remove_leftover_temporaries(path)  # a killed save leaves its temporary file behind
    parent, note = store.open_parent(run.lineage or {}, open_run)
    return Branch(run, Path(path), parent), note


def is_finished(branch: Branch) -> bool:
    """The branch ends with the model's final turn: running it again sends nothing (no key needed)."""
    run = branch.run
    last = run.messages[-1] if run.messages else None
    if not (isinstance(last, dict) and last.get("role") == "assistant") or len(run.messages) - 1 <= branch.lineage["at"]:
        return False
    call = run.call_for(len(run.messages) - 1)
    stop = call.stop_reason if call is not None else None
    return not tool_uses(last) or stop not in (None, "tool_use")


class Runner:
    """Runs a branch until the model's final turn, the step limit, a stop, a cancel or an API failure."""

    def __init__(self, branch: Branch, resolver: Resolver, *, max_steps: int | None = None,
                 client_factory: Callable[[], Any] = api.make_client):
        self.branch = branch
        self.resolver = resolver
        self.max_steps = max_steps if max_steps is not None else branch.lineage.get("max_steps", DEFAULT_MAX_STEPS)
        self.client_factory = client_factory
        self._task: asyncio.Task[None] | None = None
        self._made = 0

    def cancel(self) -> None:
        """Stop as soon as possible; ``events()`` then ends with ``Finished("cancelled")``."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def events(self) -> AsyncIterator[Event]:
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task = asyncio.create_task(self._work(queue.put_nowait))
        finished = False
        try:
            while True:
                item = await queue.get()
                if isinstance(item, BaseException):
                    raise item
                finished = isinstance(item, Finished)
                yield item
                if finished:
                    return
        finally:
            if not self._task.done():
                if not finished:  # the consumer stopped listening (or was cancelled): stop the work too
                    self._task.cancel()
                try:
                    await self._task
                except BaseException:  # noqa: BLE001 - the worker saved what it had; nothing to add
                    pass

    async def _work(self, emit: Callable[[Any], None]) -> None:
        run, first = self.branch.run, len(self.branch.run.messages)
        client = None

        saved_as: list[str] = []  # the status the last save already wrote with the final turn

        def finish(reason: str, error: ApiFailure | None = None) -> None:
            if saved_as != [reason] or error is not None:
                self.branch.save(reason)
            emit(Finished(reason, self._made, str(self.branch.path), error, run.messages[first:], first))

        try:
            while True:
                last = run.messages[-1]
                if isinstance(last, dict) and last.get("role") == "assistant":
                    call = run.call_for(len(run.messages) - 1)
                    stop = call.stop_reason if call is not None else None
                    calls = tool_uses(last)
                    if not calls or stop not in (None, "tool_use"):
                        return finish(stop or "end_turn")
                    if self.branch.steps >= self.max_steps:
                        return finish("max_steps")
                    if not await self._answer(len(run.messages) - 1, calls, emit):
                        return finish("stopped")
                    continue
                if self.branch.steps >= self.max_steps:
                    return finish("max_steps")
                if client is None:
                    try:
                        client = self.client_factory()
                    except api.NoApiKey as exc:
                        return finish("api_error", ApiFailure("no_key", str(exc)))
                index = len(run.messages)
                body = request_at(run, index).body
                emit(StepStarted(self.branch.steps + 1, index, body.get("model")))
                try:
                    turn, call = await api.stream_turn(client, body, index, emit, sdk_options(run))
                except Exception as exc:  # noqa: BLE001 - every API failure ends the branch the same way
                    return finish("api_error", api.failure(exc))
                run.messages.append(turn)  # saved before any tool call is dispatched
                run.calls.append(call)
                run.calls_changed()
                self._made += 1
                final = not tool_uses(turn) or call.stop_reason not in (None, "tool_use")
                if final:  # the model's last turn: saved once, with the branch's status
                    reason = call.stop_reason or "end_turn"
                    self.branch.save(reason)
                    saved_as[:] = [reason]
                else:
                    self.branch.save()
                    saved_as.clear()
                emit(TurnSaved(index, turn, call, str(self.branch.path)))
        except asyncio.CancelledError:
            try:
                finish("cancelled")
            except Exception as exc:  # noqa: BLE001 - reported through events()
                emit(exc)
        except Exception as exc:  # a save that failed, a resolver that broke: events() raises it
            emit(exc)
        finally:
            if client is not None:
                try:
                    await asyncio.shield(client.close())
                except BaseException:  # noqa: BLE001 - closing a connection cannot lose anything saved
                    pass

    async def _answer(self, index: int, calls: list[dict[str, Any]], emit: Callable[[Any], None]) -> bool:
        """Resolve every call of the turn at ``index``; append and save the results (False: stopped).

        Part way through a turn, the answers already given are kept in the lineage (``answered``),
        not in the messages (a user turn missing a result would not be grammatical), and saved after
        each answer, so a stop, a cancel or a kill loses none; the next run of the turn reuses them.
        """
        kept = self._kept(index)
        results: list[dict[str, Any]] = []
        vias: list[str] = []
        try:
            for position, block in enumerate(calls):
                call = ToolCall(index, str(block.get("id")), str(block.get("name")), block.get("input"))
                emit(call)
                fresh = call.id not in kept
                if not fresh:
                    result, via = kept[call.id]
                    shown = f"{via}, kept when the branch stopped"
                else:
                    resolution = await self.resolver.resolve(call)
                    result = resolution.block(call.id) if resolution is not None else None
                    shown = via = resolution.via if resolution is not None else (
                        f"stop: {call.why}" if call.why else "stop")
                    if resolution is not None and resolution.from_edit is not None:
                        self.branch.lineage.setdefault(FROM_EDIT, []).append(
                            {"index": index + 1, "tool_use_id": call.id, "from": resolution.from_edit})
                emit(ToolResolved(index, call.id, call.name, result, shown))
                if result is None:
                    self._keep(index, results, vias)
                    self.branch.lineage[UNANSWERED] = {"index": index, "tool_use_id": call.id,
                                                       **({"why": call.why} if call.why else {})}
                    return False
                results.append(result)
                vias.append(via)
                if fresh and position < len(calls) - 1:
                    # saved at once: a kill before the turn is complete must not lose an answer typed
                    # by hand, nor call the user's function (and its side effects) a second time
                    self._keep(index, results, vias)
                    self.branch.save()
        except asyncio.CancelledError:
            self._keep(index, results, vias)
            raise
        self.branch.lineage.pop(ANSWERED, None)
        self.branch.lineage.pop(UNANSWERED, None)
        turn = {"role": "user", "content": results}
        self.branch.run.messages.append(turn)
        self.branch.save()
        emit(TurnSaved(index + 1, turn, None, str(self.branch.path)))
        return True

    def _kept(self, index: int) -> dict[str, tuple[dict[str, Any], str]]:
        """tool_use id -> (result, who answered it) kept from a stop part way through the turn at ``index``."""
        record = self.branch.lineage.get(ANSWERED)
        if not isinstance(record, dict) or record.get("index") != index:
            return {}
        results, vias = record.get("results") or [], record.get("via") or []
        return {r["tool_use_id"]: (r, vias[k] if k < len(vias) else "an earlier answer")
                for k, r in enumerate(results) if isinstance(r, dict) and isinstance(r.get("tool_use_id"), str)}

    def _keep(self, index: int, results: list[dict[str, Any]], vias: list[str]) -> None:
        """Remember the answers given so far to the turn at ``index`` (saved with the branch's status)."""
        if results:
            self.branch.lineage[ANSWERED] = {"index": index, "results": results, "via": vias}
