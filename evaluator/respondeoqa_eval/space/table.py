"""Pure functions from stored entries (and the paper's rows) to pandas tables.

Two shapes of the leaderboard: `leaderboard_frame` is the data (numbers as numbers, the interval
as two numeric columns, Rank and Items integers; the CSV, the API and the tests read it), and
`display_frame` / `board_html` is what the page shows (one decimal, the interval as one
"55.6 to 62.3" cell, "—" for a missing value, the best value of each column in bold).

Every user-supplied string (model name, link, parameter count) reaches the page as text:
`board_html` escapes every cell and attribute it writes (the page's HTML component would run
any markup it is given), and the other tables are Dataframes with "str" columns.
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd
from pandas.io.formats.style import Styler

from ..breakdowns import (
    BLEU_SPLIT_LABELS,
    BLEU_SPLITS,
    BLEU_TARGETS,
    DIMENSIONS,
    LANGUAGE_LABELS,
    SOURCE_LABELS,
    TASK_LABELS,
)
from ..numbers import MISSING, percent_text, round1  # noqa: F401 (percent_text: re-export)
from ..numbers import interval_text as _ci_text
from ..report import ItemResult, Report, Score
from ..sources import PUBLIC_SOURCES, SOURCES
from .paper import PAPER_LABEL, PAPER_ROWS

SCORED_LABEL = "scored"
STALE_MARK = "older version/gold: will be re-scored"
"""Beside SCORED_LABEL in the Type cell of an entry scored with an older evaluator version or
against other gold than the running Space's (`Space.is_stale`), until `space admin rescore`."""
ALL_COVERAGES = "all coverages"
CI_HEADER = "95% CI"
CI_LOW, CI_HIGH = "CI low", "CI high"


class Row(Protocol):
    """What a leaderboard row needs: a stored Entry or a paper.PaperRow."""

    model: str
    report: Report
    sources: tuple[str, ...]
    kind: str


@dataclass(frozen=True)
class Column:
    """A breakdown column: its header and how to read its value from a report."""

    header: str
    read: Callable[[Report], float | None]  # the value as shown (percent or BLEU points)


def _pct(node: Score | None) -> float | None:
    if node is None or node.score is None or math.isnan(node.score):
        return None
    return node.score * 100.0


def _acc(dim: str, group: str, header: str | None = None) -> Column:
    return Column(header or DIMENSIONS[dim].label(group), lambda r: _pct(r.group(dim, group)))


BLEU_PAPER = "paper, padded"
BLEU_PLAIN = "no padding"


def _bleu_header(metric: str, target: str, split: str, variant: str = "") -> str:
    header = f"{metric} \u2192 {LANGUAGE_LABELS[target]}"
    if split != "overall":
        header += f", {BLEU_SPLIT_LABELS[split]}"
    return f"{header} ({variant})" if variant else header


def _bleu_read(target: str, split: str, field: str) -> Callable[[Report], float | None]:
    def read(r: Report) -> float | None:
        node = r.bleu_score(target, split)
        value = None if node is None else getattr(node, field)
        return None if value is None or math.isnan(value) else float(value)

    return read


def bleu_columns(target: str, split: str, chrf: bool = True) -> list[Column]:
    """The paper's padded BLEU, BLEU without padding and (optionally) chrF: never one alone."""
    cols = [
        Column(_bleu_header("BLEU", target, split, BLEU_PAPER), _bleu_read(target, split, "score")),
        Column(
            _bleu_header("BLEU", target, split, BLEU_PLAIN),
            _bleu_read(target, split, "variable_refs"),
        ),
    ]
    if chrf:
        cols.append(Column(_bleu_header("chrF", target, split), _bleu_read(target, split, "chrf")))
    return cols


_OVERVIEW = [
    _acc("by_task", "multiple_choice"),
    _acc("by_task", "short_answer"),
    _acc("by_content", "scansion"),
    _acc("by_category", "knowledge"),
    _acc("by_category", "skill"),
    *(c for t in BLEU_TARGETS for c in bleu_columns(t, "overall", chrf=False)),
]

TRANSLATION_VIEW = "Translation (BLEU, chrF)"

