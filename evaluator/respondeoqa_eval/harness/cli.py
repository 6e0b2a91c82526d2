"""`respondeoqa-eval harness path`: where the lm-evaluation-harness task files are."""

from __future__ import annotations

import argparse

from . import task_dir


def _path(args: argparse.Namespace) -> int:
    print(task_dir())
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `harness path`."""
    parser = subparsers.add_parser(
        "harness",
        help="run RespondeoQA inside lm-evaluation-harness (task files)",
        description="RespondeoQA as an lm-evaluation-harness task group: "
        "lm_eval --model hf --model_args pretrained=MODEL "
        "--include_path $(respondeoqa-eval harness path) --tasks respondeoqa "
        "--apply_chat_template --log_samples --output_path out; then "
        "respondeoqa-eval score out scores the logged samples.",
    )
    sub = parser.add_subparsers(dest="harness_command", metavar="ACTION")
    parser.set_defaults(func=lambda _args: parser.print_help() or 2)
    path = sub.add_parser(
        "path",
        help="print the folder to pass to lm_eval --include_path",
        description="Print the folder of the lm-eval task YAMLs shipped in this package.",
    )
    path.set_defaults(func=_path)
