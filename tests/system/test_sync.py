"""Incremental sync into real Chroma + the lexical index: idempotence, changes, removals, ids, metadata."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from core.config import Settings
from core.index.index import Index
from core.resources import Models as Resources
from ingest.sync import Ingestor, SyncReport, chunk_id, ingest_paths
from tests.support.pdfs import make_pdf
from tests.support.records import assert_records_match
from tests.support.stores import SAMPLE, make_settings
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import index_for as get_index
from tests.support.stores import resources_for as get_index_resources

PARA = (
    "The {name} is tested on the hardware-in-the-loop rig every night. "
    "It reports joint temperatures, motor currents and brake cycle counts. "
    "Engineers review the {name} results before the daily stand-up meeting."
)


def _pdf(pages: list[list[str]]) -> bytes:
    return make_pdf(pages)


def _long(name: str, paragraphs: int) -> str:
    return "\n\n".join(PARA.format(name=f"{name} unit {i}") for i in range(paragraphs))


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    """A small real folder: md with front matter, md/txt/html in sub-folders, a 2-page PDF."""
    root = tmp_path / "docs"
    (root / "guides").mkdir(parents=True)
    (root / "manuals").mkdir()
    (root / "guides" / "gripper.md").write_text(
        "---\ntitle: Gripper Guide\ncategory: accessories\n---\n\n# Gripper\n\n" + _long("gripper", 12),
        encoding="utf-8",
    )
    (root / "guides" / "rover.txt").write_text(_long("rover", 3), encoding="utf-8")
    (root / "manuals" / "vision.html").write_text(
        "<html><head><title>Vision</title></head><body><h1>Vision kit</h1>"
        + "".join(f"<p>{PARA.format(name=f'camera {i}')}</p>" for i in range(3))
        + "</body></html>",
        encoding="utf-8",
    )
    (root / "manuals" / "safety.pdf").write_bytes(
        _pdf([["Safety functions are rated PLd, Category 3."], ["Page two covers stop categories."]])
    )
    (root / "top.md").write_text("A document at the root of the folder.", encoding="utf-8")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "skip.md").write_text("hidden files are not ingested", encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG not ingested")
    return root


def _index(s: Settings) -> Index:
    return get_index(s)


def _chroma(s: Settings) -> dict[str, dict]:
    got = _index(s).vectors.collection.get(include=["metadatas", "documents"])
    return {
        cid: {**meta, "_text": doc}
        for cid, meta, doc in zip(got["ids"], got["metadatas"], got["documents"], strict=True)
    }


def _ids_by_source(s: Settings) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for cid, meta in _chroma(s).items():
        out.setdefault(meta["source"], set()).add(cid)
    return out


def _assert_in_step(s: Settings) -> None:
    """Chroma, the lexical index and the manifest agree on the chunk ids, and every lexical row's
    copy of its Chroma record (document, metadata, vector) equals Chroma's."""
    index = _index(s)
    chroma_ids = set(index.vectors.all_ids())
    assert index.lexical.ids() == chroma_ids
    manifest = {cid for rec in index.manifest.all_files() for cid in rec.chunk_ids}
    assert manifest == chroma_ids
    assert index.state.get("dirty") is None
    assert_records_match(index)


def _ingest(s: Settings, *paths: Path) -> SyncReport:
    report = ingest_paths(s, list(paths), resources=get_index_resources(s))
    _assert_in_step(s)
    return report


def test_first_run_then_idempotent(settings: Settings, corpus: Path, resources: Resources) -> None:
    first = _ingest(settings, corpus)
    assert first.errors == []
    assert first.files == 5 and first.files_changed == 5
    count = _index(settings).count()
    assert count > 5
    assert first.chunks_added == first.embedded == count
    assert sorted(first.added_sources) == sorted(_ids_by_source(settings))

    second = _ingest(settings, corpus)
    assert second.embedded == 0
    assert second.chunks_added == 0 and second.chunks_removed == 0
    assert second.chunks_unchanged == count
    assert second.files_unchanged == 5 and second.files_changed == 0
    assert _index(settings).count() == count


