"""Build the Hub dataset folder: Parquet per config, README.md (card) and LICENSE.md.

Every config is built by the `datasets` builder (`builder.RespondeoQA`); the folder then loads
offline with `load_dataset(folder, config)`.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets

from ..data.datadir import check_data_dir
from ..data.gold import files_in
from ..data.records import PRIVATE_SOURCES
from ..errors import InputError
from ..io import make_new_dir
from .builder import RespondeoQA
from .card import render_card, render_license
from .features import CONFIGS, PRIVATE_CONFIGS, PUBLIC_CONFIGS

PARQUET_NAME = "test-00000-of-00001.parquet"
_CARD_MARK = "pretty_name: RespondeoQA"


@dataclass
class BuildResult:
    """What `build_folder` wrote."""

    folder: Path
    config_rows: dict[str, int]
    skipped: dict[str, str] = field(default_factory=dict)  # config -> reason
    file_rows: dict[str, int] = field(default_factory=dict)

    @property
    def private(self) -> bool:
        return any(CONFIGS[c].private for c in self.config_rows)


def _check_output(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()):
        readme = out / "README.md"
        ours = readme.is_file() and _CARD_MARK in readme.read_text(
            encoding="utf-8", errors="ignore"
        )
        if not ours:
            raise InputError(
                f"{out}: folder is not empty and is not an earlier RespondeoQA build; "
                "choose a new or empty --output folder"
            )


def _plan(data_dir: Path | None, include_private: bool) -> tuple[list[str], dict[str, str]]:
    """The configs to write and the private ones skipped (with why)."""
    names = list(PUBLIC_CONFIGS)
    skipped: dict[str, str] = {}
    if not include_private:
        return names, skipped
    if data_dir is None:
        raise InputError(
            "--include-private needs --data-dir: the folder with your Certamen / NLE files "
            "(they are never downloaded)"
        )
    present = files_in(data_dir)
    for name in PRIVATE_CONFIGS:
        missing = [f for f in CONFIGS[name].private_files if f not in present]
        if missing:
            skipped[name] = "missing " + ", ".join(missing)
        else:
            names.append(name)
    if len(skipped) == len(PRIVATE_CONFIGS):
        raise InputError(
            f"{data_dir}: --include-private given, but the folder holds no complete private source "
            f"(expected e.g. certamen_mc.json, certamen_short_answer.json, "
            f"certamen_translation_long.json or the nle_*.json files)"
        )
    return names, skipped


def build_folder(
    out: str | Path,
    *,
    data_dir: str | Path | None = None,
    include_private: bool = False,
    cache_dir: str | Path | None = None,
    eval_yaml: bool = True,
) -> BuildResult:
    """Write the Hub folder `out` and return what was written.

    Public configs come from `data_dir` (or the pinned public download); Certamen and NLE
    configs are written only with `include_private` (an operator's private repository).
    The builder cache goes to `cache_dir`, or to a temporary folder removed afterwards.
    `eval_yaml`: also write the Hub Benchmark file `eval.yaml` (harness/eval_results.py;
    on by default, so that `dataset push` uploads it with the data).
    """
    out = Path(out)
    folder = check_data_dir(data_dir)
    _check_output(out)
    names, skipped = _plan(folder, include_private)
    out.parent.mkdir(parents=True, exist_ok=True)
    # build next to `out`, then swap: a failed build never leaves a half-written folder
    staging = make_new_dir(out.parent, f".{out.name}.")  # the user's umask, as `out` gets
    try:
        with tempfile.TemporaryDirectory(prefix="respondeoqa-cache-") as tmp_cache:
            result = _write(staging, names, folder, Path(cache_dir or tmp_cache))
        if eval_yaml:
            from ..harness.eval_results import write_eval_yaml

            write_eval_yaml(staging)
        result.skipped = skipped
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
        result.folder = out
        return result
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def _write(staging: Path, names: list[str], folder: Path | None, cache: Path) -> BuildResult:
    was_enabled = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    verbosity = datasets.logging.get_verbosity()
    datasets.logging.set_verbosity_error()
    try:
        config_rows: dict[str, int] = {}
        items: dict[str, dict[str, Any]] = {}
        for name in names:
            builder = RespondeoQA(config_name=name, data_dir=folder, cache_dir=str(cache))
            builder.download_and_prepare()
            ds = builder.as_dataset(split="test")
            if not CONFIGS[name].private and any(s in PRIVATE_SOURCES for s in ds.unique("source")):
                # defence in depth: a public config must never carry Certamen / NLE rows
                raise RuntimeError(f"config {name} produced private rows; refusing to write it")
            target = staging / name / PARQUET_NAME
            target.parent.mkdir(parents=True)
            ds.to_parquet(str(target))
            config_rows[name] = len(ds)
            for row in ds.to_list():
                items.setdefault(row["id"], row)
    finally:
        datasets.logging.set_verbosity(verbosity)
        if was_enabled:
            datasets.enable_progress_bars()
    rows = list(items.values())
    file_rows = dict(Counter(r["file"] for r in rows))
    result = BuildResult(staging, config_rows, file_rows=file_rows)
    (staging / "README.md").write_text(render_card(config_rows, rows, file_rows), encoding="utf-8")
    (staging / "LICENSE.md").write_text(render_license(result.private), encoding="utf-8")
    return result
