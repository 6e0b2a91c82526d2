"""The dataset's schema (explicit `datasets.Features`, `data/hf_features.py`), its configs, the
documentation of its fields and the terms of each source.

One table (`CONFIGS`) maps every config name to the sources and tasks it holds; the builder,
the export, the card and the push check all read it.
"""

from __future__ import annotations

from ..data.configs import (  # noqa: F401  (the dataset's config table lives beside the records)
    CONFIGS,
    DEFAULT_CONFIG,
    PRIVATE_CONFIGS,
    PUBLIC_CONFIGS,
    ConfigSpec,
)
from ..data.hf_features import FEATURES  # noqa: F401  (the schema, which the harness tasks share)
from ..data.sources import (  # noqa: F401  (the card and builder read the source table through here)
    PAPER_BIBTEX,
    PAPER_TITLE,
    SOURCE_INFO,
    SOURCES,
    UPSTREAM_URL,
    SourceInfo,
)

FIELD_DOCS: dict[str, str] = {
    "id": "unique id: `question_id`, plus `-en`/`-la` for the prosody questions that exist twice",
    "question_id": "upstream id; not unique alone, (`question_id`, `question_language`) is",
    "question_language": "`english` or `latin`",
    "answer_language": "`english` or `latin`",
    "source": "short source key: `certamen`, `nle`, `jun-schol`, `lat-pros`",
    "source_name": "upstream source name",
    "source_year": "year of the exam or of the textbook",
    "task": "how the item is scored: `multiple_choice`, `short_answer`, `translation`, "
    "`feet`, `meter`",
    "question_format": "upstream format: `multiple_choice` or `short_answer`",
    "question_content": "one of ten content types (geography ... vocabulary)",
    "category": "`knowledge` (mythology, history, literature, geography, vocabulary) or `skill`",
    "difficulty": "`beginner`, `intermediate`, `advanced`; null where the source gives none "
    "(every item of the public textbooks)",
    "question": "question text (upstream `question` or `question_text`)",
    "multiple_choice_options": 'options as `"A: text"` strings; empty when not multiple choice',
    "answers": "gold answer(s): one, or several reference translations (up to 48)",
    "passage": "reading-comprehension passage (NLE); null otherwise",
    "multihop": "short-answer items only: multi-hop question; null elsewhere",
    "constrained": "translation items only: constrained translation; null elsewhere",
    "file": "upstream file the item comes from",
}

NULLABLE = ("difficulty", "passage", "multihop", "constrained")
"""The columns that hold null where a value does not apply or is not given (the card says
so beside each one's type)."""


CITATION = PAPER_BIBTEX


def terms_text(sources: tuple[str, ...] = SOURCES) -> str:
    """One line per source: name and terms (the builder's description and the card use it)."""
    return "\n".join(f"- {SOURCE_INFO[s].name}: {SOURCE_INFO[s].terms}" for s in sources)
