"""Where the run picker finds runs: the bundled samples, recent runs, Claude Code, Codex and Gemini CLI sessions.

Recent runs are kept in turnscope's state directory (``recent.json``, written atomically);
a damaged or unreadable file counts as empty (it is only a convenience) and is replaced
on the next open.

Claude Code keeps one JSONL file per session under ``~/.claude/projects/<project>/``
(``$CLAUDE_CONFIG_DIR/projects`` when that is set). The picker lists them newest first
with the first words the user wrote and a message count read from the head of the file (user
turns plus distinct assistant messages, side chains left out), marked estimated (``~``): a
rewind or a compaction makes it differ from the run the file opens into, so the picker has
the exact count and first words of that run (run 0, the loader's default) counted in the
background (``tui.app.session_counts``, ``apply_counted``). Scanning runs in the picker's worker.

Codex CLI keeps one rollout per session under ``~/.codex/sessions/YYYY/MM/DD/`` (``$CODEX_HOME/sessions``
when that is set); they are listed the same way, newest first. Gemini CLI keeps its sessions under
``~/.gemini/tmp/<project>/chats/session-*.json[l]``; they are listed when there are any, and
counted in the background like the others.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

from tui.core import jsonio
from tui.core.errors import LoadError, UsageError
from tui.core.run import first_text
from tui.core.safe import one_line
from tui.core.words import counted
from tui.formats import load_runs

RECENT_LIMIT = 20
RECENT_FILE = "recent.json"


@dataclass
class Recent:
    """A run opened before: its file, which run of it, its title and size, and when (``recent.json``)."""

    path: str
    run: int | None
    title: str
    messages: int
    opened: float


def load_recent(state_dir: Path) -> list[Recent]:
    try:
        data = jsonio.loads((state_dir / RECENT_FILE).read_bytes(), str(state_dir / RECENT_FILE))
    except (OSError, LoadError):
        return []
    items = data.get("recent") if isinstance(data, dict) else None
    out = []
    for item in items if isinstance(items, list) else []:
        try:
            out.append(Recent(str(item["path"]), item.get("run"), str(item.get("title", "")),
                              int(item.get("messages", 0)), float(item.get("opened", 0))))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return out


def remember(state_dir: Path, path: str, run: int | None, title: str, messages: int) -> None:
    """Put ``path`` (run ``run``) first in the list; errors writing it are not the user's problem. The title
    (the run's first words) is stored with any secret in it redacted."""
    from tui.core.secrets import redact_title

    title = redact_title(title)
    absolute = str(Path(path).resolve())
    items = [r for r in load_recent(state_dir) if not (r.path == absolute and r.run == run)]
    items.insert(0, Recent(absolute, run, title, messages, time.time()))
    data = jsonio.dumps({"recent": [asdict(r) for r in items[:RECENT_LIMIT]]}, indent=True)
    try:
        jsonio.atomic_write(state_dir / RECENT_FILE, data)
    except OSError:
        pass


SAMPLES = Path(__file__).resolve().parent.parent.parent / "sample_runs"
MAX_SESSIONS = 60
#: Read at most this much of a session file to describe it.
SCAN_BYTES = 8 << 20


@dataclass
class Entry:
    """One row of the run picker: a bundled sample, a recent run or an agent session found on this machine."""

    section: str  # samples | recent | claude | gemini
    path: str
    label: str
    detail: str
    run: int | None = None
    when: float | None = None
    live: bool = False  # written to in the last minute: opened following (``tui.formats.follow``)
    #: The count shown is an estimate (read from the file's head, or not known yet): the exact one is counted
    #: in the background (``tui.app.session_counts``) and replaces it; the row shows ``~``.
    estimated: bool = False
    messages: int | None = None  # the count shown (of run ``run``, or of the default run 0)
    title: str = ""  # the words shown: the first words of the run Enter opens once counted
    runs: int | None = None  # how many runs the file holds, once loaded
    #: Enter opens the file's default run (run 0, whose title and count the row shows), its run list beneath.
    default_run: bool = False


#: A file written to this recently (seconds) is live: being recorded or written as the user looks.
LIVE_SECONDS = 60


def _mtime(path: str | Path) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def written_lately(path: str | Path, now: float | None = None) -> bool:
    mtime = _mtime(path)
    return mtime is not None and (time.time() if now is None else now) - mtime < LIVE_SECONDS


def claude_projects(home: Path | None = None) -> Path:
    if home is not None:
        return home / "projects"
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) / "projects" if configured else Path.home() / ".claude" / "projects"


