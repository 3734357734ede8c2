"""`python -m ingest`: real subprocesses for the contract, in-process runs for the exit-code corners."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from core.resources import Models as Resources
from ingest.__main__ import main
from tests.support.stores import ROOT
from tests.support.stores import close_stores as forget_indexes


def _folder(tmp_path: Path, bad: bool = True) -> Path:
    """Three small real documents (one chunk each, so runs stay fast) and optionally a bad PDF."""
    root = tmp_path / "docs"
    (root / "products").mkdir(parents=True)
    (root / "policies").mkdir()
    (root / "support").mkdir()
    (root / "products" / "gripper-g5.md").write_text(
        "---\ncategory: accessories\n---\n# Gripper G5\n\nThe G5 closes its 80 mm stroke in 0.35 s.\n",
        encoding="utf-8",
    )
    (root / "policies" / "returns.txt").write_text(
        "A restocking fee of 15% of the purchase price is deducted from every refund.\n",
        encoding="utf-8",
    )
    (root / "support" / "rma.html").write_text(
        "<html><body><h1>RMA</h1><p>Ship the product within 15 days of receiving the RMA number.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    if bad:
        (root / "support" / "broken.pdf").write_bytes(b"%PDF-1.7\n% cut off mid-file")
    return root


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTEXTLENS_")}
    env.update(
        PYTHONPATH=str(ROOT),
        CONTEXTLENS_TRACE_PATH=str(tmp_path / "traces.jsonl"),
        CONTEXTLENS_STORE_PATH=str(tmp_path / "default-store"),  # never the repo's data/store
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    return env


def _run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ingest", *args],
        cwd=tmp_path,  # no developer .env is read
        env=env or _env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _last_json(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


# -- real subprocesses ----------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_twice_second_run_embeds_nothing(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    store = tmp_path / "store"
    first = _run(tmp_path, str(docs), "--store", str(store), "--json")
    assert first.returncode == 0, first.stderr
    r1 = _last_json(first.stdout)
    for key in (
        "files",
        "chunks_added",
        "chunks_unchanged",
        "chunks_removed",
        "embedded",
        "seconds",
        "errors",
    ):
        assert key in r1
    assert r1["files"] == 4 and r1["embedded"] > 0 and r1["chunks_added"] == r1["embedded"]
    assert r1["errors"] == [{"file": "support/broken.pdf", "message": r1["errors"][0]["message"]}]
    assert "damaged" in r1["errors"][0]["message"]
    assert len(first.stdout.strip().splitlines()) == 2  # one human summary, then the JSON
    assert "Traceback" not in first.stderr
    assert "\r" not in first.stderr  # no progress bar when stderr is not a terminal

    second = _run(tmp_path, str(docs), "--store", str(store), "--json")
    assert second.returncode == 0, second.stderr
    r2 = _last_json(second.stdout)
    assert r2["embedded"] == 0 and r2["chunks_added"] == 0
    assert r2["chunks_unchanged"] == r1["chunks_added"]
    assert len(r2["errors"]) == 1

    # nothing was written into the repository
    assert not (tmp_path / "default-store").exists()
    assert (store / "chroma.sqlite3").exists()


@pytest.mark.parametrize(
    "args",
    [
        [],  # no PATH
        ["--bogus-flag", "x"],
        ["docs", "--chroma-port", "not-a-number"],
    ],
)
def test_cli_bad_usage_exits_2(tmp_path: Path, args: list[str]) -> None:
    proc = _run(tmp_path, *args)
    assert proc.returncode == 2
    assert "usage:" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_cli_no_existing_path_exits_2(tmp_path: Path) -> None:
    proc = _run(tmp_path, str(tmp_path / "missing"), "--store", str(tmp_path / "s"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: no such file or directory: {tmp_path / 'missing'}"]
    assert not (tmp_path / "s").exists()


def test_cli_bad_settings_exit_2(tmp_path: Path) -> None:
    env = _env(tmp_path)
    env["CONTEXTLENS_CHUNK_SIZE"] = "5"
    proc = _run(tmp_path, str(tmp_path), env=env)
    assert proc.returncode == 2
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("error: Invalid settings:") and "chunk_size" in line
    bad_port = _run(tmp_path, str(tmp_path), "--chroma-port", "70000")
    assert bad_port.returncode == 2 and "chroma_port" in bad_port.stderr


def test_cli_help(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--help")
    assert proc.returncode == 0
    for flag in ("--store", "--collection", "--reset", "--json", "--chroma-host", "--chroma-port"):
        assert flag in proc.stdout


# -- in-process (the embedder is already loaded: fast) -------------------------------------------


@pytest.fixture()
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resources: Resources) -> Path:
    for key in list(os.environ):
        if key.startswith("CONTEXTLENS_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXTLENS_TRACE_PATH", str(tmp_path / "traces.jsonl"))
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(tmp_path / "default-store"))
    yield tmp_path
    forget_indexes()


def test_main_reset_collection_and_removal(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = _folder(cli_env, bad=False)
    store = str(cli_env / "store")
    assert main([str(docs), "--store", store, "--collection", "one", "--json"]) == 0
    first = _last_json(capsys.readouterr().out)
    assert first["errors"] == [] and first["files"] == 3

    (docs / "products" / "gripper-g5.md").unlink()
    assert main([str(docs), "--store", store, "--collection", "one", "--json"]) == 0
    removed = _last_json(capsys.readouterr().out)
    assert removed["files_removed"] == 1 and removed["chunks_removed"] > 0 and removed["embedded"] == 0

    assert main([str(docs), "--store", store, "--collection", "one", "--reset", "--json"]) == 0
    reset = _last_json(capsys.readouterr().out)
    assert reset["embedded"] == reset["chunks_added"] == first["chunks_added"] - removed["chunks_removed"]

    # another collection in the same store starts empty
    assert main([str(docs), "--store", store, "--collection", "two", "--json"]) == 0
    assert _last_json(capsys.readouterr().out)["embedded"] == reset["embedded"]


def test_main_every_file_bad_exits_1(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = cli_env / "bad"
    root.mkdir()
    (root / "a.txt").write_bytes(b"\x00\x01\x02" * 100)
    (root / "b.pdf").write_bytes(b"not a pdf")
    assert main([str(root), "--store", str(cli_env / "store"), "--json"]) == 1
    report = _last_json(capsys.readouterr().out)
    assert report["embedded"] == 0 and {e["file"] for e in report["errors"]} == {"a.txt", "b.pdf"}


def test_main_nothing_to_do_exits_0(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = cli_env / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "notes.docx").write_bytes(b"unsupported files are skipped silently")
    assert main([str(empty), "--store", str(cli_env / "store"), "--json"]) == 0
    report = _last_json(capsys.readouterr().out)
    assert report["files"] == 0 and report["errors"] == []


def test_main_summary_without_json(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = _folder(cli_env)
    assert main([str(docs), "--store", str(cli_env / "store")]) == 0
    out, err = capsys.readouterr()
    [line] = out.strip().splitlines()
    assert line.startswith("4 files:") and "1 error(s)" in line
    assert "broken.pdf" in err


def test_main_missing_path_among_good_ones(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = _folder(cli_env, bad=False)
    code = main([str(docs), str(cli_env / "nope.md"), "--store", str(cli_env / "store"), "--json"])
    assert code == 0
    report = _last_json(capsys.readouterr().out)
    assert report["errors"] == [{"file": str(cli_env / "nope.md"), "message": "no such file or directory"}]


def test_main_store_that_is_a_file_exits_1(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (cli_env / "not-a-dir").write_text("x")
    docs = _folder(cli_env, bad=False)
    assert main([str(docs), "--store", str(cli_env / "not-a-dir")]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error:")


def test_main_progress_bar_only_on_a_terminal(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    docs = _folder(cli_env, bad=False)
    tty = Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main([str(docs), "--store", str(cli_env / "store"), "--json"]) == 0
    assert "3/3" in tty.getvalue() and "file" in tty.getvalue()
    monkeypatch.undo()
    out = capsys.readouterr().out
    assert "3/3" not in out and _last_json(out)["files"] == 3  # the bar never touches stdout


@pytest.mark.slow
def test_main_unreachable_server_exits_1(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    docs = _folder(cli_env, bad=False)
    code = main([str(docs), "--chroma-host", "127.0.0.1", "--chroma-port", str(port), "--json"])
    assert code == 1
    out, err = capsys.readouterr()
    assert out == ""
    [line] = err.strip().splitlines()
    assert line.startswith("error:") and f"127.0.0.1:{port}" in line
