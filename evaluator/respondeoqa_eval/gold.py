"""Where the gold comes from: the pinned public files, a user's folder, or both."""

from __future__ import annotations

import os
from pathlib import Path

from .fetch import fetch_public
from .upstream import PUBLIC_FILES, GoldSet, read_folder

ENV_DATA_DIR = "RESPONDEOQA_DATA_DIR"


def resolve_data_dir(data_dir: str | Path | None) -> Path | None:
    """`data_dir`, else `$RESPONDEOQA_DATA_DIR`, else None (the pinned public files)."""
    if data_dir:
        return Path(data_dir)
    env = os.environ.get(ENV_DATA_DIR)
    return Path(env) if env else None


def load_gold(
    data_dir: str | Path | None = None,
    *,
    with_public: bool = False,
    cache_dir: str | Path | None = None,
    base_url: str | None = None,
) -> GoldSet:
    """Load gold records.

    - no folder (argument or `$RESPONDEOQA_DATA_DIR`): the six public files, downloaded once
      into the cache and verified;
    - a folder: every known upstream file in it, as is;
    - a folder and `with_public=True`: the folder plus whatever public files it lacks, from the
      pinned download (how the Space adds an operator's private files to the public data).
    """
    folder = resolve_data_dir(data_dir)
    if folder is None:
        return read_folder(fetch_public(cache_dir, base_url))
    gold = read_folder(folder)
    missing = [f for f in PUBLIC_FILES if f not in gold.files]
    if with_public and missing:
        public = read_folder(fetch_public(cache_dir, base_url), only=set(missing))
        gold = GoldSet(gold.records + public.records, gold.files + public.files, gold.unknown_files)
    return gold
