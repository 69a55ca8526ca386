"""The loaders: one module per input format, all producing the same ``Run``.

A format joins the registry by adding a module here that defines ``NAME``, ``DESCRIPTION``,
``sniff(doc) -> int`` (0: not this format; higher: more confident) and
``load(doc) -> list[Run]``, and listing it in ``FORMAT_MODULES``. Detection reads the
content, never the file name; ``--format NAME`` forces one. ``open_runs`` is the one
entry point the CLI, the app and the tests use.
"""

from __future__ import annotations

import gc
import importlib
from types import ModuleType

from tui.core.errors import LoadError, UsageError
from tui.core.run import Run
from tui.formats.document import Document, read_document
from tui.formats.sidecar import attach_sidecars

#: Loader modules, in the order they are asked; sniff scores break ties, not this order.
FORMAT_MODULES = [
    "tui.formats.native",
    "tui.formats.request",
    "tui.formats.messages",
    "tui.formats.vcr",
    "tui.formats.claude_trace",
    "tui.formats.claude_code",
    "tui.formats.openai",
]

_loaded: list[ModuleType] | None = None


def formats() -> list[ModuleType]:
    global _loaded
    if _loaded is None:
        _loaded = [importlib.import_module(name) for name in FORMAT_MODULES]
    return _loaded


def format_names() -> list[str]:
    return [m.NAME for m in formats()]


def detect(doc: Document) -> ModuleType:
    best, best_score = None, 0
    for module in formats():
        score = module.sniff(doc)
        if score > best_score:
            best, best_score = module, score
    if best is None:
        doc.raise_unknown(format_names())
    return best


def load_runs(path: str, fmt: str | None = None, system: str | None = None, tools: str | None = None,
              strict: bool = False) -> list[Run]:
    """Every run in the file, with sidecar system prompt and tools attached.

    The cyclic garbage collector is paused while the file is parsed: a run is millions of
    acyclic objects, and letting the collector walk them again and again as they are
    created costs a third of the parse. (Short-lived CLI verbs keep it off; see ``tui.cli``.
    Nothing is frozen here: in the long-lived app a frozen generation would keep whatever
    cyclic garbage existed at load time forever.)
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _load_runs(path, fmt, system, tools, strict)
    except RecursionError:  # a format parsed by something other than orjson, nested past any sense
        raise LoadError(path, "nested too deeply to read (more levels than turnscope walks)") from None
    finally:
        if paused:
            gc.enable()


def _load_runs(path: str, fmt: str | None, system: str | None, tools: str | None, strict: bool) -> list[Run]:
    doc = read_document(path, strict=strict)
    if fmt is not None:
        modules = {m.NAME: m for m in formats()}
        if fmt not in modules:
            raise UsageError(f"unknown format {fmt!r}; known: {', '.join(modules)}")
        module = modules[fmt]
    else:
        module = detect(doc)
    runs = module.load(doc)
    if not runs:
        raise LoadError(path, f"no run found in this {module.NAME} file", 1, 1)
    if doc.cut_off is not None:  # the most interesting line of a crashed run: kept, to be read and reported
        number, line = doc.cut_off
        runs[0].meta["cut_off"] = {"line": number, "bytes": len(line), "text": line.decode("utf-8", "backslashreplace")}
    if system is not None or tools is not None:
        attach_sidecars(runs, system, tools)
    return runs


def open_run(path: str, run: int | None = None, **options) -> Run:
    """One run of the file: ``run`` picks it (0-based) in a file that holds several."""
    return pick_run(path, load_runs(path, **options), run)


def pick_run(path: str, runs: list[Run], run: int | None) -> Run:
    """Run ``run`` (0-based; None: the first) of the runs loaded from ``path``, or one clear line."""
    k = 0 if run is None else run
    if not 0 <= k < len(runs):
        raise UsageError(f"{path}: there is no run {k}; the file holds {len(runs)} "
                         f"(0..{len(runs) - 1}, see `turnscope list`)")
    return runs[k]


__all__ = ["Document", "LoadError", "detect", "format_names", "formats", "load_runs", "open_run", "pick_run"]
