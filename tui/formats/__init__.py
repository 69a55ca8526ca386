"""The loaders: one module per input format, all producing the same ``Run``.

A format joins the registry by adding a module here that defines ``NAME``, ``DESCRIPTION``,
``sniff(doc) -> int`` (0: not this format; higher: more confident) and
``load(doc) -> list[Run]`` (and optionally ``near_miss(doc) -> str | None``: what an almost-matching
file lacks), and listing it in ``FORMAT_MODULES``; a package outside turnscope adds one through
the ``turnscope.formats`` entry point group (``tui.formats.plugins``). Detection reads the
content, never the file name; ``--format NAME`` forces one. ``open_runs`` is the one
entry point the CLI, the app and the tests use.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from tui.core import collector
from tui.core.branch.marker import marks_experiment
from tui.core.errors import LoadError, UsageError
from tui.core.run import Run
from tui.formats.document import Document, read_document
from tui.formats.sidecar import attach_context, attach_sidecars

#: Loader modules, in the order they are asked; sniff scores break ties, not this order.
FORMAT_MODULES = [
    "tui.formats.native",
    "tui.formats.request",
    "tui.formats.messages",
    "tui.formats.vcr",
    "tui.formats.claude_trace",
    "tui.formats.claude_code",
    "tui.formats.openai",
    "tui.formats.codex",
    "tui.formats.inspect_log",
    "tui.formats.har",
    "tui.formats.otel",
    "tui.formats.langfuse",
    "tui.formats.gemini",
]

_loaded: list[ModuleType] | None = None


def formats() -> list[ModuleType]:
    """The built-in loaders, then the plug-ins (``tui.formats.plugins``: entry point group
    ``turnscope.formats``); a broken plug-in is named in one warning and left out."""
    global _loaded
    if _loaded is None:
        from tui.formats.plugins import plugin_formats

        builtin = [importlib.import_module(name) for name in FORMAT_MODULES]
        _loaded = builtin + plugin_formats({m.NAME for m in builtin})
    return _loaded


def format_names() -> list[str]:
    return [m.NAME for m in formats()]


def detect(doc: Document) -> ModuleType:
    if marks_experiment(doc.head):
        raise LoadError(doc.path, "an experiment file (`turnscope branch --samples K`), not a run: open it in the "
                        "app with `turnscope FILE`, continue it with `turnscope branch --resume FILE`", 1, 1)
    best, best_score = None, 0
    for module in formats():
        score = module.sniff(doc)
        if score > best_score:
            best, best_score = module, score
    if best is None:
        for module in formats():  # a file that is almost one of the formats: say what it lacks
            near = getattr(module, "near_miss", None)
            what = near(doc) if near is not None else None
            if what:
                raise LoadError(doc.path, f"almost a '{module.NAME}' file, but {what} (--format NAME forces one)", 1, 1)
        doc.raise_unknown(format_names())
    return best


def load_runs(path: str, fmt: str | None = None, system: str | None = None, tools: str | None = None,
              strict: bool = False, context: str | None = None, lazy: bool = False) -> list[Run]:
    """Every run in the file, with sidecar system prompt and tools attached.

    ``lazy``: the caller lists the runs and opens one or a few (the app, ``list``, ``open_run``), so a
    loader may hand out runs built when first asked for (``Document.lazy``); what lists read
    (``title()``, ``sizes()``, ``call_starts()``, ``meta``, ``source``) is there without building.

    The cyclic garbage collector is paused while the file is parsed: a run is millions of
    acyclic objects, and letting the collector walk them again and again as they are
    created costs a third of the parse (``tui.core.collector`` holds the whole policy).
    """
    try:
        with collector.paused():
            if context is None:
                return _load_runs(path, fmt, system, tools, strict, lazy)
            runs = _load_runs(path, fmt, None, None, strict, lazy)
            attach_context(runs, context, load_runs)  # --context RECORDING[#CALL]; --system/--tools replace parts
            if system is not None or tools is not None:
                attach_sidecars(runs, system, tools)
            return runs
    except RecursionError:  # a format parsed by something other than orjson, nested past any sense
        raise LoadError(path, "nested too deeply to read (more levels than turnscope walks)") from None


def finish_runs(doc: Document, module: Any, runs: list[Run]) -> list[Run]:
    """A format's runs as ``load_runs`` gives them: none is an error; a cut-off last line is kept in the meta."""
    if not runs:
        raise LoadError(doc.path, f"no run found in this {module.NAME} file", 1, 1)
    if doc.cut_off is not None:  # the most interesting line of a crashed run: kept, to be read and reported
        number, line = doc.cut_off
        runs[0].meta["cut_off"] = {"line": number, "bytes": len(line), "text": line.decode("utf-8", "backslashreplace")}
    return runs


def _load_runs(path: str, fmt: str | None, system: str | None, tools: str | None, strict: bool,
               lazy: bool = False) -> list[Run]:
    doc = read_document(path, strict=strict)
    doc.lazy = lazy
    if fmt is not None:
        modules = {m.NAME: m for m in formats()}
        if fmt not in modules:
            raise UsageError(f"unknown format {fmt!r}; known: {', '.join(modules)}")
        module = modules[fmt]
    else:
        module = detect(doc)
    runs = finish_runs(doc, module, module.load(doc))
    if system is not None or tools is not None:
        attach_sidecars(runs, system, tools)
    return runs


def open_run(path: str, run: int | None = None, **options) -> Run:
    """One run of the file: ``run`` picks it (0-based) in a file that holds several (the others are not
    built where a loader can leave them: ``load_runs(lazy=True)``)."""
    options.setdefault("lazy", True)
    return pick_run(path, load_runs(path, **options), run)


def pick_run(path: str, runs: list[Run], run: int | None) -> Run:
    """Run ``run`` (0-based; None: the first) of the runs loaded from ``path``, or one clear line."""
    k = 0 if run is None else run
    if not 0 <= k < len(runs):
        raise UsageError(f"{path}: there is no run {k}; the file holds {len(runs)} "
                         f"(0..{len(runs) - 1}, see `turnscope list`)")
    return runs[k]


__all__ = ["Document", "LoadError", "detect", "format_names", "formats", "load_runs", "open_run", "pick_run"]
