"""Upload a built dataset folder to the Hugging Face Hub (`huggingface_hub`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..data.records import PRIVATE_SOURCES
from ..errors import InputError
from .features import CONFIGS

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")


@dataclass(frozen=True)
class UploadPlan:
    """The files that would be uploaded and the private material among them."""

    folder: Path
    files: list[tuple[str, int]]  # (path inside the repo, size in bytes)
    private_parts: list[str]  # "certamen/test-....parquet (certamen)" etc.

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self.files)


def _private_parts(folder: Path) -> list[str]:
    """Files holding Certamen / NLE rows: by content (the `source` column), and by config name."""
    import pyarrow.parquet as pq

    parts = []
    for path in sorted(folder.rglob("*.parquet")):
        rel = path.relative_to(folder).as_posix()
        try:
            sources = set(pq.read_table(path, columns=["source"]).column("source").to_pylist())
        except (OSError, KeyError, ValueError):  # unreadable or foreign: judge by its folder
            sources = set()
        private = sorted(s for s in sources if s in PRIVATE_SOURCES)
        config = rel.split("/", 1)[0]
        if not private and config in CONFIGS and CONFIGS[config].private:
            private = [config]
        if private:
            parts.append(f"{rel} ({', '.join(private)})")
    return parts


def plan_upload(folder: str | Path) -> UploadPlan:
    """What `push` would upload from `folder` (hidden files and folders are left out)."""
    folder = Path(folder)
    if not (folder / "README.md").is_file():
        raise InputError(
            f"{folder}: no README.md; build the folder first with "
            "`respondeoqa-eval dataset build --output DIR`"
        )
    files = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            files.append((rel.as_posix(), path.stat().st_size))
    return UploadPlan(folder, files, _private_parts(folder))


def _refusal(plan: UploadPlan, repo_id: str) -> str:
    return (
        f"refusing to push to {repo_id}: the folder holds Certamen / NLE material "
        f"({'; '.join(plan.private_parts)}), which must never go to a public repository. "
        "Push it with --private (to a private repository), or build without --include-private."
    )


def push(
    folder: str | Path,
    repo_id: str,
    *,
    private: bool = False,
    dry_run: bool = False,
    token: str | None = None,
    echo: Callable[[str], None] = print,
) -> str | None:
    """Upload `folder` as the dataset repository `repo_id`; return the commit URL.

    `dry_run` prints every file and size and contacts nothing. Private material (Certamen,
    NLE) is only ever pushed with `private=True`, and never into an existing public repository.
    """
    if not _REPO_ID.match(repo_id):
        raise InputError(f"--repo-id must look like ORG/NAME, got {repo_id!r}")
    plan = plan_upload(folder)
    if dry_run:
        visibility = "private" if private else "public"
        echo(
            f"dry run: would upload {len(plan.files)} files ({plan.total_bytes} bytes) "
            f"from {plan.folder} to the {visibility} dataset repository {repo_id}:"
        )
        for rel, size in plan.files:
            echo(f"  {size:>12}  {rel}")
    if plan.private_parts and not private:
        raise InputError(_refusal(plan, repo_id))
    if dry_run:
        return None
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    # read HF_ENDPOINT at call time (huggingface_hub reads it once, at import)
    api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None, token=token)
    try:
        api.create_repo(
            repo_id,
            repo_type="dataset",
            visibility="private" if private else "public",
            exist_ok=True,
        )
        if plan.private_parts and not api.repo_info(repo_id, repo_type="dataset").private:
            raise InputError(_refusal(plan, repo_id) + " (the repository exists and is public)")
        commit = api.upload_folder(
            folder_path=str(plan.folder),
            repo_id=repo_id,
            repo_type="dataset",
            commit_message="Upload RespondeoQA dataset build",
            ignore_patterns=[".*", "**/.*"],
        )
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "?"
        raise InputError(
            f"the Hub refused the push to {repo_id} (HTTP {status}): {str(exc).splitlines()[0]}"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot reach the Hub to push {repo_id}: {exc}") from None
    return str(getattr(commit, "commit_url", commit))
