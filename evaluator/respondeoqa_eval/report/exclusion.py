"""A report's numbers without some items (beyond the paper): `rescore_without`.

Suspected gold errors (the item analysis's flags) are disputed items; a reader may want every
number without them. The per-item results of a report hold what every aggregate is computed
from (each item's extracted answer, score and lenient reading); the gold adds what they do not
hold (the references BLEU needs, the macron-sensitive score of short answers). So the numbers
of a report without some items are the aggregates of its other items, computed exactly as
`evaluate()` computes them (`build_report`, the same bootstrap settings, the items in the same
order): the same numbers, to the last bit, as scoring the predictions again against the gold
without those items. The paper's numbers stay the default everywhere; a report made here
carries its `excluded` label (which items, how many, from what list).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from sacrebleu import __version__ as sacrebleu_version

from .._version import __version__
from ..data.gold import GoldSet
from ..data.records import PRIVATE_SOURCES, Record
from ..errors import InputError
from ..metrics import short_answer_macron_sensitive
from ..scoring.aggregate import LEVEL, Bootstrap
from ..scoring.per_item import ItemScore
from .model import Exclusion, ItemResult, Report, build_report

MAX_NAMED_UNKNOWN = 5
"""Unknown ids an error names (it counts the rest)."""


def _bootstrap(report: Report) -> Bootstrap:
    """The report's own bootstrap settings (the evaluator's defaults where it records none)."""
    given = report.evaluator.bootstrap
    default = Bootstrap()
    return Bootstrap(
        resamples=int(given.get("resamples", default.resamples)),
        seed=int(given.get("seed", default.seed)),
        level=float(given.get("level", LEVEL)),
    )


def _item_score(record: Record, it: ItemResult) -> ItemScore:
    """The ItemScore `score_items` made of `record` when the report was scored: its stored
    answer, score and lenient reading; the macron-sensitive score, which the report keeps per
    group only, from the same answer (as `per_item.score_one` computes it)."""
    if record.task != it.task or record.source != it.source:
        raise InputError(
            f"item {it.id}: the gold's item is a {record.source} {record.task} item, the "
            f"report's a {it.source} {it.task} one (not the gold the report was scored on)"
        )
    sensitive = None
    if record.task == "short_answer":
        sensitive = short_answer_macron_sensitive(
            record.answers, record.answer_language, it.extracted
        )
    return ItemScore(record, it.extracted, it.score, it.missing, sensitive, it.lenient)


def rescore_without(
    report: Report,
    exclude: Iterable[str],
    gold: GoldSet,
    *,
    source: str = "",
    name_private: bool = True,
) -> Report:
    """`report` with every number computed without the items `exclude` names (item ids).

    Equal, number for number and interval for interval, to `evaluate()` of the same
    predictions against `gold` without those items (the items the report was scored on, less
    the excluded ones; its bootstrap settings). `report` needs its per-item results (a
    `score --report` file, `evaluate()`'s report; with their lenient readings when it has a
    format part) and `gold` the records it was scored on. The result carries `excluded`: the
    items left out (named in report order; Certamen / NLE ones only counted unless
    `name_private`), `source` (where the list came from, in words) and how many listed ids
    were not among its items. Pure; InputError when the report cannot be re-aggregated.
    """
    if not report.items:
        raise InputError(
            "the report has no per-item results: its numbers cannot be computed without items"
        )
    if report.format_compliance is not None and any(it.lenient is None for it in report.items):
        raise InputError(
            "the report's items have no lenient readings (an older report): its format "
            "compliance cannot be computed without items; score the predictions again"
        )
    wanted = set(exclude)
    unknown = sorted(i for i in wanted if i not in gold.by_id)
    if unknown:
        shown = ", ".join(unknown[:MAX_NAMED_UNKNOWN])
        more = (
            f" and {len(unknown) - MAX_NAMED_UNKNOWN} more"
            if len(unknown) > MAX_NAMED_UNKNOWN
            else ""
        )
        raise InputError(f"not items of the gold: {shown}{more}")
    kept: list[ItemScore] = []
    left_out: list[ItemResult] = []
    for it in report.items:
        if it.id in wanted:
            left_out.append(it)
            continue
        record = gold.by_id.get(it.id)
        if record is None:
            raise InputError(
                f"item {it.id} of the report is not in the gold (not the gold the report was "
                "scored on)"
            )
        kept.append(_item_score(record, it))
    named = [it.id for it in left_out if name_private or it.source not in PRIVATE_SOURCES]
    exclusion = Exclusion(
        items=tuple(named),
        source=source,
        unnamed=len(left_out) - len(named),
        not_scored=len(wanted) - len(left_out),
    )
    # BLEU rests on the translation items alone: when none is left out, the report's is the
    # re-score's, to the last bit, if this evaluator and sacreBLEU computed it (most of the time)
    same = all(it.task != "translation" for it in left_out) and (
        (report.evaluator.version, report.evaluator.sacrebleu) == (__version__, sacrebleu_version)
    )
    new = build_report(
        kept,
        gold,
        _bootstrap(report),
        report.predictions,
        report.provenance,
        translations=report.bleu if same else None,
    )
    return replace(
        new,
        gold=replace(new.gold, unknown_files=report.gold.unknown_files),
        format_compliance=None if report.format_compliance is None else new.format_compliance,
        excluded=exclusion,
    )
