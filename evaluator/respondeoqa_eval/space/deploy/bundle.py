"""`respondeoqa-eval space bundle --output DIR` writes a complete Hub Space repository;
`respondeoqa-eval space deploy --repo-id ORG/NAME [--dry-run]` bundles and uploads it in one commit.

The bundle: `app.py` (starts the installed package's Space; the repo names given here become
environment defaults, never a token), `requirements.txt`, `README.md` whose front matter says sdk
gradio, the installed gradio version, app_file, python_version, hf_oauth, tags and the dataset,
and a `.gitignore` for local data.

`requirements.txt` pins this exact package version (`respondeoqa-eval[space]==VERSION`, from
PyPI). With `--wheel` the bundle instead ships the wheel unpacked in `vendor/` (app.py puts it
first on sys.path) and `requirements.txt` lists the wheel's own dependencies with its `space`
extra: a Hub Space installs `requirements.txt` from a copy in /tmp BEFORE the repository's files
are in place, so a requirement that points at a file of the repository cannot be installed there.

The repository folder `space/` holds `app.py` and `.gitignore` exactly as written here (tested)
and a README.md with the same front matter plus the operator's guide.
"""

from __future__ import annotations

import argparse
import email.parser
import json
import sys
import tempfile
import zipfile
from importlib import resources
from pathlib import Path, PurePosixPath

from ..._version import __version__
from ...data.sources import UPSTREAM_URL
from ...errors import InputError
from ..config import ENV_GOLD_REPO, ENV_MIRROR

TAGS = (
    "leaderboard",
    # what the Hub's leaderboard finder reads
    "submission:semiautomatic",
    "test:mix",
    "judge:auto",
    "modality:text",
    "language:latin",
    "language:english",
    "latin",
    "question-answering",
    "translation",
    "evaluation",
)
VENDOR = "vendor"  # the unpacked wheel of a `--wheel` bundle
EXTRA = "space"

GITIGNORE = """# local data of a running Space: never part of the repository
/space_data/
*.sqlite3
*.sqlite3-*
*.sqlite
*.db
/gold/
.gradio/
__pycache__/
*.pyc
"""


APP_DEFAULTS_LINE = "DEFAULTS: dict[str, str] = {}"


def render_app(data_repo: str | None = None, gold_repo: str | None = None) -> str:
    """The Space's app file (`templates/space_app.py`); `data_repo` / `gold_repo` become
    environment defaults."""
    template = resources.files(__package__).joinpath("templates", "space_app.py")
    text = template.read_text(encoding="utf-8")
    defaults = json.dumps({ENV_MIRROR: data_repo or "", ENV_GOLD_REPO: gold_repo or ""})
    return text.replace(APP_DEFAULTS_LINE, f"DEFAULTS: dict[str, str] = {defaults}")


def front_matter(dataset: str | None = None) -> dict[str, object]:
    """The Space card's front matter (the Hub reads sdk, sdk_version, app_file, python_version,
    hf_oauth; the rest describes the Space). `dataset`: the benchmark's Hub dataset id, as the
    operator published it with `respondeoqa-eval dataset push` (listed when given)."""
    import gradio

    return {
        "title": "RespondeoQA Leaderboard",
        "emoji": "🏛️",
        "colorFrom": "indigo",
        "colorTo": "yellow",
        "sdk": "gradio",
        "sdk_version": gradio.__version__,
        "app_file": "app.py",
        "python_version": f"{sys.version_info.major}.{sys.version_info.minor}",
        "hf_oauth": True,
        "pinned": False,
        "license": "mit",
        "short_description": "Latin-English question answering leaderboard (RespondeoQA)",
        **({"datasets": [dataset]} if dataset else {}),
        "tags": list(TAGS),
    }


def render_front_matter(fields: dict[str, object]) -> str:
    """`fields` as a YAML front matter block (PyYAML, keys in the given order)."""
    import yaml

    text = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"---\n{text}---\n"


def render_readme(
    data_repo: str | None = None, gold_repo: str | None = None, dataset: str | None = None
) -> str:
    """The Space card: front matter, what the Space does, where its data lives."""
    link = f"https://huggingface.co/datasets/{dataset}" if dataset else UPSTREAM_URL
    return (
        render_front_matter(front_matter(dataset))
        + f"""
# RespondeoQA leaderboard

Submit predictions for the [RespondeoQA]({link})
Latin-English QA benchmark; they are scored with the paper's protocol by
respondeoqa-eval {__version__}. Submitting needs a Hugging Face login.

Operator settings: the Hub dataset repo of record is `{data_repo or "(not set)"}`, the private
gold repo `{gold_repo or "(not set)"}`; set the `HF_TOKEN` secret to a token that can write the
first and read the second.
"""
    )