def sample_entries(samples: Path = SAMPLES) -> list[Entry]:
    out = []
    if not samples.is_dir():
        return out
    for path in sorted(p for p in samples.rglob("*") if p.suffix in (".json", ".jsonl")):
        rel = str(path.relative_to(samples))
        try:
            runs = load_runs(str(path))
        except (LoadError, UsageError):
            continue  # a sidecar (tools.json), not a run
        if len(runs) > 1:
            out.append(Entry("samples", str(path), one_line(rel), f"{len(runs)} runs"))
        else:
            run = runs[0]
            out.append(Entry("samples", str(path), one_line(rel),
                             f"{counted(len(run.messages), 'message')} · {one_line(run.title())}"))
    return out


def recent_entries(state_dir: Path) -> list[Entry]:
    out = []
    for item in load_recent(state_dir):
        if not Path(item.path).exists():
            continue
        label = item.path + (f"#{item.run}" if item.run is not None else "")
        # written since it was opened: the stored count may be old, and is counted again in the background
        changed = (_mtime(item.path) or 0.0) > item.opened
        out.append(Entry("recent", item.path, one_line(label),
                         f"{'~' * changed}{counted(item.messages, 'message')} · {one_line(item.title)}",
                         item.run, item.opened, written_lately(item.path), estimated=changed, messages=item.messages,
                         title=item.title))
    return out


def _head_records(path: Path, needles: tuple[bytes, ...]) -> Iterator[Any]:
    """The JSON records among the first ``SCAN_BYTES`` of a JSON Lines session whose line holds one of
    ``needles`` (the others are never parsed); a line that is no JSON is passed over."""
    with open(path, "rb") as handle:
        data = handle.read(SCAN_BYTES)
    for line in data.split(b"\n"):
        if any(needle in line for needle in needles):
            try:
                yield orjson.loads(line)
            except orjson.JSONDecodeError:
                continue


def describe_session(path: Path) -> tuple[int, str]:
    """(message count, first words the user wrote) of a Claude Code session file. Counted as the loader
    builds messages: consecutive lines of one role are one message (an answer written a block per line,
    tool results written one per line), sidechain lines and API error lines are not messages."""
    count, words, last = 0, "", None
    for record in _head_records(path, (b'"type":"user"', b'"type":"assistant"')):
        if not isinstance(record, dict) or record.get("isSidechain") or record.get("isApiErrorMessage"):
            continue
        kind = record.get("type")
        if kind not in ("user", "assistant"):
            continue
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        if kind != last:
            count, last = count + 1, kind
        if kind == "user" and not words and not record.get("isMeta"):
            text = first_text(message.get("content"))
            if text and not text.lstrip().startswith("<"):
                words = " ".join(text.split())[:100]
    return count, words


