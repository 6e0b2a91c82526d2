"""The `score` summary reads like a paper's table: units and headers, the leaderboard's number
style, display names, small groups flagged, a signature per target language, a banner for a
part of the benchmark and a loud one for a mostly empty submission (`--strict` fails it), no
empty tables; `--predicted-only` scores only what a `--limit` trial ran.

Expected values are counted by hand from the public files (PROTOCOL section 1: 675 short
answer, 2 x 41 meter and 2 x 20 feet items = 797 accuracy items, 350 translations, 1147 in
all) and from the raw JSON, never from the code under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from respondeoqa_eval import evaluate
from respondeoqa_eval.cli import main
from respondeoqa_eval.data.sources import FILES
from respondeoqa_eval.report.model import GoldInfo, Report
from respondeoqa_eval.report.summary import subset_text

FEET = ("prosody_feet_questions_english.json", "prosody_feet_questions_latin.json")
HEADLINE = "(LLaMa 3.3 70B 71.9, Qwen QwQ 32B 68.1, o3-mini 68.6) is over all four sources"


def _rows(public_dir: Path, name: str) -> list[dict]:
    return json.loads((public_dir / name).read_text(encoding="utf-8"))


def _feet_right(public_gold) -> list[dict]:
    """The gold answer of every feet item (40 of them), nothing else."""
    return [{"id": r.id, "answer": r.answers[0]} for r in public_gold.records if r.file in FEET]


def _line(text: str, pattern: str) -> str:
    found = [line for line in text.splitlines() if re.fullmatch(pattern, line)]
    assert len(found) == 1, f"no line {pattern!r} in:\n{text}"
    return found[0]


def test_a_mostly_missing_submission(public_gold, public_dir):
    text = evaluate(_feet_right(public_gold), public_gold, bootstrap=0).summary()
    assert "Predictions: <predictions> (40 of 1147 items; 1107 missing, 0 unanswered)" in text
    # the loud warning comes before any number: 1107 / 1147 = 96.51%
    warning = text.index("WARNING: 1107 of 1147 items (96.5%) have no answer")
    assert warning < text.index("Accuracy (%)")
    assert "--predicted-only" in text[warning:] and "--strict" in text[warning:]
    # the headline, its unit and count; one decimal: 40 / 797 = 5.02%
    assert "Accuracy (%): mean per-item score over the 797 non-translation items" in text
    _line(text, r"  All non-translation items +5\.0 +797")
    _line(text, r"    Feet identification +100\.0 +40")
    _line(text, r"    Short answer +0\.0 +675")
    _line(text, r"    Meter manipulation +0\.0 +82")
    # display names, never raw keys
    _line(text, r"    Literary devices +0\.0 +12 +\*")
    _line(text, r"    English → Latin +\S+ +\d+")
    assert "literary_devices" not in text and "english-latin" not in text
    assert "jun-schol" not in text and "Junior Scholarship" in text
    # small groups flagged, with the threshold said once
    _line(text, r"    History +0\.0 +1 +\*")
    _line(text, r"    Vocabulary +0\.0 +453")  # 453 items: not flagged
    assert text.count("fewer than 30 items") == 1
    # no interval column when there are no resamples
    assert "95% CI" not in text


def test_translation_table_per_target_language(public_gold, public_dir):
    text = evaluate(_feet_right(public_gold), public_gold, bootstrap=0).summary()
    tr = _rows(public_dir, "junior_scholarship_translation_long.json")
    n = {
        (lang, c): sum(1 for r in tr if r["answer_language"] == lang and r["constrained"] is c)
        for lang in ("english", "latin")
        for c in (True, False)
    }
    assert "Translation (BLEU and chrF, points)" in text
    header = _line(text, r"  Target +Split +BLEU \(paper, padded\) +BLEU \(no padding\) +chrF +n")
    assert header
    # no translation was predicted: every BLEU and chrF is 0
    english_all = n["english", True] + n["english", False]
    _line(text, rf"  English +all +0\.0 +0\.0 +0\.0 +{english_all}")
    small = r"  \*" if n["english", True] < 30 else ""
    _line(text, rf"  English +constrained +0\.0 +0\.0 +0\.0 +{n['english', True]}{small}")
    _line(text, rf"  Latin +unconstrained +0\.0 +0\.0 +0\.0 +{n['latin', False]}")
    # one BLEU and one chrF signature per target language; Latin's says its preprocessing
    english = _line(text, r"    BLEU → English +nrefs:\S+")
    latin = _line(text, r"    BLEU → Latin +nrefs:\S+")
    assert "latin:j>i+v>u+unidecode" in latin and "latin:" not in english
    assert "pad:empty-to-max" in english and "pad:empty-to-max" in latin
    _line(text, r"    chrF → English +nrefs:\S+")
    _line(text, r"    chrF → Latin +nrefs:\S+latin:j>i\+v>u\+unidecode\S*")


def test_public_gold_gets_the_subset_banner(public_gold):
    text = evaluate(_feet_right(public_gold), public_gold, bootstrap=0).summary()
    flat = " ".join(text.split())
    assert (
        "A PART OF THE BENCHMARK: scored Junior Scholarship, Latin Prosody, 1147 items from 6 of "
        "the 15 upstream files; not scored: Certamen, NLE." in flat
    )
    assert HEADLINE in flat


def test_covered_only_says_what_it_covers_and_prints_no_empty_table(public_gold):
    report = evaluate(_feet_right(public_gold), public_gold, restrict_to_covered=True)
    text = report.summary()
    flat = " ".join(text.split())
    assert (
        "scored Latin Prosody (feet identification only), 40 items from 2 of the 15 upstream "
        "files; not scored: Certamen, NLE, Junior Scholarship." in flat
    )
    assert HEADLINE in flat
    assert "WARNING" not in text  # every covered item has its prediction
    # every item right: the bootstrap draws 100.0 every time, an interval it cannot give
    _line(text, r"  All non-translation items +100\.0 +— +40")
    assert "Translation" not in text and "sacreBLEU" not in text and "BLEU" not in text
    assert "Multihop" not in text  # no short-answer items: no such section


def test_every_row_name_is_distinct_and_says_something(public_gold):
    text = evaluate(_feet_right(public_gold), public_gold, bootstrap=50).summary()
    lines = text.splitlines()
    # Task "Short answer" (675 exact-match items) and the upstream format of all 797 items are
    # two groups: they never share a name
    _line(text, r"    Short answer +0\.0 +\u2014 +675")
    fmt = lines.index("  Format")
    assert re.fullmatch(r"    Open answer +5\.0 +\S+ to +\S+ +797", lines[fmt + 1])
    assert lines[fmt + 2] == ""  # the public files have no options-given items
    # the public files give no difficulty: one sentence, not a row "Unknown" of all 797 items
    _line(text, r"  Difficulty: not given for any of these items")
    assert not any(line.strip().startswith("Unknown") for line in lines)
    # one History item (wrong): no "0.0 to 0.0" interval; the legend says why
    _line(text, r"    History +0\.0 +— +1 +\*")
    assert " 0.0 to  0.0 " not in text and " 0.0 to 0.0 " not in text
    assert "— where every item of a group scores alike" in " ".join(text.split())
    # the Format section sums points (feet give partial credit): its header says so
    top = _line(text, r" +No +Format +Lenient")
    header = _line(text, r"  +Items +prediction +Answered +failures +Points +Acc\. % +% +Gap")
    # each two-line header's words stand over its column (bottom-aligned: the right ends meet)
    for word, under in (("No", "prediction"), ("Format", "failures"), ("Lenient", "%")):
        assert top.index(word) + len(word) == header.rindex(under) + len(under), (word, under)
    assert "Right" not in header + top


SUMMARY_WIDTH = 100
"""The widest line a `score` summary may print (a terminal, an issue, an e-mail)."""


def test_every_summary_line_fits_100_characters(public_gold):
    """Every table and paragraph of the summary fits 100 characters (the Format table was
    108: its headers in one line each), whatever the predictions; a sacreBLEU signature
    (one token, to copy whole: its label is the line's only other text) is the exception."""
    partial = evaluate(_feet_right(public_gold), public_gold, bootstrap=50).summary()
    wrong = [{"id": r.id, "response": "no answer line"} for r in public_gold.records]
    failing = evaluate(wrong, public_gold, bootstrap=50).summary()
    for text in (partial, failing):
        assert "Format (beyond the paper)" in text
        lines = text.splitlines()
        signatures = lines.index("  sacreBLEU signatures:")
        for line in lines[:signatures]:
            assert len(line) <= SUMMARY_WIDTH, (len(line), line)
        for line in lines[signatures + 1 :]:
            if re.fullmatch(r"    (BLEU|chrF) → \S+(?: \(.*\))? +\S+", line):
                continue  # a signature
            assert len(line) <= SUMMARY_WIDTH, (len(line), line)


def test_the_whole_benchmark_gets_no_banner():
    every = tuple(FILES)
    whole = Report.from_dict(
        {
            "accuracy": {"overall": {"score": 0.5, "n": 10}},
            "gold": GoldInfo(files=every).to_dict(),
            "n_items": sum(spec.rows for spec in FILES.values()),
        }
    )
    assert subset_text(whole) is None
    one_short = Report.from_dict({**whole.to_dict(), "n_items": whole.n_items - 1})
    assert "only 7829 of the 7830 items of these files" in subset_text(one_short)


def test_unanswered_predictions_count_towards_the_warning(public_gold):
    rows = [{"id": r.id, "response": "I do not know."} for r in public_gold.records]
    text = evaluate(rows, public_gold, bootstrap=0).summary()
    flat = " ".join(text.split())
    assert "(1147 of 1147 items; 0 missing, 1147 unanswered)" in flat
    assert (
        "WARNING: 1147 of 1147 items (100.0%) have no answer: 0 no prediction, 1147 no answer "
        "that could be extracted." in flat
    )


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_strict_fails_a_mostly_missing_submission(tmp_path, public_dir, public_gold, capsys):
    preds = _write(tmp_path / "p.jsonl", _feet_right(public_gold))
    args = ["score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "0"]
    out = tmp_path / "r.json"
    assert main([*args, "--report", str(out)]) == 0
    capsys.readouterr()
    assert main([*args, "--strict", "--report", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.strip() == (
        "respondeoqa-eval: error: --strict: 1107 of 1147 items have no prediction or no answer "
        "that could be extracted (more than 50%)"
    )
    assert "Accuracy (%)" in captured.out and json.loads(out.read_text())["missing"] == 1107
    assert main([*args, "--strict", "--covered-only", "-q"]) == 0  # 40 of 40 covered items


def test_predicted_only_scores_what_a_limit_trial_ran(tmp_path, public_dir, public_gold, capsys):
    short = [r for r in public_gold.records if r.task == "short_answer"][:40]
    rows = [
        {"id": r.id, "answer": r.answers[0] if i % 4 == 0 else "nescio"}
        for i, r in enumerate(short)
    ]  # like `run --limit 40`: the first 40 items of the first file, 10 of them right
    preds = _write(tmp_path / "p.jsonl", rows)
    args = ["score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "0"]
    assert main([*args, "--predicted-only", "--strict", "--report", str(tmp_path / "r.json")]) == 0
    text = capsys.readouterr().out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["n_items"] == 40 and report["missing"] == 0
    assert report["accuracy"]["overall"] == {"score": 10 / 40, "n": 40}
    assert "(40 of 40 items; 0 missing, 0 unanswered)" in text
    _line(text, r"  All non-translation items +25\.0 +40")
    flat = " ".join(text.split())
    assert "(only 40 of the 675 items of these files)" in flat and HEADLINE in flat
    assert "WARNING" not in text
    # --covered-only is the leaderboard's rule: the whole file counts, 635 items missing
    assert main([*args, "--covered-only", "--report", str(tmp_path / "c.json")]) == 0
    covered = json.loads((tmp_path / "c.json").read_text())
    assert covered["n_items"] == 675 and covered["missing"] == 635
    capsys.readouterr()
    with pytest.raises(SystemExit):  # the two scopes exclude each other
        main([*args, "--covered-only", "--predicted-only"])
