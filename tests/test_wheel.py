"""The built wheel, installed into a fresh venv (not editable), runs every README command.

The wheel is built once per session from a copy of the source (so no stale `build/` folder
of the checkout leaks into it), installed with the `space` and `dataset` extras into a new
venv without system site-packages, and each command runs from a folder outside the checkout
with no PYTHONPATH: only what the wheel carries is available. No torch is needed (the `run`
extra is not installed; `prompts` needs none).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
import tomllib

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "evaluator" / "respondeoqa_eval"
# what a build reads besides the package (pyproject's readme; optional build files)
BUILD_FILES = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "setup.py", "setup.cfg")
EXTRAS = "space,dataset"
NOT_PACKAGE_DATA = ("__pycache__", ".pyc")


def _checkout_version() -> str:
    namespace: dict[str, str] = {}
    exec((PACKAGE / "_version.py").read_text(encoding="utf-8"), namespace)
    return namespace["__version__"]


def _run(cmd: list[str], *, timeout: float, **kwargs) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """`pip wheel` of a copy of the source tree (build isolation on, as a user's build)."""
    src = tmp_path_factory.mktemp("wheel-src")
    for name in BUILD_FILES:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "evaluator",
        src / "evaluator",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"),
    )
    out = tmp_path_factory.mktemp("dist")
    _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        timeout=600,
    )
    (path,) = out.glob("respondeoqa_eval-*.whl")
    return path


def _pip_version() -> tuple[int, ...]:
    import pip

    return tuple(int(x) for x in pip.__version__.split(".")[:2] if x.isdigit())


