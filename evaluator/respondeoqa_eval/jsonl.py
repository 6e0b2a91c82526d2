"""The package's one JSONL codec: one JSON value per line, lines split on "\\n" only.

`json.dumps(ensure_ascii=False)` keeps non-ASCII text readable but leaves U+0085 (NEL), U+2028
and U+2029 raw inside strings, and `str.splitlines()` splits on them: a row holding one of them
would come back as two broken lines. Here they are written escaped (still valid JSON, the same
string), and lines are split on "\\n" alone, so any text round-trips. Every JSONL writer and
reader of the package (predictions files, the runner's output, the leaderboard's kept
predictions and record exports) goes through these functions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .io import parse_json

__all__ = ["decode", "dumps", "encode", "lines"]

_RAW_BREAKS = re.compile("[\x85\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """`value` as one JSON line, without its newline (non-ASCII readable, NaN refused)."""
    text = json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys, allow_nan=False
    )
    return _RAW_BREAKS.sub(_escape, text)


def encode(rows: Iterable[Any], *, sort_keys: bool = False) -> str:
    """Rows as JSONL text: one `dumps` line each, every line ending in "\\n"."""
    return "".join(dumps(row, sort_keys=sort_keys) + "\n" for row in rows)


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of every non-blank line, split on "\\n" only (a "\\r" before it
    is dropped)."""
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if line.strip():
            yield number, line


def decode(text: str, origin: str) -> list[Any]:
    """The values of JSONL text; a malformed line is an InputError naming `origin` and the line."""
    return [parse_json(line, origin, number) for number, line in lines(text)]
