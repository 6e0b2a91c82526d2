"""What probing a running Space can learn about private answers (docs/leaderboard-safety.md,
"What probing can learn"), attacked as the issue's attacker did: stored submissions that answer every private
item with a letter no item has except chosen probes, their own breakdowns, every view and CSV,
and anonymous Compare calls; hidden groups read as complements; intervals as fingerprints; the
refusals as an id oracle.

Two real Spaces run side by side on two versions of the (synthetic) private gold that differ
only in the probed answers: world B flips one probe of every submission, and swaps which of
two items that share every group is right. Whatever the attacker sees must be the same in both
worlds, so the attack recovers nothing about those answers; before the release rules it read
every probe exactly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from gradio_client import Client
from kit.space_server import start_server
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_space.views.columns import VIEWS
from synthetic import SECRET_MARKER, write_private

from .helpers import board_rows, submit, write_jsonl

pytestmark = pytest.mark.slow

N_MC, N_NLE = 40, 20  # certamen_mc.json: 40 items; each NLE year: 20 + 10 reading comp.
WINDOW = 7  # probes per submission: a window of Certamen items answered "A"
SUBMISSIONS = 5
# one wrong probe made right per window; item 6 is Certamen's only literary-devices kind in
# its window, a group too small to show: its complement (the total minus the groups shown)
# must not give it away either
FLIPPED = {6: "A", 9: "A", 15: "A", 22: "A", 30: "A"}
SWAP = {1: "C", 29: "A"}  # items 1 and 29 share every group: which one is right swaps
NLE = [f"nle_{k}_questions_{y}.json" for y in (2015, 2020, 2025) for k in ("other", "reading_comp")]


def _world(folder: Path, changes: dict[int, str]) -> Path:
    """The synthetic private gold (and the public files), with Certamen MC item i's gold
    letter set to changes[i]."""
    write_private(folder, with_public=True, n_mc=N_MC, n_nle=N_NLE)
    path = folder / "certamen_mc.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    for i, letter in changes.items():
        rows[i]["answers"] = [f"{letter}: {SECRET_MARKER} answer {i}"]
    path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("probing")
    a = start_server(_world(base / "gold-a", {}), base / "space-a")
    b = start_server(_world(base / "gold-b", {**FLIPPED, **SWAP}), base / "space-b")
    yield a, b
    a.stop()
    b.stop()


def _ids(folder: Path) -> dict[str, list[str]]:
    """Item ids of the attacked files, by file (certamen MC in order)."""
    out = {}
    for name in ["certamen_mc.json", *NLE]:
        rows = json.loads((folder / name).read_text(encoding="utf-8"))
        out[name] = [r["question_id"] for r in rows]
    return out


def _probe_files(folder: Path, work: Path) -> list[Path]:
    """The attacker's submissions: every attacked item answered "Z" (no item has it) but the
    probes; submission s probes window s with "A"; the last answers item 1 with "B" and item
    29 with "A" (its count stays the same in both worlds: one right)."""
    work.mkdir(parents=True, exist_ok=True)
    ids = _ids(folder)
    mc = ids["certamen_mc.json"]
    rest = [i for name in NLE for i in ids[name]]
    files = []
    designs = [{j: "A" for j in range(s * WINDOW, (s + 1) * WINDOW)} for s in range(SUBMISSIONS)]
    designs.append({1: "B", 29: "A"})
    for s, probes in enumerate(designs):
        rows = [{"id": i, "answer": probes.get(j, "Z")} for j, i in enumerate(mc)]
        rows += [{"id": i, "answer": "Z"} for i in rest]
        files.append(write_jsonl(work / f"probe-{s}.jsonl", rows))
    return files


def _no_dates(value: object) -> object:
    """An observation without the entries' dates (the two worlds run seconds apart)."""
    text = json.dumps(value, sort_keys=True, default=str)
    return re.sub(r"20\d\d-\d\d-\d\d(T[0-9:.+]+)?", "DATE", text)


