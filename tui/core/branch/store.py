"""Branch files: the native run format plus ``lineage``, where they live, and a run's branch tree.

A branch file is a native run file (``tui.core.native``) whose run holds the edited
request's system, tools and params, messages 0..N as edited, then the turns the branch
produced; each of those turns has a ``ModelCall`` with usage, stop_reason, model,
request_id, timing and the request sent (a ``RecordedRequest`` with no differences: every
branch request is exactly the branch's system, tools, params and messages 0..i-1). The
parent's calls for messages 0..N are kept as facts about the parent (no request). Its
``lineage`` object::

    {"parent": {"path": ABSOLUTE PATH, "sha256": HEX of its bytes, "run": K, "format": NAME,
                "system": SIDECAR, "tools": SIDECAR},   # the last two only when given
     "at": N, "patch": [RFC 6902 ops against the parent request at N (see patch.py)],
     "model": MODEL SENT, "resolver": SPEC, "max_steps": K, "created": ISO TIME (UTC),
     "status": "running" | a Finished stop_reason,
     "answered": {"index": I, "results": [tool_result, ...], "via": [RESOLVER, ...]},  # see below
     "resumed": [{"time", "from": FIRST NEW INDEX, "resolver", "max_steps"}, ...],  # after --resume
     "from_edit": [{"index": RESULT MESSAGE, "tool_use_id", "from": EDITED MESSAGE}, ...],
     "unanswered": {"index": I, "tool_use_id", "why": REASON}}  # while stopped at a call

``from_edit`` lists the results the recorded resolver took from the edit (an edited result
given again to a retried call), so an experiment's answers can be told from the original's.

``answered`` is there only while the last message is an assistant turn whose tool calls
are part answered (saved after each answer, so it survives a stop, a cancel or a kill):
the results given so far, kept out of the messages so the file stays grammatical, and
reused (not asked again) when ``--resume`` answers the turn.

Files are saved under ``<user data dir>/branches/<first 16 hex of the parent's sha256>/``
(or wherever ``-o`` says), always with ``atomic_write``; a parent file is never written.
``list_branches`` finds a run's branches there and also beside the run file and in the
working directory (where ``-o`` usually puts them): only ``*.turnscope.json`` files, and
only those whose first bytes (the lineage comes right after ``source``) name the parent's
sha256 are parsed, so a folder of large unrelated files costs a small read each.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from tui.core import jsonio, native
from tui.core.errors import LoadError, UsageError
from tui.core.request_headers import carried
from tui.core.run import RECONSTRUCTED, ModelCall, Run, Source

SUFFIX = ".turnscope.json"
GROUP = 16  # hex digits of the parent's sha256 naming its directory
HEAD = 64 * 1024  # bytes read to see whether a file's lineage names a parent (paths are < 4 KiB)


def sha256_of(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def branches_root(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<user data dir>/branches`` (``data_dir`` replaces the user data dir)."""
    if data_dir is None:
        from tui.core.paths import settings

        data_dir = settings().data
    return Path(data_dir) / "branches"


def new_path(parent_sha: str, at: int, data_dir: str | os.PathLike[str] | None = None) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return branches_root(data_dir) / parent_sha[:GROUP] / f"{stamp}-at{at}-{secrets.token_hex(3)}{SUFFIX}"


def lineage(parent: Run, parent_sha: str, at: int, patch: list[Any], model: Any, resolver: str,
            max_steps: int, created: str, sidecars: dict[str, str] | None = None) -> dict[str, Any]:
    origin: dict[str, Any] = {"path": os.path.abspath(parent.source.path), "sha256": parent_sha,
                              "run": parent.source.run_index, "format": parent.source.format}
    for name, value in (sidecars or {}).items():
        if value is not None:
            origin[name] = os.path.abspath(value)
    return {"parent": origin, "at": at, "patch": patch, "model": model, "resolver": resolver,
            "max_steps": max_steps, "created": created, "status": "running"}


def branch_run(parent: Run, edited: dict[str, Any], path: str, lineage_: dict[str, Any]) -> Run:
    """The branch as a run: the edited request's fields and messages, the parent's calls up to N."""
    messages = list(edited["messages"])
    at = lineage_["at"]
    params = {k: v for k, v in edited.items() if k not in ("system", "tools", "messages")}
    calls = [ModelCall(message=c.message, usage=c.usage, stop_reason=c.stop_reason, model=c.model,
                       request_id=c.request_id, started=c.started, duration_ms=c.duration_ms, status=c.status)
             for c in parent.calls if c.message <= at]
    return Run(messages=messages, system=edited.get("system"), tools=edited.get("tools"), params=params,
               calls=calls, source=Source(path=path, format="native", prefix=RECONSTRUCTED),
               order=list(edited) if parent.order is not None else None, lineage=lineage_,
               meta=carried(parent))


