"""The Space's only door to the Hugging Face Hub: the few `huggingface_hub` calls it makes.

- `HubRepo.commit`: one commit of several added/deleted files (`HfApi.create_commit`); with
  `parent_commit`, refused (`HeadMoved`) when the branch moved since that commit was read
- `HubRepo.head`: the commit the main branch points to (`HfApi.repo_info`)
- `HubRepo.history`: the commit ids of the main branch, newest first (`HfApi.list_repo_commits`):
  whether the commit a writer read last is still in it (a repo deleted and made again, or
  force-pushed, shares none of its history)
- `HubRepo.list_tree`: every file with its size and content identity (`HfApi.list_repo_tree`)
- `HubRepo.download`: one file's bytes, refused above a size (`hf_hub_download`)
- `HubRepo.download_folder`: the files matching patterns (`snapshot_download`)
- `HubRepo.create`: make the repository if it is missing (`HfApi.create_repo`, exist_ok)
- `model_info`: a model's public facts at a revision (`HfApi.model_info`), for evaluation
  requests

A passing fault (HTTP 429 or 5xx, a dropped connection, a timeout) is retried with exponential
backoff (tenacity; `sleep` injectable for tests); what still fails raises `HubUnavailable`.
Reading the head, then the tree and files at that head, then committing with that head as
`parent_commit` is a compare-and-swap: of two writers that read the same head, one commit wins
and the other gets `HeadMoved` (the Hub's HTTP 412) and reads again.
Tests point `endpoint` at a local HTTP server that answers like the Hub (tests/kit/hubstub.py).
"""

from __future__ import annotations

import io
import logging
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

T = TypeVar("T")


