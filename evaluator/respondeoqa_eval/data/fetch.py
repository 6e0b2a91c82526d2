"""Download the public upstream files, pinned by commit and sha256, into a user cache."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..errors import ChecksumError
from ..io import open_new_file
from .datadir import NoData
from .sources import PUBLIC_SHA256, UPSTREAM_COMMIT, UPSTREAM_RAW_URL

ENV_BASE_URL = "RESPONDEOQA_BASE_URL"
ENV_CACHE = "RESPONDEOQA_CACHE"


def default_cache_dir() -> Path:
    """`$RESPONDEOQA_CACHE`, else `$XDG_CACHE_HOME/respondeoqa`, else `~/.cache/respondeoqa`."""
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "respondeoqa"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _download(url: str, dest: Path, expected: str, timeout: float) -> None:
    # imported here: scoring with the files at hand never downloads (urllib.request and
    # http.client are a tenth of the `score` command's imports)
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            data = resp.read()
    except urllib.error.HTTPError as exc:
        raise NoData(f"cannot download the public files: {url} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise NoData(f"cannot download the public files: {url} ({reason})") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected:
        raise ChecksumError(
            f"{url}: sha256 {digest} does not match the pinned {expected}; the file was changed "
            "or corrupted in transit and was not saved"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    # write then rename, so an interrupted download never leaves a half file in the cache
    fd, tmp = open_new_file(dest.parent, dest.name, ".part")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, dest)


def fetch_public(
    cache_dir: str | Path | None = None, base_url: str | None = None, timeout: float = 60.0
) -> Path:
    """Make sure the six public files are in the cache, verified; return the cache folder.

    Files already cached are re-verified; a cached file whose checksum is wrong is an error
    (delete it to download again), never silently used.
    """
    folder = Path(cache_dir) if cache_dir else default_cache_dir()
    folder = folder / UPSTREAM_COMMIT
    base = base_url or os.environ.get(ENV_BASE_URL) or UPSTREAM_RAW_URL
    if not base.endswith("/"):
        base += "/"
    for name, expected in PUBLIC_SHA256.items():
        dest = folder / name
        if dest.exists():
            digest = sha256_file(dest)
            if digest != expected:
                raise ChecksumError(
                    f"{dest}: cached file has sha256 {digest}, expected {expected}; "
                    "delete it to download it again"
                )
            continue
        _download(base + name, dest, expected, timeout)
    return folder
