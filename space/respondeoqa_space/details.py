"""The details dataset: every shown entry's public per-item results, raw responses included, as
a Hub dataset repository (`respondeoqa-space admin details`), the convention of the Open LLM
Leaderboard's details datasets: one config per entry, `load_dataset(repo, "entry_12",
split="latest")`, each a Parquet file `entry_12/details.parquet` that the card's front matter
(`configs:`) names.

Rows come from the entries' answer sheets (`answers.py`): public items only, so no Certamen or
NLE item, question, answer or response is ever in a file (`entry_rows` refuses one anyway).
A sync is idempotent: the files are made the same way every time (the same rows, the same
bytes), compared with the repository's listing by their content identity, and only what
differs goes up: new and changed configs, the card when it changed, and the configs of entries
withdrawn or hidden deleted. A sync's commits are compare-and-swap on the branch's head
(`HubRepo.commit(parent_commit=...)`): when another writer moved it, the sync reads again.
Large first syncs go in several commits, each under `COMMIT_BYTES`; the card and the deletions
go in the last.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from respondeoqa_eval import InputError
from respondeoqa_eval import __version__ as evaluator_version
from respondeoqa_eval.data import (
    DIMENSIONS,
    PRIVATE_SOURCES,
    PUBLIC_SOURCES,
    SOURCE_LABELS,
    TASK_LABELS,
    UPSTREAM_URL,
    GoldSet,
)

from .answers import Sheet, sheet_of
from .config import ENV_DETAILS, SpaceConfig
from .rows import coverage_label
from .store import Entry, Store
from .store.hub import HeadMoved, HubRepo, HubUnavailable, RemoteFile, refused_access
from .views.html import markdown_text

CARD = "README.md"
SPLIT = "latest"
CONFIG = re.compile(r"entry_([1-9][0-9]*)")
COMMIT_BYTES = 256 * 2**20
"""Parquet bytes one commit carries at most (a first sync of many entries is several)."""
ATTEMPTS = 3
"""Syncs started again when another writer moved the branch meanwhile."""

COLUMNS: tuple[tuple[str, str], ...] = (
    ("entry", "the entry's number on the board"),
    ("model", "the model's name, as submitted"),
    ("item_id", "the item's id (the benchmark's `id`)"),
    ("question_id", "its upstream question id"),
    ("source", "jun-schol (Junior Scholarship) or lat-pros (Latin Prosody)"),
    ("task", "short_answer, feet, meter or translation"),
    ("content", "the upstream question_content"),
    ("question_language", "english or latin"),
    ("answer_language", "english or latin"),
    ("difficulty", "the upstream label"),
    ("question", "the question as the upstream file has it"),
    ("gold", "the gold answer (a translation's reference translations, every one)"),
    ("response", "the entry's raw response; null when it gave no prediction for the item"),
    ("answer_given", "the row gave an answer already extracted (then `response` is that answer)"),
    ("extracted", "the answer the paper's rules read (PROTOCOL 3); null when none"),
    ("score", "its score (PROTOCOL 4); null for translations, scored as a corpus (BLEU)"),
    ("missing", "no prediction for the item: it scores 0 and still counts"),
    ("lenient_answer", "the lenient reading (beyond the paper; docs/format-compliance.md)"),
    ("lenient_rule", "\"paper\" (the paper's answer kept), a rule's name, or null: none read"),
    ("lenient_score", "its score (null for translations)"),
    ("format_cost", "the answer format cost points here: the paper's rules read nothing usable"),
)
"""Every column of a config, with what it holds (the card's table)."""


def config_name(entry_id: int) -> str:
    return f"entry_{entry_id}"


def data_path(entry_id: int) -> str:
    return f"{config_name(entry_id)}/details.parquet"


def entry_rows(entry: Entry, sheet: Sheet, gold: GoldSet) -> list[dict[str, Any]]:
    """The entry's rows: one per public item of its sheet, in gold order. A private item is
    refused (a sheet never holds one)."""
    rows = []
    for record in gold.records:
        answer = sheet.answers.get(record.id)
        if answer is None:
            continue
        if record.is_private or record.source in PRIVATE_SOURCES:
            raise ValueError("a private item in a details file")  # never: sheets are public
        rows.append(
            {
                "entry": entry.id,
                "model": entry.model,
                "item_id": record.id,
                "question_id": record.question_id,
                "source": record.source,
                "task": record.task,
                "content": record.question_content,
                "question_language": record.question_language,
                "answer_language": record.answer_language,
                "difficulty": record.difficulty,
                "question": record.question,
                "gold": list(record.answers),
                "response": answer.response,
                "answer_given": answer.given,
                "extracted": answer.extracted,
                "score": answer.score,
                "missing": answer.missing,
                "lenient_answer": answer.lenient_answer,
                "lenient_rule": answer.lenient_rule,
                "lenient_score": answer.lenient_score,
                "format_cost": answer.format_cost,
            }
        )
    return rows


def _schema() -> Any:
    import pyarrow as pa

    text, number, flag = pa.string(), pa.float64(), pa.bool_()
    types = {
        "entry": pa.int64(),
        "gold": pa.list_(text),
        "score": number,
        "lenient_score": number,
        "answer_given": flag,
        "missing": flag,
        "format_cost": flag,
    }
    return pa.schema([(name, types.get(name, text)) for name, _ in COLUMNS])


def parquet_bytes(rows: list[dict[str, Any]]) -> bytes:
    """The rows as a Parquet file (the same rows, the same bytes: nothing in it records when
    it was written)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows, schema=_schema())
    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return out.getvalue()


def identities(data: bytes) -> set[str]:
    """The content identities a repository listing may give a file of these bytes
    (`RemoteFile.identity`: its LFS sha256, or its git blob id)."""
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return {f"sha256:{hashlib.sha256(data).hexdigest()}", f"git:{blob}"}


@dataclass(frozen=True)
class EntryCard:
    """One entry as the card lists it."""

    id: int
    model: str
    created: str
    coverage: str
    rows: int
    scored: int
    right: float
    responses: bool


def entry_card(entry: Entry, sheet: Sheet) -> EntryCard:
    public = [s for s in entry.sources if s not in PRIVATE_SOURCES]
    scores = [a.score for a in sheet.answers.values() if a.score is not None]
    return EntryCard(
        entry.id,
        entry.model,
        entry.created[:10],
        coverage_label(public),
        len(sheet.answers),
        len(scores),
        sum(scores),
        sheet.kept,
    )


def card_text(repo_id: str, entries: list[EntryCard], board_url: str = "") -> str:
    """The dataset card: front matter naming every config's file, then what the rows hold,
    how to load them, and the entries."""
    import yaml

    front = {
        "pretty_name": "RespondeoQA leaderboard details",
        "language": ["la", "en"],
        "license": "other",
        "license_name": "mixed",
        "tags": ["leaderboard", "evaluation", "details", "latin"],
        "configs": [
            {
                "config_name": config_name(e.id),
                "data_files": [{"split": SPLIT, "path": data_path(e.id)}],
            }
            for e in entries
        ],
    }
    lines = [
        "---",
        yaml.safe_dump(front, sort_keys=False, allow_unicode=True).rstrip(),
        "---",
        "",
        "<!-- Written by `respondeoqa-space admin details`; every sync writes it anew. -->",
        "",
        "# RespondeoQA leaderboard details",
        "",
        "What each entry of the RespondeoQA leaderboard"
        + (f" ({board_url})" if board_url else "")
        + " wrote on every public item of the benchmark ("
        + " and ".join(SOURCE_LABELS[s] for s in PUBLIC_SOURCES)
        + f"; {UPSTREAM_URL}): its raw response, the answer the paper's rules read from it, "
        "its score and the lenient reading beside it. One config per entry, its one split "
        f"`{SPLIT}` the entry as the board scores it now:",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'details = load_dataset("{repo_id}", "entry_12", split="{SPLIT}")',
        "```",
        "",
        "Certamen and NLE items are not public: no question, answer or response of theirs is "
        "in any file here. Scores are per item, 0 to 1 (feet get partial credit); translations "
        "are scored as a corpus (BLEU), so their `score` is null. The rows are scored with "
        f"respondeoqa-eval {evaluator_version} from the predictions each entry submitted. "
        "Each response is its submitter's; the questions and gold answers are the upstream "
        "files' (public domain textbooks).",
        "",
        "## Columns",
        "",
        "| column | holds |",
        "|---|---|",
        *(f"| `{name}` | {what} |" for name, what in COLUMNS),
        "",
        f"Tasks: {', '.join(f'`{k}` ({v})' for k, v in TASK_LABELS.items() if k != 'multiple_choice')}"
        f"; content types: {', '.join(f'`{g}`' for g in DIMENSIONS['by_content'].groups)}.",
        "",
        "## Entries",
        "",
    ]
    if not entries:
        lines.append("No entry yet.")
    else:
        lines += [
            "| config | entry | model | submitted | public coverage | rows | mean score | responses |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for e in entries:
            mean = f"{e.right / e.scored:.3f}" if e.scored else "\u2014"
            kept = "kept" if e.responses else "not kept (stored before responses were)"
            lines.append(
                f"| `{config_name(e.id)}` | #{e.id} | {markdown_text(e.model)[:200]} | "
                f"{e.created} | {e.coverage} | {e.rows} | {mean} | {kept} |"
            )
    return "\n".join(lines) + "\n"


@dataclass
class DetailsPlan:
    """What a sync changes: configs added or changed (by entry id), removed (paths), whether
    the card changes."""

    changed: list[int] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    card: bool = False
    commits: list[str] = field(default_factory=list)

    @property
    def nothing(self) -> bool:
        return not (self.changed or self.removed or self.card)

    def summary(self) -> str:
        if self.nothing:
            return f"up to date: {self.unchanged} entries, nothing to change"
        removed = len({p.split("/", 1)[0] for p in self.removed})
        return (
            f"{len(self.changed)} entries added or changed, {self.unchanged} unchanged, "
            f"{removed} removed; the card {'rewritten' if self.card else 'unchanged'}"
        )


Built = tuple[Entry, Sheet]


def sync_details(
    repo: HubRepo,
    built: Callable[[], Iterable[Built]],
    gold: GoldSet,
    *,
    board_url: str = "",
    dry_run: bool = False,
    commit_bytes: int = COMMIT_BYTES,
    echo: Callable[[str], None] = lambda line: None,
) -> DetailsPlan:
    """Make the repository hold one config per entry `built()` yields (each entry with its
    sheet, oldest first), and nothing else of ours: see the module docstring. With `dry_run`,
    the plan only (the repository is read, never written). HubUnavailable when the Hub fails
    (after retries) or refuses."""
    for _ in range(ATTEMPTS):
        try:
            return _sync_once(repo, built, gold, board_url, dry_run, commit_bytes, echo)
        except HeadMoved:
            echo("another writer committed meanwhile: reading the repository again")
    raise HubUnavailable(f"{repo!r}: the branch kept moving ({ATTEMPTS} tries)")


def _remote(repo: HubRepo, dry_run: bool) -> tuple[str | None, dict[str, RemoteFile]]:
    """The head and the listing at it (None and nothing when a dry run finds no repository).
    A sync first makes the repository (public) unless it exists; a token that may write it
    but not make repositories goes on to write it."""
    if not dry_run:
        try:
            repo.create(private=False)
        except HubUnavailable as exc:
            if refused_access(exc) is None:
                raise
    try:
        head = repo.head()
    except HubUnavailable:
        if dry_run:
            return None, {}
        raise
    return head, repo.list_tree(head)


def _sync_once(
    repo: HubRepo,
    built: Callable[[], Iterable[Built]],
    gold: GoldSet,
    board_url: str,
    dry_run: bool,
    commit_bytes: int,
    echo: Callable[[str], None],
) -> DetailsPlan:
    head, listing = _remote(repo, dry_run)
    plan = DetailsPlan()
    cards: list[EntryCard] = []
    batch: dict[str, bytes] = {}
    kept: set[str] = set()

    def push(files: Mapping[str, bytes], delete: list[str], message: str) -> None:
        nonlocal head
        if dry_run or not (files or delete):
            return
        head = repo.commit(files, message, delete=delete, parent_commit=head)
        plan.commits.append(head)

    for entry, sheet in built():
        path = data_path(entry.id)
        kept.add(path)
        cards.append(entry_card(entry, sheet))
        data = parquet_bytes(entry_rows(entry, sheet, gold))
        remote = listing.get(path)
        if remote is not None and remote.identity in identities(data):
            plan.unchanged += 1
            continue
        plan.changed.append(entry.id)
        echo(f"{'would upload' if dry_run else 'upload'} {path} ({len(data):,} bytes)")
        batch[path] = data
        if sum(map(len, batch.values())) >= commit_bytes:
            push(batch, [], f"Details: {len(batch)} entries")
            batch = {}
    plan.removed = sorted(p for p in listing if _ours(p) and p not in kept)
    for path in plan.removed:
        echo(f"{'would delete' if dry_run else 'delete'} {path}")
    card = card_text(repo.repo_id, cards, board_url).encode("utf-8")
    remote_card = listing.get(CARD)
    plan.card = remote_card is None or remote_card.identity not in identities(card)
    if plan.card:
        batch[CARD] = card
    push(batch, plan.removed, _message(plan))
    return plan


def _ours(path: str) -> bool:
    """A file this sync writes (an entry's config folder), not the repository's own."""
    first = path.split("/", 1)[0]
    return "/" in path and CONFIG.fullmatch(first) is not None


def _message(plan: DetailsPlan) -> str:
    return f"Details: {plan.summary()}"


def stream(entries: Iterable[Entry], sheet: Callable[[Entry], Sheet]) -> Iterator[Built]:
    """Each entry with its sheet, read one at a time (a sync holds one entry's rows at once)."""
    for entry in entries:
        yield entry, sheet(entry)


def sync_store(
    repo: HubRepo,
    store: Store,
    gold: GoldSet,
    *,
    board_url: str = "",
    dry_run: bool = False,
    echo: Callable[[str], None] = lambda line: None,
) -> DetailsPlan:
    """`sync_details` of every entry `store` shows (hidden and withdrawn ones' configs
    deleted): what `respondeoqa-space admin details` and the Space's own sync run."""
    entries = store.entries()  # the shown ones, oldest first

    def sheet(entry: Entry) -> Sheet:
        items = store.item_scores(entry.id)  # public items only
        return sheet_of(entry.id, items, store.predictions(entry.id), gold)

    built = lambda: stream(entries, sheet)  # noqa: E731
    return sync_details(repo, built, gold, board_url=board_url, dry_run=dry_run, echo=echo)


def details_repo(config: SpaceConfig) -> HubRepo:
    """The details dataset a config names (--details-repo, else the setting); never the
    record's or the gold's repository (private data lives there). InputError without one."""
    repo_id = config.details_repo
    if not repo_id:
        raise InputError(f"details: give --details-repo ORG/NAME (or set ${ENV_DETAILS})")
    if repo_id in (config.mirror_repo, config.gold_repo):
        raise InputError(
            f"details: {repo_id} is the record's or the gold's repository; the public details "
            "go to a repository of their own"
        )
    return HubRepo(repo_id, token=config.hub_token, endpoint=config.hub_endpoint)
