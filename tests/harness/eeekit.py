"""every-eval-ever 0.3.0 in its own venv: its validator (`eee-validate`) needs Python >= 3.12
and huggingface_hub < 2, neither the suite's. .ci/run makes the venv at install time (`python
tests/harness/eeekit.py DIR`, named in `$RESPONDEOQA_EEE_VENV`; tests/kit/venvs.py)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

EEE = "every-eval-ever==0.3.0"
VENV_VARIABLE = "RESPONDEOQA_EEE_VENV"


def python312() -> str | None:
    """A Python >= 3.12 that runs (a pyenv shim without that version selected does not)."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = sorted(glob.glob(str(root / "versions" / "3.1[2-9]*" / "bin" / "python")))
    candidates += [c for c in (shutil.which("python3.12"), shutil.which("python3.13")) if c]
    check = "import sys; assert sys.version_info >= (3, 12)"
    for candidate in candidates:
        if subprocess.run([candidate, "-c", check], capture_output=True).returncode == 0:
            return candidate
    return None


def pins() -> list[str]:
    """What the venv holds: the package, on this Python."""
    return [EEE, str(python312())]


def make_venv(folder: Path) -> Path:
    """A venv of `python312()` at `folder` with every-eval-ever; returns its python."""
    base = python312()
    if base is None:
        raise LookupError("every-eval-ever 0.3.0 needs Python >= 3.12, and none runs here")
    subprocess.run([base, "-m", "venv", str(folder)], check=True, timeout=300)
    python = folder / "bin" / "python"
    run = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", EEE],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if run.returncode != 0:
        raise RuntimeError(f"installing {EEE} failed:\n{run.stderr[-3000:]}")
    return python


if __name__ == "__main__":  # .ci/run: python tests/harness/eeekit.py FOLDER
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for kit
    from kit.venvs import kept_venv

    try:
        print(kept_venv(Path(sys.argv[1]).resolve(), pins(), make_venv))
    except (LookupError, RuntimeError) as exc:
        sys.exit(f"eeekit: {exc}")
