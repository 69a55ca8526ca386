"""Every module and every public class of ``tui/`` says what it holds (a docstring), so a newcomer reading
one file knows what it is for; the check reads the source (AST), it imports nothing."""

from __future__ import annotations

import ast

from conftest import REPO

TUI = REPO / "tui"


def missing_docstrings(root) -> list[str]:
    """``path:line Class`` for each public class (a name not starting with ``_``, at module level or inside a
    public class) without a docstring, and ``path`` for each module without one."""
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        where = path.relative_to(root.parent)
        if ast.get_docstring(tree) is None and path.stat().st_size:
            out.append(f"{where}: module")
        todo = [node for node in tree.body if isinstance(node, ast.ClassDef)]
        while todo:
            node = todo.pop()
            if node.name.startswith("_"):
                continue
            if ast.get_docstring(node) is None:
                out.append(f"{where}:{node.lineno} class {node.name}")
            todo += [n for n in node.body if isinstance(n, ast.ClassDef)]
    return out


def test_every_module_and_public_class_of_tui_has_a_docstring():
    missing = missing_docstrings(TUI)
    assert not missing, "no docstring:\n" + "\n".join(missing)


def test_the_check_names_a_public_class_without_one(tmp_path):
    package = tmp_path / "tui"
    package.mkdir()
    (package / "thing.py").write_text('"""A module."""\n\nclass Said:\n    """Says."""\n\n'
                                      'class Bare:\n    pass\n\nclass _Private:\n    pass\n')
    assert missing_docstrings(package) == ["tui/thing.py:6 class Bare"]
