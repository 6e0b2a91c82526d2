"""Compare two scored submissions: paired bootstrap per category, and public disagreements.

The bootstrap works on per-item scores of the items both submissions were scored on (private
items included: only aggregate differences leave this module). The disagreement table is built
from public items only and is the one place the Space shows gold answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..gold import GoldSet
from ..records import CONTENTS, LANGUAGE_PAIRS, Record

GROUPINGS: dict[str, Callable[[Record], str]] = {
    "overall": lambda r: "overall",
    "content": lambda r: r.question_content,
    "language_pair": lambda r: r.language_pair,
    "category": lambda r: r.category,
}
_ORDER = {"content": CONTENTS, "language_pair": LANGUAGE_PAIRS, "category": ("knowledge", "skill")}


@dataclass(frozen=True)
class Difference:
    """Mean score of A minus B over a group's common items, with a paired bootstrap interval."""

    grouping: str
    group: str
    n: int
    a: float
    b: float
    diff: float
    lo: float
    hi: float


def _scores(items: Mapping[str, Any]) -> dict[str, float]:
    """item id -> score for scored (non-translation) items; accepts ItemScore or plain floats."""
    out: dict[str, float] = {}
    for key, value in items.items():
        score = getattr(value, "score", value)
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            out[key] = float(score)
    return out


def paired_bootstrap(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    gold: GoldSet,
    groupings: tuple[str, ...] = ("overall", "content", "language_pair"),
    *,
    resamples: int = 1000,
    seed: int = 12345,
    level: float = 0.95,
) -> list[Difference]:
    """Paired bootstrap of mean(A) - mean(B) per group, resampling the common items of a group.

    `a` and `b` map item id -> score (or an object with `.score`); items without a score on
    either side (translation, not covered) and ids unknown to `gold` are left out.
    """
    sa, sb = _scores(a), _scores(b)
    common = [i for i in sa if i in sb and i in gold.by_id]
    rng = np.random.default_rng(seed)
    alpha = (1.0 - level) / 2.0
    out: list[Difference] = []
    for grouping in groupings:
        key_of = GROUPINGS[grouping]
        groups: dict[str, list[str]] = {}
        for item in common:
            groups.setdefault(key_of(gold.by_id[item]), []).append(item)
        order = _ORDER.get(grouping, ())
        for group in sorted(
            groups, key=lambda g: (order.index(g) if g in order else len(order), g)
        ):
            ids = groups[group]
            va = np.array([sa[i] for i in ids])
            vb = np.array([sb[i] for i in ids])
            d = va - vb
            idx = rng.integers(0, len(d), size=(resamples, len(d)))
            means = d[idx].mean(axis=1)
            lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
            out.append(
                Difference(
                    grouping,
                    group,
                    len(d),
                    float(va.mean()),
                    float(vb.mean()),
                    float(d.mean()),
                    float(lo),
                    float(hi),
                )
            )
    return out


def differences_frame(diffs: list[Difference]) -> pd.DataFrame:
    """The differences as a table (points of accuracy, A minus B)."""
    rows = [
        {
            "Grouping": d.grouping.replace("_", " "),
            "Group": d.group,
            "Items": d.n,
            "A %": round(d.a * 100, 2),
            "B %": round(d.b * 100, 2),
            "A - B (points)": round(d.diff * 100, 2),
            "95% CI": f"{d.lo * 100:.2f} to {d.hi * 100:.2f}",
            "Significant": "yes" if d.lo > 0 or d.hi < 0 else "no",
        }
        for d in diffs
    ]
    cols = ["Grouping", "Group", "Items", "A %", "B %", "A - B (points)", "95% CI", "Significant"]
    return pd.DataFrame(rows, columns=cols)


DISAGREEMENT_COLUMNS = [
    "Item",
    "Source",
    "Task",
    "Content",
    "Question",
    "Gold",
    "A answer",
    "A score",
    "B answer",
    "B score",
]


def _norm(text: Any) -> str:
    return " ".join(str(text or "").split()).casefold()


def disagreements(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    gold: GoldSet,
    *,
    limit: int = 500,
    question_chars: int = 160,
) -> pd.DataFrame:
    """Public accuracy items where A and B differ in score or in extracted answer.

    `a` and `b` map item id -> ItemScore (`score`, `extracted`). Only records of public sources
    are used, so the gold answers shown here are the published ones.
    """
    rows: list[dict[str, Any]] = []
    for item_id, ia in a.items():
        ib = b.get(item_id)
        rec = gold.by_id.get(item_id)
        if ib is None or rec is None or rec.is_private:
            continue
        if ia.score is None or ib.score is None:
            continue  # translation: BLEU is a corpus score, no per-item verdict
        if ia.score == ib.score and _norm(ia.extracted) == _norm(ib.extracted):
            continue
        question = (
            rec.question
            if len(rec.question) <= question_chars
            else (rec.question[: question_chars - 1] + "\u2026")
        )
        rows.append(
            {
                "Item": rec.id,
                "Source": rec.source,
                "Task": rec.task,
                "Content": rec.question_content,
                "Question": question,
                "Gold": rec.answers[0],
                "A answer": "" if ia.extracted is None else str(ia.extracted),
                "A score": float(ia.score),
                "B answer": "" if ib.extracted is None else str(ib.extracted),
                "B score": float(ib.score),
            }
        )
        if len(rows) >= limit:
            break
    return pd.DataFrame(rows, columns=DISAGREEMENT_COLUMNS)
