"""`respondeoqa-eval space bundle --output DIR` writes a complete Hub Space repository;
`respondeoqa-eval space deploy --repo-id ORG/NAME [--dry-run]` bundles and uploads it in one commit.

The bundle: `app.py` (starts the installed package's Space; the repo names given here become
environment defaults, never a token), `requirements.txt` pinning this exact package version (or a
wheel shipped inside the bundle with `--wheel`), `README.md` whose front matter says sdk gradio,
the installed gradio version, app_file, python_version, hf_oauth, tags and the dataset, and a
`.gitignore` for local data.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from .._version import __version__
from ..errors import InputError

DATASET = "slanglab/RespondeoQA"
TAGS = ("leaderboard", "latin", "question-answering", "translation", "evaluation")

APP = '''"""RespondeoQA leaderboard Space (written by `respondeoqa-eval space bundle`)."""

import logging
import os

# where this Space keeps its record and finds the private gold (a token comes from the
# HF_TOKEN secret, never from this file)
for _name, _value in {settings}.items():
    if _value:
        os.environ.setdefault(_name, _value)

from respondeoqa_eval.space.app import launch  # noqa: E402
from respondeoqa_eval.space.settings import SpaceConfig  # noqa: E402

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    launch(SpaceConfig.from_env())
'''

GITIGNORE = """# local data of a running Space: never part of the repository
space_data/
*.sqlite3
*.sqlite3-*
gold/
__pycache__/
.gradio/
"""


def _readme(title: str, data_repo: str | None, gold_repo: str | None) -> str:
    import gradio

    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    tags = "\n".join(f"  - {t}" for t in TAGS)
    return f"""---
title: {title}
emoji: 🏛️
colorFrom: indigo
colorTo: yellow
sdk: gradio
sdk_version: {gradio.__version__}
app_file: app.py
python_version: "{py}"
hf_oauth: true
pinned: false
license: mit
short_description: Latin-English question answering leaderboard (RespondeoQA)
datasets:
  - {DATASET}
tags:
{tags}
---

# RespondeoQA leaderboard

Submit predictions for the [RespondeoQA](https://huggingface.co/datasets/{DATASET})
Latin-English QA benchmark; they are scored with the paper's protocol by
respondeoqa-eval {__version__}. Submitting needs a Hugging Face login.

Operator settings: the Hub dataset repo of record is `{data_repo or "(not set)"}`, the private
gold repo `{gold_repo or "(not set)"}`; set the `HF_TOKEN` secret to a token that can write the
first and read the second.
"""


def write_bundle(
    output: Path,
    *,
    wheel: Path | None = None,
    data_repo: str | None = None,
    gold_repo: str | None = None,
    title: str = "RespondeoQA Leaderboard",
) -> list[Path]:
    """Write the Space repository into `output`; the files written."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    settings = {
        "RESPONDEOQA_SPACE_MIRROR": data_repo or "",
        "RESPONDEOQA_GOLD_REPO": gold_repo or "",
    }
    files = {
        "app.py": APP.replace("{settings}", json.dumps(settings)),
        ".gitignore": GITIGNORE,
        "README.md": _readme(title, data_repo, gold_repo),
    }
    if wheel is not None:
        wheel = Path(wheel)
        if not wheel.is_file() or wheel.suffix != ".whl":
            raise InputError(f"--wheel {wheel}: not a wheel file")
        if f"-{__version__}-" not in wheel.name:
            raise InputError(f"--wheel {wheel.name}: not version {__version__} of the package")
        (output / "wheels").mkdir(exist_ok=True)
        shutil.copy2(wheel, output / "wheels" / wheel.name)
        requirement = f"./wheels/{wheel.name}[space]"
    else:
        requirement = f"respondeoqa-eval[space]=={__version__}"
    files["requirements.txt"] = (
        "# the Space SDK installs gradio==sdk_version; this pins the evaluator that scores\n"
        f"{requirement}\n"
    )
    written = []
    for name, text in files.items():
        (output / name).write_text(text, encoding="utf-8")
        written.append(output / name)
    if wheel is not None:
        written.append(output / "wheels" / wheel.name)
    return written


def register(sub: argparse._SubParsersAction) -> None:
    """Add `space bundle` and `space deploy`."""
    for name in ("bundle", "deploy"):
        p = sub.add_parser(
            name,
            help="write a complete Hub Space repository"
            if name == "bundle"
            else "bundle and upload to a Hub Space in one commit",
        )
        if name == "bundle":
            p.add_argument("--output", type=Path, required=True)
        else:
            p.add_argument("--repo-id", required=True, help="ORG/NAME of the Space")
            p.add_argument("--dry-run", action="store_true", help="list the files, upload nothing")
            p.add_argument("--private", action="store_true")
        p.add_argument("--wheel", type=Path, default=None, help="ship this wheel in the bundle")
        p.add_argument("--data-repo", default=None, help="Hub dataset repo of record (private)")
        p.add_argument("--gold-repo", default=None, help="private Hub dataset repo with gold")
        p.set_defaults(func=run_bundle if name == "bundle" else run_deploy)


def run_bundle(args: argparse.Namespace) -> int:
    written = write_bundle(
        args.output, wheel=args.wheel, data_repo=args.data_repo, gold_repo=args.gold_repo
    )
    print(f"wrote a Space repository to {args.output}: " + ", ".join(p.name for p in written))
    return 0


def run_deploy(args: argparse.Namespace) -> int:
    import os

    from .hub import HubRepo

    if args.repo_id.count("/") != 1:
        raise InputError(f"--repo-id {args.repo_id!r}: expected ORG/NAME")
    with tempfile.TemporaryDirectory(prefix="respondeoqa-space-bundle-") as tmp:
        write_bundle(
            Path(tmp), wheel=args.wheel, data_repo=args.data_repo, gold_repo=args.gold_repo
        )
        files = {
            p.relative_to(tmp).as_posix(): p.read_bytes()
            for p in sorted(Path(tmp).rglob("*"))
            if p.is_file()
        }
        if args.dry_run:
            for path, data in files.items():
                print(f"would upload {path} ({len(data)} bytes) to spaces/{args.repo_id}")
            return 0
        repo = HubRepo(
            args.repo_id,
            repo_type="space",
            token=os.environ.get("HF_TOKEN"),
            endpoint=os.environ.get("HF_ENDPOINT"),
        )
        repo.create(private=args.private, space_sdk="gradio")
        oid = repo.commit(files, f"Deploy respondeoqa-eval {__version__}")
    print(f"deployed {len(files)} files to spaces/{args.repo_id} (commit {oid[:12]})")
    return 0
