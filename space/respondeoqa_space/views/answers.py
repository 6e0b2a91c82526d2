"""The answers view: one public item, its gold, and what each chosen entry wrote (its raw
response, the answer the paper's rules read, the lenient reading where it differs, the score),
walking through the public items of one task, content type, language pair or source, with
filters. Pure: the caller resolves the entries, reads their sheets (`answers.py`) and the item
analysis's flags.

Everything the view knows comes from the URL (`Choice`), checked against what exists (group
keys of public items, shown entries, the filters): a client's string is never echoed, and the
links the view makes (`href`) are built from checked values only. Only public records are
ever given to it: a private item is no item of any walk, and an id naming one reads as an
unknown id.
"""

from __future__ import annotations

import unicodedata
import urllib.parse
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape
from respondeoqa_eval.data import DIMENSIONS, LANGUAGE_LABELS, TASK_LABELS, Record

from ..answers import Answer, Sheet
from .html import breakable_markdown, gold_markdown, render

ROUTE, JSON_ROUTE = "answers", "answers.json"
MAX_ENTRIES = 6
"""Entries shown side by side."""
GROUPS = (
    ("task", "by_task"),
    ("content", "by_content"),
    ("pair", "by_language_pair"),
    ("source", "by_source"),
)
"""The walk's groups: URL parameter -> breakdown (a walk is the public items of the groups
chosen, in gold order)."""
FILTERS = {
    "disagree": "where the chosen entries disagree",
    "format": "where the answer format cost points",
    "flagged": "suspected gold errors",
}
"""The walk's filters: URL value -> what the picker says."""
FOLD_CHARS, FOLD_LINES = 600, 12
"""A response longer than this is folded: its last lines shown, the whole behind a click."""
TAIL_LINES, TAIL_CHARS = 3, 300
"""What a folded response shows: its last lines (where the paper's format puts the answer)."""
SHOWN_CHARS = 20_000
"""The most of one response the page holds (the JSON answer holds it whole)."""
SHOWN_REFERENCES = 1
"""Reference translations shown before the rest are folded."""


def group_of(record: Record, dim: str) -> str:
    """The record's group in a walk's breakdown (its task and source always: translation
    items are no group of the by_task breakdown)."""
    if dim == "by_task":
        return record.task
    if dim == "by_source":
        return record.source
    return DIMENSIONS[dim].group_of(record) or ""


def label_of(dim: str, group: str) -> str:
    """A walk group's display name (translation among the tasks)."""
    if dim == "by_task":
        return TASK_LABELS.get(group, group)
    return DIMENSIONS[dim].label(group)


@dataclass(frozen=True)
class Choice:
    """What the URL chose, checked: the item (a public item's id, or None: the walk's first),
    the entries' keys ("e:12", shown entries only), the walk's groups (parameter -> group key)
    and its filter (a key of FILTERS, or None)."""

    item: str | None = None
    entries: tuple[str, ...] = ()
    groups: Mapping[str, str] = field(default_factory=dict)
    filter: str | None = None

    def query(self, item: str | None = None) -> dict[str, str]:
        """The URL parameters of this choice at `item` (the chosen item when None)."""
        out: dict[str, str] = {}
        at = item if item is not None else self.item
        if at:
            out["item"] = at
        if self.entries:
            out["entries"] = ",".join(self.entries)
        out.update({p: self.groups[p] for p, _ in GROUPS if p in self.groups})
        if self.filter:
            out["filter"] = self.filter
        return out


def href(choice: Choice, item: str | None = None, route: str = ROUTE) -> str:
    """The link of `choice` at `item` (built from checked values only)."""
    query = urllib.parse.urlencode(choice.query(item), safe=":,")
    return f"{route}?{query}" if query else route


def link_formatters(
    questions: Sequence[str], items: Sequence[str], entries: Sequence[str] = ()
) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """Formatters of a table's Question and Item cells (rows: `questions[i]` of item
    `items[i]`) as Markdown links to the item's answers, by `entries` (none: the page's
    default): a cell's text stays the table's data (API clients get it as is), the link is its
    display. An item's id is always a link; its question too, unless another row has the
    same text (a formatter sees the text only)."""
    keys = tuple(entries)
    seen = Counter(questions)
    target = {q: i for q, i in zip(questions, items, strict=True) if seen[q] == 1}

    def question(text: str) -> str:
        shown = gold_markdown(text)
        item = target.get(text)
        return shown if item is None else f"[{shown}](<{href(Choice(item=item, entries=keys))}>)"

    def item(ident: str) -> str:
        # the id wraps only between its parts (html.breakable_markdown)
        return f"[{breakable_markdown(ident)}](<{href(Choice(item=ident, entries=keys))}>)"

    return question, item


def group_options(records: Sequence[Record]) -> dict[str, list[tuple[str, str]]]:
    """Per walk parameter, the (group key, label) of every group the public items have."""
    out = {}
    for param, dim in GROUPS:
        present = {group_of(r, dim) for r in records} - {""}
        order = DIMENSIONS[dim].order
        out[param] = [(g, label_of(dim, g)) for g in sorted(present, key=lambda g: (order(g), g))]
    return out


