"""`respondeoqa-eval prompts` and `respondeoqa-eval run`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from ..data.configs import CONFIGS, DEFAULT_CONFIG
from ..errors import InputError
from ..io import write_text_atomic
from .output import PredictionWriter, dump_row
from .prompts import PROMPT_VERSION, TEMPERATURE, TOP_P, prompt_row
from .selection import select_items


def _optional_float(text: str) -> float | None:
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'none', got {text!r}") from None


def _optional_int(text: str) -> int | None:
    if text.lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or 'none', got {text!r}") from None


def _add_selection(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        default=DEFAULT_CONFIG,
        metavar="NAME",
        help=f"which items (default {DEFAULT_CONFIG}): {', '.join(CONFIGS)}",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="folder of upstream files (needed for Certamen and NLE); default: the pinned public "
        "files (or $RESPONDEOQA_DATA_DIR)",
    )
    p.add_argument("--limit", type=int, metavar="N", help="only the first N selected items")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `prompts` and `run` subcommands."""
    p = subparsers.add_parser(
        "prompts",
        help="write the paper's chat messages for every item (JSONL)",
        description="Write one JSON line per item with id, question_id, question_language and "
        "messages (the paper's system and user message, PROTOCOL section 2).",
    )
    _add_selection(p)
    p.add_argument(
        "--output", "-o", required=True, metavar="FILE", help="JSONL file, or - for stdout"
    )
    p.set_defaults(func=cmd_prompts)

    r = subparsers.add_parser(
        "run",
        help="answer the benchmark with a local transformers model or an OpenAI-compatible server",
        description="Produce a predictions file with the paper's prompts. Without --api-base the "
        "model is loaded locally with transformers; with it, requests go to an OpenAI-compatible "
        "chat-completions server. Rerunning the same command resumes an interrupted run.",
    )
    r.add_argument(
        "--model",
        required=True,
        help="hub name or local folder; the served model name with --api-base",
    )
    r.add_argument(
        "--output",
        "-o",
        required=True,
        metavar="FILE",
        help="predictions JSONL (appended, resumable)",
    )
    _add_selection(r)
    r.add_argument(
        "--temperature",
        type=_optional_float,
        default=TEMPERATURE,
        help=f"sampling temperature (paper: {TEMPERATURE}); 0 = greedy; 'none' = not sent "
        "to the server",
    )
    r.add_argument(
        "--top-p",
        type=_optional_float,
        default=TOP_P,
        help=f"nucleus sampling (paper: {TOP_P}); 'none' = not sent to the server",
    )
    r.add_argument(
        "--seed", type=_optional_int, default=0, help="random seed (default 0; 'none' = not set)"
    )
    r.add_argument(
        "--max-new-tokens",
        type=int,
        metavar="N",
        help="generation budget per item (local default 1024; server default if not given)",
    )
    r.add_argument(
        "--overwrite", action="store_true", help="start the output file again instead of resuming"
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    local = r.add_argument_group("local model (transformers)")
    local.add_argument(
        "--batch-size", type=int, default=8, help="prompts per generate call (default 8)"
    )
    local.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))
    local.add_argument(
        "--dtype",
        default="auto",
        choices=("auto", "float32", "bfloat16", "float16"),
        help="auto: the checkpoint's dtype on GPU, float32 on CPU",
    )
    local.add_argument(
        "--trust-remote-code", action="store_true", help="allow model code from the hub"
    )
    api = r.add_argument_group("OpenAI-compatible server")
    api.add_argument(
        "--api-base",
        metavar="URL",
        help="e.g. http://localhost:8000/v1 (vLLM, TGI, llama.cpp, hosted APIs)",
    )
    api.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable holding the API key (default OPENAI_API_KEY, optional)",
    )
    api.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    api.add_argument(
        "--timeout", type=float, default=600.0, help="seconds per request (default 600)"
    )
    api.add_argument(
        "--max-retries",
        type=int,
        default=8,
        help="retries per item on 429/5xx/timeouts (default 8)",
    )
    api.add_argument(
        "--backoff-base",
        type=float,
        default=1.0,
        help="first retry delay in seconds (doubles each retry)",
    )
    api.add_argument(
        "--backoff-max", type=float, default=60.0, help="longest retry delay in seconds"
    )
    r.set_defaults(func=cmd_run)


