"""Reading upstream folders into unified records (PROTOCOL section 1)."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.data.records import FIELDS, Record, record_of
from respondeoqa_eval.data.sources import FILES, PUBLIC_FILES
from respondeoqa_eval.errors import InputError
from synthetic import SECRET_MARKER, private_records, write_private


def test_public_row_counts_match_protocol_table(public_dir, public_gold):
    counts = Counter(r.file for r in public_gold.records)
    for name in PUBLIC_FILES:
        assert counts[name] == len(json.loads((public_dir / name).read_text())) == FILES[name].rows
    assert len(public_gold) == 675 + 350 + 41 + 41 + 20 + 20
    assert public_gold.unknown_files == []


def test_prosody_pairs_get_language_suffixed_ids(public_gold):
    suffixed = [r for r in public_gold.records if r.id != r.question_id]
    assert len(suffixed) == 2 * 61
    assert len({r.question_id for r in suffixed}) == 61
    for r in suffixed:
        assert r.source == "lat-pros"
        assert r.id == r.question_id + {"english": "-en", "latin": "-la"}[r.question_language]
    assert len(public_gold.by_id) == len(public_gold.by_key) == len(public_gold)
    # question_id alone is a usable name only where it is unique
    assert all(r.source != "lat-pros" for r in public_gold.by_question_id.values())


def test_records_read_are_records_as_their_constructor_makes_them(tmp_path):
    # the reader fills each record's fields at once (`records.record_of`), not through
    # `Record(...)`: every field there, none other, each equal to the constructor's record
    records = read_folder(write_private(tmp_path, with_public=True, n_mc=3, n_sa=3, n_tr=3)).records
    for record in records:
        assert list(vars(record)) == list(FIELDS)
        assert Record(**vars(record)) == record
        assert repr(Record(**vars(record))) == repr(record)
    with pytest.raises(TypeError, match="fields are"):
        record_of({**vars(records[0]), "extra": 1})
    with pytest.raises(TypeError, match="fields are"):
        record_of({k: v for k, v in vars(records[0]).items() if k != "file"})


def test_question_text_field_variants_are_unified(public_dir, public_gold):
    raw = json.loads((public_dir / "prosody_feet_questions_english.json").read_text())
    assert "question" in raw[0] and "question_text" not in raw[0]
    raw2 = json.loads((public_dir / "junior_scholarship_short_answer.json").read_text())
    assert "question_text" in raw2[0] and "question" not in raw2[0]
    by_key = public_gold.by_key
    assert by_key[(raw[0]["question_id"], "english")].question == raw[0]["question"]
    assert (
        by_key[(raw2[0]["question_id"], raw2[0]["question_language"])].question
        == raw2[0]["question_text"]
    )


def test_tasks_and_optional_flags(public_gold):
    tasks = Counter((r.file, r.task) for r in public_gold.records)
    assert tasks[("junior_scholarship_translation_long.json", "translation")] == 350
    assert tasks[("prosody_caesura_scansion_latin.json", "meter")] == 41
    assert tasks[("prosody_feet_questions_english.json", "feet")] == 20
    for r in public_gold.records:
        assert (r.multihop is not None) == (r.task == "short_answer")
        assert (r.constrained is not None) == (r.task == "translation")
        assert r.category == (
            "knowledge"
            if r.question_content
            in ("mythology", "history", "literature", "geography", "vocabulary")
            else "skill"
        )


def test_private_quirks_options_passages_and_translation_mc_rows(tmp_path):
    gold = read_folder(write_private(tmp_path))
    raw = private_records()
    mc_raw = {row["question_id"]: row for row in raw["certamen_mc.json"]}
    for r in gold.records:
        assert isinstance(r.multiple_choice_options, list)
        if (
            r.file == "certamen_mc.json"
            and mc_raw[r.question_id]["multiple_choice_options"] is None
        ):
            assert r.multiple_choice_options == []
    tr = [r for r in gold.records if r.file == "certamen_translation_long.json"]
    assert {r.question_format for r in tr} == {"multiple_choice", "short_answer"}
    assert all(r.task == "translation" for r in tr)
    passages = {
        p["passage_id"]: p["text"]
        for y in (2015, 2020, 2025)
        for p in raw[f"nle_reading_comp_passages_{y}.json"]
    }
    rc_raw = {
        row["question_id"]: row
        for y in (2015, 2020, 2025)
        for row in raw[f"nle_reading_comp_questions_{y}.json"]
    }
    for r in gold.records:
        if r.question_id in rc_raw:
            assert r.passage == passages[rc_raw[r.question_id]["passage_id"]]
        else:
            assert r.passage is None
    assert all(r.is_private for r in gold.records)


def test_unknown_json_files_are_reported_not_used(public_dir, tmp_path):
    shutil.copytree(public_dir, tmp_path / "d")
    (tmp_path / "d" / "my_extra_questions.json").write_text("[]")
    gold = read_folder(tmp_path / "d")
    assert gold.unknown_files == ["my_extra_questions.json"]
    assert "my_extra_questions.json" not in {r.file for r in gold.records}


def test_missing_passages_file_is_named(tmp_path):
    write_private(tmp_path)
    (tmp_path / "nle_reading_comp_passages_2020.json").unlink()
    with pytest.raises(InputError, match="nle_reading_comp_passages_2020.json"):
        read_folder(tmp_path)


def test_empty_or_unrelated_folder(tmp_path):
    with pytest.raises(InputError, match="no RespondeoQA files"):
        read_folder(tmp_path)
    with pytest.raises(InputError, match="not a folder"):
        read_folder(tmp_path / "nope")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda rows: rows[3].pop("question_id"), r"record 3: missing or non-string question_id"),
        (
            lambda rows: rows[2].update(answers=[]),
            r"record 2 \(question_id NJCL-Certamen_sa_2\): no gold answer",
        ),
        (lambda rows: rows[1].update(question_language="greek"), r"record 1 .*question_language"),
        (lambda rows: rows[4].update(multihop="yes"), r"record 4 .*multihop"),
        (lambda rows: rows[0].update(source_name="NLE"), r"record 0 .*source_name"),
    ],
)
def test_bad_records_are_named_without_quoting_gold(tmp_path, mutate, message):
    write_private(tmp_path)
    path = tmp_path / "certamen_short_answer.json"
    rows = json.loads(path.read_text())
    mutate(rows)
    path.write_text(json.dumps(rows))
    with pytest.raises(InputError, match=message) as err:
        read_folder(tmp_path)
    assert SECRET_MARKER not in str(err.value)


def test_malformed_json_names_line(tmp_path):
    (tmp_path / "certamen_mc.json").write_text('[\n{"a": 1},\n{oops}\n]')
    with pytest.raises(InputError, match=r"certamen_mc.json: line 3, column \d+: malformed JSON"):
        read_folder(tmp_path)
