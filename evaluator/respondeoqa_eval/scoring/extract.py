"""Answer extraction from a raw model response (PROTOCOL section 3).

Each task has the paper's own rule, reproduced from its released notebooks
(eval_mc, eval_short_answer, eval_prosody_scansion, eval_translation). Where the paper's code
would crash, we return "unanswered" (None; "" for translation, whose rule says "Otherwise empty").
All functions are pure.
"""

from __future__ import annotations

ANSWER = "Answer:"
ANSWER_SPACE = "Answer: "


def _after(line: str, marker: str) -> str | None:
    """The text after the first `marker`, stripped; None when the line has no `marker`.

    PROTOCOL 3 says "the text after" the marker. The paper's notebooks wrote
    `line.split(marker)[1]`, which also drops anything after a second marker on the same line;
    where the two differ (a line that repeats the marker) PROTOCOL is followed. A missing marker
    is where the paper's code raised IndexError: unanswered here.
    """
    head, found, tail = line.partition(marker)
    return tail.strip() if found else None


def _first_char(text: str | None) -> str | None:
    """The MC letter: the first character, or None for a missing/empty text.

    The paper did `letter[0]` when `len(letter) != 1`, which crashes on "" (PROTOCOL 3: an empty
    extracted string is unanswered).
    """
    if not text:
        return None
    return text[0]


def extract_multiple_choice(response: str) -> str | None:
    """The answer letter of a multiple-choice response (PROTOCOL 3), or None if unanswered."""
    lines = response.split("\n")
    last = lines[-1].replace("*", "")
    if ANSWER in last:
        # PROTOCOL 3: `Answer:` triggers the rule but the text is taken after `Answer: ` (with the
        # space); "Answer:B" crashed the paper's code, so it is unanswered here.
        return _first_char(_after(last, ANSWER_SPACE))
    for line in reversed(lines[:-1]):
        line = line.replace("*", "")
        if ANSWER in line:
            return _first_char(_after(line, ANSWER_SPACE))
        if ":" in line:
            # PROTOCOL 3 colon fallback: any earlier line with a colon (e.g. "Note: ...") gives the
            # first character after its first colon, as in the paper.
            return _first_char(_after(line, ":"))
    return None


def extract_short_answer(response: str) -> str | None:
    """The answer of a 1-word short-answer response (PROTOCOL 3), or None if unanswered.

    Only the last line counts: an `Answer:` on an earlier line is ignored (PROTOCOL 3).
    """
    last = response.split("\n")[-1].replace("*", "")
    if ANSWER not in last:
        return None
    # "Answer:" without the space crashed the paper's code (unbound variable): unanswered.
    return _after(last, ANSWER_SPACE) or None


def extract_long(response: str) -> str | None:
    """The answer of a meter-manipulation or feet response (PROTOCOL 3), or None if unanswered.

    The last line that contains `Answer:`; the text after its first `Answer:` (no space needed),
    stripped. `*` is NOT removed here (PROTOCOL 3); the feet metric removes it later (PROTOCOL 4).
    """
    for line in reversed(response.split("\n")):
        if ANSWER in line:
            return _after(line, ANSWER) or None
    return None


def extract_translation(response: str) -> str:
    """The answer of a translation response (PROTOCOL 3); "" when nothing is found.

    `*` is removed from every line. A last line with `Answer:` gives the text after it. Otherwise
    the last earlier line with `Answer:` (never the response's first line, PROTOCOL 3: the paper's
    loop stops before index 0) gives the text after `Answer: ` plus every following line, joined
    with "\\n", up to (not including) the first line that contains `Explanation`.
    """
    lines = [line.replace("*", "") for line in response.split("\n")]
    if ANSWER in lines[-1]:
        return _after(lines[-1], ANSWER) or ""
    for i in range(len(lines) - 1, 0, -1):
        if ANSWER not in lines[i]:
            continue
        first = _after(lines[i], ANSWER_SPACE)
        if first is None:
            # "Answer:" without the space crashed the paper's code (PROTOCOL 3): empty.
            return ""
        answer = first
        for next_line in lines[i + 1 :]:
            if "Explanation" in next_line:
                break
            # Following lines are appended as they are (not stripped), as in the paper.
            answer += "\n" + next_line
        return answer
    return ""


_EXTRACTORS = {
    "multiple_choice": extract_multiple_choice,
    "short_answer": extract_short_answer,
    "meter": extract_long,
    "feet": extract_long,
    "translation": extract_translation,
}


def extract_answer(task: str, response: str) -> str | None:
    """Extract the answer for `task` from a raw `response`; None means unanswered.

    Translation returns "" (never None) when nothing is found, per PROTOCOL 3 ("Otherwise empty").
    """
    try:
        extractor = _EXTRACTORS[task]
    except KeyError:
        raise ValueError(f"unknown task {task!r}; expected one of {sorted(_EXTRACTORS)}") from None
    return extractor(response)
