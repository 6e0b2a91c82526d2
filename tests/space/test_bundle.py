"""The Space repository (`space/`) and `respondeoqa-space deploy`: its files, uploaded as they
are (the dry run lists exactly the folder's tracked files), installed and started in a fresh
venv as the Hub builds it, deploy against the local Hub stand-in (one commit, the Space
variables set, refusals in one line), and the private gold a Space downloads from the
operator's private Hub repo.

The wheels and the venv are the session's (tests/conftest.py, tests/wheelkit.py): the wheel
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
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_space.cli import main
from respondeoqa_space.config import DEFAULT_DB
from respondeoqa_space.deploy import upload_files
from respondeoqa_space.paper import PAPER_ROWS
from respondeoqa_space.store.hub import HubRepo
from synthetic import SECRET_MARKER, private_records, write_private
from wheelkit import ROOT, checkout_version, pip_in, venv_env

from .helpers import leaderboard

# the session's venv, with tests/test_wheel.py; deploy lists files with git (a process)
pytestmark = [pytest.mark.xdist_group("wheel"), pytest.mark.slow]

SPACE_DIR = ROOT / "space"  # the Space repository
GOLD_REPO = "operator/respondeoqa-gold"
SPACE_REPO = "operator/leaderboard"
CARD_FILES = {"app.py", "README.md", "requirements.txt", ".gitignore", "pyproject.toml"}


def front_matter(readme: str) -> dict:
    assert readme.startswith("---\n"), readme[:80]
    return yaml.safe_load(readme.split("---\n", 2)[1])


def pyproject(folder: Path = ROOT) -> dict:
    return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))


def git(folder: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def untracked(folder: Path) -> set[str]:
    """The files of `folder` git would add (not ignored by its .gitignore)."""
    return set(git(folder, "ls-files", "--others", "--exclude-standard").splitlines())


def space_files() -> set[str]:
    """`git ls-files space/`, relative to the folder: what a deploy uploads."""
    return set(git(SPACE_DIR, "ls-files").splitlines())


def requirement_lines(text: str) -> list[Requirement]:
    return [Requirement(x) for x in text.splitlines() if x.strip() and not x.startswith("#")]


def materialize(files: dict[str, bytes], folder: Path) -> Path:
    """The files of a Space repository written into `folder` (as the Hub checks them out)."""
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


# -- the Space repository's files -----------------------------------------------------------------


def test_space_folder_files_and_front_matter(tmp_path: Path) -> None:
    import gradio

    files = upload_files(SPACE_DIR)
    assert set(files) == space_files() and CARD_FILES <= set(files)
    assert {n for n in files if n.startswith("respondeoqa_space/")} >= {
        "respondeoqa_space/__init__.py",
        "respondeoqa_space/views/templates/board.html",
        "respondeoqa_space/web/static/board.js",
    }

    readme = files["README.md"].decode("utf-8")
    meta = front_matter(readme)
    assert meta["sdk"] == "gradio"
    assert meta["sdk_version"] == gradio.__version__
    assert meta["app_file"] in files and meta["app_file"] == "app.py"
    python = meta["python_version"]
    assert isinstance(python, str) and Version(python).release[:1] == (3,)
    assert SpecifierSet(pyproject()["project"]["requires-python"]).contains(f"{python}.0")
    assert meta["hf_oauth"] is True
    assert "leaderboard" in meta["tags"]
    # no dataset id is made up; the card links the upstream repository
    assert "datasets" not in meta
    assert "](https://github.com/slanglab/RespondeoQA)" in readme

    # the evaluator pinned at this version, from the index; the Space's own dependencies are
    # the Space package's (space/pyproject.toml), in step
    reqs = requirement_lines(files["requirements.txt"].decode("utf-8"))
    (evaluator,) = [r for r in reqs if r.name == "respondeoqa-eval"]
    assert not evaluator.extras and str(evaluator.specifier) == f"=={checkout_version()}"
    declared = [Requirement(x) for x in pyproject(SPACE_DIR)["project"]["dependencies"]]
    assert sorted(map(str, reqs)) == sorted(map(str, declared))

    # the app file knows no repo and no token: those are Space variables and secrets
    app = files["app.py"].decode("utf-8")
    assert DATA_REPO not in app and "hf_" not in app.replace("HF_TOKEN", "")
    compile(app, "app.py", "exec")

    # .gitignore: the local database (and its WAL files) and Gradio's folder stay out
    out = materialize(files, tmp_path / "b")
    git(out, "init", "-q")
    db = DEFAULT_DB.as_posix()
    local = [db, f"{db}-wal", f"{db}-shm", ".gradio/flagged/log.csv", "__pycache__/app.pyc"]
    local += [".venv/bin/python", "respondeoqa_space.egg-info/PKG-INFO", "build/lib/x.py"]
    for rel in local:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(b"x")
    assert untracked(out) == set(files)


def test_dry_run_lists_the_space_folder_and_nothing_else(capsys: pytest.CaptureFixture) -> None:
    # what lies around a working Space folder is never uploaded: untracked and ignored files
    junk = [SPACE_DIR / "space_data" / "probe.sqlite3", SPACE_DIR / "respondeoqa_space" / "x.pyc"]
    for path in junk:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    try:
        assert main(["deploy", "--repo-id", SPACE_REPO, "--dry-run"]) == 0
    finally:
        for path in junk:
            path.unlink()
    lines = capsys.readouterr().out.splitlines()
    listed = [line.split(" ")[2] for line in lines if line.startswith("would upload ")]
    assert len(listed) == len(lines) and set(listed) == space_files()
    tracked = set(git(ROOT, "ls-files", "space/").splitlines())
    assert {f"space/{name}" for name in listed} == tracked


def test_wheel_deploy_vendors_the_evaluator(wheel: Path, tmp_path: Path) -> None:
    files = upload_files(SPACE_DIR, wheel)
    out = materialize(files, tmp_path / "b")
    vendor = out / "vendor"
    version: dict[str, str] = {}
    exec((vendor / "respondeoqa_eval" / "_version.py").read_text(encoding="utf-8"), version)
    assert version["__version__"] == checkout_version()
    assert (vendor / f"respondeoqa_eval-{checkout_version()}.dist-info" / "METADATA").is_file()
    assert not (vendor / "respondeoqa_space").exists()  # the evaluator's wheel alone
    # requirements: the evaluator's own dependencies (from pyproject.toml) in place of its line,
    # and the Space's
    project = pyproject()["project"]
    space = [r for r in pyproject(SPACE_DIR)["project"]["dependencies"]]
    wanted = {
        Requirement(x).name.lower().replace("_", "-") for x in project["dependencies"] + space
    } - {"respondeoqa-eval"}
    reqs = requirement_lines((out / "requirements.txt").read_text(encoding="utf-8"))
    assert {r.name.lower().replace("_", "-") for r in reqs} == wanted
    assert all(r.marker is None and r.url is None for r in reqs)  # nothing from the repo's files
    git(out, "init", "-q")
    assert "vendor/respondeoqa_eval/data/gold.py" in untracked(out)  # not ignored by /gold/


def test_bad_wheel_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    fake = tmp_path / "respondeoqa_eval-0.0.0-py3-none-any.whl"
    fake.write_bytes(b"not a zip")
    args = ["deploy", "--repo-id", SPACE_REPO, "--dry-run", "--wheel", str(fake)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--wheel" in err and "Traceback" not in err and err.count("\n") == 1


def test_the_space_app_file_starts_the_installed_space() -> None:
    app = (SPACE_DIR / "app.py").read_text(encoding="utf-8")
    assert "from respondeoqa_space.cli import serve" in app and "sys.exit(serve())" in app


# -- the Space repository installed into a fresh venv and started -------------------------------


@pytest.mark.slow
def test_deployed_space_installs_and_serves_the_leaderboard(
    hub: HubStub, venv: Path, wheel: Path, tmp_path: Path, public_dir: Path
) -> None:
    from gradio_client import Client

    assert main(["deploy", "--repo-id", SPACE_REPO, "--wheel", str(wheel)]) == 0
    out = materialize(hub.files(SPACE_REPO, "space"), tmp_path / "space")
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
    assert f"from {out / 'vendor' / 'respondeoqa_eval'}" in text()  # the upload's own evaluator
    assert f"from {out / 'respondeoqa_space'}" in text()  # and its own Space
    assert "Traceback" not in text()
    assert db.is_file()
    assert untracked(out) == before  # what the run left in the folder is ignored


# -- deploy -------------------------------------------------------------------------------------


def test_deploy_dry_run_uploads_nothing_then_deploy_commits_once(
    hub: HubStub, wheel: Path, capsys: pytest.CaptureFixture
) -> None:
    args = ["deploy", "--repo-id", SPACE_REPO, "--data-repo", DATA_REPO]
    assert main([*args, "--dry-run"]) == 0
    listed = capsys.readouterr().out
    for name in space_files():
        assert f"would upload {name} (" in listed
    assert f"would set the Space variable RESPONDEOQA_SPACE_MIRROR={DATA_REPO}" in listed
    assert hub.commits == [] and hub.created == {} and hub.space_variables == {}

    assert main(args) == 0
    capsys.readouterr()
    key = f"space:{SPACE_REPO}"
    assert hub.created[key]["sdk"] == "gradio"
    (commit,) = hub.commits
    assert commit.repo == key and sorted(commit.added) == sorted(space_files())
    assert hub.files(SPACE_REPO, "space") == {
        name: (SPACE_DIR / name).read_bytes() for name in space_files()
    }
    assert hub.space_variables[SPACE_REPO] == {"RESPONDEOQA_SPACE_MIRROR": DATA_REPO}

    # a wheel deploy vendors the evaluator; a later index deploy removes it in its one commit
    assert main([*args, "--wheel", str(wheel)]) == 0
    assert any(p.startswith("vendor/respondeoqa_eval/") for p in hub.files(SPACE_REPO, "space"))
    assert main([*args, "--gold-repo", GOLD_REPO]) == 0
    assert len(hub.commits) == 3 and hub.commits[-1].deleted
    assert set(hub.files(SPACE_REPO, "space")) == space_files()
    assert hub.space_variables[SPACE_REPO] == {
        "RESPONDEOQA_SPACE_MIRROR": DATA_REPO,
        "RESPONDEOQA_GOLD_REPO": GOLD_REPO,
    }


@pytest.mark.parametrize("status", [403, 503])
def test_a_refused_variable_is_one_line_and_uploads_nothing(
    hub: HubStub, status: int, capsys: pytest.CaptureFixture
) -> None:
    # the Hub refuses the token (403), or fails beyond the retries (5xx)
    hub.fail("POST", f"/api/spaces/{SPACE_REPO}/variables", status, times=10)
    args = ["deploy", "--repo-id", SPACE_REPO, "--gold-repo", GOLD_REPO]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"HTTP {status}" in err and "RESPONDEOQA_GOLD_REPO" in err
    assert "Traceback" not in err and TOKEN not in err
    assert hub.commits == [] and hub.space_variables == {}


# -- private gold from the operator's private Hub repo ------------------------------------------


def test_space_gold_from_private_hub_repo_is_never_served(
    hub: HubStub, tmp_path: Path, public_dir: Path, file_server
) -> None:
    from kit.space_server import start_server

    private = write_private(tmp_path / "private-gold")
    gold_repo = HubRepo(GOLD_REPO, token=TOKEN, endpoint=hub.url, cache_dir=tmp_path / "c")
    gold_repo.create(private=True)
    gold_repo.commit({p.name: p.read_bytes() for p in private.iterdir()}, "private gold")
    assert hub.private[f"dataset:{GOLD_REPO}"] is True

    out = materialize(upload_files(SPACE_DIR), tmp_path / "space")  # the deployed Space
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
        "RESPONDEOQA_GOLD_REPO": GOLD_REPO,  # the Space variable `deploy --gold-repo` sets
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
