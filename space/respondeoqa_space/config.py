"""Every setting of the Space, in one table (`SETTINGS`), and the config built from it.

`SpaceConfig.from_env` reads each variable of the table once, checks its type and range, and
fails with one line naming the variable (`InputError`; the CLI exits 2). `respondeoqa-space serve`
(whose options override the environment), the operator tools and the Hub Space entry point
(`space/app.py`) all build their config here. The settings table of
docs/leaderboard-operating.md is rendered from `SETTINGS` (`settings_markdown`; a test keeps
them equal).
The Hugging Face Jobs hardware, its prices and the flavor rule of `respondeoqa-space dispatch` are one
table too, in `space/jobs/flavors.py`.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from respondeoqa_eval import InputError
from respondeoqa_eval.data import ENV_DATA_DIR, GoldSet

DEFAULT_DB = Path("space_data") / "leaderboard.sqlite3"
DEFAULT_PORT = 7860
HUB_URL = "https://huggingface.co"  # huggingface_hub's default endpoint


@dataclass(frozen=True)
class Limits:
    """Every limit the Space enforces (defaults fit a CPU-basic Hub Space)."""

    max_file_mb: int = 50  # a full-size submission with long raw responses is ~10-30 MB
    submissions_per_day: int = 5  # stored entries per client per 24 h
    attempts_per_day: int = 30  # submit clicks (valid or not) per client per 24 h
    queue_size: int = 32  # events waiting in Gradio's queue
    concurrency: int = 4  # default concurrent events (table, compare)
    submit_concurrency: int = 1  # scoring is CPU-bound: one at a time
    max_model_chars: int = 100
    max_link_chars: int = 300
    max_params_chars: int = 30
    max_note_chars: int = 2000
    min_private_items: int = 10  # values resting on fewer private items are not shown (privacy)
    private_flags_hours: int = 24  # the switch's set of flagged private items changes this seldom
    upload_mb_per_hour: int = 200  # bytes one client may upload per hour (any file)
    uploads_per_hour: int = 60  # uploads one client may make per hour
    upload_keep_minutes: int = 10  # uploaded files are deleted after this (submitted or not)
    upload_disk_mb: int = 2048  # all clients' uploads within upload_keep_minutes: the disk bound
    compare_max_entries: int = 6  # entries one comparison may pick
    compare_cache_mb: int = 64  # memory for comparisons kept between two writes
    requests_pending: int = 2  # evaluation requests one user may have waiting or running
    requests_per_week: int = 5  # evaluation requests one user may make in 7 days
    request_tokens: int = 1024  # new tokens per item in a requested evaluation
    reasoning_tokens: int = 16384  # the same for a reasoning model

    @property
    def max_file_bytes(self) -> int:
        return self.max_file_mb * 1024 * 1024


@dataclass
class SpaceConfig:
    """How to run the Space. `gold` may be given preloaded (tests, benchmarks)."""

    db: Path = DEFAULT_DB
    data_dir: Path | None = None
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    limits: Limits = field(default_factory=Limits)
    mirror_repo: str | None = None  # the Hub dataset repo of record (private)
    trusted_proxies: int = 0  # proxies in front whose X-Forwarded-For entry counts (Hub: 1)
    bootstrap: int = 1000
    gold: GoldSet | None = None
    hub_token: str | None = field(default=None, repr=False)
    hub_endpoint: str | None = None  # None: huggingface_hub's default
    sync_interval: float = 300.0
    pull_interval: float = 60.0
    commit_window: float = 0.1  # submissions arriving within it share one record commit
    min_coverage: float = 0.9
    gold_repo: str | None = None
    gold_token: str | None = field(default=None, repr=False)  # None: hub_token reads the gold
    details_repo: str | None = None  # the public details dataset (admin details); board links
    oauth: bool = False  # on a Space with hf_oauth: submitting needs a login

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> SpaceConfig:
        """The settings of `SETTINGS` from the environment; keyword arguments that are not
        None win (command-line options). A bad value is an InputError naming it."""
        env = os.environ if env is None else env
        on_hub = bool(env.get(ENV_SPACE_ID, "").strip())
        values: dict[str, Any] = {}
        limit_values: dict[str, Any] = {}
        for setting in SETTINGS:
            if setting.target is None:
                continue
            raw = env.get(setting.env, "").strip()
            value = setting.parse(raw) if raw else setting.default_for(on_hub)
            (limit_values if setting.limit else values)[setting.target] = value
        values["oauth"] = bool(env.get(ENV_OAUTH, "").strip()) and on_hub
        config = cls(limits=Limits(**limit_values), **values)
        given = {k: _option(k, v) for k, v in overrides.items() if v is not None}
        config = replace(config, **given)
        if not 0 < config.port < 65536:
            raise InputError(f"--port {config.port}: not a TCP port (1 to 65535)")
        return config

    @property
    def details_url(self) -> str:
        """The details dataset's page on the Hub ("" when there is none): what the board links."""
        if not self.details_repo:
            return ""
        return f"{(self.hub_endpoint or HUB_URL).rstrip('/')}/datasets/{self.details_repo}"

    def check_host(self) -> None:
        """InputError unless the host to listen on is an address (or a name that resolves):
        asked only by the command that listens."""
        try:
            socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise InputError(
                f"--host / ${ENV_HOST} {self.host[:60]!r}: not an address this machine can "
                "listen on (no such host)"
            ) from None


