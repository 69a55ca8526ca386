"""``turnscope export``: one self-contained HTML page or Markdown that can be handed to someone else.

Every message is in it with its findings; every hidden text is shown (decoded); no planted secret is in
any written byte (``--redact`` is required when there are some, and the refusal names kinds and places
only); hostile run text stays text: no element, attribute, link or script of the run's is live in the
HTML, nothing escapes a Markdown fence, and a real headless browser (Debian's ``chromium``) renders
every message and runs no script. Under ``CI=true`` the browser test runs rather than skips.
"""

from __future__ import annotations

import html
import os
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from hostile import CORPUS, leaks, write_hostile_run
from markdown_it import MarkdownIt
from planted import HIDDEN, SECRETS, leaked, write_planted_run

from tui.cli import main
from tui.core import jsonio, native
from tui.formats import open_run

#: The elements an export is made of: anything else came from the run.
OUR_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "ul", "li", "div", "pre",
            "section", "table", "tr", "td", "b"}
#: Markup a run can carry, each of which must stay text.
INJECTIONS = ["<script>document.body.setAttribute('data-pwned','script')</script>",
              "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">",
              "</pre></section><a href=\"javascript:alert(1)\">click</a>",
              "[link](javascript:alert(1)) ![img](https://evil.example/x.png) <https://evil.example>",
              "```\n# not a heading\n<b>not bold</b>\n````", "&lt;already&gt; &amp; <!-- comment --> <style>*{}</style>"]


def _main(capfd, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capfd.readouterr()
    return code, captured.out, captured.err


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def _tags(data: bytes) -> list[tuple[str, list]]:
    parser = _Tags()
    parser.feed(data.decode())
    return parser.tags


def _hostile_file(tmp_path):
    header = {"system": "sys " + INJECTIONS[0], "params": {"model": "m", "max_tokens": 10},
              "tools": [{"name": "t", "description": INJECTIONS[1], "input_schema": {"type": "object"}}]}
    messages = [{"role": "user", "content": "\n".join(INJECTIONS)},
                {"role": "assistant", "content": [{"type": "text", "text": INJECTIONS[2]},
                                                  {"type": "tool_use", "id": "toolu_1", "name": INJECTIONS[3],
                                                   "input": {INJECTIONS[4]: INJECTIONS[5]}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                              "content": "".join(i.payload for i in CORPUS) + INJECTIONS[1]}]},
                {"role": "assistant", "content": INJECTIONS[4]}]
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"\n".join(jsonio.dumps(v) for v in [header, *messages]) + b"\n")
    return path, messages


