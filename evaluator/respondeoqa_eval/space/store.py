"""SQLite storage for leaderboard submissions: metadata, report JSON and per-item scores.

One file, WAL journal, every write in one `BEGIN IMMEDIATE` transaction: a crash or a concurrent
writer (thread or process) never leaves a half-stored entry, and the UNIQUE file hash makes the
second of two identical files fail inside the same transaction that would have stored it.

Private per-item rows (Certamen, NLE) stay in this file; `export_entry` (the optional Hub mirror)
drops them, and the UI modules only ever read public items.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from ..errors import InputError
from ..records import PUBLIC_SOURCES

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

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
CREATE TABLE IF NOT EXISTS item_scores (
    submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
    item_id TEXT NOT NULL,
    source TEXT NOT NULL,
    task TEXT NOT NULL,
    score REAL,
    extracted TEXT,
    missing INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (submission_id, item_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS attempts (
    client TEXT NOT NULL,
    ts REAL NOT NULL,
    ok INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_client_ts ON attempts (client, ts);
"""


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


@dataclass(frozen=True)
class Submission:
    """What a submitter provides besides the file."""

    model: str
    file_sha256: str
    link: str = ""
    params: str = ""
    note: str = ""
    file_name: str = ""
    client: str = ""


@dataclass(frozen=True)
class ItemScore:
    """One stored per-item result (no gold)."""

    item_id: str
    source: str
    task: str
    score: float | None
    extracted: str | None
    missing: bool


@dataclass(frozen=True)
class Entry:
    """A stored submission; `report` is the report dict without its `items`."""

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
    report: dict[str, Any] = field(repr=False)

    kind = "scored"

    @property
    def overall(self) -> float | None:
        return _overall(self.report)


def _overall(report: dict[str, Any]) -> float | None:
    overall = (report.get("accuracy") or {}).get("overall") or {}
    score = overall.get("score")
    return float(score) if isinstance(score, (int, float)) else None


def _check_report(report: Any) -> list[dict[str, Any]]:
    """Minimal shape check of a report dict (docs/report.md); returns its items."""
    if not isinstance(report, dict) or not isinstance(report.get("accuracy"), dict):
        raise ValueError("report must be a dict with an 'accuracy' object")
    items = report.get("items")
    if not isinstance(items, list):
        raise ValueError("report must carry its 'items' list")
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise ValueError("every report item needs a string 'id'")
    return items


