"""`respondeoqa-eval score` and `respondeoqa-eval example`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import jsonl
from ..api import clear_caches, evaluate
from ..data.gold import load_gold
from ..errors import InputError
from ..io import write_bytes_atomic, write_text_atomic
from ..metrics.bleu import keep_references
from ..predictions.example import example_predictions
from ..predictions.load import load_predictions
from ..report.exclusion import rescore_without
from ..report.summary import MOSTLY, mostly_unanswered
from ..scoring.aggregate import keep_counts
from .exclude import exclusion_of


def add_gold_options(p: argparse.ArgumentParser) -> None:
    """`--data-dir`, as every command that reads gold takes it."""
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="folder of upstream RespondeoQA files (default: $RESPONDEOQA_DATA_DIR, else the six "
        "public files downloaded from the pinned upstream commit)",
    )


def _score(args: argparse.Namespace) -> int:
    # one evaluation: no resample matrix is needed twice but the last one, and no group's
    # references after its statistics are taken
    counts, references = keep_counts(0), keep_references(False)
    try:
        return _score_now(args)
    finally:
        keep_counts(counts)
        keep_references(references)


def _score_now(args: argparse.Namespace) -> int:
    if args.eval_results and not args.eval_dataset:
        raise InputError("--eval-results needs --eval-dataset ORG/NAME (the benchmark's Hub id)")
    if args.indent is not None and args.indent < 0:
        raise InputError(f"--indent {args.indent}: give a number of spaces, 0 or more")
    exclusion = exclusion_of(args.exclude, args.exclude_ids)
    if exclusion is not None and (args.eval_results or args.eee):
        raise InputError(
            "--eval-results and --eee publish the paper's numbers: score without --exclude / "
            "--exclude-ids for them"
        )
    gold = load_gold(args.data_dir)
    source = args.predictions if len(args.predictions) > 1 else args.predictions[0]
    predictions = load_predictions(source, gold)
    report = evaluate(
        predictions,
        gold,
        restrict_to_covered=args.covered_only,
        predicted_only=args.predicted_only,
        bootstrap=args.bootstrap,
        seed=args.seed,
    )
    if exclusion is not None:  # beyond the paper: the same numbers without these items
        ids, source = exclusion
        report = rescore_without(report, ids, gold, source=source)
    clear_caches()  # scored: what the process kept for another evaluation is not needed
    if gold.unknown_files:
        print(
            f"note: ignored unknown files in the gold folder: {', '.join(gold.unknown_files)}",
            file=sys.stderr,
        )
    if args.report:  # written first: the report never depends on stdout staying open
        write_bytes_atomic(Path(args.report), report.json_bytes(args.indent) + b"\n")
    if args.eval_results:
        from ..harness.eval_results import write_eval_results

        written = write_eval_results(
            args.eval_results,
            report.to_dict(),
            args.eval_dataset,
            dataset_revision=args.eval_dataset_revision,
            source_url=args.eval_source,
        )
        print(f"Hub evaluation results written to {written}", file=sys.stderr)
    if args.eee:
        from ..harness.eee import write_eee

        aggregate, samples = write_eee(
            args.eee,
            report.to_dict(),
            gold,
            predictions,
            model_id=args.eee_model,
            source_organization=args.eee_org,
            evaluator_relationship=args.eee_relationship,
            deployment_type=args.eee_deployment,
            model_availability=args.eee_availability,
        )
        print(f"Every Eval Ever record written to {aggregate} and {samples}", file=sys.stderr)
    if not args.quiet:
        print(report.summary())
        if args.report:
            print(f"\nreport written to {args.report}")
    if args.strict and mostly_unanswered(report):
        without = report.missing + report.unanswered
        print(
            f"respondeoqa-eval: error: --strict: {without} of {report.n_items} items have no "
            f"prediction or no answer that could be extracted (more than {MOSTLY:.0%})",
            file=sys.stderr,
        )
        return 1
    return 0


def _example(args: argparse.Namespace) -> int:
    if not 0 <= args.accuracy <= 1:
        raise InputError(f"--accuracy {args.accuracy:g}: give a share between 0 and 1")
    gold = load_gold(args.data_dir)
    rows = example_predictions(gold.records, accuracy=args.accuracy, seed=args.seed)
    write_text_atomic(Path(args.output), jsonl.encode(rows))
    print(
        f"wrote {len(rows)} synthetic example predictions to {args.output} (made up from the gold, "
        f"about {args.accuracy:.0%} right, seed {args.seed}; not a model's answers)"
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("score", help="score a predictions file with the paper's protocol")
    p.add_argument(
        "predictions",
        nargs="+",
        help="JSONL, CSV or JSON file, or a folder in the paper's layout; or lm-eval "
        "samples_*.jsonl / lighteval details_*.parquet files, or the folder holding them",
    )
    add_gold_options(p)
    p.add_argument("--report", metavar="OUT.json", help="write the full JSON report here")
    p.add_argument(
        "--indent",
        type=int,
        metavar="N",
        help="indent the report's JSON by N spaces, for people to read (default: compact, one "
        "line; 1 gives the layout of earlier versions)",
    )
    p.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap resamples for the 95%% intervals (0: none; default 1000)",
    )
    p.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default 12345)")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument(
        "--covered-only",
        action="store_true",
        help="score only the upstream files the predictions touch, whole: their items without "
        "a prediction still score 0 (the leaderboard's rule; default: every gold item counts)",
    )
    scope.add_argument(
        "--predicted-only",
        action="store_true",
        help="score only the items that have a prediction (a `run --limit N` trial); not "
        "comparable with full runs",
    )
    left_out = p.add_argument_group(
        "Without disputed items (beyond the paper; its numbers stay the default)"
    )
    left_out.add_argument(
        "--exclude",
        metavar="FILE",
        help="compute every number without these items: an item analysis CSV (`items`, or the "
        "leaderboard's item_analysis.csv: its suspected gold errors) or a file of item ids, one "
        "a line; the summary and the report's `excluded` name them",
    )
    left_out.add_argument(
        "--exclude-ids",
        metavar="ID,ID",
        help="the same for item ids given here, separated by commas (with --exclude: both)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help=f"exit with status 1 when more than {MOSTLY * 100:.0f}%% of the items have no prediction or "
        "no extractable answer (the report and summary are still written)",
    )
    hub = p.add_argument_group("Hub evaluation results (model repository)")
    hub.add_argument(
        "--eval-results",
        metavar="DIR",
        help="write the headline numbers to DIR/.eval_results/respondeoqa.yaml for a Hub model "
        "repository (accuracy in percent; per target language the paper's padded BLEU, BLEU "
        "without padding and chrF)",
    )
    hub.add_argument(
        "--eval-dataset",
        metavar="ORG/NAME",
        help="the benchmark's Hub dataset id the results refer to (needed with --eval-results)",
    )
    hub.add_argument(
        "--eval-dataset-revision",
        metavar="SHA",
        help="the benchmark dataset repository's commit the results were computed on "
        "(written as dataset.revision)",
    )
    hub.add_argument(
        "--eval-source", metavar="URL", help="optional link to the logs behind the results"
    )
    eee = p.add_argument_group("Every Eval Ever record (schema 0.3.0)")
    eee.add_argument(
        "--eee",
        metavar="DIR",
        help="write the aggregate JSON and per-item JSONL under DIR/data/respondeoqa/ORG/MODEL/ "
        "(Certamen / NLE item text is never written)",
    )
    eee.add_argument("--eee-model", metavar="ORG/NAME", help="the model's id (default: the logs')")
    eee.add_argument("--eee-org", default="unknown", metavar="NAME", help="who ran the evaluation")
    eee.add_argument(
        "--eee-relationship",
        default="third_party",
        help="first_party | third_party (default) | collaborative | other",
    )
    eee.add_argument(
        "--eee-deployment",
        default="unknown",
        help="self_deployed | externally_managed (an API) | unknown (default)",
    )
    eee.add_argument(
        "--eee-availability",
        default="unknown",
        help="open_weights | closed_weights | unknown (default)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=_score)

    p = sub.add_parser(
        "example",
        help="write a synthetic example predictions file (not a model's answers)",
        description="Write a predictions file in the format `score` and the leaderboard take: one "
        "JSONL row per gold item, {id, response}, each response a made-up reasoning line and "
        "'Answer: ...'. The responses are synthetic, built from the gold itself (about "
        "--accuracy of them give the gold answer, the rest a plausible wrong one): for trying "
        "the tools, never a result to report.",
    )
    add_gold_options(p)
    p.add_argument(
        "--output", "-o", required=True, metavar="PREDS.jsonl", help="JSONL file to write"
    )
    p.add_argument(
        "--accuracy",
        type=float,
        default=0.6,
        metavar="SHARE",
        help="share of items that get the gold answer, 0 to 1 (default 0.6)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the draw of which items are right (default 0; the same seed gives the "
        "same file)",
    )
    p.set_defaults(func=_example)
