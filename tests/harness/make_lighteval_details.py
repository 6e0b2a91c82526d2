"""Write `data/lighteval/` (a details Parquet and its results JSON) with the real lighteval 0.13.0 (not run by the test suite).

lighteval pins packages (nltk==3.9.1, termcolor==2.3.0, ...) that the suite's environment does
not need, so the suite reads this file instead of installing lighteval. Regenerate with:

    python -m venv --system-site-packages /tmp/lv && /tmp/lv/bin/pip install lighteval==0.13.0
    /tmp/lv/bin/python tests/harness/make_lighteval_details.py

The rows go through lighteval's own `DetailsLogger.log` and `EvaluationTracker.save`
(lighteval/logging/evaluation_tracker.py), exactly as `lighteval accelerate ... --save-details`
writes them. Docs carry our ids in `specific`; no question or gold text is stored (upstream data
is never committed): the queries are placeholders and the responses are not gold answers.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from lighteval.logging.evaluation_tracker import EvaluationTracker
from lighteval.models.model_input import GenerationParameters
from lighteval.models.model_output import ModelResponse
from lighteval.models.transformers.transformers_model import TransformersModelConfig
from lighteval.tasks.requests import Doc

HERE = Path(__file__).parent / "data"
TASK = "custom|respondeoqa|0"
MODEL = "org/tiny-model"
# public ids (two prosody languages, a short answer, a translation) and placeholder generations
ROWS = [
    ("prosody_app.I.1.1-en", "Some reasoning.\nAnswer: Dactyl, Spondee"),
    ("prosody_app.I.1.1-la", "Answer: Trochee"),
    ("latin-grammar-junior-scholarship_2.4.3", "**Answer: nothing**"),
    ("latin-grammar-junior-scholarship_4.10.1", "no answer line"),
]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tracker = EvaluationTracker(output_dir=tmp, save_details=True)
        tracker.general_config_logger.model_name = MODEL
        tracker.general_config_logger.model_config = TransformersModelConfig(
            model_name=MODEL,
            generation_parameters=GenerationParameters(temperature=0.6, top_p=0.95),
        )
        for i, (rid, text) in enumerate(ROWS):
            doc = Doc(
                query="<question>",
                choices=[""],
                gold_index=0,
                specific={"id": rid},
                id=str(i),
                task_name=TASK,
            )
            tracker.details_logger.log(
                TASK, doc, ModelResponse(input="<prompt>", text=[text]), {"em": 0.0}
            )
        tracker.save()
        # keep lighteval's layout: details/<model>/<date>/details_<task>_<date>.parquet beside
        # results/<model>/results_<date>.json (the provenance is read from there)
        out = HERE / "lighteval"
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(tmp, out)
        for path in sorted(out.rglob("*.*")):
            print(f"wrote {path.relative_to(HERE)}")


if __name__ == "__main__":
    main()