_OPTIONS = {
    "mirror_repo": "--mirror / --repo",
    "host": "--host",
    "db": "--db",
    "details_repo": "--details-repo",
}


def _option(target: str, value: Any) -> Any:
    """A command-line override checked like its setting (a string through its parser)."""
    setting = next((s for s in SETTINGS if s.target == target), None)
    if setting is None or not isinstance(value, str):
        return value
    try:
        return setting.parse_value(value.strip())
    except ValueError as exc:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise InputError(f"{_OPTIONS.get(target, target)}: {exc}, got {shown!r}") from None


# -- the table ---------------------------------------------------------------------------

_DIGITS = re.compile(r"[0-9]{1,12}")  # ASCII only: "²".isdigit() is True, int("²") fails


def _integer(low: int, high: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
            raise ValueError(f"expected a whole number from {low} to {high:,}")
        return int(raw)

    return parse


def _number(low: float, high: float, unit: str = "") -> Callable[[str], float]:
    def parse(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and low <= value <= high):
            raise ValueError(f"expected a number from {low:g} to {high:g}{unit}")
        return value

    return parse


def _url(raw: str) -> str:
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("expected an http(s):// address")
    return raw.rstrip("/")


def finite_number(raw: str) -> float:
    """A command-line number of seconds or a share: finite (NaN or infinity are refused)."""
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {raw[:40]!r}")
    return value


def url_option(raw: str) -> str:
    """A command-line address of a running Space (an http(s):// URL)."""
    try:
        return _url(raw)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, got {raw[:60]!r}") from None


def _repo_id(raw: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9][\w.\-]*/[A-Za-z0-9][\w.\-]*", raw) or len(raw) > 200:
        raise ValueError("expected a Hub repository id ORG/NAME")
    return raw


def _text(raw: str) -> str:
    return raw


def _path(raw: str) -> Path:
    return Path(raw)


def _host(raw: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9.:\-\[\]]{1,253}", raw):
        raise ValueError("expected a host name or address")
    return raw


@dataclass(frozen=True)
class Setting:
    """One environment variable: what it sets, its default, how it is read, what it means."""

    env: str
    target: str | None  # SpaceConfig (or Limits, `limit`) field; None: read elsewhere
    default: Any
    help: str
    parse_value: Callable[[str], Any] = _text
    limit: bool = False
    on_hub: Any = None  # the default on a Hub Space, when it differs
    shown_default: str | None = None  # how the tables write the default ("—": none)

    def parse(self, raw: str) -> Any:
        try:
            return self.parse_value(raw)
        except ValueError as exc:
            shown = raw if len(raw) <= 40 else raw[:40] + "..."
            raise InputError(f"${self.env}: {exc}, got {shown!r}") from None

    def default_for(self, on_hub: bool) -> Any:
        return self.on_hub if on_hub and self.on_hub is not None else self.default

    def default_text(self) -> str:
        if self.shown_default is not None:
            return self.shown_default
        if self.default is None:
            return "\u2014"
        value = self.default
        if isinstance(value, float) and value.is_integer() and self.env.endswith("SECONDS"):
            value = int(value)
        return f"`{value}`"


ENV_DB = "RESPONDEOQA_SPACE_DB"
ENV_MIRROR = "RESPONDEOQA_SPACE_MIRROR"
ENV_GOLD_REPO = "RESPONDEOQA_GOLD_REPO"
ENV_GOLD_TOKEN = "RESPONDEOQA_GOLD_TOKEN"
ENV_DETAILS = "RESPONDEOQA_SPACE_DETAILS"
ENV_TOKEN = "HF_TOKEN"
ENV_ENDPOINT = "HF_ENDPOINT"
ENV_SPACE_ID = "SPACE_ID"  # set by the Hub on a Space
ENV_OAUTH = "OAUTH_CLIENT_ID"  # set by the Hub on a Space with hf_oauth: true
ENV_PORT = "GRADIO_SERVER_PORT"
ENV_HOST = "GRADIO_SERVER_NAME"

_DAY = 24 * 3600

SETTINGS: tuple[Setting, ...] = (
    Setting(ENV_DB, "db", DEFAULT_DB, "SQLite working copy on local disk", _path),
    Setting(
        ENV_MIRROR,
        "mirror_repo",
        None,
        "private Hub dataset repo of record; entries restored from it at start-up and pulled "
        "from it while running",
        _repo_id,
        shown_default="\u2014 (off)",
    ),
    Setting(
        "RESPONDEOQA_SPACE_SYNC_SECONDS",
        "sync_interval",
        300.0,
        "push interval of changes waiting for the record (re-scores read from it; new "
        "entries and withdrawals are committed at once); 10 to 86400",
        _number(10, _DAY, " seconds"),
    ),
    Setting(
        "RESPONDEOQA_SPACE_COMMIT_WINDOW",
        "commit_window",
        0.1,
        "seconds a new entry waits for others to share its record commit (group commit; "
        "a submission is told stored once that commit is on the record's head); 0 to 5",
        _number(0, 5, " seconds"),
    ),
    Setting(
        "RESPONDEOQA_SPACE_PULL_SECONDS",
        "pull_interval",
        60.0,
        "how often the record repo is read for changes made elsewhere (`respondeoqa-space admin`, other "
        "processes); 10 to 86400",
        _number(10, _DAY, " seconds"),
    ),
    Setting(
        "RESPONDEOQA_SPACE_MIN_COVERAGE",
        "min_coverage",
        0.9,
        "share of each covered upstream file a submission must answer",
        _number(0, 1),
    ),
    Setting(
        "RESPONDEOQA_SPACE_TRUSTED_PROXIES",
        "trusted_proxies",
        0,
        "proxies whose X-Forwarded-For entry counts (1 on a Hub Space)",
        _integer(0, 10),
        on_hub=1,
    ),
    Setting(
        "RESPONDEOQA_SPACE_DAILY",
        "submissions_per_day",
        5,
        "stored submissions per client (user on a Space) per 24 h",
        _integer(1, 100_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_ATTEMPTS",
        "attempts_per_day",
        30,
        "submit attempts per client per 24 h",
        _integer(1, 100_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_MAX_MB",
        "max_file_mb",
        50,
        "one uploaded file",
        _integer(1, 2048),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_MIN_PRIVATE",
        "min_private_items",
        10,
        "private items per step of a released value, and the smallest shown group",
        _integer(1, 1_000_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_PRIVATE_FLAGS_HOURS",
        "private_flags_hours",
        24,
        "hours the switch without suspected gold errors keeps its set of flagged private items "
        "before it takes the analysis's new one (each new set releases the switched values "
        "again: docs/leaderboard-safety.md)",
        _integer(0, 100_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_UPLOADS",
        "uploads_per_hour",
        60,
        "uploads per client per hour",
        _integer(1, 100_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_UPLOAD_MB",
        "upload_mb_per_hour",
        200,
        "upload MB per client per hour",
        _integer(1, 100_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_UPLOAD_KEEP_MINUTES",
        "upload_keep_minutes",
        10,
        "uploaded files are deleted after this",
        _integer(1, 1440),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_DISK_MB",
        "upload_disk_mb",
        2048,
        "all uploads within the keep window",
        _integer(1, 1_000_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_COMPARE_MAX",
        "compare_max_entries",
        6,
        "entries one comparison may pick",
        _integer(2, 20),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_SPACE_COMPARE_CACHE_MB",
        "compare_cache_mb",
        64,
        "memory for comparisons kept between two writes",
        _integer(1, 4096),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_REQUESTS_PENDING",
        "requests_pending",
        2,
        "evaluation requests one user may have pending or running",
        _integer(1, 1000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_REQUESTS_WEEKLY",
        "requests_per_week",
        5,
        "evaluation requests one user may make in 7 days",
        _integer(1, 10_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_REQUEST_TOKENS",
        "request_tokens",
        1024,
        "new tokens per item the operator's worker allows a requested model",
        _integer(1, 1_000_000),
        limit=True,
    ),
    Setting(
        "RESPONDEOQA_REQUEST_REASONING_TOKENS",
        "reasoning_tokens",
        16384,
        "the same for a model requested as a reasoning model",
        _integer(1, 1_000_000),
        limit=True,
    ),
    Setting(
        ENV_GOLD_REPO,
        "gold_repo",
        None,
        "private Hub dataset repo with the Certamen / NLE files, downloaded at start-up",
        _repo_id,
        shown_default="\u2014 (off)",
    ),
    Setting(
        ENV_DETAILS,
        "details_repo",
        None,
        "public Hub dataset repo of every entry's per-item details on the public items, raw "
        "responses included (the Space syncs it after writes; `respondeoqa-space admin details` "
        "by hand; the board links it)",
        _repo_id,
        shown_default="\u2014 (off)",
    ),
    Setting(
        ENV_GOLD_TOKEN,
        "gold_token",
        None,
        "secret: reads the gold repo (default `$HF_TOKEN`); what a Hugging Face Job is given",
    ),
    Setting(
        ENV_DATA_DIR,
        "data_dir",
        None,
        "local folder with the private files (instead of the gold repo)",
        _path,
        shown_default="\u2014 (public only)",
    ),
    Setting(ENV_TOKEN, "hub_token", None, "secret: writes the record repo, reads the gold repo"),
    Setting(
        ENV_ENDPOINT,
        "hub_endpoint",
        None,
        "the Hub's address, an http(s):// URL (huggingface_hub's default)",
        _url,
    ),
    Setting(
        ENV_HOST,
        "host",
        "127.0.0.1",
        "address to listen on (`0.0.0.0` on a Hub Space)",
        _host,
        on_hub="0.0.0.0",
    ),
    Setting(ENV_PORT, "port", DEFAULT_PORT, "port to listen on", _integer(1, 65535)),
    Setting(
        ENV_SPACE_ID,
        None,
        None,
        "set by the Hub on a Space: listen on all addresses, trust one proxy",
    ),
    Setting(
        ENV_OAUTH,
        None,
        None,
        "set by the Hub when the Space has `hf_oauth: true`: submitting and requesting "
        "evaluations need a login",
    ),
)
"""Every variable the Space reads, in the order the tables list them."""

assert {s.target for s in SETTINGS if s.limit} <= {f.name for f in fields(Limits)}
assert {s.target for s in SETTINGS if s.target and not s.limit} <= {
    f.name for f in fields(SpaceConfig)
}


def settings_markdown() -> str:
    """The settings table of the README and of space/README.md (rendered from SETTINGS)."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    lines += [f"| `{s.env}` | {s.default_text()} | {s.help} |" for s in SETTINGS]
    return "\n".join(lines) + "\n"
