"""With no data (offline, nothing cached, no folder), every entry point says the same thing in
one line: set RESPONDEOQA_DATA_DIR to a copy of the upstream data/final_dataset folder, or pass
a folder in that entry point's own words (`--data-dir DIR`, lm-eval's `--metadata`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import require, run_cli
from kit.net import free_port
from respondeoqa_eval.data.datadir import NoData
from respondeoqa_eval.errors import InputError

pytestmark = pytest.mark.slow

VARIABLE = "RESPONDEOQA_DATA_DIR=DIR"
FOLDER = "upstream data/final_dataset folder"


@pytest.fixture
def offline(tmp_path, monkeypatch) -> dict[str, str]:
    """No folder, an empty cache, and a download address where nothing listens (refused)."""
    monkeypatch.delenv("RESPONDEOQA_DATA_DIR", raising=False)
    monkeypatch.setenv("RESPONDEOQA_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("RESPONDEOQA_BASE_URL", f"http://127.0.0.1:{free_port()}/")
    return dict(os.environ)


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    module = "respondeoqa_space" if args[0] == "serve" else "respondeoqa_eval.cli"
    return run_cli(*args, env=env, cwd=cwd, timeout=180, module=module)


COMMANDS = {
    "example": ["example", "-o", "p.jsonl"],
    "score": ["score", "p.jsonl"],
    "dataset build": ["dataset", "build", "--output", "ds"],
    "prompts": ["prompts", "-o", "prompts.jsonl"],
    "run": ["run", "--model", "m", "--api-base", "http://127.0.0.1:9/v1", "-o", "r.jsonl"],
    "space": ["serve", "--port", str(free_port()), "--db", "db.sqlite3"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_names_the_variable_and_the_upstream_folder(name, offline, tmp_path):
    if name == "space":
        require("gradio")
    (tmp_path / "p.jsonl").write_text('{"id": "x", "response": "Answer: A"}\n')
    proc = _cli(COMMANDS[name], offline, tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr  # one line, no traceback
    line = lines[0]
    program = "respondeoqa-space" if name == "space" else "respondeoqa-eval"
    assert line.startswith(f"{program}: error: cannot download the public files: ")
    assert f"Without internet, set {VARIABLE}, DIR being a copy of the {FOLDER}" in line
    assert line.endswith("or pass --data-dir DIR.")
    assert line.count("RESPONDEOQA_DATA_DIR") == 1
    if name == "space":  # the gold is loaded before the address is printed
        assert "http://" not in proc.stdout


def test_private_configs_name_the_variable_too(offline, tmp_path):
    proc = _cli(
        ["prompts", "--config", "certamen", "-o", "p.jsonl"], offline, tmp_path
    )  # no folder: the Certamen files cannot come from anywhere
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "--config certamen: Certamen and NLE are not public" in line
    assert f"Set {VARIABLE}, DIR being a folder with them" in line
    assert line.endswith("or pass --data-dir DIR.")


def test_a_variable_naming_no_folder_says_so(offline, tmp_path):
    env = {**offline, "RESPONDEOQA_DATA_DIR": str(tmp_path / "nowhere")}
    proc = _cli(["score", "p.jsonl"], env, tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"respondeoqa-eval: error: RESPONDEOQA_DATA_DIR={tmp_path / 'nowhere'}: data folder "
        "does not exist or is not a folder"
    )


def test_the_python_api_says_data_dir(offline):
    from respondeoqa_eval import load_gold

    with pytest.raises(NoData) as caught:
        load_gold()
    text = str(caught.value)
    assert f"set {VARIABLE}" in text and text.endswith("or pass data_dir=DIR.")


def test_inside_lm_eval_the_message_gives_the_metadata_form(offline):
    require("lm_eval")
    from lm_eval.tasks import TaskManager
    from respondeoqa_eval.harness import task_dir

    manager = TaskManager(include_path=str(task_dir()), include_defaults=False)
    with pytest.raises(InputError) as caught:
        manager.load(["respondeoqa_lat_pros_feet"])
    text = str(caught.value)
    assert f"set {VARIABLE}, DIR being a copy of the {FOLDER}" in text
    assert text.endswith("""or pass --metadata '{"data_dir": "DIR"}'.""")
    assert "--data-dir" not in text  # lm_eval has no such option
