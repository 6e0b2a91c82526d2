"""The record: the local SQLite file is the working copy, a Hub dataset repo the durable record.

- **Read** (`Syncer.read`): the repo's listing against the store, file by file. A new or changed
  record file is downloaded, checked (`record.unpack` / `record.parse`) and verified against its
  kept predictions (the `verify` callback: the Space re-derives every score); an entry whose
  file vanished from the repo is removed. A file that cannot become an entry is skipped and
  named (`RecordProblem`: the log and `respondeoqa-space admin list`), never shown and never overwritten;
  the rest is read. A Hub fault (after retries) leaves the read incomplete: `HubUnavailable`.
- **Ready**: nothing is written (no submission, withdrawal or push) until one read has been
  complete; until then the status says why, and the Space says so on its page.
- **New entries through the record** (`Syncer.land`, batched by `land_entries`: group commit):
  new entries are committed to the record in ONE commit on the head last read, each given its
  id there (compare-and-swap: when another writer committed first, read again and assign
  again), and only then kept in SQLite; the caller is told "stored" only after both. A record
  that cannot be written (refused, deleted, failing beyond retries) raises `WriteRefused`,
  nothing is kept, and the status says so (`UNWRITABLE`) until a commit lands. A withdrawal
  leaves the record first (`Syncer.withdraw`).
- **Outbox and push** (`Syncer.push`): what changes here on its own (an entry re-scored on
  import, an operator's hide or flag) is committed to SQLite with `version != pushed_version`
  (a deletion as a row of `hub_deletes`); a push sends everything waiting, with the record's
  index of given-out ids, in ONE commit. A push never replaces a record file this store did not
  read or write itself: such a file belongs to an entry this copy does not hold.
- **Only a later state of the same record is applied**: a read whose head's history no longer
  holds the head last read (kept in the store: `HEAD_NOTE`), or whose listing would remove
  more than `MASS_REMOVAL` entries and a quarter of them, is not applied (`RecordDiverged`,
  status `DIVERGED`: writes refused) until the operator chooses `repush` or `accept_record`.
- **Several writers** (the Space, the operator's worker and `respondeoqa-space admin`, each with its own
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
  after `request_pull`), so changes made elsewhere (`respondeoqa-space admin --repo`, another process)
  appear without a restart; `stop()` pushes once more at shutdown.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import TypeVar

from respondeoqa_eval.report import Report

from ..metadata import TextLimits
from . import quota, record
from .database import IdTakenError, RecordProblem, Store, SyncedEntry
from .groupcommit import GroupCommit
from .hub import HeadMoved, HubRepo, HubUnavailable, RemoteFile, plain_reason
from .models import DuplicateContentError, DuplicateSubmissionError, Entry, NewEntry, Submission
from .record import RecordEntry, RecordError

log = logging.getLogger(__name__)
T = TypeVar("T")

Verify = Callable[[RecordEntry], tuple[Report, str]]
"""A record entry's checked report (items included) and the gold fingerprint it was scored
against; raises RecordError when it cannot be trusted."""

RecordReader = Callable[[dict[str, RemoteFile], str], None]
"""Reads another part of the record from the listing at a head commit (`requests/`)."""

Extra = Callable[[str], Mapping[str, bytes]]
"""Other files for the push's commit, made for the head it commits on (after any re-read)."""

OFF, READING, READY, UNAVAILABLE = "off", "reading", "ready", "unavailable"
UNWRITABLE = "unwritable"  # read, but the last commit was refused (403, deleted repo, outage)
DIVERGED = "diverged"  # the record is not the one this copy read: nothing applied, no writes
PUSH_TRIES = 5  # reads and pushes again when other writers keep committing in between
HEAD_NOTE = "record_head"  # the store's note of the last head read (survives a restart)
MASS_REMOVAL = 5  # a read removing more entries than this, and over a quarter, is held


class RecordDiverged(HubUnavailable):
    """The record is not a later state of the one this copy read (its history lost the last
    commit read, or its listing would remove many entries at once): nothing was applied."""


