"""Render the dataset card (`README.md` of the Hub folder) from the package's `templates/card.md`.

The statistics tables are computed from the rows that were built (the paper's Tables 4 to 7).
The template is package data (read with importlib.resources), so a wheel renders it too.
In a checkout, regenerate the committed card of the public build (`dataset_card/README.md`)
with `python -m respondeoqa_eval.dataset.committed_card`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from importlib import resources
from typing import Any

import jinja2
import yaml

from ..data.records import CONTENTS, FORMATS, LANGUAGE_PAIRS, SOURCES
from ..data.sources import FILES, UPSTREAM_COMMIT
from .features import (
    CITATION,
    CONFIGS,
    DEFAULT_CONFIG,
    FEATURES,
    FIELD_DOCS,
    NULLABLE,
    PAPER_TITLE,
    SOURCE_INFO,
    UPSTREAM_URL,
)

TEMPLATE = "templates/card.md"
"""The card template, relative to this package (`respondeoqa_eval.dataset`)."""

Row = Mapping[str, Any]


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table; numbers right-aligned."""
    rows = [[str(c) for c in r] for r in rows]
    align = [
        "---:" if rows and all(r[i].replace(",", "").isdigit() for r in rows) else "---"
        for i in range(len(header))
    ]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _crosstab(
    rows: Sequence[Row],
    row_key,
    col_key,
    row_values: Sequence[str],
    col_values: Sequence[Hashable],
    row_label: str,
    col_labels: Sequence[str] | None = None,
) -> str:
    counts = Counter((row_key(r), col_key(r)) for r in rows)
    present = [v for v in row_values if any(counts[(v, c)] for c in col_values)]
    body = []
    for v in present:
        cells = [counts[(v, c)] for c in col_values]
        body.append([v, *cells, sum(cells)])
    totals = [sum(counts[(v, c)] for v in present) for c in col_values]
    body.append(["**total**", *totals, sum(totals)])
    return markdown_table([row_label, *(col_labels or map(str, col_values)), "total"], body)


def statistics(rows: Sequence[Row]) -> dict[str, str]:
    """The paper's Tables 4-7, as markdown, computed from `rows` (one dict per item)."""
    translation = [r for r in rows if r["constrained"] is not None]
    short = [r for r in rows if r["multihop"] is not None]
    # direction = into the answer language: a question written in English may ask for the
    # English translation of a Latin sentence (BLEU is also split by target; PROTOCOL section 5)
    directions = {"latin": "English -> Latin", "english": "Latin -> English"}
    return {
        "source_format": _crosstab(
            rows, lambda r: r["source"], lambda r: r["question_format"], SOURCES, FORMATS, "source"
        ),
        "content_language": _crosstab(
            rows,
            lambda r: r["question_content"],
            lambda r: f"{r['question_language']}-{r['answer_language']}",
            CONTENTS,
            LANGUAGE_PAIRS,
            "content",
        ),
        "direction_constrained": _crosstab(
            translation,
            lambda r: directions[r["answer_language"]],
            lambda r: r["constrained"],
            list(directions.values()),
            (True, False),
            "direction",
            ("constrained", "unconstrained"),
        ),
        "multihop_content": _crosstab(
            short,
            lambda r: r["question_content"],
            lambda r: r["multihop"],
            CONTENTS,
            (True, False),
            "content",
            ("multihop", "regular"),
        ),
    }


def size_category(n: int) -> str:
    """The Hub's size category for `n` rows."""
    for limit, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < limit:
            return label
    return "n>1M"


