"""`dataset build`: the Hub folder, its card, offline `load_dataset`, private-data safety."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml
from respondeoqa_eval.cli import main
from respondeoqa_eval.dataset.card import TEMPLATE
from respondeoqa_eval.dataset.committed_card import COMMITTED_CARD, REGENERATE_COMMAND
from respondeoqa_eval.dataset.export import build_folder
from respondeoqa_eval.errors import InputError

from ._expect import (
    ALL_CONFIG_NAMES,
    PUBLIC_CONFIG_NAMES,
    PUBLIC_FILES_DIR,
    SECRET_MARKER,
    raw_rows,
    synthetic_count,
)

# runs in a fresh interpreter, offline, with an empty HF cache: proves that the folder alone
# (Parquet + README front matter) is a loadable dataset, by path and by name from its parent
LOADER = r"""
import json, sys
from datasets import load_dataset
out = {}
for folder, configs in json.loads(sys.argv[1]).items():
    for config in configs:
        by_path = load_dataset(folder, config, split="test")
        by_name = load_dataset("respondeoqa", config, split="test")
        f = by_path.features
        out[f"{folder}|{config}"] = {
            "rows": len(by_path), "rows_by_name": len(by_name),
            "ids": sorted(by_path["id"]) == sorted(by_name["id"]),
            "types": [repr(f["answers"]), repr(f["multihop"]), repr(f["source_year"])],
            "null_multihop": sum(v is None for v in by_path["multihop"]),
        }
    out[f"{folder}|<default>"] = len(load_dataset(folder, split="test"))
