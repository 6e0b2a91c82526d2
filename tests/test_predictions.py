"""Predictions files: every accepted layout and every bad-input case."""

from __future__ import annotations

import csv
import json

import pytest
from respondeoqa_eval.errors import InputError
from respondeoqa_eval.predictions.load import load_predictions

JS = "junior_scholarship_short_answer.json"
FEET_EN = "prosody_feet_questions_english.json"
FEET_LA = "prosody_feet_questions_latin.json"


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def first(public_gold):
    """One record per public file."""
    out = {}
    for r in public_gold.records:
        out.setdefault(r.file, r)
    return out


def test_jsonl_by_id_key_and_unique_question_id(tmp_path, public_gold, first):
    js, feet_la = first[JS], first[FEET_LA]
    other = public_gold.records[1]
    path = _jsonl(
        tmp_path / "p.jsonl",
        [
            {"id": feet_la.id, "response": "Answer: x"},
            {
                "question_id": js.question_id,
                "question_language": js.question_language,
                "answer": "y",
            },
            {"question_id": other.question_id, "response": "z", "model": "ignored extra column"},
        ],
    )
    preds = load_predictions(path, public_gold)
    assert preds.by_id[feet_la.id].text == "Answer: x" and not preds.by_id[feet_la.id].extracted
    assert preds.by_id[js.id].text == "y" and preds.by_id[js.id].extracted
    assert preds.by_id[other.id].text == "z"
    assert preds.files == {FEET_LA, JS}


def test_csv_same_columns(tmp_path, public_gold, first):
    js, feet_en = first[JS], first[FEET_EN]
    path = tmp_path / "p.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "question_id", "question_language", "response", "answer"])
        w.writerow(["", feet_en.question_id, "english", "line one\nAnswer: trochee", ""])
        w.writerow([js.id, "", "", "", "Thisben"])
    preds = load_predictions(path, public_gold)
    assert preds.by_id[feet_en.id].text == "line one\nAnswer: trochee"
    assert preds.by_id[js.id].text == "Thisben" and preds.by_id[js.id].extracted


@pytest.mark.parametrize(
    ("header", "said"),
    [
        (["id", "prediction", "model"], "it has the columns 'id', 'prediction', 'model'"),
        (["question"], "it has the column 'question'"),
        ([f"c{i}" for i in range(11)], "'c7' and 3 more"),
        (["x" * 200], "it has the column 'xxxx"),
    ],
    ids=["three", "one", "many", "long"],
)
def test_csv_without_an_answer_column_names_the_columns_it_found(
    tmp_path, public_gold, first, header, said
):
    """A CSV header without `response` or `answer`: one line that says what is needed and
    which columns the file has (a long name cut short, many columns counted)."""
    path = tmp_path / "wrong.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerow([first[JS].id] + ["x"] * (len(header) - 1))
    with pytest.raises(InputError) as err:
        load_predictions(path, public_gold)
    message = str(err.value)
    assert "the CSV header needs a 'response' or an 'answer' column" in message
    assert said in message and "\n" not in message
    assert len(message) < len(str(path)) + 250, message


def test_paper_layout_folder_file_name_tells_language(tmp_path, public_gold, first):
    qid = first[FEET_EN].question_id
    folder = tmp_path / "responses"
    folder.mkdir()
    (folder / "prosody_feet_questions_english_with_instr.json").write_text(json.dumps({qid: "en"}))
    (folder / FEET_LA).write_text(json.dumps({qid: "la"}))
    preds = load_predictions(folder, public_gold)
    assert preds.by_id[qid + "-en"].text == "en"
    assert preds.by_id[qid + "-la"].text == "la"


def test_paper_layout_single_object_and_single_file(tmp_path, public_gold, first):
    js = first[JS]
    obj = tmp_path / "all.json"
    obj.write_text(json.dumps({JS: {js.question_id: "Answer: a"}}))
    assert load_predictions(obj, public_gold).by_id[js.id].text == "Answer: a"
    single = tmp_path / JS
    single.write_text(json.dumps({js.question_id: "Answer: b"}))
    assert load_predictions(single, public_gold).by_id[js.id].text == "Answer: b"
    assert load_predictions({JS: {js.question_id: "c"}}, public_gold).by_id[js.id].text == "c"


def _error(tmp_path, public_gold, name, content) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_predictions(path, public_gold)
    return str(err.value)


