"""What a submitter types (model name, link, parameter count, note), validated and normalised:
for the submit form, the operator's `admin add`, and every entry read back from the record.

The board shows these as plain text; here they are made single-line (but the note), stripped of
control and invisible format characters, bounded in length, and a model name may not pose as
one of the paper's rows, not even with look-alike letters or zero-width characters.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from respondeoqa_eval import InputError
from respondeoqa_eval.report import PUBLISHED
from unidecode import unidecode

from .rows import PAPER_LABEL


class TextLimits(Protocol):
    """The lengths `clean_metadata` enforces (config.Limits has these; read-only here, as a
    frozen dataclass's fields are)."""

    @property
    def max_model_chars(self) -> int: ...
    @property
    def max_link_chars(self) -> int: ...
    @property
    def max_params_chars(self) -> int: ...
    @property
    def max_note_chars(self) -> int: ...


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _invisible(char: str) -> bool:
    # format characters (zero-width spaces and joiners, direction marks, BOM): never shown text
    return unicodedata.category(char) == "Cf"


def _clean(
    value: Any, field: str, limit: int, *, required: bool = False, multiline: bool = False
) -> str:
    text = "" if value is None else str(value)
    text = "".join(c for c in unicodedata.normalize("NFC", text) if not _invisible(c))
    text = text.strip()
    if not multiline:
        text = " ".join(text.split())
    text = _CONTROL.sub("", text)
    if required and not text:
        raise InputError(f"{field}: required")
    if len(text) > limit:
        raise InputError(f"{field}: at most {limit} characters (got {len(text)})")
    return text


def clean_link(value: Any, limit: int) -> str:
    """An optional link: empty, or an http(s) URL with a host and no spaces."""
    link = _clean(value, "link", limit)
    if not link:
        return ""
    parts = urlsplit(link)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or " " in link:
        raise InputError("link: must be an http:// or https:// address")
    return link


def _lookalike(char: str) -> str:
    """The ASCII character `char` is drawn like, if any (Unicode's confusables, TR39)."""
    if char.isascii():
        return char
    from confusable_homoglyphs.confusables import confusables_data

    return next((h["c"] for h in confusables_data.get(char, ()) if h["c"].isascii()), char)


def skeleton(text: str) -> str:
    """`text` as a reader sees it: compatibility forms (full-width letters), look-alike letters
    (Cyrillic р, Greek ρ: Unicode's confusables), invisible characters dropped, the rest
    transliterated, case ignored."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(_lookalike(c) for c in text if not _invisible(c))
    return unidecode(text).casefold()


def fold(text: str) -> str:
    """`skeleton(text)` with punctuation and spacing ignored too."""
    return " ".join(re.sub(r"[\W_]+", " ", skeleton(text)).split())


# what marks a paper row: the Type column's words, and Compare's "<model> (paper)" label
_PAPER_MARKS = (fold(PAPER_LABEL), *(fold(f"{p.model} paper") for p in PUBLISHED))


def clean_model_name(value: Any, limit: int) -> str:
    """The model name: required, and not posing as one of the paper's rows."""
    name = _clean(value, "model name", limit, required=True)
    folded = f" {fold(name)} "
    bracketed = re.search(r"\(\s*paper\s*\)", skeleton(name))
    if any(f" {mark} " in folded for mark in _PAPER_MARKS) or bracketed:
        raise InputError(
            'model name: must not copy a paper row\'s label or say "reported in paper" '
            "(only the Space adds the paper's rows)"
        )
    return name


_PARAMS = re.compile(
    r"(?:(?P<experts>\d+)\s*[x×]\s*)?(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>[bmkt]?)(?:\s*params)?",
    re.IGNORECASE,
)
_UNIT = {"": 1.0, "b": 1.0, "m": 1e-3, "k": 1e-6, "t": 1e3}


def parse_params(text: str) -> float | None:
    """A parameter count in billions from what a person writes: "70B", "0.5 b", "350M", "1.2T",
    "8x7B" (experts times size: the total), "70" (billions); None for ""; InputError else."""
    text = text.strip()
    if not text:
        return None
    match = _PARAMS.fullmatch(text.replace(",", ""))
    if match is None:
        raise InputError(
            f"parameter count: write it like 7B, 0.5B, 350M or 8x7B (got {text[:30]!r})"
        )
    value = float(match["value"]) * _UNIT[match["unit"].lower()]
    value *= int(match["experts"] or 1)
    if not 0 < value < 1e5:
        raise InputError(f"parameter count: {text[:30]!r} is not a model size")
    return value


def params_text(billions: float | None) -> str:
    """A parameter count as the leaderboard writes every count (the board, the entry detail,
    the requests), as model cards do: from 1B on, in B with one decimal below 100 and whole
    numbers above ("7.6B", "70B", "671B"); from 0.1B to 1B, in B with up to three significant
    digits ("0.5B", "0.494B", "0.125B"); below that in M or K, one decimal below 100 of the
    unit ("60M", "44.2K"); "" when unknown. `parse_params` reads every text back to itself."""
    if billions is None:
        return ""
    small = f"{billions:.3g}"  # the 0.1B-1B style, when the count rounds into it
    if float(small) >= 1:
        text = f"{billions:.0f}" if billions >= 99.95 else f"{billions:.1f}".removesuffix(".0")
        return text + "B"
    if float(small) >= 0.1:
        return small + "B"
    count = billions * 1e9
    unit, size = ("M", 1e6) if count >= 1e6 else ("K", 1e3)
    value = count / size
    if value >= 99.95 and unit == "M":  # 99.96M rounds to 0.1B
        return "0.1B"
    text = f"{value:.0f}" if value >= 99.95 else f"{value:.1f}".removesuffix(".0")
    return "1M" if text == "1000" else text + unit  # 999.97K is 1M


WEIGHTS = {"open": "open weights", "api": "API only"}
"""What `ModelInfo.weights` may say, and how the board names it ("" when not said)."""

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.\-]{0,95}/[A-Za-z0-9][\w.\-]{0,95}")


