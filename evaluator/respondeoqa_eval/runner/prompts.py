"""The paper's prompts (PROTOCOL section 2): one system and one user message per item."""

from __future__ import annotations

from typing import Any

from ..data.records import Record
from ..metrics.feet import LISTED_FEET

PROMPT_VERSION = "paper-v1"
"""Recorded in every output row; bump it whenever a prompt below changes."""

SYSTEM_PROMPT = (
    "You are a Classicist with expert knowledge in Greek and Roman history, language, and culture."
)
MC_INSTRUCTIONS = (
    "At the end of your response, give the letter of the correct answer as\nAnswer: Letter"
)
SHORT_ANSWER_INSTRUCTIONS = (
    "At the end of your response, give your answer as a single word like this:\nAnswer: Word"
)
LONG_ANSWER_INSTRUCTIONS = "At the end of your response, give your answer as:\nAnswer: answer text"

_FEET = ", ".join(LISTED_FEET)
FEET_LISTS = {
    "english": f"The possible feet are: {_FEET}",
    "latin": f"Pedes possibiles sunt: {_FEET}",
}
"""The list of feet, in the question's language (the variant behind the paper's headline)."""

TEMPERATURE = 0.6
TOP_P = 0.95


def user_prompt(record: Record) -> str:
    """The user message for one item, built exactly as the paper did (PROTOCOL section 2)."""
    if record.task == "multiple_choice":
        text = record.question
        if record.passage is not None:
            # reading comprehension: the passage, a blank line, then the question
            text = f"{record.passage}\n\n{text}"
        # options one per line; an item without options gets none (no empty line)
        return "\n".join([text, *record.multiple_choice_options, MC_INSTRUCTIONS])
    if record.task == "short_answer":
        return f"{record.question}\n{SHORT_ANSWER_INSTRUCTIONS}"
    if record.task == "feet":
        feet = FEET_LISTS[record.question_language]
        return f"{record.question}\n{feet}\n{LONG_ANSWER_INSTRUCTIONS}"
    if record.task in ("translation", "meter"):
        # PROTOCOL 2: every translation-file row is a long answer, the two multiple-choice rows
        # of certamen_translation_long.json included, and their options are not shown
        return f"{record.question}\n{LONG_ANSWER_INSTRUCTIONS}"
    raise ValueError(f"unknown task {record.task!r} for item {record.id}")


def build_messages(record: Record) -> list[dict[str, str]]:
    """The chat-completions messages for one item: the system prompt and the user prompt."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user_prompt(record)},
    ]


def prompt_row(record: Record) -> dict[str, Any]:
    """One line of the `prompts` output: the item's key, its messages and the prompt version."""
    return {
        "id": record.id,
        "question_id": record.question_id,
        "question_language": record.question_language,
        "messages": build_messages(record),
        "prompt_version": PROMPT_VERSION,
    }