def session_project(path: Path) -> str | None:
    """The project a Claude Code session ran in, as a path (``~/proj/spotter``): the ``cwd`` its first
    lines record (the folder name under ``projects/`` is that path with every ``/`` made ``-``, which
    cannot be turned back)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return None
    for line in head.split(b"\n"):
        if b'"cwd"' in line:
            try:
                cwd = orjson.loads(line).get("cwd")
            except (orjson.JSONDecodeError, AttributeError):
                continue
            if isinstance(cwd, str) and cwd:
                home = os.path.expanduser("~")
                return "~" + cwd[len(home):] if cwd == home or cwd.startswith(home + os.sep) else cwd
    return None


def _newest(root: Path, pattern: str, limit: int) -> list[tuple[Path, float]]:
    """The files under ``root`` matching ``pattern``, newest first, at most ``limit``, each with its
    modification time (read once: it orders them and is the row's date)."""
    try:
        found = [(p, p.stat().st_mtime) for p in root.glob(pattern) if p.is_file()]
    except OSError:
        return []
    found.sort(key=lambda pair: pair[1], reverse=True)
    return found[:limit]


def _unreadable(section: str, path: Path, exc: OSError) -> Entry:
    return Entry(section, str(path), one_line(path.name), one_line(f"cannot read: {exc.strerror or exc}"))


def _detail(count: int | None, words: str, estimated: bool = False, runs: int | None = None) -> str:
    """A session row's detail: ``~12 messages`` while estimated, ``158 messages (run 0 of 2)`` once counted in a
    file of several runs, then the first words."""
    if count is None:
        return "counting messages …"
    of = f" (run 0 of {runs})" if runs is not None and runs > 1 else ""
    return f"{'~' * estimated}{counted(count, 'message')}{of} · {one_line(words or '(no user text)')}"


def _session_entry(section: str, path: Path, label: str, count: int | None, words: str, **more: Any) -> Entry:
    return Entry(section, str(path), one_line(label), _detail(count, words, True), estimated=True, messages=count,
                 title=words, default_run=True, **more)


def apply_counted(entry: Entry, result: Any) -> None:
    """Put the loader's exact count (a ``session_counts.Counted`` of the entry's file) in the row: the count and
    first words of the run Enter opens (a recent run: the run opened then; a session: run 0)."""
    entry.estimated = False
    counts, k = result.messages, entry.run or 0
    if result.error is not None or not 0 <= k < len(counts):
        entry.messages = None
        entry.detail = one_line(result.error or (f"the file holds no run {k} now" if counts else "no runs in the file"))
    elif entry.section == "recent":
        entry.messages, entry.runs = counts[k], len(counts)
        entry.detail = f"{counted(counts[k], 'message')} · {one_line(entry.title)}"
    else:
        entry.messages, entry.title, entry.runs = counts[0], result.title, len(counts)
        entry.detail = _detail(counts[0], result.title, runs=len(counts))


#: The exact counts known (``session_counts.CountCache.get``): a file's ``Counted`` while it is unchanged, else None.
Known = Callable[[str], Any]


def _described(section: str, path: Path, label: str, describe: Callable[[Path], tuple[int, str]],
               known: Known | None, **more: Any) -> Entry:
    """A session's row: from the exact counts when they are known for the file as it is (its head is then
    not read), else from ``describe`` (its head), marked estimated."""
    exact = known(str(path)) if known is not None else None
    if exact is not None:
        entry = _session_entry(section, path, label, None, "", **more)
        apply_counted(entry, exact)
        return entry
    try:
        count, words = describe(path)
    except OSError as exc:
        return _unreadable(section, path, exc)
    return _session_entry(section, path, label, count, words, **more)


def claude_entries(home: Path | None = None, limit: int = MAX_SESSIONS, known: Known | None = None) -> list[Entry]:
    out = []
    for path, when in _newest(claude_projects(home), "*/*.jsonl", limit):
        project = session_project(path)
        label = f"{project} · {path.stem[:8]}" if project else f"{path.parent.name}/{path.stem[:8]}"
        out.append(_described("claude", path, label, describe_session, known, when=when, live=written_lately(path)))
    return out


def codex_sessions(home: Path | None = None) -> Path:
    if home is not None:
        return home / "sessions"
    configured = os.environ.get("CODEX_HOME")
    return Path(configured) / "sessions" if configured else Path.home() / ".codex" / "sessions"


def describe_rollout(path: Path) -> tuple[int, str]:
    """(message count, first words the user wrote) of a Codex rollout: user and assistant message items,
    and the first prompt (a user message that is not the context Codex sends ahead of it)."""
    count, words = 0, ""
    for record in _head_records(path, (b'"message"', b'"user_message"')):
        payload = record.get("payload") if isinstance(record, dict) else None
        if not isinstance(payload, dict):
            continue
        if payload.get("type") == "message" and payload.get("role") in ("user", "assistant"):
            count += 1
        elif payload.get("type") == "user_message" and not words and isinstance(payload.get("message"), str):
            words = " ".join(payload["message"].split())[:100]
    return count, words


def codex_entries(home: Path | None = None, limit: int = MAX_SESSIONS, known: Known | None = None) -> list[Entry]:
    out = []
    for path, when in _newest(codex_sessions(home), "*/*/*/rollout-*.jsonl", limit):
        label = "/".join(path.parts[-4:-1]) + "/" + path.stem.removeprefix("rollout-")[:19]
        out.append(_described("codex", path, label, describe_rollout, known, when=when))
    return out


def gemini_tmp(home: Path | None = None) -> Path:
    """Where Gemini CLI keeps its sessions: ``<home>/.gemini/tmp`` (``$GEMINI_CLI_HOME`` or the user's home)."""
    if home is None:
        home = Path(os.environ.get("GEMINI_CLI_HOME") or Path.home())
    return home / ".gemini" / "tmp"


def gemini_entries(home: Path | None = None, limit: int = MAX_SESSIONS) -> list[Entry]:
    """Gemini CLI sessions (``<project>/chats/session-*.json[l]``), newest first. Nothing is read here (a
    ``.json`` session is one document: its head tells nothing); the count and first words come from the
    background count, which loads each as Enter does (the format sniffed: the loader finds it Gemini's)."""
    found = [(p, t) for p, t in _newest(gemini_tmp(home), "*/chats/session-*.json*", 1 << 30)
             if p.suffix in (".json", ".jsonl")]
    return [_session_entry("gemini", path, f"{path.parent.parent.name[:8]}/{path.stem.removeprefix('session-')[:24]}",
                           None, "", when=when) for path, when in found[:limit]]
