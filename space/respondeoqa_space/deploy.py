"""`respondeoqa-space deploy --repo-id ORG/NAME [--dry-run]`: upload the Space repository to a
Hub Space in one commit.

The Space repository is the folder this package sits in (`space/` of a checkout): `app.py` (the
Hub runs `python app.py` for `sdk: gradio`), this package, `requirements.txt`, the card
`README.md` (front matter: sdk, sdk_version, app_file, python_version, hf_oauth, tags) and
`.gitignore`. What is uploaded is exactly the folder's files that git tracks (`git ls-files`,
read from the working tree): never a virtual environment, caches, build folders or a running
Space's data (`space_data/`), which git ignores. Files of the Space repo that the upload lacks
are deleted in the same commit, so the Space holds the folder and nothing else.

`requirements.txt` pins the evaluator (`respondeoqa-eval==VERSION`, from the index). While the
evaluator is not on the index, `--wheel` ships its wheel unpacked in `vendor/` (app.py puts it
first on sys.path) and the uploaded `requirements.txt` has the evaluator's line replaced by the
wheel's own dependencies: a Hub Space installs `requirements.txt` from a copy in /tmp BEFORE the
repository's files are in place, so a requirement naming a file of the repository cannot be
installed there.

`--data-repo` / `--gold-repo` set the Space variables `RESPONDEOQA_SPACE_MIRROR` /
`RESPONDEOQA_GOLD_REPO` (the record and the private gold; the token is the `HF_TOKEN` secret,
set by the operator in the Space's settings, never by this command).
"""

from __future__ import annotations

import argparse
import email.parser
import subprocess
import zipfile
from pathlib import Path, PurePosixPath

from respondeoqa_eval import InputError
from respondeoqa_eval import __version__ as EVALUATOR_VERSION

from . import __version__
from .config import ENV_GOLD_REPO, ENV_MIRROR

EVALUATOR = "respondeoqa-eval"
VENDOR = "vendor"  # the unpacked evaluator wheel of a `--wheel` deploy
REQUIREMENTS = "requirements.txt"
KEPT_REMOTE = frozenset({".gitattributes"})
"""Files of the Space repo an upload never deletes (the Hub's own)."""


def space_folder() -> Path:
    """The Space repository folder: the one this package sits in (a checkout's `space/`)."""
    return Path(__file__).resolve().parent.parent


def tracked_files(folder: Path) -> list[str]:
    """The files of `folder` that git tracks (paths relative to it, `/`-separated), present in
    the working tree; InputError when `folder` is not in a git checkout."""
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--", "."],
            cwd=folder,
            capture_output=True,
            timeout=60,
        )
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise InputError(f"deploy reads the Space folder with git: {exc.strerror}") from None
    if done.returncode != 0:
        raise InputError(
            f"deploy uploads the Space folder of a git checkout; {folder} is not in one "
            "(install the Space from a clone: pip install -e ./space)"
        )
    names = [n for n in done.stdout.decode("utf-8").split("\0") if n]
    return sorted(n for n in names if (folder / n).is_file())


