"""The ways to start the Space: `respondeoqa-space serve` on its defaults (public gold fetched
and verified, SQLite in space_data/), `python space/app.py` (the Hub entry point), and the old
command's one line naming the new one."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

import pytest
from kit.space_server import start_server
from synthetic import PUBLIC_DIR

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_space_app_py_starts_the_same_app(tmp_path: Path) -> None:
    db = tmp_path / "hub.sqlite3"
    srv = start_server(
        PUBLIC_DIR,
        tmp_path,
        env_extra={"RESPONDEOQA_DATA_DIR": str(PUBLIC_DIR), "RESPONDEOQA_SPACE_DB": str(db)},
        cmd=[sys.executable, str(ROOT / "space" / "app.py")],
    )
    try:
        with urllib.request.urlopen(srv.url + "gradio_api/info", timeout=10) as resp:
            info = json.load(resp)
        assert {"/submit", "/leaderboard", "/compare"} <= set(info["named_endpoints"])
        assert db.exists()  # the database named by the environment
    finally:
        srv.proc.terminate()
        srv.proc.wait(timeout=15)
    assert "gold: 1147 items from 6 files" in srv.log_text()


def test_space_app_py_is_uploaded_as_it_is() -> None:
    """space/app.py is the Space's app file itself (no bundler writes it any more): a deploy
    uploads the committed file unchanged."""
    from respondeoqa_space.deploy import space_folder, upload_files

    committed = (ROOT / "space" / "app.py").read_bytes()
    assert space_folder() == ROOT / "space"
    assert upload_files(space_folder())["app.py"] == committed


def test_space_readme_front_matter() -> None:
    import gradio
    import yaml

    text = (ROOT / "space" / "README.md").read_text(encoding="utf-8")
    fields = yaml.safe_load(text.split("---")[1])
    assert fields["sdk"] == "gradio" and fields["app_file"] == "app.py"
    assert fields["sdk_version"] == gradio.__version__
    assert str(fields["python_version"]).startswith("3.")
    assert fields["hf_oauth"] is True and "leaderboard" in fields["tags"]


def test_default_command_fetches_public_gold(tmp_path: Path, file_server) -> None:
    # the pinned download, served by a local HTTP server instead of GitHub
    files = file_server(PUBLIC_DIR)
    srv = start_server(
        PUBLIC_DIR,
        tmp_path,
        env_extra={
            "RESPONDEOQA_BASE_URL": files.url,
            "RESPONDEOQA_CACHE": str(tmp_path / "cache"),
            "RESPONDEOQA_DATA_DIR": "",
            "RESPONDEOQA_SPACE_DB": "",
        },
        cmd=[sys.executable, "-m", "respondeoqa_space", "serve", "--port", "PORT"],
    )
    try:
        with urllib.request.urlopen(srv.url + "gradio_api/info", timeout=10) as resp:
            assert "/submit" in json.load(resp)["named_endpoints"]
    finally:
        srv.proc.terminate()
        srv.proc.wait(timeout=15)
    assert (tmp_path / "space_data" / "leaderboard.sqlite3").exists()
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 6
    assert len(files.requests) == 6  # each public file fetched once
    assert "gold: 1147 items from 6 files (private sources: False)" in srv.log_text()


def test_the_old_command_names_the_new_one(tmp_path: Path) -> None:
    from conftest import run_cli

    for args in (["space"], ["space", "admin", "list"], ["space", "bundle", "--output", "x"]):
        proc = run_cli(*args, cwd=tmp_path, timeout=120)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr == (
            "respondeoqa-eval: 'space' moved to its own command: respondeoqa-space "
            "serve|admin|worker|dispatch|deploy (pip install -e ./space)\n"
        )
