"""A run as a document for a review: one self-contained HTML page (no network, no script) or Markdown.

``build`` lays the run out as the stepper shows it: a header (file, format, exact or reconstructed,
model, calls, token figures), each message with its index, producer and blocks (tool inputs field
by field, tool results, thinking), the findings beside their messages, the request at N when asked
(system prompt and tools included), and for a branch file its lineage and the messages side by side
with its parent's from where they part. ``html`` and ``markdown`` render it.

Run text is untrusted. Every string from the run is made visible first (``tui.core.safe.visible``:
hidden text shows as ``⟨tags: "..."⟩`` and escapes, since a browser would draw it as nothing), then
escaped for the format: in HTML nothing from the run is markup, a link or a script, and the page's
Content-Security-Policy forbids scripts and every fetch besides; in Markdown run text sits in code
fences longer than any backtick run it holds, or is backslash-escaped inline. A run with secrets is
exported redacted (``tui.core.secrets.redact_run``) or not at all: the caller decides, and
``secret_places`` lists what would be redacted by kind and place only.
"""

from __future__ import annotations

import html as _html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui.core import jsonio
from tui.core.content_check import content_findings
from tui.core.errors import UsageError
from tui.core.grammar import check_run
from tui.core.grammar.findings import Finding, sort_findings
from tui.core.prefix import request_at
from tui.core.producers import producers
from tui.core.blocks import is_media, is_tool_use, media_description
from tui.core.run import Run, block_type, blocks_of
from tui.core.safe import visible

HTML = "html"
MARKDOWN = "md"
FORMATS = (HTML, MARKDOWN)
_LAST4 = re.compile(r", ending ….{1,4}$")


@dataclass
class Part:
    """One block as the stepper shows it: a heading and a body (both made visible)."""

    heading: str
    body: str


@dataclass
class MessageDoc:
    """One message of the review: its title, its blocks as parts, its findings and what its request cost."""

    index: int
    title: str  # "[3] user · loop"
    parts: list[Part]
    findings: list[str]
    tokens: str | None = None


@dataclass
class Review:
    """The review of a run that ``export`` writes as HTML or Markdown: header, findings, messages, the request
    at N, the branch lineage, what was redacted."""

    title: str
    header: list[str]
    findings: list[str]  # about the whole request, not one message
    messages: list[MessageDoc]
    request: list[Part] | None = None
    lineage: list[str] = field(default_factory=list)
    side_by_side: list[tuple[str, str, bool]] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)


def _json(value: Any) -> str:
    return visible(jsonio.dumps(value, indent=True).decode("utf-8", "replace"))


def secret_places(run: Run) -> list[str]:
    """What ``--redact`` would replace: ``KIND in the PLACE at INDEX.BLOCK`` (never the secret, nor its end)."""
    from tui.core.secrets import secret_findings

    return [_finding_text(f, with_where=True) for f in secret_findings(run)]


def _finding_text(f: Finding, with_where: bool = False) -> str:
    message = _LAST4.sub("", f.message) if f.rule == "secret_in_content" else f.message
    where = f" at {f.where()}" if with_where and f.index is not None else ""
    return visible(f"{f.severity} {f.rule}{where}: {message}")


def _input_fields(value: Any) -> str:
    if isinstance(value, dict):
        lines = []
        for key, item in value.items():
            shown = item if isinstance(item, str) else jsonio.dumps(item, indent=True).decode("utf-8", "replace")
            lines.append(f"{key}: {shown}")
        return visible("\n".join(lines)) if lines else "(no fields)"
    return _json(value)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return visible(content)
    if isinstance(content, list):
        out = []
        for block in content:
            kind = block_type(block)
            if kind == "text" and isinstance(block.get("text"), str):
                out.append(visible(block["text"]))
            elif is_media(kind):
                out.append(visible(media_description(block)))
            else:
                out.append(_json(block))
        return "\n".join(out)
    return "" if content is None else _json(content)