def checked_groups(query: Mapping[str, str], records: Sequence[Record]) -> dict[str, str]:
    """The walk's groups the URL names that the public items have (others are ignored)."""
    options = group_options(records)
    return {
        param: query[param]
        for param, _ in GROUPS
        if query.get(param) in {g for g, _ in options[param]}
    }


def _norm(text: str | None) -> str:
    return " ".join(str(text or "").split()).casefold()


def disagree(answers: Sequence[Answer]) -> bool:
    """Two or more entries answered the item and differ in score or answer (as Compare's
    disagreement table: items with a per-item score only)."""
    given = [a for a in answers if not a.missing and a.score is not None]
    return len(given) >= 2 and (
        len({a.score for a in given}) > 1 or len({_norm(a.extracted) for a in given}) > 1
    )


def walk(
    records: Sequence[Record],
    choice: Choice,
    sheets: Sequence[Sheet],
    flagged: Mapping[str, str],
) -> list[Record]:
    """The items of the chosen walk, in gold order: the public `records` in every chosen
    group, answered by one of the chosen entries (when any is chosen), that pass the filter."""
    wanted = [(dim, choice.groups[p]) for p, dim in GROUPS if p in choice.groups]
    out = []
    for r in records:
        if any(group_of(r, dim) != g for dim, g in wanted):
            continue
        answers = [s.answers[r.id] for s in sheets if r.id in s.answers]
        if sheets and not answers:
            continue
        if choice.filter == "disagree" and not disagree(answers):
            continue
        if choice.filter == "format" and not any(a.format_cost for a in answers):
            continue
        if choice.filter == "flagged" and r.id not in flagged:
            continue
        out.append(r)
    return out


@dataclass(frozen=True)
class Column:
    """One chosen entry on the item: its key, label and answer (None: not scored on it)."""

    key: str
    label: str
    answer: Answer | None


@dataclass(frozen=True)
class AnswersView:
    """What the page and the JSON answer show (see the module docstring)."""

    choice: Choice
    record: Record | None  # None: the walk is empty
    position: int  # 1-based, in the walk
    total: int
    prev: str | None
    next: str | None
    columns: tuple[Column, ...]
    flag: str  # why the item is a suspected gold error ("" when it is not)
    notes: tuple[str, ...] = ()  # our own words about the choice (entries left out, ...)


def build_view(
    records: Sequence[Record],
    choice: Choice,
    columns: Sequence[tuple[str, str, Sheet]],
    flagged: Mapping[str, str],
    notes: Sequence[str] = (),
) -> AnswersView:
    """The view of `choice` over the public `records`: `columns` are the chosen entries (key,
    label, sheet), `flagged` the suspected gold errors (item id -> why). An item outside the
    walk moves the view to the walk's first item, with a note."""
    sheets = [sheet for _, _, sheet in columns]
    items = walk(records, choice, sheets, flagged)
    notes = list(notes)
    at = next((i for i, r in enumerate(items) if r.id == choice.item), None)
    if at is None:
        if choice.item is not None and items:
            notes.append("That item is not in this walk: here is the walk's first item.")
        at = 0
    record = items[at] if items else None
    shown = Choice(record.id if record else None, choice.entries, choice.groups, choice.filter)
    cols = tuple(
        Column(key, label, sheet.answers.get(record.id) if record else None)
        for key, label, sheet in columns
    )
    return AnswersView(
        choice=shown,
        record=record,
        position=at + 1 if record else 0,
        total=len(items),
        prev=items[at - 1].id if record and at > 0 else None,
        next=items[at + 1].id if record and at + 1 < len(items) else None,
        columns=cols,
        flag=flagged.get(record.id, "") if record else "",
        notes=tuple(notes),
    )


# -- text as the page shows it ---------------------------------------------------------------

_SHOWN_AS_IS = {"\n", "\t"}


def _hidden(ch: str) -> bool:
    """A character that would not show as itself: controls, format characters (bidi
    overrides, zero-width ones), separators other than the space, unassigned and private."""
    return ch not in _SHOWN_AS_IS and unicodedata.category(ch) in {
        "Cc",
        "Cf",
        "Cs",
        "Co",
        "Cn",
        "Zl",
        "Zp",
    }


def shown(text: str) -> Markup:
    """`text` as HTML: every character escaped, and those that would not show as themselves
    (a bidi override, a zero-width space, a control character) as their code point, marked."""
    out: list[str] = []
    plain: list[str] = []
    for ch in text:
        if _hidden(ch):
            out.append(str(escape("".join(plain))))
            plain = []
            out.append(f'<span class="ctl" title="an invisible character">U+{ord(ch):04X}</span>')
        else:
            plain.append(ch)
    out.append(str(escape("".join(plain))))
    return Markup("".join(out))


