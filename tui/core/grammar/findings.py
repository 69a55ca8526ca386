"""A finding of the grammar check, and the collector the rule modules add to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.grammar.rules import ERROR, RULES, WARNING


@dataclass(frozen=True)
class Finding:
    """One thing the grammar (or content) check found: its severity, rule, where (index, block), the API's
    words and a likely cause."""

    severity: str
    rule: str
    index: int | None
    block: int | None
    message: str
    cause: str | None

    def where(self) -> str:
        """``INDEX[.BLOCK]``, or '' for request-level findings."""
        if self.index is None:
            return ""
        return f"{self.index}" if self.block is None else f"{self.index}.{self.block}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "rule": self.rule,
            "index": self.index,
            "block": self.block,
            "message": self.message,
            "cause": self.cause,
        }


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


class Findings:
    """Collects findings; knows which message was never sent back (the run's final response)."""

    def __init__(self, strict: bool, unsent: int | None):
        self.strict = strict
        self.unsent = unsent
        self.items: list[Finding] = []
        #: ``cache_control`` breakpoints seen in messages (counted by the message pass).
        self.cache_controls: int | None = None

    def add(self, slug: str, index: int | None, block: int | None, *, detail: str = "",
            cause: str | None = None, **fields: Any) -> None:
        rule = RULES[slug]
        if rule.strict and not self.strict:
            return
        if rule.api is not None:
            # ``api_index``: the index the API's text names, where it differs from the finding's.
            values = _Blank({"index": fields.pop("api_index", index), "block": block,
                             **{k: str(v) for k, v in fields.items()}})
            message = rule.api.format_map(values)
            if detail:
                message += f" [{detail}]"
        else:
            message = f"{rule.summary}: {detail}" if detail else rule.summary
        severity = rule.severity
        if severity == ERROR and index is not None and index == self.unsent:
            severity = WARNING
            message += " (in the run's last turn, which was never sent back)"
        self.items.append(Finding(severity, slug, index, block, message, cause or rule.cause))


def sort_findings(items: list[Finding]) -> list[Finding]:
    def key(f: Finding) -> tuple[int, int, int]:
        return (-1 if f.index is None else f.index, -1 if f.block is None else f.block,
                0 if f.severity == ERROR else 1)

    return sorted(items, key=key)
