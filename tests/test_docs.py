"""The README stays a short front page (issue 39) whose links lead somewhere: at most
`README_MAX_LINES` lines, and every relative link in it names a file of the repository and, with
`#anchor`, a heading of that file as GitHub renders it. The documentation site's own links and
anchors are checked by `mkdocs build --strict` in .ci/run (mkdocs.yml, `validation`)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 250

LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
"""An inline Markdown link's target (images left out)."""
ABSOLUTE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
"""A target with a scheme (https:, mailto:): not a file of the repository."""
FENCE = re.compile(r"^ {0,3}(```|~~~)")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def _outside_code(text: str) -> list[str]:
    """The lines of Markdown `text` that are not inside a fenced code block."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def github_slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: the text as rendered, lowercased, every character
    that is not a letter, digit, mark, `_`, `-` or space removed, each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "").lower()
    kept = "".join(
        c for c in text if c in "_- " or unicodedata.category(c)[0] in "LNM"
    )  # letters, numbers, marks
    return kept.replace(" ", "-")


def anchors(markdown: Path) -> set[str]:
    """Every heading anchor of a Markdown file (a repeated one also as `-1`, `-2`, ...)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _outside_code(markdown.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(markdown: Path, root: Path) -> list[str]:
    """Every relative link of `markdown` whose file (inside `root`) or heading does not exist."""
    broken = []
    for line in _outside_code(markdown.read_text(encoding="utf-8")):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if ABSOLUTE.match(target):
                continue
            path, _, anchor = target.partition("#")
            file = (markdown.parent / path).resolve() if path else markdown
            if not file.is_relative_to(root) or not file.exists():
                broken.append(f"{target}: no such file")
            elif anchor and (file.suffix != ".md" or anchor not in anchors(file)):
                broken.append(f"{target}: no heading #{anchor} in {file.relative_to(root)}")
    return broken


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_every_relative_link_of_the_readme_leads_somewhere() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    assert len(LINK.findall(text)) > 20  # the README links into the docs
    assert broken_links(readme, ROOT) == []


def test_the_readme_links_every_page_of_the_docs() -> None:
    """Every page of the site is one link away from the README (the API reference's module
    pages through its index, the changelog as CHANGELOG.md itself)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {target.partition("#")[0] for target in LINK.findall(text)}
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} - {"docs/changelog.md"}
    assert pages - linked == set()


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Decisions where the paper is silent", "decisions-where-the-paper-is-silent"),
        ("Why the board's numbers differ from `score`", "why-the-boards-numbers-differ-from-score"),
        (
            "Running inside lm-evaluation-harness / lighteval",
            "running-inside-lm-evaluation-harness--lighteval",
        ),
        ("Dataset (`load_dataset`)", "dataset-load_dataset"),
        ("Évaluation: 2. **Étapes**", "évaluation-2-étapes"),
    ],
)
def test_anchors_are_githubs(heading: str, slug: str) -> None:
    assert github_slug(heading) == slug


def test_a_broken_link_or_anchor_is_found(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "page.md").write_text(
        "# Page\n\n## Two words\n\n```\n## not a heading\n```\n", encoding="utf-8"
    )
    (repo / "README.md").write_text(
        "# Top\n\n[ok](docs/page.md) [ok](docs/page.md#two-words) [ok](#top)\n"
        "[x](docs/gone.md) [x](docs/page.md#not-a-heading) [x](#nowhere) [x](../outside.md)\n"
        "[web](https://example.org/x.md) `[code](docs/gone.md)`\n",
        encoding="utf-8",
    )
    (tmp_path / "outside.md").write_text("# Out\n", encoding="utf-8")  # not the repository's
    assert broken_links(repo / "README.md", repo) == [
        "docs/gone.md: no such file",
        "docs/page.md#not-a-heading: no heading #not-a-heading in docs/page.md",
        "#nowhere: no heading #nowhere in README.md",
        "../outside.md: no such file",
    ]
