"""The report: a typed model of the JSON contract of docs/report.md (its text: summary.py).

Frozen dataclasses with `to_dict` / `from_dict`; `Report.from_dict(r.to_dict()) == r` and
`to_dict` emits exactly the documented JSON. The Space, the paper's rows and the tests read
reports through this model, never by string paths.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import orjson
import sacrebleu

from .._version import __version__
from ..data.breakdowns import groups_of
from ..data.gold import GoldSet
from ..data.records import PRIVATE_SOURCES, SOURCES
from ..metrics import EXACT_MATCH_MACRONS, METRICS
from ..predictions.provenance import Provenance
from ..scoring.aggregate import Bootstrap, accuracy, bleu, format_compliance
from ..scoring.lenient import Lenient
from ..scoring.per_item import ItemScore, is_answered

SCHEMA_VERSION = 1

# The model does not import its renderer (report/summary.py sits above it and imports it):
# summary.py registers `summarize` here when it is imported, which `import respondeoqa_eval.report`
# (the package, run before any of its modules) always does.
_renderer: dict[str, Callable[[Report], str]] = {}


def render_summary_with(summarize: Callable[[Report], str]) -> None:
    """Register the function behind `Report.summary()` (called by report/summary.py)."""
    _renderer["summary"] = summarize


def _ci(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and None not in value:
        return (float(value[0]), float(value[1]))
    return None


@dataclass(frozen=True)
class Score:
    """A group's value: accuracy in [0, 1] (or BLEU 0-100), its item count and 95% interval.

    `n` is None only for numbers copied from the paper, which publishes no counts.
    """

    score: float
    n: int | None
    ci: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": self.score, "n": self.n}
        if self.ci is not None:
            out["ci"] = list(self.ci)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Score:
        n = data.get("n")
        return cls(float(data["score"]), None if n is None else int(n), _ci(data.get("ci")))


@dataclass(frozen=True)
class BleuScore:
    """Corpus BLEU of one target language and split (docs/report.md, `B`)."""

    score: float  # the paper's BLEU: references padded with empty strings (PROTOCOL 5)
    n: int | None
    signature: str = ""
    variable_refs: float | None = None  # BLEU without the padding
    chrf: float | None = None
    chrf_signature: str = ""
    ci: tuple[float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "score": self.score,
            "n": self.n,
            "signature": self.signature,
            "variable_refs": self.variable_refs,
            "chrf": self.chrf,
            "chrf_signature": self.chrf_signature,
        }
        if self.ci is not None:
            out["ci"] = list(self.ci)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BleuScore:
        def num(key: str) -> float | None:
            value = data.get(key)
            return None if value is None else float(value)

        n = data.get("n")
        return cls(
            score=float(data["score"]),
            n=None if n is None else int(n),
            signature=str(data.get("signature") or ""),
            variable_refs=num("variable_refs"),
            chrf=num("chrf"),
            chrf_signature=str(data.get("chrf_signature") or ""),
            ci=_ci(data.get("ci")),
        )


@dataclass(frozen=True)
class Accuracy:
    """`accuracy`: the overall score and one mapping group -> Score per breakdown dimension."""

    overall: Score
    breakdowns: Mapping[str, Mapping[str, Score]] = field(default_factory=dict)

    def group(self, dimension: str, group: str) -> Score | None:
        """The score of one group (e.g. `("by_content", "grammar")`), None when absent."""
        return self.breakdowns.get(dimension, {}).get(group)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"overall": self.overall.to_dict()}
        for dim, groups in self.breakdowns.items():
            out[dim] = {g: s.to_dict() for g, s in groups.items()}
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Accuracy:
        breakdowns = {
            dim: {g: Score.from_dict(s) for g, s in (groups or {}).items() if s is not None}
            for dim, groups in data.items()
            if dim != "overall"
        }
        return cls(Score.from_dict(data["overall"]), breakdowns)


@dataclass(frozen=True)
class ItemResult:
    """One gold item's outcome (never its gold answer); `groups` are its breakdown groups."""

    id: str
    question_id: str
    question_language: str
    task: str
    source: str
    question_content: str
    extracted: str | None
    score: float | None  # None for translation items (scored as a corpus)
    missing: bool
    groups: Mapping[str, str] = field(default_factory=dict)
    lenient: Lenient | None = None  # beyond the paper; None in older reports and stored items

    @property
    def is_private(self) -> bool:
        return self.source in PRIVATE_SOURCES

    @property
    def answered(self) -> bool:
        """The paper's rules extracted an answer (False: no prediction, or none extracted)."""
        return is_answered(self.missing, self.extracted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question_id": self.question_id,
            "question_language": self.question_language,
            "task": self.task,
            "source": self.source,
            "question_content": self.question_content,
            "extracted": self.extracted,
            "score": self.score,
            "missing": self.missing,
            "groups": dict(self.groups),
            "answered": self.answered,
            "lenient": None if self.lenient is None else self.lenient.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ItemResult:
        score = data.get("score")
        extracted = data.get("extracted")
        return cls(
            id=str(data["id"]),
            question_id=str(data.get("question_id") or data["id"]),
            question_language=str(data.get("question_language") or ""),
            task=str(data.get("task") or ""),
            source=str(data.get("source") or ""),
            question_content=str(data.get("question_content") or ""),
            extracted=None if extracted is None else str(extracted),
            score=None if score is None else float(score),
            missing=bool(data.get("missing")),
            groups={str(k): str(v) for k, v in (data.get("groups") or {}).items()},
            lenient=(
                Lenient.from_dict(data["lenient"])
                if isinstance(data.get("lenient"), Mapping)
                else None
            ),
        )

    @classmethod
    def of(cls, it: ItemScore, groups: Mapping[str, str] | None = None) -> ItemResult:
        """The result of a scored item; `groups` is `groups_of(it.record)` if already known."""
        r = it.record
        return cls(
            r.id,
            r.question_id,
            r.question_language,
            r.task,
            r.source,
            r.question_content,
            it.extracted,
            it.score,
            it.missing,
            groups_of(r) if groups is None else groups,
            it.lenient,
        )


@dataclass(frozen=True)
class EvaluatorInfo:
    """Who scored and how: enough to reproduce every number."""

    name: str = "respondeoqa-eval"
    version: str = __version__
    protocol: str = "paper"
    sacrebleu: str = sacrebleu.__version__
    bootstrap: Mapping[str, Any] = field(default_factory=dict)
    signatures: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "protocol": self.protocol,
            "sacrebleu": self.sacrebleu,
            "bootstrap": dict(self.bootstrap),
            "signatures": dict(self.signatures),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvaluatorInfo:
        return cls(
            name=str(data.get("name", "")),
            version=str(data.get("version", "")),
            protocol=str(data.get("protocol", "")),
            sacrebleu=str(data.get("sacrebleu", "")),
            bootstrap=dict(data.get("bootstrap") or {}),
            signatures=dict(data.get("signatures") or {}),
        )


@dataclass(frozen=True)
class GoldInfo:
    """Which gold the report was scored against."""

    files: tuple[str, ...] = ()
    n_items: int = 0
    sources: tuple[str, ...] = ()
    unknown_files: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "n_items": self.n_items,
            "sources": list(self.sources),
            "unknown_files": list(self.unknown_files),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GoldInfo:
        return cls(
            files=tuple(data.get("files") or ()),
            n_items=int(data.get("n_items") or 0),
            sources=tuple(data.get("sources") or ()),
            unknown_files=tuple(data.get("unknown_files") or ()),
        )


@dataclass(frozen=True)
class FormatCounts:
    """Items of one task (or all accuracy items): how many, how many have no prediction, how
    many the paper's rules extracted an answer from (so n - missing - answered predictions
    gave nothing to extract), the format failures (the paper's answer missing or not
    well-formed, a lenient rule read one) and the points the lenient readings of those score
    (None for translation, scored as a corpus)."""

    n: int
    missing: int
    answered: int
    failures: int
    right: float | None

    @property
    def unanswered(self) -> int:
        """Predictions from which the paper's rules extracted nothing."""
        return self.n - self.missing - self.answered

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "missing": self.missing,
            "answered": self.answered,
            "failures": self.failures,
            "right": self.right,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FormatCounts:
        right = data.get("right")
        return cls(
            int(data.get("n") or 0),
            int(data.get("missing") or 0),
            int(data.get("answered") or 0),
            int(data.get("failures") or 0),
            None if right is None else float(right),
        )


@dataclass(frozen=True)
class RuleCounts:
    """The format failures one lenient rule read, and the points they score (None: translation)."""

    failures: int
    right: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"failures": self.failures, "right": self.right}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleCounts:
        right = data.get("right")
        return cls(int(data.get("failures") or 0), None if right is None else float(right))


