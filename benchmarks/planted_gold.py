"""A planted-error benchmark for the suspected-gold-error flags (docs/item-analysis.md, whose
figures it prints; tests/test_planted_gold.py runs one seed of it as a smoke test and checks the
oracles on constructed cases).

    python benchmarks/planted_gold.py [--seeds 12-36] [--traps] [--none] [--near-feet]
        [--entries N] [--strength] [--oracle] [--cut C] [--key-weight W]

run from the checkout with the package importable (the dev install, `pip install -e .`, or
`PYTHONPATH=evaluator`); it finds tests/synthetic.py itself. The report seeds (the default)
take about 40 s a variant on a 2-core machine, `--oracle` about eight minutes per 12 seeds.

Gold: the public short-answer, feet and meter items (the gold loader's files, read at run
time) and synthetic multiple-choice items shaped like Certamen's and NLE's (tests/synthetic.py:
multiple choice is only in the private sources), with 3, 4 or 5 options (`OPTIONS`). Errors
are planted in a copy of it: content errors (a multiple-choice gold becomes another option's
letter, a short answer another public word of its language, a feet gold gets one foot
changed) and broken answer formats (a letter after the item's last option, a two-word short
answer); the original gold stays the "true" answer.

Entries: ten synthetic entries (`--entries` for more) of graded strength by task, from the
paper's published results (`STRONGEST`, `SPREAD`; Rasch abilities, item difficulties normal
with sd 1.2). An entry that knows an item gives its true answer. One that does not answers
nothing now and then, or picks a wrong answer from the item's own distractor attractiveness,
drawn per item from a Dirichlet(1) (multiple choice: over its distractors, with a blind guess
over every option a quarter of the time; short answers: three plausible wrong words of the
language or a word of its own; feet: each foot from that position's own attractiveness over
the 13 listed feet, so as far off as the paper's scansion scores say (`near_feet`: the earlier
benchmark's near misses, two plausible misreadings of the line or feet changed at random);
meter: the line shuffled). So items hard for every entry, whose wrong answers agree by
chance on an attractive distractor, are in the benchmark with no error planted.

The harder variant (`traps`) adds items from which answers alone cannot tell a gold error:
a share of the multiple-choice and short-answer items are very hard and have one
overwhelmingly attractive distractor that almost every entry picks.

Seeds 0-11 calibrate (`CALIBRATION_SEEDS`: the flag's constants were chosen on them), seeds
12-35 report (`REPORT_SEEDS`: the figures of docs/item-analysis.md). `oracle_posteriors`,
`oracle_posteriors_short` and `oracle_posteriors_feet` are the bounds: the multiple-choice,
short-answer and feet posteriors under this simulation's own model. `python
benchmarks/planted_gold.py` prints the figures (`--help`: the options).

Deterministic: every draw comes from `random.Random` (numpy's generator for the oracle)
seeded with the seed.
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # synthetic

import numpy as np
from respondeoqa_eval.analysis.items import (
    AGREE,
    GOLD_FORMAT,
    ItemAnalysis,
    Thresholds,
    analyze_items,
)
from respondeoqa_eval.data.breakdowns import groups_of
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.metrics import METRICS, score_item
from respondeoqa_eval.metrics.feet import LISTED_FEET, canonical, feet, read_feet
from respondeoqa_eval.report.model import ItemResult
from respondeoqa_eval.scoring.answer_format import gold_format_problem
from synthetic import write_private

ENTRIES = 10
"""Entries on the benchmark's board (`--entries` changes it)."""
DIFFICULTY_SD = 1.2
"""Item difficulties (logits) are normal with mean 0 and this sd, for every task."""
STRONGEST = {"multiple_choice": 0.913, "short_answer": 0.692, "feet": 0.25, "meter": 0.25}
"""Per task, the share of items the strongest entry knows (gives the true answer to), over the
task's items, from the best of the paper's three models on it (PROTOCOL 6; `python
benchmarks/planted_gold.py --strength` prints the accuracies). Multiple choice: o3-mini's 91.8%
accuracy, less the items an entry that does not know guesses right (`_wrong_answer`: 95%
answer, a quarter of them blindly, 1/k right, mean 1/k 0.257 over `OPTIONS`: 0.061), so (0.918
- 0.061) / (1 - 0.061) = 0.913 known. Short answers: the paper publishes none by task, so from
its overall non-translation accuracy less its multiple choice and scansion, weighted by the
items (1,171 multiple choice, 5,271 short answers, 122 scansion; PROTOCOL 1): 69.2% (LLaMa
3.3), 64.1% (QwQ), 64.5% (o3-mini). Feet and meter: the scansion content's 25.0% (o3-mini; the
paper's feet score gives partial credit, so its share of wholly right answers is lower still)."""
SPREAD = math.log(0.90 / 0.10) - math.log(0.35 / 0.65)
"""Logits from the strongest entry down to the weakest, on every task (the entries evenly
spaced between): the earlier benchmark's spread (90% to 35% on an item of middle difficulty),
kept so that only each task's level moved to the published one (the paper publishes only
strong models). The weakest entry then knows about 51% of multiple-choice items (accuracy
0.54, twice the blind guess's 0.26), 20% of short answers, 3% of feet and meter lines."""


