"""A config's rows as a `datasets.Dataset` for the harness tasks (lm-eval, Inspect, lighteval),
every copy `datasets` makes of them kept in the project's own cache, keyed by what they hold.

`datasets` names the cache of a local folder by the folder's *name* and a hash of its
packaged loader, not by the files in it: two exports called `respondeoqa` share one cache, and
the second is served the first one's rows. So every load here gets its own `cache_dir`,
`<project cache>/datasets/<key>` (`fetch.default_cache_dir`: `$RESPONDEOQA_CACHE`, else
`$XDG_CACHE_HOME/respondeoqa`), with `<key>`:

- an export folder (`dataset build`): `export-<digest of its data files and card>`;
- a Hub repository: `hub-<repo>`, inside which `datasets` keys by the repository's revision.

The builder (`builder.RespondeoQA`) caches under `cache_root()` too, keyed by
`inputs.input_fingerprint`, the hash of every gold file it read; upstream files given to the
lm-eval tasks as `data_dir` are read in memory.

Private rows (Certamen, NLE) are therefore written only into the user's folders or this cache,
never into `~/.cache/huggingface` or another tool's cache.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..data.fetch import default_cache_dir

SPLIT = "test"
CACHE_SUBDIR = "datasets"
_EXPORT_FILES = ("*.parquet", "README.md")


def cache_root() -> Path:
    """Where the harness tasks and the builder keep Arrow copies: `<project cache>/datasets`."""
    return default_cache_dir() / CACHE_SUBDIR


def digest_files(paths: list[Path], root: Path) -> str:
    """A hash of the names (relative to `root`) and contents of `paths`."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:24]


def export_fingerprint(folder: str | Path) -> str:
    """The fingerprint of an export folder: every Parquet file and the card, by content."""
    folder = Path(folder)
    paths = [p for pattern in _EXPORT_FILES for p in folder.rglob(pattern) if p.is_file()]
    return digest_files(paths, folder)


def cache_dir_for(source: str) -> Path:
    """The `cache_dir` of one source (an export folder or a Hub repository id)."""
    folder = Path(source).expanduser()
    if folder.is_dir():
        key = f"export-{export_fingerprint(folder)}"
    else:
        key = "hub-" + re.sub(r"[^A-Za-z0-9._-]+", "--", source)
    return cache_root() / key


def load_config(source: str, config: str, *, revision: str | None = None):
    """`load_dataset(source, config, split="test")` with the cache keyed by `source`'s content
    (an export folder) or name and revision (a Hub repository)."""
    import datasets

    return datasets.load_dataset(
        str(source),
        config,
        split=SPLIT,
        revision=revision,
        cache_dir=str(cache_dir_for(str(source))),
    )
