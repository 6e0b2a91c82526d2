"""The app's own HTTP routes, served outside Gradio (no session, no queue), from the read model.

- `GET /board?view=&coverage=[&verified=1][&page=N][&q=text][&entry=e:12]`: the board's HTML,
  what a page load fetches (`verified=1`: entries the leaderboard evaluated itself only;
  `page`: the N-th page of BOARD_MAX_ROWS rows of a coverage; `q`: the rows of the coverage a
  search finds, each with its rank; `entry`: the page that holds that entry's row);
- `GET /board.csv?view=&coverage=[&verified=1]`: the same table as CSV, every entry;
- `without=flagged` on the board, the detail and the CSV: every number, interval and rank
  without the items the item analysis flags as suspected gold errors (`without.py`), labelled
  above the board and the detail (the file name of the CSV says so); while that variant is
  being made, the board and the detail say so and show the paper's numbers, and the CSV
  answers 503 with `Retry-After`;
- `GET /entry?entry=e:12`: an entry's detail as HTML, what a row click fetches (404 with one
  line of HTML for an entry that is not shown), with links to its per-item results and to its
  answers (`/answers?entries=e:12`, web/answers_page.py);
- `GET /entry.csv?entry=e:12`: an entry's public per-item results, decided at request time (a
  hidden or withdrawn entry's download answers 404);
- `GET /item_analysis.csv`: the item analysis of the board's entries on the public items: the
  current data version's, waited for at most ANALYSIS_WAIT seconds (it is made in the
  background after writes), else the last one made; `Last-Modified` and `X-Analysis-Age`
  (seconds) say when it was made, `X-Analysis-Current` whether it is of the board as it is;
  503 with `Retry-After` before the first one is made;
- `GET /example.jsonl`: an example submission on the public items (synthetic responses, about
  60% right): the format to follow;
- `POST /record/pull`: read the record again now (the operator, after `respondeoqa-space admin --repo`;
  needs the Space's own Hub token in `X-Record-Token`; 404 when the Space keeps no record);
  with `?choice=repush` or `?choice=accept`, the operator's answer when the record diverged
  (`respondeoqa-space admin record`, `Space.resolve_record`).

Handlers are plain functions: Starlette runs them in its thread pool, never on the event loop.
The downloads (CSV, JSONL) are sent compressed when the client accepts it
(`pagecache.CompressedAnswers`, app.py).
"""

from __future__ import annotations

import hmac
from email.utils import formatdate
from typing import Any
from urllib.parse import urlencode

from ..readmodel import BOARD_ROUTE, CSV_ROUTE
from ..rows import is_scored, key_of
from ..service import ANALYSIS_WAIT, Space, without_label
from ..views.answers import Choice
from ..views.answers import href as answers_link
from ..views.detail import detail_html
from ..without import WITHOUT

# the pages beside the board (Gradio's multipage routes, app.py)
COMPARE_PAGE, ITEMS_PAGE, SIZE_PAGE = "compare", "items", "size"
SUBMIT_PAGE, REQUEST_PAGE, ABOUT_PAGE = "submit", "request", "about"
BOARD_NAME = "Board"  # the main page (`/`: web/board_page.py), first in every navigation bar
PAGES = (
    ("Compare", COMPARE_PAGE),
    ("Items", ITEMS_PAGE),
    ("Size", SIZE_PAGE),
    ("Submit", SUBMIT_PAGE),
    ("Request an evaluation", REQUEST_PAGE),
    ("About", ABOUT_PAGE),
)
"""Every page beside the board, as its navigation bar names it, in order, and its path."""

DETAIL_ROUTE = "entry"
ITEMS_ROUTE = "entry.csv"
ANALYSIS_ROUTE = "item_analysis.csv"
EXAMPLE_ROUTE = "example.jsonl"
PULL_ROUTE = "record/pull"
TOKEN_HEADER = "x-record-token"
NO_STORE = {"Cache-Control": "no-store"}
DOWNLOADS = (CSV_ROUTE, ITEMS_ROUTE, ANALYSIS_ROUTE, EXAMPLE_ROUTE)


