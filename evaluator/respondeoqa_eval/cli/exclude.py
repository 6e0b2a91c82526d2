"""`score --exclude FILE` / `--exclude-ids IDS`: which items to leave out of the numbers, and
where the list came from in words (the report's `excluded.source`). A FILE is the item
analysis's CSV (`respondeoqa-eval items`, or the leaderboard's item_analysis.csv: its flagged
rows, the suspected gold errors) or a list of item ids, one a line."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..errors import InputError
from ..io import decode_utf8

FLAG_COLUMN = "suspected_gold_error"
TRUE = {"true", "1", "yes"}


def _flagged(text: str, path: Path) -> list[str]:
    """The ids of the flagged rows of an item analysis CSV."""
    reader = csv.DictReader(io.StringIO(text))
    columns = set(reader.fieldnames or ())
    if not {"id", FLAG_COLUMN} <= columns:
        raise InputError(
            f"--exclude {path}: a CSV without the item analysis's id and {FLAG_COLUMN} columns; "
            "give the CSV of `respondeoqa-eval items` (or the leaderboard's item analysis), or "
            "item ids one a line"
        )
    try:
        return [
            row["id"].strip()
            for row in reader
            if (row.get(FLAG_COLUMN) or "").strip().lower() in TRUE
        ]
    except csv.Error as exc:
        raise InputError(f"--exclude {path}: line {reader.line_num}: {exc}") from None


def read_exclusion(path: Path) -> tuple[list[str], str]:
    """(item ids, the list's source in words) of an --exclude FILE."""
    try:
        text = decode_utf8(path.read_bytes(), str(path))
    except OSError as exc:
        raise InputError(f"--exclude {path}: cannot read ({exc.strerror})") from None
    lines = [line.strip() for line in text.splitlines()]
    first = next((line for line in lines if line), "")
    if "," in first:  # item ids hold no comma: a CSV
        return _flagged(text, path), f"the suspected gold errors of {path.name}"
    ids = [line for line in lines if line and not line.startswith("#")]
    return ids, f"the items listed in {path.name}"


def ids_option(text: str) -> list[str]:
    """The ids of `--exclude-ids ID,ID,...`."""
    return [part.strip() for part in text.split(",") if part.strip()]


def exclusion_of(path: str | None, ids: str | None) -> tuple[list[str], str] | None:
    """The items `--exclude` and `--exclude-ids` name together, with their source; None when
    neither is given (the paper's numbers)."""
    if path is None and ids is None:
        return None
    wanted: list[str] = []
    sources = []
    if path is not None:
        listed, source = read_exclusion(Path(path))
        wanted += listed
        sources.append(source)
    if ids is not None:
        given = ids_option(ids)
        if not given:
            raise InputError("--exclude-ids: give item ids separated by commas")
        wanted += given
        sources.append("items given on the command line")
    return list(dict.fromkeys(wanted)), " and ".join(sources)