VIEWS: dict[str, list[Column]] = {
    "Overview": _OVERVIEW,
    **{
        dim.name: [_acc(key, g) for g in dim.groups]
        for key, dim in DIMENSIONS.items()
        if key not in ("by_category", "by_multihop")
    },
    TRANSLATION_VIEW: [
        c
        for t in BLEU_TARGETS
        for s in BLEU_SPLITS
        for c in bleu_columns(t, s, chrf=s == "overall")
    ],
}
"""View name -> breakdown columns (one view per breakdown dimension of the registry)."""

VIEW_DIMENSION = {dim.name: key for key, dim in DIMENSIONS.items()}

# every view: Rank and Model (pinned), the overall score, the view's columns, then the rest
LEAD_COLUMNS = ["Rank", "Model", "Overall"]
TAIL_COLUMNS = ["Coverage", "Items", "Type", "Date", "Params", "Link", "Entry"]
SUBMITTER = "Submitter"


def _has_submitter(rows: Sequence[Row]) -> bool:
    return any(getattr(r, "submitter", "") for r in rows)


def columns(view: str, submitter: bool = False) -> list[str]:
    """The data columns of a view, in order (the interval as two numeric columns)."""
    tail = [SUBMITTER, *TAIL_COLUMNS] if submitter else TAIL_COLUMNS
    return [*LEAD_COLUMNS, CI_LOW, CI_HIGH, *(c.header for c in VIEWS[view]), *tail]


def display_columns(view: str, submitter: bool = False) -> list[str]:
    """The columns the page shows: the interval as one text column after Overall."""
    tail = [SUBMITTER, *TAIL_COLUMNS] if submitter else TAIL_COLUMNS
    return [*LEAD_COLUMNS, CI_HEADER, *(c.header for c in VIEWS[view]), *tail]


SCORE_COLUMNS = {"Overall", *(c.header for cols in VIEWS.values() for c in cols)}
INTEGER_COLUMNS = {"Rank", "Items"}


def column_widths(view: str, submitter: bool = False) -> list[str]:
    """Minimum widths of the board's columns (Rank and Model are pinned at fixed offsets by the
    app's CSS)."""
    widths = {"Rank": "64px", "Model": "220px", CI_HEADER: "120px", "Coverage": "330px"}
    widths |= {"Date": "120px", "Link": "220px", "Entry": "80px", "Type": "170px"}
    other = "150px" if view == TRANSLATION_VIEW else "118px"
    return [widths.get(c, other) for c in display_columns(view, submitter)]


def coverage_label(sources: Iterable[str]) -> str:
    """A readable name for the set of sources an entry was scored on."""
    s = set(sources)
    if s >= set(SOURCES):
        return "all sources"
    names = " + ".join(SOURCE_LABELS[x] for x in SOURCES if x in s) or "none"
    return f"public ({names})" if s == set(PUBLIC_SOURCES) else names


def _row(row: Row, view: str, submitter: bool, stale: bool = False) -> dict[str, Any]:
    scored = row.kind == SCORED_LABEL
    overall = row.report.accuracy.overall
    ci = overall.ci
    out: dict[str, Any] = {
        "Rank": 0,
        "Model": row.model,
        "Overall": round1(_pct(overall)),
        CI_LOW: math.nan if ci is None else round1(ci[0] * 100.0),
        CI_HIGH: math.nan if ci is None else round1(ci[1] * 100.0),
        "_score": _pct(overall),  # unrounded, for the rank
    }
    for col in VIEWS[view]:
        out[col.header] = round1(col.read(row.report))
    if submitter:
        out[SUBMITTER] = str(getattr(row, "submitter", "") or "")
    out["Coverage"] = coverage_label(row.sources)
    out["Items"] = overall.n
    out["Type"] = (
        (f"{SCORED_LABEL}, {STALE_MARK}" if stale else SCORED_LABEL) if scored else PAPER_LABEL
    )
    out["Date"] = str(getattr(row, "created", ""))[:10] if scored else "2026 (paper)"
    out["Params"] = str(getattr(row, "params", "")) if scored else ""
    out["Link"] = str(getattr(row, "link", "")) if scored else ""
    out["Entry"] = f"#{row.id}" if scored else "paper"
    return out


