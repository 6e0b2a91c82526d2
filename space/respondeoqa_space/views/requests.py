"""The evaluation requests as the page lists them, for everyone: a pure function of requests.

Every cell is text (a "str" Dataframe cell); the model id and revision passed the Hub's id
syntax when the request was made, and the failure reasons are the worker's own words.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..requests.desk import describe, parameter_text
from ..requests.model import PRESETS, Request
from .cells import Width

REQUEST_COLUMNS = [
    "Request",
    "Model",
    "Status",
    "Revision",
    "Sampling",
    "Reasoning",
    "Licence",
    "Parameters",
    "Requested by",
    "Requested",
]
REQUEST_WIDTHS: list[Width] = [
    "120px", "200px", "300px", "170px", "90px", "100px", "110px", "110px", "120px", "110px",
]  # fmt: skip
OPERATOR = "operator"  # who seeded a request the operator made


def requests_frame(requests: Sequence[Request], now: float) -> pd.DataFrame:
    """One row per request, as given (newest first), every value text."""
    rows = [
        {
            "Request": r.id,
            "Model": r.model,
            "Status": describe(r, now),
            "Revision": r.revision[:12]
            + ("" if r.asked_revision in ("", r.revision) else f" ({r.asked_revision})"),
            "Sampling": r.preset if r.preset in PRESETS else "?",
            "Reasoning": "yes" if r.reasoning else "no",
            "Licence": r.licence or "\u2014",
            "Parameters": parameter_text(r.parameters) or "\u2014",
            "Requested by": r.requester or OPERATOR,
            "Requested": r.created[:10],
        }
        for r in requests
    ]
    return pd.DataFrame(rows, columns=REQUEST_COLUMNS)
