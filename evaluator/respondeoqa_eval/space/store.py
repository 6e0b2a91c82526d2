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
from ..report import ItemResult, Report

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2  # 2: item_scores.groups (each item's breakdown groups)

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
    groups TEXT NOT NULL DEFAULT '{}',
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
    report: Report = field(repr=False)  # without its items (they live in item_scores)

    kind = "scored"

    @property
    def overall(self) -> float | None:
        return self.report.accuracy.overall.score


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _item(row: Sequence[Any]) -> ItemResult:
    item_id, source, task, score, extracted, missing, groups = row
    groups = json.loads(groups)
    return ItemResult(
        id=item_id,
        question_id=item_id,
        question_language="",
        task=task,
        source=source,
        question_content=groups.get("by_content", ""),
        extracted=extracted,
        score=score,
        missing=bool(missing),
        groups=groups,
    )


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
            columns = {r[1] for r in con.execute("PRAGMA table_info(item_scores)")}
            if "groups" not in columns:  # a version-1 database: its items get no groups
                con.execute("ALTER TABLE item_scores ADD COLUMN groups TEXT NOT NULL DEFAULT '{}'")
            con.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
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

    def add(self, sub: Submission, report: Report, *, entry_id: int | None = None) -> Entry:
        """Store a scored submission and its per-item scores in one transaction.

        Raises DuplicateSubmissionError if a file with the same hash is already stored.
        """
        items = report.items
        slim = report.without_items()
        sources = tuple(sorted(report.gold.sources or {it.source for it in items}))
        created = _now()
        n_items = report.n_items or len(items)
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
                    slim.accuracy.overall.score,
                    n_items,
                    ",".join(sources),
                    slim.to_json(indent=None),
                ),
            )
            new_id = int(cur.lastrowid)
            con.executemany(
                "INSERT INTO item_scores (submission_id, item_id, source, task, score, extracted,"
                " missing, groups) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        new_id,
                        it.id,
                        it.source,
                        it.task,
                        it.score,
                        it.extracted,
                        int(it.missing),
                        json.dumps(dict(it.groups), separators=(",", ":")),
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
            report=Report.from_dict(json.loads(report)),
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

    def item_scores(self, entry_id: int, *, public_only: bool = True) -> dict[str, ItemResult]:
        """Per-item results of an entry by item id (public sources only unless asked).

        Each carries its breakdown groups, so Compare needs no gold to group them.
        """
        sql = "SELECT item_id, source, task, score, extracted, missing, groups FROM item_scores"
        sql += " WHERE submission_id = ?"
        args: list[Any] = [entry_id]
        if public_only:
            sql += f" AND source IN ({','.join('?' * len(PUBLIC_SOURCES))})"
            args.extend(PUBLIC_SOURCES)
        with self._connect() as con:
            rows = con.execute(sql, args).fetchall()
        return {r[0]: _item(r) for r in rows}

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
            "report": entry.report.to_dict(),
            "items": [i.to_dict() for i in items.values()],
        }

    def import_entry(self, data: dict[str, Any]) -> Entry | None:
        """Store an exported entry unless its file hash is already present (then None)."""
        report = Report.from_dict({**data["report"], "items": data.get("items") or []})
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
