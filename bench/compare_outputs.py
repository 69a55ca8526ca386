"""Do two checkouts print the same bytes? ``tokens``, ``tokens --json``, ``stats`` and ``check`` on every file
of ``../shared/realruns`` (with ``next/``), ``sample_runs/`` and the 100 MB run, measured, not asserted.

    python bench/compare_outputs.py --before DIR [--after DIR] [--no-large] [--out DIR] [--reuse-before]

Each command's stdout, stderr and exit code are written under ``--out/<checkout>/`` and compared file by
file; a difference is printed with its first differing line. Exit code 1 when anything differs.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = (("tokens",), ("tokens", "--json"), ("stats",), ("check",))


def files(large: bool) -> list[Path]:
    found = []
    realruns = ROOT.parent.parent / "shared" / "realruns"
    if not realruns.is_dir():
        realruns = ROOT.parent / "shared" / "realruns"
    for base in (realruns, ROOT / "sample_runs"):
        found += sorted(p for p in base.rglob("*") if p.is_file() and "LICENSES" not in p.parts
                        and p.suffix not in (".md", ".txt"))
    if large and (ROOT / "bench" / "out" / "large.jsonl").exists():
        found.append(ROOT / "bench" / "out" / "large.jsonl")
    return found


def run_all(checkout: Path, paths: list[Path], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(checkout), "NO_COLOR": "1", "COLUMNS": "120"}
    for path in paths:
        key = hashlib.sha1(str(path).encode()).hexdigest()[:10] + "-" + path.name
        for command in COMMANDS:
            name = out / (key + "." + "_".join(command))
            result = subprocess.run([sys.executable, "-m", "tui", *command, str(path)], cwd=checkout, env=env,
                                    capture_output=True)
            name.write_bytes(result.stdout + b"\n--stderr--\n" + result.stderr + f"\n--exit {result.returncode}\n".encode())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, default=ROOT)
    parser.add_argument("--no-large", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("/tmp/turnscope-compare"))
    parser.add_argument("--reuse-before", action="store_true", help="keep the before outputs already in --out")
    args = parser.parse_args()
    paths = files(not args.no_large)
    for label, checkout in (("before", args.before), ("after", args.after)):
        if label == "before" and args.reuse_before and (args.out / label).is_dir():
            continue
        run_all(checkout.resolve(), paths, args.out / label)
    differ = 0
    names = sorted(p.name for p in (args.out / "before").iterdir())
    for name in names:
        a, b = (args.out / "before" / name).read_bytes(), (args.out / "after" / name).read_bytes()
        if a != b:
            differ += 1
            line = next(i for i, (x, y) in enumerate(zip(a.splitlines() + [b""], b.splitlines() + [b""])) if x != y)
            print(f"DIFFERS {name} at line {line + 1}")
    print(f"{len(paths)} files x {len(COMMANDS)} commands: {len(names) - differ} identical, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