@pytest.fixture(scope="session")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv (no system site-packages) with the wheel and its space + dataset extras."""
    home = tmp_path_factory.mktemp("venv") / "env"
    python = home / "bin" / "python"
    install = ["install", "-q", "--no-compile", f"{wheel}[{EXTRAS}]"]
    if _pip_version() >= (22, 3):  # this pip installs into another interpreter: saves ensurepip
        _run([sys.executable, "-m", "venv", "--without-pip", str(home)], timeout=120)
        cmd = [sys.executable, "-m", "pip", "--python", str(python), *install]
    else:
        _run([sys.executable, "-m", "venv", str(home)], timeout=300)
        cmd = [str(python), "-m", "pip", *install]
    _run(cmd, timeout=1200)
    return home


@pytest.fixture
def workdir(tmp_path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    assert ROOT not in folder.parents
    return folder


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


def cli(venv: Path, workdir: Path, *args: str, timeout: float = 300) -> str:
    proc = _run(
        [str(venv / "bin" / "respondeoqa-eval"), *args],
        cwd=workdir,
        env=venv_env(venv, workdir.parent),
        timeout=timeout,
    )
    assert "Traceback" not in proc.stderr
    return proc.stdout


def test_the_wheel_carries_every_package_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in PACKAGE.rglob("*"):
        if path.is_dir() or any(part in str(path) for part in NOT_PACKAGE_DATA):
            continue
        rel = path.relative_to(PACKAGE.parent).as_posix()
        assert rel in names, f"{rel} is in the package but not in the wheel"
    assert "respondeoqa_eval/dataset/templates/card.md" in names
    assert "respondeoqa_eval/py.typed" in names


def test_one_version_source(wheel):
    """pyproject.toml takes its version from _version.py; the wheel and signatures agree."""
    from respondeoqa_eval import __version__
    from respondeoqa_eval.metrics import base

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" in project["project"]["dynamic"]
    assert "version" not in project["project"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "respondeoqa_eval._version.__version__"
    }
    assert __version__ == _checkout_version()
    assert wheel.name.startswith(f"respondeoqa_eval-{__version__}-")
    assert base.package_version() == __version__


def test_installed_package_is_the_wheel_not_the_checkout(venv, workdir):
    probe = (
        "import importlib.metadata as m, json, respondeoqa_eval as r; "
        "print(json.dumps([r.__file__, r.__version__, m.version('respondeoqa-eval')]))"
    )
    proc = _run(
        [str(venv / "bin" / "python"), "-c", probe],
        cwd=workdir,
        env=venv_env(venv, workdir.parent),
        timeout=120,
    )
    where, version, dist_version = json.loads(proc.stdout)
    assert Path(where).is_relative_to(venv) and not Path(where).is_relative_to(ROOT)
    assert version == dist_version == _checkout_version()
    assert cli(venv, workdir, "--version").strip().endswith(version)


def test_example_then_score(venv, workdir, public_dir):
    cli(venv, workdir, "example", "-o", "preds.jsonl", "--data-dir", str(public_dir))
    assert len((workdir / "preds.jsonl").read_text(encoding="utf-8").splitlines()) == 1147
    out = cli(
        venv,
        workdir,
        "score",
        "preds.jsonl",
        "--report",
        "r.json",
        "--data-dir",
        str(public_dir),
        "--bootstrap",
        "100",
    )
    report = json.loads((workdir / "r.json").read_text(encoding="utf-8"))
    overall = report["accuracy"]["overall"]
    assert overall["n"] == 1147 - 350  # every public item but the translations
    assert 0 <= overall["score"] <= 1 and len(overall["ci"]) == 2
    assert f"{100 * overall['score']:.2f}" in out
    version = _checkout_version()
    assert report["evaluator"]["version"] == version
    for signature in report["evaluator"]["signatures"].values():
        assert signature.endswith(f"version:{version}"), signature


def test_python_api(venv, workdir, public_dir):
    cli(venv, workdir, "example", "-o", "preds.jsonl", "--data-dir", str(public_dir))
    code = (
        "from respondeoqa_eval import evaluate, load_gold\n"
        f"report = evaluate('preds.jsonl', load_gold({str(public_dir)!r}), bootstrap=0)\n"
        "print(report.to_dict()['accuracy']['by_language_pair']['latin-english']['n'])\n"
    )
    proc = _run(
        [str(venv / "bin" / "python"), "-c", code],
        cwd=workdir,
        env=venv_env(venv, workdir.parent),
        timeout=120,
    )
    assert int(proc.stdout) > 0


def test_dataset_build_and_load(venv, workdir, public_dir):
    cli(venv, workdir, "dataset", "build", "--output", "out", "--data-dir", str(public_dir))
    out = workdir / "out"
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "# RespondeoQA" in card  # rendered from the template
    assert (out / "LICENSE.md").is_file()
    parquet = sorted(p.relative_to(out).parts[0] for p in out.glob("*/test-*.parquet"))
    assert {"public", "jun-schol", "lat-pros", "lat-pros-feet"} <= set(parquet)
    code = (
        "from datasets import load_dataset\n"
        "print(load_dataset('out', 'public', split='test').num_rows)\n"
    )
    proc = _run(
        [str(venv / "bin" / "python"), "-c", code],
        cwd=workdir,
        env=venv_env(venv, workdir.parent),
        timeout=300,
    )
    assert int(proc.stdout.split()[-1]) == 1147


def test_prompts(venv, workdir, public_dir):
    cli(venv, workdir, "prompts", "--output", "p.jsonl", "--data-dir", str(public_dir))
    rows = [json.loads(x) for x in (workdir / "p.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 1147
    assert [m["role"] for m in rows[0]["messages"]] == ["system", "user"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_space_answers_http(venv, workdir, public_dir):
    port = _free_port()
    log = workdir / "space.log"
    cmd = [
        str(venv / "bin" / "respondeoqa-eval"),
        "space",
        "--data-dir",
        str(public_dir),
        "--db",
        str(workdir / "db" / "leaderboard.sqlite3"),
        "--port",
        str(port),
        "--host",
        "127.0.0.1",
    ]
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            cmd, cwd=workdir, env=venv_env(venv, workdir.parent), stdout=sink, stderr=sink
        )
    try:
        status, body = None, ""
        for _ in range(240):  # bounded: at most about 2 minutes
            if proc.poll() is not None:
                pytest.fail(f"space exited with {proc.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as resp:
                    status, body = resp.status, resp.read().decode("utf-8", "replace")
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.5)
        assert status == 200, f"no answer from the space:\n{log.read_text()}"
        assert "<html" in body.lower()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=10) as resp:
            assert json.load(resp)["title"] == "RespondeoQA leaderboard"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
    assert (workdir / "db" / "leaderboard.sqlite3").is_file()
    assert "Traceback" not in log.read_text(encoding="utf-8", errors="replace")
