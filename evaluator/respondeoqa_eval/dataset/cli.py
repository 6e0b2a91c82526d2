"""`respondeoqa-eval dataset build` and `respondeoqa-eval dataset push`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..data.configs import DEFAULT_CONFIG
from ..errors import InputError


def _need_extra(exc: ModuleNotFoundError) -> InputError:
    return InputError(
        f"this command needs the `dataset` extra ({exc.name} is missing): "
        'pip install "respondeoqa-eval[dataset]"'
    )


def load_command(folder: Path, config: str) -> str:
    """The Python that loads `config` of the build in `folder`, as printed, from any folder:
    the packaged Parquet loader on the config's absolute folder. Not `load_dataset(folder,
    config)` nor a bare name: `datasets` keys its cache of a local folder by the folder's name,
    so a second build of that name was served the first one's rows, and a bare name is asked of
    the Hub first (seconds offline) when no folder of that name is beside the user."""
    where = json.dumps(str((Path(folder) / config).resolve()))  # a valid Python string literal
    return f'datasets.load_dataset("parquet", data_dir={where}, split="test")'


def _build(args: argparse.Namespace) -> int:
    try:
        from .export import build_folder
    except ModuleNotFoundError as exc:
        raise _need_extra(exc) from None
    result = build_folder(
        args.output,
        data_dir=args.data_dir,
        include_private=args.include_private,
        cache_dir=args.cache_dir,
    )
    print(f"wrote {result.folder}:")
    for name, rows in result.config_rows.items():
        print(f"  {name:<26} {rows:>6} rows")
    for name, reason in result.skipped.items():
        print(f"  skipped {name}: {reason}")
    if not args.include_private:
        print("public configs only (Certamen and NLE need --data-dir and --include-private)")
    print(f"load with: {load_command(result.folder, DEFAULT_CONFIG)}")
    print(f"  (another config: its folder in place of {DEFAULT_CONFIG})")
    from ..harness.eval_results import EVALUATION_FRAMEWORK

    print(
        f"eval.yaml: the Hub Benchmark file (evaluation_framework {EVALUATION_FRAMEWORK}), "
        "pushed after the data"
    )
    return 0


def _push(args: argparse.Namespace) -> int:
    try:
        from .push import push
    except ModuleNotFoundError as exc:
        raise _need_extra(exc) from None
    pushed = push(args.folder, args.repo_id, private=args.private, dry_run=args.dry_run)
    if pushed is None:
        return 0
    print(f"pushed: {pushed.commit_url}")
    if pushed.eval_yaml_url:
        print(f"eval.yaml (the Hub Benchmark file): {pushed.eval_yaml_url}")
    if pushed.eval_yaml_refused:
        # the data has landed: the refusal is said, not an error status
        print(f"respondeoqa-eval: {pushed.eval_yaml_refused}", file=sys.stderr)
    return 0


def register(subparsers) -> None:
    """Add `dataset build` and `dataset push` to the top-level parser."""
    parser = subparsers.add_parser(
        "dataset",
        help="build the Hub dataset folder (Parquet + card) or push it",
        description="Build or push the RespondeoQA dataset (needs the `dataset` extra).",
    )
    sub = parser.add_subparsers(dest="dataset_command", metavar="ACTION")
    parser.set_defaults(func=lambda _args: parser.print_help() or 2)

    build = sub.add_parser(
        "build",
        help="write Parquet per config, README.md and LICENSE.md to a folder",
        description="Write a complete Hub dataset repository: Parquet per config and the card.",
    )
    build.add_argument(
        "--output",
        default="respondeoqa",
        metavar="OUT",
        help="folder to write (default: ./respondeoqa)",
    )
    build.add_argument(
        "--data-dir",
        metavar="DIR",
        help="folder of upstream files (default: $RESPONDEOQA_DATA_DIR, else the "
        "pinned public download)",
    )
    build.add_argument(
        "--include-private",
        action="store_true",
        help="also write the Certamen / NLE configs found in --data-dir "
        "(for a private repository only)",
    )
    build.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="keep the datasets builder cache here (default: a temporary folder)",
    )
    # eval.yaml is always written now; the flag that used to ask for it is still accepted
    build.add_argument("--eval-yaml", action="store_true", help=argparse.SUPPRESS)
    build.set_defaults(func=_build)

    push = sub.add_parser(
        "push",
        help="upload a built folder to the Hugging Face Hub",
        description="Upload a built folder as a Hub dataset repository (huggingface_hub).",
    )
    push.add_argument("--repo-id", required=True, metavar="ORG/NAME")
    push.add_argument(
        "--folder", default="respondeoqa", help="built folder (default: ./respondeoqa)"
    )
    push.add_argument("--private", action="store_true", help="create the repository as private")
    push.add_argument(
        "--dry-run",
        action="store_true",
        help="list every file and size that would be uploaded; contact nothing",
    )
    push.set_defaults(func=_push)
