"""The details dataset (`respondeoqa-space admin details`, details.py) against the Hub stand-in
(tests/kit/hubstub.py, which huggingface_hub's own client talks to): one config per shown
entry, loaded back with `datasets` and equal to the entries' public items as submitted and
scored; no private item, question, answer or response in any file; a sync uploads only what
changed (new, withdrawn, re-scored entries, the card) in one commit, and nothing when nothing
changed; a dry run writes nothing; the Hub's passing outages are retried, a refusal is one
line and changes nothing; another writer's commit meanwhile is read and the sync made again."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from kit.hubstub import TOKEN, HubStub
from respondeoqa_eval import InputError
from respondeoqa_eval.data.gold import GoldSet
from respondeoqa_space.admin import Admin
from respondeoqa_space.cli import main as space_cli
from respondeoqa_space.details import COLUMNS, card_text, data_path
from respondeoqa_space.store import Store
from respondeoqa_space.store.hub import HubRepo

from .answerskit import FEET, SHORT, gold_of, private_rows, private_strings
from .helpers import WRONG, file_records, intake_of, stored

pytestmark = pytest.mark.slow  # a loopback Hub stand-in, and datasets

REPO = "org/respondeoqa-details"
HOSTILE = "<img src=x onerror=alert(1)> | *bold* [x](javascript:alert(1))"


def _repo(hub: HubStub, tmp_path: Path, repo_id: str = REPO, cls: type = HubRepo) -> HubRepo:
    return cls(
        repo_id,
        token=TOKEN,
        endpoint=hub.url,
        cache_dir=tmp_path / "hub-cache",
        sleep=lambda seconds: None,
    )


def _rows(gold: GoldSet, files: list[str], right: int) -> list[dict[str, str]]:
    """Raw responses to the items of `files`: the first `right` with their gold, the others
    wrong; every private item answered with a response quoting its question and gold."""
    rows = []
    for name in files:
        for i, r in enumerate(file_records(gold, name)):
            answer = gold_of(r) if i < right else WRONG
            rows.append({"id": r.id, "response": f"Reasoning about {r.id}.\nAnswer: {answer}"})
    return rows + private_rows(gold)


def _fetch(repo: HubRepo, folder: Path) -> Path:
    """The repository's files, downloaded whole from the stand-in into `folder`."""
    repo.download_folder(folder, ["*"])
    return folder


def _load(folder: Path, config: str, cache: Path) -> list[dict]:
    """The config as `datasets` reads it from the repository's files."""
    from datasets import load_dataset

    return load_dataset(str(folder), config, split="latest", cache_dir=str(cache)).to_list()


def _config_names(folder: Path) -> list[str]:
    from datasets import get_dataset_config_names

    return sorted(get_dataset_config_names(str(folder)))


@pytest.fixture
def board(private_gold, tmp_path: Path):
    """A store with three entries: A (short answers and feet), B (feet, a hostile name), C
    (hidden); each answers every private item too."""
    store = Store(tmp_path / "lb.sqlite3")
    intake = intake_of(store, private_gold)
    a = stored(intake, tmp_path, _rows(private_gold, [SHORT, FEET], 300), "model-a")
    b = stored(intake, tmp_path, _rows(private_gold, [FEET], 5), HOSTILE)
    c = stored(intake, tmp_path, _rows(private_gold, [FEET], 9), "hidden-c")
    store.set_hidden(c.id, True)
    admin = Admin(store, lambda: intake, actor="operator:test")
    return store, admin, (a, b, c)


