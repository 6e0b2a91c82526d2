"""Where a predictions file came from: the producing tool, the model, its sampling parameters and
the prompt version, as far as the file says (report key `provenance`, docs/report.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

RUNNER = "respondeoqa-eval"
LM_EVAL = "lm-evaluation-harness"
LIGHTEVAL = "lighteval"

_MAX_TEXT = 200
_MAX_KEYS = 50
_MAX_LIST = 20


def clean_text(value: Any) -> str | None:
    """A short string from a user-supplied value (None if it is not a non-empty string)."""
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    return value if len(value) <= _MAX_TEXT else value[: _MAX_TEXT - 3] + "..."


def _clean_value(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return clean_text(value) or ""
    if isinstance(value, list | tuple):
        return [_clean_value(v) for v in value[:_MAX_LIST] if not isinstance(v, dict | list)]
    return None


def clean_params(value: Any) -> dict[str, Any]:
    """Sampling parameters as a small JSON-safe dict (a JSON object string is parsed first);
    nested objects and oversized values are dropped: the file is untrusted."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return {}
    if not isinstance(value, Mapping):
        return {}
    out: dict[str, Any] = {}
    for key, item in list(value.items())[:_MAX_KEYS]:
        if not isinstance(key, str) or len(key) > 64 or item is None or isinstance(item, dict):
            continue  # None: not set (lighteval logs every parameter it knows)
        out[key] = _clean_value(item)
    return out


@dataclass(frozen=True)
class Provenance:
    """What produced a predictions file. Every field is optional: only what the file says."""

    tool: str | None = None
    """`respondeoqa-eval` (our runner), `lm-evaluation-harness` or `lighteval`."""
    tool_version: str | None = None
    model: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    """Sampling parameters as logged (temperature, top_p, max tokens, ...)."""
    prompt_version: str | None = None
    """Our prompt version (runner.prompts.PROMPT_VERSION) when the file records it."""
    tasks: tuple[str, ...] = ()
    """Harness task names the log covers."""

    def is_empty(self) -> bool:
        return self == Provenance()

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "tool_version": self.tool_version,
            "model": self.model,
            "params": dict(self.params),
            "prompt_version": self.prompt_version,
            "tasks": list(self.tasks),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Provenance:
        return cls(
            tool=clean_text(data.get("tool")),
            tool_version=clean_text(data.get("tool_version")),
            model=clean_text(data.get("model")),
            params=clean_params(data.get("params")),
            prompt_version=clean_text(data.get("prompt_version")),
            tasks=tuple(t for t in map(clean_text, data.get("tasks") or ()) if t),
        )

    def merge(self, other: Provenance) -> Provenance:
        """Fields of `self`, filled in from `other` where missing; tasks of both."""
        tasks = tuple(dict.fromkeys(self.tasks + other.tasks))
        return Provenance(
            tool=self.tool or other.tool,
            tool_version=self.tool_version or other.tool_version,
            model=self.model or other.model,
            params=self.params or other.params,
            prompt_version=self.prompt_version or other.prompt_version,
            tasks=tasks,
        )
