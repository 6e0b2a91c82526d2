"""`respondeoqa-eval items REPORTS...`: item analysis across entries (`analysis/`), as a CSV and
a short summary. Reading the reports and the gold, and writing, happen here; the analysis and
its texts are pure."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ..analysis import TOP_ITEMS, analyze_items, csv_text, summary_text
from ..data.gold import load_gold
from ..errors import InputError
from ..io import read_json, write_text_atomic
from ..report.model import Report
from .score import add_gold_options


def read_report(path: Path) -> Report:
    """A report written by `score --report`, with its per-item results (InputError otherwise)."""
    data = read_json(path)
    try:
        report = Report.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(
            f"{path}: not a report written by `respondeoqa-eval score --report` ({exc!r})"
        ) from None
    if not report.items:
        raise InputError(f"{path}: the report has no per-item results (`items` is empty)")
    return report


def entry_names(paths: Sequence[Path]) -> list[str]:
    """Each report's name: its file name, or the path as given where file names repeat."""
    names = [p.name for p in paths]
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]
    if len(set(names)) < len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise InputError(f"the same report is given twice: {', '.join(repeated)}")
    return names


def _items(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.reports]
    if len(paths) < 2:
        raise InputError("items needs at least two reports: it compares entries item by item")
    if args.top < 0:
        raise InputError(f"--top {args.top}: give a number of items, 0 or more")
    names = entry_names(paths)
    reports = {name: read_report(path) for name, path in zip(names, paths, strict=True)}
    gold = None if args.no_gold else load_gold(args.data_dir).by_id
    analysis = analyze_items(
        {name: r.items for name, r in reports.items()},
        gold,
        public_only=args.public_only,
        private_text=args.private_text,
    )
    if not analysis.items:
        raise InputError(
            "the reports hold no item with a per-item score (translation items are scored as "
            "a corpus)" + (" among the public items" if args.public_only else "")
        )
    write_text_atomic(Path(args.output), csv_text(analysis))
    if not args.quiet:
        print(summary_text(analysis, args.top))
        print(
            f"\n{len(analysis.items)} rows written to {args.output} "
            "(columns: docs/item-analysis.md)"
        )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "items",
        help="item analysis across reports: difficulty, discrimination, common wrong answers, "
        "suspected gold errors",
        description="Compare the per-item results of several `score --report` files: per item "
        "the share of entries right, its discrimination (point-biserial), the most common "
        "wrong answer and a suspected-gold-error flag. Writes a CSV and prints a summary.",
    )
    p.add_argument("reports", nargs="+", metavar="REPORT.json", help="reports of `score --report`")
    add_gold_options(p)
    p.add_argument(
        "--output",
        "-o",
        default="items.csv",
        metavar="ITEMS.csv",
        help="CSV to write (default items.csv)",
    )
    p.add_argument(
        "--public-only",
        action="store_true",
        help="analyse public items only (Certamen and NLE items are only counted)",
    )
    p.add_argument(
        "--private-text",
        action="store_true",
        help="also write the question and gold of Certamen / NLE items to the CSV (default: "
        "public items only; never share such a file)",
    )
    p.add_argument(
        "--no-gold",
        action="store_true",
        help="read no gold: no gold format check, no question / gold columns",
    )
    p.add_argument(
        "--top",
        type=int,
        default=TOP_ITEMS,
        metavar="N",
        help=f"items listed (default {TOP_ITEMS})",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=_items)
