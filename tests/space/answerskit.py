"""What the answers tests submit (tests/space/test_answers_view.py in-process, test_answers.py in
the browser): two entries whose every answer is known, and responses to the private items
that quote their question and gold, as a model's response may."""

from __future__ import annotations

from respondeoqa_eval.data.gold import GoldSet
from synthetic import SECRET_MARKER

from .helpers import WRONG, _normalizes_nonempty, file_records

SHORT = "junior_scholarship_short_answer.json"
FEET = "prosody_feet_questions_english.json"
TRANSLATION = "junior_scholarship_translation_long.json"
FORMAT_FAILURES = 40
HOSTILE = "<script>window.__x=1</script> & \u202egnp.exe \u200b"
PRIVATE_RESPONSE = "PRIVRESPONSE"
"""In every response to a private item: any answer that shows a private response shows it."""


def gold_of(record) -> str:
    """An item's gold answer (a translation's first reference)."""
    return record.answers[0]


def private_rows(gold: GoldSet) -> list[dict[str, str]]:
    """Responses to every private item that quote its question and its gold (which carries
    SECRET_MARKER), as a model's response may."""
    return [
        {"id": r.id, "response": f"{PRIVATE_RESPONSE} {r.question}\nAnswer: {gold_of(r)}"}
        for r in gold.records
        if r.is_private
    ]


def two_entries(gold: GoldSet) -> tuple[list[dict], list[dict], set[str], str]:
    """Entry A: the first half of the short answers right in the paper's format, the rest
    wrong; B: the same, but FORMAT_FAILURES of A's right items behind a lowercase marker (the
    paper's rules read nothing, the lenient marker rule reads the gold). Both: the feet and the
    translations, and every private item. A's first short answer is hostile text."""
    short = file_records(gold, SHORT)
    right = {r.id for r in short[: len(short) // 2] if _normalizes_nonempty(gold_of(r))}
    failures = set(sorted(right, key=[r.id for r in short].index)[:FORMAT_FAILURES])
    hostile_item = short[0].id
    rows_a, rows_b = [], []
    for r in short:
        answer = gold_of(r) if r.id in right else WRONG
        a = f"Let me think.\nAnswer: {answer}"
        if r.id == hostile_item:
            a = f"{HOSTILE}\n" + "a long line of reasoning. " * 40 + f"\nAnswer: {answer}"
        rows_a.append({"id": r.id, "response": a})
        b = (
            f"I think.\nanswer: {answer}"
            if r.id in failures
            else f"Let me think.\nAnswer: {answer}"
        )
        rows_b.append({"id": r.id, "response": b})
    for r in file_records(gold, FEET) + file_records(gold, TRANSLATION):
        rows_a.append({"id": r.id, "response": f"Answer: {gold_of(r)}"})
        rows_b.append({"id": r.id, "response": f"Answer: {WRONG}"})
    private = private_rows(gold)
    return rows_a + private, rows_b + private, failures, hostile_item


def private_strings(gold: GoldSet) -> list[str]:
    """What no page, answer or log may hold: every private item's id and question, the
    marker of every private gold answer and passage, the marker of every private response."""
    out = [SECRET_MARKER, PRIVATE_RESPONSE]
    for r in gold.records:
        if r.is_private:
            out += [r.id, r.question]
    return out
