"""Hostile files (issue 17), generated at test time: each one finishes inside its limit with its own
one-line message, the good file beside them is indexed, and nothing else enters the index.

Every file goes through the real ingest (`ingest_paths`: discovery, the parse workers with their
time and memory caps, the chunker, the real embedder, Chroma and FTS5). Each case's time and
message are printed (run with -s to see them), for the issue's closing note."""

from __future__ import annotations

import io
import os
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from core.config import Settings
from ingest.sync import SyncReport, ingest_paths
from tests.support.stores import chunks_by_source, make_settings, resources_for

GOOD = "The Orbiter drill press spins at 1450 rpm on its high gear and holds bits up to 16 mm."


def nested_html(levels: int) -> bytes:
    return ("<html><body>" + "<div>" * levels + "deep" + "</div>" * levels + "</body></html>").encode()


def flate_bomb_pdf(inflated_mb: int) -> bytes:
    """A one-page PDF whose content stream is Flate-compressed spaces inflating to inflated_mb MB."""
    stream = zlib.compress(b" " * (inflated_mb * 1024 * 1024), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>",
        b"<< /Length "
        + str(len(stream)).encode()
        + b" /Filter /FlateDecode >>\nstream\n"
        + stream
        + b"\nendstream",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{n} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def zip_as_pdf() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("report.txt", "not a PDF at all " * 100)
    return buf.getvalue()


def big_table(rows: int) -> bytes:
    lines = [
        "| Part | Stock |",
        "| --- | --- |",
        *(f"| part {i:06d} | {i % 97} units |" for i in range(rows)),
    ]
    return "\n".join(lines).encode()


HOSTILE: dict[str, Callable[[], bytes]] = {
    "nested-100k.html": lambda: nested_html(100_000),
    "bomb-200mb.pdf": lambda: flate_bomb_pdf(200),
    "one-token-8mb.txt": lambda: b"x" * (8 * 1024 * 1024),
    "table-200k-rows.md": lambda: big_table(200_000),
    "archive.pdf": zip_as_pdf,
}


def _ingest(s: Settings, folder: Path, **kw: object) -> tuple[SyncReport, float]:
    t0 = time.perf_counter()
    report = ingest_paths(s, [folder], resources=resources_for(s), **kw)  # type: ignore[arg-type]
    return report, time.perf_counter() - t0


def _messages(report: SyncReport) -> dict[str, str]:
    return {Path(e["file"]).name: e["message"] for e in report.errors}


@pytest.mark.slow
def test_a_folder_of_hostile_files_ingests_the_good_one_inside_two_minutes(tmp_path: Path) -> None:
    s = make_settings(tmp_path / "store")
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "drill.txt").write_text(GOOD, encoding="utf-8")
    for name, make in HOSTILE.items():
        (folder / name).write_bytes(make())
    report, seconds = _ingest(s, folder)
    messages = _messages(report)
    for name, message in sorted(messages.items()):
        print(f"{name}: {message}")
    print(f"whole folder: {seconds:.1f} s")
    assert set(messages) == set(HOSTILE), report.errors
    for message in messages.values():
        assert message and "\n" not in message and "Traceback" not in message and len(message) < 300
    assert "nests 100,002 elements deep" in messages["nested-100k.html"]
    assert "decompression bomb" in messages["bomb-200mb.pdf"]
    assert "M characters" in messages["one-token-8mb.txt"]
    assert "M characters" in messages["table-200k-rows.md"]
    assert "damaged or unreadable" in messages["archive.pdf"]
    assert set(chunks_by_source(s)) == {"drill.txt"}
    assert seconds <= 120


def test_a_parser_that_overruns_is_killed_with_a_message(tmp_path: Path) -> None:
    """The wall-time limit, whatever the parser is stuck on: a large page under the depth check with
    a 0.05 s budget stands for a parser that never returns."""
    s = make_settings(tmp_path / "store", parse_timeout_s=0.05)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "slow.html").write_bytes(nested_html(500) * 400)
    report, seconds = _ingest(s, folder)
    assert _messages(report) == {
        "slow.html": "could not be parsed within 0.05 s (CONTEXTLENS_PARSE_TIMEOUT_S)"
    }
    assert seconds < 30


def test_a_parser_over_its_memory_cap_fails_alone(tmp_path: Path) -> None:
    """A worker capped below what parsing needs gives that file one message; the next file of the
    run is parsed by a fresh worker and indexed. The parse reaches the cap after ~11 s on an idle
    machine; the time limit is set far above it. In one of three CI runs with two test workers
    (2026-11-26) the capped worker did not fail but hung until the time limit (600 s then; the cause
    is not found, README Open work): the limit still bounds it, with its own message, and the other
    file is indexed, which is what this test holds to."""
    s = make_settings(
        tmp_path / "store",
        parse_memory_mb=350,
        parse_workers=1,
        max_text_chars=20_000_000,
        parse_timeout_s=150,
    )
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a-large.md").write_bytes(("- item with some words in it\n" * 200_000).encode())
    (folder / "b-drill.txt").write_text(GOOD, encoding="utf-8")
    report, _ = _ingest(s, folder)
    messages = _messages(report)
    assert set(messages) == {"a-large.md"}, report.errors
    capped = "350 MB" in messages["a-large.md"] and "CONTEXTLENS_PARSE_MEMORY_MB" in messages["a-large.md"]
    assert (
        capped or messages["a-large.md"] == "could not be parsed within 150 s (CONTEXTLENS_PARSE_TIMEOUT_S)"
    )
    assert set(chunks_by_source(s)) == {"b-drill.txt"}


def test_a_file_that_disappears_mid_ingest_and_an_unreadable_one(tmp_path: Path) -> None:
    s = make_settings(tmp_path / "store")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "drill.txt").write_text(GOOD, encoding="utf-8")
    gone = folder / "gone.txt"
    gone.write_text("This file is deleted after discovery.", encoding="utf-8")
    locked = folder / "locked.txt"
    locked.write_text("Nobody may read this file.", encoding="utf-8")
    locked.chmod(0)
    readable_anyway = os.access(locked, os.R_OK)  # root reads any file

    def progress(done: int, total: int, name: str) -> None:
        if done == 0:
            gone.unlink(missing_ok=True)

    t0 = time.perf_counter()
    report = ingest_paths(s, [folder], progress=progress, resources=resources_for(s))
    messages = _messages(report)
    assert messages["gone.txt"].startswith("cannot read the file: No such file")
    if readable_anyway:
        assert "locked.txt" not in messages
    else:
        assert messages["locked.txt"].startswith("cannot read the file: Permission denied")
    assert "drill.txt" in chunks_by_source(s)
    assert time.perf_counter() - t0 < 60