@dataclass(frozen=True)
class FormatCompliance:
    """`format_compliance` (beyond the paper; docs/format-compliance.md): how much of the error
    is the answer format. `accuracy_lenient` has the shape of `accuracy`."""

    accuracy_lenient: Accuracy
    overall: FormatCounts
    by_task: Mapping[str, FormatCounts] = field(default_factory=dict)
    by_rule: Mapping[str, RuleCounts] = field(default_factory=dict)
    signature: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature,
            "overall": self.overall.to_dict(),
            "by_task": {k: v.to_dict() for k, v in self.by_task.items()},
            "by_rule": {k: v.to_dict() for k, v in self.by_rule.items()},
            "accuracy_lenient": self.accuracy_lenient.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FormatCompliance:
        return cls(
            accuracy_lenient=Accuracy.from_dict(data["accuracy_lenient"]),
            overall=FormatCounts.from_dict(data.get("overall") or {}),
            by_task={k: FormatCounts.from_dict(v) for k, v in (data.get("by_task") or {}).items()},
            by_rule={k: RuleCounts.from_dict(v) for k, v in (data.get("by_rule") or {}).items()},
            signature=str(data.get("signature") or ""),
        )


@dataclass(frozen=True)
class Exclusion:
    """Items left out of a report's numbers (beyond the paper: `report.exclusion.rescore_without`,
    e.g. suspected gold errors): every number of the report is computed without them. `items`
    names the excluded items, in report order; `unnamed` counts those left unnamed (the
    leaderboard names no Certamen / NLE item); `source` says where the list came from, in
    words; `not_scored`: listed ids that are not among the report's items (nothing to leave
    out)."""

    items: tuple[str, ...] = ()
    source: str = ""
    unnamed: int = 0
    not_scored: int = 0

    @property
    def n(self) -> int:
        """How many items were left out."""
        return len(self.items) + self.unnamed

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "items": list(self.items),
            "unnamed": self.unnamed,
            "source": self.source,
            "not_scored": self.not_scored,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Exclusion:
        return cls(
            items=tuple(str(i) for i in data.get("items") or ()),
            source=str(data.get("source") or ""),
            unnamed=int(data.get("unnamed") or 0),
            not_scored=int(data.get("not_scored") or 0),
        )


