"""Answer extraction, one case per rule of PROTOCOL section 3."""

from __future__ import annotations

import pytest
from respondeoqa_eval.scoring.extract import (
    extract_answer,
    extract_long,
    extract_multiple_choice,
    extract_short_answer,
    extract_translation,
)

# --- multiple choice -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        # last line with "Answer: "
        ("Reasoning about Mars.\nAnswer: C", "C"),
        # `*` removed from the last line before looking
        ("Some text\n**Answer: B**", "B"),
        ("Some text\n**Answer:** D", "D"),
        # the extracted letter is the first character of the stripped text
        ("x\nAnswer:   B: Neptune", "B"),
        ("x\nAnswer: Bacchus", "B"),
        # no Answer: on the last line -> earlier lines from the end, the first with Answer: wins
        ("Answer: A\nthinking\nAnswer: C\nI am fairly sure.", "C"),
        ("**Answer: D**\nHope this helps", "D"),
        # ... and an Answer: line found first beats an earlier colon line
        ("Note: zeta\nAnswer: E\nbye", "E"),
        # colon fallback: the first earlier line (from the end) with ":" gives text after its first ":"
        ("The letter is:\nthe right one: B. Mars\nthat is all", "B"),
        ("Options considered: A and C\nFinal", "A"),
        # colon fallback scans from the end, so a later colon line wins over an earlier Answer: line
        ("Answer: A\nWait: C is better\nDone", "C"),
        # colon fallback: the text after the first colon (a second colon changes nothing)
        ("Choice: D: Venus\nend", "D"),
        ("Choice:: D\nend", ":"),
        # the text after the first "Answer: " (PROTOCOL 3), whose first character is the letter
        ("x\nAnswer: A Answer: B", "A"),
    ],
)
def test_multiple_choice_extracts(response: str, expected: str) -> None:
    assert extract_multiple_choice(response) == expected


@pytest.mark.parametrize(
    "response",
    [
        "",  # nothing at all
        "I cannot tell from the options given.",  # single line, no Answer:, no earlier lines
        "No idea\nreally none",  # no Answer: and no colon anywhere before the last line
        "x\nAnswer:C",  # Answer: without the space (crashed the paper's code)
        "x\nAnswer: ",  # nothing after Answer: -> empty string -> unanswered
        "x\nAnswer: **",  # only stars after removal -> empty
        "Answer:B\nthen nothing",  # earlier Answer: line without the space
        "Reason:   \nlast line",  # colon fallback with nothing after the colon
        "Only a colon line at the end: B",  # the last line's colon is not a fallback
    ],
)
def test_multiple_choice_unanswered(response: str) -> None:
    assert extract_multiple_choice(response) is None


def test_multiple_choice_colon_on_last_line_is_not_used_but_earlier_one_is() -> None:
    # The colon fallback only walks the lines before the last one.
    assert extract_multiple_choice("Pick: A\nThe answer is: B") == "A"


# --- short answer ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("It is the bee.\nAnswer: apis", "apis"),
        ("x\n**Answer: Penelope**", "Penelope"),  # `*` removed
        ("x\nAnswer:   latifundia   ", "latifundia"),  # stripped
        ("x\nAnswer: two words", "two words"),  # not cut to one word
        ("Answer: Roma", "Roma"),  # single-line response
    ],
)
def test_short_answer_extracts(response: str, expected: str) -> None:
    assert extract_short_answer(response) == expected


@pytest.mark.parametrize(
    "response",
    [
        "Answer: Roma\nI hope this helps.",  # only the last line counts
        "Answer: Roma\n",  # trailing newline: the last line is empty
        "x\nAnswer:Roma",  # no space after the colon
        "x\nAnswer: ",  # empty after the marker
        "no marker at all",
        "",
    ],
)
def test_short_answer_unanswered(response: str) -> None:
    assert extract_short_answer(response) is None