def _attachment(name: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{name}"', **NO_STORE}


def read_routes(space: Space) -> list[Any]:
    """The routes above, for `demo.launch(app_kwargs={"routes": ...})`."""
    from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
    from starlette.routing import Route

    def board(request: Any) -> Response:
        q = request.query_params
        verified = q.get("verified") == "1"
        asked = (
            q.get("view"),
            q.get("coverage"),
            verified,
            q.get("page"),
            q.get("q"),
            q.get("entry"),
        )
        snap, variant, making = space.variant(q.get(WITHOUT))
        # the paper's board as the read model serves it; the variant's from its own snapshot
        html = space.reads.board(*asked) if variant is None else snap.board(*asked)
        return HTMLResponse(without_label(variant, making) + html, headers=NO_STORE)

    def detail(request: Any) -> Response:
        key = request.query_params.get("entry")
        snap, variant, making = space.variant(request.query_params.get(WITHOUT))
        found = space.detail(key, variant)
        row = snap.resolve(key) if found is not None else None
        csv_href = (
            f"{ITEMS_ROUTE}?{urlencode({'entry': key_of(row)})}"
            if found is not None and found.items_csv is not None and row is not None
            else ""
        )
        answers_href = (
            answers_link(Choice(entries=(key_of(row),)))
            if found is not None and row is not None and is_scored(row)
            else ""
        )
        label = without_label(variant, making) if found is not None else ""
        return HTMLResponse(
            label + detail_html(found, csv_href, answers_href, row),
            status_code=200 if found is not None else 404,
            headers=NO_STORE,
        )

    def board_csv(request: Any) -> Response:
        q = request.query_params
        verified = q.get("verified") == "1"
        snap, _, making = space.variant(q.get(WITHOUT))
        if making:  # never the paper's numbers under the switch's name
            return PlainTextResponse(
                "the numbers without the suspected gold errors are being made; try again in a "
                "minute",
                status_code=503,
                headers={"Retry-After": "30", **NO_STORE},
            )
        name, data = snap.csv(q.get("view"), q.get("coverage"), verified)
        return Response(data, media_type="text/csv; charset=utf-8", headers=_attachment(name))

    def items_csv(request: Any) -> Response:
        found = space.items_csv(request.query_params.get("entry"))
        if found is None:
            return PlainTextResponse("no such entry", status_code=404, headers=NO_STORE)
        name, data = found
        return Response(data, media_type="text/csv; charset=utf-8", headers=_attachment(name))

    def analysis_csv(request: Any) -> Response:
        found = space.item_analysis_download(ANALYSIS_WAIT)
        if found is None:
            return PlainTextResponse(
                "the item analysis is being made; try again in a minute",
                status_code=503,
                headers={"Retry-After": "30", **NO_STORE},
            )
        name, data, made = found
        when = {
            "Last-Modified": formatdate(made.made, usegmt=True),
            "X-Analysis-Age": str(int(made.age())),
            "X-Analysis-Current": "1" if made.version == space.store.data_version() else "0",
        }
        return Response(
            data, media_type="text/csv; charset=utf-8", headers=_attachment(name) | when
        )

    def example(request: Any) -> Response:
        return Response(
            space.example_jsonl(),
            media_type="application/jsonl; charset=utf-8",
            headers={**_attachment("respondeoqa-example.jsonl"), "Cache-Control": "max-age=3600"},
        )

    def pull(request: Any) -> Response:
        token = space.config.hub_token
        if space.syncer is None or not token:
            return PlainTextResponse("not found", status_code=404)
        given = request.headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(given.encode(), token.encode()):
            return PlainTextResponse("forbidden", status_code=403)
        choice = request.query_params.get("choice")
        if choice:
            ok, said = space.resolve_record(choice)
            return JSONResponse({"record": said}, status_code=200 if ok else 409)
        space.syncer.request_pull()
        return JSONResponse({"pull": "requested"}, status_code=202)

    return [
        Route(f"/{BOARD_ROUTE}", board),
        Route(f"/{CSV_ROUTE}", board_csv),
        Route(f"/{DETAIL_ROUTE}", detail),
        Route(f"/{ITEMS_ROUTE}", items_csv),
        Route(f"/{ANALYSIS_ROUTE}", analysis_csv),
        Route(f"/{EXAMPLE_ROUTE}", example),
        Route(f"/{PULL_ROUTE}", pull, methods=["POST"]),
    ]
