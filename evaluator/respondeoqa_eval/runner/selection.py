"""`--config`: which items to run, by the dataset's config names (a source and/or task filter)."""

from __future__ import annotations

from pathlib import Path

from ..configs import CONFIGS, DEFAULT_CONFIG
from ..errors import InputError
from ..gold import load_gold, resolve_data_dir
from ..records import PUBLIC_SOURCES, Record
from ..upstream import GoldSet


def select_items(
    config: str = DEFAULT_CONFIG,
    data_dir: str | Path | None = None,
    *,
    limit: int | None = None,
    gold: GoldSet | None = None,
) -> list[Record]:
    """The records of `config`, in upstream file order (the first `limit` of them if given).

    Without a data folder only the public files (pinned download) are available; a config that
    needs Certamen or NLE then fails with a message saying to pass `--data-dir`.
    """
    if config not in CONFIGS:
        raise InputError(f"unknown --config {config!r}; choose one of {', '.join(CONFIGS)}")
    if limit is not None and limit < 1:
        raise InputError("--limit must be at least 1")
    spec = CONFIGS[config]
    sources = set(spec.sources)
    folder = resolve_data_dir(data_dir)
    if gold is None and folder is None and not sources & set(PUBLIC_SOURCES):
        raise InputError(
            f"--config {config}: Certamen and NLE are not public; pass --data-dir with their files"
        )
    if gold is None:
        needs_public = bool(sources & set(PUBLIC_SOURCES))
        gold = load_gold(folder, with_public=needs_public and folder is not None)
    records = [r for r in gold.records if spec.selects(r)]
    if not records:
        where = f"the data folder {folder}" if folder else "the public files"
        hint = "" if folder else "; Certamen and NLE need --data-dir with their files"
        raise InputError(f"--config {config} selects no items in {where}{hint}")
    return records[:limit] if limit else records
