"""The layers are a contract: ``tui.cli``/``tui.commands`` above ``tui.app`` above ``tui.formats`` above
``tui.core``; no module of ``tui/`` in an import cycle; ``tui.core`` and ``tui.app.render`` import no
Textual (``import_graph`` reads every import statement, lazy and ``TYPE_CHECKING`` ones too). The
checker is shown failing, naming the import, on a copy of the tree with an offending import added."""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO
from import_graph import violations

TUI = REPO / "tui"


def test_the_tui_package_keeps_its_layers_and_has_no_import_cycle():
    broken = violations(TUI)
    assert not broken, "\n".join(broken)


@pytest.fixture
def tree(tmp_path):
    """A copy of ``tui/`` (sources only) to add offending imports to."""
    copy = tmp_path / "tui"
    shutil.copytree(TUI, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.tcss"))
    return copy


def _append(path, line: str) -> None:
    path.write_text(path.read_text() + "\n" + line + "\n")


def test_a_core_module_importing_a_loader_is_named(tree):
    _append(tree / "core" / "summary.py", "from tui.formats import load_runs")
    broken = violations(tree)
    assert len(broken) == 1
    assert "core/summary.py" in broken[0] and "tui.core.summary imports tui.formats" in broken[0]
    assert "core may not import formats" in broken[0]


def test_a_lazy_import_of_the_verbs_from_a_screen_is_named(tree):
    _append(tree / "app" / "screens" / "diff.py", "def later():\n    from tui.commands.show import main")
    broken = violations(tree)
    assert len(broken) == 1 and "tui.app.screens.diff imports tui.commands.show" in broken[0]


@pytest.mark.parametrize("where, module", [("core/run_facts.py", "tui.core.run_facts"),
                                           ("app/render/lines.py", "tui.app.render.lines")])
def test_textual_in_the_core_or_the_render_builders_is_named(tree, where, module):
    _append(tree / where, "from textual.widget import Widget")
    broken = violations(tree)
    assert len(broken) == 1 and f"{module} imports textual.widget" in broken[0] and "no Textual" in broken[0]


def test_an_import_cycle_inside_one_layer_is_named(tree):
    # the stepper imports the message list; the list importing the stepper back closes a circle
    _append(tree / "app" / "widgets" / "message_list.py", "from tui.app.screens.stepper import StepperScreen")
    broken = violations(tree)
    assert len(broken) == 1 and broken[0].startswith("import cycle: ")
    assert "tui.app.widgets.message_list imports tui.app.screens.stepper" in broken[0]
