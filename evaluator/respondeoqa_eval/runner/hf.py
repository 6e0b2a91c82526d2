"""Run the benchmark with a local `transformers` causal LM (torch, transformers: the `run` extra).

The prompt is the model's chat template applied to the paper's messages (or a plain fallback
for models without one); generation is batched with left padding and samples with the paper's
temperature 0.6 and top-p 0.95 unless told otherwise.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from ..data.records import Record
from ..errors import InputError
from .output import PredictionWriter, make_row
from .prompts import PROMPT_VERSION, build_messages

DEFAULT_BATCH_SIZE = 8
DEFAULT_MAX_NEW_TOKENS = 1024
DEVICES = ("auto", "cpu", "cuda", "mps")
DTYPES = ("auto", "float32", "bfloat16", "float16")


@dataclass
class HFSettings:
    """Model, device and sampling settings. `temperature` None or 0 means greedy decoding."""

    model: str
    batch_size: int = DEFAULT_BATCH_SIZE
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS
    temperature: float | None = 0.6
    top_p: float | None = 0.95
    seed: int | None = 0
    device: str = "auto"
    dtype: str = "auto"
    trust_remote_code: bool = False

    @property
    def greedy(self) -> bool:
        return not self.temperature

    def params(self) -> dict[str, Any]:
        """The parameters recorded in every output row."""
        return {
            "backend": "transformers",
            "temperature": 0.0 if self.greedy else self.temperature,
            "top_p": None if self.greedy else self.top_p,
            "seed": self.seed,
            "max_new_tokens": self.max_new_tokens,
        }


def require_torch() -> None:
    """Fail early, with the install hint, when torch or transformers is missing."""
    _import_torch()


def _import_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError:
        raise InputError(
            "the local runner needs torch and transformers: pip install 'respondeoqa-eval[run]' "
            "(or use --api-base with an OpenAI-compatible server)"
        ) from None
    return torch, transformers


def pick_device(requested: str = "auto") -> str:
    """`auto`: cuda if available, else mps, else cpu. An unavailable device is an error."""
    torch, _ = _import_torch()
    if requested not in DEVICES:
        raise InputError(f"--device {requested!r}: choose one of {', '.join(DEVICES)}")
    has_mps = bool(getattr(torch.backends, "mps", None)) and torch.backends.mps.is_available()
    if requested == "auto":
        if torch.cuda.is_available():
            return "cuda"
        return "mps" if has_mps else "cpu"
    if requested == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda: no CUDA device is available to torch")
    if requested == "mps" and not has_mps:
        raise InputError("--device mps: the Apple MPS backend is not available")
    return requested


def _torch_dtype(torch: Any, name: str, device: str) -> Any:
    if name not in DTYPES:
        raise InputError(f"--dtype {name!r}: choose one of {', '.join(DTYPES)}")
    if name == "auto":
        # the checkpoint's dtype on accelerators; float32 on CPU, where half precision is slow
        return "auto" if device != "cpu" else torch.float32
    return getattr(torch, name)


def _dtype_kwarg(transformers: Any) -> str:
    # transformers 4.56 renamed `torch_dtype` to `dtype` (the old name is deprecated)
    parts = transformers.__version__.split(".")[:2]
    major, minor = (int("".join(c for c in p if c.isdigit()) or 0) for p in parts)
    return "dtype" if (major, minor) >= (4, 56) else "torch_dtype"


def load_model(settings: HFSettings) -> tuple[Any, Any, str]:
    """(model, tokenizer, device) from a hub name or a local folder, ready to generate."""
    torch, transformers = _import_torch()
    device = pick_device(settings.device)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            settings.model, trust_remote_code=settings.trust_remote_code
        )
        model = transformers.AutoModelForCausalLM.from_pretrained(
            settings.model,
            trust_remote_code=settings.trust_remote_code,
            **{_dtype_kwarg(transformers): _torch_dtype(torch, settings.dtype, device)},
        )
    except (OSError, ValueError) as exc:
        # missing folder, unknown hub name, no network, unsupported architecture
        reason = " ".join(str(exc).split())[:300]
        raise InputError(f"--model {settings.model}: cannot load it ({reason})") from None
    tokenizer.padding_side = "left"  # decoder-only: pad on the left so every row ends at the prompt
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is None:
            raise InputError(f"--model {settings.model}: the tokenizer has no pad or eos token")
        tokenizer.pad_token = tokenizer.eos_token
    model.to(device)
    model.eval()
    return model, tokenizer, device


def render_prompt(tokenizer: Any, messages: list[dict[str, str]]) -> tuple[str, bool]:
    """The text fed to the model and whether it came from the chat template.

    Chat template when the tokenizer has one (a template that rejects the system role gets the
    system prompt merged into the user message); else a plain role-labelled fallback.
    """
    if getattr(tokenizer, "chat_template", None):
        try:
            text = tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        except Exception:
            merged = [
                {"role": "user", "content": f"{messages[0]['content']}\n\n{messages[1]['content']}"}
            ]
            text = tokenizer.apply_chat_template(merged, tokenize=False, add_generation_prompt=True)
        return text, True
    system, user = messages[0]["content"], messages[1]["content"]
    return f"System: {system}\n\nUser: {user}\n\nAssistant:", False


def generate_batch(
    model: Any,
    tokenizer: Any,
    device: str,
    texts: list[str],
    settings: HFSettings,
    *,
    templated: bool,
) -> list[str]:
    """Generate one completion per prompt text (left-padded batch); returns the decoded new text."""
    torch, _ = _import_torch()
    # a chat template already writes the special tokens (BOS) itself
    enc = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=not templated)
    enc = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
    kwargs: dict[str, Any] = {
        "max_new_tokens": settings.max_new_tokens,
        "pad_token_id": tokenizer.pad_token_id,
    }
    if settings.greedy:
        kwargs["do_sample"] = False
    else:
        kwargs.update(do_sample=True, temperature=settings.temperature)
        if settings.top_p is not None:
            kwargs["top_p"] = settings.top_p
    with torch.inference_mode():
        out = model.generate(**enc, **kwargs)
    new = out[:, enc["input_ids"].shape[1] :]
    return tokenizer.batch_decode(new, skip_special_tokens=True)


def _batch_seed(seed: int, ids: list[str]) -> int:
    # per-batch seed from the batch's ids: a resumed run samples the same way as a fresh one
    return (seed + zlib.crc32("\n".join(ids).encode("utf-8"))) % (2**32)


def run_hf(
    records: list[Record],
    writer: PredictionWriter,
    settings: HFSettings,
    progress: Any = None,
    loaded: tuple[Any, Any, str] | None = None,
) -> int:
    """Answer every record not yet in `writer.done`; returns how many rows were written."""
    if settings.batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    if settings.max_new_tokens < 1:
        raise InputError("--max-new-tokens must be at least 1")
    todo = [r for r in records if r.id not in writer.done]
    if not todo:
        return 0
    torch, transformers = _import_torch()
    model, tokenizer, device = loaded or load_model(settings)
    rendered = []
    for rec in todo:
        text, templated = render_prompt(tokenizer, build_messages(rec))
        rendered.append((rec, text, templated, len(tokenizer(text)["input_ids"])))
    if progress is not None and hasattr(progress, "start"):
        progress.start()  # loaded and ready: the bar's clock starts with the answering
    # longest prompts first: batches of similar length waste little padding, and running out of
    # memory shows up on the first batch rather than hours in
    rendered.sort(key=lambda item: -item[3])
    params = settings.params()
    written = 0
    for start in range(0, len(rendered), settings.batch_size):
        batch = rendered[start : start + settings.batch_size]
        if settings.seed is not None:
            transformers.set_seed(_batch_seed(settings.seed, [rec.id for rec, *_ in batch]))
        texts = [text for _, text, _, _ in batch]
        outputs = generate_batch(model, tokenizer, device, texts, settings, templated=batch[0][2])
        for (rec, *_), response in zip(batch, outputs, strict=True):
            writer.write(
                make_row(
                    rec.id,
                    rec.question_id,
                    rec.question_language,
                    response,
                    model=settings.model,
                    prompt_version=PROMPT_VERSION,
                    params=params,
                )
            )
            written += 1
        if progress is not None:
            progress.update(len(batch))
    return written
