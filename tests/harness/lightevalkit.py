"""The real lighteval 0.13.0 in its own venv: creating it, running it, and turning a run's
output into the committed fixture (data/lighteval/) without any upstream text.

lighteval 0.13.0 pins nltk==3.9.1 and termcolor==2.3.0 (not our suite's), calls
`xxhash.xxh64(str)`, which xxhash 4 rejects (`xxhash<4`), and calls
`HfApi.list_models(model_name=...)`, which huggingface_hub 2 removed (`huggingface_hub<2`). At
start it also downloads tinyBenchmarks.pkl from GitHub unless the file exists; the machines here
reach only package registries, so an empty file stands in (no tinyBenchmarks task is run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[2]
PINS = ["torch==2.13.0", "lighteval==0.13.0", "xxhash<4", "huggingface_hub<2"]
VENV_VARIABLE = "RESPONDEOQA_LIGHTEVAL_VENV"  # the venv .ci/run keeps (tests/kit/venvs.py)
MODULE = "respondeoqa_eval.harness.lighteval_tasks"
MODEL = "org/tiny-model"  # a local folder, relative to the run's working directory


def make_venv(folder: Path) -> Path:
    """A venv with lighteval 0.13.0 and this checkout (editable); returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    python = folder / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run = subprocess.run(
        [*pip, *PINS, "-e", f"{REPO}[dataset]"], capture_output=True, text=True, timeout=1800
    )
    if run.returncode != 0:
        raise RuntimeError(f"installing lighteval failed:\n{run.stderr[-3000:]}")
    site = subprocess.run(
        [str(python), "-c", "import lighteval, os; print(os.path.dirname(lighteval.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "tasks" / "tasks" / "tinyBenchmarks.pkl").touch()
    return python


def model_yaml(folder: Path, model: str, system_prompt: str, max_new_tokens: int) -> Path:
    """lighteval's model config file: the system prompt cannot go in `key=value,...` args."""
    path = folder / "model.yaml"
    path.write_text(
        "model_parameters:\n"
        f"  model_name: {json.dumps(model)}\n"
        "  dtype: float32\n"
        f"  system_prompt: {json.dumps(system_prompt)}\n"
        "  generation_parameters:\n"
        "    temperature: 0.6\n"
        "    top_p: 0.95\n"
        f"    max_new_tokens: {max_new_tokens}\n",
        encoding="utf-8",
    )
    return path


def run_lighteval(python: Path, cwd: Path, args: list[str], dataset: Path, **env: str):
    """`lighteval ARGS --custom-tasks MODULE --save-details --output-dir out` in `cwd`."""
    full_env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "HF_HOME": str(cwd / "hf_home"),
        "RESPONDEOQA_DATASET": str(dataset),
        **env,
    }
    cmd = [str(python), "-m", "lighteval", *args, "--custom-tasks", MODULE, "--save-details"]
    cmd += ["--output-dir", str(cwd / "out")]
    done = subprocess.run(cmd, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise AssertionError(f"lighteval failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return cwd / "out"


# -- the committed fixture -------------------------------------------------------------------

PLACEHOLDER_RESPONSES = [
    "Some reasoning.\nAnswer: Dactyl, Spondee",
    "**Answer: nothing**",
    "no answer line",
    "Answer: Trochee",
]
_KEPT_SPECIFIC = ("id", "question_id", "question_language", "answer_language", "task", "source")


def _clean_row(row: dict, i: int) -> dict:
    doc, response = row["doc"], row["model_response"]
    doc["query"] = "<question>"
    doc["choices"] = ["<reference>" for _ in doc["choices"]]
    doc["specific"] = {
        k: (v if k in _KEPT_SPECIFIC else None) for k, v in (doc["specific"] or {}).items()
    }
    response["text"] = [PLACEHOLDER_RESPONSES[i % len(PLACEHOLDER_RESPONSES)]]
    response["text_post_processed"] = None
    response["input_tokens"] = []
    response["output_tokens"] = []
    row["metric"] = {
        k: (v if isinstance(v, float) else json.dumps(["", ["<reference>"], json.loads(v)[2]]))
        for k, v in row["metric"].items()
    }
    return row


def sanitise(run_out: Path, dest: Path, dataset: Path) -> list[Path]:
    """Copy a lighteval output folder to `dest` with every upstream text replaced (queries,
    references, the dataset row but its ids) and placeholder responses; same files, same
    Arrow schemas, the same results JSON but for the local `dataset` path."""
    written = []
    for path in sorted(run_out.rglob("*")):
        if not path.is_file():
            continue
        target = dest / path.relative_to(run_out)
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            rows = [_clean_row(r, i) for i, r in enumerate(table.to_pylist())]
            pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), target)
        else:
            text = path.read_text(encoding="utf-8").replace(str(dataset), "<local export>")
            target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


if __name__ == "__main__":  # .ci/run: python tests/harness/lightevalkit.py FOLDER
    sys.path.insert(0, str(REPO / "tests"))  # for kit
    from kit.venvs import kept_venv

    print(kept_venv(Path(sys.argv[1]).resolve(), PINS, make_venv))
