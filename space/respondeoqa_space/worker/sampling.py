"""What sampling an engine applies to a request, and how the worker makes it apply a preset.

Engines do not all honour a request's `temperature` and `top_p`:

- **vLLM** and **text-generation-inference** apply the request's sampling over the model's
  defaults (their documented OpenAI-compatible behaviour): the preset is sent as it is.
- **`transformers serve`** starts from the model's generation config and ignores the
  temperature when that config does not enable sampling (most small models' configs say
  nothing, which means greedy). It takes a `generation_config` (JSON) in the request, which the
  worker sends with `do_sample` set, so the preset is applied on every model.
- **Any other engine** says nothing of what it applies: the preflight (`respondeoqa-space worker --check`)
  measures it (`samples`: the same prompt at temperature 1.5 under several seeds against
  greedy; identical answers mean it ignores sampling), and a worker whose engine ignores
  sampling declines the presets that sample, saying why, instead of recording sampling that
  never happened.

What a run records (the entry's detail) is `Applied`: the sampling sent, how the engine takes
it, and whether that was measured.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..requests.model import Preset

APPLIES_REQUEST = ("vllm", "text-generation-inference")
TRANSFORMERS = "transformers"
PROBE_TEMPERATURE = 1.5
PROBE_SEEDS = (1, 2, 3, 4)
PROBE_TOKENS = 24


@dataclass(frozen=True)
class Applied:
    """The sampling a run's requests carry, and how the engine is known to apply it."""

    temperature: float
    top_p: float | None
    seed: int | None
    extra_body: dict[str, Any] = field(default_factory=dict)
    how: str = ""  # plain words for the entry's note

    @property
    def greedy(self) -> bool:
        return self.temperature == 0


def applied(engine: str, preset: Preset) -> Applied:
    """How `preset` is sent to `engine` (its name as `engine.identify` gives it)."""
    greedy = preset.temperature == 0
    if engine == TRANSFORMERS:
        config: dict[str, Any] = {"do_sample": not greedy}
        if not greedy:
            config["temperature"] = preset.temperature
            if preset.top_p is not None:
                config["top_p"] = preset.top_p
        return Applied(
            preset.temperature,
            preset.top_p,
            preset.seed,
            {"generation_config": json.dumps(config, sort_keys=True)},
            "given to transformers serve as the request's generation config",
        )
    if greedy:
        how = "temperature 0: greedy on every engine"
    elif engine in APPLIES_REQUEST:
        how = f"{engine} applies the request's sampling"
    else:
        how = "as requested; this engine does not say what it applies"
    return Applied(preset.temperature, preset.top_p, preset.seed, {}, how)


Messages = list[dict[str, str]]


def _ask(
    client: Any, api_base: str, model: str, messages: Messages, body: dict[str, Any]
) -> str | None:
    """One chat completion's text; None when the engine gives no answer."""
    try:
        resp = client.post(
            api_base.rstrip("/") + "/chat/completions",
            json={**body, "model": model, "messages": messages},
        )
        if resp.status_code != 200:
            return None
        text = resp.json()["choices"][0]["message"]["content"]
    except Exception:  # any transport or shape problem: no answer
        return None
    return text if isinstance(text, str) else None


def answer(
    api_base: str,
    model: str,
    messages: Messages,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 600.0,
    body: dict[str, Any] | None = None,
) -> str | None:
    """The engine's greedy answer to `messages` (None when it gives none)."""
    import httpx

    with httpx.Client(timeout=timeout, headers=headers or {}) as client:
        return _ask(
            client,
            api_base,
            model,
            messages,
            {"temperature": 0, "seed": 0, "max_tokens": PROBE_TOKENS, **(body or {})},
        )


def samples(
    api_base: str,
    model: str,
    messages: Messages,
    engine: str,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 600.0,
) -> bool | None:
    """Whether the engine samples when asked to (see the module docstring); None when it did
    not answer."""
    import httpx

    hot = Preset("probe", "", PROBE_TEMPERATURE, 1.0)
    with httpx.Client(timeout=timeout, headers=headers or {}) as client:
        greedy = _ask(
            client, api_base, model, messages, {"temperature": 0, "max_tokens": PROBE_TOKENS}
        )
        if greedy is None:
            return None
        for seed in PROBE_SEEDS:
            sent = applied(engine, hot)
            body = {
                **sent.extra_body,
                "temperature": sent.temperature,
                "top_p": sent.top_p,
                "seed": seed,
                "max_tokens": PROBE_TOKENS,
            }
            text = _ask(client, api_base, model, messages, body)
            if text is None:
                return None
            if text != greedy:
                return True
    return False