def _sources(report: dict[str, Any], items: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    gold = report.get("gold") or {}
    sources = gold.get("sources") or sorted({str(i.get("source", "")) for i in items} - {""})
    return tuple(sorted(str(s) for s in sources))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


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
        with self._write() as con:
            for stmt in filter(str.strip, _SCHEMA.split(";")):
                con.execute(stmt)
            con.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )

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

    # -- submissions -------------------------------------------------------------------

    def add(self, sub: Submission, report: dict[str, Any], *, entry_id: int | None = None) -> Entry:
        """Store a scored submission and its per-item scores in one transaction.

        Raises DuplicateSubmissionError if a file with the same hash is already stored.
        """
        items = _check_report(report)
        slim = {k: v for k, v in report.items() if k != "items"}
        sources = _sources(report, items)
        created = _now()
        n_items = int(report.get("n_items") or len(items))
        with self._write() as con:
            row = con.execute(
                "SELECT * FROM submissions WHERE file_sha256 = ?", (sub.file_sha256,)
            ).fetchone()
            if row is not None:
                raise DuplicateSubmissionError(self._entry(row))
            if (
                entry_id is not None
                and con.execute("SELECT 1 FROM submissions WHERE id = ?", (entry_id,)).fetchone()
            ):
                entry_id = None
            cur = con.execute(
                "INSERT INTO submissions (id, created, model, link, params, note, file_name,"
                " file_sha256, client, overall, n_items, sources, report)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    _overall(report),
                    n_items,
                    ",".join(sources),
                    json.dumps(slim, ensure_ascii=False, allow_nan=False),
                ),
            )
            new_id = int(cur.lastrowid)
            con.executemany(
                "INSERT INTO item_scores (submission_id, item_id, source, task, score, extracted,"
                " missing) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        new_id,
                        it["id"],
                        str(it.get("source", "")),
                        str(it.get("task", "")),
                        it.get("score"),
                        it.get("extracted"),
                        int(bool(it.get("missing"))),
                    )
                    for it in items
                ),
            )
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
        )

    @staticmethod
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
            _client,
            _overall_,
            n_items,
            sources,
            report,
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
            report=json.loads(report),
        )

    def get(self, entry_id: int) -> Entry | None:
        """The entry with this id, or None."""
        with self._connect() as con:
            row = con.execute("SELECT * FROM submissions WHERE id = ?", (entry_id,)).fetchone()
        return self._entry(row) if row else None

    def find_by_hash(self, file_sha256: str) -> Entry | None:
        """The entry stored from a file with this sha256, or None."""
        with self._connect() as con:
            row = con.execute(
                "SELECT * FROM submissions WHERE file_sha256 = ?", (file_sha256,)
            ).fetchone()
        return self._entry(row) if row else None

    def entries(self) -> list[Entry]:
        """Every stored entry, oldest first."""
        with self._connect() as con:
            rows = con.execute("SELECT * FROM submissions ORDER BY id").fetchall()
        return [self._entry(r) for r in rows]

    def count(self) -> int:
        with self._connect() as con:
            return int(con.execute("SELECT COUNT(*) FROM submissions").fetchone()[0])

    def item_scores(self, entry_id: int, *, public_only: bool = True) -> dict[str, ItemScore]:
        """Per-item results of an entry by item id (public sources only unless asked)."""
        sql = "SELECT item_id, source, task, score, extracted, missing FROM item_scores"
        sql += " WHERE submission_id = ?"
        args: list[Any] = [entry_id]
        if public_only:
            sql += f" AND source IN ({','.join('?' * len(PUBLIC_SOURCES))})"
            args.extend(PUBLIC_SOURCES)
        with self._connect() as con:
            rows = con.execute(sql, args).fetchall()
        return {r[0]: ItemScore(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows}

    def integrity_ok(self) -> bool:
        """SQLite's own integrity check plus: every entry's items reference a stored entry."""
        with self._connect() as con:
            ok = con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            orphans = con.execute(
                "SELECT COUNT(*) FROM item_scores WHERE submission_id NOT IN"
                " (SELECT id FROM submissions)"
            ).fetchone()[0]
        return ok and orphans == 0

    # -- rate limiting -----------------------------------------------------------------

    def record_attempt(self, client: str, ok: bool, ts: float | None = None) -> None:
        """Remember one submission attempt of a client (hashed address)."""
        with self._write() as con:
            con.execute(
                "INSERT INTO attempts (client, ts, ok) VALUES (?, ?, ?)",
                (client, time.time() if ts is None else ts, int(ok)),
            )

    def count_attempts(self, client: str, since: float, *, ok_only: bool = False) -> int:
        """Attempts (or stored submissions, `ok_only`) of a client since a UNIX time."""
        sql = "SELECT COUNT(*) FROM attempts WHERE client = ? AND ts >= ?"
        if ok_only:
            sql += " AND ok = 1"
        with self._connect() as con:
            return int(con.execute(sql, (client, since)).fetchone()[0])

    # -- mirror ------------------------------------------------------------------------

    def export_entry(self, entry_id: int) -> dict[str, Any]:
        """An entry as JSON-able dict for the mirror: metadata, report, PUBLIC items only."""
        entry = self.get(entry_id)
        if entry is None:
            raise KeyError(entry_id)
        items = self.item_scores(entry_id, public_only=True)
        return {
            "id": entry.id,
            "created": entry.created,
            "model": entry.model,
            "link": entry.link,
            "params": entry.params,
            "note": entry.note,
            "file_name": entry.file_name,
            "file_sha256": entry.file_sha256,
            "report": entry.report,
            "items": [
                {
                    "id": i.item_id,
                    "source": i.source,
                    "task": i.task,
                    "score": i.score,
                    "extracted": i.extracted,
                    "missing": i.missing,
                }
                for i in items.values()
            ],
        }

    def import_entry(self, data: dict[str, Any]) -> Entry | None:
        """Store an exported entry unless its file hash is already present (then None)."""
        report = dict(data["report"])
        report["items"] = list(data.get("items") or [])
        sub = Submission(
            model=str(data["model"]),
            file_sha256=str(data["file_sha256"]),
            link=str(data.get("link", "")),
            params=str(data.get("params", "")),
            note=str(data.get("note", "")),
            file_name=str(data.get("file_name", "")),
        )
        try:
            entry = self.add(sub, report, entry_id=data.get("id"))
        except DuplicateSubmissionError:
            return None
        created = data.get("created")
        if created:
            with self._write() as con:
                con.execute("UPDATE submissions SET created = ? WHERE id = ?", (created, entry.id))
        return self.get(entry.id)


class Mirror(Protocol):
    """Where stored entries are copied so that they survive a restart of the Space."""

    def push(self, name: str, data: dict[str, Any]) -> None: ...

    def pull(self) -> list[dict[str, Any]]: ...


class FolderMirror:
    """A mirror in a local folder (one JSON file per entry)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def push(self, name: str, data: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{name}.tmp"
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        tmp.replace(self.folder / name)

    def pull(self) -> list[dict[str, Any]]:
        if not self.folder.is_dir():
            return []
        return [
            json.loads(p.read_text(encoding="utf-8")) for p in sorted(self.folder.glob("*.json"))
        ]


class HubMirror:
    """A mirror in a Hugging Face Hub dataset repository (`entries/*.json`).

    The repository should be private: entries carry public per-item results and metadata only,
    but the operator decides who sees submissions before they are shown.
    """

    def __init__(self, repo_id: str, token: str | None = None) -> None:
        self.repo_id = repo_id
        self.token = token

    def push(self, name: str, data: dict[str, Any]) -> None:
        from huggingface_hub import HfApi

        HfApi(token=self.token).upload_file(
            path_or_fileobj=json.dumps(data, ensure_ascii=False).encode("utf-8"),
            path_in_repo=f"entries/{name}",
            repo_id=self.repo_id,
            repo_type="dataset",
            commit_message=f"leaderboard entry {name}",
        )

    def pull(self) -> list[dict[str, Any]]:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(
            self.repo_id, repo_type="dataset", allow_patterns="entries/*.json", token=self.token
        )
        return FolderMirror(Path(folder) / "entries").pull()


def mirror_name(entry: Entry) -> str:
    return f"{entry.id:06d}-{entry.file_sha256[:16]}.json"


def push_entry(store: Store, mirror: Mirror | None, entry: Entry) -> bool:
    """Copy one entry to the mirror; a failure is logged, never raised (the entry is stored)."""
    if mirror is None:
        return False
    try:
        mirror.push(mirror_name(entry), store.export_entry(entry.id))
    except Exception as exc:  # the mirror is best effort; the local store is the truth
        log.warning("mirror push of entry #%s failed: %s", entry.id, type(exc).__name__)
        return False
    return True


def restore(store: Store, mirror: Mirror | None) -> int:
    """Import the mirror's entries missing from the store; returns how many were added."""
    if mirror is None:
        return 0
    try:
        pulled = mirror.pull()
    except Exception as exc:
        log.warning("mirror restore failed: %s", type(exc).__name__)
        return 0
    added = 0
    for data in sorted(pulled, key=lambda d: int(d.get("id") or 0)):
        if store.import_entry(data) is not None:
            added += 1
    return added
