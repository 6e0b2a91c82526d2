"""One request as one Hugging Face Job: the image, the command, its environment and secrets,
its timeout and labels (`job_spec`), and what the Job's worker reads back of it (`JobRun`).

The Job runs the pinned vLLM image (`IMAGE`) with a short POSIX shell script (`SCRIPT`): note
the start time, install the Space's package (`respondeoqa-space`, which brings the evaluator) at the
dispatcher's own version (`package_spec`), run
`respondeoqa-space worker --once --request ID` with the dispatcher's claim (`--worker-id`)
and a `vllm serve` template with the flavor's tensor parallelism, then say, in one fixed line
and nothing of the engine's own words, whether the engine's log shows it ran out of GPU memory
(the engine's log stays inside the Job: it may quote prompts). The worker's arguments are the
script's positional parameters ("$@"): nothing the record holds passes through a shell.

The record's write token and the gold repo's read token go as Job secrets; the worker reads
the gold repo itself at run time, so private items exist only inside the Job.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from respondeoqa_eval import InputError

from .. import __version__
from ..config import ENV_GOLD_TOKEN
from ..requests.model import Request
from .flavors import Flavor

IMAGE = "vllm/vllm-openai:v0.11.0"
"""The pinned engine image (vLLM's official OpenAI-compatible server)."""

WORK_DIR = "respondeoqa-work"
"""The worker's folder, in the Job's working directory (a new container's: nothing of another
Job's run, whose local copy of the record a new record would not be applied over)."""
OOM_LINE = "respondeoqa-job: the engine ran out of GPU memory"
OOM_PATTERN = "CUDA out of memory|OutOfMemoryError|No available memory for the cache blocks"
SCRIPT = (
    'export RESPONDEOQA_JOB_STARTED="$(date +%s)"\n'
    'pip install --no-cache-dir --quiet "$RESPONDEOQA_PACKAGE" || exit 3\n'
    'respondeoqa-space "$@"\n'
    "status=$?\n"
    f'if grep -qsE \'{OOM_PATTERN}\' "$RESPONDEOQA_WORK"/requests/*/engine.log "$RESPONDEOQA_WORK"/check/engine.log; then\n'
    f"  echo '{OOM_LINE}'\n"
    "fi\n"
    'exit "$status"\n'
)
SERVE = "vllm serve {{model}} --revision {{revision}} --tensor-parallel-size {gpus} --port {{port}}"

ENV_PACKAGE = "RESPONDEOQA_PACKAGE"
ENV_WORK = "RESPONDEOQA_WORK"
ENV_FLAVOR = "RESPONDEOQA_JOB_FLAVOR"
ENV_PRICE = "RESPONDEOQA_JOB_PRICE"
ENV_STARTED = "RESPONDEOQA_JOB_STARTED"

LABEL_RECORD = "respondeoqa-record"
LABEL_REQUEST = "respondeoqa-request"
LABEL_WORKER = "respondeoqa-worker"
WORKER_PREFIX = "job-"
"""The claims the dispatcher makes are held by `job-<hex>` workers (one per Job)."""


def package_spec(spec: str | None = None) -> str:
    """What the Job installs: this package at the dispatcher's version, or the operator's
    own spec (a wheel URL, a git URL)."""
    return spec or f"respondeoqa-space=={__version__}"


def record_label(repo: str) -> str:
    """The label value of the record repo's Jobs (label values are kept to [0-9a-f])."""
    return hashlib.sha256(repo.encode()).hexdigest()[:12]


def serve_template(flavor: Flavor) -> str:
    return SERVE.format(gpus=flavor.gpus)


def job_timeout(weights: int, items: int, max_new_tokens: int, flavor: Flavor) -> int:
    """Seconds a Job may run: the engine's start (15 min, plus 10 s per GB of weights to
    download and load) and every item generating its whole token budget at the flavor's
    assumed speed, with a quarter more; whole minutes."""
    start = 900 + 10 * weights / 1e9
    answering = items * max_new_tokens / flavor.tokens_per_second
    return int(math.ceil((start + answering) * 1.25 / 60) * 60)


def engine_timeout(weights: int) -> int:
    """Seconds the Job's worker lets vLLM take to start (download and load the weights)."""
    return int(900 + 10 * weights / 1e9)


@dataclass(frozen=True)
class JobSpec:
    """Everything `HfApi.run_job` is given for one request."""

    image: str
    command: list[str]
    env: dict[str, str]
    secrets: dict[str, str] = field(repr=False)
    flavor: str
    timeout: int
    labels: dict[str, str]


def job_spec(
    request: Request,
    worker: str,
    flavor: Flavor,
    timeout: int,
    *,
    repo: str,
    record_token: str,
    weights: int,
    lease: float,
    gold_repo: str | None = None,
    gold_token: str | None = None,
    hub_endpoint: str | None = None,
    space_url: str | None = None,
    package: str | None = None,
    image: str = IMAGE,
) -> JobSpec:
    """The Job that runs `request` under the claim of `worker` on `flavor`."""
    args = [
        "worker", "--repo", repo, "--once", "--request", request.id,
        "--worker-id", worker, "--lease", f"{lease:g}", "--work-dir", WORK_DIR,
        "--serve-command", serve_template(flavor),
        "--engine-timeout", str(engine_timeout(weights)),
        # the worker checks its engine before it runs (issue 27): in a Job, on the requested
        # model itself, so the Job downloads no second model and the check is that of this run
        "--check-model", request.model, "--check-revision", request.revision,
    ]  # fmt: skip
    if space_url:
        args += ["--space-url", space_url]
    env = {
        ENV_PACKAGE: package_spec(package),
        ENV_WORK: WORK_DIR,
        ENV_FLAVOR: flavor.name,
        ENV_PRICE: f"{flavor.price_per_hour:g}",
        "PYTHONUNBUFFERED": "1",
    }
    if gold_repo:
        env["RESPONDEOQA_GOLD_REPO"] = gold_repo
    if hub_endpoint:
        env["HF_ENDPOINT"] = hub_endpoint
    secrets = {"HF_TOKEN": record_token}
    if gold_token:
        secrets[ENV_GOLD_TOKEN] = gold_token
    return JobSpec(
        image=image,
        command=["sh", "-c", SCRIPT, "respondeoqa-job", *args],
        env=env,
        secrets=secrets,
        flavor=flavor.name,
        timeout=timeout,
        labels={
            LABEL_RECORD: record_label(repo),
            LABEL_REQUEST: request.id,
            LABEL_WORKER: worker,
        },
    )


_FLAVOR = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


@dataclass(frozen=True)
class JobRun:
    """What a worker inside a Job knows of its Job (the environment `job_spec` set): the
    flavor, its hourly price at launch, and when the Job's script started (UNIX seconds)."""

    flavor: str
    price_per_hour: float
    started: float

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> JobRun | None:
        """The Job's facts; None outside a Job; InputError naming a variable that is wrong."""
        env = os.environ if env is None else env
        flavor = env.get(ENV_FLAVOR, "").strip()
        if not flavor:
            return None
        if not _FLAVOR.fullmatch(flavor):
            raise InputError(f"${ENV_FLAVOR}: not a Jobs hardware flavor")
        try:
            price = float(env.get(ENV_PRICE, ""))
            started = float(env.get(ENV_STARTED, ""))
        except ValueError:
            raise InputError(f"${ENV_PRICE} and ${ENV_STARTED}: numbers expected") from None
        if not (0 <= price < 1000 and math.isfinite(started) and started > 0):
            raise InputError(f"${ENV_PRICE} or ${ENV_STARTED}: out of range")
        return cls(flavor, price, started)
