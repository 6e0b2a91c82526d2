"""Analyses across entries, beyond the paper.

- `items.py`: item analysis (difficulty, discrimination, suspected gold errors), pure; its
  command is `respondeoqa-eval items` (cli/items.py) and the Space's Items view.
"""
