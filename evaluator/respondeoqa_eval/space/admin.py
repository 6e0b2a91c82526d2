"""Operator tools on the leaderboard database (and its Hub repo when configured):
list, add, hide, unhide, delete, rescore, export. Every change is written to the audit log and,
with a Hub repo, pushed at once (the outbox keeps it if the push fails).

`respondeoqa-eval space admin ...` (space/cli.py) is the command-line front end.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..gold import GoldSet
from ..io import write_text_atomic
from ..predictions import load_predictions
from . import table
from .store import Entry, Store, Submission, sha256_bytes
from .sync import Syncer


@dataclass
class Admin:
    """What an operator can do. `gold` is loaded only by the actions that score."""

    store: Store
    load_gold: Callable[[], GoldSet]
    actor: str
    syncer: Syncer | None = None
    bootstrap: int = 1000
    min_coverage: float = 0.9

    def _done(self, action: str, entry_id: int | None, detail: str = "") -> None:
        self.store.audit(self.actor, action, entry_id, detail)
        if self.syncer is not None:
            self.syncer.safe_push()

    def _entry(self, entry_id: int) -> Entry:
        entry = self.store.get(entry_id)
        if entry is None:
            raise InputError(f"no entry #{entry_id}")
        return entry

    def list(self) -> list[str]:
        """One line per entry, hidden ones included."""
        lines = []
        for e in self.store.entries(include_hidden=True):
            flags = [f for f, on in (("hidden", e.hidden), ("stale", e.stale)) if on]
            if e.answers_extracted:
                flags.append("answers")
            overall = table.percent_text(e.overall)
            lines.append(
                f"#{e.id}\t{e.created[:10]}\t{e.model}\t{e.submitter or '-'}\t{overall}\t"
                f"{','.join(e.sources)}\tv{e.scored_with}\t{','.join(flags) or 'shown'}"
            )
        return lines

    def add(self, paths: Sequence[Path], model: str | None = None) -> list[Entry]:
        """Score and store prediction files (model name from the file name without --model)."""
        from .service import score_for_board

        gold = self.load_gold()
        fingerprint = gold.fingerprint()
        added = []
        for path in paths:
            data = Path(path).read_bytes()
            preds = load_predictions(Path(path), gold)
            report = score_for_board(preds, gold, self.bootstrap, self.min_coverage)
            name = model or Path(path).name.split(".")[0]
            entry = self.store.add(
                Submission.of(
                    preds,
                    model=name,
                    file_sha256=sha256_bytes(data),
                    file_name=Path(path).name,
                    gold_fingerprint=fingerprint,
                ),
                report,
            )
            self.store.audit(self.actor, "add", entry.id, f"{name} from {Path(path).name}")
            added.append(entry)
        if self.syncer is not None:
            self.syncer.safe_push()
        return added

    def hide(self, entry_id: int, hidden: bool = True) -> Entry:
        entry = self._entry(entry_id)
        self.store.set_hidden(entry_id, hidden)
        self._done("hide" if hidden else "unhide", entry_id, entry.model)
        return entry

    def delete(self, entry_id: int) -> Entry:
        entry = self._entry(entry_id)
        self.store.delete(entry_id)
        self._done("delete", entry_id, entry.model)
        return entry

    def rescore(self) -> tuple[list[int], list[int]]:
        """Re-score every entry from its kept predictions with the current code and gold, one
        transaction per entry; (re-scored ids, ids without kept predictions)."""
        from .service import score_for_board

        gold = self.load_gold()
        fingerprint = gold.fingerprint()
        done, skipped = [], []
        for entry in self.store.entries(include_hidden=True):
            rows = self.store.predictions(entry.id)
            if rows is None:
                skipped.append(entry.id)
                continue
            preds = load_predictions(rows, gold)
            report = score_for_board(preds, gold, self.bootstrap)  # kept entries: no coverage rule
            self.store.replace_scores(entry.id, report, fingerprint)
            self.store.audit(self.actor, "rescore", entry.id, f"v{report.evaluator.version}")
            done.append(entry.id)
        if self.syncer is not None:
            self.syncer.safe_push()
        return done, skipped

    def export(self, output: Path) -> int:
        """Every entry (hidden ones too) as JSONL, as the Hub repo holds them; how many."""
        entries = self.store.entries(include_hidden=True)
        lines = [
            json.dumps(self.store.export_entry(e.id), ensure_ascii=False) + "\n" for e in entries
        ]
        write_text_atomic(Path(output), "".join(lines))
        self.store.audit(self.actor, "export", None, str(output))
        return len(entries)