def save(run: Run, path: str | os.PathLike[str]) -> None:
    """Write the branch file atomically (temporary file, fsync, rename)."""
    jsonio.atomic_write(path, native.dumps([run]) + b"\n")


def load(path: str | os.PathLike[str]) -> Run:
    """A branch file (a native run with lineage); a bad file raises ``LoadError``."""
    path = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise LoadError(path, f"cannot read: {exc.strerror or exc}") from None
    hint = "not a branch file (one turnscope run with lineage, written by `turnscope branch`)"
    looks_native = b'"turnscope"' in data[:4096]  # a branch file names its version first
    try:
        doc = jsonio.loads(data, path)
    except LoadError as exc:
        if not looks_native:  # some other file (a run to branch, a cassette): its syntax is beside the point
            raise LoadError(path, hint) from None
        raise LoadError(path, f"{exc.what}: {hint}", exc.line, exc.col) from None
    if not isinstance(doc, dict) or "turnscope" not in doc:
        raise LoadError(path, hint)
    try:
        runs = native.runs_from_document(doc, path)
    except native.NativeError as exc:
        raise LoadError(path, f"bad turnscope run file: {exc}") from None
    if len(runs) != 1 or not isinstance(runs[0].lineage, dict) or "at" not in runs[0].lineage:
        raise LoadError(path, hint)
    return runs[0]


def open_parent(lineage_: dict[str, Any], open_run: Callable[..., Run]) -> tuple[Run | None, str | None]:
    """The parent run named by a lineage, or None and why it cannot be used.

    ``open_run`` is the loaders' ``tui.formats.open_run`` (passed in: the core reaches no loader)."""
    origin = lineage_.get("parent") or {}
    path = origin.get("path")
    if not isinstance(path, str) or not os.path.exists(path):
        return None, f"the parent run {path} is not there any more"
    if sha256_of(path) != origin.get("sha256"):
        return None, f"the parent run {path} changed since the branch was made"
    try:
        parent = open_run(path, run=origin.get("run") or 0, fmt=origin.get("format"),
                          system=origin.get("system"), tools=origin.get("tools"))
    except (LoadError, UsageError) as exc:
        return None, str(exc)
    return parent, None


@dataclass
class BranchEntry:
    """One branch in a run's branch tree."""

    path: str
    lineage: dict[str, Any]
    messages: int
    children: list[BranchEntry] = field(default_factory=list)

    @property
    def at(self) -> int:
        return self.lineage.get("at", 0)

    @property
    def status(self) -> str:
        return str(self.lineage.get("status", "?"))


def search_dirs(parent_path: str | os.PathLike[str]) -> list[Path]:
    """Where a run's branches are looked for besides the data dir: its own folder, the working folder."""
    return [Path(os.path.abspath(parent_path)).parent, Path.cwd()]


def _names_parent(path: Path, sha: str) -> bool:
    """The file's first bytes hold ``sha`` (a branch file's lineage is near its top): worth parsing."""
    try:
        with open(path, "rb") as handle:
            return sha.encode("ascii") in handle.read(HEAD)
    except OSError:
        return False


def _candidates(sha: str, folders: list[Path]) -> list[Path]:
    """``*.turnscope.json`` files in ``folders`` (not their subfolders) that may be branches of ``sha``."""
    found: dict[str, Path] = {}
    for folder in folders:
        try:
            names = sorted(folder.glob("*" + SUFFIX)) if folder.is_dir() else []
        except OSError:
            continue
        for path in names:
            key = os.path.realpath(path)
            if key not in found and os.path.isfile(key) and _names_parent(path, sha):
                found[key] = path
    return list(found.values())


def list_branches(parent_path: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None = None,
                  _seen: set[str] | None = None) -> list[BranchEntry]:
    """The branches of a run file (and, under each, its own branches), oldest first.

    Searched: the run's group in the data dir, then ``search_dirs`` (the folder the run file is
    in, the working directory); a branch's own branches are looked for the same way.
    """
    seen = _seen if _seen is not None else set()
    key = os.path.realpath(parent_path)
    if key in seen or not os.path.isfile(key):
        return []
    seen.add(key)
    sha = sha256_of(key)
    group = branches_root(data_dir) / sha[:GROUP]
    folders = [group, *search_dirs(parent_path)]
    entries = []
    for path in _candidates(sha, folders):
        if os.path.realpath(path) in seen:
            continue
        try:
            run = load(path)
        except LoadError:
            continue
        if (run.lineage or {}).get("parent", {}).get("sha256") != sha:
            continue
        entry = BranchEntry(str(path), run.lineage or {}, len(run.messages))
        entry.children = list_branches(path, data_dir, seen)
        entries.append(entry)
    entries.sort(key=lambda e: (str(e.lineage.get("created", "")), e.path))
    return entries
