"""Durable entries: the local SQLite file is the working copy, a Hub dataset repo the record.

- Outbox: an accepted entry is committed to SQLite with `version != pushed_version` (and a
  deletion as a row of `hub_deletes`) in the same transaction that stores it, so a crash right
  after acceptance leaves it waiting, never lost.
- Push: `Syncer.push` sends everything waiting in ONE commit (`entries/<file sha256>.json.gz`);
  the background thread does it every `interval` seconds, and `stop()` once more at shutdown.
- Restore: `Syncer.restore` imports the repo's entries that the store lacks, keyed by file hash,
  so running it at every start-up is idempotent.
"""

from __future__ import annotations

import gzip
import json
import logging
import threading
from pathlib import PurePosixPath

from .hub import HubRepo
from .store import Store, hub_path

log = logging.getLogger(__name__)

ENTRY_PREFIX = "entries/"
ENTRY_SUFFIX = ".json.gz"


def _pack(data: dict) -> bytes:
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return gzip.compress(raw.encode("utf-8"), mtime=0)


def _unpack(blob: bytes) -> dict:
    return json.loads(gzip.decompress(blob))


def _sha_of(path: str) -> str | None:
    """The file hash an `entries/<sha>.json.gz` path is keyed by, or None for other files."""
    name = PurePosixPath(path).name
    if not path.startswith(ENTRY_PREFIX) or not name.endswith(ENTRY_SUFFIX):
        return None
    sha = name[: -len(ENTRY_SUFFIX)]
    return sha if len(sha) == 64 and all(c in "0123456789abcdef" for c in sha) else None


class Syncer:
    """Pushes the store's outbox to a Hub repo in batches and restores from it."""

    def __init__(self, store: Store, repo: HubRepo, *, interval: float = 300.0) -> None:
        self.store = store
        self.repo = repo
        self.interval = interval
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one push at a time (timer thread, shutdown, admin)
        self._thread: threading.Thread | None = None

    def restore(self) -> int:
        """Import every entry of the repo whose file hash the store lacks; how many."""
        waiting_deletes = set(self.store.pending_deletes())
        added = 0
        for path in sorted(self.repo.list_files()):
            sha = _sha_of(path)
            if sha is None or path in waiting_deletes or self.store.find_by_hash(sha):
                continue
            data = _unpack(self.repo.download(path))
            if data.get("file_sha256") != sha:
                log.warning("skipped %s: its content names another file hash", path)
                continue
            if self.store.import_entry(data, pushed=True) is not None:
                added += 1
        return added

    def push(self) -> int:
        """Send every waiting entry and deletion in one commit; how many files changed."""
        with self._lock:
            versions = self.store.pending_pushes()
            deletes = self.store.pending_deletes()
            if not versions and not deletes:
                return 0
            files: dict[str, bytes] = {}
            pushed: list[tuple[int, int]] = []
            for entry_id, version in versions:
                try:
                    data = self.store.export_entry(entry_id)
                except KeyError:  # deleted meanwhile: its deletion is in the outbox
                    continue
                files[hub_path(data["file_sha256"])] = _pack(data)
                pushed.append((entry_id, version))
            present = set(self.repo.list_files()) if deletes else set()
            to_delete = [p for p in deletes if p in present and p not in files]
            if files or to_delete:
                n, d = len(files), len(to_delete)
                self.repo.commit(
                    files, f"leaderboard: {n} entries updated, {d} removed", delete=to_delete
                )
            self.store.mark_pushed(pushed, deletes)
            return len(files) + len(to_delete)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.safe_push()

    def safe_push(self) -> int:
        """`push`, with a failure logged (the outbox keeps everything for the next try)."""
        try:
            return self.push()
        except Exception as exc:
            log.warning("push to %r failed (%s); will retry", self.repo, type(exc).__name__)
            return 0

    def start(self) -> None:
        """Push what a previous run left waiting, then every `interval` seconds."""
        self.safe_push()
        self._thread = threading.Thread(target=self._loop, name="hub-sync", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the timer and push once more (shutdown)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        self.safe_push()
