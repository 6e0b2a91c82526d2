"""The `datasets` builder: configs, schema, row counts, private-data errors, cache keys."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
from pathlib import Path

import datasets
import pytest
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.dataset.builder import RespondeoQA
from respondeoqa_eval.dataset.features import CONFIGS, FEATURES
from respondeoqa_eval.dataset.inputs import input_fingerprint
from respondeoqa_eval.errors import InputError

from ._expect import (
    ALL_CONFIG_NAMES,
    FILES_OF,
    PRIVATE_CONFIG_NAMES,
    PUBLIC_CONFIG_NAMES,
    PUBLIC_FILES_DIR,
    SECRET_MARKER,
    raw_rows,
    synthetic_count,
)

REPO = Path(__file__).resolve().parents[2]


def build(config: str, cache: Path, data_dir=None) -> datasets.Dataset:
    builder = RespondeoQA(config_name=config, data_dir=data_dir, cache_dir=str(cache))
    builder.download_and_prepare()
    return builder.as_dataset(split="test")


def test_config_names_are_those_of_the_issue():
    assert set(CONFIGS) == ALL_CONFIG_NAMES
    assert {n for n, c in CONFIGS.items() if c.private} == PRIVATE_CONFIG_NAMES
    assert [c.name for c in RespondeoQA.BUILDER_CONFIGS] == list(CONFIGS)
    assert RespondeoQA.DEFAULT_CONFIG_NAME == "public"


@pytest.mark.parametrize("config", sorted(ALL_CONFIG_NAMES))
def test_config_reads_the_files_of_its_source_and_task(config):
    assert sorted(CONFIGS[config].files) == sorted(FILES_OF[config])


def test_features_cover_every_record_field_with_explicit_types():
    assert list(FEATURES) == [f.name for f in dataclasses.fields(Record)]
    assert FEATURES["source_year"] == datasets.Value("int32")
    for name in ("answers", "multiple_choice_options"):
        assert FEATURES[name] == datasets.Sequence(datasets.Value("string"))
    for name in ("multihop", "constrained"):
        assert FEATURES[name] == datasets.Value("bool")
    assert FEATURES["passage"] == datasets.Value("string")


@pytest.mark.parametrize("config", sorted(PUBLIC_CONFIG_NAMES))
def test_public_config_rows_equal_the_upstream_files(config, tmp_path):
    ds = build(config, tmp_path, PUBLIC_FILES_DIR)
    raw = raw_rows(PUBLIC_FILES_DIR, config)
    assert len(ds) == len(raw)
    assert list(ds.features) == list(FEATURES)
    assert ds.features["answers"] == datasets.Sequence(datasets.Value("string"))
    # same questions with the same gold answers (order across files is not specified)
    built = sorted(
        (r["question_id"], r["question_language"], r["question"], r["answers"]) for r in ds
    )
    upstream = sorted(
        (
            r["question_id"],
            r["question_language"],
            r.get("question", r.get("question_text")),
            r["answers"],
        )
        for r in raw
    )
    assert built == upstream


def test_nullable_booleans_stay_null_where_they_do_not_apply(tmp_path):
    ds = build("jun-schol", tmp_path, PUBLIC_FILES_DIR)
    raw = raw_rows(PUBLIC_FILES_DIR, "jun-schol")
    key = lambda r: (r["question_id"], r["question_language"])  # noqa: E731
    assert sorted((key(r), r["multihop"], r["constrained"]) for r in ds) == sorted(
        (key(r), r.get("multihop"), r.get("constrained")) for r in raw
    )
    # both kinds of row are present, so the comparison above covers None and bools
    assert None in ds["multihop"] and True in ds["multihop"] and False in ds["multihop"]
    assert None in ds["constrained"] and True in ds["constrained"]
    assert set(ds["passage"]) == {None}


def test_prosody_items_keep_both_languages_under_unique_ids(tmp_path):
    ds = build("lat-pros-feet", tmp_path, PUBLIC_FILES_DIR)
    assert len(set(ds["id"])) == len(ds) == 40
    assert len(set(ds["question_id"])) == 20
    assert sorted(set(ds["question_language"])) == ["english", "latin"]


@pytest.mark.parametrize("config", ["certamen", "nle", "all", "certamen-short_answer"])
def test_private_configs_without_a_folder_say_where_files_come_from(config, tmp_path):
    with pytest.raises(InputError) as err:
        build(config, tmp_path)
    msg = str(err.value)
    # the Python API's form: the variable every entry point reads, then its own argument
    assert "Set RESPONDEOQA_DATA_DIR=DIR, DIR being a folder with them" in msg
    assert msg.endswith("or pass data_dir=DIR.")
    assert err.value.said_as("--data-dir DIR").endswith("or pass --data-dir DIR.")  # the CLI's
    assert "github.com/slanglab/RespondeoQA" in msg
    if config in ("certamen", "all", "certamen-short_answer"):
        assert "Junior Classical League" in msg
    if config in ("nle", "all"):
        assert "National Latin Exam" in msg


def test_private_config_with_a_folder_lacking_its_files_names_them(tmp_path):
    with pytest.raises(InputError, match="nle_other_questions_2015.json"):
        build("nle-multiple_choice", tmp_path / "cache", PUBLIC_FILES_DIR)


@pytest.mark.parametrize("config", ["certamen", "nle-multiple_choice", "all", "public"])
def test_private_configs_read_the_users_folder(config, tmp_path, private_dir):
    ds = build(config, tmp_path, private_dir)
    assert len(ds) == synthetic_count(config)
    sources = set(ds["source"])
    assert sources <= set(CONFIGS[config].sources)
    if config == "nle-multiple_choice":
        # reading-comprehension questions carry their passage from the companion file
        passages = [p for p in ds["passage"] if p is not None]
        assert len(passages) == 9 and all(SECRET_MARKER in p for p in passages)


def test_public_config_with_a_private_folder_has_no_private_rows(tmp_path, private_dir):
    ds = build("public", tmp_path, private_dir)
    assert set(ds["source"]) == {"jun-schol", "lat-pros"}
    assert not any(SECRET_MARKER in json.dumps(row) for row in ds)


def test_changed_input_file_is_never_served_from_cache(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(PUBLIC_FILES_DIR, data)
    cache = tmp_path / "cache"
    first = build("jun-schol-short_answer", cache, data)
    path = data / "junior_scholarship_short_answer.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    rows[0]["answers"] = ["changedanswer"]
    del rows[-1]
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    second = build("jun-schol-short_answer", cache, data)
    assert second["answers"][0] == ["changedanswer"] != first["answers"][0]
    assert len(second) == len(first) - 1


def test_unchanged_input_reuses_the_cache(tmp_path):
    one = RespondeoQA(config_name="lat-pros", data_dir=PUBLIC_FILES_DIR, cache_dir=str(tmp_path))
    one.download_and_prepare()
    two = RespondeoQA(config_name="lat-pros", data_dir=PUBLIC_FILES_DIR, cache_dir=str(tmp_path))
    assert two.cache_dir == one.cache_dir
    assert (Path(two.cache_dir) / "dataset_info.json").is_file()


def test_cache_key_has_config_name_input_hash_and_code_version(tmp_path):
    builder = RespondeoQA(
        config_name="lat-pros", data_dir=PUBLIC_FILES_DIR, cache_dir=str(tmp_path)
    )
    other = RespondeoQA(config_name="jun-schol", data_dir=PUBLIC_FILES_DIR, cache_dir=str(tmp_path))
    assert "lat-pros" in builder.cache_dir and builder.cache_dir != other.cache_dir
    assert input_fingerprint(PUBLIC_FILES_DIR) in builder.cache_dir
    # a different builder code version gives a different key
    assert input_fingerprint(PUBLIC_FILES_DIR, code="v1") != input_fingerprint(
        PUBLIC_FILES_DIR, code="v2"
    )


def test_missing_folder_and_bad_json_are_clear_errors(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        build("public", tmp_path / "cache", tmp_path / "nowhere")
    data = tmp_path / "data"
    shutil.copytree(PUBLIC_FILES_DIR, data)
    (data / "prosody_feet_questions_latin.json").write_text("[{", encoding="utf-8")
    with pytest.raises(InputError, match=r"prosody_feet_questions_latin\.json.*line 1"):
        build("lat-pros-feet", tmp_path / "cache", data)


def test_loading_script_is_a_thin_wrapper_around_the_builder(tmp_path):
    path = REPO / "loading_script" / "respondeoqa.py"
    spec = importlib.util.spec_from_file_location("respondeoqa_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.RespondeoQA is RespondeoQA
    assert len(path.read_text(encoding="utf-8").splitlines()) < 40
    builder = module.RespondeoQA(
        config_name="lat-pros-meter", data_dir=PUBLIC_FILES_DIR, cache_dir=str(tmp_path)
    )
    builder.download_and_prepare()
    assert len(builder.as_dataset(split="test")) == 82