def points(score: float | None) -> str:
    """A per-item score as written ("1", "0", "0.67")."""
    return "" if score is None else f"{round(score, 2):g}"


@dataclass(frozen=True)
class ResponseText:
    """A response as the page holds it: whole, or folded (its last lines, the rest behind a
    click), cut at SHOWN_CHARS."""

    full: Markup
    tail: Markup | None  # folded: its last lines
    chars: int
    lines: int
    cut: int  # characters not in the page


def response_text(text: str) -> ResponseText:
    lines = text.split("\n")
    kept = text[:SHOWN_CHARS]
    folded = len(text) > FOLD_CHARS or len(lines) > FOLD_LINES
    tail = None
    if folded:
        end = "\n".join([line for line in lines if line.strip()][-TAIL_LINES:])
        if len(end) > TAIL_CHARS:  # from the first word that begins in the last TAIL_CHARS
            end = end[-TAIL_CHARS:]
            end = "\u2026 " + end[end.find(" ") + 1 :] if " " in end else "\u2026" + end
        tail = shown(end)
    return ResponseText(shown(kept), tail, len(text), len(lines), len(text) - len(kept))


def column_context(col: Column) -> dict[str, Any]:
    """What the template shows of one entry's answer."""
    a = col.answer
    out: dict[str, Any] = {"key": col.key, "label": col.label, "scored": a is not None}
    if a is None:
        return out
    out.update(
        missing=a.missing,
        given=a.given,
        kept=a.response is not None or a.missing,
        response=None if a.response is None else response_text(a.response),
        extracted=None if a.extracted is None else shown(a.extracted),
        score=points(a.score),
        outcome=_outcome(a.score),
        corpus=a.score is None,
        lenient=(
            {
                "rule": a.lenient_rule or "",
                "answer": shown(a.lenient_answer or ""),
                "score": points(a.lenient_score),
                "cost": a.format_cost,
            }
            if a.recovered
            else None
        ),
    )
    return out


def _outcome(score: float | None) -> str:
    if score is None:
        return "corpus"
    return "right" if score >= 1 else "wrong" if score <= 0 else "partial"


def item_context(record: Record) -> dict[str, Any]:
    """What the template shows of a public item: its question and gold."""
    refs = record.answers
    return {
        "id": record.id,
        "question": shown(record.question),
        "options": [shown(o) for o in record.multiple_choice_options],
        "gold": [shown(a) for a in refs[:SHOWN_REFERENCES]],
        "more_gold": [shown(a) for a in refs[SHOWN_REFERENCES:]],
        "translation": record.task == "translation",
        "facts": [
            label_of("by_source", record.source),
            label_of("by_task", record.task),
            label_of("by_content", record.question_content),
            " \u2192 ".join(
                LANGUAGE_LABELS.get(x, x)
                for x in (record.question_language, record.answer_language)
            ),
        ],
    }


def view_html(view: AnswersView, options: Mapping[str, list[tuple[str, str]]]) -> str:
    """The view's HTML (templates/answers.html): the picker, the walk's position and links,
    the item and one column per chosen entry."""
    choice = view.choice
    return render(
        "answers.html",
        view=view,
        item=None if view.record is None else item_context(view.record),
        columns=[column_context(c) for c in view.columns],
        entries_text=", ".join(k.replace("e:", "#") for k in choice.entries),
        groups=[
            (param, DIMENSIONS[dim].name, options[param], choice.groups.get(param, ""))
            for param, dim in GROUPS
        ],
        filters=list(FILTERS.items()),
        prev_href=href(choice, view.prev) if view.prev else "",
        next_href=href(choice, view.next) if view.next else "",
        self_href=href(choice),
        json_href=href(choice, route=JSON_ROUTE),
        max_entries=MAX_ENTRIES,
    )


def _answer_json(a: Answer) -> dict[str, Any]:
    return {
        "response": a.response,
        "given": a.given,
        "missing": a.missing,
        "extracted": a.extracted,
        "score": a.score,
        "lenient": (
            {"answer": a.lenient_answer, "rule": a.lenient_rule, "score": a.lenient_score}
            if a.lenient_rule is not None or a.lenient_answer is not None
            else None
        ),
        "format_cost": a.format_cost,
    }


def view_json(view: AnswersView) -> dict[str, Any]:
    """The view as data (the JSON route): the same item, walk and answers as the page."""
    r = view.record
    return {
        "choice": view.choice.query(),
        "item": None
        if r is None
        else {
            "id": r.id,
            "question": r.question,
            "options": list(r.multiple_choice_options),
            "gold": list(r.answers),
            "source": r.source,
            "task": r.task,
            "content": r.question_content,
            "language_pair": r.language_pair,
            "suspected_gold_error": view.flag or None,
        },
        "position": view.position,
        "total": view.total,
        "prev": view.prev,
        "next": view.next,
        "entries": [
            {
                "key": c.key,
                "label": c.label,
                "answer": None if c.answer is None else _answer_json(c.answer),
            }
            for c in view.columns
        ],
        "notes": list(view.notes),
    }
