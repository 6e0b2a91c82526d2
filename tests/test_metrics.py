"""Per-item scores, one case per rule of PROTOCOL section 4."""

from __future__ import annotations

import pytest
import respondeoqa_eval
from respondeoqa_eval.metrics import (
    EXACT_MATCH,
    EXACT_MATCH_MACRONS,
    FEET,
    METER,
    METRICS,
    MULTIPLE_CHOICE,
    score_item,
    short_answer_macron_sensitive,
)

# --- multiple choice -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "prediction", "expected"),
    [
        ("B: Mars", "B", 1.0),
        ("B: Mars", "C", 0.0),
        ("E: none of the above", "E", 1.0),
        # an already-extracted answer is reduced to its first character like the extraction does
        ("B: Mars", "B: Mars", 1.0),
        # compared as is: case matters
        ("B: Mars", "b", 0.0),
        # unanswered
        ("B: Mars", None, 0.0),
        ("B: Mars", "", 0.0),
    ],
)
def test_multiple_choice(gold: str, prediction: str | None, expected: float) -> None:
    assert score_item("multiple_choice", [gold], "english", prediction) == expected
    assert MULTIPLE_CHOICE.score([gold], "english", prediction) == expected


# --- 1-word short answer ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "language", "prediction", "expected"),
    [
        # lowercase and strip both
        ("LATIFUNDIA", "latin", "  latifundia ", 1.0),
        ("Penelope", "english", "PENELOPE", 1.0),
        # ASCII punctuation deleted from both
        ("Rome.", "english", "rome", 1.0),
        ("O'Connor", "english", "oconnor", 1.0),
        ("Jones", "english", "J.o.n.e.s!", 1.0),
        # strip happens before punctuation removal: an inner space left by a deleted mark stays
        ("roma", "latin", "roma .", 0.0),
        # Latin: unidecode removes macrons, breves and accents; æ -> ae, œ -> oe
        ("rēgīna", "latin", "regina", 1.0),
        ("Cæsar", "latin", "caesar", 1.0),
        ("cœlum", "latin", "coelum", 1.0),
        ("ĭtă", "latin", "ita", 1.0),
        # Latin: j -> i and v -> u on both sides
        ("Julius", "latin", "iulius", 1.0),
        ("VILICUS", "latin", "uilicus", 1.0),
        ("iuvenis", "latin", "juvenis", 1.0),
        # English answers get neither unidecode nor j/v replacement
        ("Jove", "english", "iove", 0.0),
        ("Vulcan", "english", "uulcan", 0.0),
        ("Æneas", "english", "aeneas", 0.0),
        ("Æneas", "english", "æneas", 1.0),
        # not the same word
        ("apis", "latin", "apes", 0.0),
        # empty or missing prediction: 0
        ("apis", "latin", "", 0.0),
        ("apis", "latin", None, 0.0),
    ],
)
def test_short_answer(gold: str, language: str, prediction: str | None, expected: float) -> None:
    assert score_item("short_answer", [gold], language, prediction) == expected


@pytest.mark.parametrize(
    ("gold", "language", "prediction", "insensitive", "sensitive"),
    [
        # macrons: only the headline (unidecode) score forgives them
        ("rēgīna", "latin", "regina", 1.0, 0.0),
        ("rēgīna", "latin", "RĒGĪNA", 1.0, 1.0),
        # the macron-sensitive variant still applies j -> i and v -> u
        ("Julius", "latin", "iulius", 1.0, 1.0),
        ("vīlicus", "latin", "uīlicus", 1.0, 1.0),
        # and still lowercases, strips and removes punctuation
        ("Rōma.", "latin", " rōma", 1.0, 1.0),
        # æ is not ae without unidecode
        ("Cæsar", "latin", "caesar", 1.0, 0.0),
        ("Cæsar", "latin", None, 0.0, 0.0),
    ],
)
def test_short_answer_macron_sensitive(
    gold: str, language: str, prediction: str | None, insensitive: float, sensitive: float
) -> None:
    assert score_item("short_answer", [gold], language, prediction) == insensitive
    assert short_answer_macron_sensitive([gold], language, prediction) == sensitive


# --- meter manipulation ----------------------------------------------------------------------

GOLD_LINE = "Ipse dei clypeus terrâ cùm tollitur imâ,"


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        (GOLD_LINE, 1.0),
        # unidecode: accents and circumflexes do not matter
        ("Ipse dei clypeus terra cum tollitur ima,", 1.0),
        # lowercase; punctuation (non-word, non-space characters) deleted
        ("IPSE DEI CLYPEUS TERRA CUM TOLLITUR IMA", 1.0),
        ("Ipse, dei; clypeus terrâ -- cùm tollitur imâ!", 1.0),
        # `*` is a non-word character: emphasis marks are removed here
        ("Ipse dei clypeus *terrâ* cùm tollitur imâ,**", 1.0),
        # whitespace split: any run of spaces/newlines separates words
        ("Ipse  dei\nclypeus terrâ cùm   tollitur imâ", 1.0),
        # word order matters
        ("Ipse dei clypeus imâ terrâ cùm tollitur,", 0.0),
        # a missing or extra word
        ("Ipse dei clypeus terrâ cùm tollitur", 0.0),
        ("Ipse dei clypeus terrâ cùm tollitur imâ et", 0.0),
        # deleting a hyphen joins the two halves into one word
        ("Ipse dei clypeus terrâ cùm tolli-tur imâ", 1.0),
        ("", 0.0),
        (None, 0.0),
    ],
)
def test_meter(prediction: str | None, expected: float) -> None:
    assert score_item("meter", [GOLD_LINE], "latin", prediction) == expected