# --- meter and feet --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (
            "think\nAnswer: Ipse dei clypeus terrâ cùm tollitur imâ,",
            "Ipse dei clypeus terrâ cùm tollitur imâ,",
        ),
        # the space after the colon is not required here
        ("think\nAnswer:spondee, dactyl", "spondee, dactyl"),
        # `*` is NOT removed at extraction for these tasks
        ("think\nAnswer: iamb, spondee, trochee**", "iamb, spondee, trochee**"),
        # no Answer: on the last line -> the last line from the end that has one
        ("Answer: first\nthink\nAnswer: second\nHope this helps", "second"),
        # the first line counts too
        ("Answer: dactyl, spondee\nthat is all", "dactyl, spondee"),
        # the text after the first Answer: (PROTOCOL 3), a second one included
        ("x\nAnswer: a b Answer: c", "a b Answer: c"),
    ],
)
def test_long_extracts(response: str, expected: str) -> None:
    assert extract_long(response) == expected
    assert extract_answer("meter", response) == expected
    assert extract_answer("feet", response) == expected


@pytest.mark.parametrize("response", ["", "no marker", "x\nAnswer:   ", "Answer:\nmore"])
def test_long_unanswered(response: str) -> None:
    assert extract_long(response) is None


# --- translation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        # last line: text after "Answer:" (no space needed), stripped, `*` removed
        (
            "The motto means...\n**Answer:** We dare defend our rights.",
            "We dare defend our rights.",
        ),
        ("x\nAnswer:From sea to sea.", "From sea to sea."),
        # earlier line: the answer plus every following line up to the first "Explanation" line
        (
            "Thinking\nAnswer: Opus est mihi equo.\nEquus mihi opus est.\nExplanation: dative\nmore",
            "Opus est mihi equo.\nEquus mihi opus est.",
        ),
        # following lines are kept as they are (not stripped), `*` removed from each
        ("T\nAnswer: Line one\n  **line two**\nExplanation", "Line one\n  line two"),
        # no Explanation line: every following line up to the end
        ("T\nAnswer: a\nb\nc", "a\nb\nc"),
        # "Explanation" anywhere in a line stops, not only at its start
        ("T\nAnswer: a\nSee the Explanation below\nc", "a"),
        # the last (from the end) Answer: line is used
        ("T\nAnswer: old\nAnswer: new\ntrailing", "new\ntrailing"),
    ],
)
def test_translation_extracts(response: str, expected: str) -> None:
    assert extract_translation(response) == expected
    assert extract_answer("translation", response) == expected


@pytest.mark.parametrize(
    "response",
    [
        "",
        "no marker anywhere\nat all",
        # the first line is never used by the earlier-line search
        "Answer: Gallia est omnis divisa\nin partes tres.",
        # an earlier Answer: line without the space (crashed the paper's code)
        "T\nAnswer:Gallia\nmore",
    ],
)
def test_translation_empty(response: str) -> None:
    assert extract_translation(response) == ""
    assert extract_answer("translation", response) == ""


def test_translation_single_line_answer_is_the_last_line() -> None:
    # A one-line response is its own last line, so the first-line exclusion does not apply.
    assert extract_translation("Answer: Gallia") == "Gallia"


# --- dispatch --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "response", "expected"),
    [
        ("multiple_choice", "x\nAnswer: B", "B"),
        ("short_answer", "x\nAnswer: apis", "apis"),
        ("meter", "x\nAnswer: a b", "a b"),
        ("feet", "x\nAnswer: dactyl", "dactyl"),
        ("translation", "x\nAnswer: a b", "a b"),
        ("multiple_choice", "nothing", None),
        ("translation", "nothing", ""),
    ],
)
def test_extract_answer_dispatch(task: str, response: str, expected: str | None) -> None:
    assert extract_answer(task, response) == expected


def test_extract_answer_unknown_task() -> None:
    with pytest.raises(ValueError, match="unknown task"):
        extract_answer("essay", "Answer: x")


@pytest.mark.parametrize(
    ("task", "response", "expected"),
    [
        # PROTOCOL 3: "the text after `Answer: `": a second marker on the line stays in the text
        ("short_answer", "x\nAnswer: roma Answer: urbs", "roma Answer: urbs"),
        ("translation", "x\nAnswer: puer Answer: puella", "puer Answer: puella"),
        (
            "translation",
            "x\nAnswer: puer Answer: puella\nmore\nExplanation: y",
            "puer Answer: puella\nmore",
        ),
    ],
)
def test_repeated_marker_on_one_line_keeps_the_rest(
    task: str, response: str, expected: str
) -> None:
    assert extract_answer(task, response) == expected
