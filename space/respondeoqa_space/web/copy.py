"""The page's own words (Markdown): header, About, and the help text of each page. Our text
only: no user string is ever formatted into these."""

from __future__ import annotations

from respondeoqa_eval.data import PADDING_SENTENCE, PAPER_BIBTEX

HEADER = """# RespondeoQA leaderboard"""

INTRO = """Latin-English question answering (multiple choice, one-word answers, scansion,
translation), scored with the paper's protocol (Hudspeth, Burns and O'Connor 2026). Entries
scored on different sources are ranked apart: one section per coverage. Rows marked *reported
in paper* are the published numbers; *verified* rows were evaluated by the leaderboard itself
(*Request an evaluation*); *self-reported* rows were scored here from uploaded predictions."""

ABOUT_TITLE = "# About the leaderboard"

ABOUT = f"""## The benchmark
RespondeoQA has 7,829 Latin-English questions from the NJCL Certamen (1996-2009), the National
Latin Exam (NLE: 2015, 2020, 2025), *Latin Grammar and Junior Scholarship Papers* (shown as
Junior Scholarship) and *Exercises in Latin Prosody and Versification* (shown as Latin Prosody).
The last two are public domain and published upstream (github.com/slanglab/RespondeoQA);
Certamen and NLE questions are not redistributed.

## How a submission is scored
- Upload a JSONL, CSV or JSON file with one row per item: `id` (or `question_id` plus
  `question_language`) and either `response` (the raw model output; the answer is extracted
  with the paper's rules) or `answer` (already extracted).
- A submission is scored on the upstream files it covers; items of a covered file that have no
  prediction score 0. The *Coverage* column says which sources an entry was scored on, and ranks
  compare only entries with the same coverage.
- **Accuracy** is the mean per-item score over every non-translation item: multiple choice
  (first letter), 1-word short answer (exact match after lowercasing and removing punctuation;
  Latin answers also lose macrons and get j->i, v->u), meter manipulation (word lists equal) and
  feet identification (share of feet right, with the paper's spelling variants).
- **BLEU** is corpus BLEU (sacreBLEU, lowercased, 13a tokens) per target language.
  {PADDING_SENTENCE} The leaderboard therefore shows **BLEU (paper, padded)** only beside
  **BLEU (no padding)** and **chrF** (character n-gram F-score).
- Intervals are 95% bootstrap intervals over items (1,000 resamples, seed 12345). Compare uses a
  paired bootstrap over the public items both entries were scored on.
- Values that rest on Certamen or NLE items are released with their private part in steps of k
  items (k = 10 unless the operator sets another) and a Wilson interval from their counts, and
  hidden when they rest on fewer than k: probing the board cannot read single private answers,
  because a released value moves only when about k/2 of its private items are right together
  (the [bound](#h-the-bound) below). `respondeoqa-eval score` on your own copy gives the exact
  numbers.
- Numbers: accuracy in %, BLEU and chrF in points, one decimal everywhere (the CSV too);
  "\u2014" marks a value that is not reported in the paper, not covered by the entry's sources,
  or hidden because it rests on too few private items.
- The paper's overall accuracy for LLaMa 3.3 70B is 71.92; its released notebook prints 71.29.

## The bound
A stored entry is a probe of the private answers (its submitter chose every answer). Released
as above, the numbers of one stored entry can take at most 2^N combinations, N the sum over each
value resting on private items of log2 of its number of steps (plus 6.66 bits for each private
BLEU and chrF number): at the paper's sizes and k = 10, at most 239 bits per stored entry. The
switch *without suspected gold errors* releases every accuracy value on private items once more,
without the flagged items, and counts those: at most 450 bits per stored entry and set of
flagged items, and with the daily quota of 5 stored entries at most 2,248 bits per account per
day and flagged set (the set can change at every write). A Certamen or NLE multiple-choice
answer is 2 bits or more, and reading one needs about k/2 answers of the same value known
already. The Space logs its own N, computed from its gold, when it starts.

## Data terms
Certamen questions are copyrighted and hosted by the Junior Classical League; the National Latin
Exam may not be used to generate profit. This Space never shows their gold answers: the
disagreement table in Compare and the per-item download of an entry list public items only.

## Citation
```bibtex
{PAPER_BIBTEX}
```
"""

# Each page's heading (an h1), and the few lines a reader sees before the page's controls;
# the rest of a page's help waits, folded, under *_HELP_LABEL.

SUBMIT_TITLE = "# Submit predictions"

SUBMIT_LEAD = """Upload a `.jsonl`, `.csv` or `.json` file (or a harness run's logs: `.jsonl`,
`.parquet`, a `.zip`) with one row per item: `id` and `response` (the raw output) or `answer`
(already extracted); an [example file](example.jsonl) shows the format. It is scored at once
and appears on the board."""