def space_requirements(wheel: Path) -> list[str]:
    """The requirements of `wheel` with its `space` extra, read from its METADATA."""
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as zf:
        (meta,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        message = email.parser.Parser().parsestr(zf.read(meta).decode("utf-8"))
    out = []
    for line in message.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is not None and "extra" in str(req.marker):
            if not req.marker.evaluate({"extra": EXTRA}):
                continue
            req.marker = None
        out.append(str(req))
    return out


def _unpack(wheel: Path, folder: Path) -> list[Path]:
    """Unpack the wheel's files into `folder` (refusing paths that leave it)."""
    written = []
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            rel = PurePosixPath(name)
            if name.endswith("/") or rel.is_absolute() or ".." in rel.parts:
                continue
            if rel.parts[0].endswith(".data"):
                raise InputError(f"--wheel {wheel.name}: has a .data folder; cannot vendor it")
            target = folder.joinpath(*rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(name))
            written.append(target)
    return written


def write_bundle(
    output: Path,
    *,
    wheel: Path | None = None,
    data_repo: str | None = None,
    gold_repo: str | None = None,
    dataset: str | None = None,
) -> list[Path]:
    """Write the Space repository into `output`; the files written."""
    output = Path(output)
    output.mkdir(parents=True, exist_ok=True)
    files = {
        "app.py": render_app(data_repo, gold_repo),
        ".gitignore": GITIGNORE,
        "README.md": render_readme(data_repo, gold_repo, dataset),
    }
    head = "# the Space SDK installs gradio==sdk_version next to these\n"
    if wheel is not None:
        wheel = Path(wheel)
        if not wheel.is_file() or wheel.suffix != ".whl" or not zipfile.is_zipfile(wheel):
            raise InputError(f"--wheel {wheel}: not a wheel file")
        if not wheel.name.startswith(f"respondeoqa_eval-{__version__}-"):
            raise InputError(f"--wheel {wheel.name}: not version {__version__} of the package")
        requirements = space_requirements(wheel)
        head += f"# respondeoqa-eval {__version__} itself is unpacked in {VENDOR}/ ({wheel.name})\n"
    else:
        requirements = [f"respondeoqa-eval[{EXTRA}]=={__version__}"]
    files["requirements.txt"] = head + "".join(f"{r}\n" for r in requirements)
    written = []
    for name, text in files.items():
        (output / name).write_text(text, encoding="utf-8")
        written.append(output / name)
    if wheel is not None:
        written += _unpack(wheel, output / VENDOR)
    return written


def register(sub: argparse._SubParsersAction) -> None:
    """Add `space bundle` and `space deploy`."""
    for name in ("bundle", "deploy"):
        p = sub.add_parser(
            name,
            help="write a complete Hub Space repository"
            if name == "bundle"
            else "bundle and upload to a Hub Space in one commit",
        )
        if name == "bundle":
            p.add_argument("--output", type=Path, required=True)
        else:
            p.add_argument("--repo-id", required=True, help="ORG/NAME of the Space")
            p.add_argument("--dry-run", action="store_true", help="list the files, upload nothing")
            p.add_argument("--private", action="store_true")
        p.add_argument("--wheel", type=Path, default=None, help="ship this wheel in the bundle")
        p.add_argument("--data-repo", default=None, help="Hub dataset repo of record (private)")
        p.add_argument("--gold-repo", default=None, help="private Hub dataset repo with gold")
        p.add_argument(
            "--dataset",
            default=None,
            help="the benchmark's Hub dataset id ORG/NAME (as published with `respondeoqa-eval "
            "dataset push`), linked from the Space card; default: the upstream repository",
        )
        p.set_defaults(func=run_bundle if name == "bundle" else run_deploy)


def run_bundle(args: argparse.Namespace) -> int:
    written = write_bundle(
        args.output,
        wheel=args.wheel,
        data_repo=args.data_repo,
        gold_repo=args.gold_repo,
        dataset=args.dataset,
    )
    names = sorted({p.relative_to(args.output).parts[0] for p in written})
    print(f"wrote a Space repository to {args.output}: " + ", ".join(names))
    return 0


def run_deploy(args: argparse.Namespace) -> int:
    """Bundle into a temporary folder and upload it to the Space in one commit; files of an
    earlier deploy's `vendor/` that this bundle lacks are deleted in the same commit."""
    from ..config import SpaceConfig

    if args.repo_id.count("/") != 1 or any(c.isspace() for c in args.repo_id):
        raise InputError(f"--repo-id {args.repo_id!r}: expected ORG/NAME")
    with tempfile.TemporaryDirectory(prefix="respondeoqa-space-bundle-") as tmp:
        write_bundle(
            Path(tmp),
            wheel=args.wheel,
            data_repo=args.data_repo,
            gold_repo=args.gold_repo,
            dataset=args.dataset,
        )
        files = {
            p.relative_to(tmp).as_posix(): p.read_bytes()
            for p in sorted(Path(tmp).rglob("*"))
            if p.is_file()
        }
    if args.dry_run:
        for path, data in files.items():
            print(f"would upload {path} ({len(data)} bytes) to spaces/{args.repo_id}")
        return 0
    from ..store.hub import HubRepo

    config = SpaceConfig.from_env()
    repo = HubRepo(
        args.repo_id, repo_type="space", token=config.hub_token, endpoint=config.hub_endpoint
    )
    repo.create(private=args.private, space_sdk="gradio")
    stale = [p for p in repo.list_files() if p.startswith(f"{VENDOR}/") and p not in files]
    oid = repo.commit(files, f"Deploy respondeoqa-eval {__version__}", delete=stale)
    print(
        f"deployed {len(files)} files to spaces/{args.repo_id} (commit {oid[:12]})"
        + (f"; deleted {len(stale)} stale files of {VENDOR}/" if stale else "")
    )
    return 0
