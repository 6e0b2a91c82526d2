"""Produce predictions with the paper's prompts (PROTOCOL section 2).

`prompts` builds the exact chat messages; `hf` runs a local transformers model; `openai_api`
calls any OpenAI-compatible chat-completions server; `output` writes a resumable JSONL file that
`respondeoqa-eval score` accepts as is. torch and transformers are imported only by `hf`.
"""
