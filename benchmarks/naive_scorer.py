"""A naive single-pass scorer of the paper's rules: the floor `bench_score.py --cli` compares
`respondeoqa-eval score` with (issue 31).

Independent of the package on purpose (it imports only the standard library and sacreBLEU): read
the gold files and the predictions, extract (PROTOCOL 3), normalise and compare (PROTOCOL 4),
mean accuracy overall and per content and language pair, sacreBLEU's corpus BLEU by target
language and split with the paper's empty-reference padding (PROTOCOL 5), a JSON of the
numbers. No intervals, no per-item results, no input checks beyond what the rules need.
With `--same-numbers`, also each group's BLEU without padding and chrF (sacreBLEU's corpus
scores), as the report has them: what sacreBLEU's chrF costs a scorer (issue 38).

    python benchmarks/naive_scorer.py GOLD_DIR PREDICTIONS.jsonl OUT.json [--same-numbers]
"""

from __future__ import annotations

import json
import re
import string
import sys
from pathlib import Path

from sacrebleu import corpus_bleu, corpus_chrf
from unidecode import unidecode

_PUNCT = str.maketrans("", "", string.punctuation)
_NOT_WORD = re.compile(r"[^\w\s]")
_FEET = {
    "dactylus": "dactyl",
    "iambus": "iamb",
    "spondaeus": "spondee",
    "spondeus": "spondee",
    "trochaeus": "trochee",
    "trocheus": "trochee",
    "amphibrach": "amphibrac",
    "choriambus": "choriamb",
    "tribrach": "tribrac",
}


def task_of(name: str) -> str | None:
    if "passages" in name:
        return None
    if name.startswith(("certamen_mc", "nle_")):
        return "mc"
    if "short_answer" in name:
        return "sa"
    if "translation" in name:
        return "tr"
    if "caesura" in name:
        return "meter"
    if "feet" in name:
        return "feet"
    return None


def after(line: str, marker: str) -> str | None:
    head, found, tail = line.partition(marker)
    return tail.strip() if found else None


def extract(task: str, response: str) -> str | None:
    lines = response.split("\n")
    if task == "mc":
        last = lines[-1].replace("*", "")
        if "Answer:" in last:
            return (after(last, "Answer: ") or "")[:1] or None
        for line in reversed(lines[:-1]):
            line = line.replace("*", "")
            if "Answer:" in line:
                return (after(line, "Answer: ") or "")[:1] or None
            if ":" in line:
                return (after(line, ":") or "")[:1] or None
        return None
    if task == "sa":
        last = lines[-1].replace("*", "")
        return (after(last, "Answer: ") or None) if "Answer:" in last else None
    if task in ("meter", "feet"):
        for line in reversed(lines):
            if "Answer:" in line:
                return after(line, "Answer:") or None
        return None
    lines = [line.replace("*", "") for line in lines]
    if "Answer:" in lines[-1]:
        return after(lines[-1], "Answer:") or ""
    for i in range(len(lines) - 1, 0, -1):
        if "Answer:" in lines[i]:
            answer = after(lines[i], "Answer: ")
            if answer is None:
                return ""
            for line in lines[i + 1 :]:
                if "Explanation" in line:
                    break
                answer += "\n" + line
            return answer
    return ""


def exact(text: str, latin: bool) -> str:
    text = text.lower().strip().translate(_PUNCT)
    if latin:
        text = unidecode(text).replace("j", "i").replace("v", "u")
    return text


def score(task: str, gold: str, pred: str | None, latin: bool) -> float:
    if not pred:
        return 0.0
    if task == "mc":
        return float(pred == gold[:1])
    if task == "sa":
        return float(exact(pred, latin) == exact(gold, latin))
    if task == "meter":

        def words(t: str) -> list[str]:
            return _NOT_WORD.sub("", unidecode(t).lower().strip()).split()

        return float(words(pred) == words(gold))
    gold_feet = [f.strip() for f in gold.lower().split(",")]
    pred_feet = [f.strip() for f in pred.replace("*", "").lower().split(",")]
    right = sum(
        _FEET.get(g, g) == _FEET.get(p, p) for g, p in zip(gold_feet, pred_feet, strict=False)
    )
    return right / len(gold_feet)


def latin_bleu_text(text: str) -> str:
    return unidecode(text.replace("j", "i").replace("J", "I").replace("v", "u").replace("V", "U"))


def main(gold_dir: str, predictions: str, out: str, same_numbers: bool = False) -> None:
    responses = {}
    with open(predictions, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            responses[row["id"]] = row["response"]
    acc: dict[str, list[float]] = {}
    translations: dict[tuple[str, str], tuple[list[str], list[list[str]]]] = {}
    for path in sorted(Path(gold_dir).glob("*.json")):
        task = task_of(path.name)
        if task is None:
            continue
        for row in json.loads(path.read_text(encoding="utf-8")):
            qid, lang = row["question_id"], row["question_language"]
            # the prosody questions exist in both languages under one question_id (PROTOCOL 1)
            item = f"{qid}-{'en' if lang == 'english' else 'la'}" if "prosody" in path.name else qid
            pred = extract(task, responses.get(item, "")) if item in responses else None
            latin = row["answer_language"] == "latin"
            if task == "tr":
                split = "constrained" if row.get("constrained") else "unconstrained"
                refs = row["answers"]
                hyp = pred or ""
                if latin:
                    hyp, refs = latin_bleu_text(hyp), [latin_bleu_text(r) for r in refs]
                for key in (split, "overall"):
                    hyps, group = translations.setdefault((row["answer_language"], key), ([], []))
                    hyps.append(hyp)
                    group.append(refs)
                continue
            value = score(task, row["answers"][0], pred, latin)
            pair = f"{lang}-{row['answer_language']}"
            for key in ("overall", row["question_content"], pair):
                acc.setdefault(key, []).append(value)
    numbers: dict = {"accuracy": {k: sum(v) / len(v) for k, v in acc.items()}, "bleu": {}}
    for (lang, split), (hyps, refs) in translations.items():
        most = max(len(r) for r in refs)
        # PROTOCOL 5: every item's references padded with empty strings to the group's largest count
        streams = [[r[k] if k < len(r) else "" for r in refs] for k in range(most)]
        paper = corpus_bleu(hyps, streams, lowercase=True).score
        if not same_numbers:
            numbers["bleu"].setdefault(lang, {})[split] = paper
            continue
        plain = [[r[k] if k < len(r) else None for r in refs] for k in range(most)]
        numbers["bleu"].setdefault(lang, {})[split] = {
            "score": paper,
            "variable_refs": corpus_bleu(hyps, plain, lowercase=True).score,
            "chrf": corpus_chrf(hyps, plain).score,
        }
    Path(out).write_text(json.dumps(numbers), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:4], same_numbers=sys.argv[4:] == ["--same-numbers"])
