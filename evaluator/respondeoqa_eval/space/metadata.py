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

from unidecode import unidecode

from ..errors import InputError
from .paper import PAPER_ROWS
from .rows import PAPER_LABEL


class TextLimits(Protocol):
    """The lengths `clean_metadata` enforces (config.Limits has these)."""

    max_model_chars: int
    max_link_chars: int
    max_params_chars: int
    max_note_chars: int


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
_PAPER_MARKS = (fold(PAPER_LABEL), *(fold(f"{p.model} paper") for p in PAPER_ROWS))


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


@dataclass(frozen=True)
class Metadata:
    """Validated submitter metadata (plain text; the UI shows it as text, never HTML)."""

    model: str
    link: str
    params: str
    note: str


def clean_metadata(model: Any, link: Any, params: Any, note: Any, limits: TextLimits) -> Metadata:
    """Validate and normalise the submit form's text fields; InputError names the field."""
    return Metadata(
        model=clean_model_name(model, limits.max_model_chars),
        link=clean_link(link, limits.max_link_chars),
        params=_clean(params, "parameter count", limits.max_params_chars),
        note=_clean(note, "note", limits.max_note_chars, multiline=True),
    )
