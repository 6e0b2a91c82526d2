"""The two ways to start the Space: `respondeoqa-space serve` on its defaults (public gold fetched
and verified, SQLite in space_data/) and `python space/app.py` (the Hub entry point)."""

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


def test_space_app_py_is_the_bundle_app_file() -> None:
    """space/app.py is what `space bundle` writes with no repos set (render_app is its one
    source): the committed copy never drifts from the bundled one."""
    from respondeoqa_space.deploy.bundle import render_app

    committed = (ROOT / "space" / "app.py").read_text(encoding="utf-8")
    assert committed == render_app(), "space/app.py is stale: write render_app() into it"


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
