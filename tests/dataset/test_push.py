"""`dataset push`: dry run, refusal of private material to public repositories, Hub errors,
and the Benchmark file the Hub validates at push time.

The Hub is never contacted. `FakeHub`, a local HTTP server recording the requests, answers the
repository calls (create, info) but not uploads: those tests go up to the `upload_folder` call
boundary. The uploads go to the Hub stand-in (kit/hubstub.py), which validates a commit's
`eval.yaml` with the Hub's documented rules (kit/hub_eval_spec.py) and refuses an invalid one
as the Hub refuses a commit: the data must land all the same, and the command say why.
"""

from __future__ import annotations

import http.server
import json
import shutil
import threading
from pathlib import Path

import pytest
import yaml
from kit import hub_eval_spec
from kit.hubstub import serving
from respondeoqa_eval.cli import main
from respondeoqa_eval.dataset.push import plan_upload, push
from respondeoqa_eval.errors import InputError
from respondeoqa_eval.harness.eval_results import EVALUATION_FRAMEWORK


class FakeHub:
    """A local HTTP server answering like the Hub API would; records every request."""

    def __init__(self, repo_private: bool | None = None, status: int = 200):
        self.requests: list[tuple[str, str, dict]] = []
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                try:
                    payload = json.loads(body) if body else {}
                except ValueError:
                    payload = {}
                hub.requests.append((self.command, self.path, payload))
                if status != 200:
                    data, code = {"error": "Invalid credentials in Authorization header"}, status
                elif self.path == "/api/repos/create":
                    repo = f"{payload.get('organization')}/{payload.get('name')}"
                    data, code = {"url": f"{hub.url}/datasets/{repo}"}, 200
                elif self.path.startswith("/api/datasets/") and repo_private is not None:
                    data, code = {"id": "org/name", "private": repo_private, "sha": "0" * 40}, 200
                else:
                    data, code = {"error": "not served by the test hub"}, 501
                raw = json.dumps(data).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_HEAD = _answer

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hub(monkeypatch):
    import huggingface_hub.constants

    # the suite runs with HF_HUB_OFFLINE=1 (tests/conftest.py); these tests talk to 127.0.0.1 only
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    servers = []

    def start(**kwargs) -> FakeHub:
        server = FakeHub(**kwargs)
        servers.append(server)
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        return server

    yield start
    for server in servers:
        server.close()


def test_dry_run_lists_every_file_and_size_and_contacts_nothing(public_build, hub, capsys):
    server = hub()
    folder = public_build.folder
    code = main(
        ["dataset", "push", "--repo-id", "org/respondeoqa", "--folder", str(folder), "--dry-run"]
    )
    assert code == 0
    printed = capsys.readouterr().out
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    # README.md, LICENSE.md, eval.yaml, one Parquet per public config
    assert len(files) == 3 + 7 and (folder / "eval.yaml").is_file()
    for path in files:
        rel = path.relative_to(folder).as_posix()
        assert f"{path.stat().st_size}  {rel}" in printed, rel
    assert f"would upload {len(files)} files" in printed and "public dataset repository" in printed
    assert server.requests == []


