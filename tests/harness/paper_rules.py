"""An independent implementation of the paper's notebooks' rules (PROTOCOL sections 3-5),
written from the protocol text for the reference-implementation check of the lm-eval tasks.
It imports nothing from respondeoqa_eval: only sacreBLEU and unidecode, as the notebooks did."""

from __future__ import annotations

import re
import string

from sacrebleu.metrics import BLEU
from unidecode import unidecode

FEET = [
    {"dactyl", "dactylus"},
    {"iamb", "iambus"},
    {"spondee", "spondaeus", "spondeus"},
    {"trochee", "trochaeus", "trocheus"},
    {"amphibrac", "amphibrach"},
    {"choriamb", "choriambus"},
    {"tribrac", "tribrach"},
]


def _after(line: str, marker: str) -> str:
    return line.split(marker, 1)[1]


def extract(task: str, response: str) -> str | None:
    """Section 3: the answer in a raw response, None when unanswered."""
    lines = response.split("\n")
    last = lines[-1]
    if task == "multiple_choice":
        for i, line in enumerate(reversed(lines)):
            line = line.replace("*", "")
            if "Answer:" in line:
                return _after(line, "Answer: ").strip()[:1] if "Answer: " in line else None
            if i and ":" in line:
                return _after(line, ":").strip()[:1]
        return None
    if task == "short_answer":
        last = last.replace("*", "")
        return _after(last, "Answer: ").strip() if "Answer: " in last else None
    if task in ("meter", "feet"):
        for line in reversed(lines):
            if "Answer:" in line:
                return _after(line, "Answer:").strip()
        return None
    # translation
    lines = [line.replace("*", "") for line in lines]
    if "Answer:" in lines[-1]:
        return _after(lines[-1], "Answer:").strip()
    for i in range(len(lines) - 1, 0, -1):
        if "Answer:" in lines[i]:
            tail = [_after(lines[i], "Answer: ")]
            for line in lines[i + 1 :]:
                if "Explanation" in line:
                    break
                tail.append(line)
            return "\n".join(tail)
    return ""


def _latin(text: str) -> str:
    return unidecode(text).replace("j", "i").replace("v", "u")


def score(task: str, gold: list[str], language: str, answer: str | None) -> float:
    """Section 4: one item's score (accuracy tasks)."""
    if not answer:
        return 0.0
    if task == "multiple_choice":
        return float(answer[:1] == gold[0][:1])
    if task == "short_answer":

        def norm(s: str) -> str:
            s = s.lower().strip().translate(str.maketrans("", "", string.punctuation))
            return _latin(s) if language == "latin" else s

        return float(norm(answer) == norm(gold[0]))
    if task == "meter":

        def words(s: str) -> list[str]:
            return re.sub(r"[^\w\s]", "", unidecode(s).lower().strip()).split()

        return float(words(answer) == words(gold[0]))
    # feet
    want = [f.strip() for f in gold[0].lower().split(",")]
    got = [f.strip() for f in answer.lower().replace("*", "").split(",")]
    right = sum(
        a == b or any(a in same and b in same for same in FEET)
        for a, b in zip(got, want, strict=False)
    )
    return right / len(want)


def corpus_bleu(hypotheses: list[str], references: list[list[str]], language: str) -> float:
    """Section 5: sacreBLEU BLEU(lowercase=True), Latin j>i, v>u then unidecode, every item's
    references padded with "" to the group's largest count (the notebooks' padding; sacreBLEU
    2.6.0 keeps "" as a real zero-length reference)."""

    def prep(s: str) -> str:
        if language != "latin":
            return s
        for a, b in (("j", "i"), ("J", "I"), ("v", "u"), ("V", "U")):
            s = s.replace(a, b)
        return unidecode(s)

    width = max(len(r) for r in references)
    padded = [[prep(x) for x in r] + [""] * (width - len(r)) for r in references]
    streams = [list(col) for col in zip(*padded, strict=True)]
    return BLEU(lowercase=True).corpus_score([prep(h) for h in hypotheses], streams).score
