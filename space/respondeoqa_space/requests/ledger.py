"""The record's `requests/` folder: reading it, and changing it safely from several machines.

Every change is a compare-and-swap on the record repo (`HubRepo`): read the head commit, the
listing and the request files at that head, decide, commit with that head as `parent_commit`.
When anyone committed in between (another worker, the Space pushing entries), the Hub refuses
(`HeadMoved`) and the change is decided again on the new head. So of two workers claiming the
same request, exactly one wins; the other reads the winner's claim and takes the next request.

A claim carries a lease: the worker renews it while it runs (`renew`); a worker that dies stops
renewing, and once the lease has run out the request is claimable again (`claim`). A request
claimed `max_attempts` times without finishing fails. The clock is injected (`clock`).

Used by the Space (`desk.RequestDesk`: create, and read at every pull) and by the operator's
worker (claim, renew, release, fail; finishing travels with the entries' push:
`finished_files`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..store.hub import HeadMoved, HubRepo, HubUnavailable, RemoteFile
from .model import (
    FAILED,
    FINISHED,
    MAX_FILE_BYTES,
    PENDING,
    RUNNING,
    Request,
    RequestError,
    id_of_path,
    iso,
    request_path,
)

log = logging.getLogger(__name__)

TRIES = 20
"""Compare-and-swap rounds before giving up (each one lost to a commit that came first)."""


class LostClaim(Exception):
    """The request is no longer this worker's (its lease ran out and another took it, or the
    operator changed it): its results are not stored."""


@dataclass(frozen=True)
class Plan:
    """What one compare-and-swap round decided: the files to write, why, and what to return."""

    requests: tuple[Request, ...]
    message: str
    result: object = None


class RequestLedger:
    """The requests of one record repo (see the module docstring)."""

    def __init__(self, repo: HubRepo, *, clock: Callable[[], float] = time.time) -> None:
        self.repo = repo
        self.clock = clock
        self._files: dict[str, tuple[str, Request]] = {}  # path -> (identity, request)
        self.problems: dict[str, str] = {}  # path -> why it is not a request
        self._lock = threading.Lock()

    # -- reading -----------------------------------------------------------------------

    def read(self, tree: dict[str, RemoteFile], head: str) -> dict[str, Request]:
        """The requests of the listing `tree` at commit `head`, by id (new and changed files
        are downloaded; a file that is not a request is skipped, logged and kept in
        `problems`)."""
        with self._lock:
            wanted = {p: f for p, f in tree.items() if id_of_path(p) is not None}
            for path in set(self._files) - set(wanted):
                del self._files[path]
            for path in set(self.problems) - set(wanted):
                del self.problems[path]
            for path, remote in sorted(wanted.items()):
                known = self._files.get(path)
                if known is not None and known[0] == remote.identity:
                    continue
                if remote.size > MAX_FILE_BYTES:
                    self._problem(path, f"larger than {MAX_FILE_BYTES // 1024} KB")
                    continue
                blob = self.repo.download(path, max_bytes=MAX_FILE_BYTES, revision=head)
                try:
                    self._files[path] = (remote.identity, Request.unpack(blob, path))
                    self.problems.pop(path, None)
                except RequestError as exc:
                    self._problem(path, str(exc))
            return self.requests()

    def _problem(self, path: str, reason: str) -> None:
        self._files.pop(path, None)
        if self.problems.get(path) != reason:
            log.warning("request file %s skipped: %s", path, reason)
        self.problems[path] = reason

    def requests(self) -> dict[str, Request]:
        """The requests as last read, by id."""
        return {r.id: r for _, r in self._files.values()}

    def read_now(self) -> tuple[str, dict[str, Request]]:
        """(head, requests) of the record as it is now."""
        head = self.repo.head()
        return head, self.read(self.repo.list_tree(revision=head), head)

    # -- changing ------------------------------------------------------------------------

    def _swap(self, decide: Callable[[dict[str, Request], float], Plan | None]) -> object:
        """One change as a compare-and-swap: `decide(requests, now)` on a fresh read, its
        files committed on that head; decided again when the head moved. Plan.result, or None
        when `decide` wrote nothing."""
        for _ in range(TRIES):
            head, current = self.read_now()
            plan = decide(current, self.clock())
            if plan is None:
                return None
            if plan.requests:
                files = {request_path(r.id): r.pack() for r in plan.requests}
                try:
                    self.repo.commit(files, plan.message, parent_commit=head)
                except HeadMoved:
                    continue
                with self._lock:  # as written (its identity is learnt at the next read)
                    for r in plan.requests:
                        self._files[request_path(r.id)] = ("", r)
            return plan.result
        raise HubUnavailable(f"{self.repo!r}: the requests kept changing ({TRIES} tries)")

    def create(self, request: Request) -> tuple[Request, bool]:
        """Store a new request; (the stored request, True), or (the request already stored
        under its id, False): a duplicate writes nothing."""

        def decide(current: dict[str, Request], now: float) -> Plan:
            existing = current.get(request.id)
            if existing is not None:
                return Plan((), "", (existing, False))
            made = request.moved(now, "requested")
            return Plan((made,), f"request {made.id}: {made.model}", (made, True))

        return self._swap(decide)  # type: ignore[return-value]  # Plan.result (an object) is this method's result

    def claim(
        self,
        worker: str,
        lease: float,
        *,
        accept: Callable[[Request], bool] = lambda r: True,
        max_attempts: int = 3,
        failed: list[Request] | None = None,
    ) -> Request | None:
        """Claim the oldest claimable request that `accept` takes, with a lease of `lease`
        seconds; None when there is none. A request already claimed `max_attempts` times
        fails instead (its runs kept stopping: the operator's side), added to `failed`."""

        def decide(current: dict[str, Request], now: float) -> Plan | None:
            waiting = sorted(
                (r for r in current.values() if r.claimable(now) and accept(r)),
                key=lambda r: (r.created, r.id),
            )
            if not waiting:
                return None
            first = waiting[0]
            if first.attempts >= max_attempts:
                reason = (
                    f"its evaluation was interrupted {first.attempts} times (the worker "
                    "stopped each time); the operator has the logs"
                )
                ended = first.moved(
                    now,
                    "failed: interrupted",
                    status=FAILED,
                    reason=reason,
                    operator_fault=True,
                    worker="",
                    lease_until="",
                )
                return Plan((ended,), f"request {first.id}: failed", ("again", ended))
            claimed = first.moved(
                now,
                f"claimed by {worker} (attempt {first.attempts + 1})",
                status=RUNNING,
                worker=worker,
                attempts=first.attempts + 1,
                lease_until=iso(now + lease),
            )
            return Plan((claimed,), f"request {first.id}: claimed", claimed)

        while True:
            got = self._swap(decide)
            if not (isinstance(got, tuple) and got[0] == "again"):
                return got  # type: ignore[return-value]  # Plan.result (an object) is this method's result
            if failed is not None:
                failed.append(got[1])

    def _mine(self, current: dict[str, Request], request: Request, worker: str) -> Request:
        now = current.get(request.id)
        if now is None or now.status != RUNNING or now.worker != worker:
            raise LostClaim(f"request {request.id} is no longer claimed by {worker}")
        return now

    def renew(self, request: Request, worker: str, lease: float) -> Request:
        """Extend this worker's lease (LostClaim when the claim is gone)."""

        def decide(current: dict[str, Request], now: float) -> Plan:
            mine = self._mine(current, request, worker)
            # not in the history: a long run renews every few minutes
            renewed = replace(mine, updated=iso(now), lease_until=iso(now + lease))
            return Plan((renewed,), f"request {request.id}: lease renewed", renewed)

        return self._swap(decide)  # type: ignore[return-value]  # Plan.result (an object) is this method's result

    def release(self, request: Request, worker: str, why: str, note: str = "") -> Request | None:
        """Give a claimed request back (the operator stopped the worker, or its engine failed
        on the operator's side: `note` says so to the requester): pending again, and this
        attempt not counted. None when the claim was gone already."""

        def decide(current: dict[str, Request], now: float) -> Plan:
            mine = self._mine(current, request, worker)
            back = mine.moved(
                now,
                f"released by {worker}: {why}",
                status=PENDING,
                worker="",
                lease_until="",
                attempts=max(0, mine.attempts - 1),
                reason=note,
            )
            return Plan((back,), f"request {request.id}: released", back)

        try:
            return self._swap(decide)  # type: ignore[return-value]  # Plan.result (an object) is this method's result
        except LostClaim:
            return None

    def fail(self, request: Request, worker: str, reason: str) -> Request | None:
        """End a claimed request as failed with `reason` (plain words, no private text)."""

        def decide(current: dict[str, Request], now: float) -> Plan:
            mine = self._mine(current, request, worker)
            failed = mine.moved(
                now, "failed", status=FAILED, reason=reason, worker="", lease_until=""
            )
            return Plan((failed,), f"request {request.id}: failed", failed)

        try:
            return self._swap(decide)  # type: ignore[return-value]  # Plan.result (an object) is this method's result
        except LostClaim:
            log.warning("request %s: not marked failed, it is no longer ours", request.id)
            return None

    def reopen(self, request: Request, why: str) -> Request:
        """A failed (or finished) request pending again, its attempts reset (the operator's
        `worker --once --model` asks for it again)."""

        def decide(current: dict[str, Request], now: float) -> Plan:
            now_req = current.get(request.id, request)
            if now_req.status in (PENDING, RUNNING):
                return Plan((), "", now_req)
            back = now_req.moved(
                now,
                why,
                status=PENDING,
                attempts=0,
                reason="",
                entries=(),
                worker="",
                lease_until="",
                operator_fault=False,
            )
            return Plan((back,), f"request {request.id}: reopened", back)

        return self._swap(decide)  # type: ignore[return-value]  # Plan.result (an object) is this method's result

    def finished_files(
        self, request: Request, worker: str, entries: list[int], head: str
    ) -> dict[str, bytes]:
        """The request's file, finished with `entries`, to commit on `head` together with the
        entries (Syncer.push's `extra`); LostClaim when at `head` it is not this worker's."""
        current = self.read(self.repo.list_tree(revision=head), head)
        mine = self._mine(current, request, worker)
        done = mine.moved(
            self.clock(),
            f"finished: entries {', '.join(f'#{e}' for e in entries)}",
            status=FINISHED,
            entries=tuple(entries),
            worker="",
            lease_until="",
            reason="",
            operator_fault=False,
        )
        return {request_path(done.id): done.pack()}