def test_malformed_json_line_number(tmp_path, public_gold, first):
    good = json.dumps({"id": first[JS].id, "response": "x"})
    msg = _error(tmp_path, public_gold, "p.jsonl", f'{good}\n\n{{"id": "a", response}}\n')
    # column 13 is where "response" lacks its quotes, counted by hand from the line
    assert msg == (
        "p.jsonl: line 3, column 13: malformed JSON "
        "(expecting property name enclosed in double quotes)"
    )
    # the reason reads as words, its place said once as line and column (json's own message
    # is "Unterminated string starting at")
    cut = '{"id": "a", "response": "Answer: B\n'
    msg = _error(tmp_path, public_gold, "q.jsonl", f"{good}\n{cut}")
    assert msg == "q.jsonl: line 2, column 25: malformed JSON (unterminated string)"


def test_unknown_ids_count_and_first_few(tmp_path, public_gold):
    rows = "".join(json.dumps({"id": f"nope-{i}", "response": "x"}) + "\n" for i in range(8))
    msg = _error(tmp_path, public_gold, "p.jsonl", rows)
    assert "8 prediction(s) name items that are not in the gold" in msg
    assert "'nope-0'" in msg and "'nope-4'" in msg and "'nope-5'" not in msg and "3 more" in msg


def test_same_item_twice_names_both_lines(tmp_path, public_gold, first):
    js = first[JS]
    rows = [
        {"id": js.id, "response": "a"},
        {"question_id": js.question_id, "question_language": js.question_language, "response": "b"},
    ]
    msg = _error(tmp_path, public_gold, "p.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    assert "line 2" in msg and "already given at line 1" in msg


@pytest.mark.parametrize("value", [3, ["a"], {"a": 1}, True])
def test_non_string_response(tmp_path, public_gold, first, value):
    msg = _error(
        tmp_path, public_gold, "p.jsonl", json.dumps({"id": first[JS].id, "response": value})
    )
    assert "line 1: 'response' must be a string" in msg


def test_non_string_response_in_paper_layout(tmp_path, public_gold, first):
    msg = _error(tmp_path, public_gold, "x.json", json.dumps({JS: {first[JS].question_id: 7}}))
    assert "must be a string, not int" in msg


def test_empty_file_wrong_extension_and_encoding(tmp_path, public_gold, first):
    assert "the file is empty" in _error(tmp_path, public_gold, "p.jsonl", "\n  \n")
    assert "unsupported extension '.txt'" in _error(tmp_path, public_gold, "p.txt", "x")
    latin1 = (
        json.dumps({"id": first[JS].id, "response": "x"}).encode()
        + b"\n"
        + '{"id": "é"}'.encode("latin-1")
    )
    assert "line 2: not valid UTF-8" in _error(tmp_path, public_gold, "p.jsonl", latin1)


def test_ambiguous_or_incomplete_rows(tmp_path, public_gold, first):
    feet = first[FEET_EN]
    msg = _error(
        tmp_path,
        public_gold,
        "p.jsonl",
        json.dumps({"question_id": feet.question_id, "response": "x"}),
    )
    assert "exists in both languages" in msg
    msg = _error(tmp_path, public_gold, "p.jsonl", json.dumps({"id": first[JS].id}))
    assert "needs a 'response'" in msg
    msg = _error(
        tmp_path,
        public_gold,
        "p.jsonl",
        json.dumps({"id": first[JS].id, "response": "a", "answer": "b"}),
    )
    assert "not both" in msg
    msg = _error(tmp_path, public_gold, "p.jsonl", json.dumps({"response": "a"}))
    assert "needs 'id'" in msg
    msg = _error(tmp_path, public_gold, "p.jsonl", "[1, 2]")
    assert "line 1: expected a JSON object" in msg


def test_paper_layout_for_a_file_not_in_gold(tmp_path, public_gold):
    msg = _error(
        tmp_path, public_gold, "x.json", json.dumps({"certamen_mc.json": {"q": "Answer: A"}})
    )
    assert "certamen_mc.json, which is not in the gold data" in msg and "--data-dir" in msg
    msg = _error(tmp_path, public_gold, "y.json", json.dumps({"whatever.json": {}}))
    assert "not a RespondeoQA file name" in msg


def test_hostile_strings_are_quoted_and_cut(tmp_path, public_gold):
    evil = "\x1b[31m" + "A" * 500
    msg = _error(tmp_path, public_gold, "p.jsonl", json.dumps({"id": evil, "response": "x"}))
    assert "\x1b" not in msg and len(msg) < 400


def test_jsonl_with_raw_unicode_line_separators(tmp_path, public_gold, first):
    js = first[JS]
    text = "Reasoning\u2028more\u2029and\x85more\nAnswer: x"
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": js.id, "response": text}, ensure_ascii=False) + "\r\n")
    assert load_predictions(path, public_gold).by_id[js.id].text == text
