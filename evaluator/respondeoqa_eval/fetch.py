"""Download the public upstream files, pinned by commit and sha256, into a user cache."""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from .errors import ChecksumError, InputError

UPSTREAM_REPO = "slanglab/RespondeoQA"
UPSTREAM_COMMIT = "c23c988253ee79a5f3b645c9caf381733ab584b6"
DEFAULT_BASE_URL = (
    f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{UPSTREAM_COMMIT}/data/final_dataset/"
)

PUBLIC_SHA256 = {
    "junior_scholarship_short_answer.json": "49139ae4d9c8c49d5ebab52ce19b376dd30bba8cbdfdc2372e919d30ae72d6a1",
    "junior_scholarship_translation_long.json": "7a705f3c7164d26c0aeb25a9cc70b96dc3060aa735cb197e21f3daa3fb7daef0",
    "prosody_caesura_scansion_english.json": "2fe087b420ef0e2bb8bcca83928313ae6b02b3ddfcad55b5d83e81877b11618f",
    "prosody_caesura_scansion_latin.json": "e14d38ba37f30866d47a2f6277737b33da4f99e7f801436bbfc679928575b081",
    "prosody_feet_questions_english.json": "05dd53a29c41d380eab801d23fc427077afbeca73ed20f7047fdbec0496b0d0f",
    "prosody_feet_questions_latin.json": "cf934151c2d0254c28a0e35c7b457411024eb2574f1ec120324f896710241460",
}

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
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            data = resp.read()
    except urllib.error.HTTPError as exc:
        raise InputError(f"download failed: {url} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise InputError(
            f"download failed: {url} ({reason}). Without internet, pass --data-dir with a copy "
            "of the upstream files."
        ) from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected:
        raise ChecksumError(
            f"{url}: sha256 {digest} does not match the pinned {expected}; the file was changed "
            "or corrupted in transit and was not saved"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    # write then rename, so an interrupted download never leaves a half file in the cache
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=dest.name, suffix=".part")
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
    base = base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
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
