"""Files a command writes for the user get the user's umask, as `touch` would: under umask 022 a
report, an example file or a dataset build is readable by others (-rw-r--r--, folders
drwxr-xr-x), under 077 it is the owner's only. Every file and folder each command makes is
checked, in a process started with that umask (`subprocess`'s own `umask=`, never this
process's)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
from synthetic import PUBLIC_DIR

pytestmark = pytest.mark.slow

DATA = ["--data-dir", str(PUBLIC_DIR)]


def _run(cwd: Path, umask: int, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "respondeoqa_eval.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        umask=umask,
    )
    assert proc.returncode == 0, (args, proc.stderr[-2000:])
    return proc.stdout


def _modes(root: Path) -> dict[str, str]:
    """Every file and folder under `root` (not `root` itself): its permission bits."""
    return {
        str(p.relative_to(root)): stat.filemode(p.lstat().st_mode) for p in sorted(root.rglob("*"))
    }


@pytest.mark.parametrize("umask", [0o022, 0o077], ids=["022", "077"])
def test_every_file_a_command_writes_has_the_users_umask(tmp_path: Path, umask: int) -> None:
    work = tmp_path / "work"
    work.mkdir()
    _run(work, umask, "example", *DATA, "-o", "example/preds.jsonl")
    _run(work, umask, "example", *DATA, "-o", "example/other.jsonl", "--seed", "3")
    for name in ("preds", "other"):
        _run(
            work,
            umask,
            *("score", f"example/{name}.jsonl", *DATA, "--bootstrap", "0", "-q"),
            *("--report", f"reports/{name}.json"),
            *("--eval-results", f"hub/{name}", "--eval-dataset", "org/respondeoqa"),
            *("--eee", f"eee/{name}", "--eee-model", f"org/{name}", "--eee-org", "tester"),
        )
    reports = ("reports/preds.json", "reports/other.json")
    _run(work, umask, "items", *DATA, *reports, "-q")  # ./items.csv
    _run(work, umask, "items", *DATA, *reports, "-q", "-o", "analysis/items.csv")
    _run(work, umask, "prompts", *DATA, "--output", "prompts/public.jsonl")
    _run(work, umask, "dataset", "build", *DATA, "--output", "dataset/respondeoqa")

    modes = _modes(work)
    expected = {
        True: stat.filemode(stat.S_IFDIR | (0o777 & ~umask)),
        False: stat.filemode(stat.S_IFREG | (0o666 & ~umask)),
    }
    # what each command was asked to write is there (a check that writes nothing passes nothing)
    for written in (
        "example/preds.jsonl",
        "reports/preds.json",
        "items.csv",
        "analysis/items.csv",
        "prompts/public.jsonl",
        "dataset/respondeoqa",
        "dataset/respondeoqa/eval.yaml",
        "dataset/respondeoqa/README.md",
        "dataset/respondeoqa/public/test-00000-of-00001.parquet",
    ):
        assert written in modes, (written, sorted(modes))
    assert any(name.startswith("hub/preds/") and name.endswith(".yaml") for name in modes)
    assert any(name.startswith("eee/preds/") and name.endswith("_samples.jsonl") for name in modes)
    wrong = {name: mode for name, mode in modes.items() if mode != expected[(work / name).is_dir()]}
    assert wrong == {}, f"umask {umask:03o}: expected {expected}, got {wrong}"
