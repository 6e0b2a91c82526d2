"""Metadata validation and daily limits."""

from __future__ import annotations

import pytest
from respondeoqa_eval.errors import InputError
from respondeoqa_space.config import Limits, SpaceConfig
from respondeoqa_space.metadata import clean_link, clean_metadata
from respondeoqa_space.web.clients import client_of


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(1)",
        "data:text/html,<script>x</script>",
        "ftp://x.org",
        "http://",
        "//evil.org",
        "https://a b.org",
    ],
)
def test_bad_links_refused(link: str) -> None:
    with pytest.raises(InputError, match="http"):
        clean_link(link, 300)


def test_good_metadata_normalised() -> None:
    meta = clean_metadata("  My\tModel\x07 ", "https://hf.co/x", " 7B ", "line 1\nline 2", Limits())
    assert meta.model == "My Model" and meta.link == "https://hf.co/x" and meta.params == "7B"
    assert meta.note == "line 1\nline 2"


def test_metadata_errors_name_the_field() -> None:
    with pytest.raises(InputError, match="model name: required"):
        clean_metadata("  ", "", "", "", Limits())
    with pytest.raises(InputError, match="model name: at most 100"):
        clean_metadata("x" * 101, "", "", "", Limits())


def test_client_of_hashes_and_trusts_proxy_only_when_told() -> None:
    class Req:  # the two attributes of gr.Request that client_of reads
        def __init__(self, forwarded: str) -> None:
            self.headers = {"x-forwarded-for": forwarded}
            self.client = type("Client", (), {"host": "10.0.0.1"})()

    direct = client_of(Req("198.51.100.7, 203.0.113.9"), trusted_proxies=0)
    assert direct == client_of(Req("anything"), trusted_proxies=0)  # header ignored
    proxied = client_of(Req("198.51.100.7, 203.0.113.9"), trusted_proxies=1)
    # the proxy's own entry (the last) counts; a forged first entry does not change it
    assert proxied == client_of(Req("forged, 203.0.113.9"), trusted_proxies=1)
    assert proxied != direct and "203.0.113.9" not in proxied


def test_limits_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPONDEOQA_SPACE_DAILY", "7")
    assert SpaceConfig.from_env().limits.submissions_per_day == 7
    monkeypatch.setenv("RESPONDEOQA_SPACE_DAILY", "seven")
    with pytest.raises(InputError, match="RESPONDEOQA_SPACE_DAILY"):
        SpaceConfig.from_env()