def test_meter_unidecode_turns_ligatures_into_letters() -> None:
    gold = "Sed, vitio cæci, propter patrimonia vivunt."
    assert METER.score([gold], "latin", "sed vitio caeci propter patrimonia vivunt") == 1.0


# --- feet identification ---------------------------------------------------------------------

FIVE_FEET = "Trochee, Spondee, Dactyl, Trochee, Trochee"


@pytest.mark.parametrize(
    ("gold", "prediction", "expected"),
    [
        # all correct, lowercase both, strip each name, with or without spaces after commas
        (FIVE_FEET, "trochee,spondee,dactyl,trochee,trochee", 1.0),
        (FIVE_FEET, "  TROCHEE , Spondee,dactyl ,trochee,  trochee ", 1.0),
        # `*` removed from the prediction
        (FIVE_FEET, "**trochee, spondee, dactyl, trochee, trochee**", 1.0),
        # score = correct positions / number of gold feet
        (FIVE_FEET, "trochee, cretic, dactyl, trochee, bacchius", 3 / 5),
        # parallel walk: a shifted list gets no credit for the shifted names
        (FIVE_FEET, "spondee, dactyl, trochee, trochee, trochee", 2 / 5),
        # the walk stops at the shorter list: extra predicted feet cost nothing ...
        (FIVE_FEET, "trochee, spondee, dactyl, trochee, trochee, spondee, dactyl", 1.0),
        (FIVE_FEET, "iamb, spondee, iamb, spondee, spondee, trochee", 1 / 5),
        # ... and missing ones count as wrong (denominator = gold feet)
        (FIVE_FEET, "trochee, spondee", 2 / 5),
        # a list not separated by commas is one (wrong) name
        (FIVE_FEET, "trochee spondee dactyl trochee trochee", 0.0),
        ("dactyl, dactyl, dactyl, pyrrhic", "dactyl, cretic, dactyl, pyrrhic", 3 / 4),
        # multi-word foot names
        (
            "great ionic, great ionic, dichoree, spondee",
            "great ionic, small ionic, dichoree, x",
            2 / 4,
        ),
        (FIVE_FEET, "", 0.0),
        (FIVE_FEET, None, 0.0),
    ],
)
def test_feet(gold: str, prediction: str | None, expected: float) -> None:
    assert score_item("feet", [gold], "english", prediction) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("gold_name", "pred_name"),
    [
        ("dactyl", "dactylus"),
        ("dactylus", "dactyl"),
        ("iambus", "iamb"),
        ("iamb", "iambus"),
        ("spondee", "spondaeus"),
        ("spondee", "spondeus"),
        ("spondaeus", "spondeus"),
        ("trochee", "trochaeus"),
        ("trochee", "trocheus"),
        ("trochaeus", "trocheus"),
        ("amphibrac", "amphibrach"),
        ("choriamb", "choriambus"),
        ("choriambus", "choriamb"),
        ("tribrac", "tribrach"),
        ("Spondee", "SPONDEUS"),
    ],
)
def test_feet_synonyms(gold_name: str, pred_name: str) -> None:
    assert FEET.score([gold_name], "english", pred_name) == 1.0


@pytest.mark.parametrize(
    ("gold_name", "pred_name"),
    [
        ("dactyl", "spondee"),  # different feet
        ("iambus", "trochee"),
        ("anapest", "anapaest"),  # not in the synonym sets
        ("small ionic", "ionic"),
        ("second epitrit", "epitrite"),
        ("spondee", "spondees"),
    ],
)
def test_feet_non_synonyms(gold_name: str, pred_name: str) -> None:
    assert FEET.score([gold_name], "english", pred_name) == 0.0


# --- dispatch and signatures -----------------------------------------------------------------


def test_translation_is_not_an_item_score() -> None:
    with pytest.raises(ValueError, match="BLEU"):
        score_item("translation", ["a"], "english", "a")


def test_unknown_task() -> None:
    with pytest.raises(ValueError, match="unknown task"):
        score_item("essay", ["a"], "english", "a")


def test_signatures() -> None:
    assert set(METRICS) == {"multiple_choice", "short_answer", "feet", "meter"}
    sigs = {str(m.signature) for m in (*METRICS.values(), EXACT_MATCH_MACRONS)}
    assert len(sigs) == 5  # every variant is distinguishable
    assert str(EXACT_MATCH.signature).startswith("exact_match|lc|")
    assert "latin:unidecode+j>i+v>u" in str(EXACT_MATCH.signature)
    assert "unidecode" not in str(EXACT_MATCH_MACRONS.signature)
    for metric in (*METRICS.values(), EXACT_MATCH_MACRONS):
        assert str(metric.signature).endswith(f"|version:{respondeoqa_eval.__version__}")
        assert dict(metric.signature.fields)["version"] == respondeoqa_eval.__version__
