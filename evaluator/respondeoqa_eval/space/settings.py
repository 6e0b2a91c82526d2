"""The Space's settings, read from the environment in one place (`SpaceConfig.from_env`).

`respondeoqa-eval space` (command-line options override the environment) and the Hub Space
entry point (`space/app.py`, environment only) both build their config here.

Variables: $RESPONDEOQA_DATA_DIR, $RESPONDEOQA_SPACE_DB, $RESPONDEOQA_SPACE_MIRROR (the Hub
dataset repo of record, e.g. ORG/respondeoqa-leaderboard-data), $HF_TOKEN (write token, a Space
secret), $HF_ENDPOINT (the Hub; a local stand-in in tests), $RESPONDEOQA_SPACE_SYNC_SECONDS
(batched push interval, 300), $RESPONDEOQA_SPACE_MIN_COVERAGE (share of each covered upstream
file a submission must answer, 0.9), $RESPONDEOQA_GOLD_REPO (private Hub dataset repo with the
Certamen/NLE files, downloaded at start-up), the limits of `Limits.from_env`, $SPACE_ID.
Security: $RESPONDEOQA_SPACE_TRUSTED_PROXIES (how many proxies' X-Forwarded-For entries to
trust; 0 unless on a Hub Space, where it is 1); uvicorn's own forwarded-header trust is off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..gold import ENV_DATA_DIR, GoldSet
from .limits import Limits

ENV_DB = "RESPONDEOQA_SPACE_DB"
ENV_MIRROR = "RESPONDEOQA_SPACE_MIRROR"
ENV_HOST = "GRADIO_SERVER_NAME"
ENV_PORT = "GRADIO_SERVER_PORT"
ENV_SPACE_ID = "SPACE_ID"  # set by the Hub on a Space
ENV_TRUSTED_PROXIES = "RESPONDEOQA_SPACE_TRUSTED_PROXIES"
ENV_TOKEN = "HF_TOKEN"
ENV_ENDPOINT = "HF_ENDPOINT"
ENV_SYNC = "RESPONDEOQA_SPACE_SYNC_SECONDS"
ENV_MIN_COVERAGE = "RESPONDEOQA_SPACE_MIN_COVERAGE"
ENV_GOLD_REPO = "RESPONDEOQA_GOLD_REPO"
DEFAULT_MIN_COVERAGE = 0.9
DEFAULT_DB = Path("space_data") / "leaderboard.sqlite3"
DEFAULT_PORT = 7860


def _trusted_proxies(env: Mapping[str, str], on_hub: bool) -> int:
    """$RESPONDEOQA_SPACE_TRUSTED_PROXIES: how many proxies in front of the Space append to
    X-Forwarded-For (default 0: the socket peer is the client; on a Hub Space 1)."""
    raw = env.get(ENV_TRUSTED_PROXIES, "").strip()
    if not raw:
        return 1 if on_hub else 0
    if not raw.isdigit():
        raise InputError(f"${ENV_TRUSTED_PROXIES}: expected 0 or a positive integer, got {raw!r}")
    return int(raw)


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
    min_coverage: float = DEFAULT_MIN_COVERAGE
    gold_repo: str | None = None
    oauth: bool = False  # on a Space with hf_oauth: submitting needs a login

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> SpaceConfig:
        """The settings from the environment; keyword arguments that are not None win.

        $RESPONDEOQA_DATA_DIR (the operator's private files), $RESPONDEOQA_SPACE_DB,
        $RESPONDEOQA_SPACE_MIRROR, $GRADIO_SERVER_NAME / $GRADIO_SERVER_PORT, the limits of
        `Limits.from_env`, and $SPACE_ID (on a Hub Space: listen on 0.0.0.0, trust its proxy).
        """
        env = os.environ if env is None else env
        on_hub = bool(env.get(ENV_SPACE_ID))
        port_text = env.get(ENV_PORT, "").strip() or str(DEFAULT_PORT)
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise InputError(f"${ENV_PORT}: not a TCP port: {port_text!r}")
        sync_text = env.get(ENV_SYNC, "").strip() or "300"
        cover_text = env.get(ENV_MIN_COVERAGE, "").strip() or str(DEFAULT_MIN_COVERAGE)
        try:
            sync_interval, min_coverage = float(sync_text), float(cover_text)
        except ValueError:
            raise InputError(f"${ENV_SYNC} / ${ENV_MIN_COVERAGE}: not a number") from None
        if not sync_interval > 0:
            raise InputError(f"${ENV_SYNC}: must be positive, got {sync_text!r}")
        if not 0 <= min_coverage <= 1:
            raise InputError(f"${ENV_MIN_COVERAGE}: must be in [0, 1], got {cover_text!r}")
        config = cls(
            db=Path(env.get(ENV_DB) or DEFAULT_DB),
            data_dir=Path(env[ENV_DATA_DIR]) if env.get(ENV_DATA_DIR) else None,
            host=env.get(ENV_HOST) or ("0.0.0.0" if on_hub else "127.0.0.1"),
            port=int(port_text),
            limits=Limits.from_env(env),
            mirror_repo=env.get(ENV_MIRROR) or None,
            trusted_proxies=_trusted_proxies(env, on_hub),
            hub_token=env.get(ENV_TOKEN) or None,
            hub_endpoint=env.get(ENV_ENDPOINT) or None,
            sync_interval=sync_interval,
            min_coverage=min_coverage,
            gold_repo=env.get(ENV_GOLD_REPO) or None,
            oauth=bool(env.get("OAUTH_CLIENT_ID")) and on_hub,
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        config = replace(config, **given)
        if not 0 < config.port < 65536:
            raise InputError(f"--port {config.port}: not a TCP port")
        return config
