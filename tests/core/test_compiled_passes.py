"""pyproject builds two C passes as optional extensions (``tui/core/piece_count.c``, ``tui/core/sieve_text.c``):
where the interpreter's C compiler is on the machine (as on CI), ``pip install`` must have built both, and the
modules that use them must use them. (Each pass is held to its Python twin in test_estimate_fast_paths.py and
test_sieve.py; without a compiler those Python twins do the work.)"""

from __future__ import annotations

import importlib
import shutil
import sysconfig

import pytest

from tui.core import estimate, sieve


@pytest.mark.parametrize("name, in_use", [
    ("tui.core.piece_count", lambda m: estimate.COMPILED and estimate._compiled_pieces is m.pieces),
    ("tui.core.sieve_text", lambda m: sieve.prepare is m.prepare),
])
def test_each_c_pass_is_built_and_used_where_a_c_compiler_is(name, in_use):
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}): the Python passes do the work")
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        pytest.fail(f"{name} was not built although a C compiler is here: {exc}")
    assert in_use(module), f"{name} is built but not used"