def _mean_right(ability: float) -> float:
    """The share of items an entry of `ability` knows, over the difficulty prior (midpoint rule
    on +-6 sd)."""
    steps = 600
    total = weight = 0.0
    for i in range(steps):
        z = -6.0 + 12.0 * (i + 0.5) / steps
        w = math.exp(-0.5 * z * z)
        total += w / (1 + math.exp(DIFFICULTY_SD * z - ability))
        weight += w
    return total / weight


def _ability_for(share: float) -> float:
    """The ability whose `_mean_right` is `share` (bisection)."""
    low, high = -12.0, 12.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if _mean_right(mid) < share else (low, mid)
    return (low + high) / 2


def abilities(entries: int = ENTRIES) -> dict[str, list[float]]:
    """Task -> the entries' abilities, weakest first: the strongest at `STRONGEST`, the weakest
    `SPREAD` logits below it."""
    out = {}
    for task, share in STRONGEST.items():
        top = _ability_for(share)
        out[task] = [top - SPREAD * (entries - 1 - e) / (entries - 1) for e in range(entries)]
    return out


PLANTED = {"multiple_choice": 5, "short_answer": 3, "feet": 2}
"""Content errors planted per task."""
BROKEN = ("multiple_choice", "short_answer")
"""Broken answer formats planted (one item each): the gold format rule's to catch."""
TRAP_SHARE = 0.04
"""In the `traps` variant: the share of multiple-choice and short-answer items that are traps."""


OPTIONS = (4, 3, 4, 5, 4)
"""Options of the synthetic multiple-choice items, in turn (a fifth with 3, a fifth with 5)."""


def _options(r: Record, k: int, at: int) -> Record:
    """Item `r` with `k` options, its gold the `at`-th letter (mod k: every letter the gold
    equally often, as in a balanced key)."""
    letters = "ABCDE"[:k]
    options = [f"{c}: option {c} of {r.id}" for c in letters]
    gold = letters[at % k] + r.answers[0][1:]
    return dataclasses.replace(r, multiple_choice_options=options, answers=[gold])


