"""How a verified entry's run is described in its detail: the request it answered and the full
provenance of the run (pure; every value is plain text)."""

from __future__ import annotations

from ..jobs.flavors import FLAVORS, PRICE_SOURCE, billed_cost, billed_minutes, money
from ..rows import coverage_label
from ..store.evaluation import Evaluation

EVALUATED_BY = "the leaderboard (verified)"
ENDPOINTS = {
    "started": "started by the worker at this revision",
    "given": "the operator's own endpoint (revision as requested)",
}


def _sampling(ev: Evaluation) -> str:
    if ev.temperature == 0:
        return f"greedy (temperature 0), seed {ev.seed}"
    top_p = "" if ev.top_p is None else f", top-p {ev.top_p:g}"
    return f"{ev.preset}: temperature {ev.temperature:g}{top_p}, seed {ev.seed}"


def _tokens(ev: Evaluation) -> str:
    if ev.prompt_tokens is None or ev.completion_tokens is None:
        return "not counted by the engine"
    return (
        f"{ev.prompt_tokens:,} prompt + {ev.completion_tokens:,} generated (the engine's own "
        "counts)"
    )


def _job(ev: Evaluation) -> list[tuple[str, str]]:
    """A run on Hugging Face Jobs: its hardware, wall time and cost as billed."""
    if not ev.hardware or ev.price_per_hour is None or ev.job_seconds is None:
        return []
    known = FLAVORS.get(ev.hardware)
    name = f"{ev.hardware} ({known.label})" if known else ev.hardware
    minutes = billed_minutes(ev.job_seconds)
    return [
        ("Hardware", f"{name}, a Hugging Face Job"),
        (
            "Job wall time",
            f"{ev.job_seconds:,.0f} s from its start to its results: {minutes:,} billed min",
        ),
        (
            "Cost",
            f"{money(billed_cost(ev.job_seconds, ev.price_per_hour))} ({minutes:,} min x "
            f"{money(ev.price_per_hour)}/h, {PRICE_SOURCE})",
        ),
    ]


def evaluation_fields(ev: Evaluation) -> list[tuple[str, str]]:
    """(field, value) rows of a verified entry's run, for its detail."""
    return [
        ("Evaluated by", EVALUATED_BY),
        ("Request", f"{ev.request} (Request an evaluation page)"),
        ("Hub model", ev.model),
        ("Model revision", ev.revision),
        ("Licence", ev.licence or "not stated on the Hub"),
        ("Engine", f"{ev.engine} {ev.engine_version}".strip()),
        ("Engine was", ENDPOINTS.get(ev.endpoint, ev.endpoint)),
        ("Sampling", _sampling(ev)),
        (
            "Token budget",
            f"{ev.max_new_tokens:,} new tokens per item"
            + (" (reasoning model)" if ev.reasoning else ""),
        ),
        ("Prompt version", ev.prompt_version),
        ("Runner version", ev.runner_version),
        ("Run covered", f"{ev.items:,} items: {coverage_label(ev.run_sources)}"),
        ("Empty answers", f"{ev.empty:,}"),
        ("Tokens", _tokens(ev)),
        *_job(ev),
        ("Answering time", f"{ev.seconds:,.0f} s ({ev.started} to {ev.finished})"),
    ]
