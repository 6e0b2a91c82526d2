"""`dataset push`: dry run, refusal of private material to public repositories, Hub errors.

The Hub is never contacted: a real local HTTP server stands in for it (HF_ENDPOINT) and records
the requests. It answers the repository calls (create, info) but not uploads, so the tests go up
to the `upload_folder` call boundary and no further.
"""

from __future__ import annotations

import http.server
import json
import threading

import pytest
from respondeoqa_eval.cli import main
from respondeoqa_eval.dataset.push import plan_upload, push
from respondeoqa_eval.errors import InputError


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
    assert yaml.safe_load(expected)["evaluation_framework"] == "inspect-ai"
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
