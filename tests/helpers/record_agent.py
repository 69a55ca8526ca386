"""A small agent for ``turnscope record -- python record_agent.py STATUS``: a tool loop over the SDK.

It asks the model (whatever ANTHROPIC_BASE_URL points at) to add numbers with an ``add``
tool, runs every tool call it gets, sends the results back, and stops at the model's final
turn; it prints the answer and exits with STATUS, so a test can see the recorder hand the
agent's exit status on.
"""

import os
import sys

import anthropic

TOOLS = [{"name": "add", "description": "Add two integers.",
          "input_schema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                           "required": ["a", "b"]}}]


def main() -> int:
    client = anthropic.Anthropic(max_retries=0)
    messages = [{"role": "user", "content": "What is 2 + 3 + 4? Use the add tool."}]
    for _ in range(10):
        with client.messages.stream(model="claude-fake-1", max_tokens=200, system="You add numbers.",
                                    tools=TOOLS, messages=messages) as stream:
            answer = stream.get_final_message()
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in answer.content]})
        if answer.stop_reason != "tool_use":
            break
        results = [{"type": "tool_result", "tool_use_id": b.id, "content": str(b.input["a"] + b.input["b"])}
                   for b in answer.content if b.type == "tool_use"]
        messages.append({"role": "user", "content": results})
    print("answer:", answer.content[0].text, "via", os.environ["ANTHROPIC_BASE_URL"])
    return int(sys.argv[1]) if len(sys.argv) > 1 else 0


if __name__ == "__main__":
    sys.exit(main())
