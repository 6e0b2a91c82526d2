"""Where a config's rows come from, and the fingerprint that keys the builder cache."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import __version__
from ..data.gold import GoldSet, MissingPrivateFiles, load_gold, resolve_data_dir
from ..data.sources import FILES, PASSAGE_FILES, PUBLIC_SHA256, UPSTREAM_COMMIT
from ..errors import InputError
from .features import CONFIGS, ConfigSpec

_CODE_FILES = ("builder.py", "features.py", "inputs.py")
_SHARED_CODE_FILES = (
    "data/configs.py",
    "data/hf_features.py",
    "data/upstream.py",
    "data/records.py",
    "data/sources.py",
    "data/gold.py",
    "data/fetch.py",
)


def config_spec(name: str) -> ConfigSpec:
    """The config called `name`, or an InputError listing the valid names."""
    try:
        return CONFIGS[name]
    except KeyError:
        raise InputError(f"unknown config {name!r}; choose one of: {', '.join(CONFIGS)}") from None


def load_config_gold(spec: ConfigSpec, data_dir: str | Path | None) -> GoldSet:
    """Read the records of one config through the one gold loader (`gold.load_gold`)."""
    try:
        return load_gold(data_dir, files=spec.files)
    except MissingPrivateFiles as exc:
        raise exc.within(f"config {spec.name!r}") from None


def code_version() -> str:
    """Hash of the code that turns upstream files into rows (a changed builder busts the cache)."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256(__version__.encode())
    for path in [here / n for n in _CODE_FILES] + [here.parent / n for n in _SHARED_CODE_FILES]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def input_fingerprint(data_dir: str | Path | None, code: str | None = None) -> str:
    """Hash of every input the builder may read, plus the code version.

    The pinned public files are identified by their sha256 (they are verified on use); a user
    folder by the name and content of every RespondeoQA file in it.
    """
    h = hashlib.sha256((code or code_version()).encode())
    h.update(UPSTREAM_COMMIT.encode())
    for name, digest in sorted(PUBLIC_SHA256.items()):
        h.update(f"{name}={digest}\n".encode())
    folder = resolve_data_dir(data_dir)
    if folder is not None and folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            if path.name in FILES or path.name in PASSAGE_FILES:
                h.update(path.name.encode())
                h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:24]
