"""Request-level rules: tools, tool_choice, system, thinking with tool_choice, cache_control."""

from __future__ import annotations

import re
from typing import Any

from tui.core.blocks import thinking_enabled
from tui.core.grammar.findings import Findings

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
MAX_CACHE_BREAKPOINTS = 4


def is_custom_tool(tool: dict[str, Any]) -> bool:
    """Custom tools have no type or type 'custom'; versioned server tools have their own."""
    return tool.get("type") in (None, "custom")


def check(out: Findings, system: Any, tools: Any, params: dict[str, Any], messages: list[Any]) -> None:
    _system(out, system)
    names = _tools(out, tools)
    _tool_choice(out, params, names)
    _cache_control(out, system, tools, messages)
    _thinking_in_loop(out, params, messages)


def _system(out: Findings, system: Any) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        out.add("system_type", None, None, detail=f"found {type(system).__name__}")
        return
    for k, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            out.add("system_type", None, None, detail=f"system block {k} is not a text block")
        elif block["text"] == "":
            out.add("system_empty_text_block", None, None, detail=f"system block {k}")


def _tools(out: Findings, tools: Any) -> set[str]:
    names: set[str] = set()
    if tools is None:
        return names
    if not isinstance(tools, list):
        out.add("invalid_tool", None, None, detail="tools is not a list")
        return names
    for t, tool in enumerate(tools):
        if not isinstance(tool, dict):
            out.add("invalid_tool", None, None, detail=f"tools.{t} is {type(tool).__name__}")
            continue
        name = tool.get("name")
        if is_custom_tool(tool):
            if not isinstance(name, str) or not NAME_PATTERN.match(name):
                out.add("tool_name_pattern", None, None, tool=t, detail=f"name {name!r}")
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                out.add("tool_input_schema", None, None, detail=f"tools.{t} ({name!r}) has input_schema {_schema_type(schema)}")
        if isinstance(name, str):
            if name in names:
                out.add("duplicate_tool_name", None, None, detail=f"{name!r} is defined twice")
            names.add(name)
    return names


def _tool_choice(out: Findings, params: dict[str, Any], names: set[str]) -> None:
    choice = params.get("tool_choice")
    if choice is None:
        return
    if not isinstance(choice, dict) or choice.get("type") not in ("auto", "any", "tool", "none"):
        out.add("tool_choice_invalid", None, None, detail=f"tool_choice {choice!r}")
        return
    if choice["type"] in ("any", "tool") and not names:
        out.add("tool_choice_without_tools", None, None, detail=f"tool_choice type {choice['type']!r}")
    if choice["type"] == "tool":
        if not isinstance(choice.get("name"), str):
            out.add("tool_choice_invalid", None, None, detail="tool_choice type 'tool' needs a name")
        elif choice["name"] not in names:
            out.add("tool_choice_unknown_tool", None, None, detail=f"{choice['name']!r}")
    if thinking_enabled(params) and choice["type"] in ("any", "tool"):
        out.add("tool_choice_forced_with_thinking", None, None)


def _count_cache_control(blocks: Any) -> int:
    count = 0
    if isinstance(blocks, list):
        for block in blocks:
            if isinstance(block, dict):
                if "cache_control" in block and block["cache_control"] is not None:
                    count += 1
                if block.get("type") == "tool_result":
                    count += _count_cache_control(block.get("content"))
    return count


def _cache_control(out: Findings, system: Any, tools: Any, messages: list[Any]) -> None:
    count = _count_cache_control(tools) + _count_cache_control(system)
    if out.cache_controls is not None:
        count += out.cache_controls  # the message pass counted them
    else:
        for message in messages:
            if isinstance(message, dict):
                count += _count_cache_control(message.get("content"))
    if count > MAX_CACHE_BREAKPOINTS:
        out.add("cache_control_limit", None, None, count=count)


def _thinking_in_loop(out: Findings, params: dict[str, Any], messages: list[Any]) -> None:
    """With thinking on, the assistant turn whose results end the request should start with thinking."""
    if not thinking_enabled(params):
        return
    if len(messages) < 2 or not isinstance(messages[-2], dict) or messages[-2].get("role") != "assistant":
        return
    content = messages[-2].get("content")
    if isinstance(content, list) and content and isinstance(content[0], dict):
        kind = content[0].get("type")
        if kind not in ("thinking", "redacted_thinking") and any(
                isinstance(x, dict) and x.get("type") == "tool_use" for x in content):
            out.add("thinking_missing_in_tool_loop", len(messages) - 2, 0, kind=kind)


def _schema_type(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "missing" if schema is None else f"of JSON type {type(schema).__name__}"
    return f"type {schema.get('type')!r}"
