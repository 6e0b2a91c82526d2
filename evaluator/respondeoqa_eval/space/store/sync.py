"""The record: the local SQLite file is the working copy, a Hub dataset repo the durable record.

- **Read** (`Syncer.read`): the repo's listing against the store, file by file. A new or changed
  record file is downloaded, checked (`record.unpack` / `record.parse`) and verified against its
  kept predictions (the `verify` callback: the Space re-derives every score); an entry whose
  file vanished from the repo is removed. A file that cannot become an entry is skipped and
  named (`RecordProblem`: the log and `space admin list`), never shown and never overwritten;
  the rest is read. A Hub fault (after retries) leaves the read incomplete: `HubUnavailable`.
- **Ready**: nothing is written (no submission, withdrawal or push) until one read has been
  complete; until then the status says why, and the Space says so on its page.
- **Outbox and push** (`Syncer.push`): an accepted entry is committed to SQLite with
  `version != pushed_version` (a deletion as a row of `hub_deletes`) in the same transaction
  that stores it; a push sends everything waiting, with the record's index of given-out ids, in
  ONE commit. A push never replaces a record file this store did not read or write itself: such
  a file belongs to an entry this copy does not hold.
- **Several writers** (the Space, the operator's worker and `space admin`, each with its own
  copy): a read notes the head commit it read, and a push commits on that head only
  (`parent_commit`). When another writer committed meanwhile the Hub refuses (`HeadMoved`): the
  copy reads the record again, and pushes on the new head. An id another writer gave out
  meanwhile is never given twice: a waiting entry that was never pushed and whose id the record
  now gives to another entry moves to the next free id (`Store.renumber`). A push may carry
  other files of the record in the same commit (`push(extra=...)`: a worker finishes its
  request together with the entries it produced).
- **Other parts of the record** (`requests/`): `readers` get the listing and its head after
  every complete read.
- **Loop** (`Syncer.start`): read until the record has been read once (retrying with backoff),
  then push every `push_interval` seconds and read again every `pull_interval` (or at once
  after `request_pull`), so changes made elsewhere (`space admin --repo`, another process)
  appear without a restart; `stop()` pushes once more at shutdown.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ...report.model import Report
from ..metadata import TextLimits
from . import quota, record
from .database import IdTakenError, RecordProblem, Store, SyncedEntry
from .hub import HeadMoved, HubRepo, HubUnavailable, RemoteFile
from .models import DuplicateContentError, DuplicateSubmissionError, Submission
from .record import RecordEntry, RecordError

log = logging.getLogger(__name__)

Verify = Callable[[RecordEntry], tuple[Report, str]]
"""A record entry's checked report (items included) and the gold fingerprint it was scored
against; raises RecordError when it cannot be trusted."""

RecordReader = Callable[[dict[str, RemoteFile], str], None]
"""Reads another part of the record from the listing at a head commit (`requests/`)."""

Extra = Callable[[str], Mapping[str, bytes]]
"""Other files for the push's commit, made for the head it commits on (after any re-read)."""

OFF, READING, READY, UNAVAILABLE = "off", "reading", "ready", "unavailable"
PUSH_TRIES = 5  # reads and pushes again when other writers keep committing in between


@dataclass(frozen=True)
class RecordStatus:
    """Where the record stands, for the page, the log and the write paths."""

    state: str
    detail: str = ""
    problems: int = 0  # record files that could not become entries

    @property
    def writable(self) -> bool:
        return self.state in (OFF, READY)

    def message(self) -> str:
        """One line for visitors ("" when there is nothing to say)."""
        lines = []
        if self.state == READING:
            lines.append(
                "The leaderboard is reading its record from the Hub: entries may be missing "
                "for a moment, and submissions open once it has been read."
            )
        elif self.state == UNAVAILABLE:
            lines.append(
                "The leaderboard's record on the Hub cannot be read right now, so some "
                "entries may be missing and submissions are closed; it is retried every few "
                "minutes."
            )
        if self.problems:
            files = "file" if self.problems == 1 else "files"
            lines.append(
                f"{self.problems} record {files} could not be read and "
                f"{'is' if self.problems == 1 else 'are'} not shown; the operator has been told."
            )
        return " ".join(lines)


