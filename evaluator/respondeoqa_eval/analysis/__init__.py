"""Analyses across entries, beyond the paper.

- `items.py`: item analysis (difficulty, discrimination, suspected gold errors), pure; its
  command is `respondeoqa-eval items` (cli/items.py) and the Space's Items view.
- `text.py`: the analysis as CSV and as the short summary the command prints.

The public names below are the package's API (docs/api.md).
"""

from .items import COLUMNS, EntryStats, ItemAnalysis, ItemStats, Thresholds, analyze_items
from .text import TOP_ITEMS, csv_text, summary_text

__all__ = [
    "COLUMNS",
    "TOP_ITEMS",
    "EntryStats",
    "ItemAnalysis",
    "ItemStats",
    "Thresholds",
    "analyze_items",
    "csv_text",
    "summary_text",
]
