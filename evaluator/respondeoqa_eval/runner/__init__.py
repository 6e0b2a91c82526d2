"""Produce predictions with the paper's prompts (PROTOCOL section 2).

`prompts` builds the exact chat messages; `hf` runs a local transformers model; `openai_api`
calls any OpenAI-compatible chat-completions server; `output` writes a resumable JSONL file that
`respondeoqa-eval score` accepts as is. torch and transformers are imported only by `hf`.

The public names below are the package's API (docs/api.md); they are imported on first use, so
that a harness environment importing `runner.prompts` needs none of the API runner's packages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .hf import HFSettings, run_hf
    from .openai_api import ApiSettings, run_api
    from .output import PredictionWriter
    from .prompts import PROMPT_VERSION, SYSTEM_PROMPT, TEMPERATURE, TOP_P, build_messages
    from .selection import select_items

__all__ = [
    "PROMPT_VERSION",
    "SYSTEM_PROMPT",
    "TEMPERATURE",
    "TOP_P",
    "ApiSettings",
    "HFSettings",
    "PredictionWriter",
    "build_messages",
    "run_api",
    "run_hf",
    "select_items",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        ".hf": ("HFSettings", "run_hf"),
        ".openai_api": ("ApiSettings", "run_api"),
        ".output": ("PredictionWriter",),
        ".prompts": ("PROMPT_VERSION", "SYSTEM_PROMPT", "TEMPERATURE", "TOP_P", "build_messages"),
        ".selection": ("select_items",),
    },
)
