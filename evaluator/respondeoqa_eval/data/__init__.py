"""The benchmark's data: from the upstream files to typed records and their groups.

- `sources.py`: the source table (names, terms, each upstream file's task, size and pinned
  sha256, the upstream commit, the citation); `records.py`: the unified record and the
  vocabularies; `upstream.py`: the one reader of upstream files (PROTOCOL 1 quirks).
- `datadir.py`: `$RESPONDEOQA_DATA_DIR` and the one "no data" message; `fetch.py`: the pinned
  download and its sha256 cache; `gold.py`: `GoldSet` and the one gold loader (a user's folder,
  else the pinned download).
- `configs.py`: the dataset configs (one per source and task, and the pooled ones) that the
  dataset builder, runner and harnesses share; `harness_tasks.py`: the harness tasks' names
  (which config each lm-eval, lighteval and Inspect task runs on); `breakdowns.py`: the
  breakdown registry (dimension, display name, item -> group, group order).
- `hf_features.py`, `hf_load.py` (need `datasets`, the `dataset` extra; not re-exported): the
  records' schema as `datasets.Features`, and a config's rows as a `datasets.Dataset` cached by
  content (the dataset builder and the harness tasks).

Nothing here imports scoring, reports or any command line. The public names below are the
package's API (docs/api.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .breakdowns import (
        BLEU_SPLIT_LABELS,
        BLEU_SPLITS,
        BLEU_TARGETS,
        BLEU_VARIANT_LABELS,
        DIMENSIONS,
        EXTRA_LABELS,
        LANGUAGE_LABELS,
        LANGUAGE_SHORTS,
        NOT_GIVEN,
        PADDING_SENTENCE,
        SOURCE_LABELS,
        TASK_LABELS,
        Dimension,
        groups_of,
    )
    from .configs import CONFIGS, ConfigSpec
    from .datadir import ENV_DATA_DIR, NoData
    from .gold import GoldSet, MissingPrivateFiles, load_gold, read_folder
    from .records import Record, split_language_pair
    from .sources import (
        FILES,
        PAPER_BIBTEX,
        PRIVATE_SOURCES,
        PUBLIC_SOURCES,
        SOURCES,
        UPSTREAM_URL,
    )
    from .upstream import question_id_of

__all__ = [
    "BLEU_SPLITS",
    "BLEU_SPLIT_LABELS",
    "BLEU_TARGETS",
    "BLEU_VARIANT_LABELS",
    "CONFIGS",
    "DIMENSIONS",
    "ENV_DATA_DIR",
    "EXTRA_LABELS",
    "FILES",
    "LANGUAGE_LABELS",
    "LANGUAGE_SHORTS",
    "NOT_GIVEN",
    "PADDING_SENTENCE",
    "PAPER_BIBTEX",
    "PRIVATE_SOURCES",
    "PUBLIC_SOURCES",
    "SOURCES",
    "SOURCE_LABELS",
    "TASK_LABELS",
    "UPSTREAM_URL",
    "ConfigSpec",
    "Dimension",
    "GoldSet",
    "MissingPrivateFiles",
    "NoData",
    "Record",
    "groups_of",
    "load_gold",
    "question_id_of",
    "read_folder",
    "split_language_pair",
]

# imported on first use: every layer imports modules of this package, each needing only its own
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        ".breakdowns": (
            "BLEU_SPLIT_LABELS",
            "BLEU_SPLITS",
            "BLEU_TARGETS",
            "BLEU_VARIANT_LABELS",
            "DIMENSIONS",
            "EXTRA_LABELS",
            "LANGUAGE_LABELS",
            "LANGUAGE_SHORTS",
            "NOT_GIVEN",
            "PADDING_SENTENCE",
            "SOURCE_LABELS",
            "TASK_LABELS",
            "Dimension",
            "groups_of",
        ),
        ".configs": ("CONFIGS", "ConfigSpec"),
        ".datadir": ("ENV_DATA_DIR", "NoData"),
        ".gold": ("GoldSet", "MissingPrivateFiles", "load_gold", "read_folder"),
        ".records": ("Record", "split_language_pair"),
        ".sources": (
            "FILES",
            "PAPER_BIBTEX",
            "PRIVATE_SOURCES",
            "PUBLIC_SOURCES",
            "SOURCES",
            "UPSTREAM_URL",
        ),
        ".upstream": ("question_id_of",),
    },
)
