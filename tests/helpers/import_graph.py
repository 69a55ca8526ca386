"""The import graph of a ``tui/`` tree read from its source (every import statement, lazy ones inside
functions and ``TYPE_CHECKING`` ones included), and the layer contract checked over it.

Layers, highest first: ``tui.cli``/``tui.commands``/``tui.__main__`` above ``tui.app`` above
``tui.formats`` above ``tui.core``. A module may import its own layer and the layers below;
no module of ``tui/`` may be in an import cycle; ``tui.core`` and ``tui.app.render`` import
no Textual. Each broken rule is one line naming the file, its line and the import.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

#: The layers, lowest first; a module belongs to the first whose prefix it starts with.
LAYERS = (
    ("core", ("tui.core",)),
    ("formats", ("tui.formats",)),
    ("app", ("tui.app",)),
    ("cli", ("tui.cli", "tui.commands", "tui.__main__", "tui")),
)
#: Packages that may not import Textual (they are drawn or run without it).
NO_TEXTUAL = ("tui.core", "tui.app.render")


@dataclass(frozen=True)
class Import:
    """One import statement: the importing module, the module it names, where it is written."""

    source: str
    target: str
    path: Path
    line: int

    def where(self) -> str:
        return f"{self.path}:{self.line}: {self.source} imports {self.target}"


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_imports(root: Path) -> tuple[set[str], list[Import]]:
    """Every module under ``root`` (the ``tui`` package folder) and every import each one writes."""
    modules = {module_name(root, p): p for p in sorted(root.rglob("*.py"))}
    imports: list[Import] = []
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                imports += [Import(name, alias.name, path, node.lineno) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    # ``from tui.app import keys`` imports the module tui.app.keys
                    imports.append(Import(name, sub if sub in modules else base, path, node.lineno))
    return set(modules), imports


def layer_of(module: str) -> int | None:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def cycles(modules: set[str], imports: list[Import]) -> list[list[str]]:
    """The import cycles among ``modules`` (strongly connected components of more than one module,
    or a module importing itself), each as its modules in order."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for imp in imports:
        if imp.target in modules:
            graph[imp.source].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def violations(root: Path) -> list[str]:
    """Every broken rule of the contract in the ``tui`` tree at ``root``, one line each."""
    modules, imports = read_imports(root)
    out = []
    for imp in imports:
        if any(_within(imp.source, p) for p in NO_TEXTUAL) and _within(imp.target, "textual"):
            out.append(f"{imp.where()} (no Textual in {', '.join(NO_TEXTUAL)})")
        if not _within(imp.target, "tui"):
            continue
        source, target = layer_of(imp.source), layer_of(imp.target)
        if source is not None and target is not None and target > source:
            out.append(f"{imp.where()} ({LAYERS[source][0]} may not import {LAYERS[target][0]}, a higher layer)")
    for component in cycles(modules, imports):
        ties = list(dict.fromkeys(imp.where() for imp in imports if imp.source in component and imp.target in component))
        out.append("import cycle: " + " -> ".join(component) + "; " + "; ".join(ties))
    return out