class WriteRefused(HubUnavailable):
    """The record could not be written (refused, or the Hub failed beyond retries): nothing
    was stored. `str()` is one line for the log; `reason` the words for a visitor."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


@dataclass(frozen=True)
class RecordStatus:
    """Where the record stands, for the page, the log and the write paths."""

    state: str
    detail: str = ""
    problems: int = 0  # record files that could not become entries

    @property
    def writable(self) -> bool:
        """Whether a write may be tried (one to an unwritable record is tried, and says so)."""
        return self.state in (OFF, READY, UNWRITABLE)

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
        elif self.state == UNWRITABLE:
            lines.append(
                "The leaderboard cannot write its record on the Hub right now, so new "
                "submissions and withdrawals are not stored (each says so); the entries shown "
                "are safe, and the operator has been told."
            )
        elif self.state == DIVERGED:
            lines.append(
                "The leaderboard's record on the Hub is not the one this Space read (it was "
                "replaced, emptied or rewritten): the Space keeps every entry it holds, shows "
                "them, and takes no submission until the operator decides."
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


class StoredElsewhere(Exception):
    """The record holds the entry, but this disk could not keep it (it is read back later)."""

    def __init__(self, entry_id: int, cause: BaseException) -> None:
        self.entry_id = entry_id
        self.cause = cause
        super().__init__(f"entry #{entry_id}: {cause}")


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
        commit_window: float = 0.0,
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
        self._head: str | None = store.note(HEAD_NOTE)  # the commit the last read read
        self._owners: dict[int, str] = {}  # the index's owner (file hash) of each id
        self._write_error: str | None = None  # why the last commit failed (until one lands)
        self._diverged: str | None = None  # why the record was not applied
        self.land_entries = GroupCommit(self.land, window=commit_window)
        """Store new entries through the record: group commit over `commit_window` seconds."""

    # -- status --------------------------------------------------------------------------

    @property
    def status(self) -> RecordStatus:
        status = self._status
        if self._diverged is not None:
            return RecordStatus(DIVERGED, self._diverged, status.problems)
        if self._write_error is not None and status.state == READY:
            return RecordStatus(UNWRITABLE, self._write_error, status.problems)
        return status

    @property
    def ready(self) -> bool:
        return self._status.state == READY

    # -- read ----------------------------------------------------------------------------

    def read(self) -> ReadResult:
        """Bring the store up to the record (see the module docstring); HubUnavailable when the
        Hub fails, after which the store holds what was read so far and nothing is lost."""
        with self._lock:
            return self._read_locked()

    def _read_locked(self, *, accept: bool = False, keep: bool = False) -> ReadResult:
        try:
            result = self._read(accept=accept, keep=keep)
        except RecordDiverged as exc:
            if self._diverged is None:
                log.error("the record was not applied: %s (respondeoqa-space admin record)", exc)
            self._diverged = str(exc)
            if not self.ready:
                self._status = RecordStatus(READY, "", self._status.problems)
            raise
        except HubUnavailable as exc:
            if not self.ready:
                self._status = RecordStatus(UNAVAILABLE, str(exc), self._status.problems)
            raise
        self._diverged = None
        self._status = RecordStatus(READY, "", len(result.problems))
        return result

    def _check_continues(self, head: str, tree: dict[str, RemoteFile], accept: bool) -> None:
        """RecordDiverged unless the record at `head` is a later state of the one last read:
        its history holds the last head read, and it removes no more than a few entries."""
        if accept:
            return
        last = self._head
        if last is not None and head != last and last not in self.repo.history(head):
            raise RecordDiverged(
                "its history no longer holds the last commit this copy read (the repo was "
                "deleted and made again, force-pushed, or is another repo)"
            )
        local = self.store.synced()
        gone = [p for p, e in local.items() if p not in tree and e.identity and not e.dirty]
        if len(gone) > MASS_REMOVAL and len(gone) * 4 > len(local):
            raise RecordDiverged(f"its listing would remove {len(gone)} of {len(local)} entries")

    def _read(self, *, accept: bool = False, keep: bool = False) -> ReadResult:
        head = self.repo.head()
        tree = self.repo.list_tree(revision=head)
        self._check_continues(head, tree, accept)
        result = ReadResult()
        if record.INDEX_PATH in tree:
            try:
                blob = self.repo.download(
                    record.INDEX_PATH, max_bytes=record.MAX_INDEX_BYTES, revision=head
                )
                index, self._owners = record.unpack_index(blob)
                self._remote_max_id = index
                self.store.raise_id_floor(index)
            except (RecordError, HubUnavailable) as exc:
                log.warning("the record's index is unreadable (%s); ids come from its entries", exc)
        local = self.store.synced()
        waiting_deletes = set(self.store.pending_deletes())
        known = {p.path: p for p in self.store.record_problems()}
        # the files the index names as their id's owner first: of two files claiming one id,
        # the one the commit that gave the id out wrote keeps it, whatever the file names
        owned = {record.entry_path(sha) for sha in self._owners.values()}
        for path in sorted(tree, key=lambda p: (p not in owned, p)):
            remote = tree[path]
            if record.sha_of_path(path) is None or path in waiting_deletes:
                continue
            have = local.get(path)
            if have is not None and have.dirty and have.identity is None and not have.pushed:
                self._reconcile(path, remote, have, head)
                continue
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
            if keep:
                break
            if path not in tree and have.identity is not None and not have.dirty:
                self.store.delete(have.id, in_record=False)  # removed elsewhere
                result.removed += 1
        self.store.set_record_problems(result.problems)
        for reader in self.readers:
            reader(tree, head)
        self._set_head(head)
        return result

    def _set_head(self, head: str | None) -> None:
        if head != self._head:
            self.store.set_note(HEAD_NOTE, head)
        self._head = head

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
                    if not (self._give_way(rec.id) or self._owner_takes(rec, result)):
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

    def _reconcile(self, path: str, remote: RemoteFile, have: SyncedEntry, head: str) -> None:
        """An entry this copy never saw pushed whose file the record holds (a kill right after
        its commit landed): when the record's file gives it the same id, it is that entry,
        pushed; it does not wait for ever."""
        try:
            blob = self.repo.download(path, max_bytes=record.MAX_RECORD_BYTES, revision=head)
            claimed = record.entry_id_of(record.unpack(blob))
        except RecordError:
            return
        if claimed != have.id:
            return  # another writer's entry of the same file: the push names it
        version = dict(self.store.pending_pushes()).get(have.id)
        if version is not None:
            self.store.mark_pushed([(have.id, version)], [], {have.id: remote.identity})
            log.info("entry #%d: the record already holds it (reconciled)", have.id)

    def _owner_takes(self, rec: RecordEntry, result: ReadResult) -> bool:
        """The index gives `rec.id` to this file, but this copy holds another record file's
        entry under it (read before the owner): that entry leaves this copy and is named as a
        problem; the owner takes the id (True)."""
        if self._owners.get(rec.id) != rec.file_sha256:
            return False
        holder = self.store.get(rec.id)
        if holder is None or holder.file_sha256 == rec.file_sha256:
            return False
        path = record.entry_path(holder.file_sha256)
        self.store.delete(holder.id, in_record=False)
        reason = (
            f"names id #{rec.id}, which the record gave to {record.entry_path(rec.file_sha256)}"
        )
        log.warning("record file %s skipped: %s", path, reason)
        result.problems.append(RecordProblem(path, "", rec.id, reason, _now()))
        return True

    def _add(self, rec: RecordEntry, sub: Submission, report: Report, identity: str) -> None:
        key = quota.content_key_of_rows(rec.rows)
        add = partial(
            self.store.add,
            sub,
            report,
            entry_id=rec.id,
            created=rec.created,
            hidden=rec.hidden,
            record_identity=identity,
            flag=rec.flag,
        )
        try:
            add(content_key=key)
        except DuplicateContentError:  # an older record's copy: kept, without the content key
            add()

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
        owners = self._owners | {
            i: record.sha_of_path(p) or "" for i, p in paths.items() if i not in self._owners
        }
        if max_id > self._remote_max_id or owners != self._owners:
            files[record.INDEX_PATH] = record.pack_index(max_id, owners)
        if extra is not None:
            files.update(extra(head or ""))
        to_delete = [p for p in deletes if p in tree and p not in files]
        new_head = head
        if files or to_delete:
            new_head = self._commit(
                files,
                f"leaderboard: {len(pushed)} entries updated, {len(to_delete)} removed",
                delete=to_delete,
            )
            self._remote_max_id = max(max_id, self._remote_max_id)
            self._owners = owners
        after = self.repo.list_tree(revision=new_head) if paths else {}
        identities = {i: after[p].identity for i, p in paths.items() if p in after}
        self.store.mark_pushed(pushed, deletes, identities)
        return len(pushed) + len(to_delete)

    # -- writes through the record -----------------------------------------------------

    def _commit(self, files: Mapping[str, bytes], message: str, delete: Sequence[str] = ()) -> str:
        """One commit on the head last read (HeadMoved when another writer committed since);
        WriteRefused, and the status says so, when the Hub refuses or fails."""
        if self._diverged is not None:
            raise WriteRefused(
                f"the record was not applied ({self._diverged})",
                "the record on the Hub is not the one this Space read; the operator decides",
            )
        try:
            new_head = self.repo.commit(files, message, delete=delete, parent_commit=self._head)
        except HeadMoved:
            raise
        except HubUnavailable as exc:
            self._write_error = str(exc)
            log.error("the record cannot be written: %s", exc)
            raise WriteRefused(str(exc), plain_reason(exc)) from None
        if self._write_error is not None:
            log.info("the record can be written again")
        self._write_error = None
        self._set_head(new_head)
        return new_head

    def _through_record(self, attempt: Callable[[], T]) -> T:
        """`attempt()` under the lock, read again and retried when another writer committed
        first (so what it commits is decided on the head it lands on)."""
        with self._lock:
            if not self.ready:
                raise WriteRefused(
                    "the record has not been read yet", "the record has not been read yet"
                )
            for _ in range(PUSH_TRIES):
                try:
                    return attempt()
                except HeadMoved:
                    log.info("the record changed since it was read: reading it again")
                    self._read_locked()
            raise WriteRefused(f"the record changed during each of {PUSH_TRIES} commits")

    def land(self, new: Sequence[NewEntry]) -> list[Entry | BaseException]:
        """Store new entries in ONE commit of the record, then in the store: each gets its id
        from the head the commit lands on (compare-and-swap), so an id is told only once the
        record holds it, and never changes. Per entry, its Entry or the refusal (a duplicate
        of an entry stored meanwhile); WriteRefused for all when the record cannot be written,
        and then nothing is stored."""
        return self._through_record(lambda: self._land(new))

    def _land(self, new: Sequence[NewEntry]) -> list[Entry | BaseException]:
        results: list[Entry | BaseException | int | None] = [None] * len(new)
        by_path: dict[str, int] = {}
        by_key: dict[str, int] = {}
        files: dict[str, bytes] = {}
        ids: dict[int, int] = {}
        created = _now()
        next_id = max(self.store.max_id(), self._remote_max_id) + 1
        for i, item in enumerate(new):
            path = record.entry_path(item.sub.file_sha256)
            existing = self.store.duplicate_of(item.sub.file_sha256, item.content_key)
            if existing is not None:
                same = existing.file_sha256 == item.sub.file_sha256
                results[i] = (DuplicateSubmissionError if same else DuplicateContentError)(existing)
                continue
            earlier = by_path.get(path, by_key.get(item.content_key) if item.content_key else None)
            if earlier is not None:  # the same predictions twice in one batch
                results[i] = earlier
                continue
            by_path[path] = i
            if item.content_key:
                by_key[item.content_key] = i
            ids[i] = next_id
            next_id += 1
            files[path] = record.pack(record.new_record(item.sub, item.report, ids[i], created))
        if not files:
            return [r for r in results]  # type: ignore[misc]  # no new entry: every slot holds its result
        owners = self._owners | {ids[i]: new[i].sub.file_sha256 for i in ids}
        files[record.INDEX_PATH] = record.pack_index(next_id - 1, owners)
        self._commit(files, f"leaderboard: {len(ids)} entries added")
        self._remote_max_id = max(self._remote_max_id, next_id - 1)
        self._owners = owners
        for i, entry_id in ids.items():
            item = new[i]
            path = record.entry_path(item.sub.file_sha256)
            try:
                results[i] = self.store.add(
                    item.sub,
                    item.report,
                    entry_id=entry_id,
                    created=created,
                    # the Hub keeps `*.gz` in LFS: the listing will name it by its sha256 (a
                    # listing after each commit would cost the submitter a round trip)
                    record_identity=f"sha256:{hashlib.sha256(files[path]).hexdigest()}",
                    reservation=item.reservation,
                    content_key=item.content_key,
                )
            except Exception as exc:  # the record holds it: the next read brings it here
                log.error("entry #%d is in the record but not on this disk (%s)", entry_id, exc)
                results[i] = StoredElsewhere(entry_id, exc)
        out: list[Entry | BaseException] = []
        for result in results:
            if isinstance(result, int):  # a repeat within the batch: the first one's entry
                first = results[result]
                out.append(
                    DuplicateSubmissionError(first) if isinstance(first, Entry) else first  # type: ignore[arg-type]  # filled above
                )
            else:
                out.append(result)  # type: ignore[arg-type]  # an Entry or its exception, filled above
        return out

    def accept_record(self) -> ReadResult:
        """The operator's choice when the record diverged: take the record as it is now (the
        entries it does not hold leave this copy)."""
        with self._lock:
            return self._read_locked(accept=True)

    def repush(self) -> int:
        """The operator's other choice: keep this copy's entries and commit them all into the
        record as it is now (its own entries are read first, none removed); how many."""
        with self._lock:
            last, diverged = self._head, self._diverged
            try:
                self._diverged = None
                self._read_locked(accept=True, keep=True)
                self.store.mark_all_changed()
                return self._push(None)
            except HubUnavailable:  # still the record it was: nothing is taken from it
                self._set_head(last)
                self._diverged = diverged
                raise

    def withdraw(self, entry: Entry) -> None:
        """Remove an entry from the record (one commit), then from the store; WriteRefused
        when the record cannot be written (then the entry stays)."""
        path = record.entry_path(entry.file_sha256)

        def attempt() -> None:
            if path in self.repo.list_tree(revision=self._head):
                self._commit({}, f"leaderboard: entry #{entry.id} withdrawn", delete=[path])
            self.store.delete(entry.id, in_record=False)

        self._through_record(attempt)

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
