"""The citation has one home (sources.PAPER_BIBTEX) and every rendering shows it unchanged."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import require
from respondeoqa_eval.data.sources import PAPER_BIBTEX

ROOT = Path(__file__).resolve().parents[1]


def _bibtex_blocks(markdown: str) -> list[str]:
    return [m.strip() for m in re.findall(r"```bibtex\n(.*?)```", markdown, flags=re.S)]


def test_the_entry_names_every_author_in_full() -> None:
    # as the upstream README (commit c23c988) gives them
    assert "author        = {Marisa Hudspeth and Patrick J. Burns and Brendan O'Connor}," in (
        PAPER_BIBTEX
    )
    assert PAPER_BIBTEX.startswith("@misc{hudspeth2026respondeoqa,")
    assert "eprint        = {2604.20738}," in PAPER_BIBTEX


def test_readme_docs_card_and_space_show_the_same_entry() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")  # the site's home page
    card = (ROOT / "dataset_card" / "README.md").read_text(encoding="utf-8")
    template = (
        ROOT / "evaluator" / "respondeoqa_eval" / "dataset" / "templates" / "card.md"
    ).read_text(encoding="utf-8")
    require("gradio")
    from respondeoqa_space.web.copy import ABOUT

    assert _bibtex_blocks(readme) == [PAPER_BIBTEX]
    assert _bibtex_blocks(home) == [PAPER_BIBTEX]
    assert _bibtex_blocks(card) == [PAPER_BIBTEX]  # the committed card, rendered
    assert _bibtex_blocks(template) == ["{{ citation }}"]
    assert _bibtex_blocks(ABOUT) == [PAPER_BIBTEX]
    for text in (readme, home, card, ABOUT):
        assert "@article" not in text
