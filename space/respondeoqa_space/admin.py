"""Operator tools on the leaderboard database (and its record when configured): list, add, hide,
unhide, flag, unflag, delete, rescore, items, export, details (the public details dataset:
`details.py`). Every change is written to the audit log
and, with a record, committed at once: `add` stores an entry only once the record holds it (as a
submission); the other changes are pushed at once, and when the push fails the answer says the
change is NOT in the record yet (this copy keeps it for the next run). `space/cli.py` is the
front end.

`requests list` / `requests reopen ID` act on the record's evaluation requests alone (no
database): a failed request reopened is pending again, its attempts reset (`RequestLedger`).

With a record the local copy first reads it (`Syncer.read`): an action never works on a
partial copy, and `list` names the record files that could not be read.
"""

from __future__ import annotations

import builtins  # `list` is also a method of Admin
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from respondeoqa_eval import InputError, jsonl
from respondeoqa_eval.analysis import TOP_ITEMS, analyze_items, csv_text, summary_text
from respondeoqa_eval.io import write_text_atomic
from respondeoqa_eval.report import ItemResult, percent_text

from .config import Limits
from .details import sync_store
from .metadata import clean_metadata
from .requests.desk import describe
from .requests.ledger import RequestLedger
from .requests.model import FINISHED, REQUEST_ID, RUNNING
from .rows import MAX_ENTRY_ID
from .store import Entry, RecordProblem, Store
from .store.hub import HubRepo, HubUnavailable
from .store.sync import Syncer
from .submission import Intake


@dataclass
class Admin:
    """What an operator can do. `intake` (which loads the gold) is made only by the actions
    that score."""

    store: Store
    make_intake: Callable[[], Intake]
    actor: str
    syncer: Syncer | None = None
    limits: Limits = field(default_factory=Limits)
    _intake: Intake | None = None

    @property
    def intake(self) -> Intake:
        if self._intake is None:
            self._intake = self.make_intake()
        return self._intake

    def _push(self) -> str:
        """Push what waits; "" when done, else a note that it waits for the next run."""
        if self.syncer is None:
            return ""
        try:
            self.syncer.push()
        except HubUnavailable as exc:
            return (
                f" (NOT in the record yet: {exc}; this copy keeps it, the next admin run pushes it)"
            )
        return ""

    def _done(self, action: str, entry_id: int | None, detail: str = "") -> str:
        self.store.audit(self.actor, action, entry_id, detail)
        return self._push()

    def _entry(self, entry_id: int) -> Entry:
        entry = self.store.get(entry_id) if 1 <= entry_id <= MAX_ENTRY_ID else None
        if entry is None:
            raise InputError(f"no entry #{entry_id}")
        return entry

    def list(self) -> list[str]:
        """One line per entry, hidden ones included; then the unreadable record files."""
        lines = []
        for e in self.store.entries(include_hidden=True):
            flags = [f for f, on in (("hidden", e.hidden), ("stale", e.stale)) if on]
            if e.flag:
                flags.append(f"flagged: {e.flag}")
            if e.answers_extracted:
                flags.append("answers")
            if e.evaluation is not None:  # a verified entry
                flags.append(f"verified:{e.evaluation.request}")
            lines.append(
                f"#{e.id}\t{e.created[:10]}\t{e.model}\t{e.submitter or '-'}\t"
                f"{percent_text(e.overall)}\t{','.join(e.sources)}\tv{e.scored_with}\t"
                f"{','.join(flags) or 'shown'}"
            )
        lines += [_problem_line(p) for p in self.store.record_problems()]
        return lines

    def add(
        self, paths: Sequence[Path], model: str | None = None
    ) -> tuple[builtins.list[Entry], str]:
        """Score and store prediction files (model name from the file name without --model),
        through the same path as a submission (duplicates, coverage rule), without a quota."""
        for path in paths:
            if not Path(path).is_file():
                raise InputError(f"{path}: not a file")
        added = []
        for path in paths:
            name = model or Path(path).name.split(".")[0]
            meta = clean_metadata(name, "", "", "", self.limits)
            entry = self.intake.submit(Path(path), meta, client=None).entry
            self.store.audit(self.actor, "add", entry.id, f"{meta.model} from {Path(path).name}")
            added.append(entry)
        return added, self._push()

    def hide(self, entry_id: int, hidden: bool = True) -> tuple[Entry, str]:
        entry = self._entry(entry_id)
        self.store.set_hidden(entry_id, hidden)
        return entry, self._done("hide" if hidden else "unhide", entry_id, entry.model)

    def flag(self, entry_id: int, reason: str) -> tuple[Entry, str]:
        """Flag an entry publicly with a reason (shown on its row and in its detail); an empty
        reason clears the flag."""
        entry = self._entry(entry_id)
        text = " ".join(str(reason).split())
        if len(text) > 300:
            raise InputError("--reason: at most 300 characters")
        self.store.set_flag(entry_id, text)
        return entry, self._done("flag" if text else "unflag", entry_id, text or entry.model)

    def delete(self, entry_id: int) -> tuple[Entry, str]:
        entry = self._entry(entry_id)
        self.store.delete(entry_id)
        return entry, self._done("delete", entry_id, entry.model)

    def rescore(self) -> tuple[builtins.list[int], builtins.list[int], str]:
        """Re-score every entry from its kept predictions with the current code and gold, one
        transaction per entry; (re-scored ids, ids without kept predictions, push note)."""
        done, skipped = [], []
        for entry in self.store.entries(include_hidden=True):
            report = self.intake.rescore(entry)
            if report is None:
                skipped.append(entry.id)
                continue
            self.store.replace_scores(entry.id, report, self.intake.gold_fingerprint)
            self.store.audit(self.actor, "rescore", entry.id, f"v{report.evaluator.version}")
            done.append(entry.id)
        return done, skipped, self._push()

    def items(self, output: Path, top: int | None = None) -> str:
        """The item analysis of the shown entries over every item, private ones included with
        their questions and gold (the operator's own review: never published), as a CSV at
        `output`; the summary. Entries that kept predictions are scored anew for their
        private answers (the store keeps none); the others add their stored results."""
        if Path(output).is_dir():
            raise InputError(f"--output {output}: is a folder; give a file name")
        entries: dict[str, Sequence[ItemResult]] = {}
        without = []
        for entry in self.store.entries():
            items = self.intake.items_of(entry)
            if items is None:
                without.append(entry.id)
                items = tuple(self.store.item_scores(entry.id, public_only=False).values())
            entries[f"#{entry.id} {entry.model}"] = items
        if len(entries) < 2:
            raise InputError("items needs at least two shown entries to compare item by item")
        analysis = analyze_items(entries, self.intake.gold.by_id, private_text=True)
        write_text_atomic(Path(output), csv_text(analysis))
        self.store.audit(self.actor, "items", None, str(output))
        text = summary_text(analysis, TOP_ITEMS if top is None else top)
        if without:
            text += (
                f"\nNo kept predictions (private answers not compared): "
                f"{', '.join(f'#{i}' for i in without)}"
            )
        return text + f"\n{len(analysis.items)} rows written to {output}"

    def details(
        self,
        repo: HubRepo,
        *,
        dry_run: bool = False,
        board_url: str = "",
        echo: Callable[[str], None] = print,
    ) -> str:
        """Make the details dataset `repo` hold one config per shown entry, its public
        per-item results with raw responses (details.py); one line on what changed. Hidden
        and withdrawn entries' configs are deleted; unchanged ones are not uploaded again."""
        try:
            plan = sync_store(
                repo,
                self.store,
                self.intake.gold,
                board_url=board_url,
                dry_run=dry_run,
                echo=echo,
            )
        except HubUnavailable as exc:
            raise InputError(f"details: {exc}") from None
        if dry_run:
            return f"dry run, nothing written to {repo.repo_id}: {plan.summary()}"
        if not plan.nothing:
            self.store.audit(self.actor, "details", None, f"{repo.repo_id}: {plan.summary()}")
        commits = f" ({len(plan.commits)} commit{'s' if len(plan.commits) != 1 else ''})"
        return f"details {repo.repo_id}: {plan.summary()}" + (commits if plan.commits else "")

    def export(self, output: Path) -> int:
        """Every entry (hidden ones too) as JSONL, one record file's content a line; how many."""
        if Path(output).is_dir():
            raise InputError(f"--output {output}: is a folder; give a file name")
        records = [self.store.export_record(e.id) for e in self.store.entries(include_hidden=True)]
        write_text_atomic(Path(output), jsonl.encode(r for r in records if r is not None))
        self.store.audit(self.actor, "export", None, str(output))
        return len(records)


