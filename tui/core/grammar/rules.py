"""The rules the Messages API enforces, one stable slug each, with the API's own text.

Severity ``error``: the API would reject the request. ``warning``: the API accepts it
(for example it merges consecutive same-role turns) but the loop is broken, or the
evidence that the API rejects it is weak (``../shared/reference/messages-api-rules.md``
gives the evidence; ``confidence`` repeats its grade). ``strict`` rules have weak
evidence and are reported only when the check runs in strict mode.

``api`` is the error text the API returns, with ``{index}``, ``{block}``, ``{ids}`` and
the like filled in from the finding; ``None`` where the text is not known.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Rule:
    """One rule of the API's grammar: its slug, severity, summary, the API's own message and how sure we are
    of it."""

    slug: str
    severity: str
    summary: str
    api: str | None = None
    confidence: str = "high"
    cause: str | None = None
    strict: bool = False


_RULES = [
    # -- message sequence and roles
    Rule("messages_empty", ERROR, "the request has no messages",
         "messages must have at least one element", "medium"),
    Rule("invalid_message", ERROR, "a message is not a JSON object", confidence="high"),
    Rule("invalid_role", ERROR, "role must be 'user' or 'assistant'",
         "messages.{index}.role: Input should be 'user' or 'assistant'", "medium"),
    Rule("invalid_content", ERROR, "content must be a string or a list of blocks", confidence="medium"),
    Rule("invalid_block", ERROR, "a content block is not an object with a type", confidence="medium"),
    Rule("empty_content", ERROR, "empty content",
         "messages.{index}: all messages must have non-empty content except for the optional "
         "final assistant message"),
    Rule("empty_text_block", ERROR, "empty text block",
         "messages: text content blocks must be non-empty"),
    Rule("whitespace_text_block", WARNING,
         "whitespace-only text block (newer models reject it; older ones accepted it)",
         "messages: text content blocks must contain non-whitespace text", "medium"),
    Rule("final_assistant_trailing_whitespace", ERROR, "the final assistant prefill ends with whitespace",
         "messages: final assistant content cannot end with trailing whitespace"),
    Rule("prefill_unsupported", ERROR, "this model does not accept an assistant prefill",
         "This model does not support assistant message prefill. The conversation must end with a "
         "user message.", "high (model list: medium)"),
    Rule("prefill_with_output_format", ERROR, "an assistant prefill together with structured output",
         "Your API request included an `assistant` message in the final position, which would pre-fill the "
         "`assistant` response. When using output format, pre-filling the `assistant` response is not "
         "supported.", "medium"),
    Rule("first_message_not_user", WARNING,
         "the first message is from the assistant (accepted by the first-party API; Bedrock and older "
         "API versions reject it)",
         'messages: first message must use the "user" role', "medium-high",
         cause="the caller's opening user turn was dropped, or a window truncated the start of the run"),
    Rule("consecutive_assistant", WARNING,
         "two assistant turns in a row (the API merges them, but the loop is broken)",
         cause="a results message was never appended between the two turns"),
    Rule("consecutive_user", WARNING,
         "two user turns in a row (the API merges them, but the loop is broken)",
         cause="an assistant turn was dropped, or results were appended before their assistant turn"),
    # -- tool_use / tool_result pairing
    Rule("tool_use_without_result", ERROR, "tool_use ids without a tool_result in the next message",
         "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
         "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
         "high (text), medium (index)"),
    Rule("tool_result_not_first", ERROR, "tool_result blocks must come first in the user turn",
         "messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
         "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
         cause="the loop put text (a reminder, a note) before the results in the results turn"),
    Rule("unexpected_tool_use_id", ERROR, "tool_result with no tool_use in the previous message",
         "messages.{index}.content.{block}: unexpected `tool_use_id` found in `tool_result` blocks: {ids}. "
         "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."),
    Rule("results_split_across_turns", WARNING,
         "the results for one assistant turn are split over several user messages (uncertain: some "
         "reports show a 400, the documented merge rule says it is accepted)", confidence="uncertain",
         cause="results appended one message per tool instead of one user turn for the whole assistant turn"),
    Rule("tool_use_unanswered_at_end", WARNING,
         "the run ends on tool calls nobody answered: the next request cannot be sent as is",
         cause="the loop stopped or crashed after the model asked for tools and before it appended results"),
    Rule("duplicate_tool_use_id", ERROR, "tool_use ids must be unique",
         "messages.{index}.content.{block}: `tool_use` ids must be unique", "high (same message), medium (across)"),
    Rule("tool_use_id_pattern", ERROR, "tool_use id does not match ^[a-zA-Z0-9_-]+$",
         "messages.{index}.content.{block}.{kind}: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    Rule("tool_use_input_type", ERROR, "tool_use input must be an object",
         "messages.{index}.content.{block}.tool_use.input: Input should be a valid dictionary", "medium"),
    Rule("tool_result_fields", ERROR, "malformed tool_result (tool_use_id, content or is_error)",
         confidence="medium"),
    Rule("server_tool_result_unmatched", ERROR,
         "a server tool result must follow its server_tool_use in the same assistant message",
         "messages.{index}.content.{block}: unexpected `tool_use_id` found in `{kind}` blocks: {ids}. "
         "Each `{kind}` block must have a corresponding `server_tool_use` block before it.", "medium"),
    Rule("tool_result_in_assistant", WARNING, "a tool_result inside an assistant turn answers nothing",
         confidence="low", strict=True),
    Rule("tool_use_in_user", WARNING, "a tool_use inside a user turn", confidence="low", strict=True),
    Rule("duplicate_tool_result_id", WARNING, "two tool_results answer the same tool_use id",
         confidence="low", strict=True,
         cause="a retry appended a second result for a call that already had one"),
    # -- thinking
    Rule("thinking_signature_missing", ERROR,
         "thinking block without a signature (or redacted_thinking without data)",
         "messages.{index}.content.{block}: Invalid `signature` in `thinking` block", "medium"),
    Rule("thinking_not_first", ERROR, "thinking blocks must come first in an assistant turn",
         "messages.{index}.content.0: If an assistant message contains any thinking blocks, the first "
         "block must be thinking or redacted_thinking. Found {kind}.", "medium",
         cause="an assistant turn rewritten by the loop (blocks reordered or merged)"),
    Rule("thinking_last_block", ERROR, "an assistant turn may not end with a thinking block",
         "messages.{index}: The final block in an assistant message cannot be `thinking`.", "medium"),
    Rule("thinking_disabled_final_assistant", ERROR,
         "a final assistant prefill holds thinking while thinking is disabled",
         "messages.{index}.content.{block}: When thinking is disabled, an `assistant` message in the "
         "final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request."),
    Rule("thinking_missing_in_tool_loop", WARNING,
         "thinking is enabled but the assistant turn in progress does not start with thinking "
         "(current docs say the API now silently disables thinking instead)",
         "messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{kind}`.",
         "uncertain", strict=True),
    Rule("tool_choice_forced_with_thinking", ERROR, "thinking with a tool_choice that forces tool use",
         "Thinking may not be enabled when tool_choice forces tool use."),
    Rule("required_field", ERROR, "a field every request must carry is missing",
         cause="the request body was written without it (a caller or a tool that trimmed the body)"),
    # -- tools, tool_choice, system, cache_control
    Rule("tool_name_pattern", ERROR, "tool name does not match ^[a-zA-Z0-9_-]{1,128}$",
         "tools.{tool}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"),
    Rule("duplicate_tool_name", ERROR, "tool names must be unique", "tools: Tool names must be unique."),
    Rule("tool_input_schema", ERROR, "custom tool needs an input_schema object with type 'object'",
         confidence="medium"),
    Rule("invalid_tool", ERROR, "a tool definition is not a JSON object", confidence="medium"),
    Rule("tool_choice_invalid", ERROR, "tool_choice type must be auto, any, tool or none (tool needs a name)",
         confidence="medium"),
    Rule("tool_choice_unknown_tool", WARNING, "tool_choice forces a tool that is not defined",
         confidence="low", strict=True),
    Rule("tool_choice_without_tools", WARNING, "tool_choice forces tool use but the request has no tools",
         confidence="low", strict=True),
    Rule("cache_control_limit", ERROR, "more than 4 blocks with cache_control",
         "A maximum of 4 blocks with cache_control may be provided. Found {count}."),
    Rule("system_type", ERROR, "system must be a string or a list of text blocks", confidence="medium"),
    Rule("system_empty_text_block", WARNING, "empty text block in the system prompt (rejection inferred)",
         "system: text content blocks must be non-empty", "medium"),
    # -- the file itself
    Rule("line_cut_off", WARNING, "the file ends inside its last line, which holds no whole message",
         cause="the run stopped (crashed, was killed) while the turn in flight was being written, or the "
               "file was copied before it was complete"),
    # -- recorded sources
    Rule("assistant_turn_rewritten", WARNING,
         "the stored assistant turn differs from what the provider returned",
         cause="an assistant turn rewritten by the loop (re-serialised, filtered or summarised instead "
               "of stored as returned)"),
    Rule("request_differs", WARNING, "the recorded request differs from the prefix rebuilt from the run",
         cause="the loop changed what it sent between calls (an assistant turn rewritten, or the system "
               "prompt or tools edited mid-run)"),
]

RULES: dict[str, Rule] = {rule.slug: rule for rule in _RULES}