def front_matter(config_rows: Mapping[str, int], n_items: int, private: bool) -> str:
    """The card's YAML header: every written config (`public` the default), licence, languages."""
    configs = []
    for name in CONFIGS:
        if name not in config_rows:
            continue
        entry: dict[str, Any] = {"config_name": name}
        if name == DEFAULT_CONFIG:
            entry["default"] = True
        entry["data_files"] = [{"split": "test", "path": f"{name}/test-*.parquet"}]
        configs.append(entry)
    meta = {
        "pretty_name": "RespondeoQA",
        "language": ["la", "en"],
        "license": "other",
        "license_name": "respondeoqa-per-source-terms" if private else "public-domain",
        "license_link": "LICENSE.md",
        "multilinguality": "multilingual",
        "task_categories": ["question-answering", "translation", "multiple-choice"],
        "task_ids": ["multiple-choice-qa", "open-domain-qa"],
        "size_categories": [size_category(n_items)],
        "source_datasets": ["original"],
        "tags": ["latin", "classics", "bilingual", "benchmark"],
        "configs": configs,
    }
    return yaml.safe_dump(meta, sort_keys=False, allow_unicode=True).strip()


def _schema_table() -> str:
    rows = []
    for name, feature in FEATURES.items():
        rows.append([f"`{name}`", f"`{_type_name(name, feature)}`", FIELD_DOCS[name]])
    return markdown_table(["field", "type", "meaning"], rows)


def _type_name(name: str, feature: Any) -> str:
    inner = getattr(feature, "feature", None)
    if inner is not None:
        return f"list<{inner.dtype}>"
    nullable = " (nullable)" if name in NULLABLE else ""
    return f"{feature.dtype}{nullable}"


def template_text() -> str:
    """The card template shipped in the package."""
    return resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")


def render_card(
    config_rows: Mapping[str, int],
    rows: Sequence[Row],
    file_rows: Mapping[str, int],
    *,
    template: str | None = None,
) -> str:
    """The full README.md (front matter + prose) for a build.

    `config_rows`: rows written per config; `rows`: every distinct item that was built;
    `file_rows`: rows read per upstream file; `template`: template text (default: the package's).
    """
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    private_sources = sorted(
        {r["source"] for r in rows if not SOURCE_INFO[r["source"]].public}, key=SOURCES.index
    )
    private = bool(private_sources)
    config_table = markdown_table(
        ["config", "sources", "tasks", "rows", "availability"],
        [
            [
                f"`{name}`" + (" (default)" if name == DEFAULT_CONFIG else ""),
                ", ".join(CONFIGS[name].sources),
                ", ".join(CONFIGS[name].present_tasks),
                config_rows[name] if name in config_rows else "-",
                "in this repository" if name in config_rows else "build it from your own files",
            ]
            for name in CONFIGS
        ],
    )
    terms_table = markdown_table(
        ["source", "material", "from", "terms", "in this repository"],
        [
            [
                s.label,
                s.name,
                s.publisher,
                s.terms,
                "yes" if (s.public or s.key in private_sources) else "no",
            ]
            for s in SOURCE_INFO.values()
        ],
    )
    files_table = markdown_table(
        ["upstream file", "source", "task", "rows"],
        [[f"`{n}`", FILES[n].source, FILES[n].task, file_rows[n]] for n in FILES if n in file_rows],
    )
    context = {
        "front_matter": front_matter(config_rows, len(rows), private),
        "title": PAPER_TITLE,
        "private": private,
        "private_labels": " and ".join(SOURCE_INFO[s].label for s in private_sources),
        "n_items": len(rows),
        "config_table": config_table,
        "terms_table": terms_table,
        "schema_table": _schema_table(),
        "files_table": files_table,
        "stats": statistics(rows),
        "citation": CITATION,
        "upstream_url": UPSTREAM_URL,
        "upstream_commit": UPSTREAM_COMMIT,
        "private_configs": [n for n, c in CONFIGS.items() if c.private],
    }
    return env.from_string(template_text() if template is None else template).render(**context)


def render_license(private: bool) -> str:
    """LICENSE.md of the Hub folder: the terms of each source present."""
    lines = ["# Terms of use, per source", ""]
    for s in SOURCE_INFO.values():
        if s.public or private:
            lines.append(f"- **{s.label}** ({s.name}; from {s.publisher}): {s.terms}")
    lines += ["", f"Upstream: {UPSTREAM_URL}", ""]
    return "\n".join(lines)
