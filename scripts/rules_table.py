"""Print (or, with ``--write``, put into README.md) the table of grammar rules from
``tui/core/grammar/rules.py``; ``tests/test_readme.py`` checks that README's copy is current.

    python scripts/rules_table.py [--write]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tui.core.grammar.rules import RULES  # noqa: E402

START, END = "<!-- rules-table -->", "<!-- /rules-table -->"


def table() -> str:
    rows = ["| rule | severity | evidence | what it means |", "|---|---|---|---|"]
    for rule in RULES.values():
        severity = rule.severity + (" (`--strict` only)" if rule.strict else "")
        text = rule.summary.replace("|", "\\|")
        api = " · API text known" if rule.api else ""
        rows.append(f"| `{rule.slug}` | {severity} | {rule.confidence}{api} | {text} |")
    return "\n".join(rows)


def readme_with_table(readme: str) -> str:
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    if argv[:1] == ["--write"]:
        path = ROOT / "README.md"
        path.write_text(readme_with_table(path.read_text()))
        print(f"updated {path.name}")
    else:
        print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