print(json.dumps(out))
"""


def front_matter(folder: Path) -> dict:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def load_offline(folders: dict[Path, list[str]], tmp_path: Path) -> dict:
    env = dict(os.environ)
    env.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf_home"))
    env.pop("HF_DATASETS_CACHE", None)
    (cwd,) = {f.parent for f in folders}  # `load_dataset("respondeoqa", ...)` resolves here
    arg = json.dumps({str(f): c for f, c in folders.items()})
    proc = subprocess.run(
        [sys.executable, "-c", LOADER, arg],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def parquet_rows(folder: Path) -> dict[str, list[dict]]:
    return {p.parent.name: pq.read_table(p).to_pylist() for p in sorted(folder.glob("*/*.parquet"))}


def test_public_build_writes_every_public_config_and_nothing_else(public_build):
    out = public_build.folder
    assert set(public_build.config_rows) == PUBLIC_CONFIG_NAMES
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(PUBLIC_CONFIG_NAMES)
    assert (out / "LICENSE.md").is_file()
    for config, rows in parquet_rows(out).items():
        assert len(rows) == len(raw_rows(PUBLIC_FILES_DIR, config)), config


def test_front_matter_declares_configs_license_languages(public_build):
    meta = front_matter(public_build.folder)
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert set(configs) == PUBLIC_CONFIG_NAMES
    assert [n for n, c in configs.items() if c.get("default")] == ["public"]
    for name, c in configs.items():
        assert c["data_files"] == [{"split": "test", "path": f"{name}/test-*.parquet"}]
    assert meta["language"] == ["la", "en"]
    assert meta["pretty_name"] == "RespondeoQA"
    assert meta["license"] and meta["license_name"] == "public-domain"
    assert (public_build.folder / meta["license_link"]).is_file()
    assert "question-answering" in meta["task_categories"]
    assert meta["size_categories"] == ["1K<n<10K"]  # 1147 public items


@pytest.mark.slow
def test_every_public_config_loads_offline_by_path_and_by_name(public_build, tmp_path):
    out = public_build.folder
    got = load_offline({out: sorted(PUBLIC_CONFIG_NAMES)}, tmp_path)
    for config in PUBLIC_CONFIG_NAMES:
        res = got[f"{out}|{config}"]
        expected = len(raw_rows(PUBLIC_FILES_DIR, config))
        assert res["rows"] == res["rows_by_name"] == expected, config
        assert res["ids"]
        assert res["types"] == ["List(Value('string'))", "Value('bool')", "Value('int32')"]
        # multihop is null on every row that is not a short-answer row
        short = sum("multihop" in r for r in raw_rows(PUBLIC_FILES_DIR, config))
        assert res["null_multihop"] == expected - short
    assert got[f"{out}|<default>"] == 1147  # the default config is `public`


def _table(card: str, heading: str) -> dict[str, list[str]]:
    """Rows of the markdown table after `heading`, by first cell."""
    block = card.split(heading, 1)[1].split("\n\n", 2)[1]
    rows = {}
    for line in block.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_card_statistics_match_the_upstream_files(public_build):
    card = (public_build.folder / "README.md").read_text(encoding="utf-8")
    raw = raw_rows(PUBLIC_FILES_DIR, "public")
    source = {
        "latin-grammar-junior-scholarship": "jun-schol",
        "exercises-in-latin-prosody": "lat-pros",
    }

    fmt = Counter((source[r["source_name"]], r["question_format"]) for r in raw)
    table = _table(card, "**Source x format**")
    for src in ("jun-schol", "lat-pros"):
        assert table[src] == [
            str(fmt[(src, "multiple_choice")]),
            str(fmt[(src, "short_answer")]),
            str(fmt[(src, "multiple_choice")] + fmt[(src, "short_answer")]),
        ]
    assert table["**total**"][-1] == str(len(raw))

    pairs = Counter(
        (r["question_content"], f"{r['question_language']}-{r['answer_language']}") for r in raw
    )
    table = _table(card, "**Content x language pair**")
    order = ["english-english", "english-latin", "latin-english", "latin-latin"]
    for content in {c for c, _ in pairs}:
        assert table[content][:4] == [str(pairs[(content, p)]) for p in order], content

    tr = Counter((r["answer_language"], r["constrained"]) for r in raw if "constrained" in r)
    table = _table(card, "**Translation direction x constrained**")
    assert table["English -> Latin"][:2] == [str(tr[("latin", True)]), str(tr[("latin", False)])]
    assert table["Latin -> English"][:2] == [
        str(tr[("english", True)]),
        str(tr[("english", False)]),
    ]

    mh = Counter((r["question_content"], r["multihop"]) for r in raw if "multihop" in r)
    table = _table(card, "**Multihop x content**")
    for content in {c for c, _ in mh}:
        assert table[content][:2] == [str(mh[(content, True)]), str(mh[(content, False)])]


def test_card_has_the_sections_a_hub_user_expects(public_build):
    card = (public_build.folder / "README.md").read_text(encoding="utf-8")
    for needle in (
        "## Terms of use, per source",
        "public domain",
        "generate profit",
        "Junior Classical League",
        "National Latin Exam",
        "## Getting and plugging in the private",
        "--data-dir",
        "## Schema",
        "`multiple_choice_options` | `list<string>`",
        "## Scoring",
        "respondeoqa_eval.evaluate",
        "71.92",
        "68.11",
        "68.61",
        "23.71 / 45.25",
        "```bibtex",
        "@misc{",
        "2604.20738",
        "Hudspeth",
    ):
        assert needle in card, needle
    assert "Private build" not in card


REPO_ROOT = Path(__file__).resolve().parents[2]


def test_committed_card_is_the_rendered_card_of_the_public_build(public_build):
    fresh = (public_build.folder / "README.md").read_text(encoding="utf-8")
    path = REPO_ROOT / COMMITTED_CARD
    committed = path.read_text(encoding="utf-8") if path.exists() else ""
    assert committed == fresh, (
        f"{path} is out of date with respondeoqa_eval/dataset/{TEMPLATE} or the code; "
        f"regenerate it from {REPO_ROOT} with: {REGENERATE_COMMAND} --data-dir {PUBLIC_FILES_DIR}"
    )


def test_regenerate_command_writes_the_card_and_refuses_a_missing_folder(public_build, tmp_path):
    from respondeoqa_eval.dataset.committed_card import main as regenerate

    out = tmp_path / "card.md"
    assert regenerate(["--data-dir", str(PUBLIC_FILES_DIR), "--output", str(out)]) == 0
    fresh = (public_build.folder / "README.md").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == fresh
    missing = tmp_path / "no" / "card.md"
    assert regenerate(["--data-dir", str(PUBLIC_FILES_DIR), "--output", str(missing)]) == 2
    assert not missing.parent.exists()


def test_public_build_from_a_private_folder_leaks_nothing(private_dir, tmp_path):
    result = build_folder(tmp_path / "respondeoqa", data_dir=private_dir)
    assert set(result.config_rows) == PUBLIC_CONFIG_NAMES
    for path in result.folder.rglob("*"):
        if path.is_file():
            assert SECRET_MARKER.encode() not in path.read_bytes(), path
    # Parquet pages are compressed: look at the decoded rows too
    for config, rows in parquet_rows(result.folder).items():
        assert SECRET_MARKER not in json.dumps(rows), config
        assert {r["source"] for r in rows} <= {"jun-schol", "lat-pros"}


@pytest.mark.slow
def test_private_build_writes_all_configs_and_says_so(private_build, tmp_path):
    out = private_build.folder
    assert set(private_build.config_rows) == ALL_CONFIG_NAMES
    for config, rows in parquet_rows(out).items():
        assert len(rows) == synthetic_count(config), config
    meta = front_matter(out)
    assert {c["config_name"] for c in meta["configs"]} == ALL_CONFIG_NAMES
    assert meta["license_name"] != "public-domain"
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "Private build" in card and "must not be made public" in card
    assert SECRET_MARKER not in card  # statistics only, never gold
    got = load_offline({out: ["all", "certamen", "nle-multiple_choice"]}, tmp_path)
    assert got[f"{out}|all"]["rows"] == synthetic_count("all")
    assert got[f"{out}|nle-multiple_choice"]["rows_by_name"] == synthetic_count("nle")


def test_include_private_needs_a_folder_with_private_files(tmp_path):
    with pytest.raises(InputError, match="--include-private needs --data-dir"):
        build_folder(tmp_path / "a", include_private=True)
    with pytest.raises(InputError, match="no complete private source"):
        build_folder(tmp_path / "b", data_dir=PUBLIC_FILES_DIR, include_private=True)


def test_partial_private_folder_builds_what_it_can(private_dir, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for path in private_dir.glob("*.json"):
        if not path.name.startswith("nle_"):
            (data / path.name).write_bytes(path.read_bytes())
    result = build_folder(tmp_path / "out", data_dir=data, include_private=True)
    assert "certamen" in result.config_rows and "certamen-translation" in result.config_rows
    assert {"nle", "nle-multiple_choice", "all"} <= set(result.skipped)
    assert "nle_other_questions_2015.json" in result.skipped["nle"]


def test_output_folder_rules(tmp_path, public_build):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="not empty"):
        build_folder(foreign, data_dir=PUBLIC_FILES_DIR)
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "mine"
    # an earlier build is replaced, stale config folders included
    again = tmp_path / "again"
    build_folder(again, data_dir=PUBLIC_FILES_DIR)
    (again / "stale-config").mkdir()
    build_folder(again, data_dir=PUBLIC_FILES_DIR)
    assert not (again / "stale-config").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def test_cli_build_and_its_errors(tmp_path, capsys):
    out = tmp_path / "cli" / "respondeoqa"
    code = main(["dataset", "build", "--data-dir", str(PUBLIC_FILES_DIR), "--output", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "public" in printed and "1147" in printed
    assert (out / "public" / "test-00000-of-00001.parquet").is_file()

    code = main(["dataset", "build", "--data-dir", str(tmp_path / "nope"), "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "does not exist" in err and "Traceback" not in err
    code = main(["dataset", "build", "--include-private", "--output", str(tmp_path / "x")])
    assert code == 2 and "--include-private needs --data-dir" in capsys.readouterr().err


def test_default_data_is_the_pinned_download(tmp_path, capsys):
    # no --data-dir: the public files are fetched from the pinned URL (here a closed port, set by
    # conftest), so the build fails with the download error instead of reading anything else
    code = main(["dataset", "build", "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "cannot download the public files" in err and "127.0.0.1:9" in err


def test_no_data_dir_builds_from_the_pinned_public_download(tmp_path, monkeypatch, file_server):
    server = file_server(PUBLIC_FILES_DIR)
    monkeypatch.setenv("RESPONDEOQA_BASE_URL", server.url)
    monkeypatch.setenv("RESPONDEOQA_CACHE", str(tmp_path / "cache"))
    result = build_folder(tmp_path / "out")
    assert result.config_rows["public"] == len(raw_rows(PUBLIC_FILES_DIR, "public"))
    assert len(list((tmp_path / "cache").rglob("*.json"))) == 6
    assert len(server.requests) == 6  # each pinned file fetched once, then served from the cache


def test_difficulty_the_source_does_not_give_is_null_not_the_word_unknown(
    public_build, private_build, private_dir
):
    """The upstream files write `"difficulty": "unknown"` where the source gives no level
    (every public item): the dataset's rows hold a missing value there and each level as the
    file gives it; the card says the column is nullable."""
    raw_public = raw_rows(PUBLIC_FILES_DIR, "public")
    assert {r["difficulty"] for r in raw_public} == {"unknown"}  # the textbooks give no level
    assert [r["difficulty"] for r in parquet_rows(public_build.folder)["public"]] == [None] * len(
        raw_public
    )
    for config, rows in parquet_rows(private_build.folder).items():
        given = Counter(r["difficulty"] for r in raw_rows(private_dir, config))
        expected = Counter({(None if k == "unknown" else k): n for k, n in given.items()})
        assert Counter(r["difficulty"] for r in rows) == expected, config
    card = (public_build.folder / "README.md").read_text(encoding="utf-8")
    row = next(line for line in card.splitlines() if line.startswith("| `difficulty` |"))
    assert "nullable" in row and "`unknown`" not in row, row


@pytest.mark.slow
def test_printed_load_command_works_as_printed(public_build, tmp_path):
    """`dataset build` prints a line of Python that loads its default config: run as printed
    from another folder, with the Hub reachable only at a closed port (no offline switch), it
    reads this build's rows, not the Hub and not the cached rows of another build of the
    same folder name loaded before."""
    out = tmp_path / "printed" / "respondeoqa"
    proc = subprocess.run(
        [sys.executable, "-m", "respondeoqa_eval.cli", "dataset", "build"]
        + ["--data-dir", str(PUBLIC_FILES_DIR), "--output", "printed/respondeoqa"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("load with: ")]
    command = line.removeprefix("load with: ")
    # another build of the same name, ten rows, loaded first into the same cache
    stale = tmp_path / "elsewhere" / "respondeoqa"
    shutil.copytree(out, stale)
    parquet = stale / "public" / "test-00000-of-00001.parquet"
    pq.write_table(pq.read_table(parquet).slice(0, 10), parquet)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env.update(HF_HOME=str(tmp_path / "hf_home"), HF_ENDPOINT="http://127.0.0.1:9")
    env.pop("HF_DATASETS_CACHE", None)
    elsewhere = command.replace(str(out.resolve()), str(stale.resolve()))
    assert elsewhere != command, command  # the printed line names the build's absolute folder
    rows = {}
    for name, code in (("stale", elsewhere), ("printed", command)):
        run = subprocess.run(
            [sys.executable, "-c", f"import datasets\nds = {code}\nprint(len(ds), ds[0]['id'])"],
            cwd=tmp_path / "elsewhere",
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, (name, code, run.stderr[-2000:])
        rows[name] = int(run.stdout.split()[-2])
    assert rows == {"stale": 10, "printed": len(raw_rows(PUBLIC_FILES_DIR, "public"))}


def _section(path: Path, heading: str) -> str:
    """The text under `heading` in the Markdown file `path`, up to the next heading of its
    level, on one line."""
    text = path.read_text(encoding="utf-8")
    level = heading.split(" ", 1)[0]
    return " ".join(text.split(f"\n{heading}\n", 1)[1].split(f"\n{level} ", 1)[0].split())


def test_readme_names_only_the_configs_a_build_writes(public_build, private_build):
    """The README's dataset section names, as a public build's configs, exactly the folders a
    public build writes, and, as what `--include-private` adds, exactly the others of a
    private build; the dataset page's table says which are built always and which with
    `--include-private`, the same: no config a reader looks for in vain."""
    written = {p.name for p in public_build.folder.iterdir() if p.is_dir()}
    assert written == set(public_build.config_rows)
    extra = {p.name for p in private_build.folder.iterdir() if p.is_dir()} - written
    section = _section(REPO_ROOT / "README.md", "## Loading the dataset")
    public = re.search(r"A public build writes the configs (.*?)\. ", section)
    added = re.search(
        r"--include-private` builds the whole benchmark and adds the configs (.*?) \(", section
    )
    assert public and added, section[:400]
    assert set(re.findall(r"`([a-z_-]+)`", public.group(1))) == written
    assert set(re.findall(r"`([a-z_-]+)`", added.group(1))) == extra
    page = (REPO_ROOT / "docs" / "dataset.md").read_text(encoding="utf-8")
    table = page.split("\n## Configs\n", 1)[1].split("\n## ", 1)[0]
    built: dict[str, set[str]] = {"always": set(), "with `--include-private`": set()}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[2] in built:
            built[cells[2]] |= set(re.findall(r"`([a-z_-]+)`", cells[0]))
    assert built == {"always": written, "with `--include-private`": extra}, built
