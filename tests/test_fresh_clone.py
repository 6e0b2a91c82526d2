"""A fresh clone in a folder with no sibling `shared/` finds its data the way a user's does.

The checkout (its committed tree plus uncommitted changes to tracked files) is cloned into a
temporary folder, and pytest collects the clone's suite with only `$RESPONDEOQA_DATA_DIR` naming
the public files: an empty download cache, and a download address where nothing listens. Then
the same clone offline with no folder (one line says what to set), and with the pinned download
served from a loopback server (the files are fetched and verified).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import unavailable
from kit.net import free_port
from respondeoqa_eval.data.sources import PUBLIC_FILES, UPSTREAM_COMMIT
from wheelkit import ROOT

pytestmark = pytest.mark.slow


def _git(*args: str, cwd: Path) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout.strip()


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clone of this checkout, in a folder whose parent has no `shared/`."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        unavailable(f"{ROOT} is not a git checkout (or git is missing): nothing to clone")
    # the working tree as a commit (nothing when it is clean); an identity in case none is set
    who = ("-c", "user.name=respondeoqa-tests", "-c", "user.email=tests@localhost")
    snapshot = _git(*who, "stash", "create", cwd=ROOT) or "HEAD"
    target = tmp_path_factory.mktemp("fresh") / "respondeoqa-eval"
    _git("clone", "--quiet", "--no-checkout", str(ROOT), str(target), cwd=ROOT)
    _git("checkout", "--quiet", "--detach", _git("rev-parse", snapshot, cwd=ROOT), cwd=target)
    assert not (target.parent.parent / "shared").exists()
    return target


def _collect(clone: Path, tmp: Path, *paths: str, **env: str) -> subprocess.CompletedProcess:
    """`pytest --collect-only` in the clone, with a clean RESPONDEOQA_* environment plus `env`;
    the clone's own packages (the evaluator and the Space) first on the path."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RESPONDEOQA_")}
    clean.update(
        CI="true",
        PYTHONPATH=os.pathsep.join([str(clone / "evaluator"), str(clone / "space")]),
        RESPONDEOQA_CACHE=str(tmp / "cache"),
        RESPONDEOQA_BASE_URL=f"http://127.0.0.1:{free_port()}/",  # refused
    )
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *paths],
        cwd=clone,
        env=clean,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_collection_with_only_the_variable(clone, tmp_path, public_dir):
    data = tmp_path / "final_dataset"
    shutil.copytree(public_dir, data)
    proc = _collect(clone, tmp_path, RESPONDEOQA_DATA_DIR=str(data))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"^\d+ tests collected", proc.stdout, flags=re.M), proc.stdout[-500:]
    collected = {line.split("::")[0] for line in proc.stdout.splitlines() if "::" in line}
    test_files = {p.relative_to(clone).as_posix() for p in (clone / "tests").rglob("test_*.py")}
    assert collected == test_files  # every test module imported and yielded tests
    # the files went through the verified copy into the (empty) cache, not the sibling
    cached = tmp_path / "cache" / UPSTREAM_COMMIT
    assert sorted(p.name for p in cached.iterdir()) == sorted(PUBLIC_FILES)


def test_offline_without_a_folder_one_line_says_what_to_set(clone, tmp_path):
    proc = _collect(clone, tmp_path, "tests/test_numbers.py")
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, proc.stdout + proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("ERROR: cannot download the public files: http://127.0.0.1:")
    assert "Without internet, set RESPONDEOQA_DATA_DIR=DIR, DIR being a copy of the upstream " in (
        line
    )
    assert "data/final_dataset folder" in line and "Traceback" not in proc.stdout


def test_without_a_folder_the_pinned_download_is_used(clone, tmp_path, public_dir, file_server):
    server = file_server(public_dir)  # the pinned files, served like the upstream raw URLs
    proc = _collect(clone, tmp_path, "tests/test_numbers.py", RESPONDEOQA_BASE_URL=server.url)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(server.requests) == sorted(f"/{name}" for name in PUBLIC_FILES)


def test_a_variable_lacking_public_files_names_them(clone, tmp_path, public_dir):
    data = tmp_path / "partial"
    data.mkdir()
    shutil.copy(public_dir / "prosody_feet_questions_latin.json", data)
    proc = _collect(clone, tmp_path, "tests/test_numbers.py", RESPONDEOQA_DATA_DIR=str(data))
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"ERROR: RESPONDEOQA_DATA_DIR={data} lacks the public files ")
    assert "junior_scholarship_short_answer.json" in line
    assert "prosody_feet_questions_latin.json" not in line


def test_the_quickstart_venv_is_ignored_and_says_how_to_work_offline(clone):
    """The Quickstart's virtual environment never shows up as untracked files, and the offline
    instruction and the cache are in the Quickstart itself."""
    readme = (clone / "README.md").read_text(encoding="utf-8")
    quickstart = readme[
        readme.index("## Quickstart") : readme.index("\n## ", readme.index("## Quickstart") + 1)
    ]
    venv = re.search(r"python -m venv (\S+)", quickstart).group(1)
    (clone / venv / "bin").mkdir(parents=True)
    (clone / venv / "bin" / "python").write_text("", encoding="utf-8")
    assert _git("status", "--porcelain", "--untracked-files=all", cwd=clone) == ""
    assert "export RESPONDEOQA_DATA_DIR=" in quickstart
    assert "into the cache" in quickstart and "~/.cache/respondeoqa/" in quickstart
