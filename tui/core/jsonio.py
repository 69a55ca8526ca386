"""All JSON in and out (orjson), with positions on errors, and atomic writes.

orjson refuses integers beyond 64 bits; a request body can legally hold one, so dumping
falls back to the standard library for that one case rather than failing.

Nesting: orjson parses values up to ``MAX_DEPTH`` (1024) levels deep and refuses deeper ones
with a position ("depth limit exceeded"), but dumps only 254 levels; the stdlib fallback and
every recursive walk over run content (the grammar check, provenance, diff, credential
dropping, ``==`` itself) take a few frames per level. The interpreter's recursion limit is
raised once, here, so that whatever orjson accepts can be walked and written back; C
recursion of that depth needs well under a megabyte of stack.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import orjson

from tui.core.errors import LoadError

BOM = b"\xef\xbb\xbf"
#: The deepest nesting orjson parses; a walk over such a value needs a few frames per level.
MAX_DEPTH = 1024
RECURSION_LIMIT = 6 * MAX_DEPTH + 1000
if sys.getrecursionlimit() < RECURSION_LIMIT:
    sys.setrecursionlimit(RECURSION_LIMIT)

#: The bare parser, for hot loops (each line of a big file, each event of a stream): no BOM
#: handling, and an error carries no position; on failure, call ``loads`` for the positioned error.
fast_loads = orjson.loads
FastDecodeError = orjson.JSONDecodeError


def loads(data: bytes | str, path: str = "<input>", line_offset: int = 0) -> Any:
    """Parse JSON; a failure becomes a ``LoadError`` naming line and column."""
    if isinstance(data, bytes) and data.startswith(BOM):
        data = data[len(BOM):]
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        if not raw or raw.isspace():  # not raw.strip(): that copies a 100 MB file to learn it is not blank
            what = "empty line" if line_offset else "empty file"
            raise LoadError(path, what, line_offset or None) from None
        reason = (exc.msg or "invalid JSON").split(":")[0]
        line, col = exc.lineno, exc.colno
        if reason == "depth limit exceeded":
            reason = f"nested more than {MAX_DEPTH} levels deep (the deepest JSON turnscope reads)"
        elif "UTF-8" in reason:  # orjson names no position for this one: find the first bad byte
            line, col = _bad_utf8_at(raw, line, col)
            reason = "not valid UTF-8"
        raise LoadError(path, f"invalid JSON: {reason}", line + line_offset, col) from None
    except RecursionError:  # pragma: no cover - orjson limits depth itself
        raise LoadError(path, f"JSON nested more than {MAX_DEPTH} levels deep") from None


def _bad_utf8_at(raw: bytes, line: int, col: int) -> tuple[int, int]:
    """Line and column (of bytes, 1-based) of the first byte that is not UTF-8."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        start = bad.start
        return raw.count(b"\n", 0, start) + 1, start - (raw.rfind(b"\n", 0, start) + 1) + 1
    return line, col


def dumps(value: Any, indent: bool = False) -> bytes:
    """Serialise without reordering or normalising anything."""
    option = orjson.OPT_INDENT_2 if indent else 0
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        # Integers beyond 64 bits, or other values orjson refuses: the stdlib keeps them exact.
        import json  # here, not at the top: a read-only verb never needs it (nor tempfile below)

        text = json.dumps(value, ensure_ascii=False, indent=2 if indent else None,
                          separators=None if indent else (",", ":"), allow_nan=True)
        return text.encode("utf-8", "surrogatepass")


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write to a temporary file beside ``path``, fsync it, then rename over ``path``.

    A crash, a full disk or a permission error leaves the previous file intact.
    """
    import tempfile

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(tmp, _mode_for(target))  # mkstemp makes it 0600; keep the usual permissions
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def remove_leftover_temporaries(path: str | os.PathLike[str]) -> list[str]:
    """Delete the temporary files ``atomic_write`` left beside ``path`` when it was killed.

    A SIGKILL between writing the temporary file and renaming it cannot be caught, so the
    hidden ``.NAME.XXXX.tmp`` stays; the target itself is intact. Whoever takes the file up
    again (``branch --resume``) sweeps them. Returns the names removed.
    """
    import glob

    target = Path(path)
    removed = []
    try:
        leftovers = list(target.parent.glob(f".{glob.escape(target.name)}.*.tmp"))
    except OSError:
        return removed
    for leftover in leftovers:
        try:
            leftover.unlink()
        except OSError:
            continue
        removed.append(leftover.name)
    return removed


def _mode_for(target: Path) -> int:
    """The mode the file would have had if written in place: its current one, or 0666 less the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask, read where the system tells it (Linux: ``/proc/self/status``) rather than
    by setting it and back: saves run in worker threads, and the umask is the whole process's."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:  # elsewhere: flipped, but never by two of our threads at once
        mask = os.umask(0)
        os.umask(mask)
        return mask
