"""SQLite storage for leaderboard entries: metadata, report, per-item scores, kept predictions.

One file, WAL journal, every write in one `BEGIN IMMEDIATE` transaction: a crash or a concurrent
writer (thread or process) never leaves a half-stored entry, and the UNIQUE file hash makes the
second of two identical files fail inside the same transaction that would have stored it.

Each entry keeps what is needed to score it again: its predictions, the evaluator version and
the fingerprint of the gold it was scored against. An entry's items and predictions are compact
blobs (`compact.py`) against an item set shared by every entry of the same coverage, and its
report is zlib-compressed JSON: about 35 KB for a full-size entry.

The table is its own outbox for the record (`sync.py`): `version != pushed_version` marks an
entry the Hub repo does not hold yet, `hub_deletes` a deletion not yet pushed, and
`record_identity` the content identity of the entry's record file when last read or written (a
pull compares it with the repo's listing). Record files that could not be read are kept in
`record_problems` (the operator sees them in `respondeoqa-space admin list`); operator actions go to
`audit`.

Private per-item rows (Certamen, NLE) stay in this file and in the (private) Hub dataset repo;
the UI modules only ever read public items.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from respondeoqa_eval import InputError
from respondeoqa_eval.data import PUBLIC_SOURCES
from respondeoqa_eval.report import ItemResult, Report

from ..metadata import ModelInfo
from ..privacy import private_points
from ..rows import MAX_ENTRY_ID
from . import compact, quota, record, schema
from .models import (
    DuplicateContentError,
    DuplicateSubmissionError,
    Entry,
    PredictionRow,
    Submission,
)
from .quota import Reservation
from .record import entry_path


class IdTakenError(ValueError):
    """A record names an id another stored entry already has."""


class SyncedEntry(NamedTuple):
    """What the record's bookkeeping knows of one stored entry."""

    id: int
    identity: str | None  # its record file's identity when last read or written
    dirty: bool  # changed here, not pushed yet
    pushed: bool  # some version of it was pushed (before identities were kept, too)


@dataclass(frozen=True)
class RecordProblem:
    """A record file that could not become an entry (never shown, never overwritten)."""

    path: str
    identity: str
    entry_id: int | None
    reason: str
    seen: str


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _entry(row: Sequence[Any]) -> Entry:
    (
        id_,
        created,
        model,
        link,
        params,
        note,
        file_name,
        sha,
        n_items,
        sources,
        report,
        submitter,
        hidden,
        answers_extracted,
        evaluator_version,
        gold_fingerprint,
        model_info,
        flag,
        points,
        evaluation,
    ) = row
    return Entry(
        id=int(id_),
        created=created,
        model=model,
        link=link,
        params=params,
        note=note,
        file_name=file_name,
        file_sha256=sha,
        n_items=int(n_items),
        sources=tuple(s for s in sources.split(",") if s),
        report=schema.unpack_report(report),
        submitter=submitter,
        hidden=bool(hidden),
        answers_extracted=bool(answers_extracted),
        scored_with=evaluator_version,
        gold_fingerprint=gold_fingerprint,
        info=_model_info(model_info),
        flag=flag,
        private_points=_points(points),
        evaluation=schema.unpack_evaluation(evaluation),
    )


def _points(text: str) -> dict[str, float]:
    try:
        data = json.loads(text or "{}")
        return {str(k): float(v) for k, v in data.items()}
    except (ValueError, TypeError, AttributeError):  # only a hand-edited file fails: nothing
        return {}  # stepped, so every value resting on private items is hidden


def _model_info(text: str) -> ModelInfo:
    try:
        return ModelInfo.from_dict(json.loads(text or "{}"))
    except (ValueError, InputError):  # written by this store: only a hand-edited file fails
        return ModelInfo()


def _scores_of(report: Report) -> tuple[Report, tuple[str, ...], int]:
    """What scoring determines of a row: the slim report, the gold sources, the item count."""
    slim = report.without_items()
    sources = tuple(sorted(report.gold.sources or {it.source for it in report.items}))
    n_items = report.n_items or len(report.items)
    return slim, sources, n_items