@dataclass
class ReadResult:
    added: int = 0
    replaced: int = 0
    removed: int = 0
    problems: list[RecordProblem] = field(default_factory=list)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Syncer:
    """Reads, verifies and pushes the record of one store (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        repo: HubRepo,
        *,
        verify: Verify,
        limits: TextLimits,
        push_interval: float = 300.0,
        pull_interval: float = 60.0,
        retry_first: float = 5.0,
        retry_max: float = 300.0,
        readers: Sequence[RecordReader] = (),
    ) -> None:
        self.store = store
        self.repo = repo
        self.verify = verify
        self.limits = limits
        self.push_interval = push_interval
        self.pull_interval = pull_interval
        self.retry_first = retry_first
        self.retry_max = retry_max
        self._status = RecordStatus(READING)
        self._lock = threading.Lock()  # one read or push at a time (loop, shutdown, admin)
        self._stop = threading.Event()
        self._wake = threading.Event()  # a pull was requested
        self._thread: threading.Thread | None = None
        self._remote_max_id = 0
        self.readers: list[RecordReader] = list(readers)
        self._head: str | None = None  # the commit the last complete read read

    # -- status --------------------------------------------------------------------------

    @property
    def status(self) -> RecordStatus:
        return self._status

    @property
    def ready(self) -> bool:
        return self._status.state == READY

    # -- read ----------------------------------------------------------------------------

    def read(self) -> ReadResult:
        """Bring the store up to the record (see the module docstring); HubUnavailable when the
        Hub fails, after which the store holds what was read so far and nothing is lost."""
        with self._lock:
            return self._read_locked()

    def _read_locked(self) -> ReadResult:
        try:
            result = self._read()
        except HubUnavailable as exc:
            if not self.ready:
                self._status = RecordStatus(UNAVAILABLE, str(exc), self._status.problems)
            raise
        self._status = RecordStatus(READY, "", len(result.problems))
        return result

    def _read(self) -> ReadResult:
        head = self.repo.head()
        tree = self.repo.list_tree(revision=head)
        result = ReadResult()
        if record.INDEX_PATH in tree:
            try:
                blob = self.repo.download(record.INDEX_PATH, max_bytes=4096, revision=head)
                index = record.unpack_index(blob)
                self._remote_max_id = index
                self.store.raise_id_floor(index)
            except (RecordError, HubUnavailable) as exc:
                log.warning("the record's index is unreadable (%s); ids come from its entries", exc)
        local = self.store.synced()
        waiting_deletes = set(self.store.pending_deletes())
        known = {p.path: p for p in self.store.record_problems()}
        for path in sorted(tree):
            remote = tree[path]
            if record.sha_of_path(path) is None or path in waiting_deletes:
                continue
            have = local.get(path)
            if have is not None and (have.identity == remote.identity or have.dirty):
                continue  # unchanged, or changed here and waiting to be pushed (this copy wins)
            earlier = known.get(path)
            if earlier is not None and earlier.identity == remote.identity:
                result.problems.append(earlier)  # the same bytes as last time: same verdict
                continue
            problem = self._read_one(path, remote, have, result, head)
            if problem is not None:
                log.warning("record file %s skipped: %s", path, problem.reason)
                result.problems.append(problem)
        for path, have in local.items():
            if path not in tree and have.identity is not None and not have.dirty:
                self.store.delete(have.id, in_record=False)  # removed elsewhere
                result.removed += 1
        self.store.set_record_problems(result.problems)
        for reader in self.readers:
            reader(tree, head)
        self._head = head
        return result

    def _read_one(
        self,
        path: str,
        remote: RemoteFile,
        have: SyncedEntry | None,
        result: ReadResult,
        head: str,
    ) -> RecordProblem | None:
        """Import or replace one record file; the problem when it cannot become an entry."""

        def problem(reason: str, entry_id: int | None = None) -> RecordProblem:
            return RecordProblem(path, remote.identity, entry_id, reason, _now())

        if remote.size > record.MAX_RECORD_BYTES:
            return problem(f"larger than {record.MAX_RECORD_BYTES // (1024 * 1024)} MB")
        blob = self.repo.download(path, max_bytes=record.MAX_RECORD_BYTES, revision=head)
        data: dict = {}
        try:
            data = record.unpack(blob)
            rec = record.parse(data, path, self.limits)
            report, fingerprint = self.verify(rec)
        except RecordError as exc:
            return problem(str(exc), record.entry_id_of(data))
        sub = Submission(
            model=rec.model,
            file_sha256=rec.file_sha256,
            link=rec.link,
            params=rec.params,
            note=rec.note,
            file_name=rec.file_name,
            submitter=rec.submitter,
            answers_extracted=rec.answers_extracted,
            gold_fingerprint=fingerprint,
            info=rec.info,
            rows=rec.rows,
            evaluation=rec.evaluation,
        )
        rescored = fingerprint != rec.gold_fingerprint or report.evaluator.version != (
            rec.report.evaluator.version
        )
        try:
            if have is not None:
                if have.id != rec.id:
                    return problem(f"names id #{rec.id}, but this entry is #{have.id}", rec.id)
                self.store.replace_from_record(
                    rec.id,
                    sub,
                    report,
                    created=rec.created,
                    hidden=rec.hidden,
                    record_identity=remote.identity,
                    flag=rec.flag,
                )
                result.replaced += 1
            else:
                try:
                    self._add(rec, sub, report, remote.identity)
                except IdTakenError:
                    if not self._give_way(rec.id):
                        raise
                    self._add(rec, sub, report, remote.identity)
                result.added += 1
        except IdTakenError as exc:
            return problem(str(exc), rec.id)
        except DuplicateSubmissionError as exc:
            return problem(f"the same file as entry #{exc.existing.id}", rec.id)
        if rescored:  # scored anew here: the record gets the new scores at the next push
            self.store.mark_changed(rec.id)
        return None

    def _give_way(self, entry_id: int) -> bool:
        """The record gives `entry_id` to another writer's entry: a local entry with that id
        that was never pushed moves to the next free id (True); one in the record stays."""
        try:
            new_id = self.store.renumber(entry_id)
        except (IdTakenError, KeyError):
            return False
        log.warning(
            "entry #%d (not pushed yet) is now #%d: another writer gave #%d out first",
            entry_id,
            new_id,
            entry_id,
        )
        return True

    def _add(self, rec: RecordEntry, sub: Submission, report: Report, identity: str) -> None:
        key = quota.content_key_of_rows(rec.rows)
        kwargs = dict(
            entry_id=rec.id,
            created=rec.created,
            hidden=rec.hidden,
            record_identity=identity,
            flag=rec.flag,
        )
        try:
            self.store.add(sub, report, content_key=key, **kwargs)
        except DuplicateContentError:  # an older record's copy: kept, without the content key
            self.store.add(sub, report, **kwargs)

    # -- push ----------------------------------------------------------------------------

    def push(self, extra: Extra | None = None) -> int:
        """Send every waiting entry and deletion (and the `extra` files) in one commit, on the
        head the last read read; how many entry files changed. When another writer committed
        since, read again and push on the new head. Nothing is pushed before the record has
        been read completely once."""
        with self._lock:
            if not self.ready:
                if extra is not None:
                    raise HubUnavailable("the record has not been read yet")
                return 0
            for _ in range(PUSH_TRIES):
                try:
                    return self._push(extra)
                except HeadMoved:
                    log.info("the record changed since it was read: reading it before pushing")
                    self._read_locked()
            raise HubUnavailable(f"the record changed during each of {PUSH_TRIES} pushes")

    def _push(self, extra: Extra | None) -> int:
        versions = self.store.pending_pushes()
        deletes = self.store.pending_deletes()
        max_id = self.store.max_id()
        if not versions and not deletes and max_id <= self._remote_max_id and extra is None:
            return 0
        head = self._head
        tree = self.repo.list_tree(revision=head)
        synced = self.store.synced()
        files: dict[str, bytes] = {}
        pushed: list[tuple[int, int]] = []
        paths: dict[int, str] = {}
        for entry_id, version in versions:
            data = self.store.export_record(entry_id)
            if data is None:  # deleted meanwhile: its deletion is in the outbox
                continue
            path = record.entry_path(data["file_sha256"])
            mine = synced.get(path)
            if path in tree and (mine is None or (mine.identity is None and not mine.pushed)):
                log.error(
                    "not pushed: entry #%d's record file %s exists and was not written by "
                    "this copy; it stays waiting for the operator",
                    entry_id,
                    path,
                )
                continue
            files[path] = record.pack(data)
            pushed.append((entry_id, version))
            paths[entry_id] = path
        if max_id > self._remote_max_id:
            files[record.INDEX_PATH] = record.pack_index(max_id)
        if extra is not None:
            files.update(extra(head or ""))
        to_delete = [p for p in deletes if p in tree and p not in files]
        new_head = head
        if files or to_delete:
            new_head = self.repo.commit(
                files,
                f"leaderboard: {len(pushed)} entries updated, {len(to_delete)} removed",
                delete=to_delete,
                parent_commit=head,
            )
            self._remote_max_id = max(max_id, self._remote_max_id)
            self._head = new_head
        after = self.repo.list_tree(revision=new_head) if paths else {}
        identities = {i: after[p].identity for i, p in paths.items() if p in after}
        self.store.mark_pushed(pushed, deletes, identities)
        return len(pushed) + len(to_delete)

    def safe_push(self) -> int:
        """`push`, with a failure logged (the outbox keeps everything for the next try)."""
        try:
            return self.push()
        except HubUnavailable as exc:
            log.warning("push failed (%s); will retry", exc)
            return 0

    def safe_read(self) -> ReadResult | None:
        try:
            result = self.read()
        except HubUnavailable as exc:
            log.warning("reading the record failed (%s); will retry", exc)
            return None
        if result.added or result.replaced or result.removed:
            log.info(
                "record read: %d entries added, %d replaced, %d removed, %d unreadable files",
                result.added,
                result.replaced,
                result.removed,
                len(result.problems),
            )
        return result

    # -- the loop ------------------------------------------------------------------------

    def request_pull(self) -> None:
        """Read the record again now (an operator changed it)."""
        self._wake.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="record-sync", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        delay = self.retry_first
        while not self._stop.is_set() and not self.ready:
            if self.safe_read() is not None:
                break
            self._stop.wait(delay)
            delay = min(delay * 2, self.retry_max)
        if self._stop.is_set():
            return
        self.safe_push()  # what a previous run left waiting
        next_push = time.monotonic() + self.push_interval
        next_pull = time.monotonic() + self.pull_interval
        while not self._stop.is_set():
            self._wake.wait(max(0.0, min(next_push, next_pull) - time.monotonic()))
            if self._stop.is_set():
                break
            now = time.monotonic()
            if now >= next_push:
                self.safe_push()
                next_push = now + self.push_interval
            if now >= next_pull or self._wake.is_set():
                self._wake.clear()
                self.safe_read()
                next_pull = time.monotonic() + self.pull_interval

    def stop(self) -> None:
        """Stop the loop and push once more (shutdown)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        self.safe_push()
