"""The Hugging Face Jobs hardware the dispatcher picks from, with prices, and the rules on it.

One table (`FLAVORS`): each flavor's GPUs, their memory, the Hub's hourly price and the
dispatcher's own planning figures (how many gigabytes of weights it is given, how fast it is
assumed to generate). Prices are those of the Hub's Jobs price table (`PRICE_SOURCE`, read on
`PRICE_CHECKED`); Jobs are billed per started minute while they start or run.

The rule (`flavor_for`): a model's weights in bytes (its parameters per dtype, from the Hub's
safetensors metadata: the precision counts, not only the parameter count) go to the first flavor
of `LADDER` that holds them: up to 16 GB of weights (8B at 16 bits) on one L4, up to 68 GB
(34B) on one A100 80 GB, up to 144 GB (72B) on two H200 with tensor parallelism 2, four H200
(tensor parallelism 4) only when a model ran out of memory on two. Jobs offers no H100
flavor: H200 (141 GB each) is its Hopper GPU. `next_up` is the one retry after an
out-of-memory Job.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

PRICE_SOURCE = "https://huggingface.co/docs/hub/jobs-pricing"
PRICE_CHECKED = "2026-12-01"


@dataclass(frozen=True)
class Flavor:
    """One Jobs hardware flavor as the dispatcher uses it."""

    name: str  # the Hub's flavor id (huggingface_hub.JobHardware)
    label: str  # as the Hub's price table names it
    gpus: int  # vLLM's --tensor-parallel-size
    gpu_memory_gb: int  # all GPUs together
    price_per_hour: float  # US dollars, the Hub's price table
    weights_gb: float  # the largest weights the dispatcher gives it (the rest: KV cache)
    tokens_per_second: float  # generated tokens per second assumed for a full batch (planning)


FLAVORS: dict[str, Flavor] = {
    f.name: f
    for f in (
        Flavor("l4x1", "1x Nvidia L4", 1, 24, 0.80, 16, 1200),
        Flavor("a100-large", "Nvidia A100 - large", 1, 80, 2.50, 68, 2000),
        Flavor("h200x2", "2x Nvidia H200", 2, 282, 10.00, 144, 3000),
        Flavor("h200x4", "4x Nvidia H200", 4, 564, 20.00, 288, 5000),
    )
}
LADDER = ("l4x1", "a100-large", "h200x2", "h200x4")
"""The order flavors are tried in; the last one is reached only by an out-of-memory retry."""

FIRST_CHOICE = LADDER[:-1]

DTYPE_BYTES = {
    "F64": 8, "I64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2,
    "U16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "I8": 1, "U8": 1, "BOOL": 1,
}  # fmt: skip
"""Bytes per parameter of each safetensors dtype (packed 4-bit weights are stored as I32/U8:
their bytes are what the GPU holds)."""


def weight_bytes(per_dtype: Mapping[str, int] | None, total: int | None) -> int | None:
    """The model's weights in bytes: its parameters per dtype (the Hub's safetensors
    metadata); 2 bytes per parameter of `total` when the dtypes are unknown; None when neither
    is known."""
    if per_dtype:
        return sum(int(n) * DTYPE_BYTES.get(str(d).upper(), 2) for d, n in per_dtype.items())
    return 2 * int(total) if total else None


def flavor_for(weights: int) -> Flavor | None:
    """The first flavor of the ladder that holds `weights` bytes (None: none does)."""
    for name in FIRST_CHOICE:
        if weights <= FLAVORS[name].weights_gb * 1e9:
            return FLAVORS[name]
    return None


def next_up(flavor: str) -> Flavor | None:
    """The flavor after `flavor` on the ladder (an out-of-memory retry), None at the top."""
    if flavor not in LADDER or flavor == LADDER[-1]:
        return None
    return FLAVORS[LADDER[LADDER.index(flavor) + 1]]


def billed_minutes(seconds: float) -> int:
    """Minutes the Hub bills for `seconds` of a Job (every started minute)."""
    return max(1, math.ceil(seconds / 60 - 1e-9)) if seconds > 0 else 0


def billed_cost(seconds: float, price_per_hour: float) -> float:
    """US dollars for `seconds` of a Job at `price_per_hour`: billed minutes x price."""
    return billed_minutes(seconds) * price_per_hour / 60


def price_of(flavor: str) -> float | None:
    """The table's hourly price of a flavor (None: not one the dispatcher uses)."""
    known = FLAVORS.get(flavor)
    return known.price_per_hour if known else None


def money(dollars: float) -> str:
    """A cost as the board and the dispatcher write it."""
    return f"${dollars:,.2f}"
