"""The answers page (`/answers`) and its data (`/answers.json`): what the chosen entries wrote
on one public item at a time (views/answers.py; the entries' sheets: answers.py).

- `GET /answers?item=&entries=e:1,e:4&task=&content=&pair=&source=&filter=`: the page,
  server-rendered (static/answers_page.html around templates/answers.html, with answers.js
  and answers.css);
- `GET /answers.json?...`: the same view as data.

Without `entries`, the page shows the board's best entries scored on the item's source (at
most six) and puts them in the address bar: every link of the page names its entries. An
`item` that is no public item (unknown, malformed, or a Certamen / NLE item) is answered with
the same 404 whatever it names. Handlers are plain functions: Starlette runs them in its
thread pool. A failure is logged by its type and place only, never its message.
"""

from __future__ import annotations

import logging
import math
import re
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ..answers import AnswerSheets
from ..rows import is_scored, key_of, parse_entry_id, parse_key, short_label
from ..service import ANALYSIS_WAIT, Space
from ..store import Entry
from ..views.answers import (
    FILTERS,
    JSON_ROUTE,
    MAX_ENTRIES,
    ROUTE,
    AnswersView,
    Choice,
    build_view,
    checked_groups,
    group_options,
    href,
    view_html,
    view_json,
)
from .board_page import page_template
from .routes import BOARD_NAME, NO_STORE, PAGES

log = logging.getLogger(__name__)

NOT_FOUND = "No such public item (Certamen and NLE items are never shown)."
MAX_QUERY_CHARS = 2000  # a longer query string is not read
_TOKEN = re.compile(r"[\s,]+")


def entry_keys(text: str) -> tuple[list[str], list[str]]:
    """The entry keys a person or a link gave ("e:12", "#12", "12"; commas or spaces between),
    and our own notes on the tokens that are no entry key (never echoed)."""
    keys: list[str] = []
    notes: list[str] = []
    bad = 0
    for token in _TOKEN.split(text.strip())[: 4 * MAX_ENTRIES]:
        if not token:
            continue
        parsed = parse_key(token)
        number = parse_entry_id(token) if parsed is None else None
        if parsed is not None:
            keys.append(f"{parsed[0]}:{parsed[1]}")
        elif number is not None:
            keys.append(f"e:{number}")
        else:
            bad += 1
    if bad:
        notes.append(f"{bad} of the entries given {'is' if bad == 1 else 'are'} no entry number.")
    return keys, notes