def wheel_requirements(wheel: Path) -> list[str]:
    """The requirements of `wheel` (no extras), read from its METADATA."""
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as zf:
        (meta,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        message = email.parser.Parser().parsestr(zf.read(meta).decode("utf-8"))
    out = []
    for line in message.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is not None and "extra" in str(req.marker):
            continue
        out.append(str(req))
    return out


def _is_evaluator(line: str) -> bool:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(line).name == EVALUATOR
    except InvalidRequirement:
        return False


def vendored_requirements(requirements: str, wheel: Path) -> str:
    """`requirements` with the evaluator's line replaced by `wheel`'s own dependencies."""
    lines = requirements.splitlines()
    at = [i for i, line in enumerate(lines) if _is_evaluator(line)]
    if len(at) != 1:
        raise InputError(f"{REQUIREMENTS}: expected one {EVALUATOR}== line to replace by --wheel")
    note = f"# {EVALUATOR} {EVALUATOR_VERSION} itself is unpacked in {VENDOR}/ ({wheel.name})"
    lines[at[0] : at[0] + 1] = [note, *wheel_requirements(wheel)]
    return "\n".join(lines) + "\n"


def _wheel_files(wheel: Path) -> dict[str, bytes]:
    """The wheel's files under `vendor/` (refusing paths that leave it)."""
    if not wheel.is_file() or wheel.suffix != ".whl" or not zipfile.is_zipfile(wheel):
        raise InputError(f"--wheel {wheel}: not a wheel file")
    if not wheel.name.startswith(f"respondeoqa_eval-{EVALUATOR_VERSION}-"):
        raise InputError(f"--wheel {wheel.name}: not version {EVALUATOR_VERSION} of the evaluator")
    files = {}
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            rel = PurePosixPath(name)
            if name.endswith("/") or rel.is_absolute() or ".." in rel.parts:
                continue
            if rel.parts[0].endswith(".data"):
                raise InputError(f"--wheel {wheel.name}: has a .data folder; cannot vendor it")
            files[f"{VENDOR}/{rel}"] = zf.read(name)
    return files


def upload_files(folder: Path, wheel: Path | None = None) -> dict[str, bytes]:
    """What a deploy uploads: path in the Space repo -> bytes."""
    files = {name: (folder / name).read_bytes() for name in tracked_files(folder)}
    if REQUIREMENTS not in files or "app.py" not in files:
        raise InputError(f"{folder}: not the Space folder (no tracked app.py and {REQUIREMENTS})")
    if wheel is not None:
        vendored = _wheel_files(Path(wheel))
        clash = sorted(set(vendored) & set(files))
        if clash:
            raise InputError(f"--wheel: {clash[0]} is also a file of the Space folder")
        text = files[REQUIREMENTS].decode("utf-8")
        files[REQUIREMENTS] = vendored_requirements(text, Path(wheel)).encode("utf-8")
        files.update(vendored)
    return files


def register(sub: argparse._SubParsersAction) -> None:
    """Add `deploy`."""
    p = sub.add_parser(
        "deploy",
        help="upload the Space folder (space/) to a Hub Space in one commit",
        description="Upload the files git tracks in the Space folder to the Hub Space "
        "ORG/NAME in one commit (made when missing; files it holds beyond them are deleted). "
        "$HF_TOKEN: a token that can write the Space.",
    )
    p.add_argument("--repo-id", required=True, help="ORG/NAME of the Space")
    p.add_argument("--dry-run", action="store_true", help="list the files, upload nothing")
    p.add_argument("--private", action="store_true", help="make a new Space private")
    p.add_argument(
        "--wheel",
        type=Path,
        default=None,
        help="ship this evaluator wheel unpacked in vendor/ (while respondeoqa-eval is not on "
        "the package index)",
    )
    p.add_argument(
        "--data-repo",
        default=None,
        help=f"Hub dataset repo of record: sets the Space variable {ENV_MIRROR}",
    )
    p.add_argument(
        "--gold-repo",
        default=None,
        help=f"private Hub dataset repo with the gold: sets the Space variable {ENV_GOLD_REPO}",
    )
    p.set_defaults(func=run_deploy)


def _repo_id(value: str, option: str) -> str:
    if value.count("/") != 1 or any(c.isspace() for c in value) or "" in value.split("/"):
        raise InputError(f"{option} {value!r}: expected ORG/NAME")
    return value


def run_deploy(args: argparse.Namespace) -> int:
    """Upload the Space folder (or, with --dry-run, list what would be uploaded)."""
    from .config import SpaceConfig

    repo_id = _repo_id(args.repo_id, "--repo-id")
    variables = {
        name: _repo_id(value, option)
        for name, value, option in (
            (ENV_MIRROR, args.data_repo, "--data-repo"),
            (ENV_GOLD_REPO, args.gold_repo, "--gold-repo"),
        )
        if value
    }
    files = upload_files(space_folder(), args.wheel)
    if args.dry_run:
        for path, data in files.items():
            print(f"would upload {path} ({len(data)} bytes) to spaces/{repo_id}")
        for name, value in variables.items():
            print(f"would set the Space variable {name}={value}")
        return 0
    from .store.hub import HubRepo, HubUnavailable

    config = SpaceConfig.from_env()
    repo = HubRepo(repo_id, repo_type="space", token=config.hub_token, endpoint=config.hub_endpoint)
    try:
        repo.create(private=args.private, space_sdk="gradio")
        repo.set_variables(variables)
        stale = [p for p in repo.list_files() if p not in files and p not in KEPT_REMOTE]
        oid = repo.commit(
            files,
            f"Deploy respondeoqa-space {__version__} (respondeoqa-eval {EVALUATOR_VERSION})",
            delete=stale,
        )
    except HubUnavailable as exc:
        raise InputError(f"deploy to spaces/{repo_id}: {exc}") from None
    print(
        f"deployed {len(files)} files to spaces/{repo_id} (commit {oid[:12]})"
        + (f"; deleted {len(stale)} files it held beyond them" if stale else "")
        + "".join(f"; set {name}" for name in variables)
    )
    return 0
