"""What is indexed, and removing it (issue 17): the documents API, `python -m ingest --list /
--remove`, and the next question no longer citing a removed document."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from core.config import Settings
from ingest.documents import document_chunks, list_documents, remove_documents
from ingest.sync import ingest_paths
from tests.support.stores import ROOT, chunks_by_source, make_settings, resources_for
from tests.support.stores import index_for as get_index

KESTREL = "# Kestrel K2 drone\n\n## Specifications\n\n- Flight time: 41 minutes\n- Payload: 2.5 kg\n"
HERON = "# Heron H4 boat\n\nThe Heron H4 survey boat runs for 9 hours on one charge."


def _store(tmp: Path) -> tuple[Settings, Path]:
    s = make_settings(tmp / "store")
    folder = tmp / "docs"
    folder.mkdir()
    (folder / "kestrel.md").write_text(KESTREL, encoding="utf-8")
    (folder / "heron.md").write_text(HERON, encoding="utf-8")
    report = ingest_paths(s, [folder], resources=resources_for(s))
    assert not report.errors
    return s, folder


def _cli(s: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ingest", *args, "--store", str(s.store_path), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_documents_are_listed_with_their_chunks_and_tokens(tmp_path: Path) -> None:
    s, _ = _store(tmp_path)
    docs = {d.source: d for d in list_documents(get_index(s), s)}
    assert set(docs) == {"kestrel.md", "heron.md"}
    k = docs["kestrel.md"]
    assert k.chunks >= 1 and k.tokens > 10 and k.origin == "corpus" and k.indexed_at.startswith("20")
    chunks = document_chunks(get_index(s), "kestrel.md")
    assert "41 minutes" in chunks[0].text
    assert chunks[0].metadata["heading_path"].startswith("Kestrel K2 drone")


def test_cli_lists_and_removes_and_the_answer_stops_citing_it(tmp_path: Path) -> None:
    s, _ = _store(tmp_path)
    listed = _cli(s, "--list")
    assert listed.returncode == 0, listed.stderr
    assert {d["source"] for d in json.loads(listed.stdout.splitlines()[-1])["documents"]} == {
        "kestrel.md",
        "heron.md",
    }

    unknown = _cli(s, "--remove", "kestrel.md", "nope.md")
    assert unknown.returncode == 2 and "not indexed: nope.md" in unknown.stderr
    assert set(chunks_by_source(s)) == {"kestrel.md", "heron.md"}  # nothing removed

    from core.pipeline import Pipeline

    pipe = Pipeline(s, resources_for(s), backend=None)
    before = pipe.ask("What is the flight time of the Kestrel K2?", record=False)
    assert "41 minutes" in before.text

    removed = _cli(s, "--remove", "kestrel.md")
    assert removed.returncode == 0, removed.stderr
    last = json.loads(removed.stdout.splitlines()[-1])
    assert last["removed"] == ["kestrel.md"] and last["chunks_removed"] >= 1

    index = get_index(s)
    assert set(chunks_by_source(s)) == {"heron.md"}
    assert {r.source for r in index.manifest.all_files()} == {"heron.md"}
    assert index.search_lexical("Kestrel flight time", 10) == []  # its lexical rows left with it
    after = pipe.ask("What is the flight time of the Kestrel K2?", record=False)
    assert "41 minutes" not in after.text
    assert all(c["source"] != "kestrel.md" for c in after.trace["chunks"])


def test_removing_an_upload_deletes_the_saved_copy(tmp_path: Path) -> None:
    from ingest.uploads import save_and_ingest

    s = make_settings(tmp_path / "store")
    report = save_and_ingest(s, [("notes.md", KESTREL.encode())], resources=resources_for(s))
    assert not report.errors
    docs = list_documents(get_index(s), s)
    assert [(d.source.endswith("notes.md"), d.origin) for d in docs] == [(True, "upload")]
    saved = Path(docs[0].root) / docs[0].source
    assert saved.exists()
    remove_documents(get_index(s), s, [docs[0].source])
    assert not saved.exists() and list_documents(get_index(s), s) == []
