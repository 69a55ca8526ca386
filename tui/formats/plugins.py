"""Loaders from other packages: the ``turnscope.formats`` entry point group.

A package adds a format by naming, in its metadata, a module with the interface every
built-in loader has (``NAME``, ``DESCRIPTION``, ``sniff(doc) -> int``, ``load(doc) -> list[Run]``)::

    [project.entry-points."turnscope.formats"]
    myformat = "myformat_turnscope"

A plug-in that cannot be imported, lacks part of that interface, or takes a name already
used is named in one warning on stderr and left out; one that raises while sniffing is
named once and asked no more; one that raises while loading gives one clear line (exit 2),
never a traceback. Nothing here stops turnscope from opening files the other loaders read.

The entry points are read from the ``*.dist-info/entry_points.txt`` (and ``*.egg-info``) files
on ``sys.path`` directly: ``importlib.metadata`` costs 80 ms to import, a quarter of opening a
large run, for a lookup that is a few directory listings.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from tui.core.errors import LoadError
from tui.core.safe import one_line

GROUP = "turnscope.formats"


def warn(text: str) -> None:
    print(f"turnscope: warning: {one_line(text)}", file=sys.stderr, flush=True)


class PluginFormat:
    """A plug-in's module behind the loader interface, guarded so that its faults stay its own."""

    def __init__(self, module: Any, origin: str):
        self.module = module
        self.origin = origin
        self.NAME: str = module.NAME
        self.DESCRIPTION: str = module.DESCRIPTION
        self.broken = False
        near = getattr(module, "near_miss", None)
        if callable(near):
            self.near_miss = self._near_miss

    def sniff(self, doc: Any) -> int:
        if self.broken:
            return 0
        try:
            score = self.module.sniff(doc)
        except Exception as exc:  # noqa: BLE001 - a plug-in's fault never stops the others
            self.broken = True
            warn(f"plug-in format {self.NAME!r} ({self.origin}) failed while sniffing and is skipped: "
                 f"{type(exc).__name__}: {exc}")
            return 0
        return score if isinstance(score, int) and not isinstance(score, bool) else 0

    def load(self, doc: Any) -> list[Any]:
        try:
            return self.module.load(doc)
        except LoadError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise LoadError(doc.path, f"plug-in format {self.NAME!r} ({self.origin}) failed: "
                                      f"{type(exc).__name__}: {exc}", 1, 1) from None

    def _near_miss(self, doc: Any) -> str | None:
        try:
            what = self.module.near_miss(doc)
        except Exception:  # noqa: BLE001
            return None
        return what if isinstance(what, str) else None


def plugin_formats(taken: set[str]) -> list[Any]:
    """Every well-formed plug-in, in entry point order, skipping names in ``taken``."""
    out: list[Any] = []
    names = set(taken)
    for name, value in entry_points():
        origin = f"entry point {name} = {value}"
        try:
            module = _load(value)
        except Exception as exc:  # noqa: BLE001 - ImportError, SyntaxError, anything its import raises
            warn(f"plug-in format {name!r} ({origin}) cannot be imported and is skipped: "
                 f"{type(exc).__name__}: {exc}")
            continue
        missing = [a for a in ("NAME", "DESCRIPTION") if not isinstance(getattr(module, a, None), str)]
        missing += [a for a in ("sniff", "load") if not callable(getattr(module, a, None))]
        if missing:
            warn(f"plug-in format {name!r} ({origin}) is skipped: it lacks {', '.join(missing)}")
            continue
        if module.NAME in names:
            warn(f"plug-in format {name!r} ({origin}) is skipped: the name {module.NAME!r} is already taken")
            continue
        names.add(module.NAME)
        out.append(PluginFormat(module, origin))
    return out


def entry_points() -> list[tuple[str, str]]:
    """``(name, "module[:attr]")`` of every ``turnscope.formats`` entry point on ``sys.path``; a
    distribution found twice counts once (the first, as Python's own lookup does)."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for folder in sys.path:
        try:
            entries = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in sorted(entries):
            if not entry.endswith((".dist-info", ".egg-info")):
                continue
            dist = entry.rsplit(".", 1)[0].split("-")[0].lower().replace(".", "_")
            if dist in seen:
                continue
            try:
                with open(os.path.join(folder or ".", entry, "entry_points.txt"), "rb") as handle:
                    text = handle.read()
            except OSError:
                continue
            seen.add(dist)
            if b"[" + GROUP.encode() + b"]" in text:
                out += _section(text.decode("utf-8", "replace"))
    return out


def _section(text: str) -> list[tuple[str, str]]:
    out, inside = [], False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            inside = line == f"[{GROUP}]"
            continue
        if inside and "=" in line:
            name, value = line.split("=", 1)
            out.append((name.strip(), value.strip()))
    return out


def _load(value: str) -> Any:
    module_name, _, attr = value.partition(":")
    target: Any = importlib.import_module(module_name.strip())
    for part in attr.strip().split(".") if attr.strip() else []:
        target = getattr(target, part)
    return target