SUBMIT_HELP_LABEL = "Formats, coverage and what is stored"

SUBMIT_HELP = """Upload predictions in any format the evaluator accepts (`.jsonl`, `.csv` or the
paper's `.json` layout), or a harness run as it is: every lm-evaluation-harness
`samples_*.jsonl` file of one run, lighteval `details_*.parquet` files, or a `.zip` of them
(raw generations, scored with the paper's extraction). `respondeoqa-eval example -o preds.jsonl`
writes an example file, `respondeoqa-eval prompts` the paper's prompts.

- **Coverage**: a submission must answer at least 90% of the items of every upstream file it
  touches; it is scored on those files and ranked with entries of the same coverage.
- The file is scored at once and appears on the leaderboard; the same predictions are not stored
  twice. A file whose answers mostly cannot be read (no `Answer:` last line) is stored only when
  you confirm it. Model name, link and note are shown as plain text; links must be http(s).
- Model facts (size, open weights or API, reasoning model, its Hub id) let readers filter the
  board and plot accuracy against size; a harness or runner log fills in what it records."""

WITHDRAW_HELP = """**Withdraw my entry**: logged in, you can remove an entry you submitted
(its number is in the *Entry* column). It leaves the leaderboard, Compare and the CSV at once."""

COMPARE_TITLE = "# Compare entries"

COMPARE_HELP = """Pick two or more entries (at most six) and press Compare: bars by content type
and by language pair (95% intervals as error bars, item counts under the groups and on hover;
each entry keeps its colour), and what the answer format cost each of them per category (lenient
minus paper accuracy). For exactly two scored submissions, also the paired difference per
category and the public items where they disagree: click a question (or an item's id) to
read both entries' raw responses on it."""

ITEMS_TITLE = "# Items"

ITEMS_LEAD = """The board's entries item by item, on the public items: hardest first, with
suspected gold errors flagged."""

ITEMS_HELP_LABEL = "How the items are analysed"
ITEMS_TERMS_LABEL = "What the columns mean"

ITEMS_HELP = """The board's entries item by item, on the public items (Junior Scholarship, Latin
Prosody): which questions are hard, which separate strong models from weak ones, and which look
like **gold errors** (with 5 or more entries: more of them, and the stronger ones, agree on
one other answer than chance explains, for feet also on one foot or a line one foot off the
gold; or the gold breaks the item's own answer format). Filter by source, content and language pair; click a header to sort.
Certamen and NLE items are only counted here. The [whole analysis](item_analysis.csv) is a CSV
(the columns of `respondeoqa-eval items`). Click a question (or an item's id) to read what the
entries wrote on it: the [answers](answers) page."""

SIZE_TITLE = "# Accuracy against model size"

SIZE_HELP = """One point per entry that states its parameter
count (log scale), coloured by coverage; entries of one coverage are comparable with each other
only. Each point is named beside it; hover it for its accuracy and size."""

REQUEST_TITLE = "# Request an evaluation"

REQUEST_HELP = """Name a model on the Hugging Face Hub and the
leaderboard runs it itself, on its operator's serving engine, with the paper's prompts, on every
item it holds: the public textbooks and the Certamen and NLE questions, which are never
redistributed (they go to the operator's engine only). The results appear on the board as
*verified* entries, one per coverage they rank on. Requests need a Hugging Face login; the
model must be public; the same model, revision and sampling are run once."""

REQUEST_OFF = """Evaluation requests are off on this leaderboard: they live in its record repo on
the Hub (`RESPONDEOQA_SPACE_MIRROR`), which is not set."""

REQUESTS_LIST = """**Requests** (everyone's, newest first): *pending* until the operator's worker
takes one, *running* while it is evaluated, then *finished* with its entries (their numbers are
in the board's *Entry* column) or *failed* with the reason."""

BOARD_ERROR = '<p class="board-caption">The leaderboard could not be loaded: reload the page.</p>'
DETAIL_ERROR = '<p class="detail-msg">The entry could not be loaded: try again.</p>'


def details_note(url: str) -> str:
    """The About page's words on the details dataset ("" when the Space names none)."""
    if not url:
        return ""
    return (
        "\n\n## Every answer, as a dataset\n\nWhat each entry wrote on every public item (its "
        "raw response, the answer the paper's rules read, its score, the lenient reading) is a "
        f"dataset on the Hub, one config per entry: [{url.rsplit('/datasets/', 1)[-1]}]({url}) "
        '(`load_dataset(repo, "entry_12", split="latest")`). Certamen and NLE items are never '
        "in it. The [answers](answers) page reads the same, item by item."
    )
