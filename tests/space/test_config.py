"""Every setting lives in one table (space/config.py SETTINGS): the operator's guide
(docs/leaderboard-operating.md, "Settings") shows it as rendered, every variable is read, and a bad setting or operator argument is one line
that names it, exit status 2, with nothing stored or lost."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from respondeoqa_eval.errors import InputError
from respondeoqa_space.cli import main
from respondeoqa_space.config import SETTINGS, SpaceConfig, settings_markdown
from respondeoqa_space.metadata import clean_model_name
from respondeoqa_space.service import Space
from respondeoqa_space.store import Store

from .helpers import file_records, k_correct_predictions, write_jsonl

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "space" / "respondeoqa_space"


def test_the_settings_table_is_rendered_from_the_one_table() -> None:
    guide = "docs/leaderboard-operating.md"
    text = (ROOT / guide).read_text(encoding="utf-8")
    assert settings_markdown() in text, f"{guide}: paste `settings_markdown()` from space/config.py"


def test_every_variable_of_the_table_is_read_and_none_elsewhere() -> None:
    base = SpaceConfig.from_env({})
    for setting in SETTINGS:
        if setting.target is None:
            continue
        default = setting.default_text().strip("`")
        if not default.startswith("\u2014"):  # the documented default is the default
            assert SpaceConfig.from_env({setting.env: default}) == base, setting.env
    other = {
        "RESPONDEOQA_SPACE_MIN_COVERAGE": "0.5",
        "RESPONDEOQA_SPACE_DB": "/elsewhere/x.sqlite3",
        "RESPONDEOQA_DATA_DIR": "/elsewhere/gold",
        "RESPONDEOQA_SPACE_MIRROR": "org/record",
        "RESPONDEOQA_GOLD_REPO": "org/gold",
        "RESPONDEOQA_SPACE_DETAILS": "org/details",
        "HF_TOKEN": "hf_x",
        "RESPONDEOQA_GOLD_TOKEN": "hf_gold",
        "HF_ENDPOINT": "http://127.0.0.1:9",
        "GRADIO_SERVER_NAME": "0.0.0.0",
    }
    for setting in SETTINGS:
        if setting.target is None:
            continue
        value = other.get(setting.env) or str(int(float(setting.default)) + 1)
        assert SpaceConfig.from_env({setting.env: value}) != base, f"{setting.env} is not read"
    # no module reads a variable of the Space that the table does not list
    listed = {s.env for s in SETTINGS}
    read = set()
    for path in PACKAGE.rglob("*.py"):
        read |= set(re.findall(r'"(RESPONDEOQA_SPACE_\w+)"', path.read_text(encoding="utf-8")))
    assert read <= listed, read - listed
    on_hub = SpaceConfig.from_env({"SPACE_ID": "org/space", "OAUTH_CLIENT_ID": "x"})
    assert (on_hub.host, on_hub.trusted_proxies, on_hub.oauth) == ("0.0.0.0", 1, True)


BAD_SETTINGS = [
    ("RESPONDEOQA_SPACE_DAILY", "\u00b2", "expected a whole number from 1 to 100,000"),
    ("RESPONDEOQA_SPACE_MIN_PRIVATE", "\u00b2", "expected a whole number"),
    ("RESPONDEOQA_SPACE_TRUSTED_PROXIES", "-1", "expected a whole number from 0 to 10"),
    ("GRADIO_SERVER_PORT", "\u00b2", "expected a whole number from 1 to 65,535"),
    ("GRADIO_SERVER_PORT", "abc", "expected a whole number from 1 to 65,535"),
    ("GRADIO_SERVER_PORT", "99999", "expected a whole number from 1 to 65,535"),
    ("RESPONDEOQA_SPACE_SYNC_SECONDS", "1e10", "expected a number from 10 to 86400 seconds"),
    ("RESPONDEOQA_SPACE_SYNC_SECONDS", "inf", "expected a number from 10 to 86400 seconds"),
    ("RESPONDEOQA_SPACE_SYNC_SECONDS", "nan", "expected a number from 10 to 86400 seconds"),
    ("RESPONDEOQA_SPACE_SYNC_SECONDS", "1e-6", "expected a number from 10 to 86400 seconds"),
    ("RESPONDEOQA_SPACE_PULL_SECONDS", "0", "expected a number from 10 to 86400 seconds"),
    ("RESPONDEOQA_SPACE_MIN_COVERAGE", "1.5", "expected a number from 0 to 1"),
    ("RESPONDEOQA_SPACE_MIRROR", "not a repo", "expected a Hub repository id ORG/NAME"),
    ("RESPONDEOQA_SPACE_DAILY", "9" * 5000, "expected a whole number"),
]


@pytest.mark.parametrize(("var", "value", "reason"), BAD_SETTINGS)
def test_a_bad_setting_is_one_line_naming_it(
    var: str, value: str, reason: str, monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path
) -> None:
    monkeypatch.setenv(var, value)
    monkeypatch.chdir(tmp_path)
    assert main(["serve", "--db", str(tmp_path / "lb.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"respondeoqa-space: error: ${var}: {reason}")
    assert len(err) < 300  # a 5,000-digit value is not echoed whole
    assert not (tmp_path / "lb.sqlite3").exists()  # nothing was created


def test_bad_database_paths_are_one_line(private_dir: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 10, encoding="utf-8")
    for db, reason in ((folder, "is a folder, not a database file"), (text, "not an SQLite")):
        for args in (
            ["serve", "--data-dir", str(private_dir), "--db", str(db)],
            ["admin", "--db", str(db), "list"],
        ):
            assert main(args) == 2, args
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"{db}: {reason}" in err, err
    assert text.read_text(encoding="utf-8") == "not a database\n" * 10  # untouched
    with pytest.raises(InputError, match="not a usable SQLite database"):
        broken = tmp_path / "broken.sqlite3"
        broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)
        Store(broken)


def test_bad_operator_arguments_are_one_line(
    private_dir: Path, public_gold, tmp_path: Path, capsys
) -> None:
    db = tmp_path / "ops.sqlite3"

    def admin(*args: str) -> str:
        try:
            code = main(["admin", "--db", str(db), "--data-dir", str(private_dir), *args])
        except SystemExit as exc:  # argparse: a bad argument
            code = exc.code
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, (args, code, err)
        return err

    # a mistyped --db is refused rather than made empty and listed as "no entries"
    assert "no such database (a typo?); add --create" in admin("list")
    assert not db.exists()
    assert main(["admin", "--db", str(db), "--create", "list"]) == 0
    assert capsys.readouterr().out == "no entries\n"
    assert "not a file" in admin("add", str(tmp_path / "missing.jsonl"))
    assert f"{tmp_path}: not a file" in admin("add", str(tmp_path))
    assert "not an entry number: '1180591620717411303424'" in admin(
        "hide", "1180591620717411303424"
    )
    assert "not an entry number: '\u00b2'" in admin("delete", "\u00b2")
    assert "no entry #5" in admin("unhide", "5")
    assert "is a folder; give a file name" in admin("export", "--output", str(tmp_path))
    rows = k_correct_predictions(
        file_records(public_gold, "prosody_feet_questions_english.json"), 3
    )
    good = write_jsonl(tmp_path / "good.jsonl", rows[0])
    assert main(["admin", "--db", str(db), "add", str(good), "--model", "ok"]) == 0
    assert Store(db).count() == 1  # and the bad calls stored nothing


def test_withdraw_and_model_names_refuse_lookalikes(public_gold, tmp_path: Path) -> None:
    space = Space(SpaceConfig(db=tmp_path / "lb.sqlite3", gold=public_gold, bootstrap=20))
    out = space.withdraw("\u00b2", "alice")
    assert out.message == (
        "Not withdrawn: give the number of your entry as the Entry column shows it, e.g. #12."
    )
    for name in (
        "LLaMa 3.3 70B (paper)",
        "LLа\u200bMa 3.3 70B paper",  # Cyrillic а and a zero-width space
        "o3\u2011mini (ρaper)",  # non-breaking hyphen, Greek rho
        "Ｑｗｅｎ ＱｗＱ ３２Ｂ paper",  # full-width letters
        "my model, reported\u00a0in\u00a0paper",
    ):
        with pytest.raises(InputError, match="must not copy a paper row"):
            clean_model_name(name, 100)
    assert clean_model_name("o3\u200b-mini distilled", 100) == "o3-mini distilled"


@pytest.mark.parametrize(
    ("env", "args", "named"),
    [
        ({"GRADIO_SERVER_PORT": "abc"}, ["serve"], "$GRADIO_SERVER_PORT: expected a whole"),
        ({"GRADIO_SERVER_PORT": "\u00b2"}, ["serve"], "$GRADIO_SERVER_PORT: expected a whole"),
        ({}, ["serve", "--host", "999.999.1.1"], "--host / $GRADIO_SERVER_NAME '999.999.1.1'"),
        ({}, ["serve", "--host", "no-such-host.invalid"], "'no-such-host.invalid': not an"),
        ({}, ["serve", "--mirror", "bad id"], "--mirror / --repo: expected a Hub repository"),
        ({"RESPONDEOQA_SPACE_MIRROR": "bad id"}, ["serve"], "$RESPONDEOQA_SPACE_MIRROR: exp"),
        ({"HF_ENDPOINT": "garbage"}, ["serve"], "$HF_ENDPOINT: expected an http(s):// address"),
        ({"RESPONDEOQA_SPACE_PULL_SECONDS": "nan"}, ["serve"], "$RESPONDEOQA_SPACE_PULL_SEC"),
        ({"RESPONDEOQA_SPACE_COMMIT_WINDOW": "inf"}, ["serve"], "$RESPONDEOQA_SPACE_COMMIT_W"),
        ({}, ["admin", "--space-url", "notaurl", "list"], "argument --space-url: exp"),
        ({}, ["admin", "--space-url", "http://[::1", "list"], "--space-url: expected"),
        ({}, ["worker", "--poll", "nan"], "argument --poll: expected a finite number"),
        ({}, ["worker", "--lease", "nan"], "argument --lease: expected a finite"),
        ({}, ["worker", "--timeout=-inf"], "argument --timeout: expected a finite"),
    ],
)
def test_every_bad_setting_and_argument_is_one_line_exit_2(
    env: dict, args: list[str], named: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    if args[:1] == ["admin"]:
        args = [*args[:1], "--db", str(tmp_path / "ops.sqlite3"), "--create", *args[1:]]
    elif args[0] == "serve":
        args = [*args, "--db", str(tmp_path / "lb.sqlite3")]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse: a bad argument
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and named in err, (code, err)
    assert "Traceback" not in err


def test_deploy_to_a_bad_repo_id_is_one_line(capsys) -> None:
    # (`space bundle --output FILE` went away: the Space folder is the repository, CHANGELOG)
    assert main(["deploy", "--repo-id", "no-slash", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--repo-id 'no-slash': expected ORG/NAME" in err


def test_the_board_links_the_details_dataset_when_one_is_named() -> None:
    from respondeoqa_space.web import copy
    from respondeoqa_space.web.app import MONO, SANS, static
    from respondeoqa_space.web.board_page import page_html

    assert SpaceConfig.from_env({}).details_url == ""
    config = SpaceConfig.from_env({"RESPONDEOQA_SPACE_DETAILS": "org/details"})
    url = "https://huggingface.co/datasets/org/details"
    assert config.details_url == url
    on_stand_in = SpaceConfig.from_env(
        {"RESPONDEOQA_SPACE_DETAILS": "org/details", "HF_ENDPOINT": "http://127.0.0.1:9/"}
    )
    assert on_stand_in.details_url == "http://127.0.0.1:9/datasets/org/details"
    page = dict(static=static, sans=SANS, mono=MONO, api_href="info")
    assert f'<a href="{url}" id="details-link">' in page_html("", **page, details_href=url)
    assert 'id="details-link"' not in page_html("", **page)
    assert f"[org/details]({url})" in copy.details_note(url) and copy.details_note("") == ""
    with pytest.raises(InputError, match="RESPONDEOQA_SPACE_DETAILS"):
        SpaceConfig.from_env({"RESPONDEOQA_SPACE_DETAILS": "no such repo"})
