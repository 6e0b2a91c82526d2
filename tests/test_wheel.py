"""The built wheels, installed into fresh venvs (not editable), run the commands the
README and docs/ give.

The evaluator's wheel and the Space's are built once per session from a copy of the source (so
no stale `build/` folder of the checkout leaks into them), installed (the evaluator with its
`dataset` extra) into a new venv without system site-packages, and each command runs from a
folder outside the checkout with no PYTHONPATH: only what the wheels carry is available. No
torch is needed (the `run` extra is not installed; `prompts` needs none). The evaluator's wheel
holds no Space module, and scores in a venv of its own, without gradio and without the Space.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest
import tomllib
from kit.net import free_port, stop, wait_for_http
from wheelkit import PACKAGE, ROOT, SPACE_PACKAGE, venv_env
from wheelkit import checkout_version as _checkout_version
from wheelkit import run as _run

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]  # the venv: test_bundle.py

NOT_PACKAGE_DATA = ("__pycache__", ".pyc")


@pytest.fixture
def workdir(tmp_path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    assert ROOT not in folder.parents
    return folder


def venv_run(venv: Path, workdir: Path, program: str, *args: str, timeout: float = 300):
    """Run one of the venv's executables in `workdir`, as a user of the venv would."""
    return _run(
        [str(venv / "bin" / program), *args],
        cwd=workdir,
        env=venv_env(venv, workdir.parent),
        timeout=timeout,
    )


def cli(venv: Path, workdir: Path, *args: str, timeout: float = 300) -> str:
    proc = venv_run(venv, workdir, "respondeoqa-eval", *args, timeout=timeout)
    assert "Traceback" not in proc.stderr
    return proc.stdout


def carried(wheel: Path, package: Path) -> set[str]:
    """The wheel's files, after checking that it carries every file of `package`."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in package.rglob("*"):
        if path.is_dir() or any(part in str(path) for part in NOT_PACKAGE_DATA):
            continue
        rel = path.relative_to(package.parent).as_posix()
        assert rel in names, f"{rel} is in the package but not in its wheel"
    return names


def test_the_wheel_carries_every_package_file(wheel):
    names = carried(wheel, PACKAGE)
    assert "respondeoqa_eval/dataset/templates/card.md" in names
    assert "respondeoqa_eval/py.typed" in names


def test_the_evaluator_wheel_holds_no_space_module(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.startswith("respondeoqa_space") or "/space/" in n]
    assert len(names) > 50 and all(n.startswith("respondeoqa_eval") for n in names)
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as whl:
        (meta,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        lines = whl.read(meta).decode("utf-8").splitlines()
    needs = {Requirement(x.split(":", 1)[1]).name for x in lines if x.startswith("Requires-Dist:")}
    extras = {x.split(":", 1)[1].strip() for x in lines if x.startswith("Provides-Extra:")}
    assert "gradio" not in needs and "numpy" in needs  # gradio_client only for the tests
    assert "space" not in extras and "dataset" in extras


def test_the_space_wheel_carries_every_space_file(space_wheel):
    names = carried(space_wheel, SPACE_PACKAGE)
    assert "respondeoqa_space/web/static/board.js" in names
    assert "respondeoqa_space/views/templates/board.html" in names


def test_score_runs_without_gradio_or_the_space(core_venv, workdir, public_dir):
    """What a researcher installs to score a file: the evaluator's wheel alone."""
    probe = (
        "import importlib.util as u; "
        "print([m for m in ('gradio', 'respondeoqa_space', 'fastapi') if u.find_spec(m)])"
    )
    assert venv_run(core_venv, workdir, "python", "-c", probe, timeout=120).stdout.strip() == "[]"
    cli(core_venv, workdir, "example", "-o", "preds.jsonl", "--data-dir", str(public_dir))
    out = cli(
        core_venv, workdir, "score", "preds.jsonl", "--report", "r.json",
        "--data-dir", str(public_dir), "--bootstrap", "100",
    )  # fmt: skip
    report = json.loads((workdir / "r.json").read_text(encoding="utf-8"))
    assert report["accuracy"]["overall"]["n"] == 1147 - 350
    assert "All non-translation items" in out


