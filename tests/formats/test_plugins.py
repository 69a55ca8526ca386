"""Loaders as plug-ins: packages under ``tests/plugins/`` really installed with pip (into a folder
under the test's temporary directory) and turnscope run in a fresh process with that folder on
``PYTHONPATH``. ``chatlog`` adds a format; ``broken`` declares one plug-in whose import fails and
one that lacks ``load``: each is named in one warning, and files still open."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import orjson
import pytest

from conftest import REPO, run_cli

PLUGINS = REPO / "tests" / "plugins"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = tmp_path_factory.mktemp("plugins")
    source = base / "src"
    shutil.copytree(PLUGINS, source)  # pip builds in the source folder: never in the checkout
    target = base / "site"
    env = {**os.environ, "TMPDIR": str(base), "PIP_CACHE_DIR": str(base / "cache"),
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           str(source / "chatlog"), str(source / "broken")],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return target


def _cli(site, *args):
    return run_cli(*args, env={"PYTHONPATH": f"{site}{os.pathsep}{REPO}"})


CHATLOG = {"chatlog": [{"who": "user", "said": "Is it raining?"}, {"who": "bot", "said": "No, sunny."}]}


def test_a_plugin_format_is_detected_forced_and_listed(site, tmp_path):
    path = tmp_path / "talk.json"
    path.write_bytes(orjson.dumps(CHATLOG))
    checked = _cli(site, "check", path)
    assert checked.code == 0, checked.stderr
    assert checked.stdout.strip() == f"{path}: ok (2 messages, 1 model call, reconstructed prefixes)"
    shown = _cli(site, "show", path, "--at", "1", "--format", "chatlog")
    assert shown.code == 0 and "chatlog format" in shown.stdout and "Is it raining?" in shown.stdout
    unknown = _cli(site, "check", tmp_path / "missing.json", "--format", "nosuch")
    assert "chatlog" in unknown.stderr  # named among the known formats


def test_each_broken_plugin_is_one_warning_and_files_still_open(site, tmp_path):
    result = _cli(site, "check", REPO / "sample_runs" / "refund" / "run.jsonl")
    assert result.code == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("turnscope: warning: plug-in format 'broken' (entry point broken = "
                               "turnscope_broken_format) cannot be imported and is skipped: ModuleNotFoundError")
    assert lines[1] == ("turnscope: warning: plug-in format 'incomplete' (entry point incomplete = "
                        "turnscope_broken_format_incomplete) is skipped: it lacks load")


def test_without_the_plugins_the_format_is_unknown(tmp_path, cli):
    path = tmp_path / "talk.json"
    path.write_bytes(orjson.dumps(CHATLOG))
    result = cli("check", path)
    assert result.code == 2 and "unknown format" in result.stderr and result.stderr.count("\n") == 1
