"""Helpers for the loader tests: the fixture paths, every run of the real and sample files, and the
recorded request bodies read straight from a cassette or trace log (with PyYAML and orjson, not through
turnscope), to compare with."""

from __future__ import annotations

import gzip
import tempfile
from pathlib import Path
from typing import Any

import orjson
import yaml

from conftest import REPO, SAMPLES
from tui.core import native
from tui.core.prefix import request_at
from tui.formats import load_runs

FIXTURES = REPO / "tests" / "fixtures"
CREDENTIALS = ("authorization_token",)


def every_run(realruns: Path):
    """``(path, run)`` for every run of every file under ``realruns`` and ``sample_runs`` that loads (the
    broken samples and the notes beside the runs do not)."""
    for path in sorted(p for base in (realruns, SAMPLES) for p in base.rglob("*") if p.is_file()):
        try:
            runs = load_runs(str(path))
        except Exception:  # noqa: BLE001 - a broken sample, or a file that is not a run
            continue
        for run in runs:
            yield path, run


def recorded_bodies(path: Path) -> list[tuple[dict[str, Any], int | None]]:
    """``(request body, status)`` of every /v1/messages exchange, in file order."""
    out = []
    if path.suffix in (".yaml", ".yml"):
        for item in yaml.safe_load(path.read_bytes())["interactions"]:
            request, response = item["request"], item["response"]
            if "/count_tokens" in request["uri"] or not request["uri"].split("?")[0].endswith("/v1/messages"):
                continue
            body = request["parsed_body"] if "parsed_body" in request else orjson.loads(request["body"])
            out.append((_without_credentials(body), response["status"]["code"]))
    else:
        for line in path.read_bytes().splitlines():
            pair = orjson.loads(line)
            url = pair["request"]["url"].split("?")[0]
            if not url.endswith("/v1/messages"):
                continue
            response = pair.get("response")
            out.append((_without_credentials(pair["request"]["body"]), response["status_code"] if response else None))
    return out


def _without_credentials(body: dict[str, Any]) -> dict[str, Any]:
    for server in body.get("mcp_servers") or []:
        for key in CREDENTIALS:
            server.pop(key, None)
    return body


def gunzip_if_needed(raw: bytes | str) -> str:
    return gzip.decompress(raw).decode() if isinstance(raw, bytes) else raw


def round_trip(path: Path) -> tuple[list, list]:
    """The runs of ``path``, and the same runs written as a native file and loaded back."""
    runs = load_runs(str(path))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder, "run.turnscope.json")
        out.write_bytes(native.dumps(runs))
        back = load_runs(str(out))
    return runs, back


def same_run(a, b) -> bool:
    fields = ("messages", "system", "tools", "params", "calls", "warnings", "prefill", "order")
    if any(getattr(a, f) != getattr(b, f) for f in fields):
        return False
    if (a.source.prefix, a.source.title) != (b.source.prefix, b.source.title):
        return False
    return all(request_at(a, n).body == request_at(b, n).body for n in range(len(a.messages) + 1))
