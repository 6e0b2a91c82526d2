"""What the Space does, without any UI: load gold, score and store submissions, build tables,
figures and comparisons. `app.py` wires these methods to Gradio components.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from ..aggregate import Bootstrap
from ..errors import InputError
from ..gold import load_gold
from ..io import write_text_atomic
from . import compare, figures, table
from .limits import check_daily, clean_metadata
from .paper import PAPER_ROWS, PaperRow
from .settings import SpaceConfig
from .store import (
    DuplicateSubmissionError,
    Entry,
    HubMirror,
    Store,
    Submission,
    push_entry,
    restore,
    sha256_bytes,
)

log = logging.getLogger(__name__)


@dataclass
class SubmitOutcome:
    """What the submitter sees: a plain-text message and, when stored, the breakdown."""

    ok: bool
    message: str
    breakdown: pd.DataFrame
    entry: Entry | None = None


@dataclass
class CompareOutcome:
    message: str
    by_content: go.Figure
    by_pair: go.Figure
    difference: go.Figure | None
    differences: pd.DataFrame
    disagreements: pd.DataFrame


_EMPTY_BREAKDOWN = pd.DataFrame(columns=["Group", "Key", "Metric", "Score", "95% CI", "Items"])


class Space:
    """The leaderboard's state: gold, store, optional mirror."""

    def __init__(self, config: SpaceConfig) -> None:
        self.config = config
        self.limits = config.limits
        self.gold = (
            config.gold if config.gold is not None else load_gold(config.data_dir, with_public=True)
        )
        self.store = Store(config.db)
        self.mirror = config.mirror or (
            HubMirror(config.mirror_repo, token=os.environ.get("HF_TOKEN"))
            if config.mirror_repo
            else None
        )
        if self.mirror is not None and self.store.count() == 0:
            added = restore(self.store, self.mirror)
            log.info("restored %d entries from the mirror", added)
        self._tmp = Path(tempfile.mkdtemp(prefix="respondeoqa-space-"))
        log.info(
            "gold: %d items from %d files (private sources: %s); db: %s",
            len(self.gold),
            len(self.gold.files),
            self.gold.has_private,
            config.db,
        )

    # -- leaderboard -------------------------------------------------------------------

    def rows(self) -> list[Any]:
        """The paper's rows, then every stored entry."""
        return [*PAPER_ROWS, *self.store.entries()]

    def table(self, view: str = "Overview", coverage: str | None = None) -> pd.DataFrame:
        return table.leaderboard_frame(self.rows(), view, coverage)

    def coverage_choices(self) -> list[str]:
        return table.coverage_choices(self.rows())

    def csv_file(self, view: str = "Overview", coverage: str | None = None) -> Path:
        """The current table as a CSV file to download (one file per view and coverage)."""
        key = hashlib.sha256(f"{view}\0{coverage}".encode()).hexdigest()[:12]
        path = self._tmp / f"respondeoqa-leaderboard-{key}.csv"
        write_text_atomic(path, table.to_csv(self.table(view, coverage)))
        return path

    # -- submit ------------------------------------------------------------------------

    def submit(
        self,
        file_path: str | Path | None,
        model: Any,
        link: Any = "",
        params: Any = "",
        note: Any = "",
        client: str = "",
    ) -> SubmitOutcome:
        """Validate, score, store; every failure becomes a plain-words message."""
        try:
            entry = self._submit(file_path, model, link, params, note, client)
        except InputError as exc:
            return SubmitOutcome(False, f"Not accepted: {exc}", _EMPTY_BREAKDOWN)
        except Exception as exc:  # never show a traceback (or anything it may quote)
            # where it failed, but not the message: it could quote a private gold string
            frames = traceback.extract_tb(exc.__traceback__)[-4:]
            where = " <- ".join(
                f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames)
            )
            log.error("submission failed with %s at %s", type(exc).__name__, where)
            return SubmitOutcome(
                False,
                "Not accepted: the file could not be scored because of an internal error; "
                "please report it to the Space's maintainers.",
                _EMPTY_BREAKDOWN,
            )
        report = entry.report
        overall = report.accuracy.overall
        message = (
            f"Stored as entry #{entry.id}: {entry.model}. Overall accuracy "
            f"{overall.score * 100:.2f}% on {overall.n} items "
            f"({table.coverage_label(entry.sources)}); {report.missing} covered items had no "
            f"prediction, {report.unanswered} had no extractable answer."
        )
        return SubmitOutcome(True, message, table.breakdown_frame(report), entry)

    def _submit(
        self,
        file_path: str | Path | None,
        model: Any,
        link: Any,
        params: Any,
        note: Any,
        client: str,
    ) -> Entry:
        if not file_path:
            raise InputError("no file: upload a predictions file (.jsonl, .csv or .json)")
        path = Path(file_path)
        meta = clean_metadata(model, link, params, note, self.limits)
        check_daily(self.store, client, self.limits)
        ok = False
        try:
            size = path.stat().st_size
            if size > self.limits.max_file_bytes:
                raise InputError(
                    f"{path.name}: {size / 1e6:.1f} MB is over the {self.limits.max_file_mb} MB limit"
                )
            data = path.read_bytes()
            digest = sha256_bytes(data)
            existing = self.store.find_by_hash(digest)
            if existing is not None:
                raise DuplicateSubmissionError(existing)
            from .. import evaluate  # the evaluator's public API

            report = evaluate(
                path, self.gold, restrict_to_covered=True, bootstrap=self.config.bootstrap
            )
            entry = self.store.add(
                Submission(
                    model=meta.model,
                    file_sha256=digest,
                    link=meta.link,
                    params=meta.params,
                    note=meta.note,
                    file_name=path.name,
                    client=client,
                ),
                report,
            )
            ok = True
        finally:
            self.store.record_attempt(client, ok)
        push_entry(self.store, self.mirror, entry)
        log.info("stored entry #%d (%d items)", entry.id, entry.n_items)
        return entry

    # -- compare -----------------------------------------------------------------------

    def choices(self) -> list[tuple[str, str]]:
        """(label, value) pairs for the Compare picker; labels are plain text."""
        out = [(f"{p.model} (reported in paper)", f"p:{p.key}") for p in PAPER_ROWS]
        out += [(f"#{e.id} {e.model}", f"e:{e.id}") for e in self.store.entries()]
        return out

    def _resolve(self, key: str) -> Entry | PaperRow | None:
        kind, _, ident = str(key).partition(":")
        if kind == "p":
            return next((p for p in PAPER_ROWS if p.key == ident), None)
        if kind == "e" and ident.isdigit():
            return self.store.get(int(ident))
        return None

    def compare(self, keys: list[str] | None) -> CompareOutcome:
        """Charts for two or more entries; bootstrap and disagreements for two scored ones."""
        picked = [r for r in (self._resolve(k) for k in (keys or [])) if r is not None]
        empty_diff = compare.differences_frame([])
        empty_dis = pd.DataFrame(columns=compare.DISAGREEMENT_COLUMNS)
        if len(picked) < 2:
            msg = "Pick two or more entries to compare."
            err = figures.error_figure(msg)
            return CompareOutcome(msg, err, err, None, empty_diff, empty_dis)
        labels = [
            f"{r.model} (paper)" if r.kind == "paper" else f"#{r.id} {r.model}" for r in picked
        ]
        pairs = list(zip(labels, [r.report for r in picked], strict=True))
        by_content = figures.safe_figure(figures.grouped_bars, pairs, "by_content", what="chart")
        by_pair = figures.safe_figure(figures.grouped_bars, pairs, "by_language_pair", what="chart")
        scored = [r for r in picked if r.kind == "scored"]
        if len(picked) != 2 or len(scored) != 2:
            msg = (
                f"Comparing {len(picked)} entries. The paired bootstrap and the disagreement "
                "table need exactly two scored submissions (paper rows have no per-item scores)."
            )
            return CompareOutcome(msg, by_content, by_pair, None, empty_diff, empty_dis)
        a, b = scored
        diffs = compare.paired(
            self.store.item_scores(a.id, public_only=False),
            self.store.item_scores(b.id, public_only=False),
            Bootstrap(resamples=self.config.bootstrap),
        )
        diff_fig = figures.safe_figure(
            figures.difference_figure, diffs, labels[0], labels[1], what="difference chart"
        )
        dis = compare.disagreements(
            self.store.item_scores(a.id, public_only=True),
            self.store.item_scores(b.id, public_only=True),
            self.gold,
        )
        n = diffs[0].n if diffs else 0
        msg = (
            f"A = {labels[0]}; B = {labels[1]}. Paired bootstrap over the {n} scored items both "
            f"were scored on; {len(dis)} public items where they disagree are listed below."
        )
        return CompareOutcome(
            msg, by_content, by_pair, diff_fig, compare.differences_frame(diffs), dis
        )
