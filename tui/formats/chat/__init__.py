"""OpenAI-style chat runs: ``convert`` turns Chat Completions messages into Anthropic ones."""
