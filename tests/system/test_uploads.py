"""Uploads: safe names, refusal before writing, atomic store, exact ingest, clean rollback."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import Settings
from core.resources import Models as Resources
from ingest.uploads import MAX_NAME_BYTES, sanitise_name, save_and_ingest, uploads_dir
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import index_for as get_index
from tests.support.stores import make_settings, resources_for

GOOD = (
    b"# Zephyr Conveyor Z9\n\n"
    b"The Zephyr Conveyor Z9 moves parcels at up to 3.5 metres per second. "
    b"Its belt is made of food-grade polyurethane and is rated for 120 kg per metre. "
    b"The Z9 was designed by the Lisbon team and ships with a two-year warranty.\n"
)


@pytest.fixture()
def store(tmp_path: Path, resources: Resources) -> Settings:
    forget_indexes()
    yield make_settings(tmp_path)
    forget_indexes()


def _files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("notes.md", "notes.md"),
        ("../../etc/evil.md", "evil.md"),
        ("..\\..\\Windows\\evil.txt", "evil.txt"),
        ("/abs/path/report.pdf", "report.pdf"),
        ("a\x00b\x07c\u200b.md", "abc.md"),
        ("..", "upload"),
        (".hidden.md", "hidden.md"),
        ("Überblick – Größe 日本語.md", "Überblick – Größe 日本語.md"),
        ('what?:*"<>|.txt', "what_______.txt"),
        ("  spaced   out  .md ", "spaced out.md"),
    ],
)
def test_sanitise_name(raw: str, expected: str) -> None:
    assert sanitise_name(raw) == expected


def test_sanitise_trims_long_names_keeping_extension() -> None:
    name = sanitise_name("é" * 400 + ".markdown")
    assert name.endswith(".markdown")
    assert len(name.encode("utf-8")) <= MAX_NAME_BYTES
    assert name.startswith("éé")
    name.encode("utf-8").decode("utf-8")  # never cut inside a character


def test_upload_is_stored_indexed_and_idempotent(store: Settings) -> None:
    index = get_index(store)
    before = index.stats()
    calls: list[tuple[int, int, str]] = []
    report = save_and_ingest(
        store, [("../zephyr.md", GOOD)], lambda *a: calls.append(a), resources_for(store)
    )
    assert not report.errors
    assert report.added_sources == ["uploads/zephyr.md"]
    assert report.files_changed == 1 and report.embedded > 0
    assert (uploads_dir(store) / "zephyr.md").read_bytes() == GOOD
    assert _files_in(uploads_dir(store)) == ["zephyr.md"]  # no temp files left behind
    after = index.stats()
    assert after["documents"] == before["documents"] + 1
    assert after["chunks"] > before["chunks"]
    assert calls and calls[-1][0] == calls[-1][1] == 1
    hits = index.lexical.search("Zephyr conveyor polyurethane belt", 3)
    got = index.vectors.get([cid for cid, _ in hits])
    assert any(row.chunk.source == "uploads/zephyr.md" for row in got)

    again = save_and_ingest(store, [("zephyr.md", GOOD)], resources=resources_for(store))
    assert again.files_unchanged == 1 and again.embedded == 0 and not again.errors
    assert index.stats() == after


def test_refused_before_writing(tmp_path: Path, resources: Resources) -> None:
    forget_indexes()
    s = make_settings(tmp_path, max_file_mb=0.001)  # ~1 KB
    try:
        report = save_and_ingest(
            s,
            [
                ("tool.exe", b"MZ\x90\x00"),
                ("big.txt", b"word " * 1000),
                ("empty.md", b"  \n "),
                ("noext", b"hello"),
            ],
        )
        by_file = {e["file"]: e["message"] for e in report.errors}
        assert "unsupported file type .exe" in by_file["tool.exe"]
        assert "over the 0.001 MB limit" in by_file["big.txt"]
        assert by_file["empty.md"] == "the file is empty"
        assert "unsupported file type (none)" in by_file["noext"]
        assert report.files == 4 and report.embedded == 0
        assert _files_in(uploads_dir(s)) == []
        assert get_index(s).stats()["chunks"] == 0
    finally:
        forget_indexes()


def test_broken_file_is_removed_and_index_unchanged(store: Settings) -> None:
    index = get_index(store)
    save_and_ingest(store, [("zephyr.md", GOOD)], resources=resources_for(store))
    before = index.stats()
    report = save_and_ingest(
        store, [("broken.pdf", b"%PDF-1.4\nthis is not really a pdf\n"), ("fine.txt", b"Plain words " * 20)]
    )
    assert [e["file"] for e in report.errors] == ["broken.pdf"]
    assert report.errors[0]["message"]
    assert report.added_sources == ["uploads/fine.txt"]
    assert _files_in(uploads_dir(store)) == ["fine.txt", "zephyr.md"]
    assert index.stats()["documents"] == before["documents"] + 1


def test_failed_replacement_restores_previous_version(store: Settings) -> None:
    index = get_index(store)
    save_and_ingest(store, [("zephyr.md", GOOD)], resources=resources_for(store))
    before = index.stats()
    report = save_and_ingest(
        store, [("zephyr.md", b"\x00\x01\x02 binary garbage " * 10)], resources=resources_for(store)
    )
    assert [e["file"] for e in report.errors] == ["zephyr.md"]
    assert "binary" in report.errors[0]["message"]
    assert (uploads_dir(store) / "zephyr.md").read_bytes() == GOOD
    assert index.stats() == before
    # the old version is still indexed and unchanged
    assert save_and_ingest(store, [("zephyr.md", GOOD)], resources=resources_for(store)).files_unchanged == 1


def test_duplicate_names_in_one_upload(store: Settings) -> None:
    report = save_and_ingest(
        store, [("a/dup.md", GOOD), ("b/dup.md", GOOD + b"More.\n")], resources=resources_for(store)
    )
    assert report.added_sources == ["uploads/dup.md"]
    assert report.errors == [{"file": "dup.md", "message": "another file in this upload has the same name"}]
    assert (uploads_dir(store) / "dup.md").read_bytes() == GOOD


def test_non_ascii_name_is_citable_source(store: Settings) -> None:
    name = "Größe – 日本語.md"
    report = save_and_ingest(store, [(name, GOOD)], resources=resources_for(store))
    assert report.added_sources == [f"uploads/{name}"]
    assert (uploads_dir(store) / name).is_file()