def block_part(block: Any) -> Part:
    """One block as a heading and a body, as the stepper shows it."""
    kind = block_type(block)
    if not isinstance(block, dict):
        return Part(visible(kind), _json(block))
    if kind == "text" and isinstance(block.get("text"), str):
        return Part("text", visible(block["text"]))
    if is_tool_use(kind):
        return Part(visible(f"{kind} {block.get('name')} · {block.get('id')}"), _input_fields(block.get("input")))
    if kind == "tool_result":
        mark = " · is_error" if block.get("is_error") else ""
        return Part(visible(f"tool_result for {block.get('tool_use_id')}{mark}"), _result_text(block.get("content")))
    if kind == "thinking":
        thought = block.get("thinking")
        if isinstance(thought, str) and thought.strip():
            return Part("thinking", visible(thought))
        return Part("thinking", f"(not returned by the provider; signature {len(str(block.get('signature') or ''))} "
                                "characters, kept exact)")
    if kind == "redacted_thinking":
        return Part("redacted_thinking", f"(data {len(str(block.get('data') or ''))} characters, kept exact)")
    if is_media(kind):
        return Part(kind, visible(media_description(block)))
    return Part(visible(kind), _json(block))


def _summary(message: Any) -> str:
    parts = [block_part(b) for b in blocks_of(message)]
    text = " · ".join(f"{p.heading}: {p.body}" for p in parts) if parts else "(no content)"
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:159] + "…"


def _tokens(run: Run) -> tuple[list[str], dict[int, str]]:
    from tui.core.tokens import token_report

    try:
        report = token_report(run)
    except Exception:  # noqa: BLE001 - figures are a courtesy; a damaged usage record never stops an export
        return [], {}
    per = {}
    for c in report.calls:
        per[c.message] = (f"input {c.total_input:,} tokens (cache read {c.cache_read_input_tokens:,}, cache write "
                          f"{c.cache_creation_input_tokens:,}) · output {c.output_tokens:,} · {c.kind}")
    kinds = ", ".join(sorted(report.kinds)) or "none"
    head = [f"tokens: {report.total_input:,} input and {report.total_output:,} output over {len(report.calls)} "
            f"model calls ({kinds})"]
    return head, per


def build(run: Run, *, at: int | None = None, parent: Run | None = None, redacted: list[str] | None = None) -> Review:
    """The document for ``run`` (already redacted when it had to be; ``redacted`` lists what was)."""
    findings = sort_findings([*check_run(run), *content_findings(run)])
    source = run.source
    where = source.path + (f"#{source.run_index}" if source.run_count > 1 else "")
    prefix = ("exact (taken from the recorded requests)" if run.exact
              else "reconstructed (rebuilt from the run's messages)")
    header = [visible(f"file: {where}"), visible(f"format: {source.format}"), f"prefix: {prefix}",
              visible(f"model: {run.model or 'not recorded'}"),
              f"{len(run.messages)} messages, {len(run.calls)} model calls, {len(findings)} findings"]
    token_head, per_message = _tokens(run)
    header += token_head
    by_index: dict[int, list[str]] = {}
    top = []
    for f in findings:
        if f.index is None:
            top.append(_finding_text(f))
        else:
            by_index.setdefault(f.index, []).append(_finding_text(f) if f.block is None
                                                    else f"[{f.index}.{f.block}] " + _finding_text(f))
    table = producers(run)
    messages = []
    for i, message in enumerate(run.messages):
        role = message.get("role") if isinstance(message, dict) else "(not a message)"
        label = table[i].label if i < len(table) else "?"
        call = run.call_for(i)
        stop = f" · stop_reason {call.stop_reason}" if call is not None and call.stop_reason else ""
        title = visible(f"[{i}] {role} · {label}{stop}")
        parts = [block_part(b) for b in blocks_of(message)]
        if isinstance(message, dict) and not isinstance(message.get("content"), (str, list)):
            parts = [Part("content", _json(message.get("content")))]
        messages.append(MessageDoc(i, title, parts, by_index.get(i, []), per_message.get(i)))
    doc = Review(visible(f"turnscope: {where}"), header, top, messages, redacted=list(redacted or []))
    if at is not None:
        doc.request = _request_parts(run, at)
    if run.lineage is not None:
        doc.lineage = _lineage(run.lineage)
        if parent is not None:
            doc.side_by_side = _side_by_side(parent, run)
    return doc