def test_changed_file_replaces_its_chunks(settings: Settings, corpus: Path) -> None:
    _ingest(settings, corpus)
    before = _ids_by_source(settings)
    lexical_before = _index(settings).lexical.ids()

    f = corpus / "guides" / "gripper.md"
    text = f.read_text(encoding="utf-8")
    # change the last paragraph only: leading chunks keep their ids, the tail is replaced
    f.write_text(text.replace("gripper unit 11", "gripper unit eleven (revised)"), encoding="utf-8")
    report = _ingest(settings, corpus)
    after = _ids_by_source(settings)

    assert report.files_changed == 1 and report.files_unchanged == 4
    assert report.added_sources == ["guides/gripper.md"]
    assert report.embedded == len(after["guides/gripper.md"])
    gone = before["guides/gripper.md"] - after["guides/gripper.md"]
    new = after["guides/gripper.md"] - before["guides/gripper.md"]
    assert gone and new
    assert report.chunks_removed == len(gone) and report.chunks_added == len(new)
    assert report.chunks_unchanged == sum(len(v) for v in after.values()) - len(new)
    # the stale ids are gone from both stores, the rest of the corpus is untouched
    assert not gone & set(_index(settings).vectors.all_ids())
    assert not gone & _index(settings).lexical.ids()
    assert lexical_before - gone <= _index(settings).lexical.ids()
    for source in before:
        if source != "guides/gripper.md":
            assert after[source] == before[source]
    texts = [m["_text"] for m in _chroma(settings).values() if m["source"] == "guides/gripper.md"]
    assert any("gripper unit eleven (revised)" in t for t in texts)
    assert not any("gripper unit 11 " in t for t in texts)
    # the lexical side finds the new words and no longer the old ones
    hits = _index(settings).lexical.search("eleven revised", 5)
    assert hits and hits[0][0] in new


def test_removed_file_is_deleted_from_both_stores(settings: Settings, corpus: Path) -> None:
    _ingest(settings, corpus)
    before = _ids_by_source(settings)
    (corpus / "manuals" / "vision.html").unlink()
    report = _ingest(settings, corpus)
    assert report.files_removed == 1
    assert report.chunks_removed == len(before["manuals/vision.html"])
    assert report.embedded == 0
    after = _ids_by_source(settings)
    assert "manuals/vision.html" not in after
    assert not before["manuals/vision.html"] & _index(settings).lexical.ids()
    assert "manuals/vision.html" not in {r.source for r in _index(settings).manifest.all_files()}
    assert _index(settings).stats() == {"documents": 4, "chunks": _index(settings).count()}


def test_removing_a_whole_subfolder(settings: Settings, corpus: Path) -> None:
    _ingest(settings, corpus)
    shutil.rmtree(corpus / "guides")
    report = _ingest(settings, corpus)
    assert report.files_removed == 2
    assert set(_ids_by_source(settings)) == {"manuals/vision.html", "manuals/safety.pdf", "top.md"}


def test_single_file_ingest_never_removes_siblings(settings: Settings, corpus: Path) -> None:
    report = _ingest(settings, corpus / "guides" / "rover.txt")
    assert report.files == 1 and report.files_removed == 0
    assert set(_ids_by_source(settings)) == {"rover.txt"}
    again = _ingest(settings, corpus / "guides" / "rover.txt")
    assert again.embedded == 0


def test_ids_are_deterministic(tmp_path: Path, corpus: Path, resources: Resources) -> None:
    # a fresh store, and a copy of the folder elsewhere into another fresh store: same ids
    copy = tmp_path / "elsewhere" / "docs-copy"
    shutil.copytree(corpus, copy)
    runs = []
    for n, root in enumerate([corpus, corpus, copy]):
        forget_indexes()
        s = make_settings(tmp_path / f"run{n}")
        _ingest(s, root)
        runs.append(_chroma(s))
    forget_indexes()
    assert set(runs[0]) == set(runs[1]) == set(runs[2])
    ingestor = Ingestor(
        make_settings(tmp_path / "run0"), get_index_resources(make_settings(tmp_path / "run0"))
    )
    for cid, meta in runs[0].items():
        stem = Path(meta["source"]).stem
        title = "" if meta["title"] == stem else meta["title"]
        path = tuple(h for h in meta["heading_path"].split(" › ") if h)
        header = ingestor.header(meta["source"], title, path)
        # the id is derived from what was embedded: the contextual header, then the chunk text
        assert (
            chunk_id(
                meta["source"], meta["chunk_index"], f"{header}\n{meta['_text']}" if header else meta["_text"]
            )
            == cid
        )


