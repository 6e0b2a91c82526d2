"""The whole scorer: predictions + gold -> report (PROTOCOL section 5), API and CLI."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

import pytest
import sacrebleu
from conftest import run_cli as _cli
from conftest import unavailable
from respondeoqa_eval import evaluate
from synthetic import SECRET_MARKER, write_private
from unidecode import unidecode


def _bucket(key: str, n: int) -> int:
    """A stable pseudo-random bucket in range(n) (unlike hash(), the same in every run)."""
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % n


def _answer_rows(records, pick):
    return [{"id": r.id, "answer": r.answers[0]} for r in records if pick(r)]


def test_missing_items_score_zero_and_still_count(public_gold):
    sa = [r for r in public_gold.records if r.task == "short_answer"][:10]
    report = evaluate(_answer_rows(sa, lambda r: True), public_gold, bootstrap=0).to_dict()
    n_acc = sum(1 for r in public_gold.records if r.task != "translation")
    assert report["accuracy"]["overall"] == {"score": 10 / n_acc, "n": n_acc}
    assert report["missing"] == len(public_gold) - 10
    assert report["accuracy"]["by_task"]["short_answer"]["score"] == 10 / 675
    assert report["accuracy"]["by_task"]["meter"]["score"] == 0.0
    items = {it["id"]: it for it in report["items"]}
    assert len(items) == len(public_gold)
    assert all(not items[r.id]["missing"] and items[r.id]["score"] == 1.0 for r in sa)
    assert all(it["score"] is None for it in report["items"] if it["task"] == "translation")


def test_breakdowns_group_by_the_right_fields(public_gold):
    latin_q = [
        r for r in public_gold.records if r.task == "feet" and r.question_language == "latin"
    ]
    report = evaluate(_answer_rows(latin_q, lambda r: True), public_gold, bootstrap=0).to_dict()
    acc = report["accuracy"]
    n_le = sum(
        1
        for r in public_gold.records
        if r.language_pair == "latin-english" and r.task != "translation"
    )
    assert acc["by_language_pair"]["latin-english"] == {"score": 20 / n_le, "n": n_le}
    assert acc["by_language_pair"]["english-english"]["score"] == 0
    n_skill = sum(
        1 for r in public_gold.records if r.category == "skill" and r.task != "translation"
    )
    assert acc["by_category"]["skill"] == {"score": 20 / n_skill, "n": n_skill}
    assert acc["by_category"]["knowledge"]["score"] == 0
    assert acc["by_source"]["lat-pros"]["score"] == 20 / 122
    n_multihop = sum(1 for r in public_gold.records if r.multihop)
    assert acc["by_multihop"]["multihop"]["n"] == n_multihop
    assert acc["by_multihop"]["regular"]["n"] == 675 - n_multihop
    assert set(acc["by_content"]) <= {
        "geography",
        "history",
        "literature",
        "mythology",
        "vocabulary",
        "grammar",
        "literary_devices",
        "reading_comprehension",
        "scansion",
        "translation",
    }
    assert sum(g["n"] for g in acc["by_content"].values()) == acc["overall"]["n"]


def _paper_bleu(hyps, refs, latin):
    """PROTOCOL 5 written out with sacreBLEU 2.6.0, where '' is a real empty reference."""

    def prep(t):
        if not latin:
            return t
        return unidecode(t.replace("j", "i").replace("J", "I").replace("v", "u").replace("V", "U"))

    width = max(len(r) for r in refs)
    padded = [[prep(x) for x in r] + [""] * (width - len(r)) for r in refs]
    streams = [list(s) for s in zip(*padded, strict=True)]
    return sacrebleu.BLEU(lowercase=True).corpus_score([prep(h) for h in hyps], streams).score


def test_bleu_groups_match_the_paper_procedure(public_gold):
    if sacrebleu.__version__ != "2.6.0":  # the reference below relies on 2.6.0 keeping '' refs
        unavailable(f"pins sacreBLEU 2.6.0's behaviour; {sacrebleu.__version__} is installed")
    tr = [r for r in public_gold.records if r.task == "translation"]
    # half the words of the first reference: short hypotheses, where padding matters
    rows = [
        {
            "id": r.id,
            "answer": " ".join(r.answers[-1].split()[: 1 + len(r.answers[-1].split()) // 2]),
        }
        for r in tr
    ]
    report = evaluate(rows, public_gold, bootstrap=0).to_dict()
    hyp = {row["id"]: row["answer"] for row in rows}
    for lang in ("latin", "english"):
        for split, keep in (
            ("overall", lambda r: True),
            ("constrained", lambda r: r.constrained),
            ("unconstrained", lambda r: not r.constrained),
        ):
            group = [r for r in tr if r.answer_language == lang and keep(r)]
            expected = _paper_bleu(
                [hyp[r.id] for r in group], [r.answers for r in group], lang == "latin"
            )
            got = report["bleu"][lang][split]
            assert got["n"] == len(group)
            assert got["score"] == expected, (lang, split)
            assert "version:2.6.0" in got["signature"] and "case:lc" in got["signature"]
            assert "variable_refs" in got and "chrf" in got


def test_bootstrap_intervals_are_seeded(public_gold):
    rows = _answer_rows(public_gold.records, lambda r: _bucket(r.id, 3) == 0)
    a = evaluate(rows, public_gold, bootstrap=200, seed=1).to_dict()
    b = evaluate(rows, public_gold, bootstrap=200, seed=1).to_dict()
    c = evaluate(rows, public_gold, bootstrap=200, seed=2).to_dict()
    assert a["accuracy"]["overall"]["ci"] == b["accuracy"]["overall"]["ci"]
    assert a["accuracy"]["overall"]["ci"] != c["accuracy"]["overall"]["ci"]
    lo, hi = a["accuracy"]["overall"]["ci"]
    assert lo < a["accuracy"]["overall"]["score"] < hi
    for group in a["accuracy"]["by_content"].values():
        assert group["ci"][0] <= group["score"] <= group["ci"][1]
    ci = a["bleu"]["latin"]["overall"]["ci"]
    assert ci[0] <= a["bleu"]["latin"]["overall"]["score"] <= ci[1]


def test_macron_sensitive_variant_is_reported_beside(public_gold):
    sa = [
        r
        for r in public_gold.records
        if r.task == "short_answer"
        and r.answer_language == "latin"
        and r.answers[0] != unidecode(r.answers[0])
    ]
    assert sa, "the public data has Latin answers with macrons"
    rows = [{"id": r.id, "answer": unidecode(r.answers[0])} for r in sa]
    report = evaluate(rows, public_gold, bootstrap=0).to_dict()
    assert report["accuracy"]["by_task"]["short_answer"]["score"] == len(sa) / 675
    assert report["extra"]["short_answer_macron_sensitive"]["score"] < len(sa) / 675


def test_restrict_to_covered_scores_only_touched_files(public_gold):
    feet = [r for r in public_gold.records if r.file == "prosody_feet_questions_english.json"]
    report = evaluate(
        _answer_rows(feet, lambda r: True), public_gold, restrict_to_covered=True, bootstrap=0
    ).to_dict()
    assert report["n_items"] == 20 and report["missing"] == 0
    assert report["accuracy"]["overall"] == {"score": 1.0, "n": 20}
    assert report["bleu"]["latin"]["overall"] is None


def test_private_gold_never_in_report(tmp_path):
    folder = write_private(tmp_path / "gold", with_public=True)
    preds = tmp_path / "p.jsonl"
    from respondeoqa_eval.data.gold import read_folder

    gold = read_folder(folder)
    preds.write_text(
        "".join(
            json.dumps({"id": r.id, "response": "I think\nAnswer: B"}) + "\n" for r in gold.records
        )
    )
    report = evaluate(preds, gold, bootstrap=50)
    assert SECRET_MARKER not in report.to_json()
    assert SECRET_MARKER not in report.summary()
    assert {"certamen", "nle"} <= set(report.to_dict()["accuracy"]["by_source"])


@pytest.mark.slow
def test_cli_scores_and_writes_the_report(tmp_path, public_dir):
    preds, out = tmp_path / "preds.jsonl", tmp_path / "report.json"
    r = _cli("example", "--data-dir", str(public_dir), "-o", str(preds))
    assert r.returncode == 0, r.stderr
    r = _cli(
        "score",
        str(preds),
        "--data-dir",
        str(public_dir),
        "--report",
        str(out),
        "--bootstrap",
        "100",
    )
    assert r.returncode == 0, r.stderr
    assert "Accuracy (%): mean per-item score over the 797 non-translation items" in r.stdout
    assert "\n  Language pair\n" in r.stdout and "sacreBLEU signatures:" in r.stdout
    report = json.loads(out.read_text())
    for key in (
        "by_content",
        "by_language_pair",
        "by_category",
        "by_format",
        "by_source",
        "by_difficulty",
        "by_multihop",
    ):
        assert report["accuracy"][key]
    assert set(report["bleu"]) == {"latin", "english"}
    assert 0 <= report["accuracy"]["overall"]["score"] <= 1
    # the summary's headline row: the report's score in percent, one decimal, with its interval
    overall = report["accuracy"]["overall"]
    row = next(line for line in r.stdout.splitlines() if "All non-translation items" in line)
    shown = [float(x) for x in re.findall(r"\d+\.\d", row)]
    assert shown[0] == pytest.approx(100 * overall["score"], abs=0.05)
    assert shown[1:] == pytest.approx([100 * v for v in overall["ci"]], abs=0.05)
    assert row.split()[-1] == str(overall["n"]) == "797"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        ('{"id": "x", "response": "a"}\n{broken\n', "p.jsonl", "line 2, column 2: malformed JSON"),
        ("", "p.jsonl", "empty"),
        ("id,response\nnot-an-id,Answer: A\n", "p.csv", "1 prediction(s) name items"),
        ("x", "p.xml", "unsupported extension"),
    ],
)
def test_cli_bad_input_exit_2_without_traceback(tmp_path, public_dir, content, name, message):
    path = tmp_path / name
    path.write_text(content)
    r = _cli("score", str(path), "--data-dir", str(public_dir))
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.startswith("respondeoqa-eval: error:")


@pytest.mark.slow
def test_cli_bad_gold_folder(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "x", "response": "a"}\n')
    r = _cli("score", str(path), "--data-dir", str(tmp_path / "missing"))
    assert r.returncode == 2 and "not a folder" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_cli_covered_only(tmp_path, public_dir, public_gold):
    feet = [r for r in public_gold.records if r.task == "feet"]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"id": r.id, "answer": r.answers[0]}) + "\n" for r in feet))
    out = tmp_path / "r.json"
    r = _cli(
        "score",
        str(path),
        "--data-dir",
        str(public_dir),
        "--covered-only",
        "--report",
        str(out),
        "-q",
    )
    assert r.returncode == 0, r.stderr
    report = json.loads(out.read_text())
    assert report["accuracy"]["overall"] == {"score": 1.0, "n": 40, "ci": [1.0, 1.0]}
    assert report["missing"] == 0


def test_report_contract_keys(public_gold):
    """The fields docs/report.md promises (readers such as the Space rely on them)."""
    rows = _answer_rows(public_gold.records, lambda r: len(r.id) % 2 == 0)
    data = json.loads(evaluate(rows, public_gold, bootstrap=20).to_json())
    assert data["schema_version"] == 1
    assert {
        "schema_version",
        "evaluator",
        "predictions",
        "gold",
        "n_items",
        "missing",
        "unanswered",
        "accuracy",
        "extra",
        "bleu",
        "format_compliance",
        "items",
    } <= set(data)
    assert {"name", "version", "protocol", "sacrebleu", "bootstrap", "signatures"} <= set(
        data["evaluator"]
    )
    assert set(data["evaluator"]["signatures"]) == {
        "multiple_choice",
        "short_answer",
        "feet",
        "meter",
        "short_answer_macron_sensitive",
    }
    assert {"files", "n_items", "sources", "unknown_files"} <= set(data["gold"])
    assert {
        "overall",
        "by_task",
        "by_content",
        "by_language_pair",
        "by_category",
        "by_format",
        "by_source",
        "by_difficulty",
        "by_multihop",
    } <= set(data["accuracy"])
    for dim, groups in data["accuracy"].items():
        for g in [groups] if dim == "overall" else groups.values():
            assert set(g) == {"score", "n", "ci"} and 0 <= g["score"] <= 1 and len(g["ci"]) == 2
    for lang in ("latin", "english"):
        assert set(data["bleu"][lang]) == {"overall", "constrained", "unconstrained"}
        for b in data["bleu"][lang].values():
            assert {
                "score",
                "n",
                "ci",
                "signature",
                "variable_refs",
                "chrf",
                "chrf_signature",
            } <= set(b)
    assert len(data["items"]) == len(public_gold)
    assert set(data["items"][0]) == {
        "id",
        "question_id",
        "question_language",
        "task",
        "source",
        "question_content",
        "extracted",
        "score",
        "missing",
        "groups",
        "answered",
        "lenient",
    }
    assert set(data["items"][0]["lenient"]) == {"answer", "rule", "score"}
    fc = data["format_compliance"]
    assert set(fc) == {"signature", "overall", "by_task", "by_rule", "accuracy_lenient"}
    assert set(fc["overall"]) == {"n", "missing", "answered", "failures", "right"}
    assert set(fc["accuracy_lenient"]) == set(data["accuracy"])
    by_id = {it["id"]: it for it in data["items"]}
    # the groups an item counts in, written out from PROTOCOL 5 (not from the code)
    assert by_id["prosody_III.I.9.1-la"]["groups"] == {
        "by_task": "meter",
        "by_content": "scansion",
        "by_language_pair": "latin-latin",
        "by_category": "skill",
        "by_format": "short_answer",
        "by_source": "lat-pros",
        "by_difficulty": "unknown",
    }
    translation = next(it for it in data["items"] if it["task"] == "translation")
    assert "by_task" not in translation["groups"]  # translation is BLEU-scored, not accuracy


def test_report_round_trips_through_its_json_contract(public_gold):
    from respondeoqa_eval.report.model import Report

    rows = [{"id": r.id, "response": f"Answer: {r.answers[0]}"} for r in public_gold.records[::7]]
    report = evaluate(rows, public_gold, bootstrap=50, restrict_to_covered=True)
    data = json.loads(report.to_json())
    again = Report.from_dict(data)
    assert again == report
    assert again.to_dict() == data
    assert Report.from_dict(report.without_items().to_dict()).items == ()


def test_report_json_is_compact_by_default_and_indented_on_request(public_gold):
    rows = [{"id": r.id, "response": f"Answer: {r.answers[0]}"} for r in public_gold.records[::5]]
    report = evaluate(rows, public_gold, bootstrap=20, restrict_to_covered=True)
    compact = report.json_bytes()
    assert b"\n" not in compact and json.loads(compact) == report.to_dict()
    # the standard library's text of the same dict, numbers and non-ASCII text alike
    assert json.loads(compact) == json.loads(json.dumps(report.to_dict(), ensure_ascii=False))
    indented = report.json_bytes(indent=2).decode()
    assert indented.startswith('{\n  "schema_version": 1,') and json.loads(indented) == json.loads(
        compact
    )
    assert report.to_json() == compact.decode()


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_report_json_refuses_numbers_json_has_not(public_gold, bad):
    from dataclasses import replace

    rows = [{"id": r.id, "answer": r.answers[0]} for r in public_gold.records[:30]]
    report = evaluate(rows, public_gold, bootstrap=0, predicted_only=True)
    items = list(report.items)
    items[3] = replace(items[3], score=bad)
    overall = replace(report.accuracy.overall, score=bad)
    for broken in (
        replace(report, items=tuple(items)),
        replace(report, accuracy=replace(report.accuracy, overall=overall)),
    ):
        for indent in (None, 1):
            with pytest.raises(ValueError, match="JSON compliant"):
                broken.json_bytes(indent)


@pytest.mark.slow
def test_cli_report_indent(tmp_path, public_dir):
    preds = tmp_path / "preds.jsonl"
    r = _cli("example", "--data-dir", str(public_dir), "-o", str(preds))
    assert r.returncode == 0, r.stderr
    compact, indented = tmp_path / "c.json", tmp_path / "i.json"
    for out, extra in ((compact, []), (indented, ["--indent", "2"])):
        args = ["score", str(preds), "--data-dir", str(public_dir), "--report", str(out)]
        r = _cli(*args, "--bootstrap", "10", "-q", *extra)
        assert r.returncode == 0, r.stderr
    assert compact.read_text().count("\n") == 1  # one line, ended
    assert indented.read_text().startswith('{\n  "schema_version"')
    assert json.loads(compact.read_text()) == json.loads(indented.read_text())
    r = _cli("score", str(preds), "--data-dir", str(public_dir), "--indent", "-1")
    assert r.returncode == 2 and "--indent -1" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_cli_output_piped_into_a_reader_that_stops_early(tmp_path, public_dir):
    preds = tmp_path / "preds.jsonl"
    assert _cli("example", "--data-dir", str(public_dir), "-o", str(preds)).returncode == 0
    cmd = [
        sys.executable,
        "-m",
        "respondeoqa_eval.cli",
        "score",
        str(preds),
        "--data-dir",
        str(public_dir),
        "--bootstrap",
        "0",
        "--report",
        str(tmp_path / "r.json"),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in stderr
    assert (tmp_path / "r.json").exists()


@pytest.mark.slow
def test_example_documents_its_options_and_says_it_is_synthetic(tmp_path, public_dir):
    r = _cli("example", "--help")
    help_text = " ".join(r.stdout.split())
    assert "synthetic" in help_text and "never a result to report" in help_text
    assert "--accuracy SHARE share of items that get the gold answer, 0 to 1 (default 0.6)" in (
        help_text
    )
    assert "--seed SEED seed of the draw of which items are right (default 0;" in help_text
    out = tmp_path / "p.jsonl"
    r = _cli("example", "--data-dir", str(public_dir), "-o", str(out), "--accuracy", "0.25")
    assert r.returncode == 0
    assert r.stdout.startswith(f"wrote 1147 synthetic example predictions to {out}")
    assert "about 25% right, seed 0; not a model's answers" in r.stdout
    r = _cli("example", "--data-dir", str(public_dir), "-o", str(out), "--accuracy", "1.5")
    assert r.returncode == 2 and r.stderr.strip() == (
        "respondeoqa-eval: error: --accuracy 1.5: give a share between 0 and 1"
    )


def test_clear_caches_lets_go_of_what_the_process_kept(public_gold):
    from respondeoqa_eval.api import clear_caches
    from respondeoqa_eval.metrics import bleu
    from respondeoqa_eval.scoring import aggregate

    rows = [{"id": r.id, "response": f"Answer: {r.answers[-1]}"} for r in public_gold.records[::3]]
    first = evaluate(rows, public_gold, bootstrap=30, predicted_only=True)
    assert bleu._kept_scorers.cache_info().currsize and aggregate._COUNTS._items
    clear_caches()
    assert not bleu._kept_scorers.cache_info().currsize
    assert not aggregate._COUNTS._items
    assert evaluate(rows, public_gold, bootstrap=30, predicted_only=True) == first


def test_score_keeps_only_what_one_evaluation_needs_and_restores_it(
    monkeypatch, tmp_path, public_dir, public_gold
):
    from respondeoqa_eval.cli import main, score
    from respondeoqa_eval.metrics import bleu
    from respondeoqa_eval.scoring import aggregate

    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"id": public_gold.records[0].id, "answer": "x"}) + "\n")
    seen = []
    real = score._score_now

    def watched(args):
        seen.append((aggregate._COUNTS.max_bytes, bleu._KEEP[0]))
        return real(args)

    monkeypatch.setattr(score, "_score_now", watched)
    args = ["score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "5", "-q"]
    kept = aggregate._COUNTS.max_bytes
    bleu._kept_scorers.cache_clear()
    assert main(args) == 0
    # only the last resample matrix, and no group's references once their statistics are taken
    assert seen == [(0, False)] and not bleu._kept_scorers.cache_info().currsize
    assert (aggregate._COUNTS.max_bytes, bleu._KEEP[0]) == (kept, True)  # restored

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(score, "_score_now", interrupted)
    assert main(args) == 130 and (aggregate._COUNTS.max_bytes, bleu._KEEP[0]) == (kept, True)
