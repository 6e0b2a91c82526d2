"""Regenerate data/lighteval/ from a real lighteval 0.13.0 run (not run by the test suite;
test_lighteval.py does the same run and checks the committed files against it):

    python tests/harness/make_lighteval_details.py

It builds lighteval's venv (lightevalkit.make_venv), a tiny random model and the public dataset
export, runs `lighteval accelerate` on the first 2 items of each public task, and keeps the
output with every upstream text replaced (lightevalkit.sanitise): upstream data is never
committed.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from lightevalkit import MODEL, make_venv, model_yaml, run_lighteval, sanitise  # noqa: E402
from respondeoqa_eval.dataset.export import build_folder  # noqa: E402
from respondeoqa_eval.harness import lighteval_task_arg  # noqa: E402
from respondeoqa_eval.runner.prompts import SYSTEM_PROMPT  # noqa: E402
from runner.tiny_model import build_tiny_model  # noqa: E402
from synthetic import PUBLIC_DIR  # noqa: E402


def real_run(python: Path, work: Path, max_samples: int = 2) -> tuple[Path, Path]:
    """The fixture's run: the public suite on a tiny model; returns lighteval's output folder
    and the dataset export it read."""
    export = build_folder(work / "export", data_dir=PUBLIC_DIR).folder
    build_tiny_model(work / MODEL)
    config = model_yaml(work, MODEL, SYSTEM_PROMPT, max_new_tokens=8)
    args = ["accelerate", str(config), lighteval_task_arg(), "--max-samples", str(max_samples)]
    return run_lighteval(python, work, args, export), export


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        out, export = real_run(make_venv(work / "venv"), work)
        dest = HERE / "data" / "lighteval"
        if dest.exists():
            shutil.rmtree(dest)
        for path in sanitise(out, dest, export):
            print(f"wrote {path.relative_to(HERE)}")


if __name__ == "__main__":
    main()