def test_metadata_per_chunk(settings: Settings, corpus: Path, resources: Resources) -> None:
    _ingest(settings, corpus)
    chunks = _chroma(settings)
    by_source: dict[str, list[dict]] = {}
    for meta in chunks.values():
        by_source.setdefault(meta["source"], []).append(meta)
    assert set(by_source) == {
        "guides/gripper.md",
        "guides/rover.txt",
        "manuals/vision.html",
        "manuals/safety.pdf",
        "top.md",
    }
    expected_category = {
        "guides/gripper.md": "accessories",  # front matter wins over the folder
        "guides/rover.txt": "guides",
        "manuals/vision.html": "manuals",
        "manuals/safety.pdf": "manuals",
        "top.md": "general",
    }
    for source, metas in by_source.items():
        metas.sort(key=lambda m: m["chunk_index"])
        assert [m["chunk_index"] for m in metas] == list(range(len(metas)))
        for m in metas:
            assert m["category"] == expected_category[source]
            assert m["tokens"] == resources.counter.count(m["_text"]) <= settings.chunk_size
            full = hashlib.sha256(m["_text"].encode("utf-8")).hexdigest()
            assert full.startswith(m["content_hash"]) and len(m["content_hash"]) >= 16
            assert ("page" in m) == (source == "manuals/safety.pdf")
    assert len(by_source["guides/gripper.md"]) > 1  # long enough to need several chunks
    assert by_source["guides/gripper.md"][0]["title"] == "Gripper Guide"
    assert by_source["manuals/vision.html"][0]["title"] == "Vision"
    pdf = sorted(by_source["manuals/safety.pdf"], key=lambda m: m["chunk_index"])
    assert [m["page"] for m in pdf] == [1, 2]
    assert "PLd" in pdf[0]["_text"] and "stop categories" in pdf[1]["_text"]


def test_bad_file_is_reported_and_the_rest_indexed(settings: Settings, corpus: Path) -> None:
    (corpus / "guides" / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog")
    (corpus / "guides" / "garbage.txt").write_bytes(bytes(range(256)) * 8)
    (corpus / "guides" / "empty.md").write_bytes(b"")
    report = _ingest(settings, corpus)
    failed = {e["file"]: e["message"] for e in report.errors}
    assert set(failed) == {"guides/broken.pdf", "guides/garbage.txt", "guides/empty.md"}
    assert all(msg and "\n" not in msg for msg in failed.values())
    assert report.files == 8 and report.files_changed == 5
    assert len(_ids_by_source(settings)) == 5
    # a still-broken file is reported again and nothing else is redone
    again = _ingest(settings, corpus)
    assert again.embedded == 0 and len(again.errors) == 3


def test_file_that_turns_bad_keeps_its_last_good_chunks(settings: Settings, corpus: Path) -> None:
    _ingest(settings, corpus)
    before = _ids_by_source(settings)["guides/rover.txt"]
    (corpus / "guides" / "rover.txt").write_bytes(b"\x00\x01binary now" * 50)
    report = _ingest(settings, corpus)
    assert [e["file"] for e in report.errors] == ["guides/rover.txt"]
    assert report.files_removed == 0
    assert _ids_by_source(settings)["guides/rover.txt"] == before


def test_missing_path_is_an_error_entry(settings: Settings, corpus: Path) -> None:
    report = _ingest(settings, corpus / "guides", corpus / "nope")
    assert report.errors == [{"file": str(corpus / "nope"), "message": "no such file or directory"}]
    assert report.files == 2


def test_reset_empties_then_reingests(settings: Settings, corpus: Path) -> None:
    first = _ingest(settings, corpus)
    report = ingest_paths(settings, [corpus / "guides"], reset=True, resources=get_index_resources(settings))
    _assert_in_step(settings)
    assert report.embedded == _index(settings).count() < first.embedded
    assert set(_ids_by_source(settings)) == {"gripper.md", "rover.txt"}


def test_interrupted_run_is_reconciled(settings: Settings, corpus: Path, resources: Resources) -> None:
    """Vectors written without their manifest rows (a crash mid-file) are cleaned by the next run."""
    _ingest(settings, corpus)
    index = _index(settings)
    orphan = "0" * 32
    vec = resources.embedder.embed(["orphan chunk"])
    index.vectors.upsert([orphan], vec, ["orphan chunk"], [{"source": "ghost.md"}])
    index.state.set("dirty", "1")
    report = _ingest(settings, corpus)
    assert report.embedded == 0
    assert orphan not in set(index.vectors.all_ids())


def test_sample_corpus_is_in_step(sample_store: Settings) -> None:
    """The real sample corpus: every file indexed, stores in step, a second sync costs nothing."""
    index = get_index(sample_store)
    _assert_in_step(sample_store)
    files = [f for f in SAMPLE.rglob("*") if f.is_file() and not f.name.startswith(".")]
    assert index.stats()["documents"] == len(files)
    assert {r.source for r in index.manifest.all_files()} == {f.relative_to(SAMPLE).as_posix() for f in files}


def test_identical_file_in_two_roots_survives_removal_of_one(settings: Settings, tmp_path: Path) -> None:
    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    (a / "same.md").write_text("The otter swims in the river near the old mill.", encoding="utf-8")
    (b / "same.md").write_text("The otter swims in the river near the old mill.", encoding="utf-8")
    _ingest(settings, a)
    _ingest(settings, b)
    (b / "same.md").unlink()
    _ingest(settings, b)
    assert _index(settings).count() == 1  # A's copy is still indexed