class _NoXetNotice(logging.Filter):
    """huggingface_hub says at every commit of file objects that it falls back to HTTP
    uploads: the record always does, on purpose (`HubRepo.commit`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "binary IO buffer is not supported by Xet" not in record.getMessage()


logging.getLogger("huggingface_hub._commit_api").addFilter(_NoXetNotice())


class HubUnavailable(Exception):
    """The Hub did not answer (after retries) or refused the request; `str()` is one line."""


class HeadMoved(HubUnavailable):
    """A commit with `parent_commit` was refused: someone committed since that head was read
    (HTTP 412). Read again, then commit on the new head."""


class ModelNotFound(Exception):
    """No such model repository (or a private one: the Hub answers both alike), or no such
    revision of it; `str()` is one line for the person who asked."""


@dataclass(frozen=True)
class RemoteFile:
    """A file of the repository as its listing describes it."""

    path: str
    size: int
    identity: str
    """Changes whenever the content changes: the LFS sha256, else the git blob id."""


_TRANSPORT_ERRORS = {
    "ConnectError",
    "ReadTimeout",
    "ConnectTimeout",
    "RemoteProtocolError",
    "ReadError",
}


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and len(chain) < 8:  # huggingface_hub wraps upload errors
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    return chain


def is_transient(exc: BaseException) -> bool:
    """A fault worth retrying: HTTP 429 / 5xx, or the connection failed or timed out."""
    from huggingface_hub.errors import HfHubHTTPError

    for cause in _causes(exc):
        if isinstance(cause, HfHubHTTPError):
            status = getattr(getattr(cause, "response", None), "status_code", None)
            return status is None or status == 429 or status >= 500
        if isinstance(cause, (ConnectionError, TimeoutError)):
            return True
        if type(cause).__name__ in _TRANSPORT_ERRORS:
            return True
    return False


def _status(exc: BaseException) -> int | None:
    from huggingface_hub.errors import HfHubHTTPError

    for cause in _causes(exc):
        if isinstance(cause, HfHubHTTPError):
            return getattr(getattr(cause, "response", None), "status_code", None)
    return None


def describe(exc: BaseException) -> str:
    """One line about a Hub failure (never a token: the client's messages carry none)."""
    from huggingface_hub.errors import HfHubHTTPError

    exc = next((c for c in _causes(exc) if isinstance(c, HfHubHTTPError)), exc)
    status = getattr(getattr(exc, "response", None), "status_code", None)
    what = f"HTTP {status}" if status else type(exc).__name__
    first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    return f"{what}: {first}" if first else what


def refused_access(exc: BaseException) -> int | None:
    """The HTTP status when the Hub refused a token (401, 403; 404: a private repository the
    token cannot see is "not found" to it), else None."""
    status = _status(exc)
    return status if status in (401, 403, 404) else None


def plain_reason(exc: BaseException) -> str:
    """Why a Hub write failed, in words for a visitor (no repository name, no token)."""
    status = _status(exc)
    if status in (401, 403):
        return "the Hub refuses this Space's writes (its token cannot write the record)"
    if status == 404:
        return "the record's repository no longer exists on the Hub"
    return "the Hub did not answer, after retries"


def _call(what: str, fn: Callable[[], T], attempts: int, sleep: Callable[[float], None]) -> T:
    """`fn()`, its passing faults retried with backoff; HeadMoved or HubUnavailable after."""
    retrying = Retrying(
        stop=stop_after_attempt(attempts),
        wait=wait_exponential(multiplier=0.5, max=16),
        retry=retry_if_exception(is_transient),
        sleep=sleep,
        reraise=True,
    )
    try:
        return retrying(fn)
    except Exception as exc:
        if _status(exc) == 412:
            raise HeadMoved(f"{what} refused: the branch moved") from exc
        raise HubUnavailable(f"{what} failed ({describe(exc)})") from exc


class HubRepo:
    """One Hub repository (a dataset by default), reached with an optional token."""

    def __init__(
        self,
        repo_id: str,
        *,
        repo_type: str = "dataset",
        token: str | None = None,
        endpoint: str | None = None,
        cache_dir: str | Path | None = None,
        attempts: int = 5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        from huggingface_hub import HfApi

        self.repo_id = repo_id
        self.repo_type = repo_type
        self.token = token
        self.endpoint = endpoint
        self.cache_dir = Path(cache_dir or tempfile.mkdtemp(prefix="respondeoqa-hub-"))
        self.attempts = attempts
        self.sleep = sleep
        self._api = HfApi(endpoint=endpoint, token=token)

    def __repr__(self) -> str:  # never the token
        return f"HubRepo({self.repo_type}:{self.repo_id})"

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        return _call(f"{self!r}: {what}", fn, self.attempts, self.sleep)

    def create(self, *, private: bool = True, space_sdk: str | None = None) -> None:
        """Create the repository unless it exists (private by default)."""
        self._call(
            "create",
            lambda: self._api.create_repo(
                self.repo_id,
                repo_type=self.repo_type,
                private=private,
                exist_ok=True,
                space_sdk=space_sdk,
            ),
        )

    def set_variables(self, variables: Mapping[str, str]) -> None:
        """Set a Space's variables (`HfApi.add_space_variable`, each made or replaced)."""
        for key, value in variables.items():

            def run(key: str = key, value: str = value) -> Any:
                return self._api.add_space_variable(self.repo_id, key, value)

            self._call(f"variable {key}", run)

    def commit(
        self,
        files: Mapping[str, bytes],
        message: str,
        *,
        delete: Iterable[str] = (),
        parent_commit: str | None = None,
    ) -> str:
        """Add `files` (path in repo -> bytes) and delete `delete` in ONE commit; its id. With
        `parent_commit`, HeadMoved when the branch no longer points to it."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        deleted = list(delete)

        def run() -> Any:
            # file objects, not bytes: huggingface_hub then uploads LFS files (the Hub keeps
            # `*.gz` in LFS) through the Hub's HTTP LFS endpoint rather than the Xet protocol,
            # which the record's small files gain nothing from (and no stand-in speaks)
            ops: list = [
                CommitOperationAdd(path_in_repo=p, path_or_fileobj=io.BytesIO(b))
                for p, b in files.items()
            ]
            ops += [CommitOperationDelete(path_in_repo=p) for p in deleted]
            return self._api.create_commit(
                self.repo_id,
                ops,
                commit_message=message,
                repo_type=self.repo_type,
                parent_commit=parent_commit,
            )

        return str(self._call("commit", run).oid)

    def head(self) -> str:
        """The commit the main branch points to now."""

        def run() -> str:
            info = self._api.repo_info(self.repo_id, repo_type=self.repo_type, revision="main")
            return str(info.sha)

        return self._call("head", run)

    def history(self, revision: str) -> list[str]:
        """The commit ids the branch's history holds at `revision`, newest first."""

        def run() -> list[str]:
            commits = self._api.list_repo_commits(
                self.repo_id, repo_type=self.repo_type, revision=revision
            )
            return [c.commit_id for c in commits]

        return self._call("history", run)

    def list_tree(self, revision: str | None = None) -> dict[str, RemoteFile]:
        """Every file of the repository (main branch, or `revision`) by path."""
        from huggingface_hub import RepoFile

        def run() -> dict[str, RemoteFile]:
            out = {}
            for node in self._api.list_repo_tree(
                self.repo_id, recursive=True, repo_type=self.repo_type, revision=revision
            ):
                if not isinstance(node, RepoFile):  # a folder
                    continue
                lfs = node.lfs
                identity = f"sha256:{lfs.sha256}" if lfs is not None else f"git:{node.blob_id}"
                out[node.path] = RemoteFile(node.path, int(node.size or 0), identity)
            return out

        return self._call("listing", run)

    def list_files(self) -> list[str]:
        """Every file path in the repository (main branch)."""
        return sorted(self.list_tree())

    def download(
        self, path: str, *, max_bytes: int | None = None, revision: str | None = None
    ) -> bytes:
        """The bytes of one file of the repository (main branch, or `revision`; HubUnavailable
        above `max_bytes`)."""
        from huggingface_hub import hf_hub_download

        local = Path(
            self._call(
                f"download of {path}",
                lambda: hf_hub_download(
                    self.repo_id,
                    path,
                    repo_type=self.repo_type,
                    revision=revision,
                    token=self.token,
                    endpoint=self.endpoint,
                    cache_dir=self.cache_dir,
                ),
            )
        )
        size = local.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise HubUnavailable(f"{self!r}: {path} is {size:,} bytes, over {max_bytes:,}")
        return local.read_bytes()

    def download_folder(self, folder: str | Path, patterns: list[str]) -> list[Path]:
        """The repository's files matching `patterns` (globs) copied into `folder`; those."""
        from huggingface_hub import snapshot_download

        folder = Path(folder)
        self._call(
            "download",
            lambda: snapshot_download(
                self.repo_id,
                repo_type=self.repo_type,
                token=self.token,
                endpoint=self.endpoint,
                local_dir=folder,
                allow_patterns=patterns,
                cache_dir=self.cache_dir,
            ),
        )
        root = folder.resolve()
        return sorted(
            p
            for p in folder.rglob("*")
            if p.is_file() and ".cache" not in p.relative_to(folder).parts
            if p.resolve().is_relative_to(root)
        )


def model_info(
    model_id: str,
    revision: str,
    *,
    token: str | None = None,
    endpoint: str | None = None,
    attempts: int = 3,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """huggingface_hub's `ModelInfo` of a model at `revision` (a branch, tag or commit):
    ModelNotFound when the Hub knows no such public model or revision, HubUnavailable when it
    does not answer."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    api = HfApi(endpoint=endpoint, token=token)
    try:
        return _call(
            f"model info of {model_id}",
            lambda: api.model_info(model_id, revision=revision),
            attempts,
            sleep,
        )
    except HubUnavailable as exc:
        cause = exc.__cause__
        if isinstance(cause, RevisionNotFoundError):
            raise ModelNotFound(f"{model_id} has no revision {revision!r} on the Hub") from None
        if isinstance(cause, RepositoryNotFoundError) or _status(exc) in (401, 403, 404):
            raise ModelNotFound(
                f"the Hub has no public model {model_id} (it does not exist, or it is private)"
            ) from None
        raise
