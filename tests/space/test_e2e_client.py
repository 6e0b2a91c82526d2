"""End to end through gradio_client against the real server: submit, see the row, errors."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from gradio_client import Client

from .helpers import (
    board_rows,
    file_records,
    k_correct_predictions,
    leaderboard,
    page_board,
    parse_board,
    submit,
    write_jsonl,
)

pytestmark = pytest.mark.slow

SHORT = "junior_scholarship_short_answer.json"


@pytest.fixture(scope="module")
def client(server) -> Client:
    return Client(server.url, verbose=False)


def test_submit_then_row_on_leaderboard(
    client: Client, server, public_gold, tmp_path: Path
) -> None:
    records = file_records(public_gold, SHORT)
    rows, k = k_correct_predictions(records, 300)
    n = sum(r.task != "translation" for r in records)
    assert (k, n) == (300, 675)
    path = write_jsonl(tmp_path / "client-preds.jsonl", rows)
    message, breakdown, *_ = submit(
        client, path, "client-e2e-model", "https://example.org/m", "7B", "greedy decoding"
    )
    assert message.startswith("Stored as entry #"), message
    expected = round(100 * k / n, 1)  # only the file it covers is scored; one decimal
    assert f"{100 * k / n:.1f}%" in message
    # the board (HTML, as the page fetches it) has the new row at once
    board = page_board(server.url)
    mine = [r for r in parse_board(board)[1] if r["Model"] == "client-e2e-model"]
    assert len(mine) == 1
    row = mine[0]
    assert row["Overall accuracy"] == f"{expected:.1f}" and row["Items"] == str(n)
    assert row["Coverage"] == "Junior Scholarship" and row["Type"] == "self-reported"
    assert row["Link"] == "https://example.org/m" and row["Params"] == "7B"
    assert int(row["Rank"]) >= 1 and row["_key"].startswith("e:")
    assert row["_coverage"] == "Junior Scholarship"  # its own section
    assert f"n={n}" in row["_title"]["Overall accuracy"]
    groups = {(r["Breakdown"], r["Group"]): r["Score"] for r in board_rows(breakdown)}
    assert groups[("Overall accuracy", "all scored items (not translation)")] == f"{expected:.1f}"
    # a fresh call of the leaderboard endpoint (another visitor) sees it too, in every view
    for view in ("Overview", "Content type", "Language pair", "Source", "Format"):
        rows = leaderboard(client, view)
        assert any(r["Model"] == "client-e2e-model" for r in rows)
        if view == "Source":
            src = next(r for r in rows if r["Model"] == "client-e2e-model")
            assert src["Junior Scholarship"] == expected


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "broken.jsonl",
            '{"id": "x", "answer": "a"}\n{"id": \n',
            "line 2, column 8: malformed JSON",
        ),
        (
            "unknown.jsonl",
            '{"id": "latin-grammar-junior-scholarship_0.0.0", "answer": "a"}\n',
            "not in the gold data",
        ),
        # not shaped like a public id: counted, never named, like a private one (Safety)
        ("opaque.jsonl", '{"id": "no-such-item", "answer": "a"}\n', "1 row(s) name items"),
        ("empty.jsonl", "", "the file is empty"),
        ("noanswer.csv", "id,comment\nx,y\n", "'response' or an 'answer' column"),
        ("both.jsonl", '{"id": "x", "answer": "a", "response": "b"}\n', "not both"),
    ],
)
def test_bad_files_rejected_with_messages(
    client: Client, tmp_path: Path, name: str, content: str, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    message, breakdown, *_ = submit(client, path, "bad file model")
    assert message.startswith("Not accepted:"), message
    assert expected in message and name in message
    assert "Traceback" not in message
    assert board_rows(breakdown) == []


def test_bad_metadata_and_duplicates(client: Client, public_gold, tmp_path: Path) -> None:
    rows, _ = k_correct_predictions(
        file_records(public_gold, "prosody_feet_questions_english.json"), 5
    )
    path = write_jsonl(tmp_path / "feet.jsonl", rows)
    message, *_ = submit(client, path, "")
    assert message == "Not accepted: model name: required"
    message, *_ = submit(client, path, "feet model", link="javascript:alert(1)")
    assert message == "Not accepted: link: must be an http:// or https:// address"
    first, *_ = submit(client, path, "feet model")
    assert first.startswith("Stored as entry #")
    entry = first.split()[3].rstrip(":")
    copy = tmp_path / "renamed.jsonl"
    copy.write_bytes(path.read_bytes())
    # the same client sending the same predictions again is a retry: pointed to its entry
    again, *_ = submit(client, copy, "feet model")
    assert again.startswith(f"Already stored as entry {entry} (feet model)"), again
    # under another name it is no retry: refused, naming the entry (which keeps its name)
    renamed, *_ = submit(client, copy, "feet model again")
    assert renamed == (
        f"Not accepted: these predictions are already your entry {entry} (feet model); an "
        "entry keeps its name: to change it, withdraw the entry and submit again"
    )
    assert not any(r["Model"] == "feet model again" for r in leaderboard(client))


def test_compare_endpoint(client: Client, public_gold, tmp_path: Path) -> None:
    records = file_records(public_gold, "prosody_caesura_scansion_english.json")
    a_rows, ka = k_correct_predictions(records, 30)
    b_rows, kb = k_correct_predictions(records, 10)
    ids = []
    for tag, rows in (("cmp-a", a_rows), ("cmp-b", b_rows)):
        msg, *_ = submit(client, write_jsonl(tmp_path / f"{tag}.jsonl", rows), tag)
        ids.append(msg.split()[3].rstrip(":").lstrip("#"))
    out = client.predict([f"e:{ids[0]}", f"e:{ids[1]}"], api_name="/compare")
    message, by_content, by_pair, diff_plot, diffs, dis, gaps = out
    assert message.startswith(f"A = #{ids[0]} cmp-a; B = #{ids[1]} cmp-b")
    overall = next(r for r in board_rows(diffs) if r["Breakdown"] == "Overall")
    assert overall["Items"] == 41
    assert overall["A - B (points)"] == round(100 * (ka - kb) / 41, 1)
    dis_rows = board_rows(dis)
    assert len(dis_rows) == ka - kb  # A right, B wrong on exactly these
    assert {r["B answer"] for r in dis_rows} == {"zzqqxx"}
    gold = {r.id: r.answers[0] for r in records}
    assert all(r["Gold"] == gold[r["Item"]] == r["A answer"] for r in dis_rows)
    plot = json.loads(by_content["plot"]) if isinstance(by_content, dict) else None
    assert plot is not None and len(plot["data"]) == 2
    # answers given extracted: nothing to read leniently, the format cost nothing
    gap_rows = board_rows(gaps)
    assert gap_rows[0]["Breakdown"] == "Overall"
    assert gap_rows[0][f"#{ids[0]} cmp-a"] == gap_rows[0][f"#{ids[1]} cmp-b"] == "0.0 (n=41)"


def test_wrong_extension_refused_at_upload(client: Client, tmp_path: Path) -> None:
    from gradio_client.exceptions import AppError

    path = tmp_path / "preds.txt"
    path.write_text('{"id": "x", "answer": "a"}\n', encoding="utf-8")
    with pytest.raises(AppError, match=r"Invalid file type.*\.jsonl"):
        submit(client, path, "txt model")


@pytest.mark.parametrize(
    "name",
    ["..%2f..%2fetc%2fpasswd.jsonl", "../../etc/passwd.jsonl", ".hidden.jsonl", "a%5cb.jsonl"],
)
def test_path_like_upload_names_get_our_refusal(server, name: str) -> None:
    """A file name that is a path (even percent-encoded) or a dotfile is refused by our upload
    guard with a message saying what to do, before Gradio keeps or trips over it."""
    body = b'{"id": "x", "answer": "a"}\n'
    logged = len(server.log_text())
    resp = httpx.post(server.url + "gradio_api/upload", files={"files": (name, body)}, timeout=30)
    assert resp.status_code == 400
    assert resp.text == (
        f"upload refused: the file name {name!r} is a path or begins with a dot; rename the "
        "file, e.g. predictions.jsonl"
    )
    fine = httpx.post(
        server.url + "gradio_api/upload", files={"files": ("preds.jsonl", body)}, timeout=30
    )
    assert fine.status_code == 200 and fine.json()[0].endswith("preds.jsonl")
    assert "Traceback" not in server.log_text()[logged:]


def test_daily_limit_and_upload_limit_on_a_strict_server(public_gold, tmp_path: Path) -> None:
    from gradio_client.exceptions import AppError
    from kit.space_server import start_server
    from synthetic import PUBLIC_DIR

    srv = start_server(
        PUBLIC_DIR,
        tmp_path / "strict",
        env_extra={"RESPONDEOQA_SPACE_DAILY": "1", "RESPONDEOQA_SPACE_MAX_MB": "1"},
    )
    try:
        strict = Client(srv.url, verbose=False)
        records = file_records(public_gold, "prosody_feet_questions_english.json")
        first, _ = k_correct_predictions(records, 3)
        second, _ = k_correct_predictions(records, 4)
        ok, *_ = submit(strict, write_jsonl(tmp_path / "one.jsonl", first), "one")
        assert ok.startswith("Stored as entry #1")
        refused, *_ = submit(strict, write_jsonl(tmp_path / "two.jsonl", second), "two")
        assert refused == (
            "Not accepted: daily limit reached: at most 1 stored submissions per address in "
            "24 hours; please try again tomorrow"
        )
        big = tmp_path / "big.jsonl"
        big.write_bytes(b"\n" * (1024 * 1024 + 10))
        with pytest.raises((AppError, ValueError), match="maximum file size"):
            submit(strict, big, "big")
        # the server itself refuses the upload, whatever the client checks
        reply = httpx.post(
            srv.url + "gradio_api/upload", files={"files": ("big.jsonl", big.read_bytes())}
        )
        assert reply.status_code == 413
    finally:
        srv.proc.terminate()
        srv.proc.wait(timeout=15)


def test_the_submit_api_has_the_readme_names(client: Client, public_gold, tmp_path) -> None:
    """`view_api` lists /submit's inputs by the names docs/leaderboard.md gives; only files and model are
    required, so a client may send just those, by name."""
    api = client.view_api(print_info=False, return_format="dict")["named_endpoints"]["/submit"]
    optional = {p["parameter_name"]: p["parameter_has_default"] for p in api["parameters"]}
    page = (Path(__file__).parents[2] / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    said = page[page.index("API (`/submit`): inputs") :].split("; outputs")[0]
    names = ["files", "model", "link", "params", "note", "hub_model", "weights", "reasoning"]
    assert list(optional) == [*names, "confirm"]
    assert all(name in said for name in optional)
    assert [name for name, has in optional.items() if not has] == ["files", "model"]
    from gradio_client import handle_file

    rows, _ = k_correct_predictions(
        file_records(public_gold, "prosody_caesura_scansion_latin.json"), 3
    )
    path = write_jsonl(tmp_path / "kw.jsonl", rows)
    message, *_ = client.predict(
        files=[handle_file(str(path))], model="keyword model", api_name="/submit"
    )
    assert message.startswith("Stored as entry #"), message


def test_the_submit_message_counts_as_the_board_does(client: Client, server, public_gold, tmp_path):
    """No answer is counted over the accuracy items, as the board's No ans. column counts it;
    the translations are counted apart (they have no accuracy)."""
    from respondeoqa_space.views.columns import UNANSWERED

    short = file_records(public_gold, SHORT)  # 675 short-answer items
    long = file_records(public_gold, "junior_scholarship_translation_long.json")
    rows = [
        {"id": r.id, "response": "I do not know." if i < 75 else f"Answer: {r.answers[0]}"}
        for i, r in enumerate(short)
    ] + [
        {"id": r.id, "response": "I do not know." if i < 110 else f"Answer: {r.answers[0]}"}
        for i, r in enumerate(long)
    ]
    path = write_jsonl(tmp_path / "counts.jsonl", rows)
    message, *_ = submit(client, path, "counting model")
    assert message.startswith("Stored as entry #"), message
    # 75 of 675 = 11.11%; the 110 unreadable translations are not among them
    assert "on the 675 non-translation items of its coverage" in message
    assert (
        "Of those 675, 75 (11.1%, the board's No ans.) have no answer: 0 no prediction, 75 none "
        "the paper's rules could extract."
    ) in message
    assert (
        f"Of the {len(long)} translations (scored by BLEU), 0 have no prediction and 110 no "
        "extractable answer."
    ) in message
    mine = next(r for r in parse_board(page_board(server.url))[1] if r["Model"] == "counting model")
    assert mine[UNANSWERED] == "11.1"
