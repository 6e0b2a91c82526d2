"""The records' schema as `datasets.Features` (explicit, one column per `records.Record` field):
the dataset builder's and the harness tasks' (a config's rows made from upstream files)."""

from __future__ import annotations

import datasets

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "question_id": datasets.Value("string"),
        "question_language": datasets.Value("string"),
        "answer_language": datasets.Value("string"),
        "source": datasets.Value("string"),
        "source_name": datasets.Value("string"),
        "source_year": datasets.Value("int32"),
        "task": datasets.Value("string"),
        "question_format": datasets.Value("string"),
        "question_content": datasets.Value("string"),
        "category": datasets.Value("string"),
        "difficulty": datasets.Value("string"),
        "question": datasets.Value("string"),
        "multiple_choice_options": datasets.Sequence(datasets.Value("string")),
        "answers": datasets.Sequence(datasets.Value("string")),
        # null unless an NLE reading-comprehension question
        "passage": datasets.Value("string"),
        # nullable: multihop exists only in short-answer files, constrained only in translation
        # files (PROTOCOL section 1); null means "not applicable", never False
        "multihop": datasets.Value("bool"),
        "constrained": datasets.Value("bool"),
        "file": datasets.Value("string"),
    }
)
"""The unified schema: one column per `records.Record` field."""
