"""The Space's settings, read from the environment in one place (`SpaceConfig.from_env`).

`respondeoqa-eval space` (command-line options override the environment) and the Hub Space
entry point (`space/app.py`, environment only) both build their config here.
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
DEFAULT_DB = Path("space_data") / "leaderboard.sqlite3"
DEFAULT_PORT = 7860


@dataclass
class SpaceConfig:
    """How to run the Space. `gold` may be given preloaded (tests, benchmarks)."""

    db: Path = DEFAULT_DB
    data_dir: Path | None = None
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    limits: Limits = field(default_factory=Limits)
    mirror_repo: str | None = None
    trust_proxy: bool = False  # on a Hub Space: the client address comes from its proxy
    bootstrap: int = 1000
    gold: GoldSet | None = None
    mirror: Any = None  # a store.Mirror; overrides mirror_repo (a FolderMirror in tests)

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
        config = cls(
            db=Path(env.get(ENV_DB) or DEFAULT_DB),
            data_dir=Path(env[ENV_DATA_DIR]) if env.get(ENV_DATA_DIR) else None,
            host=env.get(ENV_HOST) or ("0.0.0.0" if on_hub else "127.0.0.1"),
            port=int(port_text),
            limits=Limits.from_env(env),
            mirror_repo=env.get(ENV_MIRROR) or None,
            trust_proxy=on_hub,
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        config = replace(config, **given)
        if not 0 < config.port < 65536:
            raise InputError(f"--port {config.port}: not a TCP port")
        return config
