"""Build the evaluator's and the Space's wheels from a copy of the source and install them
into fresh venvs.

Shared by the wheel smoke test (tests/test_wheel.py) and the Space deploy test
(tests/space/test_bundle.py) through the session fixtures `wheel`, `space_wheel`, `venv` (both
wheels) and `core_venv` (the evaluator alone) in tests/conftest.py, so a test session builds
each wheel and creates each venv once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "evaluator" / "respondeoqa_eval"
SPACE_PACKAGE = ROOT / "space" / "respondeoqa_space"
# what a build reads besides the package (pyproject's readme; optional build files)
BUILD_FILES = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "setup.py", "setup.cfg")
EXTRAS = "dataset"
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist", ".venv")


def checkout_version() -> str:
    """The version the checkout's _version.py declares (read, not imported)."""
    namespace: dict[str, str] = {}
    exec((PACKAGE / "_version.py").read_text(encoding="utf-8"), namespace)
    return namespace["__version__"]


def run(cmd: list[str], *, timeout: float, **kwargs) -> subprocess.CompletedProcess:
    """Run `cmd`; fail with its output unless it exits 0."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def build_wheel(src: Path, out: Path) -> Path:
    """`pip wheel` of a copy of the source tree in `src` (build isolation on, as a user's
    build), written to `out`; the wheel's path."""
    for name in BUILD_FILES:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "evaluator", src / "evaluator", ignore=JUNK)
    run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        timeout=600,
    )
    (path,) = out.glob("respondeoqa_eval-*.whl")
    return path


def build_space_wheel(src: Path, out: Path) -> Path:
    """`pip wheel` of a copy of the Space folder (`space/`, its own pyproject.toml), written to
    `out`; the wheel's path."""
    shutil.copytree(ROOT / "space", src / "space", ignore=JUNK)
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(out),
            str(src / "space"),
        ],
        timeout=600,
    )
    (path,) = out.glob("respondeoqa_space-*.whl")
    return path


def _pip_version() -> tuple[int, ...]:
    import pip

    return tuple(int(x) for x in pip.__version__.split(".")[:2] if x.isdigit())


def pip_in(home: Path, *args: str, timeout: float = 1200, **kwargs) -> subprocess.CompletedProcess:
    """`pip ARGS` acting on the venv at `home` (this interpreter's pip when it can target
    another interpreter, which spares the venv its own pip)."""
    python = home / "bin" / "python"
    if (home / "bin" / "pip").exists() or _pip_version() < (22, 3):
        cmd = [str(python), "-m", "pip", *args]
    else:
        cmd = [sys.executable, "-m", "pip", "--python", str(python), *args]
    return run(cmd, timeout=timeout, **kwargs)


def make_venv(home: Path, wheel: Path, *also: Path, extras: str = EXTRAS) -> Path:
    """A fresh venv at `home` (no system site-packages) with the evaluator's wheel (with
    `extras`) and the wheels `also` installed (not editable)."""
    if _pip_version() >= (22, 3):
        run([sys.executable, "-m", "venv", "--without-pip", str(home)], timeout=120)
    else:
        run([sys.executable, "-m", "venv", str(home)], timeout=300)
    target = f"{wheel}[{extras}]" if extras else str(wheel)
    pip_in(home, "install", "-q", "--no-compile", target, *map(str, also))
    return home


def venv_env(venv: Path, tmp: Path) -> dict[str, str]:
    """The environment of a user of the venv: no PYTHONPATH, offline, private caches."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "RESPONDEOQA_DATA_DIR")
    }
    env.update(
        {
            "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            "VIRTUAL_ENV": str(venv),
            "HF_HOME": str(tmp / "hf_home"),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "GRADIO_ANALYTICS_ENABLED": "False",
            "RESPONDEOQA_CACHE": str(tmp / "rqa_cache"),
            # every command gets --data-dir: a download attempt would fail here, not pass
            "RESPONDEOQA_BASE_URL": "http://127.0.0.1:9/unreachable/",
        }
    )
    return env