def _observe(server, files: list[Path]) -> list[object]:
    """Everything the attacker sees: each submission's reply, every view of the board (API
    and CSV), and Compare of every pair of their entries."""
    client = Client(server.url, verbose=False)
    seen: list[object] = []
    entries = []
    for s, path in enumerate(files):
        message, breakdown, *_ = submit(client, path, f"probe {s}")
        assert message.startswith("Stored as entry #"), message
        entries.append(re.match(r"Stored as entry #(\d+)", message).group(1))
        seen += [message, breakdown]
    for view in VIEWS:
        seen.append(board_rows(client.predict(view, "all coverages", api_name="/leaderboard")))
        csv = httpx.get(
            server.url + "board.csv", params={"view": view, "coverage": "all coverages"}
        )
        seen.append(csv.text)
    seen.append(httpx.get(server.url + "item_analysis.csv").text)
    for i, a in enumerate(entries):
        for b in entries[i + 1 :]:
            seen.append(client.predict([f"e:{a}", f"e:{b}"], api_name="/compare"))
    return [_no_dates(x) for x in seen]


def test_the_issues_attack_recovers_nothing(worlds, tmp_path: Path) -> None:
    a, b = worlds
    files_a = _probe_files(a.data_dir, tmp_path / "a")
    files_b = _probe_files(b.data_dir, tmp_path / "b")
    seen_a, seen_b = _observe(a, files_a), _observe(b, files_b)
    # the worlds differ in 7 probed answers (one per submission, and the swapped pair): the
    # attacker's view is the same, so it tells none of them
    different = [i for i, (x, y) in enumerate(zip(seen_a, seen_b, strict=True)) if x != y]
    assert different == [], [seen_a[i][:300] for i in different[:3]]
    # and what it could ever tell is bounded: the Space states its bound at start-up
    bound = re.search(r"at most ([\d.]+) bits about private answers per stored entry", a.log_text())
    assert bound and float(bound.group(1)) > 0
    for server in (a, b):
        assert SECRET_MARKER not in server.log_text()
    assert not any(SECRET_MARKER in str(x) for x in seen_a)


def test_refusals_tell_no_valid_private_id_from_a_made_up_one(worlds, tmp_path: Path) -> None:
    a, _ = worlds
    client = Client(a.url, verbose=False)
    gold = read_folder(a.data_dir)
    feet = [r for r in gold.records if r.file == "prosody_feet_questions_english.json"]
    public = [{"id": r.id, "answer": "dactyl"} for r in feet]
    real, made_up = "NJCL-Certamen_sa_3", "NJCL-Certamen_sa_9999"
    variants = {
        "an id": ([{"id": real, "answer": "x"}], [{"id": made_up, "answer": "x"}]),
        "a question id": (
            [{"question_id": real, "answer": "x"}],
            [{"question_id": made_up, "answer": "x"}],
        ),
        "a repeated id": (
            [{"id": real, "answer": "x"}] * 2,
            [{"id": made_up, "answer": "x"}] * 2,
        ),
        "an NLE id": (
            [{"id": "NLE_2015_other_3", "answer": "B"}],
            [{"id": "NLE_2015_other_93", "answer": "B"}],
        ),
    }
    for what, (valid, invalid) in variants.items():
        replies = []
        for tag, extra in (("valid", valid), ("invalid", invalid)):
            folder = tmp_path / what.replace(" ", "-") / tag
            folder.mkdir(parents=True)
            message = submit(client, write_jsonl(folder / "p.jsonl", public + extra), "oracle")[0]
            replies.append(message)
        assert replies[0] == replies[1], (what, replies)
        assert (
            replies[0].startswith("Not accepted: p.jsonl: ") and "row(s) name items" in replies[0]
        )
        assert real not in replies[0] and made_up not in replies[0]
    # a typo in a public id is still named: public ids are published
    typo = [*public, {"id": "prosody_app.I.1.1-xx", "answer": "x"}]
    folder = tmp_path / "typo"
    folder.mkdir()
    message = submit(client, write_jsonl(folder / "p.jsonl", typo), "typo")[0]
    assert "prosody_app.I.1.1-xx" in message and "not in the gold data" in message


def test_worlds_really_differ(worlds) -> None:
    """The test above can fail: the two Spaces hold different gold for the probed items."""
    a, b = worlds
    gold_a = json.loads((a.data_dir / "certamen_mc.json").read_text(encoding="utf-8"))
    gold_b = json.loads((b.data_dir / "certamen_mc.json").read_text(encoding="utf-8"))
    changed = [i for i, (x, y) in enumerate(zip(gold_a, gold_b, strict=True)) if x != y]
    assert changed == sorted({**FLIPPED, **SWAP})