def leaderboard_frame(
    rows: Sequence[Row],
    view: str = "Overview",
    coverage: str | None = None,
    stale: Collection[int] = (),
) -> pd.DataFrame:
    """One table row per entry, ranked by overall accuracy within each coverage.

    Entries scored on different sources are not comparable: `Rank` counts only within the same
    coverage (ties share the best rank), and the table lists the largest coverage first.
    `coverage` (a `coverage_label`) keeps only that coverage; None or ALL_COVERAGES keeps all.
    Scores are in percent (BLEU and chrF in points) with one decimal; NaN where missing.
    Entries whose id is in `stale` are marked in their Type cell (STALE_MARK).
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; one of {', '.join(VIEWS)}")
    submitter = _has_submitter(rows)
    records = [
        _row(r, view, submitter, r.kind == SCORED_LABEL and getattr(r, "id", None) in stale)
        for r in rows
    ]
    if coverage and coverage != ALL_COVERAGES:
        records = [r for r in records if r["Coverage"] == coverage]
    cols = columns(view, submitter)
    df = pd.DataFrame(records, columns=[*cols, "_score"])
    if df.empty:
        return df[cols].astype({"Rank": "int64", "Items": "Int64"})
    df["Rank"] = df.groupby("Coverage")["_score"].rank(method="min", ascending=False)
    size = df.groupby("Coverage")["Model"].transform("size")
    order = df.assign(_size=size, _cov=df["Coverage"] != "all sources")
    order = order.sort_values(
        ["_cov", "_size", "Coverage", "_score", "Type"],
        ascending=[True, False, True, False, True],
        na_position="last",
        kind="stable",
    )
    df = df.loc[order.index, cols].reset_index(drop=True)
    df["Rank"] = df["Rank"].fillna(0).astype("int64")
    df["Items"] = pd.array(df["Items"].tolist(), dtype="Int64")
    return df


def display_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The data frame as the page shows it: the interval as one text cell after Overall."""
    out = df.drop(columns=[CI_LOW, CI_HIGH])
    ci = [_ci_text(lo, hi) for lo, hi in zip(df[CI_LOW], df[CI_HIGH], strict=True)]
    out.insert(out.columns.get_loc("Overall") + 1, CI_HEADER, ci)
    out["Items"] = [None if pd.isna(v) else int(v) for v in df["Items"]]
    out["Rank"] = out["Rank"].astype("int64")
    return out


def best_mask(df: pd.DataFrame, columns_: Iterable[str], group: str = "Coverage") -> pd.DataFrame:
    """True where a value is the best of its column among rows of the same `group` (ties all
    count); a group with fewer than two values in a column has no best there."""
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    for col in columns_:
        if col not in df.columns:
            continue
        values = pd.to_numeric(df[col], errors="coerce")
        for _, idx in df.groupby(group).groups.items():
            part = values.loc[idx].dropna()
            if len(part) >= 2 and part.nunique() > 1:
                mask.loc[part.index[part == part.max()], col] = True
    return mask


def _integer(value: Any) -> str:
    return MISSING if value is None or pd.isna(value) else f"{int(value):d}"


def records(df: pd.DataFrame) -> dict[str, list[Any]]:
    """A leaderboard frame as JSON-ready data: {"headers", "data"}, numbers as numbers and
    None where a value is missing (what the API returns; the CSV holds the same)."""
    data = [
        [None if not isinstance(v, str) and pd.isna(v) else _plain(v) for v in row]
        for row in df.itertuples(index=False, name=None)
    ]
    return {"headers": [str(c) for c in df.columns], "data": data}


def _plain(value: Any) -> Any:
    # numpy scalars (int64, float64) as the built-in numbers JSON knows
    return value.item() if hasattr(value, "item") else value


def row_key(entry: str, model: str) -> str | None:
    """The picker key ("e:12", "p:paper-o3-mini") of a leaderboard row, from its Entry and
    Model cells."""
    if entry.startswith("#") and entry[1:].isdigit():
        return f"e:{entry[1:]}"
    if entry == "paper":
        paper = next((p for p in PAPER_ROWS if p.model == model), None)
        return None if paper is None else f"p:{paper.key}"
    return None


def _number_text(column: str, value: Any) -> str:
    if value is None or pd.isna(value):
        return MISSING
    return f"{int(value):d}" if column in INTEGER_COLUMNS else f"{value:.1f}"