def test_pushed_configs_load_with_datasets_and_equal_the_public_items(
    hub: HubStub, board, private_gold, tmp_path: Path
) -> None:
    store, admin, (a, b, c) = board
    repo = _repo(hub, tmp_path)
    said = admin.details(repo, echo=lambda line: None)
    assert said == (
        f"details {REPO}: 2 entries added or changed, 0 unchanged, 0 removed; "
        "the card rewritten (1 commit)"
    )
    assert hub.private[f"dataset:{REPO}"] is False  # a public dataset
    files = hub.files(REPO)
    assert set(files) == {"README.md", data_path(a.id), data_path(b.id)}  # not the hidden C
    assert len(hub.commits) == 1
    assert {f"dataset:{REPO}:{data_path(a.id)}", f"dataset:{REPO}:{data_path(b.id)}"} <= (
        hub.lfs_paths
    )
    folder = _fetch(repo, tmp_path / "download")
    cache = tmp_path / "datasets-cache"
    assert _config_names(folder) == [
        f"entry_{a.id}",
        f"entry_{b.id}",
    ]
    sent = {r["id"]: r["response"] for r in _rows(private_gold, [SHORT, FEET], 300)}
    for entry, sources in ((a, [SHORT, FEET]), (b, [FEET])):
        rows = _load(folder, f"entry_{entry.id}", cache)
        public = [r for name in sources for r in file_records(private_gold, name)]
        in_gold_order = [r.id for r in private_gold.records if r.id in {p.id for p in public}]
        assert [row["item_id"] for row in rows] == in_gold_order
        assert set(rows[0]) == {name for name, _ in COLUMNS}
        stored_items = store.item_scores(entry.id)
        for row in rows:
            record = private_gold.by_id[row["item_id"]]
            assert not record.is_private
            assert row["entry"] == entry.id and row["model"] == entry.model
            assert row["question"] == record.question and row["gold"] == record.answers
            assert row["score"] == stored_items[record.id].score  # the board's score
            assert row["extracted"] == stored_items[record.id].extracted
            assert row["missing"] is False and row["answer_given"] is False
            if entry is a:
                assert row["response"] == sent[record.id]
    # no private item anywhere: not in the rows, not in the card, not in a file's bytes
    texts = [(folder / "README.md").read_text(encoding="utf-8")]
    for entry in (a, b):
        rows = _load(folder, f"entry_{entry.id}", cache)
        texts += [str(row) for row in rows]
    secrets = private_strings(private_gold)
    assert [s for s in secrets for t in texts if s in t] == []
    # and the check can fail: the entries did answer the private items, with those strings
    kept = " ".join(row.get("response", "") for row in store.predictions(a.id) or [])
    assert any(s in kept for s in secrets)
    # the card: every config's file, the hostile name as text
    card = texts[0]
    assert f"- config_name: entry_{a.id}" in card and f"path: {data_path(a.id)}" in card
    assert not re.search(r"(?<!\\)<img", card) and "](javascript" not in card
    assert "\\<img src=x" in card


def test_a_sync_uploads_only_what_changed(
    hub: HubStub, board, private_gold, tmp_path: Path
) -> None:
    store, admin, (a, b, c) = board
    repo = _repo(hub, tmp_path)
    admin.details(repo, echo=lambda line: None)
    # nothing changed: nothing to commit
    assert admin.details(repo, echo=lambda line: None) == (
        f"details {REPO}: up to date: 2 entries, nothing to change"
    )
    assert len(hub.commits) == 1
    # B withdrawn, D added, C shown again: one commit, A not uploaded again
    store.delete(b.id)
    intake = admin.intake
    d = stored(intake, tmp_path, _rows(private_gold, [FEET], 12), "model-d")
    store.set_hidden(c.id, False)
    said = admin.details(repo, echo=lambda line: None)
    assert said.endswith(
        "2 entries added or changed, 1 unchanged, 1 removed; the card rewritten (1 commit)"
    )
    commit = hub.commits[-1]
    assert sorted(commit.added) == sorted(["README.md", data_path(c.id), data_path(d.id)])
    assert commit.deleted == [data_path(b.id)]
    assert set(hub.files(REPO)) == {"README.md", *(data_path(e.id) for e in (a, c, d))}
    # a re-score against a corrected gold changes A's file only (and the card's mean score)
    item = file_records(private_gold, FEET)[0]
    fixed = GoldSet(
        [
            dataclasses.replace(r, answers=[WRONG]) if r.id == item.id else r
            for r in private_gold.records
        ],
        list(private_gold.files),
    )
    admin._intake = intake_of(store, fixed)
    admin.details(repo, echo=lambda line: None)
    assert sorted(hub.commits[-1].added) == sorted(
        ["README.md", *(data_path(e.id) for e in (a, c, d))]  # every one answered that item
    )
    # the audit log says what each sync did
    assert [row[2] for row in store.audit_log() if row[2] == "details"] == ["details"] * 3


