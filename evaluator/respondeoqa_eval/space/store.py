"""SQLite storage for leaderboard submissions: metadata, report JSON and per-item scores.

One file, WAL journal, every write in one `BEGIN IMMEDIATE` transaction: a crash or a concurrent
writer (thread or process) never leaves a half-stored entry, and the UNIQUE file hash makes the
second of two identical files fail inside the same transaction that would have stored it.

Each entry keeps what is needed to score it again: its predictions, the evaluator version and
the fingerprint of the gold it was scored against. An entry's items and predictions are compact
blobs (`compact.py`) that refer to an item set shared by every entry of the same coverage
(`item_sets`: ids, sources, tasks, groups), and its report is zlib-compressed JSON: about 35 KB
for a full-size entry.
`version`/`pushed_version` make the table its own outbox: a row whose version was not pushed yet
is pushed by `sync.Syncer`, so a crash between acceptance and push loses nothing. Deletions wait
in `hub_deletes` the same way; operator actions go to `audit`.

Private per-item rows (Certamen, NLE) stay in this file and in the (private) Hub dataset repo;
the UI modules only ever read public items.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import InputError
from ..predictions import Predictions
from ..records import PUBLIC_SOURCES
from ..report import ItemResult, Report
from . import compact, quota
from .quota import Reservation

log = logging.getLogger(__name__)

SCHEMA_VERSION = 4
# 2: item_scores.groups; 3: kept predictions, entry_items blobs, outbox, audit;
# 4: shared item sets, compact item and prediction blobs, compressed reports

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    model TEXT NOT NULL,
    link TEXT NOT NULL DEFAULT '',
    params TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    file_name TEXT NOT NULL DEFAULT '',
    file_sha256 TEXT NOT NULL UNIQUE,
    client TEXT NOT NULL DEFAULT '',
    overall REAL,
    n_items INTEGER NOT NULL,
    sources TEXT NOT NULL,
    report TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entry_items (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS item_sets (
    number INTEGER PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS hub_deletes (path TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS audit (
    ts TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    entry_id INTEGER,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS attempts (
    client TEXT NOT NULL,
    ts REAL NOT NULL,
    ok INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_client_ts ON attempts (client, ts);
"""

# columns added to `submissions` after version 2 (name, declaration)
_NEW_COLUMNS = (
    ("submitter", "TEXT NOT NULL DEFAULT ''"),  # Hugging Face username; the only personal datum
    ("hidden", "INTEGER NOT NULL DEFAULT 0"),
    ("answers_extracted", "INTEGER NOT NULL DEFAULT 0"),  # rows gave `answer`, not `response`
    ("evaluator_version", "TEXT NOT NULL DEFAULT ''"),
    ("gold_fingerprint", "TEXT NOT NULL DEFAULT ''"),
    ("predictions", "BLOB"),  # compact.encode_predictions; NULL for entries stored before v3
    ("version", "INTEGER NOT NULL DEFAULT 1"),  # bumped by every change to the entry
    ("pushed_version", "INTEGER NOT NULL DEFAULT 0"),  # the version the Hub repo holds
)
_ENTRY_COLUMNS = (
    "id, created, model, link, params, note, file_name, file_sha256, n_items, sources, report,"
    " submitter, hidden, answers_extracted, evaluator_version, gold_fingerprint"
)
_ITEM_FIELDS = ("id", "source", "task", "score", "extracted", "missing", "groups")


def prediction_rows(preds: Predictions) -> list[dict[str, str]]:
    """Predictions as rows {id, response} or {id, answer}, in the order they were read."""
    return [
        {"id": i, ("answer" if p.extracted else "response"): p.text} for i, p in preds.by_id.items()
    ]


def encode_predictions(preds: Predictions) -> bytes:
    """Predictions as canonical JSONL (sorted by id; `response` or `answer`), zlib-compressed:
    the portable form (a `Submission`, the Hub record); the store keeps a compact one."""
    return encode_prediction_rows(prediction_rows(preds))


def encode_prediction_rows(rows: Sequence[dict[str, str]]) -> bytes:
    """Prediction rows ({id, response} or {id, answer}) as zlib'd canonical JSONL."""
    lines = [
        json.dumps(r, ensure_ascii=False, separators=(",", ":"))
        for r in sorted(rows, key=lambda r: r["id"])
    ]
    return zlib.compress("\n".join(lines).encode("utf-8"), 9)