BleuTable = Mapping[str, Mapping[str, "BleuScore | None"]]


@dataclass(frozen=True)
class Report:
    """One evaluation: the documented JSON contract (docs/report.md), typed."""

    accuracy: Accuracy
    bleu: BleuTable = field(default_factory=dict)
    extra: Mapping[str, Score] = field(default_factory=dict)
    gold: GoldInfo = field(default_factory=GoldInfo)
    evaluator: EvaluatorInfo = field(default_factory=EvaluatorInfo)
    predictions: str = ""
    provenance: Provenance | None = None  # what the predictions file says about its run
    n_items: int = 0
    missing: int = 0
    unanswered: int = 0
    items: tuple[ItemResult, ...] = ()
    schema_version: int = SCHEMA_VERSION
    format_compliance: FormatCompliance | None = None  # beyond the paper; None in older reports
    excluded: Exclusion | None = None  # items left out (beyond the paper); None: the paper's

    # -- reading -----------------------------------------------------------------------

    def group(self, dimension: str, group: str) -> Score | None:
        """An accuracy group's score, e.g. `report.group("by_source", "nle")`."""
        return self.accuracy.group(dimension, group)

    def bleu_score(self, target: str, split: str = "overall") -> BleuScore | None:
        """BLEU of one target language and split, None when there were no such items."""
        return (self.bleu.get(target) or {}).get(split)

    def lenient_gap(self, dimension: str | None = None, group: str | None = None) -> float | None:
        """Lenient minus paper accuracy, overall or of one group (fractions): the share of the
        items that the answer format alone cost. None when the report has no format part or
        no such group."""
        fc = self.format_compliance
        if fc is None:
            return None
        paper: Score | None
        lenient: Score | None
        if dimension is None:
            paper, lenient = self.accuracy.overall, fc.accuracy_lenient.overall
        else:
            paper = self.accuracy.group(dimension, group or "")
            lenient = fc.accuracy_lenient.group(dimension, group or "")
        if paper is None or lenient is None or not paper.n:
            return None
        return lenient.score - paper.score

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources scored, in the paper's order."""
        return tuple(s for s in SOURCES if s in self.gold.sources)

    @property
    def has_private(self) -> bool:
        return any(s in PRIVATE_SOURCES for s in self.gold.sources)

    def without_items(self) -> Report:
        """The same report without its per-item list (what the leaderboard keeps per entry)."""
        return replace(self, items=())

    # -- the JSON contract -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The report as docs/report.md documents it (`excluded` only when items were left
        out: a report of the paper's protocol is the same JSON as before it existed)."""
        out: dict[str, Any] = {
            "schema_version": self.schema_version,
            "evaluator": self.evaluator.to_dict(),
            "predictions": self.predictions,
            "provenance": None if self.provenance is None else self.provenance.to_dict(),
            "gold": self.gold.to_dict(),
            "n_items": self.n_items,
            "missing": self.missing,
            "unanswered": self.unanswered,
            "accuracy": self.accuracy.to_dict(),
            "extra": {k: v.to_dict() for k, v in self.extra.items()},
            "bleu": {
                lang: {split: None if b is None else b.to_dict() for split, b in splits.items()}
                for lang, splits in self.bleu.items()
            },
            "format_compliance": (
                None if self.format_compliance is None else self.format_compliance.to_dict()
            ),
            "items": [it.to_dict() for it in self.items],
        }
        if self.excluded is not None:
            out["excluded"] = self.excluded.to_dict()
        return out

    def to_json(self, indent: int | None = None) -> str:
        """The report as JSON text (`json_bytes`)."""
        return self.json_bytes(indent).decode("utf-8")

    def json_bytes(self, indent: int | None = None) -> bytes:
        """The report as UTF-8 JSON: compact (orjson: a full-size report in about 20 ms, the
        standard library takes 6x that), or indented by `indent` spaces for people to read.
        A number that is not finite is an error (JSON has none), as in `json.dumps`."""
        data = self.to_dict()
        if indent is not None:
            text = json.dumps(data, ensure_ascii=False, indent=indent, allow_nan=False)
            return text.encode("utf-8")
        _check_finite(data)
        return orjson.dumps(data, default=_as_float)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Report:
        """Read a report dict (unknown keys are ignored, as docs/report.md asks of readers)."""
        return cls(
            schema_version=int(data.get("schema_version") or SCHEMA_VERSION),
            evaluator=EvaluatorInfo.from_dict(data.get("evaluator") or {}),
            predictions=str(data.get("predictions") or ""),
            provenance=(
                Provenance.from_dict(data["provenance"])
                if isinstance(data.get("provenance"), Mapping)
                else None
            ),
            gold=GoldInfo.from_dict(data.get("gold") or {}),
            n_items=int(data.get("n_items") or 0),
            missing=int(data.get("missing") or 0),
            unanswered=int(data.get("unanswered") or 0),
            accuracy=Accuracy.from_dict(data["accuracy"]),
            extra={k: Score.from_dict(v) for k, v in (data.get("extra") or {}).items() if v},
            bleu=_bleu_table(data.get("bleu") or {}),
            items=tuple(ItemResult.from_dict(it) for it in data.get("items") or ()),
            format_compliance=(
                FormatCompliance.from_dict(data["format_compliance"])
                if isinstance(data.get("format_compliance"), Mapping)
                else None
            ),
            excluded=(
                Exclusion.from_dict(data["excluded"])
                if isinstance(data.get("excluded"), Mapping)
                else None
            ),
        )

    def summary(self) -> str:
        """The summary `respondeoqa-eval score` prints (report/summary.py)."""
        return _renderer["summary"](self)