def board_html(df: pd.DataFrame, caption: str, widths: Sequence[str] | None = None) -> str:
    """`df` (a `leaderboard_frame`) as the page's table: one number style, "—" for missing
    values, the best value of each score column (among entries of the same coverage) marked
    `best` (class "n b"; "n": a number) and `data-key` row keys for the entry detail. Cells
    carry no other attributes: a board of 300 rows is sent on every page load.

    Every cell and attribute is escaped here: the HTML component that shows it runs markup.
    `widths` (CSS lengths, one per display column) sets each column's minimum width.
    """
    shown = display_frame(df)
    cols = list(shown.columns)
    scores = [c for c in cols if c in SCORE_COLUMNS]
    best = best_mask(shown, scores)[cols].to_numpy()  # positional: .at per cell is slow
    esc = html.escape
    head = []
    for i, col in enumerate(cols):
        kind = "num" if col in SCORE_COLUMNS or col in INTEGER_COLUMNS else "text"
        style = f' style="min-width:{esc(widths[i])}"' if widths else ""
        head.append(
            f'<th data-heading="{i}" data-type="{kind}" title="{esc(col)}"{style}>{esc(col)}</th>'
        )
    entry_at, model_at = cols.index("Entry"), cols.index("Model")
    body = []
    for r, record in enumerate(shown.itertuples(index=False, name=None)):
        cells = []
        for c, (col, value) in enumerate(zip(cols, record, strict=True)):
            if col in SCORE_COLUMNS or col in INTEGER_COLUMNS:
                mark = "n b" if best[r, c] else "n"
                cells.append(f'<td class="{mark}">{_number_text(col, value)}</td>')
            else:
                cells.append(f"<td>{esc(str(value))}</td>")
        key = row_key(str(record[entry_at]), str(record[model_at]))
        attr = f' data-key="{esc(key)}"' if key else ""
        body.append(f"<tr{attr}>{''.join(cells)}</tr>")
    return (
        f'<p class="board-caption">{esc(caption)}</p><div class="board-wrap">'
        f'<table class="board"><thead><tr>{"".join(head)}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def coverage_choices(rows: Sequence[Row]) -> list[str]:
    """The coverage filter's choices: all, then each coverage present."""
    seen: list[str] = []
    for r in rows:
        label = coverage_label(r.sources)
        if label not in seen:
            seen.append(label)
    return [ALL_COVERAGES, *sorted(seen, key=lambda s: (s != "all sources", s))]


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    # a spreadsheet opening the CSV would run a cell starting with = + - @ as a formula
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(df: pd.DataFrame) -> str:
    """A table as CSV text, with user strings neutralised against formula injection.

    Numbers stay numbers: scores with one decimal, integers as integers, missing values empty.
    """
    safe = df.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].map(_csv_cell)
    buf = io.StringIO()
    safe.to_csv(buf, index=False)
    return buf.getvalue()


# -- one entry ---------------------------------------------------------------------------

BREAKDOWN_COLUMNS = ["Breakdown", "Group", "Metric", "Score", CI_LOW, CI_HIGH, "Items"]
ACCURACY = "accuracy %"
METRIC_NAMES = {
    "score": f"BLEU ({BLEU_PAPER})",
    "variable_refs": f"BLEU ({BLEU_PLAIN})",
    "chrf": "chrF",
}