def test_the_wheel_is_ready_to_publish(wheel):
    """What the lm-eval task README's Upstreaming section asks before the upstream PR (the
    proposed `respondeoqa` extra names this package): `twine check --strict` passes and the
    metadata carries the licence, classifiers, URLs and a Markdown readme."""
    from conftest import require

    require("twine")
    proc = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and "PASSED" in proc.stdout, proc.stdout + proc.stderr
    with zipfile.ZipFile(wheel) as whl:
        (meta,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        text = whl.read(meta).decode("utf-8")
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in whl.namelist())
    assert "License-Expression: MIT" in text
    assert "Description-Content-Type: text/markdown" in text
    assert text.count("Classifier: ") >= 8 and "Project-URL: Paper, " in text


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
    proc = venv_run(venv, workdir, "python", "-c", probe, timeout=120)
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
    row = next(line for line in out.splitlines() if "All non-translation items" in line)
    assert float(row.split()[3]) == pytest.approx(100 * overall["score"], abs=0.05)  # one decimal
    version = _checkout_version()
    assert report["evaluator"]["version"] == version
    for signature in report["evaluator"]["signatures"].values():
        assert signature.endswith(f"version:{version}"), signature
    # item analysis across two reports (the second from another example draw)
    cli(venv, workdir, "example", "-o", "p2.jsonl", "--seed", "1", "--data-dir", str(public_dir))
    cli(venv, workdir, "score", "p2.jsonl", "--report", "r2.json", "--data-dir", str(public_dir))
    out = cli(venv, workdir, "items", "r.json", "r2.json", "--data-dir", str(public_dir))
    assert "Item analysis: 2 entries, 797 items" in out
    with (workdir / "items.csv").open(encoding="utf-8", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 797  # questions may hold line breaks


def test_python_api(venv, workdir, public_dir):
    cli(venv, workdir, "example", "-o", "preds.jsonl", "--data-dir", str(public_dir))
    code = (
        "from respondeoqa_eval import evaluate, load_gold\n"
        f"report = evaluate('preds.jsonl', load_gold({str(public_dir)!r}), bootstrap=0)\n"
        "print(report.to_dict()['accuracy']['by_language_pair']['latin-english']['n'])\n"
    )
    proc = venv_run(venv, workdir, "python", "-c", code, timeout=120)
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
    proc = venv_run(venv, workdir, "python", "-c", code, timeout=300)
    assert int(proc.stdout.split()[-1]) == 1147


def test_prompts(venv, workdir, public_dir):
    cli(venv, workdir, "prompts", "--output", "p.jsonl", "--data-dir", str(public_dir))
    rows = [json.loads(x) for x in (workdir / "p.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 1147
    assert [m["role"] for m in rows[0]["messages"]] == ["system", "user"]


def _leaderboard_over_http(url: str, view: str, coverage: str) -> dict:
    """The README's plain-HTTP call of the `/leaderboard` API endpoint (Gradio 6): POST the
    inputs, get an event id, then read the event stream until `event: complete`."""
    request = urllib.request.Request(
        f"{url}/gradio_api/call/leaderboard",
        data=json.dumps({"data": [view, coverage]}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as resp:
        event_id = json.load(resp)["event_id"]
    with urllib.request.urlopen(
        f"{url}/gradio_api/call/leaderboard/{event_id}", timeout=60
    ) as resp:
        lines = resp.read().decode("utf-8").splitlines()
    complete = lines.index("event: complete")
    (value,) = json.loads(lines[complete + 1].removeprefix("data: "))
    return value


def test_space_answers_http(venv, workdir, public_dir):
    port = free_port()
    log = workdir / "space.log"
    cmd = [
        str(venv / "bin" / "respondeoqa-space"),
        "serve",
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
        status, body = wait_for_http(f"http://127.0.0.1:{port}/", proc, log.read_text)
        assert status == 200, f"no answer from the space:\n{log.read_text()}"
        assert "<html" in body.lower()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=10) as resp:
            assert json.load(resp)["title"] == "RespondeoQA leaderboard"
        board = _leaderboard_over_http(f"http://127.0.0.1:{port}", "Overview", "all coverages")
        headers = board["headers"]
        assert board["view"] == "Overview" and headers[:6] == [
            "Rank",
            "Rank low",
            "Rank high",
            "Model",
            "Coverage",
            "Overall accuracy",
        ]
        models = {row[headers.index("Model")] for row in board["data"]}
        assert {"LLaMa 3.3 70B", "Qwen QwQ 32B", "o3-mini"} <= models  # the paper's rows
    finally:
        stop(proc)
    assert (workdir / "db" / "leaderboard.sqlite3").is_file()
    assert "Traceback" not in log.read_text(encoding="utf-8", errors="replace")