def _as_float(value: Any) -> float:
    """What `orjson` does not write itself but `json.dumps` does: float subclasses (numpy's)."""
    if isinstance(value, float):
        return float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _check_finite(data: dict[str, Any]) -> None:
    """Refuse NaN and infinities where `orjson` would write them as null: in every part but the
    items (checked by the standard library, a few ms), and the items' scores (summed: a sum of
    floats is finite only when each is)."""
    json.dumps({k: v for k, v in data.items() if k != "items"}, allow_nan=False)
    scores = [it["score"] for it in data["items"] if it["score"] is not None]
    scores += [it["lenient"]["score"] or 0.0 for it in data["items"] if it["lenient"]]
    if not math.isfinite(sum(scores)):
        raise ValueError("Out of range float values are not JSON compliant: an item's score")


def _bleu_table(data: Mapping[str, Any]) -> dict[str, dict[str, BleuScore | None]]:
    return {
        lang: {
            split: None if b is None else BleuScore.from_dict(b)
            for split, b in (splits or {}).items()
        }
        for lang, splits in data.items()
    }


def build_report(
    items: list[ItemScore],
    gold: GoldSet,
    boot: Bootstrap,
    origin: str = "",
    provenance: Provenance | None = None,
    *,
    translations: BleuTable | None = None,
) -> Report:
    """The report of per-item scores (pure): aggregates, BLEU, signatures, per-item results.
    `translations`: the `bleu` part when it is known already, of these same translation items
    scored by this evaluator with `boot` (it depends on them alone: `exclusion.py` keeps it
    when it leaves out accuracy items only)."""
    # items of the same groups share one (read-only) mapping: a few hundred, not one per item
    shared: dict[tuple, Mapping[str, str]] = {}
    groups = [
        shared.setdefault(tuple(g.items()), g) for g in (groups_of(it.record) for it in items)
    ]
    acc, extra = accuracy(items, boot, groups)
    # next, while accuracy's matrices are freed memory: its own take as much (issue 31)
    compliance = FormatCompliance.from_dict(format_compliance(items, boot, groups))
    records = [it.record for it in items]
    return Report(
        accuracy=Accuracy.from_dict(acc),
        extra={k: Score.from_dict(v) for k, v in extra.items()},
        bleu=_bleu_table(bleu(items, boot)) if translations is None else translations,
        gold=GoldInfo(
            files=tuple(sorted({r.file for r in records})),
            n_items=len(records),
            sources=tuple(s for s in SOURCES if any(r.source == s for r in records)),
            unknown_files=tuple(gold.unknown_files),
        ),
        evaluator=EvaluatorInfo(
            bootstrap={"resamples": boot.resamples, "seed": boot.seed, "level": boot.level},
            signatures={
                **{task: str(metric.signature) for task, metric in METRICS.items()},
                "short_answer_macron_sensitive": str(EXACT_MATCH_MACRONS.signature),
            },
        ),
        predictions=origin,
        provenance=provenance,
        n_items=len(items),
        missing=sum(it.missing for it in items),
        unanswered=sum(1 for it in items if not it.missing and not it.answered),
        items=tuple(ItemResult.of(it, g) for it, g in zip(items, groups, strict=True)),
        format_compliance=compliance,
    )
