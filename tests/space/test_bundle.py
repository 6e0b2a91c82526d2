"""The Space bundle (`respondeoqa-eval space bundle` / `deploy`): its files, the bundle installed
and started in a fresh venv from the built wheel, deploy against the local Hub stand-in, and the
private gold a Space downloads from the operator's private Hub repo.

The wheel and the venv are the session's (tests/conftest.py, tests/wheelkit.py): the wheel
smoke test (tests/test_wheel.py) runs in the same venv, so a session builds them once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import tomllib
import yaml
from kit.hubstub import RECORD_REPO as DATA_REPO
from kit.hubstub import TOKEN, HubStub
from kit.net import free_port, stop, wait_for_http
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version
from respondeoqa_eval.cli import main
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.space.config import DEFAULT_DB
from respondeoqa_eval.space.paper import PAPER_ROWS
from respondeoqa_eval.space.store.hub import HubRepo
from synthetic import SECRET_MARKER, private_records, write_private
from wheelkit import ROOT, checkout_version, pip_in, venv_env

from .helpers import leaderboard

pytestmark = pytest.mark.xdist_group("wheel")  # the session's venv, with tests/test_wheel.py

SPACE_DIR = ROOT / "space"  # the repository's copy of the Space files
GOLD_REPO = "operator/respondeoqa-gold"
DATASET = "operator/respondeoqa"
SPACE_REPO = "operator/leaderboard"
BUNDLE_FILES = {"app.py", "README.md", "requirements.txt", ".gitignore"}


def bundle(out: Path, *args: str) -> Path:
    assert main(["space", "bundle", "--output", str(out), *args]) == 0
    return out


def front_matter(readme: str) -> dict:
    assert readme.startswith("---\n"), readme[:80]
    return yaml.safe_load(readme.split("---\n", 2)[1])


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def git(folder: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def untracked(folder: Path) -> set[str]:
    """The files of `folder` git would add (not ignored by its .gitignore)."""
    return set(git(folder, "ls-files", "--others", "--exclude-standard").splitlines())


# -- the bundle's files -------------------------------------------------------------------------


@pytest.mark.slow
def test_bundle_files_and_front_matter(tmp_path: Path) -> None:
    import gradio

    out = bundle(
        tmp_path / "b", "--data-repo", DATA_REPO, "--gold-repo", GOLD_REPO, "--dataset", DATASET
    )
    assert {p.name for p in out.iterdir()} == BUNDLE_FILES

    readme = (out / "README.md").read_text(encoding="utf-8")
    meta = front_matter(readme)
    assert meta["sdk"] == "gradio"
    assert meta["sdk_version"] == gradio.__version__
    assert (out / meta["app_file"]).is_file() and meta["app_file"] == "app.py"
    python = meta["python_version"]
    assert isinstance(python, str) and Version(python).release[:1] == (3,)
    assert SpecifierSet(pyproject()["project"]["requires-python"]).contains(f"{python}.0")
    assert meta["hf_oauth"] is True
    assert "leaderboard" in meta["tags"]
    assert meta["datasets"] == [DATASET]
    assert f"](https://huggingface.co/datasets/{DATASET})" in readme
    # without --dataset: no dataset id is made up; the card links the upstream repository
    plain = front_matter((bundle(tmp_path / "plain") / "README.md").read_text(encoding="utf-8"))
    assert "datasets" not in plain
    assert "](https://github.com/slanglab/RespondeoQA)" in (
        tmp_path / "plain" / "README.md"
    ).read_text(encoding="utf-8")
    assert DATA_REPO in readme and GOLD_REPO in readme

    # no wheel: the exact package version from the index, with the Space's extra
    lines = [
        x
        for x in (out / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if x.strip() and not x.startswith("#")
    ]
    (req,) = [Requirement(x) for x in lines]
    assert req.name == "respondeoqa-eval" and req.extras == {"space"}
    assert str(req.specifier) == f"=={checkout_version()}"

    # the app file knows the repos, never a token
    app = (out / "app.py").read_text(encoding="utf-8")
    assert DATA_REPO in app and GOLD_REPO in app and "hf_" not in app.replace("HF_TOKEN", "")
    compile(app, "app.py", "exec")

    # .gitignore: the local database (and its WAL files) and Gradio's folder stay out
    git(out, "init", "-q")
    db = DEFAULT_DB.as_posix()
    local = [db, f"{db}-wal", f"{db}-shm", ".gradio/flagged/log.csv", "__pycache__/app.pyc"]
    for rel in local:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(b"x")
    assert untracked(out) == BUNDLE_FILES


@pytest.mark.slow
def test_wheel_bundle_vendors_the_package(tmp_path: Path, wheel: Path) -> None:
    out = bundle(tmp_path / "b", "--wheel", str(wheel))
    vendor = out / "vendor"
    version = {}
    exec((vendor / "respondeoqa_eval" / "_version.py").read_text(encoding="utf-8"), version)
    assert version["__version__"] == checkout_version()
    assert (vendor / f"respondeoqa_eval-{checkout_version()}.dist-info" / "METADATA").is_file()
    # requirements: the package's own dependencies and its space extra (from pyproject.toml)
    project = pyproject()["project"]
    wanted = {
        Requirement(x).name.lower().replace("_", "-")
        for x in project["dependencies"] + project["optional-dependencies"]["space"]
    }
    text = (out / "requirements.txt").read_text(encoding="utf-8")
    reqs = [Requirement(x) for x in text.splitlines() if x.strip() and not x.startswith("#")]
    assert {r.name.lower().replace("_", "-") for r in reqs} == wanted
    assert all(r.marker is None and r.url is None for r in reqs)  # nothing from the repo's files
    git(out, "init", "-q")
    assert "vendor/respondeoqa_eval/data/gold.py" in untracked(out)  # not ignored by /gold/


def test_bad_wheel_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    fake = tmp_path / "respondeoqa_eval-0.0.0-py3-none-any.whl"
    fake.write_bytes(b"not a zip")
    assert main(["space", "bundle", "--output", str(tmp_path / "b"), "--wheel", str(fake)]) == 2
    err = capsys.readouterr().err
    assert "--wheel" in err and "Traceback" not in err


def test_repository_space_folder_matches_the_bundle(tmp_path: Path) -> None:
    """`space/` in the repository is what the bundle writes (no repos configured): the same app
    file and .gitignore, and its README carries the same front matter."""
    out = bundle(tmp_path / "b")
    for name in ("app.py", ".gitignore"):
        assert (SPACE_DIR / name).read_text(encoding="utf-8") == (out / name).read_text(
            encoding="utf-8"
        ), f"space/{name} differs from the bundle's: respondeoqa-eval space bundle --output DIR"
    ours = front_matter((SPACE_DIR / "README.md").read_text(encoding="utf-8"))
    theirs = front_matter((out / "README.md").read_text(encoding="utf-8"))
    for volatile in ("sdk_version", "python_version"):  # the installed gradio / Python
        assert volatile in ours
        ours.pop(volatile), theirs.pop(volatile)
    assert ours == theirs
    assert not (SPACE_DIR / "requirements.txt").exists()  # written by the bundle, per version


# -- the bundle installed into a fresh venv and started -----------------------------------------


@pytest.mark.slow
def test_bundle_installs_and_serves_the_leaderboard(
    venv: Path, wheel: Path, tmp_path: Path, public_dir: Path
) -> None:
    from gradio_client import Client

    out = bundle(tmp_path / "space", "--wheel", str(wheel))
    git(out, "init", "-q")
    before = untracked(out)
    # as a Hub Space builds: requirements.txt alone, from a folder without the repository's files
    build = tmp_path / "build"
    build.mkdir()
    (build / "requirements.txt").write_bytes((out / "requirements.txt").read_bytes())
    pip_in(venv, "install", "-q", "--no-compile", "-r", "requirements.txt", cwd=build)
    pip_in(venv, "check", timeout=120)

    port = free_port()
    env = venv_env(venv, tmp_path)
    for name in ("SPACE_ID", "OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "HF_TOKEN"):
        env.pop(name, None)  # off a Space: no OAuth app, no Hub login
    db = tmp_path / "db" / "leaderboard.sqlite3"
    env.update(
        {
            "RESPONDEOQA_DATA_DIR": str(public_dir),
            "RESPONDEOQA_SPACE_DB": str(db),
            "GRADIO_SERVER_PORT": str(port),
            "GRADIO_TEMP_DIR": str(tmp_path / "gradio-tmp"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    log = tmp_path / "space.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [str(venv / "bin" / "python"), "app.py"],
            cwd=out,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    text = lambda: log.read_text(encoding="utf-8", errors="replace")  # noqa: E731
    try:
        url = f"http://127.0.0.1:{port}/"
        status, body = wait_for_http(url, proc, text)
        assert status == 200 and "<html" in body.lower(), text()
        models = {r["Model"] for r in leaderboard(Client(url, verbose=False))}
        assert {row.model for row in PAPER_ROWS} <= models
    finally:
        stop(proc)
    assert f"from {out / 'vendor' / 'respondeoqa_eval'}" in text()  # the bundle's own package
    assert "Traceback" not in text()
    assert db.is_file()
    assert untracked(out) == before  # what the run left in the folder is ignored


# -- deploy -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_deploy_dry_run_uploads_nothing_then_deploy_commits_once(
    hub: HubStub, tmp_path: Path, wheel: Path, capsys: pytest.CaptureFixture
) -> None:
    args = ["space", "deploy", "--repo-id", SPACE_REPO, "--data-repo", DATA_REPO]
    assert main([*args, "--dry-run"]) == 0
    listed = capsys.readouterr().out
    for name in BUNDLE_FILES:
        assert f"would upload {name} (" in listed
    assert hub.commits == [] and hub.created == {}

    assert main(args) == 0
    capsys.readouterr()
    key = f"space:{SPACE_REPO}"
    assert hub.created[key]["sdk"] == "gradio"
    (commit,) = hub.commits
    assert commit.repo == key and sorted(commit.added) == sorted(BUNDLE_FILES)
    expected = bundle(tmp_path / "expected", "--data-repo", DATA_REPO)
    assert hub.files(SPACE_REPO, "space") == {
        name: (expected / name).read_bytes() for name in BUNDLE_FILES
    }

    # a wheel deploy vendors the package; a later index deploy removes it in its one commit
    assert main([*args, "--wheel", str(wheel)]) == 0
    assert any(p.startswith("vendor/respondeoqa_eval/") for p in hub.files(SPACE_REPO, "space"))
    assert main(args) == 0
    assert len(hub.commits) == 3 and hub.commits[-1].deleted
    assert set(hub.files(SPACE_REPO, "space")) == BUNDLE_FILES


# -- private gold from the operator's private Hub repo ------------------------------------------


@pytest.mark.slow
def test_space_gold_from_private_hub_repo_is_never_served(
    hub: HubStub, tmp_path: Path, public_dir: Path, file_server
) -> None:
    from kit.space_server import start_server

    private = write_private(tmp_path / "private-gold")
    gold_repo = HubRepo(GOLD_REPO, token=TOKEN, endpoint=hub.url, cache_dir=tmp_path / "c")
    gold_repo.create(private=True)
    gold_repo.commit({p.name: p.read_bytes() for p in private.iterdir()}, "private gold")
    assert hub.private[f"dataset:{GOLD_REPO}"] is True

    out = bundle(tmp_path / "space", "--gold-repo", GOLD_REPO)
    public = file_server(public_dir)  # the pinned public files, served locally
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    workdir = tmp_path / "run"
    env = {
        "HF_ENDPOINT": hub.url,
        "HF_TOKEN": TOKEN,
        "HF_HUB_OFFLINE": "0",
        "HF_HOME": str(tmp_path / "hf-home"),
        "TMPDIR": str(tmp),  # where the Space puts its temporary gold folder
        "RESPONDEOQA_DATA_DIR": "",
        "RESPONDEOQA_SPACE_DB": str(workdir / "leaderboard.sqlite3"),
        "RESPONDEOQA_BASE_URL": public.url,
        "RESPONDEOQA_CACHE": str(tmp_path / "rqa-cache"),
        "SPACE_ID": "",
        "OAUTH_CLIENT_ID": "",
    }
    srv = start_server(
        Path("/nonexistent"), workdir, env_extra=env, cmd=[sys.executable, str(out / "app.py")]
    )
    try:
        # the Space's gold: the public files plus every private file of the repo
        reference = read_folder(write_private(tmp_path / "reference", with_public=True))
        log = srv.log_text()
        assert f"private gold: {len(private_records())} files" in log, log
        assert f"gold: {len(reference)} items from {len(reference.files)} files" in log, log
        assert "(private sources: True)" in log
        (folder,) = tmp.glob("respondeoqa-gold-*")
        secret = folder / "certamen_short_answer.json"
        assert SECRET_MARKER in secret.read_text(encoding="utf-8")

        def get(path: Path) -> tuple[int, bytes]:
            try:
                with urllib.request.urlopen(f"{srv.url}gradio_api/file={path}", timeout=10) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as exc:
                return exc.code, exc.read()

        # a file Gradio does serve (its temp folder) answers; the gold folder's files do not
        served = workdir / "gradio-tmp" / "probe.txt"
        served.parent.mkdir(parents=True, exist_ok=True)
        served.write_text("probe", encoding="utf-8")
        assert get(served) == (200, b"probe")
        for path in (secret, folder / ".." / folder.name / secret.name):
            status, body = get(path)
            assert status in (403, 404) and SECRET_MARKER.encode() not in body, status
        assert not folder.resolve().is_relative_to(served.parent.resolve())
        info = json.loads(urllib.request.urlopen(f"{srv.url}config", timeout=10).read())
        assert str(folder) not in json.dumps(info)
    finally:
        srv.stop()
    assert SECRET_MARKER not in srv.log_text()
