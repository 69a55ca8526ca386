"""``tui.core`` and ``tui.app.render`` import no Textual (every module of them, in a fresh interpreter, as
harlequin's test does), and the headless verbs load neither Textual nor the SDK, so they start fast."""

import subprocess
import sys

import pytest

from conftest import REPO


def _modules_after(code: str) -> list[str]:
    script = code + "\nprint(','.join(sorted({m.split('.')[0] for m in sys.modules})))"
    out = subprocess.run([sys.executable, "-c", "import sys\n" + script], cwd=REPO, capture_output=True,
                         text=True, env={"PYTHONPATH": str(REPO), "PATH": ""})
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().split(",")


@pytest.mark.parametrize("package", ["tui.core", "tui.app.render"])
def test_every_core_and_render_module_imports_without_textual(package):
    loaded = _modules_after(
        f"import pkgutil, importlib, {package}\n"
        f"for m in pkgutil.walk_packages({package}.__path__, '{package}.'): importlib.import_module(m.name)")
    assert "textual" not in loaded


def test_headless_verbs_and_loaders_load_no_textual_or_sdk():
    loaded = _modules_after(
        "import tui.cli, tui.formats, importlib\n"
        "tui.formats.formats()\n"
        "for v in tui.cli.VERBS.values(): importlib.import_module(v)")
    assert "textual" not in loaded
    assert "anthropic" not in loaded
