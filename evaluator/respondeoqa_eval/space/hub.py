"""The Space's only door to the Hugging Face Hub: the few `HfApi` calls it makes, named here.

- `HubRepo.commit`: one commit of several added/deleted files (`HfApi.create_commit`)
- `HubRepo.list_files`: the repository's file paths (`HfApi.list_repo_files`)
- `HubRepo.download`: one file's bytes (`hf_hub_download`, into a private cache folder)
- `HubRepo.create`: make the repository if it is missing (`HfApi.create_repo`, exist_ok)

Nothing else in the package imports `huggingface_hub` for the Space. Tests point `endpoint` at
a local HTTP server that implements these endpoints (tests/space/hubstub.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path


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
    ) -> None:
        from huggingface_hub import HfApi

        self.repo_id = repo_id
        self.repo_type = repo_type
        self.token = token
        self.endpoint = endpoint
        self.cache_dir = Path(cache_dir or tempfile.mkdtemp(prefix="respondeoqa-hub-"))
        self._api = HfApi(endpoint=endpoint, token=token)

    def __repr__(self) -> str:  # never the token
        return f"HubRepo({self.repo_type}:{self.repo_id})"

    def create(self, *, private: bool = True, space_sdk: str | None = None) -> None:
        """Create the repository unless it exists (private by default)."""
        self._api.create_repo(
            self.repo_id,
            repo_type=self.repo_type,
            private=private,
            exist_ok=True,
            space_sdk=space_sdk,
        )

    def commit(
        self, files: Mapping[str, bytes], message: str, *, delete: Iterable[str] = ()
    ) -> str:
        """Add `files` (path in repo -> bytes) and delete `delete` in ONE commit; its id."""
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete

        ops: list = [
            CommitOperationAdd(path_in_repo=p, path_or_fileobj=b) for p, b in files.items()
        ]
        ops += [CommitOperationDelete(path_in_repo=p) for p in delete]
        info = self._api.create_commit(
            self.repo_id, ops, commit_message=message, repo_type=self.repo_type
        )
        return str(info.oid)

    def list_files(self) -> list[str]:
        """Every file path in the repository (main branch)."""
        return list(self._api.list_repo_files(self.repo_id, repo_type=self.repo_type))

    def download(self, path: str) -> bytes:
        """The bytes of one file of the repository."""
        from huggingface_hub import hf_hub_download

        local = hf_hub_download(
            self.repo_id,
            path,
            repo_type=self.repo_type,
            token=self.token,
            endpoint=self.endpoint,
            cache_dir=self.cache_dir,
        )
        return Path(local).read_bytes()

    def download_to(self, folder: str | Path, *, suffixes: tuple[str, ...] = ()) -> list[Path]:
        """Copy the repository's files (those ending in `suffixes`, if given) into `folder`."""
        folder = Path(folder)
        out = []
        for path in self.list_files():
            if suffixes and not path.endswith(suffixes):
                continue
            target = folder / path
            if not target.resolve().is_relative_to(folder.resolve()):
                continue  # a hostile path in the repository
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.download(path))
            out.append(target)
        return out