def decode_predictions(blob: bytes) -> list[dict[str, str]]:
    """The rows of `encode_predictions` (load them with `load_predictions(rows, gold)`)."""
    text = zlib.decompress(blob).decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def _pack_report(report: Report) -> bytes:
    return zlib.compress(report.to_json(indent=None).encode("utf-8"), 9)


def _unpack_report(value: bytes | str) -> Report:
    # reports stored before schema 4 are plain JSON text
    text = zlib.decompress(value).decode("utf-8") if isinstance(value, bytes) else value
    return Report.from_dict(json.loads(text))


def hub_path(file_sha256: str) -> str:
    """Where an entry lives in the Hub dataset repo: keyed by its file hash (idempotent)."""
    return f"entries/{file_sha256}.json.gz"


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of a submitted file's bytes (the duplicate key)."""
    return hashlib.sha256(data).hexdigest()


def client_key(address: str) -> str:
    """What the store keeps of a client address: a short hash, never the address itself."""
    return hashlib.sha256(f"respondeoqa-space:{address}".encode()).hexdigest()[:24]


class DuplicateSubmissionError(InputError):
    """The same file was already stored; `existing` is the first entry."""

    def __init__(self, existing: Entry) -> None:
        self.existing = existing
        super().__init__(
            f"this file is identical to entry #{existing.id} ({existing.model}, submitted "
            f"{existing.created[:10]}); it was not stored again"
        )


class DuplicateContentError(DuplicateSubmissionError):
    """Predictions with the same content (`quota.content_key`) were already stored."""

    def __init__(self, existing: Entry) -> None:
        self.existing = existing
        InputError.__init__(
            self,
            f"these predictions are the same as entry #{existing.id} ({existing.model}, "
            f"submitted {existing.created[:10]}): every item has the same answer (row order, "
            "file format and spaces around values aside); they were not stored again",
        )


@dataclass(frozen=True)
class Submission:
    """What a submitter provides besides the file (and what scoring learned about the file)."""

    model: str
    file_sha256: str
    link: str = ""
    params: str = ""
    note: str = ""
    file_name: str = ""
    client: str = ""
    submitter: str = ""  # Hugging Face username when logged in
    predictions: bytes | None = None  # encode_predictions(...)
    answers_extracted: bool = False
    gold_fingerprint: str = ""
    rows: tuple[dict[str, str], ...] | None = field(default=None, repr=False)
    """The kept prediction rows themselves (instead of `predictions`: nothing to decode)."""

    @classmethod
    def of(cls, preds: Predictions, **fields: Any) -> Submission:
        """A submission of `preds`: their kept rows and whether they gave extracted answers
        rather than raw responses; `fields` are the rest."""
        return cls(
            rows=tuple(prediction_rows(preds)),
            answers_extracted=any(p.extracted for p in preds.by_id.values()),
            **fields,
        )

    def prediction_rows(self) -> list[dict[str, str]] | None:
        """The kept prediction rows ({id, response} or {id, answer}); None when none are kept."""
        if self.rows is not None:
            return list(self.rows)
        return None if self.predictions is None else decode_predictions(self.predictions)


@dataclass(frozen=True)
class Entry:
    """A stored submission; `report` is the report without its `items`."""

    id: int
    created: str
    model: str
    link: str
    params: str
    note: str
    file_name: str
    file_sha256: str
    n_items: int
    sources: tuple[str, ...]
    report: Report = field(repr=False)  # without its items (they live in entry_items)
    submitter: str = ""
    hidden: bool = False
    answers_extracted: bool = False  # the rows gave extracted answers, not raw responses
    scored_with: str = ""  # evaluator version that produced the scores
    gold_fingerprint: str = ""

    kind = "scored"

    @property
    def overall(self) -> float | None:
        return self.report.accuracy.overall.score

    @property
    def stale(self) -> bool:
        """Scored by another evaluator version than the running one (until `admin rescore`)."""
        return self.scored_with != __version__


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _item(row: Sequence[Any]) -> ItemResult:
    """An item row of a schema 1-3 database."""
    item_id, source, task, score, extracted, missing, groups = row
    groups = json.loads(groups) if isinstance(groups, str) else groups
    return compact.item_result(item_id, source, task, groups, score, extracted, bool(missing))


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
        report=_unpack_report(report),
        submitter=submitter,
        hidden=bool(hidden),
        answers_extracted=bool(answers_extracted),
        scored_with=evaluator_version,
        gold_fingerprint=gold_fingerprint,
    )


def _scores_of(report: Report) -> tuple[Any, ...]:
    """The columns of `submissions` that scoring determines (overall .. gold sources)."""
    slim = report.without_items()
    sources = tuple(sorted(report.gold.sources or {it.source for it in report.items}))
    n_items = report.n_items or len(report.items)
    return slim, sources, n_items