def test_dry_run_refuses_private_configs_for_a_public_repo(private_build, hub, capsys):
    server = hub()
    args = ["dataset", "push", "--repo-id", "org/rqa", "--folder", str(private_build.folder)]
    assert main([*args, "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert "certamen/test-00000-of-00001.parquet" in captured.out  # the listing still shows
    assert "refusing to push to org/rqa" in captured.err and "--private" in captured.err
    assert main([*args, "--dry-run", "--private"]) == 0
    assert "private dataset repository" in capsys.readouterr().out
    assert server.requests == []


def test_real_push_of_private_material_to_public_repo_is_refused_before_any_request(
    private_build, hub, capsys
):
    server = hub()
    args = ["dataset", "push", "--repo-id", "org/rqa", "--folder", str(private_build.folder)]
    assert main(args) == 2
    assert "refusing" in capsys.readouterr().err
    assert server.requests == []


def test_private_material_is_detected_by_content_not_only_by_folder_name(private_build, tmp_path):
    folder = tmp_path / "renamed"
    folder.mkdir()
    (folder / "README.md").write_text("---\npretty_name: RespondeoQA\n---\n", encoding="utf-8")
    (folder / "innocent").mkdir()
    src = private_build.folder / "nle-multiple_choice" / "test-00000-of-00001.parquet"
    (folder / "innocent" / "data.parquet").write_bytes(src.read_bytes())
    assert plan_upload(folder).private_parts == ["innocent/data.parquet (nle)"]
    with pytest.raises(InputError, match="refusing"):
        push(folder, "org/x", dry_run=True, echo=lambda _line: None)


def test_push_creates_the_repo_with_its_visibility_then_reports_hub_errors(public_build, hub):
    server = hub(status=401)
    with pytest.raises(InputError, match=r"refused the push to org/respondeoqa \(HTTP 401\)"):
        push(public_build.folder, "org/respondeoqa", token="hf_test_token")
    method, path, payload = server.requests[0]
    assert (method, path) == ("POST", "/api/repos/create")
    assert payload["name"] == "respondeoqa" and payload["organization"] == "org"
    assert payload["type"] == "dataset" and payload["visibility"] == "public"


def test_push_writes_the_benchmarks_eval_yaml_with_the_dataset(public_build, hub, tmp_path):
    """An older build without eval.yaml gets it before the upload (the Hub Benchmark file)."""
    import shutil

    import yaml

    folder = tmp_path / "old-build"
    shutil.copytree(public_build.folder, folder)
    expected = (folder / "eval.yaml").read_text("utf-8")
    (folder / "eval.yaml").unlink()
    push(folder, "org/respondeoqa", dry_run=True, echo=lambda _line: None)
    assert not (folder / "eval.yaml").exists()  # a dry run writes nothing
    hub(status=401)
    lines: list[str] = []
    with pytest.raises(InputError, match="HTTP 401"):
        push(folder, "org/respondeoqa", token="hf_test_token", echo=lines.append)
    assert (folder / "eval.yaml").read_text("utf-8") == expected
    assert yaml.safe_load(expected)["evaluation_framework"] == EVALUATION_FRAMEWORK
    assert any("eval.yaml" in line for line in lines)


def test_private_build_is_not_pushed_into_an_existing_public_repo(private_build, hub):
    server = hub(repo_private=False)
    with pytest.raises(InputError, match="exists and is public"):
        push(private_build.folder, "org/rqa", private=True, token="hf_test_token")
    assert server.requests[0][2]["visibility"] == "private"
    assert [r[1] for r in server.requests][1].startswith("/api/datasets/org/rqa")
    # nothing was uploaded: no commit or preupload call reached the server
    assert not any("commit" in r[1] or "preupload" in r[1] for r in server.requests)


def test_bad_repo_id_and_unbuilt_folder(tmp_path):
    with pytest.raises(InputError, match="ORG/NAME"):
        push(tmp_path, "no-slash", dry_run=True)
    with pytest.raises(InputError, match="no README.md"):
        push(tmp_path, "org/name", dry_run=True)


# -- the Benchmark file against the Hub stand-in ------------------------------------------------

REPO = "org/respondeoqa"
LISTED = (*hub_eval_spec.FRAMEWORKS, hub_eval_spec.proposed_entry()["key"])


def _data(folder: Path) -> dict[str, bytes]:
    """The build's files but eval.yaml: the dataset itself."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "eval.yaml"
    }


def _push_cli(folder: Path, capsys) -> tuple[int, str, list[str]]:
    code = main(["dataset", "push", "--repo-id", REPO, "--folder", str(folder)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.splitlines()


def test_valid_eval_yaml_lands_after_the_data_in_its_own_commit(
    public_build, tmp_path, monkeypatch, capsys
):
    """A Hub listing the framework takes both: the data's commit, then eval.yaml's."""
    folder = public_build.folder
    with serving(tmp_path / "hub", monkeypatch, frameworks=LISTED) as hub:
        code, out, err = _push_cli(folder, capsys)
    assert (code, err) == (0, [])
    files = hub.files(REPO)
    assert files == {**_data(folder), "eval.yaml": (folder / "eval.yaml").read_bytes()}
    data_commit, benchmark_commit = hub.commits
    assert "eval.yaml" not in data_commit.added and len(data_commit.added) == len(_data(folder))
    assert benchmark_commit.added == ["eval.yaml"]
    assert f"pushed: {hub.url}/datasets/{REPO}/commit/" in out
    assert "eval.yaml (the Hub Benchmark file): " in out


def test_unlisted_framework_is_refused_the_data_lands_and_one_line_says_why(
    public_build, tmp_path, monkeypatch, capsys
):
    """The Hub's list as kept (the proposed entry not merged yet): the Hub refuses eval.yaml."""
    folder = public_build.folder
    with serving(tmp_path / "hub", monkeypatch) as hub:
        code, out, err = _push_cli(folder, capsys)
        pushed = push(folder, REPO, echo=lambda _line: None)  # the library's answer, again
    assert code == 0 and hub.files(REPO) == _data(folder)  # every data file, byte for byte
    assert [c.added for c in hub.commits if "eval.yaml" in c.added] == []
    (line,) = err
    assert line.startswith("respondeoqa-eval: eval.yaml not pushed, the Hub refused it (HTTP 400)")
    assert (
        f"evaluation_framework {EVALUATION_FRAMEWORK!r} is not one of the Hub's evaluation " in line
    )
    assert "the data is pushed (" in line and "docs/hub-benchmark.md" in line
    assert f"pushed: {hub.url}/datasets/{REPO}/commit/" in out
    assert pushed.eval_yaml_url is None and f"({pushed.commit_url})" in pushed.eval_yaml_refused
    assert (
        pushed.eval_yaml_refused.split("; the data")[0]
        == line.split(": ", 1)[1].split("; the data")[0]
    )


def test_invalid_eval_yaml_is_refused_and_the_hubs_earlier_one_stays(
    public_build, tmp_path, monkeypatch, capsys
):
    """An operator's own eval.yaml (no header of ours: pushed as it is) that the Hub's rules
    refuse: the data lands, the Hub keeps the eval.yaml it had, the reasons come on one line."""
    folder = tmp_path / "build"
    shutil.copytree(public_build.folder, folder)
    accepted = (folder / "eval.yaml").read_bytes()
    own = yaml.safe_load(accepted)
    own["evaluation_framework"] = "inspect-ai"  # each task with id, config and split only
    (folder / "eval.yaml").write_text(yaml.safe_dump(own), encoding="utf-8")
    (folder / "README.md").write_text(
        (folder / "README.md").read_text("utf-8") + "\nA new line.\n", encoding="utf-8"
    )
    with serving(tmp_path / "hub", monkeypatch, frameworks=LISTED) as hub:
        hub.put(REPO, "eval.yaml", accepted)  # an earlier push's, which the Hub took
        code, _out, err = _push_cli(folder, capsys)
    assert code == 0
    assert hub.files(REPO) == {**_data(folder), "eval.yaml": accepted}
    (line,) = err
    assert "eval.yaml not pushed, the Hub refused it (HTTP 400)" in line
    assert "tasks[0].field_spec is required when evaluation_framework is inspect-ai; " in line
    assert line.count("is required when evaluation_framework is inspect-ai") == 21


def test_an_older_builds_eval_yaml_is_rewritten_before_the_push(
    public_build, tmp_path, monkeypatch, capsys
):
    """The file an older respondeoqa-eval wrote (its header; inspect-ai with id, config and split
    only, which the Hub's rules refuse) is written anew, then accepted."""
    folder = tmp_path / "build"
    shutil.copytree(public_build.folder, folder)
    current = (folder / "eval.yaml").read_text("utf-8")
    (folder / "eval.yaml").write_text(
        current.replace(
            f"evaluation_framework: {EVALUATION_FRAMEWORK}", "evaluation_framework: inspect-ai"
        ),
        encoding="utf-8",
    )
    with serving(tmp_path / "hub", monkeypatch, frameworks=LISTED) as hub:
        code, out, err = _push_cli(folder, capsys)
    assert (code, err) == (0, [])
    assert f"rewrote {folder / 'eval.yaml'} (an older respondeoqa-eval wrote it)" in out
    assert (folder / "eval.yaml").read_text("utf-8") == current
    assert hub.files(REPO)["eval.yaml"] == current.encode()


def test_one_commit_with_data_and_a_refused_eval_yaml_lands_nothing(
    public_build, tmp_path, monkeypatch
):
    """Why eval.yaml goes in a commit of its own: the Hub refuses a commit whole (the stand-in
    as the Hub: HTTP 400, huggingface_hub's BadRequestError for the commit endpoint)."""
    from huggingface_hub import CommitOperationAdd, HfApi
    from huggingface_hub.errors import BadRequestError

    folder = public_build.folder
    with serving(tmp_path / "hub", monkeypatch) as hub:
        api = HfApi(endpoint=hub.url)
        api.create_repo(REPO, repo_type="dataset")
        operations = [
            CommitOperationAdd(path_in_repo=rel, path_or_fileobj=str(folder / rel))
            for rel in [*_data(folder), "eval.yaml"]
        ]
        with pytest.raises(BadRequestError, match="Bad request for commit endpoint") as refused:
            api.create_commit(REPO, operations, commit_message="all at once", repo_type="dataset")
    assert refused.value.response.status_code == 400
    assert "eval.yaml does not follow the specification" in refused.value.server_message
    assert hub.files(REPO) == {} and hub.commits == []
