"""The page's HTML fragments from `templates/` (Jinja, autoescaped): the board and an entry's
detail. Every value is escaped, because the page's HTML components would run any markup they
are given; only our own Markdown (`legend.py`) goes in as markup, rendered here."""

from __future__ import annotations

import html
import re
from functools import cache
from typing import Any

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("respondeoqa_space.views", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["breakable"] = lambda text: Markup(breakable(str(text)))
    return env


def render(name: str, **context: Any) -> str:
    """The template `name` of `templates/` rendered with `context`."""
    return _environment().get_template(name).render(**context)


@cache
def _markdown() -> MarkdownIt:
    # no raw HTML: our Markdown holds none, and a slip would reach the page as text
    return MarkdownIt("commonmark", {"html": False})


def own_markdown(text: str) -> Markup:
    """Our own Markdown text (never a user's string) as markup for a template."""
    return Markup(_markdown().render(text))


_EMPHASIS = re.compile(r"\*([^*\n]+)\*")
_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$<>&])")


def _escaped(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text)


_BREAK_AFTER = re.compile(r"(?:[_\-/]|\.(?!\d))+(?=[^\s_\-/.])")
"""A run of "_", "-", "/" and dots before no digit, and after it a character of a word."""


def _pieces(text: str) -> list[str]:
    """`text` cut after each place a line may break in an id, a name or a link."""
    ends = [m.end() for m in _BREAK_AFTER.finditer(text)]
    return [text[a:b] for a, b in zip([0, *ends], [*ends, len(text)], strict=True)]


def breakable(text: str) -> str:
    """Text as HTML (escaped) that a narrow column may wrap after "_", "-", "/" or a dot
    before a letter (a `<wbr>` there) and nowhere else but between words: an item id wraps
    between its parts ("latin-grammar-junior-scholarship_" / "2.4.3": a number keeps its
    dots) and never inside one, where the browser broke it to fit ("2.4." / "3"), and so does
    a model name or a link. Copied or searched, the text is as written. For the `breakable`
    filter of the templates."""
    return "<wbr>".join(html.escape(p, quote=False) for p in _pieces(str(text)))


def breakable_markdown(text: str) -> str:
    """`breakable` as Markdown for a Dataframe cell of datatype "markdown" (an item's id as a
    link's text): every character escaped, a `<wbr>` at each place the id may wrap."""
    return "<wbr>".join(_escaped(p) for p in _pieces(str(text)))


def gold_markdown(text: str) -> str:
    """A public question or gold answer as Markdown for a Dataframe cell of datatype
    "markdown": its own emphasis (upstream writes a Latin word as *Thisbe*, a gold as *Fas*)
    shown in italics, every other character escaped, so the text shows as written and no
    markup in it ever runs."""
    out, at = [], 0
    for match in _EMPHASIS.finditer(text):
        out += [_escaped(text[at : match.start()]), f"*{_escaped(match.group(1))}*"]
        at = match.end()
    out.append(_escaped(text[at:]))
    return " ".join("".join(out).split())


def markdown_text(text: str) -> str:
    """A user's text (a model's name) as Markdown that shows it as written: every character
    Markdown or HTML would read escaped, its whitespace one space."""
    return " ".join(_escaped(text).split())