def _request_parts(run: Run, at: int) -> list[Part]:
    req = request_at(run, at)
    body = req.body
    parts = [Part("request", f"the request for message {req.index}: "
                  + ("exact (as recorded)" if req.exact else "reconstructed (rebuilt from the run)"))]
    params = {k: v for k, v in body.items() if k not in ("system", "tools", "messages")}
    parts.append(Part("params", _json(params) if params else "(none recorded)"))
    system = body.get("system")
    if system is not None:
        text = system if isinstance(system, str) else "\n".join(
            b["text"] if isinstance(b, dict) and isinstance(b.get("text"), str) else jsonio.dumps(b).decode()
            for b in (system if isinstance(system, list) else [system]))
        parts.append(Part("system prompt", visible(text)))
    else:
        parts.append(Part("system prompt", "(none in this source)"))
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            parts.append(Part(visible(f"tool {tool.get('name')}"),
                              visible(str(tool.get("description") or "")) + "\n" + _json(tool.get("input_schema"))))
        else:
            parts.append(Part("tool", _json(tool)))
    count = len(body.get("messages") or [])
    parts.append(Part("messages", f"messages 0..{count - 1} ({count}), each shown above" if count
                      else "no messages"))
    return parts


def _lineage(lineage: dict[str, Any]) -> list[str]:
    parent = lineage.get("parent") if isinstance(lineage.get("parent"), dict) else {}
    patch = lineage.get("patch") if isinstance(lineage.get("patch"), list) else []
    return [visible(f"branch of {parent.get('path')} (run {parent.get('run', 0)}, sha256 "
                    f"{str(parent.get('sha256', ''))[:12]}…) at message {lineage.get('at')}"),
            visible(f"patch: {len(patch)} op{'s' if len(patch) != 1 else ''}: {jsonio.dumps(patch).decode()}"),
            visible(f"model: {lineage.get('model')} · resolver: {lineage.get('resolver')} · "
                    f"status: {lineage.get('status')}")]


def _side_by_side(parent: Run, run: Run) -> list[tuple[str, str, bool]]:
    from tui.core.diff import aligned, first_divergence

    start = first_divergence(parent.messages, run.messages)
    rows = []
    for i, k, same in aligned(parent.messages, run.messages, start):
        left = f"[{i}] {_summary(parent.messages[i])}" if i is not None else ""
        right = f"[{k}] {_summary(run.messages[k])}" if k is not None else ""
        rows.append((visible(left), visible(right), same))
    return rows