def breakdown_frame(report: Report) -> pd.DataFrame:
    """The full breakdown of one report: one row per group and metric, with display names.

    Accuracy in percent, BLEU and chrF in points, all with one decimal; the interval as two
    numeric columns. The paper's padded BLEU is always listed beside BLEU without padding.
    """
    rows: list[dict[str, Any]] = []

    def add(
        breakdown: str, group: str, metric: str, value: float | None, ci: Any, n: int | None
    ) -> None:
        rows.append(
            {
                "Breakdown": breakdown,
                "Group": group,
                "Metric": metric,
                "Score": round1(value),
                CI_LOW: math.nan if ci is None else round1(ci[0]),
                CI_HIGH: math.nan if ci is None else round1(ci[1]),
                "Items": n,
            }
        )

    def add_acc(breakdown: str, group: str, node: Score | None) -> None:
        if node is not None:
            ci = None if node.ci is None else (node.ci[0] * 100, node.ci[1] * 100)
            add(breakdown, group, ACCURACY, _pct(node), ci, node.n)

    acc = report.accuracy
    add_acc("Overall", "all scored items", acc.overall)
    for key, dim in DIMENSIONS.items():
        groups = acc.breakdowns.get(key, {})
        for group in sorted(groups, key=dim.order):
            add_acc(dim.name, dim.label(group), groups[group])
    add_acc(
        "Extra",
        f"{TASK_LABELS['short_answer']}, macrons kept",
        report.extra.get("short_answer_macron_sensitive"),
    )
    for target in BLEU_TARGETS:
        for split in BLEU_SPLITS:
            node = report.bleu_score(target, split)
            if node is None:
                continue
            name = f"Translation \u2192 {LANGUAGE_LABELS[target]}"
            for field, metric in METRIC_NAMES.items():
                ci = node.ci if field == "score" else None  # the interval is of the paper's BLEU
                add(name, BLEU_SPLIT_LABELS[split], metric, getattr(node, field), ci, node.n)
    df = pd.DataFrame(rows, columns=BREAKDOWN_COLUMNS)
    df["Items"] = pd.array(df["Items"].tolist(), dtype="Int64")
    return df


def breakdown_display(df: pd.DataFrame) -> Styler:
    """`breakdown_frame` as the page shows it (one decimal, "—", the interval as one cell)."""
    shown = df.drop(columns=[CI_LOW, CI_HIGH])
    shown.insert(
        shown.columns.get_loc("Score") + 1,
        CI_HEADER,
        [_ci_text(lo, hi) for lo, hi in zip(df[CI_LOW], df[CI_HIGH], strict=True)],
    )
    shown["Items"] = [None if pd.isna(v) else int(v) for v in df["Items"]]
    styler = shown.style.format("{:.1f}", subset=["Score"], na_rep=MISSING)
    return styler.format(_integer, subset=["Items"])


BREAKDOWN_DATATYPES = ["str", "str", "str", "number", "str", "number"]


def metadata_frame(
    row: Row, provenance: Mapping[str, Any] | None = None, stale: bool | None = None
) -> pd.DataFrame:
    """What is known about one entry, as (field, value) text rows: user strings stay text.
    `stale` (None: the entry's own version check) adds the re-score note."""
    report = row.report
    fields: list[tuple[str, Any]] = [("Model", row.model)]
    if row.kind == SCORED_LABEL:
        fields += [("Entry", f"#{row.id}"), ("Submitted", getattr(row, "created", ""))]
        for attr, name in (
            ("submitter", "Submitter"),
            ("link", "Link"),
            ("params", "Parameters"),
            ("note", "How produced"),
            ("file_name", "File"),
            ("file_sha256", "File SHA-256"),
            ("scored_with", "Scored with evaluator"),
        ):
            value = getattr(row, attr, None)
            if value not in (None, ""):
                fields.append((name, value))
        if getattr(row, "stale", False) if stale is None else stale:
            fields.append(("Note", f"scored with an {STALE_MARK}"))
    else:
        fields += [("Type", PAPER_LABEL), ("Note", getattr(row, "note", ""))]
    fields.append(("Coverage", coverage_label(row.sources)))
    if report.evaluator.version:
        fields.append(("Evaluator", f"{report.evaluator.name} {report.evaluator.version}"))
    if row.kind == SCORED_LABEL:
        fields += [
            ("Items scored", report.n_items),
            ("Covered items without a prediction", report.missing),
            ("Items without an extractable answer", report.unanswered),
        ]
    for key, value in _flatten(provenance or {}, "Provenance"):
        fields.append((key, value))
    return pd.DataFrame(
        [{"Field": k, "Value": "" if v is None else str(v)} for k, v in fields],
        columns=["Field", "Value"],
    )


def _flatten(data: Any, prefix: str, depth: int = 0) -> list[tuple[str, Any]]:
    if isinstance(data, Mapping) and depth < 3:
        out: list[tuple[str, Any]] = []
        for k, v in data.items():
            out += _flatten(v, f"{prefix}: {k}", depth + 1)
        return out
    if isinstance(data, (list, tuple)):
        return [(prefix, ", ".join(str(x) for x in data))]
    return [(prefix, data)]


