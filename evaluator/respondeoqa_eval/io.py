"""Small file helpers shared by the readers and the CLI areas."""

from __future__ import annotations

import json
import os
import re
import secrets
from pathlib import Path
from typing import Any

import orjson

from .errors import InputError

__all__ = ["decode_utf8", "parse_json", "read_json", "write_bytes_atomic", "write_text_atomic"]

_TRIES = 100  # names tried before giving up (tempfile's own count)


def open_new_file(folder: Path, prefix: str, suffix: str) -> tuple[int, Path]:
    """A new file of a name no other file has (`prefix` + random + `suffix`) in `folder`, open
    for writing: its descriptor and path.

    Created with mode 0o666, which the kernel narrows by the user's umask as for any file
    (`touch`: -rw-r--r-- under umask 022): `tempfile.mkstemp` makes it owner-only (0o600),
    and a report or a dataset written through it, renamed into place, stayed so. Nothing
    reads or changes the process's umask (no race with other threads)."""
    for _ in range(_TRIES):
        path = Path(folder) / f"{prefix}{secrets.token_hex(6)}{suffix}"
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), path
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: no unused temporary name after {_TRIES} tries")


def make_new_dir(parent: Path, prefix: str) -> Path:
    """A new empty folder in `parent` (`prefix` + random), with the user's umask
    (`tempfile.mkdtemp` makes it owner-only, 0o700): see `open_new_file`."""
    for _ in range(_TRIES):
        path = Path(parent) / f"{prefix}{secrets.token_hex(6)}"
        try:
            path.mkdir(0o777)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"{parent}: no unused temporary name after {_TRIES} tries")


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file and a rename: never a half-written file."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """`write_text_atomic` of bytes; the file gets the user's umask (`open_new_file`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = open_new_file(path.parent, f".{path.name}.", ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def decode_utf8(raw: bytes, origin: str) -> str:
    """UTF-8 text (a BOM is dropped); a clear error names the line of the first bad byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{origin}: line {line}: not valid UTF-8 (byte offset {exc.start})"
        ) from None


def _reason(msg: str) -> str:
    """The json module's reason in plain words: "Unterminated string starting at" (the place
    is said as line and column) -> "unterminated string"."""
    msg = re.sub(r"\s+(starting )?at$", "", msg.strip())
    return msg[:1].lower() + msg[1:]


_LONG_DIGITS = re.compile(r"[0-9]{19}")
_FEW_BRACKETS = 256
"""Text with fewer brackets than this cannot nest deeper than `json.loads` reads."""


def parse_json(text: str, origin: str, line: int | None = None) -> Any:
    """`json.loads` with an error that names the line and column; the one JSON parser of every
    reader (whole files and JSONL lines: pass `line`, the line number of `text`).

    Text `orjson` reads gives what `json.loads` gives (a test compares them); what it refuses
    (NaN, floats out of range, lone surrogates, malformed text) goes to `json.loads`, which
    reads it or says why, as does text with 19 digits in a row (orjson reads an integer over
    64 bits as a float) or with `_FEW_BRACKETS` brackets or more (orjson reads any depth). Hostile input gets an InputError, never a traceback: an
    integer too long to convert (Python refuses more than `sys.get_int_max_str_digits()` digits
    with ValueError) and nesting deeper than the parser's recursion limit (RecursionError).
    """
    # orjson reads an integer over 64 bits as a float, and any depth of nesting
    if text.count("[") + text.count("{") < _FEW_BRACKETS and not _LONG_DIGITS.search(text):
        try:
            return orjson.loads(text)  # a third of the time; what it refuses, `json` reads
        except orjson.JSONDecodeError:
            pass
    where = f"{origin}: line {line}" if line is not None else origin
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"line {line if line is not None else exc.lineno}, column {exc.colno}"
        raise InputError(f"{origin}: {at}: malformed JSON ({_reason(exc.msg)})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None
    except (
        ValueError
    ) as exc:  # e.g. "Exceeds the limit (4300 digits) for integer string conversion"
        reason = str(exc).split(";")[0][:120]
        raise InputError(f"{where}: unreadable JSON value ({reason})") from None


def read_json(path: Path, origin: str | None = None) -> Any:
    """Read and parse a UTF-8 JSON file, every failure an InputError naming the file."""
    origin = origin or str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"{origin}: cannot read ({exc.strerror})") from None
    return parse_json(decode_utf8(raw, origin), origin)