def test_without_redact_a_run_with_secrets_is_refused_naming_kinds_and_places_only(tmp_path, capfd, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write_planted_run(tmp_path / "planted.jsonl")
    code, out, err = _main(capfd, "export", path)
    assert code == 2 and out == ""
    assert "36 secrets found; export with --redact" in err and "at 9.3: Anthropic API Key in the tool input" in err
    assert not leaked(err) and "ending" not in err  # not even the last four
    assert sorted(p.name for p in tmp_path.iterdir()) == ["planted.jsonl"]


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_a_redacted_export_holds_every_message_and_hidden_text_and_no_secret(tmp_path, capfd, fmt):
    path = write_planted_run(tmp_path / "planted.jsonl")
    target = tmp_path / f"out.{fmt}"
    code, out, err = _main(capfd, "export", path, "--redact", "--format", fmt, "-o", target, "--at", "5")
    assert code == 0, err
    assert out == f"wrote {target} ({fmt}, 24 messages, 36 secrets redacted)\n"
    data = target.read_bytes()
    assert not leaked(data) and not leaked(out + err)
    text = html.unescape(data.decode()) if fmt == "html" else data.decode()
    assert not leaks(text), "an invisible character reached the document"
    for _, _, shown in HIDDEN.values():
        assert shown in text, shown
    assert 'likely injection: hidden text in the tool result: tag characters saying "ignore previous' in (
        text if fmt == "html" else text.replace("\\", ""))
    for kind in SECRETS:
        assert f"⟨redacted: {kind}⟩" in text
    for i in range(24):
        assert f"[{i}] " in text.replace("\\[", "[").replace("\\]", "]"), i
    assert "The request" in text and "You are helpful." in text  # the request at 5, system prompt included
    assert "headers: " in text  # tool inputs field by field


def test_hostile_html_stays_text(tmp_path, capfd):
    path, messages = _hostile_file(tmp_path)
    target = tmp_path / "x.html"
    code, _, err = _main(capfd, "export", path, "-o", target, "--at", "3")
    assert code == 0, err
    data = target.read_bytes()
    tags = _tags(data)
    assert {tag for tag, _ in tags} <= OUR_TAGS, {tag for tag, _ in tags} - OUR_TAGS
    attrs = {name for _, pairs in tags for name, _ in pairs}
    assert attrs <= {"lang", "charset", "http-equiv", "content", "name", "class", "id"}, attrs
    assert b"script-src 'none'" in data.replace(b"&#x27;", b"'")
    page = html.unescape(data.decode())
    assert not leaks(page), "a control or invisible character of the run reached the page"
    for injection in INJECTIONS:
        for line in injection.split("\n"):
            assert line in page, line  # shown as text, character for character


def test_hostile_markdown_stays_text(tmp_path, capfd):
    path, messages = _hostile_file(tmp_path)
    target = tmp_path / "x.md"
    code, _, err = _main(capfd, "export", path, "--format", "md", "-o", target)
    assert code == 0, err
    rendered = MarkdownIt("commonmark").render(target.read_text())
    tags = {tag for tag, _ in _tags(rendered.encode())}
    assert tags <= {"h1", "h2", "h3", "ul", "li", "p", "strong", "em", "pre", "code", "blockquote"}, tags
    assert "javascript:" not in "".join(v or "" for _, pairs in _tags(rendered.encode()) for _, v in pairs)
    assert rendered.count("<h3>") == len(messages)
    page = html.unescape(rendered)
    assert not leaks(page) and not leaks(target.read_text())
    for injection in INJECTIONS:
        for line in injection.split("\n"):
            assert line in page, line


def test_a_branch_file_shows_its_lineage_and_the_side_by_side(tmp_path, capfd):
    parent_path = write_hostile_run(tmp_path / "parent.jsonl", CORPUS[0])
    parent = open_run(str(parent_path))
    messages = [*parent.messages[:3], {"role": "assistant", "content": "a different answer"}]
    branch = native.run_from_dict({**native.run_to_dict(parent), "messages": messages, "calls": [],
                                   "lineage": {"parent": {"path": str(parent_path), "sha256": "ab" * 32, "run": 0},
                                               "at": 3, "patch": [{"op": "replace", "path": "/3"}],
                                               "model": "claude-x", "resolver": "manual", "status": "done"}},
                                  str(tmp_path / "b.turnscope.json"))
    (tmp_path / "b.turnscope.json").write_bytes(native.dumps([branch]))
    code, _, err = _main(capfd, "export", tmp_path / "b.turnscope.json", "--format", "md", "-o", tmp_path / "b.md")
    assert code == 0, err
    text = (tmp_path / "b.md").read_text().replace("\\", "")
    assert f"branch of {parent_path} (run 0, sha256 abababababab…) at message 3" in text
    assert "Side by side with the parent" in text and "a different answer" in text
    assert "| [3] text: answer" in text


def test_export_never_writes_over_its_input(tmp_path, capfd):
    path, _ = _hostile_file(tmp_path)
    before = path.read_bytes()
    code, _, err = _main(capfd, "export", path, "-o", path)
    assert code == 2 and "refusing to overwrite the input file" in err and path.read_bytes() == before


def _chromium() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("CI") == "true":
        pytest.fail("chromium is missing in CI: .ci/run installs it (apt-get install chromium)")
    if found is None:
        pytest.skip("chromium is not installed (apt-get install chromium); CI runs this test")
    return found


def test_a_real_browser_renders_every_message_and_runs_no_script(tmp_path, capfd):
    chromium = _chromium()
    path, messages = _hostile_file(tmp_path)
    target = tmp_path / "x.html"
    assert _main(capfd, "export", path, "-o", target)[0] == 0
    profile = tmp_path / "profile"
    result = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             f"--user-data-dir={profile}", "--virtual-time-budget=3000", "--dump-dom",
                             target.as_uri()], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "HOME": str(tmp_path)})
    dom = result.stdout
    assert "<body" in dom, result.stderr[-2000:]
    assert dom.count('class="message"') == len(messages)
    for i in range(len(messages)):
        assert f'id="message-{i}"' in dom
    assert "data-pwned=" not in dom.split("<body", 1)[1].split(">", 1)[0], "a script of the run ran"
    rendered = {tag for tag, _ in _tags(dom.encode())}
    assert "script" not in rendered and "img" not in rendered and "a" not in rendered, rendered
    page = html.unescape(dom)
    assert "<script>document.body.setAttribute('data-pwned','script')</script>" in page  # as text