class AnswersPage:
    """The page's state: the public records, their walk groups, the entries' sheets."""

    def __init__(
        self,
        space: Space,
        *,
        static: Callable[[str], str],
        sans: Markup,
        mono: Markup,
        api_href: str,
        sheets: AnswerSheets | None = None,
    ) -> None:
        self.space = space
        self.static = static
        self.page = {"sans": sans, "mono": mono, "api_href": api_href}
        self.sheets = sheets or AnswerSheets(
            space.store, space.gold, cache_bytes=space.limits.compare_cache_mb * 2**20
        )
        self.public = [r for r in space.gold.records if not r.is_private]
        self.by_id = {r.id: r for r in self.public}
        self.options = group_options(self.public)

    # -- the choice ------------------------------------------------------------------------

    def _entries(self, text: str, source: str | None) -> tuple[list[Entry], list[str], bool]:
        """The shown entries `text` names (at most MAX_ENTRIES), our notes on the rest, and
        whether they were chosen by default (none named: the board's best with `source`)."""
        snap = self.space.snapshot()
        keys, notes = entry_keys(text)
        if not keys:
            return self._default(source), notes, True
        chosen: list[Entry] = []
        for key in dict.fromkeys(keys):
            row = snap.resolve(key)
            if row is None:
                notes.append(f"#{key.split(':', 1)[1]} is not on the board.")
            elif not is_scored(row):
                notes.append(f"{row.model} (paper) has no per-item answers.")
            elif len(chosen) == MAX_ENTRIES:
                notes.append(f"At most {MAX_ENTRIES} entries side by side: #{row.id} left out.")
            else:
                chosen.append(snap.by_id[row.id])  # the shown entry (values as released)
        return chosen, notes, False

    def _default(self, source: str | None) -> list[Entry]:
        """The board's best shown entries (by overall accuracy, then number) scored on
        `source` (any public source when None): what a link without entries shows."""
        snap = self.space.snapshot()

        def best_first(entry: Entry) -> tuple[float, int]:
            score = entry.report.accuracy.overall.score  # NaN: withheld (privacy.py)
            return (-score if score is not None and not math.isnan(score) else 1.0, entry.id)

        def build() -> list[Entry]:
            wanted = {source} if source else {r.source for r in self.public}
            found = [e for e in snap.entries if wanted & set(e.sources)]
            return sorted(found, key=best_first)[:MAX_ENTRIES]

        return self.space.reads.cached(snap, ("answers default", source), build)

    def _flagged(self, needed: bool) -> dict[str, str]:
        """The public suspected gold errors of the board's item analysis (id -> why). The
        analysis is made in the background after writes (`Space.item_analysis`); only the
        flagged walk (`needed`) waits for the current one, `ANALYSIS_WAIT` seconds at most (then
        the last one made, as the Items page shows it); the other walks show the flags of the
        last one made, never waiting."""
        analysis = self.space.item_analysis(wait=ANALYSIS_WAIT if needed else False)
        return {it.id: it.why for it in analysis.flagged if not it.is_private}

    def view(self, query: Mapping[str, str] | None) -> AnswersView | None:
        """The view the query asks for; None for an item that is no public item (and for a
        query too long to read)."""
        if query is None:
            return None
        item = query.get("item") or None
        if item is not None and item not in self.by_id:
            return None  # unknown, malformed or private: one answer for all
        record = self.by_id.get(item) if item else None
        entries, notes, default = self._entries(
            query.get("entries", ""), record.source if record else None
        )
        if default and entries:
            notes.append(
                "No entries were chosen: these are the board's best entries scored on this "
                "item's source."
            )
        groups = checked_groups(query, self.public)
        chosen = Choice(
            item=item,
            entries=tuple(key_of(e) for e in entries),
            groups=groups,
            filter=query.get("filter") if query.get("filter") in FILTERS else None,
        )
        columns = [(key_of(e), short_label(e), self.sheets.sheet(e)) for e in entries]
        flagged = self._flagged(chosen.filter == "flagged")
        return build_view(self.public, chosen, columns, flagged, notes)

    # -- the routes ------------------------------------------------------------------------

    @staticmethod
    def _query(request: Any) -> dict[str, str] | None:
        if len(request.url.query) > MAX_QUERY_CHARS:
            return None  # not read: answered as an unknown item
        return dict(request.query_params.items())

    def _page(self, body: str, self_href: str) -> str:
        return page_template("answers_page.html").render(
            title="Answers · RespondeoQA leaderboard",
            board_name=BOARD_NAME,
            pages=PAGES,
            css=Markup(self.static("page.css") + self.static("answers.css")),
            script=Markup(self.static("answers.js")),
            body=Markup(body),  # the view's template escaped every value
            self_href=self_href,
            **self.page,
        )

    def html(self, request: Any) -> Any:
        from starlette.responses import HTMLResponse
        from starlette.responses import PlainTextResponse as Plain

        try:
            found = self.view(self._query(request))
            if found is None:
                body = f'<p class="answers-empty" role="status">{NOT_FOUND}</p>'
                return HTMLResponse(self._page(body, ROUTE), status_code=404, headers=NO_STORE)
            page = self._page(view_html(found, self.options), href(found.choice))
            return HTMLResponse(page, headers=NO_STORE)
        except Exception as exc:  # never a traceback, nor anything it may quote
            _log_failure(exc)
            return Plain("the answers could not be shown", status_code=500, headers=NO_STORE)

    def json(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        try:
            found = self.view(self._query(request))
            if found is None:
                return JSONResponse({"error": NOT_FOUND}, status_code=404, headers=NO_STORE)
            return JSONResponse(view_json(found), headers=NO_STORE)
        except Exception as exc:
            _log_failure(exc)
            return JSONResponse(
                {"error": "the answers could not be shown"}, status_code=500, headers=NO_STORE
            )

    def routes(self) -> list[Any]:
        from starlette.routing import Route

        return [Route(f"/{ROUTE}", self.html), Route(f"/{JSON_ROUTE}", self.json)]


def _log_failure(exc: BaseException) -> None:
    frames = traceback.extract_tb(exc.__traceback__)[-4:]
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames))
    log.error("answers failed with %s at %s", type(exc).__name__, where)