def test_a_dry_run_writes_nothing(hub: HubStub, board, tmp_path: Path) -> None:
    _, admin, (a, b, _) = board
    lines: list[str] = []
    said = admin.details(_repo(hub, tmp_path), dry_run=True, echo=lines.append)
    assert said == (
        f"dry run, nothing written to {REPO}: 2 entries added or changed, 0 unchanged, "
        "0 removed; the card rewritten"
    )
    assert lines[0].startswith(f"would upload {data_path(a.id)} (")
    assert hub.commits == [] and f"dataset:{REPO}" not in hub.created


def test_passing_outages_are_retried_and_refusals_change_nothing(
    hub: HubStub, board, tmp_path: Path
) -> None:
    _, admin, (a, b, _) = board
    repo = _repo(hub, tmp_path)
    hub.fail("POST", f"/api/datasets/{REPO}/commit/", status=500, times=2)
    assert admin.details(repo, echo=lambda line: None).endswith("(1 commit)")
    assert len(hub.commits) == 1
    store = admin.store
    store.set_hidden(b.id, True)
    hub.fail("POST", f"/api/datasets/{REPO}/commit/", status=503, times=50)
    with pytest.raises(InputError) as failed:
        admin.details(repo, echo=lambda line: None)
    assert "HTTP 503" in str(failed.value) and "\n" not in str(failed.value)
    hub.faults.clear()
    hub.deny_writes(REPO)
    with pytest.raises(InputError) as refused:
        admin.details(repo, echo=lambda line: None)
    assert "HTTP 403" in str(refused.value) and "\n" not in str(refused.value)
    assert len(hub.commits) == 1 and data_path(b.id) in hub.files(REPO)  # nothing changed
    hub.deny_writes(REPO, on=False)
    assert "1 removed" in admin.details(repo, echo=lambda line: None)


