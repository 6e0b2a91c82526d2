"""The suite's data: the six public upstream files (`PUBLIC_DIR`), and synthetic stand-ins for
the private ones (Certamen, NLE), same shape as upstream.

The public files are found as the package's loader finds them: `$RESPONDEOQA_DATA_DIR`, else
the sibling `../shared/upstream/final_dataset` of the checkout when present, else the pinned
download. Either way they are verified against their pinned sha256 and copied into the
download cache (`fetch_public`), so `PUBLIC_DIR` holds exactly the six pinned files whatever
else the user's folder holds.

The private files are copyrighted and never available to tests. Every gold answer and passage
written here contains SECRET_MARKER, so a test can search any output for leaked private gold.
"""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

from respondeoqa_eval.data.datadir import ENV_DATA_DIR, check_data_dir
from respondeoqa_eval.data.fetch import fetch_public
from respondeoqa_eval.data.sources import PUBLIC_FILES
from respondeoqa_eval.errors import InputError

SECRET_MARKER = "ZQXSECRET"
SIBLING = Path(__file__).resolve().parents[2] / "shared" / "upstream" / "final_dataset"
"""Where a development machine keeps the public files, beside the checkout."""


@functools.cache
def public_dir() -> Path:
    """The folder of the six verified public files (see the module docstring); an InputError
    (a `NoData` when offline with nothing else) says what is missing."""
    source = check_data_dir(None)  # $RESPONDEOQA_DATA_DIR
    where = f"{ENV_DATA_DIR}={source}"
    if source is None and SIBLING.is_dir():
        source, where = SIBLING, str(SIBLING)
    if source is None:
        return fetch_public()
    lacking = [name for name in PUBLIC_FILES if not (source / name).is_file()]
    if lacking:
        raise InputError(f"{where} lacks the public files {', '.join(lacking)}")
    return fetch_public(base_url=source.resolve().as_uri() + "/")


def __getattr__(name: str) -> Path:
    # `PUBLIC_DIR` is computed on first use (tests/conftest.py does it first, at start-up)
    if name == "PUBLIC_DIR":
        return public_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_CONTENTS = [
    "geography",
    "history",
    "literature",
    "mythology",
    "vocabulary",
    "grammar",
    "literary_devices",
    "translation",
]


def _base(
    source_name: str,
    year: int,
    qid: str,
    fmt: str,
    content: str,
    qlang: str,
    alang: str,
    difficulty: str = "unknown",
) -> dict:
    return {
        "source_name": source_name,
        "source_year": year,
        "question_id": qid,
        "question_format": fmt,
        "question_content": content,
        "difficulty": difficulty,
        "question_language": qlang,
        "answer_language": alang,
    }


def private_records(
    n_mc: int = 12, n_sa: int = 20, n_tr: int = 8, n_nle: int = 6, max_refs: int = 3
) -> dict[str, list]:
    """Upstream-format contents of the private files, keyed by file name."""
    files: dict[str, list] = {}
    mc, sa, tr = [], [], []
    for i in range(n_mc):
        row = _base(
            "NJCL-Certamen",
            1996 + i % 10,
            f"NJCL-Certamen_mc_{i}",
            "multiple_choice",
            _CONTENTS[i % 7],
            "english",
            ["english", "latin"][i % 2],
            ["unknown", "beginner", "intermediate", "advanced"][i % 4],
        )
        letter = "ABCD"[i % 4]
        row.update(
            question=f"Certamen multiple choice question {i}?",
            multiple_choice_options=[f"{c}: option {c}{i}" for c in "ABCD"],
            answers=[f"{letter}: {SECRET_MARKER} answer {i}"],
        )
        if i % 5 == 0:
            row["multiple_choice_options"] = None  # upstream quirk: null options
        mc.append(row)
    for i in range(n_sa):
        row = _base(
            "NJCL-Certamen",
            2000 + i % 9,
            f"NJCL-Certamen_sa_{i}",
            "short_answer",
            _CONTENTS[i % 7],
            ["english", "latin"][i % 3 == 0],
            ["english", "latin"][i % 2],
        )
        row.update(
            question=f"Certamen short answer question {i}?",
            answers=[f"{SECRET_MARKER}sa{i}"],
            multihop=i % 4 == 0,
        )
        if i % 6 == 0:
            del row["question_format"]
            row["question_format"] = "short_answer"
            row.pop("multiple_choice_options", None)  # upstream quirk: options absent
        else:
            row["multiple_choice_options"] = []
        sa.append(row)
    for i in range(n_tr):
        fmt = "multiple_choice" if i < 2 else "short_answer"  # two MC rows in the translation file
        row = _base(
            "NJCL-Certamen",
            2001,
            f"NJCL-Certamen_tr_{i}",
            fmt,
            "translation",
            ["english", "latin"][i % 2],
            ["latin", "english"][i % 2],
        )
        row.update(
            question=f"Translate sentence {i}.",
            multiple_choice_options=[f"A: {SECRET_MARKER} opt"] if fmt == "multiple_choice" else [],
            answers=[f"{SECRET_MARKER} reference {i} {k}" for k in range(1 + i % max_refs)],
            constrained=i % 2 == 0,
        )
        tr.append(row)
    files["certamen_mc.json"] = mc
    files["certamen_short_answer.json"] = sa
    files["certamen_translation_long.json"] = tr
    for year in (2015, 2020, 2025):
        other, rc, passages = [], [], []
        for i in range(n_nle):
            row = _base(
                "NLE",
                year,
                f"NLE_{year}_other_{i}",
                "multiple_choice",
                _CONTENTS[i % 6],
                "latin",
                "english",
                ["beginner", "intermediate", "advanced"][i % 3],
            )
            row.update(
                question=f"NLE question {year} {i}?",
                multiple_choice_options=[f"{c}: nle option {c}" for c in "ABCD"],
                answers=[f"{'ABCD'[i % 4]}: {SECRET_MARKER} nle {i}"],
                passage_id=None,
                correctness_logic=None,
                n_required=None,
            )
            other.append(row)
        for p in range(2):
            passages.append(
                {"passage_id": f"{year}-P{p}", "text": f"{SECRET_MARKER} passage {year} {p}"}
            )
        for i in range(n_nle // 2):
            row = _base(
                "NLE",
                year,
                f"NLE_{year}_rc_{i}",
                "multiple_choice",
                "reading_comprehension",
                "latin",
                "english",
                "intermediate",
            )
            row.update(
                question=f"According to the passage, question {i}?",
                multiple_choice_options=[f"{c}: rc option {c}" for c in "ABCD"],
                answers=[f"{'ABCD'[(i + 1) % 4]}: {SECRET_MARKER} rc {i}"],
                passage_id=f"{year}-P{i % 2}",
                correctness_logic="single",
                n_required=1,
            )
            rc.append(row)
        files[f"nle_other_questions_{year}.json"] = other
        files[f"nle_reading_comp_questions_{year}.json"] = rc
        files[f"nle_reading_comp_passages_{year}.json"] = passages
    return files


def write_private(folder: Path, with_public: bool = False, **sizes: int) -> Path:
    """Write the synthetic private files (and optionally a copy of the public ones) to `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in private_records(**sizes).items():
        (folder / name).write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    if with_public:
        for path in public_dir().glob("*.json"):
            shutil.copy(path, folder / path.name)
    return folder
