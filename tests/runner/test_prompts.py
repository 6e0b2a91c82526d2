"""Prompt construction against PROTOCOL section 2, on the public files and synthetic private ones."""

from __future__ import annotations

import json
import re

import pytest
from respondeoqa_eval.cli import main
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.runner.prompts import build_messages, user_prompt
from respondeoqa_eval.runner.selection import CONFIGS, select_items
from synthetic import SECRET_MARKER, write_private

# the strings below are copied from PROTOCOL section 2, not from the code
SYSTEM = (
    "You are a Classicist with expert knowledge in Greek and Roman history, language, and culture."
)
MC = "At the end of your response, give the letter of the correct answer as\nAnswer: Letter"
ONE_WORD = "At the end of your response, give your answer as a single word like this:\nAnswer: Word"
LONG = "At the end of your response, give your answer as:\nAnswer: answer text"
FEET_EN = (
    "The possible feet are: amphibrac, anapest, choriamb, dactyl, dichoree, great ionic, iambus, "
    "pyrrhic, second epitrit, small ionic, spondee, tribrac, trochee"
)
FEET_LA = (
    "Pedes possibiles sunt: amphibrac, anapest, choriamb, dactyl, dichoree, great ionic, iambus, "
    "pyrrhic, second epitrit, small ionic, spondee, tribrac, trochee"
)


def raw_rows(folder, name):
    return json.loads((folder / name).read_text(encoding="utf-8"))


def question_of(row):
    return row["question"] if "question" in row else row["question_text"]


@pytest.fixture(scope="module")
def private_dir(tmp_path_factory):
    return write_private(tmp_path_factory.mktemp("private"))


@pytest.mark.parametrize(
    "name, tail",
    [
        ("junior_scholarship_short_answer.json", "\n" + ONE_WORD),
        ("junior_scholarship_translation_long.json", "\n" + LONG),
        ("prosody_caesura_scansion_english.json", "\n" + LONG),
        ("prosody_caesura_scansion_latin.json", "\n" + LONG),
        ("prosody_feet_questions_english.json", "\n" + FEET_EN + "\n" + LONG),
        ("prosody_feet_questions_latin.json", "\n" + FEET_LA + "\n" + LONG),
    ],
)
def test_public_files_every_row(public_dir, name, tail):
    """Every row of every public file: raw upstream question text + the task's instructions."""
    rows = raw_rows(public_dir, name)
    records = [r for r in read_folder(public_dir).records if r.file == name]
    assert len(records) == len(rows)
    for row, rec in zip(rows, records, strict=True):
        assert rec.question_id == row["question_id"]
        messages = build_messages(rec)
        assert messages == [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": question_of(row) + tail},
        ]


def test_feet_list_follows_instruction_language(public_dir):
    gold = read_folder(public_dir)
    en = gold.by_key[("prosody_app.I.1.1", "english")]
    la = gold.by_key[("prosody_app.I.1.1", "latin")]
    assert FEET_EN in user_prompt(en) and FEET_LA not in user_prompt(en)
    assert FEET_LA in user_prompt(la) and FEET_EN not in user_prompt(la)
    # meter questions never get the list
    meter = gold.by_key[("prosody_III.I.9.1", "latin")]
    assert "Pedes" not in user_prompt(meter) and "possible feet" not in user_prompt(meter)


def test_private_multiple_choice_and_reading_comprehension(private_dir):
    rows = raw_rows(private_dir, "certamen_mc.json")
    gold = read_folder(private_dir)
    for row in rows:
        rec = gold.by_key[(row["question_id"], "english")]
        options = row["multiple_choice_options"] or []
        expected = "\n".join([row["question"], *options, MC])
        assert user_prompt(rec) == expected
    assert any(row["multiple_choice_options"] is None for row in rows)  # the null-options quirk

    passages = {
        p["passage_id"]: p["text"]
        for p in raw_rows(private_dir, "nle_reading_comp_passages_2020.json")
    }
    for row in raw_rows(private_dir, "nle_reading_comp_questions_2020.json"):
        rec = gold.by_key[(row["question_id"], row["question_language"])]
        expected = (
            passages[row["passage_id"]]
            + "\n\n"
            + row["question"]
            + "\n"
            + "\n".join(row["multiple_choice_options"])
            + "\n"
            + MC
        )
        assert user_prompt(rec) == expected
    for row in raw_rows(private_dir, "nle_other_questions_2025.json"):
        rec = gold.by_key[(row["question_id"], row["question_language"])]
        assert user_prompt(rec) == "\n".join([row["question"], *row["multiple_choice_options"], MC])


def test_private_short_answer_and_translation_mc_rows(private_dir):
    gold = read_folder(private_dir)
    for row in raw_rows(private_dir, "certamen_short_answer.json"):
        rec = gold.by_key[(row["question_id"], row["question_language"])]
        assert user_prompt(rec) == row["question"] + "\n" + ONE_WORD
    tr_rows = raw_rows(private_dir, "certamen_translation_long.json")
    mc_rows = [row for row in tr_rows if row["question_format"] == "multiple_choice"]
    assert len(mc_rows) == 2 and all(row["multiple_choice_options"] for row in mc_rows)
    for row in tr_rows:
        rec = gold.by_key[(row["question_id"], row["question_language"])]
        # PROTOCOL 2: long-answer prompt, the options of the two MC rows are not shown
        assert user_prompt(rec) == row["question"] + "\n" + LONG