ITEM_COLUMNS = ["id", "question_id", "question_language", "source", "task", "content"]


def items_frame(items: Mapping[str, ItemResult]) -> pd.DataFrame:
    """Per-item results of one entry (the caller passes public items only): no gold answers."""
    rows = [
        {
            "id": it.id,
            "question_id": it.question_id,
            "question_language": it.question_language,
            "source": SOURCE_LABELS.get(it.source, it.source),
            "task": TASK_LABELS.get(it.task, it.task),
            "content": DIMENSIONS["by_content"].label(it.question_content),
            "extracted_answer": it.extracted,
            "score": it.score,
            "no_prediction": bool(it.missing),
        }
        for it in items.values()
        if it.source in PUBLIC_SOURCES
    ]
    cols = [*ITEM_COLUMNS, "extracted_answer", "score", "no_prediction"]
    return pd.DataFrame(rows, columns=cols)


def paper_missing(view: str) -> bool:
    """True when the paper reports none of this view's breakdown columns."""
    return all(c.read(p.report) is None for p in PAPER_ROWS for c in VIEWS[view])


# -- legend ------------------------------------------------------------------------------

PADDING_SENTENCE = (
    "The paper pads every item's references with empty strings, so a short or empty "
    "translation costs nothing in the brevity penalty and junk answers can raise its BLEU; "
    "BLEU without padding has no such effect, so read the two side by side."
)


def _overview_legend() -> list[str]:
    task, cat = DIMENSIONS["by_task"], DIMENSIONS["by_category"]
    return [
        f"**Multiple choice**, **Short answer**: accuracy by task. {task.description}",
        "**Scansion**: accuracy on the scansion content type.",
        f"**Knowledge**, **Skill**: {cat.description}",
    ]


def legend(view: str, min_private: int | None = None) -> str:
    """The legend under the table: what every column of `view` means and why a cell reads "—".
    Our own text only (Markdown)."""
    lines = [
        "**Rank** and **Model** stay in view when you scroll sideways. **Rank** orders entries "
        "by overall accuracy among entries scored on the same sources (**Coverage**); "
        "**bold, shaded**: the best value of a column among those entries.",
        "**Overall**: accuracy in % over every scored item except translations; **95% CI**: "
        "bootstrap interval over items (1,000 resamples). Scores in %, BLEU and chrF in "
        "points (0-100), all with one decimal; **Items**: accuracy items scored.",
    ]
    if view == "Overview":
        lines += _overview_legend()
    elif view in VIEW_DIMENSION:
        dim = DIMENSIONS[VIEW_DIMENSION[view]]
        lines.append(f"**{dim.name}**: {dim.description}")
    if any(c.header.startswith(("BLEU", "chrF")) for c in VIEWS[view]):
        lines.append(
            f"**BLEU ({BLEU_PAPER})**: the paper's corpus BLEU (sacreBLEU). {PADDING_SENTENCE} "
            f"**BLEU ({BLEU_PLAIN})**: the same BLEU with each item's own references; "
            "**chrF**: character n-gram F-score. *constrained* / *unconstrained*: translation "
            "items flagged `constrained` in the upstream files, and the rest."
        )
    hidden = (
        f"hidden because it rests on fewer than {min_private} private (Certamen, NLE) items"
        if min_private
        else "hidden because it rests on too few private (Certamen, NLE) items"
    )
    lines.append(
        f"**{MISSING}**: not reported in the paper (paper rows have no item counts, intervals, "
        f"or BLEU without padding), not covered by the entry's sources, or {hidden}."
    )
    if paper_missing(view):
        lines.append(
            f"The paper reports no numbers for this breakdown: its rows read {MISSING} here."
        )
    lines.append(
        f"**Type**: *{PAPER_LABEL}* rows are the published numbers, never re-scored; "
        f"*{SCORED_LABEL}* rows were scored here; *{SCORED_LABEL}, {STALE_MARK}*: scored with an "
        "older evaluator version or against gold files corrected since, shown as scored until "
        "the operator re-scores every entry. Pick a row to see the entry's detail below."
    )
    return "\n".join(f"- {line}" for line in lines)
