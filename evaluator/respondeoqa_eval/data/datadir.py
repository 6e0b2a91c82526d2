"""Where the upstream files come from, and what every "no data" message tells the user.

One variable serves every entry point: `$RESPONDEOQA_DATA_DIR` names a folder of upstream files
(a copy of the upstream `data/final_dataset` folder, plus Certamen / NLE files for those who
have them) for every command, the Python API, the lm-eval tasks and the test suite. Without it
the six public files come from the pinned download. When neither works, `NoData` says so and
names the variable once; each front end adds its own way to pass a folder for one call
(`--data-dir DIR`, `data_dir=DIR`, lm-eval's `--metadata`).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from .sources import UPSTREAM_URL

ENV_DATA_DIR = "RESPONDEOQA_DATA_DIR"
UPSTREAM_FOLDER = "data/final_dataset"
"""The folder of the upstream repository that holds the question files."""

CLI_OPTION = "--data-dir DIR"
PYTHON_OPTION = "data_dir=DIR"
LM_EVAL_OPTION = """--metadata '{"data_dir": "DIR"}'"""


def resolve_data_dir(data_dir: str | Path | None) -> Path | None:
    """`data_dir`, else `$RESPONDEOQA_DATA_DIR`, else None (the pinned public files)."""
    if data_dir:
        return Path(data_dir)
    env = os.environ.get(ENV_DATA_DIR)
    return Path(env) if env else None


def check_data_dir(data_dir: str | Path | None) -> Path | None:
    """`resolve_data_dir`, and an InputError naming where the folder came from when it is not
    a folder (the argument, or the variable)."""
    folder = resolve_data_dir(data_dir)
    if folder is not None and not folder.is_dir():
        where = str(folder) if data_dir else f"{ENV_DATA_DIR}={folder}"
        raise InputError(f"{where}: data folder does not exist or is not a folder")
    return folder


class NoData(InputError):
    """No upstream files to read: the pinned download failed, or Certamen / NLE files were
    needed and no folder has them.

    `str(error)` ends with the Python way to pass a folder; `said_as(option)` gives the same
    message for another front end (`CLI_OPTION`, `LM_EVAL_OPTION`).
    """

    def __init__(self, problem: str, *, private: bool = False) -> None:
        self.problem = problem
        self.private = private
        super().__init__(self.said_as(PYTHON_OPTION))

    def said_as(self, option: str | None) -> str:
        """The one-line message, with `option` as this front end's way to pass a folder for one
        call (None: the variable only)."""
        if self.private:
            lead = "Set"
            folder = (
                f"a folder with them (laid out like the upstream {UPSTREAM_FOLDER}; the "
                "public files may sit beside them)"
            )
        else:
            lead = "Without internet, set"
            folder = f"a copy of the upstream {UPSTREAM_FOLDER} folder (git clone {UPSTREAM_URL})"
        text = (
            f"{self.problem}. {lead} {ENV_DATA_DIR}=DIR, DIR being {folder}: every command, "
            "the Python API, the lm-eval tasks and the test suite read it"
        )
        return f"{text}; or pass {option}." if option else f"{text}."

    def within(self, context: str) -> NoData:
        """The same error with `context` (what needed the files) before its problem."""
        return NoData(f"{context}: {self.problem}", private=self.private)
