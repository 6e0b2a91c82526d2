"""The pinned download path, against a real local HTTP server."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from respondeoqa_eval.data.fetch import fetch_public
from respondeoqa_eval.data.gold import load_gold
from respondeoqa_eval.data.sources import PUBLIC_SHA256, UPSTREAM_COMMIT
from respondeoqa_eval.errors import ChecksumError, InputError


def test_pinned_checksums_match_the_shared_upstream_copy(public_dir):
    for name, digest in PUBLIC_SHA256.items():
        assert hashlib.sha256((public_dir / name).read_bytes()).hexdigest() == digest


def test_download_verifies_caches_and_does_not_download_twice(public_dir, file_server, tmp_path):
    server = file_server(public_dir)
    folder = fetch_public(tmp_path / "cache", base_url=server.url)
    assert folder == tmp_path / "cache" / UPSTREAM_COMMIT
    assert sorted(p.name for p in folder.iterdir()) == sorted(PUBLIC_SHA256)
    assert len(server.requests) == 6
    fetch_public(tmp_path / "cache", base_url=server.url)
    assert len(server.requests) == 6, "cached files must not be downloaded again"


def test_load_gold_default_uses_the_download(public_dir, file_server, tmp_path, monkeypatch):
    server = file_server(public_dir)
    monkeypatch.delenv("RESPONDEOQA_DATA_DIR", raising=False)
    monkeypatch.setenv("RESPONDEOQA_BASE_URL", server.url)
    monkeypatch.setenv("RESPONDEOQA_CACHE", str(tmp_path / "c"))
    gold = load_gold()
    assert len(gold) == 675 + 350 + 41 * 2 + 20 * 2


def test_changed_upstream_file_is_rejected_and_not_saved(public_dir, file_server, tmp_path):
    served = tmp_path / "served"
    shutil.copytree(public_dir, served)
    target = served / "prosody_feet_questions_latin.json"
    target.write_bytes(target.read_bytes().replace(b"Trochee", b"Trochaeus", 1))
    server = file_server(served)
    with pytest.raises(ChecksumError, match="prosody_feet_questions_latin.json.*does not match"):
        fetch_public(tmp_path / "cache", base_url=server.url)
    assert not (tmp_path / "cache" / UPSTREAM_COMMIT / "prosody_feet_questions_latin.json").exists()
    assert not list((tmp_path / "cache" / UPSTREAM_COMMIT).glob("*.part"))


def test_corrupt_cached_file_is_an_error(public_dir, file_server, tmp_path):
    server = file_server(public_dir)
    folder = fetch_public(tmp_path / "cache", base_url=server.url)
    (folder / "junior_scholarship_short_answer.json").write_text("[]")
    with pytest.raises(ChecksumError, match="cached file.*delete it"):
        fetch_public(tmp_path / "cache", base_url=server.url)


def test_missing_file_on_server_and_unreachable_server(tmp_path, file_server):
    server = file_server(tmp_path)  # serves an empty folder: 404
    with pytest.raises(InputError, match="HTTP 404"):
        fetch_public(tmp_path / "cache", base_url=server.url)
    url = server.url
    server.close()
    with pytest.raises(InputError, match="Connection refused") as err:
        fetch_public(tmp_path / "cache2", base_url=url, timeout=2)
    assert "Without internet, set RESPONDEOQA_DATA_DIR=DIR" in str(err.value)
    assert "copy of the upstream data/final_dataset folder" in str(err.value)