def benchmark_gold(folder: Path) -> list[Record]:
    """The benchmark's items: public short answers, feet and meter, synthetic multiple choice
    (with 3, 4 or 5 options: `OPTIONS`)."""
    write_private(folder, with_public=True, n_mc=240, n_sa=1, n_tr=1, n_nle=40)
    records = read_folder(folder).records
    mc = [r for r in records if r.task == "multiple_choice" and r.multiple_choice_options]
    n = len(OPTIONS)
    mc = [_options(r, OPTIONS[i % n], i // n) for i, r in enumerate(mc)]
    public = [
        r for r in records if r.task in ("short_answer", "feet", "meter") and not r.is_private
    ]
    return mc + public


@dataclass(frozen=True)
class Planted:
    """A copy of the gold with errors planted: `gold` (id -> record, planted ones changed),
    `true` (id -> the answer the planted gold lacks)."""

    gold: Mapping[str, Record]
    true: Mapping[str, str]


def _words(records: Sequence[Record]) -> dict[str, list[str]]:
    """Short-answer golds by answer language (the pool of plausible wrong words)."""
    words: dict[str, list[str]] = {}
    for r in records:
        if r.task == "short_answer":
            words.setdefault(r.answer_language, []).append(r.answers[0])
    return words


def _changed_foot(rng: random.Random, gold: str) -> str:
    names = [f.strip() for f in gold.split(",")]
    at = rng.randrange(len(names))
    # another foot, not another spelling of the same one (choriambus is the listed choriamb)
    names[at] = rng.choice([f for f in LISTED_FEET if canonical(f) != canonical(names[at].lower())])
    return ", ".join(names)


def plant(
    records: list[Record],
    seed: int,
    planted: Mapping[str, int] = PLANTED,
    broken: Sequence[str] = BROKEN,
) -> Planted:
    rng = random.Random(f"plant:{seed}")
    words = _words(records)
    gold = {r.id: r for r in records}
    true: dict[str, str] = {}
    kinds = [(task, False) for task, n in planted.items() for _ in range(n)]
    kinds += [(task, True) for task in broken]
    for task, is_broken in kinds:
        r = rng.choice([r for r in records if r.task == task and r.id not in true])
        old = r.answers[0]
        if task == "multiple_choice":
            letters = [o[:1] for o in r.multiple_choice_options]
            beyond = "ABCDEF"[len(letters)]  # the letter after the item's last option
            new = beyond if is_broken else rng.choice([c for c in letters if c != old[:1]])
        elif task == "short_answer":
            other = rng.choice([w for w in words[r.answer_language] if w.lower() != old.lower()])
            new = f"{old} {other}" if is_broken else other
        else:
            new = _changed_foot(rng, old)
        gold[r.id] = dataclasses.replace(r, answers=[new])
        true[r.id] = old
    return Planted(gold, true)


def _dirichlet(rng: random.Random, n: int) -> list[float]:
    draws = [rng.gammavariate(1.0, 1.0) for _ in range(n)]
    return [d / sum(draws) for d in draws]


def _wrong_answer(rng: random.Random, r: Record, e: int, lures: list[str], weights: list[float],
                  trap: bool) -> str | None:  # fmt: skip
    """What an entry that does not know item `r` answers (module docstring)."""
    gold = r.answers[0]
    if r.task == "multiple_choice":
        if rng.random() < 0.05:
            return None
        if not trap and rng.random() < 0.25:
            return rng.choice([o[:1] for o in r.multiple_choice_options])
        return rng.choices(lures, weights)[0]
    if r.task == "short_answer":
        roll = rng.random()
        if roll < (0.0 if trap else 0.15):
            return None
        if roll < (1.0 if trap else 0.6):
            return rng.choices(lures, weights)[0]
        return f"{gold[:3]}ix{e}{rng.randrange(3)}"
    if r.task == "feet":  # near misses (`near_feet`; far off: `_far_feet`)
        if rng.random() < 0.5:
            return rng.choices(lures, weights)[0]
        names = [f.strip() for f in gold.split(",")]
        for _ in range(rng.choice((1, 2))):
            names[rng.randrange(len(names))] = rng.choice(LISTED_FEET)
        return ", ".join(names)
    line = gold.split()
    rng.shuffle(line)
    return " ".join(line)


def simulate(
    records: list[Record],
    gold: Mapping[str, Record],
    seed: int,
    traps: bool = False,
    n_entries: int = ENTRIES,
    near_feet: bool = False,
) -> dict[str, list[ItemResult]]:
    """The entries' per-item results (entry name -> ItemResults) against `gold`: the entries
    answer from `records`' (true) answers; `near_feet`: the earlier benchmark's wrong feet
    answers (`FEET`)."""
    rng = random.Random(f"entries:{seed}")
    words = _words(records)
    by_task = abilities(n_entries)
    entries: dict[str, list[ItemResult]] = {f"entry-{e}": [] for e in range(n_entries)}
    for r in records:
        true = r.answers[0]
        hardness = rng.gauss(0.0, DIFFICULTY_SD)
        if r.task == "multiple_choice":
            lures = [o[:1] for o in r.multiple_choice_options if o[:1] != true[:1]]
        elif r.task == "short_answer":
            lures = rng.sample([w for w in words[r.answer_language] if w != true], 3)
        elif r.task == "feet":
            lures = [_changed_foot(rng, true) for _ in range(2)] if near_feet else []
        else:
            lures = [""]
        far = r.task == "feet" and not near_feet
        weights = _dirichlet(rng, len(lures)) if lures else []
        # far off: each foot position's attractiveness over the listed feet
        positions = [_dirichlet(rng, len(LISTED_FEET)) for _ in true.split(",")] if far else []
        trap = traps and r.task in BROKEN and rng.random() < TRAP_SHARE
        if trap:  # very hard, and almost every entry that does not know picks lure 0
            hardness += 4.0
            weights = [0.9] + [0.1 / (len(lures) - 1)] * (len(lures) - 1)
        scored = gold[r.id]
        for e, ability in enumerate(by_task[r.task]):
            knows = rng.random() < 1 / (1 + math.exp(hardness - ability))
            if knows:
                answer = true
            elif far:
                answer = ", ".join(rng.choices(LISTED_FEET, w)[0] for w in positions)
            else:
                answer = _wrong_answer(rng, r, e, lures, weights, trap)
            if r.task == "multiple_choice" and answer:
                answer = answer[:1]
            score = score_item(r.task, scored.answers, r.answer_language, answer)
            entries[f"entry-{e}"].append(
                ItemResult(
                    r.id, r.question_id, r.question_language, r.task, r.source,
                    r.question_content, answer, score, False, groups_of(r),
                )
            )  # fmt: skip
    return entries


@dataclass(frozen=True)
class Outcome:
    """One run: the planted items, the flagged items (any reason), and the analysis."""

    planted: frozenset[str]
    flagged: frozenset[str]
    analysis: ItemAnalysis

    @property
    def found(self) -> int:
        return len(self.planted & self.flagged)


def run(
    records: list[Record],
    seed: int,
    planted: Mapping[str, int] = PLANTED,
    broken: Sequence[str] = BROKEN,
    traps: bool = False,
    thresholds: Thresholds | None = None,
    n_entries: int = ENTRIES,
    near_feet: bool = False,
) -> Outcome:
    """Plant errors (none with `planted={}, broken=()`), simulate the entries, analyse."""
    copy = plant(records, seed, planted, broken)
    entries = simulate(records, copy.gold, seed, traps, n_entries, near_feet)
    analysis = analyze_items(entries, copy.gold, thresholds=thresholds or Thresholds())
    flagged = frozenset(
        it.id for it in analysis.items if AGREE in it.reasons or GOLD_FORMAT in it.reasons
    )
    return Outcome(frozenset(copy.true), flagged, analysis)


def figures(outcomes: list[Outcome]) -> tuple[float, float]:
    """(precision, recall) pooled over runs."""
    found = sum(o.found for o in outcomes)
    flagged = sum(len(o.flagged) for o in outcomes)
    planted = sum(len(o.planted) for o in outcomes)
    return (found / flagged if flagged else 1.0), found / planted


CALIBRATION_SEEDS = range(12)
"""The seeds the flag's constants were chosen on (`Thresholds.flag_posterior`, `key_weight`)."""
REPORT_SEEDS = range(12, 36)
"""The seeds the docs' figures are measured on (none of them used to choose a constant)."""


def _knowing_on_grid(ability: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The oracles' difficulty integral: the true prior's log weights on a grid of item
    difficulties, and each entry's chance of knowing the item at each (entries x grid)."""
    grid = np.linspace(-5.0, 9.0, 141)
    log_prior = -0.5 * (grid / DIFFICULTY_SD) ** 2
    log_prior -= np.logaddexp.reduce(log_prior)
    return log_prior, 1 / (1 + np.exp(grid[None, :] - np.asarray(ability)[:, None]))


def oracle_posteriors(
    records: list[Record], seed: int, draws: int = 500, n_entries: int = ENTRIES
) -> tuple[list[float], list[float]]:
    """The multiple-choice items' P(gold wrong) under the simulation's own model, the best any
    test can do on them (an upper bound for the flags): the entries' true abilities, the true
    difficulty prior, the answering process of `_wrong_answer` with its Dirichlet(1)
    attractiveness integrated by `draws` samples, and the true rate of planted errors.
    Returns (posteriors of planted content errors, of sound items); broken formats left out."""
    copy = plant(records, seed)
    entries = simulate(records, copy.gold, seed, n_entries=n_entries)
    answers = list(zip(*(entries[name] for name in entries), strict=True))
    log_prior, knows = _knowing_on_grid(abilities(n_entries)["multiple_choice"])
    weights = {k: np.random.default_rng(seed).dirichlet(np.ones(k - 1), draws) for k in (3, 4, 5)}
    n_mc = sum(r.task == "multiple_choice" for r in records)
    rate = PLANTED["multiple_choice"] / n_mc
    planted: list[float] = []
    sound: list[float] = []
    for r, results in zip(records, answers, strict=True):
        letters = [o[:1] for o in r.multiple_choice_options]
        keyed = copy.gold[r.id].answers[0][:1]
        if r.task != "multiple_choice" or keyed not in letters:
            continue
        k = len(letters)
        given = [it.extracted for it in results]
        log_like = {}
        for truth in letters:
            lures = [c for c in letters if c != truth]
            if_known = np.array([float(a == truth) for a in given])
            if_not = np.empty((len(given), draws))
            for e, a in enumerate(given):
                if_not[e] = 0.05 if a is None else 0.95 * 0.25 / k
                if a in lures:
                    if_not[e] += 0.95 * 0.75 * weights[k][:, lures.index(a)]
            each = (
                knows[:, :, None] * if_known[:, None, None]
                + (1 - knows[:, :, None]) * if_not[:, None, :]
            )
            log_like[truth] = np.logaddexp.reduce(
                np.log(each).sum(axis=0) + log_prior[:, None], axis=None
            )
        log_right = log_like[keyed] + math.log(1 - rate)
        log_wrong = np.logaddexp.reduce(
            [log_like[c] + math.log(rate / (k - 1)) for c in letters if c != keyed]
        )
        posterior = float(1 / (1 + np.exp(log_right - log_wrong)))
        (planted if r.id in copy.true else sound).append(posterior)
    return planted, sound


def _log_feet_like(
    given: Sequence[tuple[str, ...]],
    truth: tuple[str, ...] | None,
    log_prior: np.ndarray,
    knows: np.ndarray,
    width: int,
) -> float:
    """log P(the entries' feet | the line's `width` true feet are `truth`; None: a line no
    entry gives), summed over which of the entries giving `truth` exactly know it; the others'
    feet per position a Dirichlet(1)-multinomial over the listed feet (the same whatever the
    truth)."""
    givers = [e for e, line in enumerate(given) if line == truth]
    terms = []
    for mask in range(1 << len(givers)):
        know = {g for b, g in enumerate(givers) if mask >> b & 1}
        per_d = sum(
            np.log(knows[e]) if e in know else np.log1p(-knows[e]) for e in range(len(given))
        )
        rest = [line for e, line in enumerate(given) if e not in know]
        log_dm = 0.0
        for at in range(width):
            counts = Counter(line[at] if at < len(line) else "" for line in rest)
            log_dm += math.lgamma(len(LISTED_FEET)) - math.lgamma(len(LISTED_FEET) + len(rest))
            log_dm += sum(math.lgamma(1 + c) for c in counts.values())
        terms.append(np.logaddexp.reduce(per_d + log_prior) + log_dm)
    return float(np.logaddexp.reduce(terms))


def feet_posterior(
    given: Sequence[tuple[str, ...]],
    keyed: tuple[str, ...],
    log_prior: np.ndarray,
    knows: np.ndarray,
    rate: float,
) -> float:
    """P(the gold `keyed` is wrong | the entries' feet `given`, each as `canonical`) under the
    simulation's far-off answering (`oracle_posteriors_feet`): the gold, or the gold with one
    foot changed to another listed foot (each alternative at `rate` / their number). Every
    alternative nobody gives has the same likelihood: no entry knows it."""
    listed = {canonical(f) for f in LISTED_FEET}
    alternatives = len(keyed) * (len(listed) - 1)
    given_alts = {
        line
        for line in given
        if len(line) == len(keyed)
        and sum(a != b for a, b in zip(line, keyed, strict=True)) == 1
        and all(a in listed for a, b in zip(line, keyed, strict=True) if a != b)
    }
    log_alt = [_log_feet_like(given, line, log_prior, knows, len(keyed)) for line in given_alts]
    if alternatives > len(given_alts):
        nobody = _log_feet_like(given, None, log_prior, knows, len(keyed))
        log_alt.append(nobody + math.log(alternatives - len(given_alts)))
    log_wrong = float(np.logaddexp.reduce(log_alt)) + math.log(rate / alternatives)
    log_right = _log_feet_like(given, keyed, log_prior, knows, len(keyed)) + math.log(1 - rate)
    return float(1 / (1 + np.exp(log_right - log_wrong)))


def oracle_posteriors_feet(
    records: list[Record], seed: int, n_entries: int = ENTRIES
) -> tuple[list[float], list[float]]:
    """The feet items' P(gold wrong) under the simulation's own model (far-off wrong answers,
    the default): the bound for any test on them, as `oracle_posteriors` is for multiple
    choice. An entry that knows a line gives its true feet; one that does not draws each foot
    from that position's Dirichlet(1) attractiveness over the 13 listed feet, the same whatever
    the truth. So only the entries that give a candidate line exactly tell the candidates
    apart: the gold, or the gold with one foot changed (the planting: a position and another
    listed foot at random, at the true rate), each integrated over the item's difficulty and
    over which of the entries giving it know it (`feet_posterior`). Returns (posteriors of
    planted feet errors, of sound feet items)."""
    copy = plant(records, seed)
    entries = simulate(records, copy.gold, seed, n_entries=n_entries)
    answers = list(zip(*(entries[name] for name in entries), strict=True))
    log_prior, knows = _knowing_on_grid(abilities(n_entries)["feet"])
    rate = PLANTED["feet"] / sum(r.task == "feet" for r in records)
    planted: list[float] = []
    sound: list[float] = []
    for r, results in zip(records, answers, strict=True):
        if r.task != "feet":
            continue
        keyed = tuple(canonical(f) for f in feet(copy.gold[r.id].answers[0]))
        given = [tuple(canonical(f) for f in read_feet(it.extracted or "")) for it in results]
        posterior = feet_posterior(given, keyed, log_prior, knows, rate)
        (planted if r.id in copy.true else sound).append(posterior)
    return planted, sound


SHORT_NONE, SHORT_LURE, SHORT_OWN = 0.15, 0.45, 0.40
"""What a short-answer entry that does not know answers (`_wrong_answer`): nothing, one of the
item's lures, a string of its own."""
SHORT_LURES = 3
"""Lures per short-answer item (`simulate`), their weights Dirichlet(1)."""


def _log_lure_draws(forced: Sequence[int], singles: int) -> float:
    """log P(the answers of the entries that do not know, other than nothing, fall into the
    observed groups): `forced` the sizes of the groups that must be lure draws (an answer given
    twice or more: own strings never agree), `singles` the answers given once (a lure or an own
    string each). The lures' strings are unknown, so the sum runs over which groups are lures
    and which lure slot each is (distinct groups, distinct slots); the Dirichlet(1) weights are
    integrated in closed form, E[prod w_j^n_j] = Gamma(L) prod n_j! / Gamma(L + n) for L
    slots and n lure draws in all, the same for every assignment of groups to slots."""
    if len(forced) > SHORT_LURES:
        return -math.inf
    terms = []
    for t in range(min(singles, SHORT_LURES - len(forced)) + 1):  # singles that are lures
        used, drawn = len(forced) + t, sum(forced) + t
        terms.append(
            math.log(math.comb(singles, t) * math.perm(SHORT_LURES, used))
            + drawn * math.log(SHORT_LURE)
            + (singles - t) * math.log(SHORT_OWN)
            + math.lgamma(SHORT_LURES)
            + sum(math.lgamma(n + 1) for n in forced)
            - math.lgamma(SHORT_LURES + drawn)
        )
    return float(np.logaddexp.reduce(terms))


def short_posterior(
    given: Sequence[str],
    gold: str,
    log_prior: np.ndarray,
    knows: np.ndarray,
    rate: float,
    words: int,
) -> float:
    """P(the gold is wrong) of one short-answer item under the simulation's model, from the
    entries' answer keys `given` ("" for no answer) and the gold's key `gold`; `log_prior` and
    `knows` from `_knowing_on_grid` (the entries' true abilities, in `given`'s order), `rate`
    the prior share of planted errors, `words` the number of words the planted gold is drawn
    from (its language's public golds).

    What the oracle sees is which entries agree with which and with the gold, not the strings
    (an own string and a lure are taken as equally likely to be any given string: their form is
    no evidence). Hypotheses: the gold is right (the entries that give it know the item); the
    gold is wrong and the truth is answer X (for each answer X given by entries: they know, the
    others do not); the gold is wrong and no entry knows. An entry that does not know answers
    nothing, a lure draw or an own string (`SHORT_NONE`, `SHORT_LURE`, `SHORT_OWN`;
    `_log_lure_draws`), never the truth (the lures exclude it). A wrong gold is another public
    word, which entries give only if it is one of the lures: their group is then a lure draw,
    and the gold that lure's word by a coincidence of about 1 / `words`. Approximations: lures taken as three distinct strings, none
    with the truth's key (the public golds repeat a few words and spellings, so a lure can
    repeat or match the truth by key: rare, left out); under "the gold is right" an entry that
    gives it knows (a lure with the gold's key: the same rarity). The difficulty is integrated
    on `_knowing_on_grid`'s grid, the Dirichlet weights in closed form."""
    groups = Counter(a for a in given if a)
    nothing = sum(not a for a in given) * math.log(SHORT_NONE)
    log_knows, log_not = np.log(knows), np.log1p(-knows)

    def log_like(truth: str | None) -> float:
        """log P(the answers | the truth's key `truth`; None: a string no entry gave)."""
        knowing = np.array([bool(a) and a == truth for a in given])
        difficulty = np.logaddexp.reduce(
            log_prior + (knowing[:, None] * log_knows + (~knowing)[:, None] * log_not).sum(0)
        )
        rest = {a: n for a, n in groups.items() if a != truth}
        coincidence = 0.0
        forced = [n for a, n in rest.items() if n > 1 or a == gold]
        if gold in rest:  # a wrong gold that entries give: one of the lures
            coincidence = -math.log(words)
        singles = len(rest) - len(forced)
        return float(difficulty) + _log_lure_draws(forced, singles) + coincidence + nothing

    log_right = log_like(gold) + math.log(1 - rate)
    wrong = [log_like(a) for a in groups if a != gold] + [log_like(None)]
    log_wrong = float(np.logaddexp.reduce(wrong)) + math.log(rate)
    if log_right == log_wrong == -math.inf:
        raise ValueError(f"answers no hypothesis explains (more than {SHORT_LURES} lures)")
    return float(1 / (1 + np.exp(min(700.0, log_right - log_wrong))))


def oracle_posteriors_short(
    records: list[Record], seed: int, n_entries: int = ENTRIES
) -> tuple[list[float], list[float]]:
    """The short-answer items' P(gold wrong) under the simulation's own model (`short_posterior`:
    the entries' true abilities, the true difficulty prior, `_wrong_answer`'s answering process
    with its Dirichlet(1) lure weights integrated, the true rate of planted errors), answers
    grouped by the metric's key as the analysis groups them: the bound for any test on them.
    Returns (posteriors of planted content errors, of sound items); the broken format left
    out."""
    copy = plant(records, seed)
    entries = simulate(records, copy.gold, seed, n_entries=n_entries)
    answers = list(zip(*(entries[name] for name in entries), strict=True))
    log_prior, knows = _knowing_on_grid(abilities(n_entries)["short_answer"])
    key = METRICS["short_answer"].key
    words = {lang: len({key(w, lang) for w in ws}) for lang, ws in _words(records).items()}
    rate = PLANTED["short_answer"] / sum(r.task == "short_answer" for r in records)
    planted: list[float] = []
    sound: list[float] = []
    for r, results in zip(records, answers, strict=True):
        if r.task != "short_answer" or gold_format_problem(copy.gold[r.id]):
            continue
        lang = r.answer_language
        given = [key(it.extracted, lang) for it in results]
        gold = key(copy.gold[r.id].answers[0], lang)
        posterior = short_posterior(given, gold, log_prior, knows, rate, words[lang])
        (planted if r.id in copy.true else sound).append(posterior)
    return planted, sound


def strength(
    records: list[Record], seeds: range, n_entries: int = ENTRIES, near_feet: bool = False
) -> dict[str, str]:
    """Task -> each entry's accuracy (mean score, the paper's) and, where partial credit makes
    it differ, its share of wholly right answers, weakest first, over `seeds` with no error
    planted."""
    scores: dict[tuple[str, int], list[float]] = {}
    for seed in seeds:
        gold = {r.id: r for r in records}
        entries = simulate(records, gold, seed, n_entries=n_entries, near_feet=near_feet)
        for e in range(n_entries):
            for it in entries[f"entry-{e}"]:
                scores.setdefault((it.task, e), []).append(it.score)
    out = {}
    for task in STRONGEST:
        cells = []
        for e in range(n_entries):
            got = scores[task, e]
            cell = f"{sum(got) / len(got):.3f}"
            if task == "feet":
                cell += f" ({sum(x == 1 for x in got) / len(got):.3f} wholly right)"
            cells.append(cell)
        out[task] = ", ".join(cells)
    return out


def _main() -> None:
    """`python benchmarks/planted_gold.py [--seeds 12-36] [--traps] [--none] [--oracle]`: the
    figures per seed and pooled (docs/item-analysis.md). Run from the checkout with the package
    importable (`pip install -e .`, or `PYTHONPATH=evaluator`)."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=_main.__doc__)
    parser.add_argument("--seeds", default=f"{REPORT_SEEDS.start}-{REPORT_SEEDS.stop}")
    parser.add_argument("--traps", action="store_true", help="the traps variant")
    parser.add_argument("--none", action="store_true", help="plant no error")
    parser.add_argument(
        "--oracle", action="store_true", help="the multiple-choice, short-answer and feet bounds"
    )
    parser.add_argument("--entries", type=int, default=ENTRIES, help="entries on the board")
    parser.add_argument(
        "--near-feet", action="store_true", help="wrong feet answers near misses (the earlier)"
    )
    parser.add_argument(
        "--strength", action="store_true", help="each entry's accuracy by task (no error planted)"
    )
    parser.add_argument("--cut", type=float, help="flag at this posterior (not the default)")
    parser.add_argument("--key-weight", type=float, help="Thresholds.key_weight (not the default)")
    args = parser.parse_args()
    start, stop = map(int, args.seeds.split("-"))
    with tempfile.TemporaryDirectory() as tmp:
        records = benchmark_gold(Path(tmp) / "gold")
    if args.strength:
        figures_by_task = strength(records, range(start, stop), args.entries, args.near_feet)
        for task, line in figures_by_task.items():
            print(f"{task}: {line}")
        return
    if args.oracle:
        oracles = {
            "multiple choice": oracle_posteriors,
            "short answers": oracle_posteriors_short,
            "feet": oracle_posteriors_feet,
        }
        for name, oracle in oracles.items():
            planted_p: list[float] = []
            sound_p: list[float] = []
            for seed in range(start, stop):
                p, s = oracle(records, seed, n_entries=args.entries)
                planted_p += p
                sound_p += s
            for cut in (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3):
                found = sum(p >= cut for p in planted_p)
                false = sum(p >= cut for p in sound_p)
                print(
                    f"{name}: oracle cut-off {cut}: {found} of {len(planted_p)} found, "
                    f"{false} false"
                )
        return
    chosen = Thresholds()
    if args.cut is not None:
        chosen = dataclasses.replace(chosen, flag_posterior=args.cut)
    if args.key_weight is not None:
        chosen = dataclasses.replace(chosen, key_weight=args.key_weight)
    outcomes = []
    planted, broken = ({}, ()) if args.none else (PLANTED, BROKEN)
    for seed in range(start, stop):
        o = run(records, seed, planted, broken, args.traps, chosen, args.entries, args.near_feet)
        outcomes.append(o)
        by_task: dict[str, str] = {}
        false: Counter[str] = Counter()
        for it in o.analysis.items:
            if it.id in o.planted:
                mark = "+" if it.id in o.flagged else "-"
                by_task[it.task] = by_task.get(it.task, "") + mark
            elif it.id in o.flagged:
                false[it.task] += 1
        print(
            f"seed {seed}: {len(o.planted)} planted, {len(o.flagged)} flagged, {o.found} right, "
            f"{len(o.flagged) - o.found} false {dict(false)}; planted items found (+) / missed (-) "
            f"by task, the broken format among them: {by_task}"
        )
    if args.none:
        print(f"seeds {start}-{stop - 1}: {sum(len(o.flagged) for o in outcomes)} flagged")
        return
    precision, recall = figures(outcomes)
    print(f"seeds {start}-{stop - 1}: precision {precision:.3f}, recall {recall:.3f}")


if __name__ == "__main__":
    _main()
