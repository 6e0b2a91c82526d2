"""Fixtures of the dataset tests: public and private builds, made once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._expect import PUBLIC_FILES_DIR, write_private


@pytest.fixture(scope="package", autouse=True)
def _isolated_env(tmp_path_factory):
    # no test here may touch the user's caches or the network: the pinned public download
    # points at a closed port, so a test that forgot its data_dir fails instead of downloading.
    # Package scope: the variables are restored before other areas' tests run.
    base = tmp_path_factory.mktemp("env")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HOME", str(base / "hf_home"))
        mp.setenv("RESPONDEOQA_CACHE", str(base / "rqa_cache"))
        mp.setenv("RESPONDEOQA_BASE_URL", "http://127.0.0.1:9/unreachable/")
        mp.delenv("RESPONDEOQA_DATA_DIR", raising=False)
        yield


@pytest.fixture(scope="package")
def private_dir(tmp_path_factory) -> Path:
    """Synthetic Certamen / NLE files plus a copy of the public ones."""
    return write_private(tmp_path_factory.mktemp("private_data"), with_public=True)


@pytest.fixture(scope="package")
def public_build(tmp_path_factory):
    """`dataset build` of the public configs, from the public upstream files."""
    from respondeoqa_eval.dataset.export import build_folder

    out = tmp_path_factory.mktemp("public_build") / "respondeoqa"
    return build_folder(out, data_dir=PUBLIC_FILES_DIR)


@pytest.fixture(scope="package")
def private_build(tmp_path_factory, private_dir):
    """`dataset build --include-private` from the synthetic private files."""
    from respondeoqa_eval.dataset.export import build_folder

    out = tmp_path_factory.mktemp("private_build") / "respondeoqa"
    return build_folder(out, data_dir=private_dir, include_private=True)
