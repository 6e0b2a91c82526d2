"""Upload a built dataset folder to the Hugging Face Hub (`huggingface_hub`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
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


@dataclass(frozen=True)
class Pushed:
    """What `push` put on the Hub."""

    commit_url: str  # the commit of the data (Parquet, card, licence)
    eval_yaml_url: str | None = None  # the commit of eval.yaml, when the Hub accepted it
    eval_yaml_refused: str | None = None  # else one line: what was refused and why


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


def _ensure_eval_yaml(folder: Path, echo: Callable[[str], None]) -> None:
    """The build's `eval.yaml` as this version writes it: written into an older build that lacks
    it, rewritten when an older version wrote it (its header says so) and it differs. A file
    without that header is the operator's own and goes as it is."""
    from ..harness.eval_results import (
        EVAL_YAML,
        EVAL_YAML_MARK,
        configs_in,
        eval_yaml_text,
        write_eval_yaml,
    )

    path = folder / EVAL_YAML
    if not path.is_file():
        echo(f"wrote {write_eval_yaml(folder)} (the Hub Benchmark file)")
        return
    text = path.read_text(encoding="utf-8", errors="replace")
    if text.startswith(EVAL_YAML_MARK) and text != eval_yaml_text(configs_in(folder)):
        echo(f"rewrote {write_eval_yaml(folder)} (an older respondeoqa-eval wrote it)")


def _hub_reason(exc: Exception) -> str:
    """The Hub's reason for refusing a request, on one line (its message can span several)."""
    message = getattr(exc, "server_message", None) or str(exc)
    lines = [line.strip().removeprefix("- ") for line in message.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    head, rest = lines[0], lines[1:]
    if not rest:
        return head
    return head + (" " if head.endswith(":") else "; ") + "; ".join(rest)


def _status(exc: Exception) -> int | str:
    response = getattr(exc, "response", None)
    return response.status_code if response is not None else "?"


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
) -> Pushed | None:
    """Upload `folder` as the dataset repository `repo_id`; what landed (None for a dry run).

    `dry_run` prints every file and size and contacts nothing. Private material (Certamen,
    NLE) is only ever pushed with `private=True`, and never into an existing public repository.
    A folder without `eval.yaml` gets it first (not in a dry run): the Benchmark file goes with
    the dataset, in a commit of its own after the data's, since the Hub validates it at push
    time and refuses the whole commit that holds an invalid one (the data would go with it).
    A refused `eval.yaml` is reported in `Pushed.eval_yaml_refused`; the data has landed.
    """
    from ..harness.eval_results import EVAL_YAML

    if not _REPO_ID.match(repo_id):
        raise InputError(f"--repo-id must look like ORG/NAME, got {repo_id!r}")
    plan_upload(folder)  # a built folder, before anything is written into it
    if not dry_run:
        _ensure_eval_yaml(Path(folder), echo)
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
            ignore_patterns=[".*", "**/.*", EVAL_YAML],
        )
    except HfHubHTTPError as exc:
        raise InputError(
            f"the Hub refused the push to {repo_id} (HTTP {_status(exc)}): {_hub_reason(exc)}"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot reach the Hub to push {repo_id}: {exc}") from None
    pushed = Pushed(str(getattr(commit, "commit_url", commit)))
    eval_yaml = plan.folder / EVAL_YAML
    if not eval_yaml.is_file():
        return pushed
    try:
        registered = api.upload_file(
            path_or_fileobj=str(eval_yaml),
            path_in_repo=EVAL_YAML,
            repo_id=repo_id,
            repo_type="dataset",
            commit_message="Register RespondeoQA as a Hub Benchmark (eval.yaml)",
        )
    except HfHubHTTPError as exc:
        why = f"the Hub refused it (HTTP {_status(exc)}): {_hub_reason(exc)}"
    except OSError as exc:
        why = f"the Hub could not be reached: {' '.join(str(exc).split())}"
    else:
        return replace(pushed, eval_yaml_url=str(getattr(registered, "commit_url", registered)))
    return replace(
        pushed,
        eval_yaml_refused=f"{EVAL_YAML} not pushed, {why}; the data is pushed "
        f"({pushed.commit_url}), the Benchmark page waits for an {EVAL_YAML} the Hub accepts "
        "(docs/hub-benchmark.md)",
    )
