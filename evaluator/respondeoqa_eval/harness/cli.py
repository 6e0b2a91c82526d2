"""`respondeoqa-eval harness path`: where the harness task files are."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..runner.hf import DEFAULT_MAX_NEW_TOKENS
from ..runner.prompts import SYSTEM_PROMPT, TEMPERATURE, TOP_P
from . import lighteval_task_arg, task_dir

LIGHTEVAL_MODULE = "respondeoqa_eval.harness.lighteval_tasks"


def model_yaml(model: str) -> str:
    """A lighteval model config with the paper's system prompt and sampling."""
    import json

    return (
        "model_parameters:\n"
        f"  model_name: {json.dumps(model)}\n"
        f"  system_prompt: {json.dumps(SYSTEM_PROMPT)}\n"
        "  generation_parameters:\n"
        f"    temperature: {TEMPERATURE}\n"
        f"    top_p: {TOP_P}\n"
        f"    max_new_tokens: {DEFAULT_MAX_NEW_TOKENS}\n"
    )


def _path(args: argparse.Namespace) -> int:
    if args.lighteval:
        # the file, not an import: the module imports lighteval, which lives in its own venv
        print(Path(__file__).with_name("lighteval_tasks.py"))
        print(
            f"lighteval accelerate model.yaml '{lighteval_task_arg()}' --custom-tasks "
            f"{LIGHTEVAL_MODULE} --save-details  (whole benchmark: "
            f"'{lighteval_task_arg('respondeoqa_full')}' with $RESPONDEOQA_DATASET set to your "
            "private export); model.yaml carries the paper's system prompt and sampling:\n"
            f"{model_yaml('MODEL')}",
            file=sys.stderr,
        )
        return 0
    print(task_dir())
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `harness path`."""
    parser = subparsers.add_parser(
        "harness",
        help="run RespondeoQA inside lm-evaluation-harness, lighteval or Inspect (task files)",
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
        help="print the folder to pass to lm_eval --include_path (or the lighteval module)",
        description="Print the folder of the lm-eval task YAMLs shipped in this package.",
    )
    path.add_argument(
        "--lighteval",
        action="store_true",
        help="print the lighteval custom-task file (lighteval --custom-tasks)",
    )
    path.set_defaults(func=_path)