def cmd_prompts(args: argparse.Namespace) -> int:
    """Write the chat messages of every selected item."""
    records = select_items(args.config, args.data_dir, limit=args.limit)
    lines = [dump_row(prompt_row(rec)) for rec in records]
    if args.output == "-":
        sys.stdout.writelines(lines)
        sys.stdout.flush()
    else:
        out = Path(args.output)
        write_text_atomic(out, "".join(lines))
        print(
            f"wrote {len(lines)} prompts to {out} (prompt version {PROMPT_VERSION})",
            file=sys.stderr,
        )
    return 0


def _check_options(args: argparse.Namespace) -> None:
    if args.temperature is not None and args.temperature < 0:
        raise InputError("--temperature must be 0 or more")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        raise InputError("--top-p must be in (0, 1]")
    if args.max_new_tokens is not None and args.max_new_tokens < 1:
        raise InputError("--max-new-tokens must be at least 1")
    if args.batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    if args.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    if args.timeout <= 0:
        raise InputError("--timeout must be more than 0 seconds")


def cmd_run(args: argparse.Namespace) -> int:
    """Answer the selected items, appending to (and resuming) the output file."""
    from .progress import Progress

    _check_options(args)
    records = select_items(args.config, args.data_dir, limit=args.limit)
    runner: Callable[..., int]  # (records, writer, progress=...): its settings given here
    if args.api_base:
        from .openai_api import (
            DEFAULT_API_KEY_ENV,
            ApiSettings,
            api_key_from_env,
            chat_url,
            run_api,
        )

        chat_url(args.api_base)  # validate before touching the output file
        settings = ApiSettings(
            api_base=args.api_base,
            model=args.model,
            api_key=api_key_from_env(
                args.api_key_env or DEFAULT_API_KEY_ENV, explicit=bool(args.api_key_env)
            ),
            concurrency=args.concurrency,
            timeout=args.timeout,
            max_retries=max(args.max_retries, 0),
            backoff_base=args.backoff_base,
            backoff_max=args.backoff_max,
            temperature=args.temperature,
            top_p=args.top_p,
            seed=args.seed,
            max_new_tokens=args.max_new_tokens,
        )
        runner, params = partial(run_api, settings=settings), settings.params()
    else:
        from .hf import DEFAULT_MAX_NEW_TOKENS, HFSettings, require_torch, run_hf

        require_torch()
        hf_settings = HFSettings(
            model=args.model,
            batch_size=args.batch_size,
            max_new_tokens=args.max_new_tokens or DEFAULT_MAX_NEW_TOKENS,
            temperature=args.temperature,
            top_p=args.top_p,
            seed=args.seed,
            device=args.device,
            dtype=args.dtype,
            trust_remote_code=args.trust_remote_code,
        )
        runner, params = partial(run_hf, settings=hf_settings), hf_settings.params()
    with PredictionWriter(
        args.output,
        model=args.model,
        prompt_version=PROMPT_VERSION,
        params=params,
        overwrite=args.overwrite,
    ) as writer:
        selected = {r.id for r in records}
        already = len(selected & writer.done)
        running = len(records) - already
        print(
            f"{len(records)} items selected ({args.config}); {already} already answered in "
            f"{args.output}; running {running}",
            file=sys.stderr,
        )
        mixed = writer.settings_warning()
        if running and mixed:  # nothing to run: nothing gets mixed
            print(f"respondeoqa-eval: warning: {mixed}", file=sys.stderr)
        if running and not args.api_base:
            print(f"loading {args.model} ...", file=sys.stderr)
        bar = Progress(len(records), already, desc="answering", enabled=not args.no_progress)
        try:
            written = runner(records, writer, progress=bar)
        except KeyboardInterrupt:
            bar.close()
            saved = len(selected & writer.done)
            print(
                f"\nrespondeoqa-eval: interrupted: {writer.written} answers saved by this run, "
                f"{saved} of {len(records)} items answered in {args.output}; rerun the same "
                "command to resume",
                file=sys.stderr,
            )
            return 130
        finally:
            bar.close()
    print(
        f"wrote {written} rows to {args.output}; all {len(records)} items answered", file=sys.stderr
    )
    return 0
