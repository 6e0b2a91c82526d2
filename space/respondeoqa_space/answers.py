"""What an entry answered on each public item: its answer sheet, for the answers view
(`web/answers_page.py`) and the details dataset (`details.py`).

An entry keeps its prediction rows (the raw responses, or the answers it gave already
extracted) in one compressed blob (`store.compact`), and its per-item results without the
lenient readings. A sheet is both, for the entry's public items only: each item's raw
response, the answer the paper's rules extract, its score, and the lenient reading beside it
(docs/format-compliance.md), scored anew from the kept rows with this Space's evaluator and
gold (as `respondeoqa-space admin rescore` would score them). Rows of private items (Certamen,
NLE) are dropped once the blob is decoded, before anything is scored: a sheet never holds
one, so nothing built on a sheet can show one.

`AnswerSheets` keeps recently read sheets in memory (cachetools, bounded in bytes) by entry id
and file hash: a request reads the sheets of the entries it shows (six at most), never those of
the whole board.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass

import cachetools
from respondeoqa_eval.data import PUBLIC_SOURCES, GoldSet
from respondeoqa_eval.predictions import Prediction, Predictions
from respondeoqa_eval.report import ItemResult
from respondeoqa_eval.scoring import score_items

from .store import Entry, PredictionRow, Store


@dataclass(frozen=True)
class Answer:
    """One entry's answer to one public item.

    `response` is the raw response (with `given`, the answer the row gave already extracted;
    None: no prediction, or an entry stored before predictions were kept); `extracted` what the
    paper's rules read from it and `score` its score (None for translation, scored as a corpus);
    `lenient_*` the lenient reading (None: none read, or not known for such an old entry).
    """

    response: str | None
    given: bool
    extracted: str | None
    score: float | None
    missing: bool
    lenient_answer: str | None = None
    lenient_rule: str | None = None
    lenient_score: float | None = None
    recovered: bool = (
        False  # the paper's answer missing or not well-formed, a lenient rule read one
    )

    @property
    def format_cost(self) -> bool:
        """The answer format cost points here: the paper's rules read nothing usable, a lenient
        rule read an answer that scores more (a translation's: any, its hypothesis was empty)."""
        if not self.recovered:
            return False
        return self.score is None or (self.lenient_score or 0.0) > self.score


@dataclass(frozen=True)
class Sheet:
    """An entry's answers to the public items it was scored on, by item id (gold order)."""

    entry_id: int
    answers: Mapping[str, Answer]
    kept: bool  # its predictions were kept (responses and lenient readings known)
    size: int  # about how many bytes it keeps alive (the cache's measure)


def _stored(it: ItemResult) -> Answer:
    return Answer(None, False, it.extracted, it.score, it.missing)


def sheet_of(
    entry_id: int,
    items: Mapping[str, ItemResult],
    rows: list[PredictionRow] | None,
    gold: GoldSet,
) -> Sheet:
    """The sheet of an entry from its stored public `items` (item id -> result) and kept
    `rows` (None: none kept), scored against `gold`. Only items of public sources whose gold
    record is public are read; every other row is dropped unread."""
    public = [
        gold.by_id[i]
        for i in items
        if i in gold.by_id and not gold.by_id[i].is_private and items[i].source in PUBLIC_SOURCES
    ]
    if rows is None:
        answers = {r.id: _stored(items[r.id]) for r in public}
        return Sheet(entry_id, answers, False, _size(answers))
    wanted = {r.id for r in public}
    preds = Predictions(
        by_id={
            row["id"]: Prediction(row.get("answer", row.get("response", "")), "answer" in row)
            for row in rows
            if row["id"] in wanted
        },
        origin=f"entry {entry_id}",
    )
    answers = {}
    for it in score_items(public, preds):
        pred = preds.by_id.get(it.record.id)
        lenient = it.lenient
        answers[it.record.id] = Answer(
            response=None if pred is None else pred.text,
            given=pred is not None and pred.extracted,
            extracted=it.extracted,
            score=it.score,
            missing=it.missing,
            lenient_answer=None if lenient is None else lenient.answer,
            lenient_rule=None if lenient is None else lenient.rule,
            lenient_score=None if lenient is None else lenient.score,
            recovered=lenient is not None and lenient.recovered,
        )
    return Sheet(entry_id, answers, True, _size(answers))


def _size(answers: Mapping[str, Answer]) -> int:
    """About the bytes a sheet keeps alive: its texts and an object per answer."""
    texts = sum(
        len(a.response or "") + len(a.extracted or "") + len(a.lenient_answer or "")
        for a in answers.values()
    )
    return texts + len(answers) * (sys.getsizeof(Answer(None, False, None, None, False)) + 200)


class AnswerSheets:
    """The sheets of a store's entries, the recently read ones kept (bounded in bytes)."""

    def __init__(self, store: Store, gold: GoldSet, *, cache_bytes: int = 64 * 2**20) -> None:
        self.store = store
        self.gold = gold
        self._cache: cachetools.LRUCache = cachetools.LRUCache(
            maxsize=cache_bytes, getsizeof=lambda sheet: sheet.size
        )
        self._lock = threading.Lock()

    def sheet(self, entry: Entry) -> Sheet:
        """The sheet of a stored entry (read, scored and kept on first use; the same entry
        id and file hash is the same kept predictions)."""
        key = (entry.id, entry.file_sha256)
        with self._lock:
            found = self._cache.get(key)
        if found is not None:
            return found
        items = self.store.item_scores(entry.id)  # public items only
        sheet = sheet_of(entry.id, items, self.store.predictions(entry.id), self.gold)
        with self._lock:
            try:
                self._cache[key] = sheet
            except ValueError:  # larger than the whole cache: served, not kept
                pass
        return sheet
