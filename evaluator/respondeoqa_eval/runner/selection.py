"""`--config`: which items to run, by the dataset's config names (a source and/or task filter)."""

from __future__ import annotations

from pathlib import Path

from ..data.configs import CONFIGS, DEFAULT_CONFIG
from ..data.datadir import NoData
from ..data.gold import GoldSet, load_gold, resolve_data_dir
from ..data.records import Record
from ..data.sources import FILES
from ..errors import InputError


def select_items(
    config: str = DEFAULT_CONFIG,
    data_dir: str | Path | None = None,
    *,
    limit: int | None = None,
    gold: GoldSet | None = None,
) -> list[Record]:
    """The records of `config`, in upstream file order (the first `limit` of them if given).

    Without a data folder only the public files (pinned download) are available; a config that
    needs Certamen or NLE then fails with `NoData` (set the variable, or pass a folder).
    """
    if config not in CONFIGS:
        raise InputError(f"unknown --config {config!r}; choose one of {', '.join(CONFIGS)}")
    if limit is not None and limit < 1:
        raise InputError("--limit must be at least 1")
    spec = CONFIGS[config]
    folder = resolve_data_dir(data_dir)
    if gold is None:
        # without a folder only the public files exist: run the config's public part
        wanted = [f for f in spec.files if folder is not None or FILES[f].public]
        if not wanted:
            raise NoData(f"--config {config}: Certamen and NLE are not public", private=True)
        gold = load_gold(folder, files=wanted)
    records = [r for r in gold.records if spec.selects(r)]
    if not records:
        if folder is None:
            raise NoData(f"--config {config} selects no items in the public files", private=True)
        raise InputError(f"--config {config} selects no items in the data folder {folder}")
    return records[:limit] if limit else records