class Store:
    """The leaderboard database (one SQLite file; safe across threads and processes)."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 60.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout = busy_timeout
        with self._connect() as con:
            # WAL: readers never block the single writer, and a crash mid-transaction is rolled
            # back from the journal on the next open (set outside a transaction)
            con.execute("PRAGMA journal_mode=WAL")
        self._sets: dict[int, list[compact.ItemKey]] = {}  # committed item sets (never change)
        self._sets_lock = threading.Lock()
        self._readers = threading.local()  # one kept connection per thread for data_version
        with self._write() as con:
            row = None
            if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
                row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            found = int(row[0]) if row else SCHEMA_VERSION
            for stmt in filter(str.strip, _SCHEMA.split(";")):
                con.execute(stmt)
            self._migrate(con, found)
            quota.migrate(con)
            con.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )

    def _migrate(self, con: sqlite3.Connection, found: int) -> None:
        """Bring a database of schema `found` (1 to 3) to the current one, inside the open
        transaction."""
        columns = {r[1] for r in con.execute("PRAGMA table_info(submissions)")}
        for name, decl in _NEW_COLUMNS:
            if name not in columns:
                con.execute(f"ALTER TABLE submissions ADD COLUMN {name} {decl}")
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        by_entry: dict[int, list[ItemResult]] = {}
        if "item_scores" in tables:  # versions 1-2: one row per item
            item_cols = {r[1] for r in con.execute("PRAGMA table_info(item_scores)")}
            groups = "groups" if "groups" in item_cols else "'{}'"
            for row in con.execute(
                "SELECT submission_id, item_id, source, task, score, extracted, missing,"
                f" {groups} FROM item_scores ORDER BY submission_id, item_id"
            ):
                by_entry.setdefault(int(row[0]), []).append(_item(row[1:]))
            con.execute("DROP TABLE item_scores")
        elif found < 4:  # version 3: one blob of columns (ids included) per entry
            for sid, blob in con.execute("SELECT submission_id, data FROM entry_items").fetchall():
                cols = json.loads(zlib.decompress(blob))
                fields = ("id", "source", "task", "score", "extracted", "missing", "groups")
                rows = zip(*(cols[f] for f in fields), strict=True)
                by_entry[int(sid)] = [_item(r) for r in rows]
        for sid, items in by_entry.items():
            con.execute(
                "INSERT OR REPLACE INTO entry_items (submission_id, data) VALUES (?, ?)",
                (sid, self._encode_items(con, items)),
            )
        if found < 4:  # version 3 kept predictions as zlib'd canonical JSONL; reports as text
            for sid, preds, report in con.execute(
                "SELECT id, predictions, report FROM submissions"
            ).fetchall():
                if preds is not None:
                    preds = self._encode_predictions(con, sid, decode_predictions(preds))
                con.execute(
                    "UPDATE submissions SET predictions = ?, report = ? WHERE id = ?",
                    (preds, _pack_report(_unpack_report(report)), sid),
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
        return int(
            con.execute(
                "INSERT INTO item_sets (digest, data) VALUES (?, ?)", (digest, blob())
            ).lastrowid
        )

    def _encode_items(self, con: sqlite3.Connection, items: Sequence[ItemResult]) -> bytes:
        return compact.encode_items(items, self._item_set(con, items))

    def _encode_predictions(
        self, con: sqlite3.Connection, entry_id: int, rows: Sequence[dict[str, str]]
    ) -> bytes:
        """Prediction rows as a compact blob, against the item set of entry `entry_id` (its
        items are stored first)."""
        data = con.execute(
            "SELECT data FROM entry_items WHERE submission_id = ?", (entry_id,)
        ).fetchone()[0]
        number = json.loads(zlib.decompress(data))["set"]
        keys = compact.decode_item_set(
            con.execute("SELECT data FROM item_sets WHERE number = ?", (number,)).fetchone()[0]
        )
        return compact.encode_predictions(rows, keys, number)

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

    @staticmethod
    def _changed(con: sqlite3.Connection) -> None:
        con.execute(
            "INSERT INTO meta (key, value) VALUES ('changes', '1') ON CONFLICT(key)"
            " DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

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

    # -- submissions -------------------------------------------------------------------

    def add(
        self,
        sub: Submission,
        report: Report,
        *,
        entry_id: int | None = None,
        created: str | None = None,
        hidden: bool = False,
        pushed: bool = False,
        reservation: Reservation | None = None,
        content_key: str = "",
    ) -> Entry:
        """Store a scored submission, its per-item scores and its predictions in one transaction.

        With a `reservation` (`reserve`), the same transaction marks its attempt as stored; with
        a `content_key` (`quota.content_key`), predictions already stored under that key raise
        DuplicateContentError.

        Raises DuplicateSubmissionError if a file with the same hash is already stored. The new
        row waits in the outbox (`pending_pushes`) unless `pushed` (it came from the Hub repo).
        """
        slim, sources, n_items = _scores_of(report)
        created = created or _now()
        with self._write() as con:
            row = con.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM submissions WHERE file_sha256 = ?",
                (sub.file_sha256,),
            ).fetchone()
            if row is not None:
                raise DuplicateSubmissionError(_entry(row))
            same = quota.entry_with_content(con, content_key) if content_key else None
            if same is not None:
                raise DuplicateContentError(self._get(con, same))
            if (
                entry_id is not None
                and con.execute("SELECT 1 FROM submissions WHERE id = ?", (entry_id,)).fetchone()
            ):
                entry_id = None
            cur = con.execute(
                "INSERT INTO submissions (id, created, model, link, params, note, file_name,"
                " file_sha256, client, overall, n_items, sources, report, submitter, hidden,"
                " answers_extracted, evaluator_version, gold_fingerprint, predictions, version,"
                " pushed_version)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
                (
                    entry_id,
                    created,
                    sub.model,
                    sub.link,
                    sub.params,
                    sub.note,
                    sub.file_name,
                    sub.file_sha256,
                    sub.client,
                    slim.accuracy.overall.score,
                    n_items,
                    ",".join(sources),
                    _pack_report(slim),
                    sub.submitter,
                    int(hidden),
                    int(sub.answers_extracted),
                    report.evaluator.version,
                    sub.gold_fingerprint,
                    None,  # below, once the item set is in the catalogue
                    1 if pushed else 0,
                ),
            )
            new_id = int(cur.lastrowid)
            if content_key:
                quota.add_content_key(con, content_key, new_id)
            if reservation is not None:
                quota.settle(con, reservation, new_id)
            number = self._item_set(con, report.items)
            con.execute(
                "INSERT INTO entry_items (submission_id, data) VALUES (?, ?)",
                (new_id, compact.encode_items(report.items, number)),
            )
            rows = sub.prediction_rows()
            if rows is not None:
                keys = compact.keys_of_items(report.items)
                con.execute(
                    "UPDATE submissions SET predictions = ? WHERE id = ?",
                    (compact.encode_predictions(rows, keys, number), new_id),
                )
            con.execute("DELETE FROM hub_deletes WHERE path = ?", (hub_path(sub.file_sha256),))
            self._changed(con)
        return Entry(
            id=new_id,
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
        )

    def get(self, entry_id: int) -> Entry | None:
        """The entry with this id (hidden or not), or None."""
        with self._connect() as con:
            row = con.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM submissions WHERE id = ?", (entry_id,)
            ).fetchone()
        return _entry(row) if row else None

    def find_by_hash(self, file_sha256: str) -> Entry | None:
        """The entry stored from a file with this sha256 (hidden or not), or None."""
        with self._connect() as con:
            row = con.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM submissions WHERE file_sha256 = ?", (file_sha256,)
            ).fetchone()
        return _entry(row) if row else None

    def entries(
        self, *, include_hidden: bool = False, ids: Sequence[int] | None = None
    ) -> list[Entry]:
        """Stored entries, oldest first; hidden ones only when asked (operator tools); only
        those with `ids` when given."""
        sql = f"SELECT {_ENTRY_COLUMNS} FROM submissions WHERE 1"
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
        readers rebuild their cache when it moves. Asked on every read, so each thread keeps
        its connection (autocommit: every query sees the latest commit of any process)."""
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

    def predictions(self, entry_id: int) -> list[dict[str, str]] | None:
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

    # -- operator actions --------------------------------------------------------------

    def set_hidden(self, entry_id: int, hidden: bool) -> bool:
        """Hide or show an entry; False if there is no such entry."""
        with self._write() as con:
            cur = con.execute(
                "UPDATE submissions SET hidden = ?, version = version + 1 WHERE id = ?",
                (int(hidden), entry_id),
            )
            self._changed(con)
        return cur.rowcount == 1

    def delete(self, entry_id: int) -> Entry | None:
        """Remove an entry (its removal from the Hub repo waits in the outbox); the entry."""
        entry = self.get(entry_id)
        if entry is None:
            return None
        with self._write() as con:
            con.execute("DELETE FROM submissions WHERE id = ?", (entry_id,))
            con.execute(
                "INSERT OR IGNORE INTO hub_deletes (path) VALUES (?)",
                (hub_path(entry.file_sha256),),
            )
            self._changed(con)
        return entry

    def replace_scores(self, entry_id: int, report: Report, gold_fingerprint: str) -> None:
        """Store a re-scored report, its items, version and gold fingerprint in one transaction."""
        slim, sources, n_items = _scores_of(report)
        with self._write() as con:
            cur = con.execute(
                "UPDATE submissions SET overall = ?, n_items = ?, sources = ?, report = ?,"
                " evaluator_version = ?, gold_fingerprint = ?, version = version + 1"
                " WHERE id = ?",
                (
                    slim.accuracy.overall.score,
                    n_items,
                    ",".join(sources),
                    _pack_report(slim),
                    report.evaluator.version,
                    gold_fingerprint,
                    entry_id,
                ),
            )
            if cur.rowcount != 1:
                raise KeyError(entry_id)
            con.execute(
                "UPDATE entry_items SET data = ? WHERE submission_id = ?",
                (self._encode_items(con, report.items), entry_id),
            )
            self._changed(con)

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

    # -- rate limiting -----------------------------------------------------------------

    def _get(self, con: sqlite3.Connection, entry_id: int) -> Entry:
        row = con.execute(
            f"SELECT {_ENTRY_COLUMNS} FROM submissions WHERE id = ?", (entry_id,)
        ).fetchone()
        return _entry(row)

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
        """The stored entry with these bytes or this content key (hidden or not), or None;
        a DuplicateContentError's `existing` when only the content matches."""
        with self._connect() as con:
            row = con.execute(
                f"SELECT {_ENTRY_COLUMNS} FROM submissions WHERE file_sha256 = ?", (file_sha256,)
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

    # -- outbox (what the Hub repo does not hold yet) -------------------------------------

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

    def mark_pushed(self, versions: Sequence[tuple[int, int]], deleted: Sequence[str]) -> None:
        """Record a successful push; an entry changed since keeps waiting (its version moved)."""
        with self._write() as con:
            con.executemany(
                "UPDATE submissions SET pushed_version = ? WHERE id = ? AND version = ?",
                ((v, i, v) for i, v in versions),
            )
            con.executemany("DELETE FROM hub_deletes WHERE path = ?", ((p,) for p in deleted))

    # -- Hub records -------------------------------------------------------------------

    def export_entry(self, entry_id: int) -> dict[str, Any]:
        """An entry as a JSON-able dict for the (private) Hub repo: everything needed to restore
        and re-score it, private items included."""
        entry = self.get(entry_id)
        if entry is None:
            raise KeyError(entry_id)
        rows = self.predictions(entry_id)
        preds = None if rows is None else encode_prediction_rows(rows)
        items = self.item_scores(entry_id, public_only=False)
        return {
            "id": entry.id,
            "created": entry.created,
            "model": entry.model,
            "link": entry.link,
            "params": entry.params,
            "note": entry.note,
            "file_name": entry.file_name,
            "file_sha256": entry.file_sha256,
            "submitter": entry.submitter,
            "hidden": entry.hidden,
            "answers_extracted": entry.answers_extracted,
            "gold_fingerprint": entry.gold_fingerprint,
            "predictions": base64.b64encode(preds).decode() if preds is not None else None,
            "report": entry.report.to_dict(),
            "items": [i.to_dict() for i in items.values()],
        }

    def import_entry(self, data: dict[str, Any], *, pushed: bool = True) -> Entry | None:
        """Store an exported entry unless its file hash is already present (then None)."""
        report = Report.from_dict({**data["report"], "items": data.get("items") or []})
        preds = data.get("predictions")
        sub = Submission(
            model=str(data["model"]),
            file_sha256=str(data["file_sha256"]),
            link=str(data.get("link", "")),
            params=str(data.get("params", "")),
            note=str(data.get("note", "")),
            file_name=str(data.get("file_name", "")),
            submitter=str(data.get("submitter", "")),
            predictions=base64.b64decode(preds) if preds else None,
            answers_extracted=bool(data.get("answers_extracted")),
            gold_fingerprint=str(data.get("gold_fingerprint", "")),
        )
        try:
            return self.add(
                sub,
                report,
                entry_id=data.get("id"),
                created=data.get("created") or None,
                hidden=bool(data.get("hidden")),
                pushed=pushed,
            )
        except DuplicateSubmissionError:
            return None