def disk_problem(exc: BaseException) -> str | None:
    """One sentence naming a failed write to the Space's disk (full, read-only, I/O error), or
    None when `exc` is not one (then it is a bug, and reported as one)."""
    import errno

    code = exc.errno if isinstance(exc, OSError) else None
    text = str(exc).lower() if isinstance(exc, sqlite3.OperationalError) else ""
    if code in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in text:
        return "the Space's disk is full; nothing was stored"
    if code == errno.EROFS or "readonly database" in text:
        return "the Space's disk is read-only; nothing was stored"
    if code == errno.EIO or "disk i/o error" in text:
        return "the Space's disk failed to write (an I/O error); nothing was stored"
    return None


def open_error(path: Path) -> str | None:
    """Why `path` cannot be a leaderboard database (a folder, not SQLite), else None."""
    if path.is_dir():
        return f"{path}: is a folder, not a database file"
    if path.is_file() and path.stat().st_size:
        with path.open("rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return f"{path}: not an SQLite database"
    return None


class Store:
    """The leaderboard database (one SQLite file; safe across threads and processes)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 60.0) -> None:
        self.path = Path(path)
        problem = open_error(self.path)
        if problem:
            raise InputError(problem)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot create its folder ({exc.strerror})") from None
        self.busy_timeout = busy_timeout
        self._sets: dict[int, list[compact.ItemKey]] = {}  # committed item sets (never change)
        self._sets_lock = threading.Lock()
        self._readers = threading.local()  # one kept connection per thread for data_version
        try:
            with self._connect() as con:
                # WAL: readers never block the single writer, and a crash mid-transaction is
                # rolled back from the journal on the next open (set outside a transaction)
                con.execute("PRAGMA journal_mode=WAL")
            with self._write() as con:
                schema.migrate(con, schema.create(con), self._item_set)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{self.path}: not a usable SQLite database ({exc})") from None

    # -- connections -------------------------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        con = sqlite3.connect(
            self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
        )
        try:
            con.execute("PRAGMA foreign_keys=ON")
            con.execute("PRAGMA synchronous=FULL")
            yield con
        finally:
            con.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    @staticmethod
    def _changed(con: sqlite3.Connection) -> None:
        con.execute(
            "INSERT INTO meta (key, value) VALUES ('changes', '1') ON CONFLICT(key)"
            " DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    # -- item sets (compact.py) ---------------------------------------------------------

    @staticmethod
    def _item_set(con: sqlite3.Connection, items: Sequence[ItemResult]) -> int:
        """The number of the item set of `items`, adding it when new (inside a write
        transaction; not cached: a rolled-back transaction's number is given out again)."""
        digest, blob = compact.item_set(items)
        row = con.execute("SELECT number FROM item_sets WHERE digest = ?", (digest,)).fetchone()
        if row is not None:
            return int(row[0])
        added = con.execute("INSERT INTO item_sets (digest, data) VALUES (?, ?)", (digest, blob()))
        assert added.lastrowid is not None  # an INSERT's row id
        return added.lastrowid

    def _keys_of(self, number: int) -> list[compact.ItemKey]:
        """A committed item set (read once per process, then from memory)."""
        keys = self._sets.get(number)
        if keys is None:
            with self._sets_lock, self._connect() as con:
                row = con.execute(
                    "SELECT data FROM item_sets WHERE number = ?", (number,)
                ).fetchone()
            keys = self._sets[number] = compact.decode_item_set(row[0])
        return keys

    def _store_items(
        self,
        con: sqlite3.Connection,
        entry_id: int,
        items: Sequence[ItemResult],
        rows: Sequence[PredictionRow] | None,
    ) -> None:
        number = self._item_set(con, items)
        con.execute(
            "INSERT OR REPLACE INTO entry_items (submission_id, data) VALUES (?, ?)",
            (entry_id, compact.encode_items(items, number)),
        )
        con.execute(
            "UPDATE submissions SET private_points = ? WHERE id = ?",
            (json.dumps(private_points(items), sort_keys=True), entry_id),
        )
        if rows is not None:
            keys = compact.keys_of_items(items)
            con.execute(
                "UPDATE submissions SET predictions = ? WHERE id = ?",
                (compact.encode_predictions(rows, keys, number), entry_id),
            )

    # -- ids -----------------------------------------------------------------------------

    @staticmethod
    def _next_id(con: sqlite3.Connection) -> int:
        """One more than any id this database or its record has given out: ids of withdrawn
        entries and of unreadable record files are never given again."""
        used = [
            con.execute("SELECT MAX(id) FROM submissions").fetchone()[0],
            con.execute("SELECT seq FROM sqlite_sequence WHERE name = 'submissions'").fetchone(),
            con.execute("SELECT MAX(entry_id) FROM record_problems").fetchone()[0],
            con.execute("SELECT value FROM meta WHERE key = 'record_max_id'").fetchone(),
        ]
        values = [int(v[0] if isinstance(v, tuple) else v) for v in used if v is not None]
        new_id = max([0, *values]) + 1
        if new_id > MAX_ENTRY_ID:
            raise RuntimeError("entry ids are exhausted")
        return new_id

    def max_id(self) -> int:
        """The largest id given out (stored, withdrawn, in the record or among its unreadable
        files): what the record's index keeps."""
        with self._connect() as con:
            return self._next_id(con) - 1

    def raise_id_floor(self, max_id: int) -> None:
        """The record has given out ids up to `max_id` (its index): new ids come after it."""
        with self._write() as con:
            con.execute(
                "INSERT INTO meta (key, value) VALUES ('record_max_id', ?) ON CONFLICT(key)"
                " DO UPDATE SET value = MAX(CAST(value AS INTEGER), CAST(? AS INTEGER))",
                (str(max_id), str(max_id)),
            )

    def note(self, key: str) -> str | None:
        """A value the record's bookkeeping keeps in `meta` (e.g. the head last read)."""
        with self._connect() as con:
            row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_note(self, key: str, value: str | None) -> None:
        with self._write() as con:
            if value is None:
                con.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                con.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key)"
                    " DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    # -- entries -------------------------------------------------------------------------

    def add(
        self,
        sub: Submission,
        report: Report,
        *,
        entry_id: int | None = None,
        created: str | None = None,
        hidden: bool = False,
        record_identity: str | None = None,
        reservation: Reservation | None = None,
        content_key: str = "",
        flag: str = "",
    ) -> Entry:
        """Store a scored submission, its per-item scores and its predictions in one transaction.

        With a `reservation` (`reserve`), the same transaction marks its attempt as stored; with
        a `content_key` (`quota.content_key`), predictions already stored under that key raise
        DuplicateContentError. A file with the same hash raises DuplicateSubmissionError.

        An entry read from the record gives its `entry_id` (IdTakenError when another entry has
        it) and `record_identity`: it is not pushed back. Any other new entry gets the next id
        and waits in the outbox (`pending_pushes`).
        """
        with self._write() as con:
            return self._insert(
                con,
                sub,
                report,
                entry_id=entry_id,
                created=created,
                hidden=hidden,
                record_identity=record_identity,
                reservation=reservation,
                content_key=content_key,
                flag=flag,
            )

    def _insert(
        self,
        con: sqlite3.Connection,
        sub: Submission,
        report: Report,
        *,
        entry_id: int | None,
        created: str | None,
        hidden: bool,
        record_identity: str | None,
        reservation: Reservation | None,
        content_key: str,
        flag: str = "",
    ) -> Entry:
        """`add`, inside the caller's open write transaction."""
        slim, sources, n_items = _scores_of(report)
        created = created or _now()
        row = con.execute(
            f"SELECT {schema.ENTRY_COLUMNS} FROM submissions WHERE file_sha256 = ?",
            (sub.file_sha256,),
        ).fetchone()
        if row is not None:
            raise DuplicateSubmissionError(_entry(row))
        same = quota.entry_with_content(con, content_key) if content_key else None
        if same is not None:
            raise DuplicateContentError(self._get(con, same))
        if entry_id is None:
            entry_id = self._next_id(con)
        elif not 1 <= entry_id <= MAX_ENTRY_ID:
            raise IdTakenError(f"id {entry_id} is out of range")
        elif con.execute("SELECT 1 FROM submissions WHERE id = ?", (entry_id,)).fetchone():
            raise IdTakenError(f"id #{entry_id} belongs to another entry")
        con.execute(
            "INSERT INTO submissions (id, created, model, link, params, note, file_name,"
            " file_sha256, n_items, sources, report, submitter, hidden, answers_extracted,"
            " evaluator_version, gold_fingerprint, model_info, flag, version, pushed_version,"
            " record_identity, evaluation)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
            (
                entry_id,
                created,
                sub.model,
                sub.link,
                sub.params,
                sub.note,
                sub.file_name,
                sub.file_sha256,
                n_items,
                ",".join(sources),
                schema.pack_report(slim),
                sub.submitter,
                int(hidden),
                int(sub.answers_extracted),
                report.evaluator.version,
                sub.gold_fingerprint,
                json.dumps(sub.info.to_dict()),
                flag,
                0 if record_identity is None else 1,
                record_identity,
                schema.pack_evaluation(sub.evaluation),
            ),
        )
        if content_key:
            quota.add_content_key(con, content_key, entry_id)
        if reservation is not None:
            quota.settle(con, reservation, entry_id)
        self._store_items(con, entry_id, report.items, sub.rows)
        con.execute("DELETE FROM hub_deletes WHERE path = ?", (entry_path(sub.file_sha256),))
        con.execute("DELETE FROM record_problems WHERE path = ?", (entry_path(sub.file_sha256),))
        self._changed(con)
        return Entry(
            id=entry_id,
            created=created,
            model=sub.model,
            link=sub.link,
            params=sub.params,
            note=sub.note,
            file_name=sub.file_name,
            file_sha256=sub.file_sha256,
            n_items=n_items,
            sources=sources,
            report=slim,
            submitter=sub.submitter,
            hidden=hidden,
            answers_extracted=sub.answers_extracted,
            scored_with=report.evaluator.version,
            gold_fingerprint=sub.gold_fingerprint,
            info=sub.info,
            flag=flag,
            private_points=private_points(report.items),
            evaluation=sub.evaluation,
        )

    def renumber(self, entry_id: int) -> int:
        """Give an entry that was never pushed the next free id (its own was given to another
        writer's entry in the record meanwhile); the new id. Its items, content key and quota
        attempt follow it, in one transaction."""
        with self._write() as con:
            row = con.execute(
                "SELECT pushed_version, record_identity FROM submissions WHERE id = ?", (entry_id,)
            ).fetchone()
            if row is None:
                raise KeyError(entry_id)
            if row[0] or row[1] is not None:
                raise IdTakenError(f"entry #{entry_id} is in the record already")
            new_id = self._next_id(con)
            con.execute("PRAGMA defer_foreign_keys = ON")  # parent and children move together
            con.execute(
                "UPDATE submissions SET id = ?, version = version + 1 WHERE id = ?",
                (new_id, entry_id),
            )
            for table, column in (
                ("entry_items", "submission_id"),
                ("content_keys", "submission_id"),
                ("attempts", "entry_id"),
            ):
                con.execute(
                    f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (new_id, entry_id)
                )
            self._changed(con)
        return new_id

    def _get(self, con: sqlite3.Connection, entry_id: int) -> Entry:
        row = con.execute(
            f"SELECT {schema.ENTRY_COLUMNS} FROM submissions WHERE id = ?", (entry_id,)
        ).fetchone()
        return _entry(row)

    def get(self, entry_id: int) -> Entry | None:
        """The entry with this id (hidden or not), or None."""
        if not 1 <= entry_id <= MAX_ENTRY_ID:
            return None
        with self._connect() as con:
            row = con.execute(
                f"SELECT {schema.ENTRY_COLUMNS} FROM submissions WHERE id = ?", (entry_id,)
            ).fetchone()
        return _entry(row) if row else None

    def find_by_hash(self, file_sha256: str) -> Entry | None:
        """The entry stored from a file with this sha256 (hidden or not), or None."""
        with self._connect() as con:
            row = con.execute(
                f"SELECT {schema.ENTRY_COLUMNS} FROM submissions WHERE file_sha256 = ?",
                (file_sha256,),
            ).fetchone()
        return _entry(row) if row else None

    def entries(
        self, *, include_hidden: bool = False, ids: Sequence[int] | None = None
    ) -> list[Entry]:
        """Stored entries, oldest first; hidden ones only when asked (operator tools); only
        those with `ids` when given."""
        sql = f"SELECT {schema.ENTRY_COLUMNS} FROM submissions WHERE 1"
        if not include_hidden:
            sql += " AND hidden = 0"
        with self._connect() as con:
            if ids is None:
                rows = con.execute(sql + " ORDER BY id").fetchall()
            else:
                wanted = sorted(set(ids))
                rows = []
                for start in range(0, len(wanted), 500):  # under SQLite's parameter limit
                    chunk = wanted[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    rows += con.execute(f"{sql} AND id IN ({marks}) ORDER BY id", chunk).fetchall()
        return [_entry(r) for r in rows]

    def entry_versions(self) -> dict[int, tuple[int, str]]:
        """(version, file hash) of every shown entry by id, read without decoding a report:
        a reader keeps its decoded entries across writes and decodes only rows whose pair
        changed (every change to a row bumps its version; a new row has a new id or hash)."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT id, version, file_sha256 FROM submissions WHERE hidden = 0 ORDER BY id"
            ).fetchall()
        return {int(i): (int(v), sha) for i, v, sha in rows}

    def count(self) -> int:
        with self._connect() as con:
            return int(con.execute("SELECT COUNT(*) FROM submissions").fetchone()[0])

    def data_version(self) -> int:
        """A counter bumped by every write that changes what the board shows (in any process):
        readers rebuild their snapshot when it moves. Asked on every read, so each thread
        keeps its connection (autocommit: every query sees the latest commit of any process)."""
        con = getattr(self._readers, "con", None)
        if con is None:
            con = self._readers.con = sqlite3.connect(
                self.path, timeout=self.busy_timeout, isolation_level=None
            )
        row = con.execute("SELECT value FROM meta WHERE key = 'changes'").fetchone()
        return int(row[0]) if row else 0

    def item_scores(self, entry_id: int, *, public_only: bool = True) -> dict[str, ItemResult]:
        """Per-item results of an entry by item id (public sources only unless asked).

        Each carries its breakdown groups, so Compare needs no gold to group them.
        """
        with self._connect() as con:
            row = con.execute(
                "SELECT data FROM entry_items WHERE submission_id = ?", (entry_id,)
            ).fetchone()
        if row is None:
            return {}
        items = compact.decode_items(row[0], self._keys_of)
        return {it.id: it for it in items if not public_only or it.source in PUBLIC_SOURCES}

    def predictions(self, entry_id: int) -> list[PredictionRow] | None:
        """The kept prediction rows of an entry (None for entries stored before they were kept)."""
        with self._connect() as con:
            row = con.execute(
                "SELECT predictions FROM submissions WHERE id = ?", (entry_id,)
            ).fetchone()
        if not row or row[0] is None:
            return None
        return compact.decode_predictions(row[0], self._keys_of)

    def integrity_ok(self) -> bool:
        """SQLite's own integrity check plus: every entry has its items, and no item blob is
        without an entry."""
        with self._connect() as con:
            ok = con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            orphans = con.execute(
                "SELECT COUNT(*) FROM entry_items WHERE submission_id NOT IN"
                " (SELECT id FROM submissions)"
            ).fetchone()[0]
            bare = con.execute(
                "SELECT COUNT(*) FROM submissions WHERE id NOT IN"
                " (SELECT submission_id FROM entry_items)"
            ).fetchone()[0]
        return ok and orphans == 0 and bare == 0

    # -- changes -------------------------------------------------------------------------

    def set_flag(self, entry_id: int, flag: str) -> bool:
        """Set (or, with "", clear) the operator's public note on an entry; False if none."""
        with self._write() as con:
            cur = con.execute(
                "UPDATE submissions SET flag = ?, version = version + 1 WHERE id = ?",
                (flag, entry_id),
            )
            self._changed(con)
        return cur.rowcount == 1

    def set_hidden(self, entry_id: int, hidden: bool) -> bool:
        """Hide or show an entry; False if there is no such entry."""
        with self._write() as con:
            cur = con.execute(
                "UPDATE submissions SET hidden = ?, version = version + 1 WHERE id = ?",
                (int(hidden), entry_id),
            )
            self._changed(con)
        return cur.rowcount == 1

    def delete(self, entry_id: int, *, in_record: bool = True) -> Entry | None:
        """Remove an entry; the entry. Its removal from the record waits in the outbox, unless
        `in_record` is False (the record no longer holds it: removed elsewhere)."""
        entry = self.get(entry_id)
        if entry is None:
            return None
        with self._write() as con:
            con.execute("DELETE FROM submissions WHERE id = ?", (entry_id,))
            if in_record:
                con.execute(
                    "INSERT OR IGNORE INTO hub_deletes (path) VALUES (?)",
                    (entry_path(entry.file_sha256),),
                )
            self._changed(con)
        return entry

    def replace_scores(
        self, entry_id: int, report: Report, gold_fingerprint: str, *, pushed: bool = False
    ) -> None:
        """Store a re-scored report, its items, version and gold fingerprint in one
        transaction (it waits in the outbox, unless `pushed`: its record already holds it)."""
        slim, sources, n_items = _scores_of(report)
        with self._write() as con:
            cur = con.execute(
                "UPDATE submissions SET n_items = ?, sources = ?, report = ?,"
                " evaluator_version = ?, gold_fingerprint = ?, version = version + 1"
                " WHERE id = ?",
                (
                    n_items,
                    ",".join(sources),
                    schema.pack_report(slim),
                    report.evaluator.version,
                    gold_fingerprint,
                    entry_id,
                ),
            )
            if cur.rowcount != 1:
                raise KeyError(entry_id)
            if pushed:
                con.execute(
                    "UPDATE submissions SET pushed_version = version WHERE id = ?", (entry_id,)
                )
            self._store_items(con, entry_id, report.items, None)
            self._changed(con)

    def replace_from_record(
        self,
        entry_id: int,
        sub: Submission,
        report: Report,
        *,
        created: str,
        hidden: bool,
        record_identity: str,
        flag: str = "",
    ) -> Entry:
        """An entry whose record file was changed elsewhere (`respondeoqa-space admin`, another process)
        replaced by the record's version in one transaction: same id, nothing to push."""
        with self._write() as con:
            con.execute("DELETE FROM submissions WHERE id = ?", (entry_id,))
            return self._insert(
                con,
                sub,
                report,
                entry_id=entry_id,
                created=created,
                hidden=hidden,
                record_identity=record_identity,
                reservation=None,
                content_key=quota.content_key_of_rows(sub.rows or ()),
                flag=flag,
            )

    def audit(self, actor: str, action: str, entry_id: int | None, detail: str = "") -> None:
        """Append one operator (or submitter) action to the audit log."""
        with self._write() as con:
            con.execute(
                "INSERT INTO audit (ts, actor, action, entry_id, detail) VALUES (?, ?, ?, ?, ?)",
                (_now(), actor, action, entry_id, detail),
            )

    def audit_log(self) -> list[tuple[str, str, str, int | None, str]]:
        """Every audited action, oldest first: (time, actor, action, entry id, detail)."""
        with self._connect() as con:
            return [tuple(r) for r in con.execute("SELECT * FROM audit ORDER BY rowid")]

    # -- quotas ------------------------------------------------------------------------

    def reserve(self, key: str, limits: quota.QuotaLimits, now: float | None = None) -> Reservation:
        """Count one submission attempt of a quota key before scoring, in the transaction that
        checks its daily limits (RateLimitError when reached). Pass the reservation to `add`, or
        to `release` when nothing is stored."""
        with self._write() as con:
            return quota.reserve(con, key, limits, time.time() if now is None else now)

    def release(self, reservation: Reservation) -> None:
        """The reservation stored nothing: it stays a counted attempt, not a stored entry."""
        with self._write() as con:
            quota.release(con, reservation)

    def duplicate_of(self, file_sha256: str, content_key: str = "") -> Entry | None:
        """The stored entry with these bytes or this content key (hidden or not), or None."""
        with self._connect() as con:
            row = con.execute(
                f"SELECT {schema.ENTRY_COLUMNS} FROM submissions WHERE file_sha256 = ?",
                (file_sha256,),
            ).fetchone()
            if row is not None:
                return _entry(row)
            same = quota.entry_with_content(con, content_key) if content_key else None
            return None if same is None else self._get(con, same)

    def stored_by(self, entry_id: int, key: str) -> bool:
        """Whether quota key `key` stored entry `entry_id` itself (so a resend is a retry)."""
        with self._connect() as con:
            return quota.stored_by(con, entry_id, key)

    def count_attempts(self, client: str, since: float, *, ok_only: bool = False) -> int:
        """Attempts (or stored submissions, `ok_only`) of a client since a UNIX time."""
        sql = "SELECT COUNT(*) FROM attempts WHERE client = ? AND ts >= ?"
        if ok_only:
            sql += " AND ok = 1"
        with self._connect() as con:
            return int(con.execute(sql, (client, since)).fetchone()[0])

    # -- the record's bookkeeping ---------------------------------------------------------

    def pending_pushes(self) -> list[tuple[int, int]]:
        """(entry id, version) of every entry whose current version is not in the Hub repo."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT id, version FROM submissions WHERE version != pushed_version ORDER BY id"
            ).fetchall()
        return [(int(a), int(b)) for a, b in rows]

    def pending_deletes(self) -> list[str]:
        with self._connect() as con:
            return [r[0] for r in con.execute("SELECT path FROM hub_deletes ORDER BY path")]

    def mark_pushed(
        self,
        versions: Sequence[tuple[int, int]],
        deleted: Sequence[str],
        identities: dict[int, str] | None = None,
    ) -> None:
        """Record a successful push; an entry changed since keeps waiting (its version moved).
        `identities`: the pushed entries' record file identities, when known."""
        with self._write() as con:
            con.executemany(
                "UPDATE submissions SET pushed_version = ? WHERE id = ? AND version = ?",
                ((v, i, v) for i, v in versions),
            )
            con.executemany(
                "UPDATE submissions SET record_identity = ? WHERE id = ?",
                ((identity, i) for i, identity in (identities or {}).items()),
            )
            con.executemany("DELETE FROM hub_deletes WHERE path = ?", ((p,) for p in deleted))

    def synced(self) -> dict[str, SyncedEntry]:
        """Every entry by its record path, with what a read or push needs to know of it."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT id, file_sha256, record_identity, version != pushed_version,"
                " pushed_version > 0 FROM submissions"
            ).fetchall()
        return {
            entry_path(sha): SyncedEntry(int(i), ident, bool(dirty), bool(pushed))
            for i, sha, ident, dirty, pushed in rows
        }

    def mark_all_changed(self) -> None:
        """Every entry waits to be pushed again (re-pushed into a record made anew)."""
        with self._write() as con:
            con.execute("UPDATE submissions SET version = version + 1")
            self._changed(con)

    def mark_changed(self, entry_id: int) -> None:
        """The entry changed here (re-scored on import): the record gets it at the next push."""
        with self._write() as con:
            con.execute("UPDATE submissions SET version = version + 1 WHERE id = ?", (entry_id,))
            self._changed(con)

    def export_record(self, entry_id: int) -> dict[str, Any] | None:
        """The entry as the dict of its record file (`record.to_record`), None if it is gone."""
        entry = self.get(entry_id)
        if entry is None:
            return None
        items = tuple(self.item_scores(entry_id, public_only=False).values())
        full = replace(entry.report, items=items)
        return record.to_record(entry, full, self.predictions(entry_id))

    def set_record_problems(self, problems: Sequence[RecordProblem]) -> None:
        """The record files that could not be read at the last full read (replacing the list)."""
        with self._write() as con:
            con.execute("DELETE FROM record_problems")
            con.executemany(
                "INSERT INTO record_problems (path, identity, entry_id, reason, seen)"
                " VALUES (?, ?, ?, ?, ?)",
                ((p.path, p.identity, p.entry_id, p.reason, p.seen) for p in problems),
            )

    def record_problem(self, path: str) -> RecordProblem | None:
        """The unreadable record file at `path`, if there is one."""
        with self._connect() as con:
            row = con.execute(
                "SELECT path, identity, entry_id, reason, seen FROM record_problems WHERE path = ?",
                (path,),
            ).fetchone()
        return None if row is None else RecordProblem(*row)

    def record_problems(self) -> list[RecordProblem]:
        with self._connect() as con:
            rows = con.execute(
                "SELECT path, identity, entry_id, reason, seen FROM record_problems ORDER BY path"
            ).fetchall()
        return [RecordProblem(*r) for r in rows]
