"""Where a config's rows come from, and the fingerprint that keys the builder cache."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .. import __version__
from ..errors import InputError
from ..fetch import PUBLIC_SHA256, UPSTREAM_COMMIT, fetch_public
from ..gold import resolve_data_dir
from ..records import Record
from ..upstream import FILES, PASSAGE_FILES, GoldSet, read_folder
from .features import CONFIGS, SOURCE_INFO, UPSTREAM_URL, ConfigSpec

_CODE_FILES = ("builder.py", "features.py", "inputs.py")
_SHARED_CODE_FILES = ("configs.py", "upstream.py", "records.py", "gold.py", "fetch.py")


def config_spec(name: str) -> ConfigSpec:
    """The config called `name`, or an InputError listing the valid names."""
    try:
        return CONFIGS[name]
    except KeyError:
        raise InputError(f"unknown config {name!r}; choose one of: {', '.join(CONFIGS)}") from None


def private_data_message(spec: ConfigSpec, missing: list[str], folder: Path | None) -> str:
    """Why a private config cannot be built, where its files come from and how to pass them."""
    sources = [s for s in spec.sources if not SOURCE_INFO[s].public]
    origin = "; ".join(
        f"{SOURCE_INFO[s].label} files come from {SOURCE_INFO[s].publisher}" for s in sources
    )
    where = f"{folder} lacks {', '.join(missing)}" if folder else f"it needs {', '.join(missing)}"
    return (
        f"config {spec.name!r} needs files that are not redistributed ({where}). {origin}; "
        f"the upstream README ({UPSTREAM_URL}) says how to obtain them. Put them in one folder and "
        "pass it with --data-dir DIR (command line) or data_dir=DIR (Python; or set "
        "RESPONDEOQA_DATA_DIR)."
    )


def load_config_gold(spec: ConfigSpec, data_dir: str | Path | None) -> GoldSet:
    """Read the records of one config.

    Public files come from `data_dir` when it has them, else from the pinned download; private
    files (Certamen, NLE) only ever come from `data_dir`.
    """
    folder = resolve_data_dir(data_dir)
    if folder is not None and not folder.is_dir():
        raise InputError(f"{folder}: data folder does not exist or is not a folder")
    present = {p.name for p in folder.glob("*.json")} if folder else set()
    missing_private = [n for n in spec.private_files if n not in present]
    if missing_private:
        raise InputError(private_data_message(spec, missing_private, folder))
    local = [n for n in spec.files if n in present]
    fetched = [n for n in spec.files if n not in present]
    records: list[Record] = []
    files: list[str] = []
    if local:
        gold = read_folder(folder, only=set(local))
        records += gold.records
        files += gold.files
    if fetched:
        gold = read_folder(fetch_public(), only=set(fetched))
        records += gold.records
        files += gold.files
    # GoldSet re-checks that (question_id, question_language) and id stay unique across files
    order = {name: i for i, name in enumerate(spec.files)}
    records.sort(key=lambda r: order[r.file])  # stable: keeps each file's row order
    return GoldSet(records, sorted(files, key=order.__getitem__))


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
