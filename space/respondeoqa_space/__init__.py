"""The leaderboard Space: submit predictions, score, store, rank and compare (Gradio 6).

An application on the evaluator's public API (`respondeoqa_eval` and the names its packages list
in `__all__`: docs/api.md); tests/space/test_public_api.py keeps it to them.

Where things live:

- `config.py`: every setting, in one table; `rows.py`: row kinds, keys and labels;
  `paper.py`: the paper's published rows; `metadata.py`: cleaning what submitters type;
  `privacy.py`: what is not shown of private items.
- `submission.py`: the one path from predictions to a stored entry (form, `admin add`, the
  worker's verified runs, re-scoring, and the check of every entry read back from the record).
- `store/`: the SQLite working copy, its schema and blobs, quotas, the record's file format,
  the Hub repo of record and the sync between them (several writers: compare-and-swap on the
  head; a new entry is committed to the record before it is kept, by group commit:
  `groupcommit.py`), and a verified entry's `evaluation`.
- `requests/`: evaluation requests: their record files, the ledger that changes them by
  compare-and-swap (claims with leases), and the Space's desk (checks, limits, duplicates).
- `worker/`: the operator's worker (`respondeoqa-space worker`): claims requests, serves each model on an
  engine it starts or one it is given, answers every item with the runner, and stores the run
  as verified entries through `submission.py`.
- `readmodel.py`: what every read serves, built once per data version; `answers.py`: each
  entry's answer sheet on the public items (raw responses, paper and lenient answers,
  scores), for the answers page and `details.py`, the public details dataset
  (`respondeoqa-space admin details`).
- `views/`: pure functions from rows to tables, board HTML, legend, charts, comparisons, the
  Items view of the item analysis.
- `service.py`: the composition and the user-facing workflows, without UI.
- `web/`: the server (`app.py`: a FastAPI app serving the board's own page at `/`,
  `board_page.py`, with the Gradio app mounted on it for every other page; each page beyond
  the board in its own module: Compare, Items, Submit, Request an evaluation; what their
  events share in `events.py`), its routes (the board, an entry's detail, the downloads),
  the answers page (`answers_page.py`: server-rendered, like the board's), client identity
  and upload guards, the caches (`pagecache.py`: Gradio's pages and frontend files and the
  board compressed once, from memory), page copy, static files.
- `admin.py` and `cli.py`: the command line, `respondeoqa-space` (`notify.py`: asking a running
  Space to read its record now); `deploy.py`: uploading the Space repository (the `space/`
  folder this package sits in) to a Hub Space.
"""

__version__ = "0.1.0"
