"""The block vocabulary (``tui.core.blocks``) is one: ``show``, the export, the content check and the request
pane say the same of a server tool call, an MCP call and an image, where their copies once disagreed."""

from __future__ import annotations

from runbuild import write_json

from tui.app.render.blocks import placeholder
from tui.cli import main
from tui.core import jsonio
from tui.core.run import Run

IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}
#: How every view describes ``IMAGE``: its type, media type and decoded size, never its bytes.
IMAGE_SAID = "[image · image/png · 6 bytes (base64)]"


def _messages() -> list:
    return [
        {"role": "user", "content": [{"type": "text", "text": "what is in this picture, and the weather?"}, IMAGE]},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "weather Oslo"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01",
             "content": [{"type": "web_search_result", "url": "https://example.com", "title": "Oslo"}]},
            {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "lookup", "server_name": "files",
             "input": {"path": "/tmp/a"}},
            {"type": "tool_use", "id": "toolu_01", "name": "crop", "input": {"x": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": [IMAGE]}]},
    ]


def _main(capfd, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capfd.readouterr()
    return code, captured.out, captured.err


def test_show_prints_server_and_mcp_tool_calls_as_calls_and_a_server_result_as_a_result(tmp_path, capfd):
    path = write_json(tmp_path / "run.json", _messages())
    code, out, err = _main(capfd, "show", path, "--at", "2")
    assert code == 0, err
    lines = out.splitlines()
    assert '    server_tool_use srvtoolu_01 web_search {"query":"weather Oslo"}' in lines
    assert '    mcp_tool_use mcptoolu_01 lookup {"path":"/tmp/a"}' in lines
    assert '    tool_use toolu_01 crop {"x":1}' in lines
    assert any(line.startswith("    web_search_tool_result srvtoolu_01: web_search_result: ") for line in lines)
    assert '"type":"server_tool_use"' not in out and '"type":"mcp_tool_use"' not in out  # no raw block JSON


def test_show_the_export_and_the_request_pane_describe_an_image_the_same_way(tmp_path, capfd):
    path = write_json(tmp_path / "run.json", _messages())
    assert placeholder(IMAGE) == IMAGE_SAID  # the request pane
    code, out, err = _main(capfd, "show", path, "--at", "3")
    assert code == 0, err
    assert f"    {IMAGE_SAID}" in out.splitlines()  # in the user's turn
    assert f"    tool_result toolu_01: {IMAGE_SAID}" in out.splitlines()  # inside a tool result
    assert "iVBORw0K" not in out
    target = tmp_path / "out.md"
    code, out, err = _main(capfd, "export", path, "--format", "md", "-o", target)
    assert code == 0, err
    text = target.read_text().replace("\\", "")
    assert text.count(IMAGE_SAID) == 2 and "iVBORw0K" not in text
    assert "mcp_tool_use lookup · mcptoolu_01" in text  # a call, named, not a JSON dump


def test_a_credential_in_an_mcp_tool_input_is_found_under_any_key(tmp_path):
    """The model writes an MCP call's input as it writes a tool_use's: ``{"data": ...}`` there is its text."""
    from tui.core.content_check import content_findings

    secret = "ghp_" + "Zq7xK2mP9vR4tY8wB3nL6cF1hJ5dG0sA2eU7"
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": [
                    {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "post", "server_name": "gh",
                     "input": {"data": f"token {secret}"}}]}]
    found = [f.message for f in content_findings(Run(messages=messages)) if f.rule == "secret_in_content"]
    assert any("tool input data" in m for m in found), found
    assert not any(secret in m for m in found)
    assert jsonio.dumps(messages)  # the run itself is unchanged