def test_no_gold_answer_reaches_a_prompt(private_dir):
    """The synthetic private gold carries SECRET_MARKER; only the NLE passages may appear."""
    for rec in read_folder(private_dir).records:
        text = user_prompt(rec)
        if rec.passage is not None:
            text = text.replace(rec.passage, "")
        assert SECRET_MARKER not in text, rec.id


def test_configs(public_dir, private_dir):
    assert len(select_items("public", public_dir)) == 675 + 350 + 41 + 41 + 20 + 20
    assert len(select_items("lat-pros", public_dir)) == 122
    assert len(select_items("lat-pros-feet", public_dir)) == 40
    assert len(select_items("lat-pros-meter", public_dir)) == 82
    assert len(select_items("jun-schol-translation", public_dir)) == 350
    assert [r.id for r in select_items("public", public_dir, limit=3)] == [
        r.id for r in read_folder(public_dir).records[:3]
    ]
    nle = select_items("nle", private_dir)
    assert nle and {r.source for r in nle} == {"nle"}
    mc = select_items("certamen-multiple_choice", private_dir)
    assert mc and {(r.source, r.task) for r in mc} == {("certamen", "multiple_choice")}
    assert {"public", "all", "certamen", "nle", "jun-schol", "lat-pros", "lat-pros-feet"} <= set(
        CONFIGS
    )


def test_prompts_command(public_dir, tmp_path, capsys):
    out = tmp_path / "prompts.jsonl"
    assert (
        main(["prompts", "--data-dir", str(public_dir), "--config", "lat-pros", "-o", str(out)])
        == 0
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 122
    keys = {(r["question_id"], r["question_language"]) for r in rows}
    assert len(keys) == 122 and len({r["id"] for r in rows}) == 122
    for row in rows:
        assert set(row) >= {"id", "question_id", "question_language", "messages"}
        assert [m["role"] for m in row["messages"]] == ["system", "user"]
        assert row["messages"][0]["content"] == SYSTEM
        assert row["messages"][1]["content"].endswith(LONG)


def test_prompts_command_errors(public_dir, tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    assert main(["prompts", "--config", "nle", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--data-dir" in err and "Traceback" not in err
    assert (
        main(["prompts", "--data-dir", str(public_dir), "--config", "bogus", "-o", str(out)]) == 2
    )
    assert re.search(r"unknown --config 'bogus'", capsys.readouterr().err)
    assert (
        main(["prompts", "--data-dir", str(public_dir), "--config", "certamen", "-o", str(out)])
        == 2
    )
    err = capsys.readouterr().err  # the folder has only the public files
    assert "lacks certamen_mc.json" in err and "--data-dir" in err
    assert not out.exists()


# PROTOCOL section 1, written out here: the upstream question files of each source and task
_NLE = [
    f"nle_{kind}_questions_{year}.json"
    for kind in ("other", "reading_comp")
    for year in (2015, 2020, 2025)
]
_EXPECTED_FILES = {
    "certamen-multiple_choice": ["certamen_mc.json"],
    "certamen-short_answer": ["certamen_short_answer.json"],
    # its two multiple-choice-format rows stay translation items (PROTOCOL 1)
    "certamen-translation": ["certamen_translation_long.json"],
    "nle-multiple_choice": _NLE,
    "jun-schol-short_answer": ["junior_scholarship_short_answer.json"],
    "jun-schol-translation": ["junior_scholarship_translation_long.json"],
    "lat-pros-feet": ["prosody_feet_questions_english.json", "prosody_feet_questions_latin.json"],
    "lat-pros-meter": [
        "prosody_caesura_scansion_english.json",
        "prosody_caesura_scansion_latin.json",
    ],
}
for _source in ("certamen", "nle", "jun-schol", "lat-pros"):
    _EXPECTED_FILES[_source] = [
        f
        for name, files in list(_EXPECTED_FILES.items())
        if name.startswith(f"{_source}-")
        for f in files
    ]
_EXPECTED_FILES["public"] = _EXPECTED_FILES["jun-schol"] + _EXPECTED_FILES["lat-pros"]
_EXPECTED_FILES["all"] = (
    _EXPECTED_FILES["public"] + _EXPECTED_FILES["certamen"] + _EXPECTED_FILES["nle"]
)


def test_config_names_and_files_follow_the_protocol(tmp_path):
    """Every --config (the dataset's configs too) selects exactly the files PROTOCOL 1 assigns
    to its sources and tasks, on a folder holding every upstream file."""
    from respondeoqa_eval.data import configs

    assert CONFIGS is configs.CONFIGS  # the runner reads the one config table
    assert set(CONFIGS) == set(_EXPECTED_FILES)
    folder = write_private(tmp_path / "every-file", with_public=True)
    gold = read_folder(folder)
    for name, expected in _EXPECTED_FILES.items():
        selected = select_items(name, folder, gold=gold)
        assert sorted({r.file for r in selected}) == sorted(expected), name
        want = sum(1 for r in gold.records if r.file in expected)
        assert len(selected) == want, name
