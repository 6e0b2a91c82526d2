"""The board as the page shows it: a `leaderboard_frame` rendered into HTML from
`templates/board.html` (Jinja, autoescaped).

One number style (`numbers`), "—" for missing values, the best value of each score column among
entries of the same coverage marked `best` (class "n b"; "n": a number), and each row's key in
`data-key` for the entry detail.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import jinja2
import pandas as pd

from ...numbers import count_text, score_text
from .columns import INTEGER_COLUMNS, SCORE_COLUMNS
from .frames import best_mask, display_frame


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("respondeoqa_eval.space.views", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("board.html")


def _cell(column: str, value: Any, best: bool) -> tuple[str, str]:
    if column in INTEGER_COLUMNS:
        return "n", count_text(value)
    if column in SCORE_COLUMNS:
        return ("n b" if best else "n"), score_text(None if pd.isna(value) else value)
    return "", str(value)


def board_html(
    df: pd.DataFrame,
    caption: str,
    widths: Sequence[str] | None = None,
    *,
    csv_href: str = "board.csv",
    status: str = "",
) -> str:
    """`df` (a `leaderboard_frame`) as the page's table, under its CSV link and `caption`
    (and `status`, a notice about the record, when there is one). `widths` (CSS lengths, one
    per display column) sets each column's minimum width."""
    shown = display_frame(df)
    cols = list(shown.columns)
    scores = [c for c in cols if c in SCORE_COLUMNS]
    best = best_mask(shown, scores)[cols].to_numpy()  # positional: .at per cell is slow
    headers = [
        {
            "text": col,
            "kind": "num" if col in SCORE_COLUMNS or col in INTEGER_COLUMNS else "text",
            "width": widths[i] if widths else "",
        }
        for i, col in enumerate(cols)
    ]
    rows = [
        {
            "key": key,
            "cells": [
                _cell(col, value, best[r, c])
                for c, (col, value) in enumerate(zip(cols, record, strict=True))
            ],
        }
        for r, (key, record) in enumerate(
            zip(shown.index, shown.itertuples(index=False, name=None), strict=True)
        )
    ]
    return _template().render(
        headers=headers, rows=rows, caption=caption, csv_href=csv_href, status=status
    )