def test_another_writers_commit_is_read_and_the_sync_made_again(
    hub: HubStub, board, tmp_path: Path
) -> None:
    _, admin, (a, b, _) = board

    class Raced(HubRepo):
        """The first commit finds that someone committed since the head was read."""

        raced = False

        def commit(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            if not Raced.raced:
                Raced.raced = True
                hub.put(REPO, "notes.md", b"another writer")
            return super().commit(*args, **kwargs)

    lines: list[str] = []
    said = admin.details(_repo(hub, tmp_path, cls=Raced), echo=lines.append)
    assert said.endswith("(1 commit)") and Raced.raced
    assert any("another writer committed meanwhile" in line for line in lines)
    assert set(hub.files(REPO)) == {"README.md", "notes.md", data_path(a.id), data_path(b.id)}


def test_the_command_line(hub: HubStub, board, private_dir: Path, tmp_path: Path, capsys) -> None:
    store, _, (a, b, _) = board
    base = ["admin", "--db", str(store.path), "--data-dir", str(private_dir)]
    assert space_cli([*base, "details", "--details-repo", REPO, "--dry-run"]) == 0
    assert "dry run, nothing written" in capsys.readouterr().out and hub.commits == []
    assert space_cli([*base, "details", "--details-repo", REPO]) == 0
    assert f"details {REPO}: 2 entries added or changed" in capsys.readouterr().out
    assert space_cli([*base, "details"]) == 2
    assert "give --details-repo ORG/NAME" in capsys.readouterr().err
    assert space_cli([*base, "details", "--details-repo", "not a repo"]) == 2
    assert "--details-repo: expected a Hub repository id" in capsys.readouterr().err
    assert space_cli([*base, "--repo", REPO, "details", "--details-repo", REPO]) == 2


def test_the_card_names_every_config_and_escapes_names() -> None:
    from respondeoqa_space.details import EntryCard

    card = card_text(
        REPO, [EntryCard(7, HOSTILE, "2026-01-01", "Latin Prosody", 20, 20, 5.0, True)]
    )
    front = card.split("---")[1]
    assert "config_name: entry_7" in front and "path: entry_7/details.parquet" in front
    assert "split: latest" in front
    assert "| `entry_7` | #7 | \\<img src=x onerror=alert\\(1\\)\\> \\| \\*bold\\*" in card
    assert "0.250" in card


def test_the_space_keeps_the_details_current(
    hub: HubStub, private_gold, tmp_path: Path, monkeypatch, caplog
) -> None:
    """With a details dataset named, the Space syncs it after writes: never before its record
    is read (an empty copy would delete every config), an added entry's config up, a hidden
    one's gone, a Hub fault one log line and the sync made again later."""
    from kit.hubstub import RECORD_REPO
    from respondeoqa_space import service
    from respondeoqa_space.config import SpaceConfig

    from .helpers import record_repo, wait_until

    record_repo(hub, tmp_path / "record-cache")  # the record repository, made (and empty)
    monkeypatch.setattr(service, "DETAILS_SETTLE", 0.0)
    monkeypatch.setattr(service, "DETAILS_RETRY", 0.05)
    config = SpaceConfig(
        db=tmp_path / "space.sqlite3",
        gold=private_gold,
        mirror_repo=RECORD_REPO,
        details_repo=REPO,
        hub_token=TOKEN,
        hub_endpoint=hub.url,
        bootstrap=20,
    )
    space = service.Space(config)
    assert space.details_repo is not None
    space.details_repo.sleep = lambda seconds: None  # the Hub client's retries, unslept
    caplog.set_level("INFO", logger="respondeoqa_space")
    space.publish_details_after_writes()
    wait_until(lambda: space.details_sync.failures >= 1, "no sync was tried")
    assert "details dataset sync postponed: the record is reading" in caplog.text
    assert hub.files(REPO) == {} and space.details_sync.latest() is None  # nothing written

    space.read_record()  # the record read: the next try syncs (an empty board: the card)
    wait_until(lambda: space.details_sync.latest() is not None, "no sync after the read")
    a = stored(space.intake, tmp_path, _rows(private_gold, [SHORT, FEET], 300), "model-a")
    wait_until(lambda: data_path(a.id) in hub.files(REPO), "the new entry's config is not up")
    assert set(hub.files(REPO)) == {"README.md", data_path(a.id)}

    # a Hub fault: postponed with one line, made again once the Hub answers
    hub.fail("POST", f"/api/datasets/{REPO}/commit/", status=503, times=10_000)
    failures = space.details_sync.failures
    space.store.set_hidden(a.id, True)
    space.snapshot()  # a reader sees the new data version: a sync is asked for
    wait_until(lambda: space.details_sync.failures > failures, "the fault was not met")
    assert data_path(a.id) in hub.files(REPO)  # nothing changed meanwhile
    said = [r.getMessage() for r in caplog.records if "postponed" in r.getMessage()]
    assert any("HTTP 503" in line for line in said)
    assert all("\n" not in line for line in said)
    assert not any(r.exc_info for r in caplog.records)  # no traceback
    hub.faults.clear()
    wait_until(lambda: data_path(a.id) not in hub.files(REPO), "the hidden entry's config stays")
    assert set(hub.files(REPO)) == {"README.md"}
    space.close()
