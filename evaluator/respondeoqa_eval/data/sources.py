"""The source table: every fact about the benchmark's sources and upstream files, stated once.

Who publishes each source and on what terms, its display names, which upstream files hold its
items (with their task, size and, for the public ones, the pinned sha256), and where the pinned
upstream commit lives. The reader (`upstream.py`), the download (`fetch.py`), the gold loader,
the dataset configs and card, and the leaderboard all read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass

UPSTREAM_REPO = "slanglab/RespondeoQA"
UPSTREAM_COMMIT = "c23c988253ee79a5f3b645c9caf381733ab584b6"
UPSTREAM_URL = f"https://github.com/{UPSTREAM_REPO}"
UPSTREAM_RAW_URL = (
    f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{UPSTREAM_COMMIT}/data/final_dataset/"
)

HUB_DATASET = "slanglab/RespondeoQA"
"""The Hub dataset repository the harness tasks read by default (`dataset_path`): the public
configs as `respondeoqa-eval dataset push` uploads them. It is where the authors are to publish
the dataset; nothing here checks that it exists, and a local `dataset build` folder works too."""

PAPER_TITLE = "RespondeoQA: a Benchmark for Bilingual Latin-English Question Answering"
PAPER_AUTHORS = "Hudspeth, Burns and O'Connor"
# full names as the upstream README (at UPSTREAM_COMMIT) and the arXiv listing give them
PAPER_AUTHOR_NAMES = ("Marisa Hudspeth", "Patrick J. Burns", "Brendan O'Connor")
PAPER_ARXIV = "2604.20738"
PAPER_CITATION = f"{PAPER_AUTHORS} (2026), arXiv:{PAPER_ARXIV}"
PAPER_BIBTEX = f"""@misc{{hudspeth2026respondeoqa,
  title         = {{{PAPER_TITLE}}},
  author        = {{{" and ".join(PAPER_AUTHOR_NAMES)}}},
  year          = {{2026}},
  eprint        = {{{PAPER_ARXIV}}},
  archivePrefix = {{arXiv}},
  primaryClass  = {{cs.CL}},
  url           = {{https://arxiv.org/abs/{PAPER_ARXIV}}}
}}"""
"""How to cite the benchmark: the one BibTeX entry the README, the dataset card and the
Space's About page all show."""


@dataclass(frozen=True)
class SourceInfo:
    """One source: its keys and names, who publishes it and on what terms."""

    key: str  # short key used in ids, configs and reports
    label: str  # the paper's name (Jun-Schol, Lat-Pros, ...)
    display_name: str  # what a reader of the leaderboard sees
    name: str  # the full title
    upstream_name: str  # `source_name` in the upstream files
    publisher: str
    terms: str
    public: bool  # redistributable (shipped) or private (the user's own copy only)
    license_id: str


_OBTAIN = (
    f"Obtain the files as the upstream README ({UPSTREAM_URL.removeprefix('https://')}) describes."
)

SOURCE_INFO: dict[str, SourceInfo] = {
    s.key: s
    for s in (
        SourceInfo(
            "certamen",
            "Certamen",
            "Certamen",
            "NJCL Certamen questions, 1996-2009",
            "NJCL-Certamen",
            "the National Junior Classical League (JCL)",
            "Copyrighted and hosted by the Junior Classical League; not redistributed here. "
            + _OBTAIN,
            False,
            "copyright-njcl",
        ),
        SourceInfo(
            "nle",
            "NLE",
            "NLE",
            "National Latin Exam 2015, 2020, 2025",
            "NLE",
            "the National Latin Exam (American Classical League / NJCL)",
            "May not be used to generate profit; not redistributed here. " + _OBTAIN,
            False,
            "nle-non-commercial",
        ),
        SourceInfo(
            "jun-schol",
            "Jun-Schol",
            "Junior Scholarship",
            "Latin Grammar and Junior Scholarship Papers (1884)",
            "latin-grammar-junior-scholarship",
            "textbook, public domain",
            "Public domain: free to use, redistribute and adapt.",
            True,
            "public-domain",
        ),
        SourceInfo(
            "lat-pros",
            "Lat-Pros",
            "Latin Prosody",
            "Exercises in Latin Prosody and Versification (1823)",
            "exercises-in-latin-prosody",
            "textbook, public domain",
            "Public domain: free to use, redistribute and adapt.",
            True,
            "public-domain",
        ),
    )
}
"""Every source, by key, in the paper's order."""

SOURCES = tuple(SOURCE_INFO)
PUBLIC_SOURCES = tuple(k for k, s in SOURCE_INFO.items() if s.public)
PRIVATE_SOURCES = tuple(k for k, s in SOURCE_INFO.items() if not s.public)
SOURCE_NAMES = {s.upstream_name: k for k, s in SOURCE_INFO.items()}
"""Upstream `source_name` -> source key."""


@dataclass(frozen=True)
class FileSpec:
    """What an upstream question file holds and how its items are scored."""

    name: str
    source: str
    task: str
    rows: int  # row count of the released file (paper Table 3 / the upstream README)
    sha256: str | None = None  # pinned digest of a public file at UPSTREAM_COMMIT
    passages: str | None = None  # companion passages file (NLE reading comprehension)
    paired: bool = False  # the same questions exist in another file in the other language

    @property
    def public(self) -> bool:
        return SOURCE_INFO[self.source].public


def _files() -> dict[str, FileSpec]:
    specs = [
        FileSpec(
            "junior_scholarship_short_answer.json",
            "jun-schol",
            "short_answer",
            675,
            "49139ae4d9c8c49d5ebab52ce19b376dd30bba8cbdfdc2372e919d30ae72d6a1",
        ),
        FileSpec(
            "junior_scholarship_translation_long.json",
            "jun-schol",
            "translation",
            350,
            "7a705f3c7164d26c0aeb25a9cc70b96dc3060aa735cb197e21f3daa3fb7daef0",
        ),
        FileSpec(
            "prosody_caesura_scansion_english.json",
            "lat-pros",
            "meter",
            41,
            "2fe087b420ef0e2bb8bcca83928313ae6b02b3ddfcad55b5d83e81877b11618f",
            paired=True,
        ),
        FileSpec(
            "prosody_caesura_scansion_latin.json",
            "lat-pros",
            "meter",
            41,
            "e14d38ba37f30866d47a2f6277737b33da4f99e7f801436bbfc679928575b081",
            paired=True,
        ),
        FileSpec(
            "prosody_feet_questions_english.json",
            "lat-pros",
            "feet",
            20,
            "05dd53a29c41d380eab801d23fc427077afbeca73ed20f7047fdbec0496b0d0f",
            paired=True,
        ),
        FileSpec(
            "prosody_feet_questions_latin.json",
            "lat-pros",
            "feet",
            20,
            "cf934151c2d0254c28a0e35c7b457411024eb2574f1ec120324f896710241460",
            paired=True,
        ),
        FileSpec("certamen_mc.json", "certamen", "multiple_choice", 315),
        FileSpec("certamen_short_answer.json", "certamen", "short_answer", 4596),
        FileSpec("certamen_translation_long.json", "certamen", "translation", 916),
    ]
    for year, other, rc in (("2015", 171, 103), ("2020", 173, 103), ("2025", 130, 176)):
        specs.append(FileSpec(f"nle_other_questions_{year}.json", "nle", "multiple_choice", other))
        specs.append(
            FileSpec(
                f"nle_reading_comp_questions_{year}.json",
                "nle",
                "multiple_choice",
                rc,
                passages=f"nle_reading_comp_passages_{year}.json",
            )
        )
    return {s.name: s for s in specs}


FILES: dict[str, FileSpec] = _files()
"""Every known upstream question file, by file name."""

PASSAGE_FILES = frozenset(s.passages for s in FILES.values() if s.passages)
PUBLIC_FILES = tuple(name for name, s in FILES.items() if s.public)
PUBLIC_SHA256: dict[str, str] = {
    name: sha for name in PUBLIC_FILES if (sha := FILES[name].sha256) is not None
}
"""The pinned sha256 of each public file at UPSTREAM_COMMIT."""

assert len(PUBLIC_SHA256) == len(PUBLIC_FILES) and all(PUBLIC_SHA256.values()), (
    "every public file needs its pinned sha256"
)
