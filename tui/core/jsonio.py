"""All JSON in and out (orjson), with positions on errors, and atomic writes.

orjson refuses integers beyond 64 bits; a request body can legally hold one, so dumping
falls back to the standard library for that one case rather than failing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from tui.core.errors import LoadError

BOM = b"\xef\xbb\xbf"

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
        raise LoadError(path, f"invalid JSON: {reason}", exc.lineno + line_offset, exc.colno) from None
    except RecursionError:  # pragma: no cover - orjson limits depth itself
        raise LoadError(path, "JSON nested too deeply") from None


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


def _mode_for(target: Path) -> int:
    """The mode the file would have had if written in place: its current one, or 0666 less the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask
