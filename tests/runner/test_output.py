"""The resumable JSONL writer: append + fsync, resume, torn last line, mismatched runs."""

from __future__ import annotations

import json

import pytest
from respondeoqa_eval.errors import InputError
from respondeoqa_eval.runner.output import PredictionWriter, make_row
from wheelkit import checkout_version

PARAMS = {"temperature": 0.6, "top_p": 0.95, "seed": 0}


def row(i, model="m", version="v1", **kw):
    return make_row(
        f"id{i}",
        f"q{i}",
        "english",
        f"Answer: {i}",
        model=model,
        prompt_version=version,
        params=kw.get("params", PARAMS),
    )


def writer(path, **kw):
    kw.setdefault("model", "m")
    kw.setdefault("prompt_version", "v1")
    kw.setdefault("params", PARAMS)
    return PredictionWriter(path, warn=kw.pop("warn", None), **kw)


def lines(path):
    return path.read_bytes().decode("utf-8").split("\n")


def test_append_and_resume(tmp_path):
    out = tmp_path / "sub" / "preds.jsonl"
    with writer(out) as w:
        assert w.done == set()
        for i in range(3):
            w.write(row(i))
        # visible on disk before close (flushed per row)
        assert out.read_text(encoding="utf-8").count("\n") == 3
    with writer(out) as w:
        assert w.done == {"id0", "id1", "id2"}
        w.write(row(3))
    got = [json.loads(x) for x in lines(out) if x]
    assert [r["id"] for r in got] == ["id0", "id1", "id2", "id3"]
    assert got[0] == {
        "id": "id0",
        "question_id": "q0",
        "question_language": "english",
        "response": "Answer: 0",
        "model": "m",
        "prompt_version": "v1",
        "params": PARAMS,
        "tool_version": checkout_version(),  # the runner's own version, for the provenance
    }


def test_torn_last_line_is_cut(tmp_path):
    out = tmp_path / "p.jsonl"
    with writer(out) as w:
        w.write(row(0))
        w.write(row(1))
    good = out.read_bytes()
    torn = json.dumps(row(2)).encode()[:25]
    out.write_bytes(good + torn)
    warnings = []
    with writer(out, warn=warnings.append) as w:
        assert w.done == {"id0", "id1"}
        assert w.dropped_bytes == len(torn)
        assert out.read_bytes() == good
        w.write(row(2))
    assert "incomplete" in warnings[0] and "line 3" in warnings[0]
    assert [json.loads(x)["id"] for x in lines(out) if x] == ["id0", "id1", "id2"]


def test_zero_filled_tail_is_cut(tmp_path):
    out = tmp_path / "p.jsonl"
    with writer(out) as w:
        w.write(row(0))
    good = out.read_bytes()
    out.write_bytes(good + b"\x00" * 40)  # what a power loss can leave behind
    with writer(out, warn=lambda m: None) as w:
        assert w.done == {"id0"}
    assert out.read_bytes() == good


def test_complete_last_row_without_newline_is_kept(tmp_path):
    out = tmp_path / "p.jsonl"
    out.write_text(json.dumps(row(0)) + "\n" + json.dumps(row(1)), encoding="utf-8")
    with writer(out) as w:
        assert w.done == {"id0", "id1"}
        w.write(row(2))
    assert [json.loads(x)["id"] for x in lines(out) if x] == ["id0", "id1", "id2"]


@pytest.mark.parametrize("other", [{"model": "other"}, {"version": "v2"}])
def test_refuses_other_model_or_prompt_version(tmp_path, other):
    out = tmp_path / "p.jsonl"
    out.write_text(json.dumps(row(0)) + "\n" + json.dumps(row(1, **other)) + "\n", encoding="utf-8")
    before = out.read_bytes()
    with pytest.raises(InputError, match=r"p\.jsonl: line 2: made with model .*--overwrite"):
        writer(out).open()
    assert out.read_bytes() == before  # nothing touched
    with writer(out, overwrite=True) as w:
        assert w.done == set()
        w.write(row(5))
    assert [json.loads(x)["id"] for x in lines(out) if x] == ["id5"]


def test_bad_middle_line_names_the_line(tmp_path):
    out = tmp_path / "p.jsonl"
    out.write_text(json.dumps(row(0)) + "\n{oops\n" + json.dumps(row(1)) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: not a JSON row"):
        writer(out).open()
    out.write_text(json.dumps({"id": "x", "answer": "A"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 1: no 'response'"):
        writer(out).open()


@pytest.mark.parametrize("hostile", ["[" * 100_000 + "]" * 100_000, '{"id": ' + "9" * 50_000 + "}"])
def test_hostile_line_on_resume_is_a_clear_error(tmp_path, hostile):
    out = tmp_path / "p.jsonl"
    out.write_text(json.dumps(row(0)) + "\n" + hostile + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2: not a JSON row"):
        writer(out).open()


def _resumed(tmp_path, old_params, new_params):
    out = tmp_path / "p.jsonl"
    out.write_text(
        "".join(json.dumps(row(i, params=old_params)) + "\n" for i in range(3)), encoding="utf-8"
    )
    warnings = []
    with writer(out, params=new_params, warn=warnings.append) as w:
        assert w.done == {"id0", "id1", "id2"}
    assert warnings == []  # said by the caller, only when something is left to run
    return w.settings_warning()


def test_a_changed_setting_is_named_with_both_values(tmp_path):
    text = _resumed(tmp_path, {**PARAMS, "temperature": 1.0}, PARAMS)
    assert "earlier rows were made with temperature 1.0; this run uses temperature 0.6" in text
    assert "top_p" not in text and "seed" not in text and "--overwrite" in text


def test_greedy_names_only_the_temperature(tmp_path):
    """--temperature 0 after a sampled run: top_p (recorded as None when greedy) did not change."""
    greedy = {**PARAMS, "temperature": 0.0, "top_p": None, "max_new_tokens": 1024}
    sampled = {**PARAMS, "max_new_tokens": 1024}
    text = _resumed(tmp_path, sampled, greedy)
    assert "made with temperature 0.6; this run uses temperature 0.0," in text
    assert "top_p" not in text
    assert _resumed(tmp_path, greedy, {**greedy, "top_p": 0.95}) is None  # greedy both times
    budget = _resumed(tmp_path, sampled, {**sampled, "max_new_tokens": 64})
    assert "made with max_new_tokens 1024; this run uses max_new_tokens 64" in budget
    assert _resumed(tmp_path, PARAMS, PARAMS) is None


def test_second_writer_is_refused(tmp_path):
    out = tmp_path / "p.jsonl"
    with writer(out) as w:
        w.write(row(0))
        with pytest.raises(InputError, match="another runner"):
            writer(out).open()


def test_output_is_a_folder(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        writer(tmp_path).open()


def test_unicode_line_separators_stay_inside_their_row(tmp_path):
    """U+2028, U+2029 and NEL in a response: one row per line even for str.splitlines readers."""
    out = tmp_path / "p.jsonl"
    text = "a\u2028b\u2029c\x85d macron \u0101\nlast"
    with writer(out) as w:
        w.write(make_row("x", "x", "latin", text, model="m", prompt_version="v1", params=PARAMS))
        w.write(row(1))
    content = out.read_text(encoding="utf-8")
    assert len(content.splitlines()) == 2
    assert json.loads(content.splitlines()[0])["response"] == text
    assert "\u0101" in content  # non-ASCII stays readable
