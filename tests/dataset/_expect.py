"""Expected values for the dataset tests, written from the issue and PROTOCOL section 1
(never from the code under test)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from synthetic import PUBLIC_DIR, SECRET_MARKER, private_records, write_private

PUBLIC_FILES_DIR = PUBLIC_DIR  # the six verified public files (tests/synthetic.py)

NLE = [
    f"nle_{kind}_questions_{year}.json"
    for year in (2015, 2020, 2025)
    for kind in ("other", "reading_comp")
]
FILES_OF = {
    "certamen-multiple_choice": ["certamen_mc.json"],
    "certamen-short_answer": ["certamen_short_answer.json"],
    "certamen-translation": ["certamen_translation_long.json"],
    "nle-multiple_choice": NLE,
    "jun-schol-short_answer": ["junior_scholarship_short_answer.json"],
    "jun-schol-translation": ["junior_scholarship_translation_long.json"],
    "lat-pros-feet": ["prosody_feet_questions_english.json", "prosody_feet_questions_latin.json"],
    "lat-pros-meter": [
        "prosody_caesura_scansion_english.json",
        "prosody_caesura_scansion_latin.json",
    ],
}
FILES_OF["certamen"] = (
    FILES_OF["certamen-multiple_choice"]
    + FILES_OF["certamen-short_answer"]
    + FILES_OF["certamen-translation"]
)
FILES_OF["nle"] = NLE
FILES_OF["jun-schol"] = FILES_OF["jun-schol-short_answer"] + FILES_OF["jun-schol-translation"]
FILES_OF["lat-pros"] = FILES_OF["lat-pros-feet"] + FILES_OF["lat-pros-meter"]
FILES_OF["public"] = FILES_OF["jun-schol"] + FILES_OF["lat-pros"]
FILES_OF["all"] = FILES_OF["public"] + FILES_OF["certamen"] + NLE

PUBLIC_CONFIG_NAMES = {
    "public",
    "jun-schol",
    "lat-pros",
    "jun-schol-short_answer",
    "jun-schol-translation",
    "lat-pros-feet",
    "lat-pros-meter",
}
ALL_CONFIG_NAMES = set(FILES_OF)
PRIVATE_CONFIG_NAMES = ALL_CONFIG_NAMES - PUBLIC_CONFIG_NAMES


def raw_rows(folder: Path, config: str) -> list[dict]:
    """The upstream JSON rows of a config, straight from the files."""
    rows = []
    for name in FILES_OF[config]:
        rows += json.loads((folder / name).read_text(encoding="utf-8"))
    return rows


def synthetic_count(config: str) -> int:
    """Rows a config has in the synthetic private folder (public files included)."""
    priv = private_records()
    total = 0
    for name in FILES_OF[config]:
        if name in priv:
            total += len(priv[name])
        else:
            total += len(json.loads((PUBLIC_DIR / name).read_text(encoding="utf-8")))
    return total


__all__ = [
    "SECRET_MARKER",
    "write_private",
    "PUBLIC_FILES_DIR",
    "FILES_OF",
    "raw_rows",
    "synthetic_count",
]