@dataclass(frozen=True)
class ModelInfo:
    """What is known about the model of an entry beyond its name (each field optional)."""

    params_b: float | None = None  # parameters, in billions
    weights: str = ""  # a key of WEIGHTS, or "" (not said)
    reasoning: bool | None = None  # a reasoning ("thinking") model; None: not said
    hub_model: str = ""  # its Hugging Face model id, e.g. meta-llama/Llama-3.3-70B-Instruct

    @property
    def hub_url(self) -> str:
        return f"https://huggingface.co/{self.hub_model}" if self.hub_model else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "params_b": self.params_b,
            "weights": self.weights,
            "reasoning": self.reasoning,
            "hub_model": self.hub_model,
        }

    @classmethod
    def from_dict(cls, data: Any) -> ModelInfo:
        """From stored or record data, checked like a form (InputError names the field)."""
        if not isinstance(data, dict):
            return cls()
        params = data.get("params_b")
        if params is not None and (
            isinstance(params, bool) or not isinstance(params, (int, float)) or not 0 < params < 1e5
        ):
            raise InputError("parameter count: not a model size")
        return clean_model_info(
            params_text(None if params is None else float(params)),
            data.get("weights", ""),
            data.get("reasoning"),
            data.get("hub_model", ""),
        )


def _choice(value: Any) -> bool | None:
    if value in (None, "", "not said"):
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("yes", "true", "reasoning"):
        return True
    if text in ("no", "false"):
        return False
    raise InputError("reasoning model: answer yes, no or not said")


def clean_model_info(params: Any, weights: Any, reasoning: Any, hub_model: Any) -> ModelInfo:
    """The form's model fields checked: a size, open/API, reasoning or not, a Hub model id."""
    weights_key = {"open weights": "open", "api only": "api"}.get(
        str(weights or "").strip().lower(), str(weights or "").strip().lower()
    )
    if weights_key in ("not said", "unknown"):
        weights_key = ""
    if weights_key and weights_key not in WEIGHTS:
        raise InputError("weights: open, API or not said")
    hub = _clean(hub_model, "Hugging Face model id", 200)
    hub = hub.removeprefix("https://huggingface.co/").strip("/")
    if hub and not _HUB_ID.fullmatch(hub):
        raise InputError("Hugging Face model id: write it like ORG/NAME, e.g. Qwen/QwQ-32B")
    return ModelInfo(
        params_b=parse_params(_clean(params, "parameter count", 30)),
        weights=weights_key,
        reasoning=_choice(reasoning),
        hub_model=hub,
    )


@dataclass(frozen=True)
class Metadata:
    """Validated submitter metadata (plain text; the UI shows it as text, never HTML)."""

    model: str
    link: str
    params: str
    note: str


def clean_metadata(
    model: Any, link: Any, params: Any, note: Any, limits: TextLimits, *, strict: bool = True
) -> Metadata:
    """Validate and normalise the submit form's text fields; InputError names the field. The
    parameter count is written the board's way ("70B"; `parse_params`); not `strict` (entries
    stored before counts were parsed), a count that does not parse stays as written."""
    params_raw = _clean(params, "parameter count", limits.max_params_chars)
    try:
        params_shown = params_text(parse_params(params_raw))
    except InputError:
        if strict:
            raise
        params_shown = params_raw
    return Metadata(
        model=clean_model_name(model, limits.max_model_chars),
        link=clean_link(link, limits.max_link_chars),
        params=params_shown,
        note=_clean(note, "note", limits.max_note_chars, multiline=True),
    )


def suggested_fields(provenance: Any) -> dict[str, str]:
    """What a predictions file says about its run, as form fields: the model name, its Hub id
    when the name is one ("Qwen/QwQ-32B", "pretrained=Qwen/QwQ-32B,dtype=..."), and a note
    with the tool and its sampling settings. {} when it says nothing."""
    if provenance is None or provenance.is_empty():
        return {}
    model = str(provenance.model or "")
    candidate = re.search(r"pretrained=([^,\s]+)", model)
    hub = candidate.group(1) if candidate else model
    hub = hub.removeprefix("https://huggingface.co/").strip("/")
    out: dict[str, str] = {}
    if _HUB_ID.fullmatch(hub):
        out["hub_model"] = hub
        out["model"] = hub.split("/")[-1]
    elif model:
        out["model"] = model[:100]
    size = re.search(r"(?<![\w.])(\d+(?:\.\d+)?\s*[BbMm])(?![\w.])", out.get("model", ""))
    if size:
        out["params"] = size.group(1).replace(" ", "").upper()
    tool = " ".join(filter(None, [provenance.tool, provenance.tool_version]))
    settings = ", ".join(f"{k} {v}" for k, v in sorted(provenance.params.items()))[:300]
    note = "; ".join(
        filter(
            None,
            [tool, settings, provenance.prompt_version and f"prompt {provenance.prompt_version}"],
        )
    )
    if note:
        out["note"] = f"Made with {note}."
    return out
