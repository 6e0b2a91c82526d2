"""The `datasets` builder of RespondeoQA: one config per source and task (see `features.CONFIGS`).

`datasets` 5 no longer runs loading scripts through `load_dataset`; use the builder directly:

    builder = RespondeoQA(config_name="public")          # or data_dir=... for Certamen / NLE
    builder.download_and_prepare()
    ds = builder.as_dataset(split="test")

Terms per source: the two textbooks are public domain; NLE material may not be used to generate
profit; Certamen is copyrighted and hosted by the Junior Classical League. Certamen and NLE are
never downloaded by this builder: their configs read them from the user's own `data_dir`.
Without a `cache_dir` the builder caches under the project's cache (`data.hf_load.cache_root`),
in a folder named by the fingerprint of the gold files it read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import datasets

from ..data.gold import resolve_data_dir
from ..data.hf_load import cache_root
from ..data.records import Record, dataset_row
from .features import (
    CITATION,
    CONFIGS,
    DEFAULT_CONFIG,
    FEATURES,
    PAPER_TITLE,
    UPSTREAM_URL,
    terms_text,
)
from .inputs import config_spec, input_fingerprint, load_config_gold

_VERSION = datasets.Version("1.0.0")


@dataclass
class RespondeoQAConfig(datasets.BuilderConfig):
    """A config: the items of `sources` scored as one of `tasks`."""

    sources: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()


class RespondeoQA(datasets.GeneratorBasedBuilder):
    """RespondeoQA, the Latin-English QA benchmark (one `test` split per config)."""

    VERSION = _VERSION
    BUILDER_CONFIG_CLASS = RespondeoQAConfig
    BUILDER_CONFIGS = [
        RespondeoQAConfig(
            name=c.name,
            version=_VERSION,
            description=c.description,
            sources=c.sources,
            tasks=c.tasks,
        )
        for c in CONFIGS.values()
    ]
    DEFAULT_CONFIG_NAME = DEFAULT_CONFIG

    def __init__(
        self, *args, data_dir: str | Path | None = None, hash: str | None = None, **kwargs
    ):
        # The cache key must change with the input files and the code (a changed file never
        # serves stale rows): `hash` names the cache folder; `data_dir` is in the config id.
        folder = resolve_data_dir(data_dir)
        kwargs.setdefault("dataset_name", "respondeoqa")
        # the project's cache, not `datasets`' global one: a Certamen / NLE config's rows stay
        # in places the user chose (data.hf_load)
        kwargs["cache_dir"] = kwargs.get("cache_dir") or str(cache_root())
        super().__init__(
            *args,
            data_dir=str(folder.resolve()) if folder else None,
            hash=f"{hash}-{input_fingerprint(folder)}" if hash else input_fingerprint(folder),
            **kwargs,
        )

    def _info(self) -> datasets.DatasetInfo:
        spec = config_spec(self.config.name)
        return datasets.DatasetInfo(
            description=f"{PAPER_TITLE}. Config {spec.name!r}: {spec.description}.\n"
            f"Terms per source:\n{terms_text(spec.sources)}",
            features=FEATURES,
            homepage=UPSTREAM_URL,
            citation=CITATION,
            license="; ".join(terms_text(spec.sources).splitlines()),
        )

    def _split_generators(self, dl_manager) -> list[datasets.SplitGenerator]:
        # no dl_manager: the public files come pinned and verified through `fetch`, and
        # Certamen / NLE are only ever read from the user's folder
        gold = load_config_gold(config_spec(self.config.name), self.config.data_dir)
        return [
            datasets.SplitGenerator(
                name=datasets.Split.TEST, gen_kwargs={"records": tuple(gold.records)}
            )
        ]

    def _generate_examples(self, records: tuple[Record, ...]) -> Iterator[tuple[str, dict]]:
        for rec in records:
            yield rec.id, dataset_row(rec)
