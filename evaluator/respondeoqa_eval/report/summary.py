"""The summary `respondeoqa-eval score` prints: a report as the tables of a paper.

Accuracy in percent, BLEU and chrF in points, all in the leaderboard's number style
(numbers.py: one decimal, halves up; an interval as "55.6 to 62.3"); display names from the
breakdown registry; every group resting on fewer than SMALL_GROUP items flagged; one sacreBLEU
signature per target language and metric; after the accuracy table, a Format section (beyond
the paper: answered items, format failures, lenient accuracy per task). Two banners come first
when they apply: most items have no prediction or no extractable answer (`mostly_unanswered`,
what `score --strict` refuses), and the scored gold is only a part of the benchmark, whose
numbers do not compare with the paper's headline (over all four sources). A report computed
without some items (`score --exclude`, beyond the paper) says so first, with the items. A table
with no rows is not printed.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Sequence

from ..data.breakdowns import (
    BLEU_SPLIT_LABELS,
    BLEU_SPLITS,
    BLEU_TARGETS,
    BLEU_VARIANT_LABELS,
    DIMENSIONS,
    EXTRA_LABELS,
    LANGUAGE_LABELS,
    NOT_GIVEN,
    PADDING_SENTENCE,
    SOURCE_LABELS,
    TASK_LABELS,
)
from ..data.records import TASKS
from ..data.sources import FILES, SOURCES
from ..scoring.lenient import RULES
from .model import BleuScore, FormatCounts, Report, Score, render_summary_with
from .numbers import (
    MISSING,
    SMALL_GROUP,
    SMALL_MARK,
    interval_text,
    is_small,
    percent,
    score_text,
    signed_text,
)
from .published import PUBLISHED

SHOWN_EXCLUDED = 20
"""Excluded items the summary names (the report's `excluded` lists every one)."""
MOSTLY = 0.5
"""Share of items without an answer (no prediction, or none extractable) above which the summary
warns loudly and `score --strict` exits with status 1."""
WIDTH = 96
INDENT = "  "


def unanswered_share(report: Report) -> float:
    """Share of the scored items with no prediction or no extractable answer."""
    return (report.missing + report.unanswered) / report.n_items if report.n_items else 0.0


def mostly_unanswered(report: Report) -> bool:
    """More than half the items have no answer: the scores mostly measure what is missing."""
    return unanswered_share(report) > MOSTLY


def _wrap(text: str, prefix: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=prefix, subsequent_indent=prefix)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


# -- banners ---------------------------------------------------------------------------------


def warning_text(report: Report) -> str:
    """The loud warning of a mostly unanswered submission (one paragraph)."""
    without = report.missing + report.unanswered
    return (
        f"WARNING: {without} of {report.n_items} items "
        f"({score_text(percent(unanswered_share(report)))}%) have no answer: "
        f"{report.missing} no prediction, {report.unanswered} no answer that could be "
        "extracted. They score 0 and still count, so the numbers below mostly measure what is "
        "missing. For a --limit trial, score with --predicted-only; --strict makes this exit "
        "with status 1."
    )


def exclusion_text(report: Report) -> str | None:
    """What was left out of a report computed without some items (one paragraph), else None."""
    ex = report.excluded
    if ex is None:
        return None
    text = (
        f"WITHOUT {_count(ex.n, 'ITEM').upper()}"
        + (f" ({ex.source})" if ex.source else "")
        + ": every number below is computed without them, beyond the paper's protocol (its "
        "numbers count every item)."
    )
    if ex.items:
        shown = ", ".join(ex.items[:SHOWN_EXCLUDED])
        more = len(ex.items) - SHOWN_EXCLUDED
        text += f" Left out: {shown}" + (
            f" and {more} more (the report's `excluded` lists them all)." if more > 0 else "."
        )
    if ex.unnamed:
        text += f" {_count(ex.unnamed, 'Certamen / NLE item')} left out, counted, not named."
    if ex.not_scored:
        text += (
            f" {_count(ex.not_scored, 'listed item')} {'is' if ex.not_scored == 1 else 'are'} "
            "not among the scored items: nothing to leave out."
        )
    return text


def _headline() -> str:
    return ", ".join(
        f"{row.model} {score_text(percent(row.report.accuracy.overall.score))}" for row in PUBLISHED
    )


def _covered_sources(files: set[str]) -> tuple[list[str], list[str]]:
    """(sources scored, each with the tasks it was scored on when not all; sources not scored)."""
    scored, unscored = [], []
    for source in SOURCES:
        own = [name for name, spec in FILES.items() if spec.source == source]
        have = [name for name in own if name in files]
        if not have:
            unscored.append(SOURCE_LABELS[source])
            continue
        label = SOURCE_LABELS[source]
        if len(have) < len(own):
            tasks = sorted({FILES[name].task for name in have}, key=TASKS.index)
            label += f" ({', '.join(TASK_LABELS[t].lower() for t in tasks)} only)"
        scored.append(label)
    return scored, unscored


def subset_text(report: Report) -> str | None:
    """What the scored gold covers, when it is not the whole benchmark; else None."""
    files = set(report.gold.files) & set(FILES)
    rows = sum(FILES[name].rows for name in files)
    if files == set(FILES) and report.n_items >= rows:
        return None
    scored, unscored = _covered_sources(files)
    text = (
        f"A PART OF THE BENCHMARK: scored {', '.join(scored) or 'nothing'}, "
        f"{_count(report.n_items, 'item')} from {len(files)} of the {len(FILES)} upstream files"
    )
    if report.n_items < rows:
        text += f" (only {report.n_items} of the {rows} items of these files)"
    if unscored:
        text += f"; not scored: {', '.join(unscored)}"
    return (
        f"{text}. The paper's headline accuracy ({_headline()}) is over all four sources: "
        "the numbers below do not compare with it."
    )


# -- tables ----------------------------------------------------------------------------------


def _flag(n: int | None) -> str:
    return SMALL_MARK if is_small(n) else ""


def _align_intervals(rows: list[list[str]], column: int) -> None:
    """Pad both ends of the "55.6 to 62.3" cells of `column` so that the ends line up."""
    cells = [r for r in rows if len(r) > column and " to " in r[column]]
    if not cells:
        return
    ends = [r[column].split(" to ") for r in cells]
    low, high = (max(len(e[i]) for e in ends) for i in (0, 1))
    for row, (lo, hi) in zip(cells, ends, strict=True):
        row[column] = f"{lo:>{low}} to {hi:>{high}}"


def _table(
    headers: Sequence[str],
    rows: Iterable[list[str]],
    right: Sequence[bool],
    interval: int | None = None,
) -> list[str]:
    """Columns padded to their widest cell (numbers right-aligned, the `interval` column lined
    up on its ends); a row of one cell is a section heading, after a blank line. A header
    may take two lines ("No\nprediction"), set bottom-aligned: a narrow column under a
    long name (the summary fits `WIDTH` characters)."""
    rows = list(rows)
    if interval is not None:
        _align_intervals(rows, interval)
    cells = [r for r in rows if len(r) == len(headers)]
    split = [h.split("\n") for h in headers]
    height = max(len(h) for h in split)
    head_rows = [[([""] * (height - len(h)) + h)[i] for h in split] for i in range(height)]
    widths = [max(len(str(c)) for c in col) for col in zip(*head_rows, *cells, strict=True)]

    def line(row: Sequence[str]) -> list[str]:
        if len(row) == 1:
            return ["", f"{INDENT}{row[0]}"]
        parts = [
            f"{c:>{w}}" if r else f"{c:<{w}}" for c, w, r in zip(row, widths, right, strict=True)
        ]
        return [(INDENT + "  ".join(parts)).rstrip()]

    return [out for row in [*head_rows, *rows] for out in line(row)]


def _accuracy_row(label: str, node: Score, with_ci: bool) -> list[str]:
    row = [label, score_text(percent(node.score))]
    if with_ci:
        ci = node.ci
        row.append(interval_text(*(percent(v) for v in ci)) if ci else "")
    return row + [str(node.n), _flag(node.n)]


def _accuracy(report: Report, with_ci: bool) -> list[str]:
    acc = report.accuracy
    if not acc.overall.n:
        return []
    rows: list[list[str]] = [_accuracy_row("All non-translation items", acc.overall, with_ci)]
    for key, dim in DIMENSIONS.items():
        groups = acc.breakdowns.get(key) or {}
        if not groups:
            continue
        title = dim.name + (" (short-answer items)" if key == "by_multihop" else "")
        if dim.says_nothing(groups):
            rows.append([f"{title}: {NOT_GIVEN}"])
            continue
        rows.append([title])
        for group in sorted(groups, key=dim.order):
            rows.append(_accuracy_row(INDENT + dim.label(group), groups[group], with_ci))
    if report.extra:
        rows.append(["Beyond the paper"])
        for key, node in report.extra.items():
            rows.append(_accuracy_row(INDENT + EXTRA_LABELS.get(key, key), node, with_ci))
    headers = ["", "Acc. %"] + (["95% CI"] if with_ci else []) + ["n", ""]
    right = [False, True] + ([False] if with_ci else []) + [True, False]
    return [
        f"Accuracy (%): mean per-item score over the {acc.overall.n} non-translation items",
        *_table(headers, rows, right, interval=2 if with_ci else None),
    ]


def _amount(value: float | None) -> str:
    """Points summed over items: a whole number without decimals, partial credit with one."""
    if value is None:
        return MISSING
    return str(int(value)) if float(value).is_integer() else score_text(value)


def _points_of(value: float) -> str:
    amount = _amount(value)
    return f"{amount} point" + ("" if amount == "1" else "s")


FORMAT_LEGEND = (
    "No prediction: items the file has no answer for. Answered: the paper's rules extracted an "
    "answer from the prediction. Format failure: the paper's answer is missing or not "
    "well-formed (multiple choice: not an option letter; feet: not a list of feet) and a "
    "lenient rule reads one; Points: what those readings would score, summed (not a count: a "
    "feet item scores its share of feet right). Lenient % scores every "
    "item's lenient reading (the paper's answer where it is well-formed); it is not the "
    "paper's number. Rules: docs/format-compliance.md."
)


def _format(report: Report) -> list[str]:
    """The Format section: per task, how much of the error is the answer format."""
    fc = report.format_compliance
    if fc is None or not (fc.overall.n or fc.by_task):
        return []
    lenient = fc.accuracy_lenient

    def row(label: str, counts: FormatCounts, paper: Score | None, easy: Score | None) -> list:
        gap = None if paper is None or easy is None else percent(easy.score - paper.score)
        return [
            label,
            str(counts.n),
            str(counts.missing),
            str(counts.answered),
            str(counts.failures),
            _amount(counts.right),
            score_text(percent(paper.score)) if paper else MISSING,
            score_text(percent(easy.score)) if easy else MISSING,
            signed_text(gap),
        ]

    rows = []
    if fc.overall.n:
        rows.append(
            row("All non-translation items", fc.overall, report.accuracy.overall, lenient.overall)
        )
    for task in (*DIMENSIONS["by_task"].groups, "translation"):
        counts = fc.by_task.get(task)
        if counts is None:
            continue
        paper, easy = report.group("by_task", task), lenient.group("by_task", task)
        rows.append(row(INDENT + TASK_LABELS[task], counts, paper, easy))
    headers = ["", "Items", "No\nprediction", "Answered", "Format\nfailures", "Points"]
    headers += ["Acc. %", "Lenient\n%", "Gap"]
    right = [False] + [True] * 8
    fired = ", ".join(
        f"{name} {c.failures}" + ("" if c.right is None else f" (worth {_points_of(c.right)})")
        for _, names in RULES.values()
        for name in names
        if (c := fc.by_rule.get(name)) is not None
    )
    return [
        "Format (beyond the paper): how much of the error is the answer format",
        *_table(headers, rows, right),
        *(_wrap(f"Lenient rules that read a format failure: {fired}.", INDENT) if fired else []),
        *_wrap(FORMAT_LEGEND, INDENT),
    ]


def _points(value: float | None) -> str:
    return score_text(None if value is None or math.isnan(value) else value)


def _bleu_rows(report: Report) -> list[tuple[str, str, BleuScore]]:
    return [
        (target, split, b)
        for target in BLEU_TARGETS
        for split in BLEU_SPLITS
        if (b := report.bleu_score(target, split)) is not None
    ]


def _signatures(found: list[tuple[str, str, BleuScore]]) -> list[str]:
    """One line per target language and metric (per split where the splits' differ)."""
    lines = []
    for target in BLEU_TARGETS:
        mine = [(split, b) for t, split, b in found if t == target]
        for metric, field in (("BLEU", "signature"), ("chrF", "chrf_signature")):
            by_signature: dict[str, list[str]] = {}
            for split, b in mine:
                if getattr(b, field):
                    by_signature.setdefault(getattr(b, field), []).append(split)
            for signature, splits in by_signature.items():
                label = f"{metric} \u2192 {LANGUAGE_LABELS[target]}"
                if len(by_signature) > 1:
                    label += f" ({', '.join(BLEU_SPLIT_LABELS[s] for s in splits)})"
                lines.append((label, signature))
    if not lines:
        return []
    width = max(len(label) for label, _ in lines)
    return [f"{INDENT}sacreBLEU signatures:"] + [
        f"{INDENT * 2}{label:<{width}}  {signature}" for label, signature in lines
    ]


def _bleu(report: Report, with_ci: bool) -> list[str]:
    found = _bleu_rows(report)
    if not found:
        return []
    paper, plain = (f"BLEU ({BLEU_VARIANT_LABELS[k]})" for k in ("score", "variable_refs"))
    headers = ["Target", "Split", paper] + (["95% CI"] if with_ci else []) + [plain, "chrF"]
    headers += ["n", ""]
    right = [False, False, True] + ([False] if with_ci else []) + [True, True, True, False]
    rows = []
    for target, split, b in found:
        row = [LANGUAGE_LABELS[target], BLEU_SPLIT_LABELS[split], _points(b.score)]
        if with_ci:
            row.append(interval_text(*b.ci) if b.ci else "")
        row += [_points(b.variable_refs), _points(b.chrf), str(b.n), _flag(b.n)]
        rows.append(row)
    legend = f"{paper} is the paper's number. {PADDING_SENTENCE}"
    return [
        "Translation (BLEU and chrF, points): corpus scores per target language",
        *_table(headers, rows, right, interval=3 if with_ci else None),
        *_wrap(legend, INDENT),
        *_signatures(found),
    ]


# -- the summary -----------------------------------------------------------------------------


def _provenance(report: Report) -> str | None:
    p = report.provenance
    if p is None or p.is_empty():
        return None
    tool = " ".join(x for x in (p.tool, p.tool_version) if x)
    parts = [x for x in (tool, f"model {p.model}" if p.model else None) if x]
    if p.prompt_version:
        parts.append(f"prompt {p.prompt_version}")
    return f"Made by: {', '.join(parts)}" if parts else None


def summarize(report: Report) -> str:
    """The report as text: banners, the accuracy table, the translation table."""
    gold = report.gold
    with_ci = bool(report.evaluator.bootstrap.get("resamples"))
    given = report.n_items - report.missing
    sources = ", ".join(SOURCE_LABELS.get(s, s) for s in report.sources)
    without = "" if report.excluded is None else f", without {_count(report.excluded.n, 'item')}"
    lines = [
        f"RespondeoQA evaluation, paper protocol{without} (respondeoqa-eval "
        f"{report.evaluator.version})",
        f"Predictions: {report.predictions or '-'} ({given} of {report.n_items} items; "
        f"{report.missing} missing, {report.unanswered} unanswered)",
    ]
    made_by = _provenance(report)
    if made_by:
        lines.append(made_by)
    lines.append(
        f"Gold: {_count(report.n_items, 'item')} in {_count(len(gold.files), 'upstream file')}"
        + (f" ({sources})" if sources else "")
    )
    if gold.unknown_files:
        lines.append(f"Ignored unknown files in the gold folder: {', '.join(gold.unknown_files)}")
    excluded = exclusion_text(report)
    if excluded:
        # item ids whole: "latin-grammar-junior-scholarship_2.4.3" is not cut at a hyphen
        whole = textwrap.wrap(excluded, WIDTH, break_on_hyphens=False, break_long_words=False)
        lines += ["", "=" * WIDTH, *whole, "=" * WIDTH]
    if mostly_unanswered(report):
        lines += ["", "=" * WIDTH, *_wrap(warning_text(report)), "=" * WIDTH]
    subset = subset_text(report)
    if subset:
        lines += ["", *_wrap(subset)]
    if with_ci:
        b = report.evaluator.bootstrap
        lines += [
            "",
            *_wrap(
                f"95% CI: percentile bootstrap over items ({b.get('resamples')} resamples, "
                f"seed {b.get('seed')}); {MISSING} where every item of a group scores alike "
                "(one item, or all right or all wrong), which the bootstrap cannot tell from certainty."
            ),
        ]
    flagged = False
    for table in (_accuracy(report, with_ci), _format(report), _bleu(report, with_ci)):
        if table:
            lines += ["", *table]
            flagged = flagged or any(line.endswith(SMALL_MARK) for line in table)
    if flagged:
        lines += [
            "",
            f"{SMALL_MARK} fewer than {SMALL_GROUP} items: the score moves a lot with one or two "
            "items; read it with its interval.",
        ]
    return "\n".join(lines)


render_summary_with(summarize)  # Report.summary() renders with this (report/model.py)