# -- HTML ---------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #111; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f5f5f5; padding: .5em; margin: .2em 0 .8em; }
h3 { font-size: 1em; margin: .6em 0 0; font-family: monospace; }
section.message { border-top: 1px solid #ccc; padding-top: .4em; }
.finding { background: #fff4e0; border-left: 4px solid #d08000; padding: .2em .5em; margin: .2em 0; }
.finding.error { background: #ffe8e8; border-left-color: #c00000; }
.tokens, .header li { color: #444; }
table { border-collapse: collapse; width: 100%; } td { vertical-align: top; border: 1px solid #ddd; padding: .3em; }
tr.differs td { background: #fff8d0; }
"""
#: No script, no fetch of any kind (images, fonts, frames, forms): only the inline style is allowed.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'none'; form-action 'none'; base-uri 'none'"


def _e(text: str) -> str:
    return _html.escape(text, quote=True)


def _finding_html(text: str) -> str:
    severity = "error" if text.split("] ")[-1].startswith("error ") else "warning"
    return f'<div class="finding {severity}">{_e(text)}</div>'


def _parts_html(parts: list[Part]) -> list[str]:
    return [f"<h3>{_e(p.heading)}</h3><pre>{_e(p.body)}</pre>" for p in parts]


def html(doc: Review) -> bytes:
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">',
           '<meta name="referrer" content="no-referrer">',
           f"<title>{_e(doc.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{_e(doc.title)}</h1>", '<ul class="header">']
    out += [f"<li>{_e(line)}</li>" for line in doc.header]
    out.append("</ul>")
    if doc.redacted:
        out.append(f"<h2>Redacted ({len(doc.redacted)})</h2><ul>")
        out += [f"<li>{_e(line)}</li>" for line in doc.redacted]
        out.append("</ul>")
    if doc.lineage:
        out.append("<h2>Lineage</h2><ul>" + "".join(f"<li>{_e(line)}</li>" for line in doc.lineage) + "</ul>")
    if doc.side_by_side:
        out.append("<h2>Side by side with the parent</h2><table><tr><td><b>parent</b></td><td><b>branch</b></td></tr>")
        for left, right, same in doc.side_by_side:
            out.append(f'<tr class="{"same" if same else "differs"}"><td>{_e(left)}</td><td>{_e(right)}</td></tr>')
        out.append("</table>")
    if doc.findings:
        out.append("<h2>Findings about the whole request</h2>")
        out += [_finding_html(text) for text in doc.findings]
    out.append(f"<h2>Messages ({len(doc.messages)})</h2>")
    for m in doc.messages:
        out.append(f'<section class="message" id="message-{m.index}"><h2>{_e(m.title)}</h2>')
        if m.tokens:
            out.append(f'<div class="tokens">{_e(m.tokens)}</div>')
        out += [_finding_html(text) for text in m.findings]
        out += _parts_html(m.parts)
        out.append("</section>")
    if doc.request is not None:
        out.append('<section class="request"><h2>The request</h2>')
        out += _parts_html(doc.request)
        out.append("</section>")
    out.append("</body></html>\n")
    return "\n".join(out).encode("utf-8", "surrogatepass")


# -- Markdown -----------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~&])")


def md_inline(text: str) -> str:
    """Run text on one Markdown line: every character Markdown or HTML could act on backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split("\n")))


def _fence(body: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+|~+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"


def _parts_md(parts: list[Part]) -> list[str]:
    out = []
    for p in parts:
        out += [f"**{md_inline(p.heading)}**", "", _fence(p.body), ""]
    return out


def markdown(doc: Review) -> bytes:
    out = [f"# {md_inline(doc.title)}", ""]
    out += [f"- {md_inline(line)}" for line in doc.header] + [""]
    if doc.redacted:
        out += [f"## Redacted ({len(doc.redacted)})", ""] + [f"- {md_inline(line)}" for line in doc.redacted] + [""]
    if doc.lineage:
        out += ["## Lineage", ""] + [f"- {md_inline(line)}" for line in doc.lineage] + [""]
    if doc.side_by_side:
        out += ["## Side by side with the parent", "", "| parent | branch |", "| --- | --- |"]
        out += [f"| {md_inline(a)} | {md_inline(b)} |" + ("" if same else " ≠") for a, b, same in doc.side_by_side]
        out.append("")
    if doc.findings:
        out += ["## Findings about the whole request", ""] + [f"> {md_inline(t)}" for t in doc.findings] + [""]
    out += [f"## Messages ({len(doc.messages)})", ""]
    for m in doc.messages:
        out += [f"### {md_inline(m.title)}", ""]
        if m.tokens:
            out += [f"*{md_inline(m.tokens)}*", ""]
        for text in m.findings:
            out += [f"> ⚠ {md_inline(text)}", ">"]
        if m.findings:
            out[-1] = ""
        out += _parts_md(m.parts)
    if doc.request is not None:
        out += ["## The request", ""] + _parts_md(doc.request)
    return ("\n".join(out) + "\n").encode("utf-8", "surrogatepass")


def render(doc: Review, fmt: str) -> bytes:
    return html(doc) if fmt == HTML else markdown(doc)


def default_output(path: str, fmt: str) -> str:
    """``run.jsonl`` -> ``run.html`` (or ``run.md``) in the current directory."""
    return str(Path(Path(path).name).with_suffix("." + fmt))


def export_bytes(run: Run, fmt: str, *, at: int | None = None, redact: bool = False,
                 parent: Run | None = None) -> tuple[bytes, list[str]]:
    """The document's bytes and what was redacted (``parent``: a branch's parent run, for
    the side-by-side). Raises ``SecretsFound`` naming the secrets (kinds and places only) when there are
    some and ``redact`` is not set."""
    places = secret_places(run)
    if places and not redact:
        raise SecretsFound(places)
    if places:
        from tui.core.secrets import redact_run

        run, _ = redact_run(run)
    doc = build(run, at=at, parent=parent, redacted=places)
    return render(doc, fmt), places


class SecretsFound(UsageError):
    """The run holds secrets and no redaction was asked for."""

    def __init__(self, places: list[str]) -> None:
        super().__init__(f"{len(places)} secret{'s' if len(places) != 1 else ''} found; export with --redact "
                         "(each becomes ⟨redacted: KIND⟩)")
        self.places = places
