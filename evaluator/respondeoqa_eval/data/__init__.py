"""The benchmark's data: from the upstream files to typed records and their groups.

- `sources.py`: the source table (names, terms, each upstream file's task, size and pinned
  sha256, the upstream commit, the citation); `records.py`: the unified record and the
  vocabularies; `upstream.py`: the one reader of upstream files (PROTOCOL 1 quirks).
- `datadir.py`: `$RESPONDEOQA_DATA_DIR` and the one "no data" message; `fetch.py`: the pinned
  download and its sha256 cache; `gold.py`: `GoldSet` and the one gold loader (a user's folder,
  else the pinned download).
- `configs.py`: the dataset configs (one per source and task, and the pooled ones) that the
  dataset builder, runner and harnesses share; `breakdowns.py`: the breakdown registry
  (dimension, display name, item -> group, group order).

Nothing here imports scoring, reports or any command line.
"""
