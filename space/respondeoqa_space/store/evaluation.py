"""What a verified entry keeps about the run that produced it: the leaderboard's own evaluation.

An entry is *verified* when the operator's worker (`space/worker/`) produced its predictions on
the operator's serving engine, from an evaluation request: it carries an `Evaluation` (the
request, the Hub model and the exact revision evaluated, the sampling, the engine and its
version, the prompt and runner versions, the run's size and token counts). An uploaded entry
has none: it is self-reported. The evaluator version and gold fingerprint live on the entry
itself (they change when it is re-scored).

The record is private and written only by the Space and the operator, but every file read back
is still checked here field by field (`from_dict`): a record file that gets this wrong is not
an entry.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from respondeoqa_eval.data import SOURCES

from .fields import Fields

REQUEST_ID = re.compile(r"[0-9a-f]{12}")
MODEL_ID = re.compile(
    r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?/[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
)
COMMIT = re.compile(r"[0-9a-f]{40}")
ENDPOINTS = ("started", "given")
"""`started`: the worker started the engine itself at the exact revision; `given`: the
operator's own endpoint (its revision is the operator's word)."""
_TEXT = re.compile(r"[\w.+:@/ ()-]{0,80}")


class EvaluationError(ValueError):
    """An evaluation block that cannot be trusted; `str()` names the field."""


@dataclass(frozen=True)
class Evaluation:
    """How the leaderboard produced an entry's predictions (see the module docstring)."""

    request: str
    model: str
    revision: str
    preset: str
    temperature: float | None
    top_p: float | None
    seed: int | None
    max_new_tokens: int
    reasoning: bool
    engine: str
    engine_version: str
    endpoint: str
    prompt_version: str
    runner_version: str
    licence: str
    parameters: int | None
    run_sources: tuple[str, ...]  # every source the run answered (the entry may rank on a part)
    items: int  # items the run answered
    empty: int  # responses with no text at all
    prompt_tokens: int | None  # the engine's own counts, summed (None: it gave none)
    completion_tokens: int | None
    seconds: float  # wall time of the answering
    started: str
    finished: str
    # a run on Hugging Face Jobs (space/jobs/): its flavor, hourly price and time up to the
    # commit of its entries; "" / None for a run on the operator's own machine
    hardware: str = ""
    price_per_hour: float | None = None
    job_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["run_sources"] = list(self.run_sources)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Evaluation:
        """A checked evaluation block (EvaluationError names what is wrong)."""
        if not isinstance(data, dict):
            raise EvaluationError("evaluation: not an object")
        get = Fields(
            data,
            error=EvaluationError,
            text=_TEXT,
            text_what="not a short plain text",
            prefix="evaluation.",
        )
        sources = data.get("run_sources")
        if (
            not isinstance(sources, list)
            or not sources
            or any(s not in SOURCES for s in sources)
            or len(set(sources)) != len(sources)
        ):
            raise EvaluationError("evaluation.run_sources: not a list of sources")
        endpoint = get.text("endpoint")
        if endpoint not in ENDPOINTS:
            raise EvaluationError(f"evaluation.endpoint: one of {', '.join(ENDPOINTS)}")
        return cls(
            request=get.match("request", REQUEST_ID),
            model=get.match("model", MODEL_ID),
            revision=get.match("revision", COMMIT),
            preset=get.text("preset"),
            temperature=get.number("temperature", optional=True),
            top_p=get.number("top_p", optional=True),
            seed=get.integer("seed", optional=True),
            max_new_tokens=get.integer("max_new_tokens"),
            reasoning=get.flag("reasoning"),
            engine=get.text("engine"),
            engine_version=get.text("engine_version"),
            endpoint=endpoint,
            prompt_version=get.text("prompt_version"),
            runner_version=get.text("runner_version"),
            licence=get.text("licence"),
            parameters=get.integer("parameters", optional=True),
            run_sources=tuple(s for s in SOURCES if s in sources),
            items=get.integer("items"),
            empty=get.integer("empty"),
            prompt_tokens=get.integer("prompt_tokens", optional=True),
            completion_tokens=get.integer("completion_tokens", optional=True),
            seconds=get.number("seconds"),
            started=get.when("started"),
            finished=get.when("finished"),
            hardware=get.text("hardware"),
            price_per_hour=get.number("price_per_hour", optional=True),
            job_seconds=get.number("job_seconds", optional=True),
        )
