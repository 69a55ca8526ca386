"""One test per rule in ``tui/core/grammar/rules.py``: a request (or run) that breaks it and one
that does not, with the finding's slug, severity, message index, block index and, where the
rule has one, the API's own error text with the positions filled in."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from runbuild import ASK, TOOL, assistant, result, run_of, text, thinking, use, user
from tui.core.grammar import RULES, check_request, check_run
from tui.core.run import ModelCall, RecordedRequest

REFERENCE = next((p for p in (Path(__file__).resolve().parents[3] / "shared" / "reference" / "messages-api-rules.md",
                              Path("/work/shared/reference/messages-api-rules.md")) if p.exists()), None)


def body(*messages: Any, **fields: Any) -> dict:
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, **fields, "messages": list(messages)}


PAIR = (assistant(text("Let me look."), use("toolu_01Ab")), user(result("toolu_01Ab")))


@dataclass
class Case:
    slug: str
    breaks: Any  # a request body (dict) or a Run
    at: tuple[int | None, int | None]  # (index, block) of the finding
    passes: Any
    api: str | None = None  # the API text as it must read for ``breaks``
    strict: bool = False
    extra: dict = field(default_factory=dict)


def run_with_call(messages: list, k_message: int, **call: Any):
    calls = [ModelCall(message=i) for i, m in enumerate(messages) if m["role"] == "assistant"]
    for c in calls:
        if c.message == k_message:
            for name, value in call.items():
                setattr(c, name, value)
    return run_of(messages, calls=calls)


CASES = [
    Case("messages_empty", body(), (None, None), body(ASK), "messages must have at least one element"),
    Case("invalid_message", body(ASK, "hello"), (1, None), body(ASK)),
    Case("invalid_role", body({"role": "tool", "content": "x"}), (0, None),
         run_of([ASK, {"role": "system", "content": "Be brief."}],
                meta={"request_headers": {"anthropic-beta": "mid-conversation-system-2026-04-07"}}),
         "messages.0.role: Input should be 'user' or 'assistant'"),
    Case("invalid_content", body({"role": "user", "content": 5}), (0, None), body(ASK)),
    Case("invalid_block", body(user({"text": "no type"})), (0, 0), body(user(text("typed")))),
    Case("empty_content", body(user(""), assistant("hi"), user("x")), (0, None),
         body(ASK, assistant("")),  # the final assistant message may be empty
         "messages.0: all messages must have non-empty content except for the optional final assistant message"),
    Case("empty_text_block", body(ASK, assistant(text("")), user("x")), (1, 0),
         body(ASK, assistant(text("ok")), user("x")), "messages: text content blocks must be non-empty"),
    Case("whitespace_text_block", body(ASK, assistant(text(" "), use("toolu_01Ab")), PAIR[1]), (1, 0),
         body(ASK, assistant(text("Sure.")), user("x")), "messages: text content blocks must contain non-whitespace text"),
    Case("final_assistant_trailing_whitespace", body(ASK, assistant(text("The order is "))), (1, 0),
         body(ASK, assistant(text("The order is"))), "messages: final assistant content cannot end with trailing whitespace"),
    Case("prefill_unsupported", body(ASK, assistant("{"), model="claude-opus-4-6"), (1, None),
         body(ASK, assistant("{"), model="claude-haiku-4-5"),
         "This model does not support assistant message prefill. The conversation must end with a user message."),
    Case("prefill_with_output_format", body(ASK, assistant("{"), output_config={"format": {"type": "json_schema"}}),
         (1, None), body(ASK, output_config={"format": {"type": "json_schema"}}),
         "When using output format, pre-filling the `assistant` response is not supported."),
    Case("first_message_not_user", body(assistant("Hello!"), ASK), (0, None), body(ASK),
         'messages: first message must use the "user" role'),
    Case("consecutive_assistant", body(ASK, assistant("One."), assistant("Two."), user("x")), (2, None),
         body(ASK, assistant("One."), user("x"))),
    Case("consecutive_user", body(ASK, user("Hello?")), (1, None), body(ASK)),
    Case("tool_use_without_result",
         body(ASK, assistant(use("toolu_01Ab", "search_orders"), use("toolu_01Cd")), user(result("toolu_01Ab"))),
         (2, None), body(ASK, *PAIR),
         "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Cd. "
         "Each `tool_use` block must have a corresponding `tool_result` block in the next message."),
    Case("tool_result_not_first", body(ASK, PAIR[0], user(text("Reminder: be brief."), result("toolu_01Ab"))),
         (2, 0), body(ASK, PAIR[0], user(result("toolu_01Ab"), text("Reminder: be brief."))),
         "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01Ab."),
    Case("unexpected_tool_use_id", body(ASK, assistant("Sure."), user(result("toolu_01Zz"))), (2, 0),
         body(ASK, *PAIR),
         "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Zz. "
         "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."),
    Case("results_split_across_turns",
         body(ASK, assistant(use("toolu_01Ab"), use("toolu_01Cd")), user(result("toolu_01Ab")), user(result("toolu_01Cd"))),
         (3, None), body(ASK, assistant(use("toolu_01Ab"), use("toolu_01Cd")),
                         user(result("toolu_01Ab"), result("toolu_01Cd")))),
    Case("tool_use_unanswered_at_end", run_of([ASK, PAIR[0]]), (1, None), run_of([ASK, *PAIR, assistant("Done.")])),
    Case("duplicate_tool_use_id", body(ASK, *PAIR, assistant(use("toolu_01Ab")), user(result("toolu_01Ab"))),
         (3, 0), body(ASK, *PAIR, assistant(use("toolu_01Cd")), user(result("toolu_01Cd"))),
         "messages.3.content.0: `tool_use` ids must be unique"),
    Case("tool_use_id_pattern", body(ASK, assistant(use("toolu 01Ab")), user(result("toolu_01Ab"))), (1, 0),
         body(ASK, *PAIR), "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    Case("tool_use_input_type",
         body(ASK, assistant({"type": "tool_use", "id": "toolu_01Ab", "name": "get_shipment", "input": "4471"}),
              user(result("toolu_01Ab"))), (1, 0), body(ASK, *PAIR),
         "messages.1.content.0.tool_use.input: Input should be a valid dictionary"),
    Case("tool_result_fields", body(ASK, PAIR[0], user(result("toolu_01Ab", is_error="yes"))), (2, 0),
         body(ASK, PAIR[0], user(result("toolu_01Ab", "503", is_error=True)))),
    Case("server_tool_result_unmatched",
         body(ASK, assistant({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}),
              user("x")), (1, 0),
         body(ASK, assistant({"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}},
                             {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}),
              user("x")),
         "messages.1.content.0: unexpected `tool_use_id` found in `web_search_tool_result` blocks: srvtoolu_01. "
         "Each `web_search_tool_result` block must have a corresponding `server_tool_use` block before it."),
    Case("tool_result_in_assistant", body(ASK, assistant(use("toolu_01Ab"), result("toolu_01Ab")), user("x")),
         (1, 1), body(ASK, *PAIR), strict=True),
    Case("tool_use_in_user", body(ASK, assistant("Sure."), user(use("toolu_01Ab"))), (2, 0),
         body(ASK, *PAIR), strict=True),
    Case("duplicate_tool_result_id", body(ASK, PAIR[0], user(result("toolu_01Ab"), result("toolu_01Ab"))), (2, 1),
         body(ASK, *PAIR), strict=True),
    Case("thinking_signature_missing", body(ASK, assistant(thinking("Hmm.", signature=""), text("Hi.")), user("x")),
         (1, 0), body(ASK, assistant(thinking("Hmm."), text("Hi.")), user("x")),
         "messages.1.content.0: Invalid `signature` in `thinking` block"),
    Case("thinking_not_first", body(ASK, assistant(text("Hi."), thinking("Hmm.")), user("x")), (1, 0),
         body(ASK, assistant(thinking("Hmm."), text("Hi.")), user("x")),
         "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be "
         "thinking or redacted_thinking. Found text."),
    Case("thinking_last_block", body(ASK, assistant(thinking("A."), text("Hi."), thinking("B.")), user("x")), (1, 2),
         body(ASK, assistant(thinking("A."), text("Hi.")), user("x")),
         "messages.1: The final block in an assistant message cannot be `thinking`."),
    Case("thinking_disabled_final_assistant", body(ASK, assistant(thinking("Hmm."), text("The"))), (1, 0),
         body(ASK, assistant(thinking("Hmm."), text("The")), thinking={"type": "enabled", "budget_tokens": 1024}),
         "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot "
         "contain `thinking`."),
    Case("thinking_missing_in_tool_loop",
         body(ASK, *PAIR, thinking={"type": "enabled", "budget_tokens": 1024}), (1, 0),
         body(ASK, assistant(thinking("Look it up."), use("toolu_01Ab")), PAIR[1],
              thinking={"type": "enabled", "budget_tokens": 1024}),
         "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`.", strict=True),
    Case("tool_choice_forced_with_thinking",
         body(ASK, tools=[TOOL], tool_choice={"type": "any"}, thinking={"type": "enabled", "budget_tokens": 1024}),
         (None, None), body(ASK, tools=[TOOL], tool_choice={"type": "auto"},
                            thinking={"type": "enabled", "budget_tokens": 1024}),
         "Thinking may not be enabled when tool_choice forces tool use."),
    Case("tool_name_pattern", body(ASK, tools=[TOOL, {**TOOL, "name": "get order"}]), (None, None),
         body(ASK, tools=[TOOL, {**TOOL, "name": "get_order"}]),
         "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"),
    Case("duplicate_tool_name", body(ASK, tools=[TOOL, TOOL]), (None, None), body(ASK, tools=[TOOL]),
         "tools: Tool names must be unique."),
    Case("tool_input_schema", body(ASK, tools=[{**TOOL, "input_schema": {"type": "array"}}]), (None, None),
         body(ASK, tools=[TOOL, {"type": "web_search_20250305", "name": "web_search"}])),
    Case("invalid_tool", body(ASK, tools=["get_shipment"]), (None, None), body(ASK, tools=[TOOL])),
    Case("tool_choice_invalid", body(ASK, tools=[TOOL], tool_choice={"type": "required"}), (None, None),
         body(ASK, tools=[TOOL], tool_choice={"type": "tool", "name": "get_shipment"})),
    Case("tool_choice_unknown_tool", body(ASK, tools=[TOOL], tool_choice={"type": "tool", "name": "issue_refund"}),
         (None, None), body(ASK, tools=[TOOL], tool_choice={"type": "tool", "name": "get_shipment"}), strict=True),
    Case("tool_choice_without_tools", body(ASK, tool_choice={"type": "any"}), (None, None),
         body(ASK, tools=[TOOL], tool_choice={"type": "any"}), strict=True),
    Case("cache_control_limit",
         body(user(*(text(f"part {k}", cache_control={"type": "ephemeral"}) for k in range(3))),
              system=[text("Be brief.", cache_control={"type": "ephemeral"})],
              tools=[{**TOOL, "cache_control": {"type": "ephemeral"}}]), (None, None),
         body(user(*(text(f"part {k}", cache_control={"type": "ephemeral"}) for k in range(2))),
              system=[text("Be brief.", cache_control={"type": "ephemeral"})],
              tools=[{**TOOL, "cache_control": {"type": "ephemeral"}}]),
         "A maximum of 4 blocks with cache_control may be provided. Found 5."),
    Case("system_type", body(ASK, system=[{"type": "image", "source": {}}]), (None, None),
         body(ASK, system=[text("Be brief.")])),
    Case("system_empty_text_block", body(ASK, system=[text("")]), (None, None), body(ASK, system="Be brief."),
         "system: text content blocks must be non-empty"),
    Case("line_cut_off", run_of([ASK], meta={"cut_off": {"line": 2, "bytes": 9, "text": '{"role":"'}}), (None, None),
         run_of([ASK])),
    Case("required_field", {"model": "claude-sonnet-4-5", "messages": [ASK]}, (None, None), body(ASK)),
    Case("assistant_turn_rewritten",
         run_with_call([ASK, assistant(use("toolu_01Ab")), PAIR[1], assistant("Done.")], 1,
                       response=[text("Let me look."), use("toolu_01Ab")]), (1, None),
         run_with_call([ASK, *PAIR, assistant("Done.")], 1)),
    Case("request_differs",
         run_with_call([ASK, *PAIR, assistant("Done.")], 3,
                       request=RecordedRequest(messages=3, replaced={1: assistant(use("toolu_01Ab"))})), (3, None),
         run_with_call([ASK, *PAIR, assistant("Done.")], 3, request=RecordedRequest(messages=3))),
]


def findings(value: Any, strict: bool) -> list:
    if isinstance(value, dict):
        return check_request(value, strict=strict)
    return check_run(value, strict=strict)


def test_every_rule_has_a_case():
    assert sorted(c.slug for c in CASES) == sorted(RULES)


@pytest.mark.parametrize("case", CASES, ids=[c.slug for c in CASES])
def test_rule_breaks_and_passes(case: Case):
    rule = RULES[case.slug]
    hits = [f for f in findings(case.breaks, strict=True) if f.rule == case.slug]
    assert hits, f"{case.slug} not reported"
    found = hits[0]
    assert (found.index, found.block) == case.at
    assert found.severity == rule.severity
    assert rule.strict == case.strict
    if rule.api is not None:
        assert case.api is not None, "a rule with the API's text must have its text asserted"
        assert case.api in found.message
        assert "?" not in found.message.replace("'^[", "")  # every placeholder was filled
    else:
        assert found.message.startswith(rule.summary)
    assert found.cause is None or found.cause.strip()
    assert not [f for f in findings(case.passes, strict=True) if f.rule == case.slug]


@pytest.mark.parametrize("case", [c for c in CASES if c.strict], ids=[c.slug for c in CASES if c.strict])
def test_weakly_evidenced_rules_only_in_strict_mode(case: Case):
    assert not [f for f in findings(case.breaks, strict=False) if f.rule == case.slug]


def _pattern(api: str) -> str:
    """A rule's API text as a regex over the reference: placeholders match the reference's
    own placeholders (``messages.N``, ``ID1, ID2``, ``Found 5``)."""
    api = api.replace("{{", "\x00").replace("}}", "\x01")
    parts = re.split(r"\\\{\w+\\\}", re.escape(api))
    return ".{1,40}?".join(parts).replace("\x00", r"\{").replace("\x01", r"\}")


@pytest.mark.skipif(REFERENCE is None, reason="../shared/reference is not next to this checkout")
@pytest.mark.parametrize("slug", [s for s, r in RULES.items() if r.api], ids=str)
def test_api_texts_are_quoted_from_the_reference(slug):
    """No invented error texts: each ``api`` text is one the reference collected from real
    API reports (its ``…`` stands for an elided field path)."""
    reference = REFERENCE.read_text().replace("\\`", "`")
    api = RULES[slug].api
    elided = re.sub(r"^messages\.\{index\}\.content\.\{block\}\.", "…", api)
    assert re.search(_pattern(api), reference) or re.search(_pattern(elided), reference)


def test_a_system_message_needs_the_mid_conversation_system_beta():
    """Valid with the beta (recorded in the headers, or passed with a body), invalid_role without it."""
    sent = body(ASK, {"role": "system", "content": "Listing."})
    [found] = [f for f in check_request(sent) if f.rule == "invalid_role"]
    assert found.index == 1 and "mid-conversation-system beta" in found.cause
    assert not [f for f in check_request(sent, betas=["mid-conversation-system-2026-04-07"])]
    recorded = run_of(sent["messages"], meta={"request_headers": {"anthropic-beta": "a-1,mid-conversation-system-2026-04-07"}})
    assert not [f for f in check_run(recorded) if f.rule == "invalid_role"]
    assert [f.rule for f in check_run(run_of(sent["messages"])) if f.rule == "invalid_role"] == ["invalid_role"]