def _problem_line(problem: RecordProblem) -> str:
    entry = f"#{problem.entry_id}" if problem.entry_id is not None else "#?"
    return f"{entry}\tunreadable record file {problem.path}: {problem.reason}"


def request_lines(ledger: RequestLedger) -> list[str]:
    """One line per evaluation request in the record, oldest first; then its unreadable files."""
    _, requests = ledger.read_now()
    now = ledger.clock()
    lines = [
        f"{r.id}\t{r.created[:10]}\t{r.model}\t{r.revision[:12]}\t{r.preset}"
        f"{' reasoning' if r.reasoning else ''}\t{r.requester or 'operator'}\t"
        f"{describe(r, now)}"
        for r in sorted(requests.values(), key=lambda r: (r.created, r.id))
    ]
    return lines + [f"?\tunreadable request file {p}: {why}" for p, why in ledger.problems.items()]


def reopen_request(ledger: RequestLedger, rid: str, actor: str) -> str:
    """Make a failed request pending again; one line on what was done."""
    if not REQUEST_ID.fullmatch(rid):
        raise InputError(f"requests reopen {rid[:40]!r}: not a request id (12 hex digits)")
    _, requests = ledger.read_now()
    request = requests.get(rid)
    if request is None:
        raise InputError(f"requests reopen {rid}: no such request in the record")
    if request.status == RUNNING and not request.lease_expired(ledger.clock()):
        raise InputError(
            f"requests reopen {rid}: it is running on worker {request.worker}; stop that "
            "worker first (its request goes back by itself)"
        )
    if request.status == FINISHED:
        raise InputError(
            f"requests reopen {rid}: it finished ({describe(request, ledger.clock())}); "
            "nothing to run again"
        )
    before = request.status
    back = ledger.reopen(request, f"reopened by {actor}")
    if before == back.status:
        return f"request {rid} is {before} already"
    return f"request {rid} ({back.model}): {before} -> {back.status}"
