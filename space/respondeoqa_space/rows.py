"""Row identity, in one place: what kind a leaderboard row is, its key and its labels.

A row is a stored entry (kind SCORED, key "e:<id>") or one of the paper's published models
(kind PAPER, key "p:<paper key>"). Keys travel through the page (the board's `data-key`, the
pickers' values) and come back from clients, so `parse_key` accepts only their exact shape.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Protocol, TypeGuard

from respondeoqa_eval.data import PUBLIC_SOURCES, SOURCE_LABELS, SOURCES
from respondeoqa_eval.report import PUBLISHED_LABEL, Report

SCORED = "scored"
PAPER = "paper"
PAPER_LABEL = PUBLISHED_LABEL
SELF_REPORTED_LABEL = "self-reported"  # a stored entry scored here from uploaded predictions
VERIFIED_LABEL = "verified"  # a stored entry the leaderboard's own worker produced
MAX_ENTRY_ID = 2**31 - 1
"""Entry ids are 1 .. MAX_ENTRY_ID (a record file with another id is refused)."""

_KEY = re.compile(r"(e):([1-9][0-9]{0,9})|(p):([a-z0-9][a-z0-9.\-]{0,63})")


class Row(Protocol):
    """What every view reads of a row: a store Entry or a paper.PaperRow."""

    @property
    def model(self) -> str: ...
    @property
    def report(self) -> Report: ...
    @property
    def sources(self) -> tuple[str, ...]: ...
    @property
    def kind(self) -> str: ...


class ScoredRow(Row, Protocol):
    """A stored entry's row (`is_scored`): it has an entry number."""

    @property
    def id(self) -> int: ...


def is_scored(row: Row) -> TypeGuard[ScoredRow]:
    return row.kind == SCORED


def is_verified(row: Row) -> bool:
    """A stored entry evaluated by the leaderboard itself (paper rows and uploads: no)."""
    return bool(getattr(row, "verified", False))


def key_of(row: Row) -> str:
    """The row's key: "e:12" for entry #12, "p:paper-o3-mini" for a paper row."""
    # not scored: a paper row (paper.PaperRow), which has a key
    return f"e:{row.id}" if is_scored(row) else f"p:{row.key}"  # type: ignore[attr-defined]


def parse_key(text: object) -> tuple[str, str] | None:
    """(kind, ident) of a well-formed key ("e", "12") / ("p", "paper-o3-mini"); None for
    anything else (a key comes from the client)."""
    match = _KEY.fullmatch(str(text or ""))
    if match is None:
        return None
    kind, ident = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
    if kind == "e" and int(ident) > MAX_ENTRY_ID:
        return None
    return kind, ident


def entry_cell(row: Row) -> str:
    """The board's Entry cell: "#12", or "paper"."""
    return f"#{row.id}" if is_scored(row) else PAPER


def short_label(row: Row) -> str:
    """How charts and Compare name a row: "#12 Model" or "Model (paper)"."""
    return f"#{row.id} {row.model}" if is_scored(row) else f"{row.model} (paper)"


def picker_label(row: Row) -> str:
    """How the pickers list a row, with its coverage (entries of different coverages do not
    compare directly): "#12 Model · Junior Scholarship" or "Model (reported in paper)
    · all sources"."""
    name = short_label(row) if is_scored(row) else f"{row.model} ({PAPER_LABEL})"
    return f"{name} \u00b7 {coverage_label(row.sources)}"


def parse_entry_id(text: object) -> int | None:
    """An entry number as a person types it ("12", "#12"), ASCII digits only, in range; else
    None."""
    value = str(text or "").strip().removeprefix("#").strip()
    if not re.fullmatch(r"[0-9]{1,10}", value) or not 1 <= int(value) <= MAX_ENTRY_ID:
        return None
    return int(value)


ALL_SOURCES = "all sources"


def coverage_label(sources: Iterable[str]) -> str:
    """A readable name for the set of sources a row was scored on ("all sources", "public
    (Junior Scholarship + Latin Prosody)", "Latin Prosody", ...)."""
    return _coverage_label(frozenset(sources))


@functools.cache  # every row of a board asks, of a handful of coverages
def _coverage_label(s: frozenset[str]) -> str:
    if s >= set(SOURCES):
        return ALL_SOURCES
    names = " + ".join(SOURCE_LABELS[x] for x in SOURCES if x in s) or "none"
    return f"public ({names})" if s == set(PUBLIC_SOURCES) else names
