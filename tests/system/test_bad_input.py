"""Bad input through the real ingest (issue 7): every broken or odd file gives one clear message,
leaves the index exactly as it was, and never a traceback; decodable text is decoded correctly.

Each case writes a real file in tmp_path and runs `ingest.sync.ingest_paths` (a few also run the
real CLI `python -m ingest --json`). The index is compared before/after by Chroma ids + documents,
lexical ids and manifest rows. The tally (tried / passed) is printed by the last test.
"""

from __future__ import annotations

import io
import json
import logging
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings, load_settings
from core.errors import ContextLensError
from core.resources import Models as Resources
from ingest.loaders import SUPPORTED
from ingest.sync import SyncReport, ingest_paths
from ingest.uploads import sanitise_name, save_and_ingest, uploads_dir
from tests.support.pdfs import make_pdf
from tests.support.stores import ROOT, chunks_by_source, make_settings, resources_for
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import index_for as get_index

GOOD = (
    "The Orbiter drill press spins at 1450 rpm on its high gear. "
    "Its chuck holds bits up to 16 mm and the column is 900 mm tall."
)
FRENCH = (
    "Le café de la gare est très agréable. Nous y mangeons une crème brûlée après le déjeuner. "
    "L'été, la façade est décorée de fleurs."
)
GERMAN_JP = "Grüße aus Brno: der Kühlschrank läuft leise. 東京の倉庫は月曜日に開きます。"

RESULTS: dict[str, bool] = {}  # case → passed (the tally printed by test_tally)


# -- the index, before and after ------------------------------------------------------------------


def snapshot(s: Settings) -> dict[str, Any]:
    """Everything a bad file could disturb: Chroma ids/documents/sources, lexical ids, manifest."""
    index = get_index(s)
    got = index.vectors.collection.get(include=["documents", "metadatas"])
    chroma = {
        cid: (doc, meta.get("source"))
        for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True)
    }
    files = {(r.root, r.source): (r.file_hash, r.chunk_ids) for r in index.manifest.all_files()}
    return {"chroma": chroma, "lexical": index.lexical.ids(), "files": files, "count": index.count()}


def assert_clear(message: str) -> None:
    """One short line for a person: no traceback, no repr of an exception object."""
    assert message and message.strip() == message, repr(message)
    assert "\n" not in message and len(message) < 300, repr(message)
    for smell in ("Traceback", 'File "', "Error(", "<class", "0x7f"):
        assert smell not in message, f"{smell!r} in {message!r}"


def assert_no_traceback(caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


# -- files ----------------------------------------------------------------------------------------


def _pdf(lines: list[str], drawing_only: bool = False) -> bytes:
    return make_pdf([lines], drawing_only=drawing_only)


def _encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    w = PdfWriter(clone_from=PdfReader(io.BytesIO(_pdf(["Secret plans for the rover."]))))
    w.encrypt("hunter2")
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue()


def _garbage(nul: bool) -> bytes:
    rng = random.Random(11)
    alphabet = range(256) if nul else range(1, 256)
    return bytes(rng.choice(alphabet) for _ in range(8000)) + (b"\x00\x01" if nul else b"")


@dataclass(frozen=True)
class Bad:
    """A file that must be refused with a message matching `expect`."""

    name: str
    make: Callable[[], bytes]
    expect: str


BAD = [
    Bad("empty.txt", lambda: b"", "empty"),
    Bad("blank.md", lambda: b"  \n\n\t  \r\n", "empty"),
    Bad("garbage.txt", lambda: _garbage(nul=True), "binary"),
    Bad("garbage-no-nul.txt", lambda: _garbage(nul=False), "binary|not readable|encoding"),
    Bad(
        "truncated.pdf", lambda: _pdf(["Some real text on a page.", "And more."])[:700], "damaged|unreadable"
    ),
    Bad("not-a-pdf.pdf", lambda: b"plain text pretending to be a PDF document", "damaged|unreadable"),
    Bad("scan.pdf", lambda: _pdf([], drawing_only=True), "no text layer"),
    Bad("encrypted.pdf", _encrypted_pdf, "encrypted"),
    Bad(
        "scripts.html",
        lambda: (
            b"<html><head><style>p{color:red}</style><script>var a = 'hidden';</script></head>"
            b"<body><script>document.write('x')</script><style>.x{}</style></body></html>"
        ),
        "no text",
    ),
    Bad("front-matter-only.md", lambda: b"---\ntitle: Nothing here\ncategory: x\n---\n", "no text"),
    Bad("report.docx", lambda: b"PK\x03\x04 word document", "unsupported file type"),
    Bad("archive.tar.gz", lambda: b"\x1f\x8b\x08 gzip", "unsupported file type"),
    Bad("no-extension", lambda: b"just some text without an extension", "unsupported file type"),
    Bad("utf16-broken.txt", lambda: b"\xff\xfe" + "valid start".encode("utf-16-le") + b"\x00\xd8", "utf-16"),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, resources: Resources) -> Iterator[Settings]:
    """A store holding one good document; each case checks it is left exactly as it was."""
    forget_indexes()
    tmp = tmp_path_factory.mktemp("bad-input")
    s = make_settings(tmp)
    good = tmp / "good" / "drill.txt"
    good.parent.mkdir()
    good.write_text(GOOD, encoding="utf-8")
    report = ingest_paths(s, [good], resources=resources_for(s))
    assert report.errors == [] and report.embedded == 1
    yield s
    forget_indexes()


def _single_error(report: SyncReport, name: str) -> str:
    assert len(report.errors) == 1, report.errors
    err = report.errors[0]
    assert set(err) == {"file", "message"}
    assert name in err["file"]
    assert_clear(err["message"])
    return err["message"]


def _record(case: str, fn: Callable[[], None]) -> None:
    """Run one case and remember whether it passed (skips are not counted)."""
    RESULTS[case] = False
    try:
        fn()
    except pytest.skip.Exception:
        del RESULTS[case]
        raise
    RESULTS[case] = True


# -- refused files --------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD, ids=[b.name for b in BAD])
def test_bad_file_is_refused_and_index_unchanged(
    bad: Bad,
    store: Settings,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    def run() -> None:
        f = tmp_path / bad.name
        f.write_bytes(bad.make())
        before = snapshot(store)
        report = ingest_paths(store, [f], resources=resources_for(store))
        message = _single_error(report, bad.name)
        assert re.search(bad.expect, message, re.IGNORECASE), message
        assert report.embedded == 0 and report.files_changed == 0 and report.added_sources == []
        assert snapshot(store) == before
        assert_no_traceback(caplog, capfd)

    _record(f"refused: {bad.name}", run)


def test_bad_files_in_a_folder_are_each_reported_once(
    store: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """All the bad files side by side in one folder: one error each, nothing indexed, no traceback."""

    def run() -> None:
        folder = tmp_path / "mixed"
        folder.mkdir()
        for bad in BAD:
            (folder / bad.name).write_bytes(bad.make())
        before = snapshot(store)
        report = ingest_paths(store, [folder], resources=resources_for(store))
        # a folder skips files of unsupported types silently (they are not documents we index)
        listed = [b.name for b in BAD if Path(b.name).suffix.lower() in SUPPORTED]
        assert sorted(e["file"] for e in report.errors) == sorted(listed)
        for e in report.errors:
            assert_clear(e["message"])
        assert snapshot(store) == before
        assert_no_traceback(caplog, capfd)

    _record("refused: all bad files in one folder", run)


# -- size limit -----------------------------------------------------------------------------------


def test_50_mb_text_file_is_refused_by_default(
    store: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    def run() -> None:
        assert Settings(_env_file=None).max_file_mb < 50  # type: ignore[call-arg]
        f = tmp_path / "huge.txt"
        line = b"The quick brown fox jumps over the lazy dog near the river bank.\n"
        with f.open("wb") as out:
            block = line * 16384
            while out.tell() < 50 * 1024 * 1024:
                out.write(block)
        before = snapshot(store)
        report = ingest_paths(store, [f], resources=resources_for(store))
        message = _single_error(report, "huge.txt")
        assert "MB" in message and "limit" in message and "MAX_FILE_MB" in message, message
        assert report.embedded == 0
        assert snapshot(store) == before
        assert_no_traceback(caplog, capfd)
        f.unlink()

    _record("refused: 50 MB text file", run)


def test_size_limit_is_a_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, resources: Resources
) -> None:
    def run() -> None:
        f = tmp_path / "small.txt"
        f.write_text(GOOD * 20, encoding="utf-8")  # ~2.6 KB
        tight = make_settings(tmp_path / "tight", max_file_mb=0.001)
        report = ingest_paths(tight, [f], resources=resources_for(tight))
        assert "limit" in _single_error(report, "small.txt")
        assert get_index(tight).count() == 0
        roomy = make_settings(tmp_path / "roomy", max_file_mb=1)
        assert ingest_paths(roomy, [f], resources=resources_for(roomy)).errors == []
        # and it is read from the environment like every setting
        monkeypatch.setenv("CONTEXTLENS_MAX_FILE_MB", "3.5")
        assert load_settings(_env_file=None).max_file_mb == 3.5
        monkeypatch.setenv("CONTEXTLENS_MAX_FILE_MB", "-1")
        with pytest.raises(ContextLensError, match="max_file_mb"):
            load_settings(_env_file=None)

    _record("setting: max_file_mb", run)


# -- decodable encodings --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "text", "query"),
    [
        ("latin1.txt", FRENCH.encode("latin-1"), FRENCH, "crème brûlée déjeuner"),
        ("cp1252.md", FRENCH.encode("cp1252"), FRENCH, "façade décorée fleurs"),
        ("utf16-bom.txt", GERMAN_JP.encode("utf-16"), GERMAN_JP, "Kühlschrank Grüße"),
        ("utf16be-bom.txt", b"\xfe\xff" + GERMAN_JP.encode("utf-16-be"), GERMAN_JP, "Kühlschrank"),
        ("utf8-bom.txt", GERMAN_JP.encode("utf-8-sig"), GERMAN_JP, "Brno Kühlschrank"),
        (
            "utf16.html",
            f"<html><body><p>{GERMAN_JP}</p></body></html>".encode("utf-16"),
            GERMAN_JP,
            "Kühlschrank",
        ),
    ],
)
def test_other_encodings_are_decoded_and_retrievable(
    name: str, data: bytes, text: str, query: str, tmp_path: Path, resources: Resources
) -> None:
    def run() -> None:
        s = make_settings(tmp_path)
        f = tmp_path / name
        f.write_bytes(data)
        report = ingest_paths(s, [f], resources=resources_for(s))
        assert report.errors == [] and report.files_changed == 1
        stored = chunks_by_source(s)[name]
        assert " ".join(stored) == text  # decoded exactly: the accented/CJK words as written
        hits = get_index(s).lexical.search(query, 5)
        assert hits, f"lexical search for {query!r} found nothing"
        from core.retrieval.retriever import Retriever

        found = Retriever(get_index(s), resources.embedder).search(query, 3, s.retrieval_mode)
        assert found and found[0].chunk.source == name
        forget_indexes()

    _record(f"decoded: {name}", run)


# -- the same file twice --------------------------------------------------------------------------


def test_same_file_ingested_twice_costs_nothing_the_second_time(
    store: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    def run() -> None:
        f = tmp_path / "twice.txt"
        f.write_text("The Weaver loom weaves 40 picks per minute on wool.", encoding="utf-8")
        first = ingest_paths(store, [f], resources=resources_for(store))
        assert first.errors == [] and first.embedded == 1
        after_first = snapshot(store)
        second = ingest_paths(store, [f], resources=resources_for(store))
        assert second.errors == [] and second.embedded == 0
        assert second.files_unchanged == 1 and second.chunks_added == 0
        assert snapshot(store) == after_first
        assert_no_traceback(caplog, capfd)

    _record("twice: same file in two runs", run)


def test_same_file_twice_in_one_run(
    store: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """`python -m ingest a.txt a.txt` (or the same upload picked twice) indexes it once."""

    def run() -> None:
        f = tmp_path / "double.txt"
        f.write_text("The Heron kiln fires stoneware at 1280 degrees.", encoding="utf-8")
        before = snapshot(store)
        report = ingest_paths(store, [f, f, tmp_path / "." / "double.txt"], resources=resources_for(store))
        assert report.errors == []
        after = snapshot(store)
        added = set(after["chroma"]) - set(before["chroma"])
        assert len(added) == 1 and after["count"] == before["count"] + 1
        assert after["lexical"] == set(after["chroma"])
        assert_no_traceback(caplog, capfd)

    _record("twice: same file twice in one run", run)


def test_same_content_under_two_names(store: Settings, tmp_path: Path) -> None:
    """A copy under another name is another document (its own ids); re-running adds nothing."""

    def run() -> None:
        text = "The Osprey winch lifts 300 kg with its two-speed gearbox."
        (tmp_path / "copy-a.txt").write_text(text, encoding="utf-8")
        (tmp_path / "copy-b.txt").write_text(text, encoding="utf-8")
        paths = [tmp_path / "copy-a.txt", tmp_path / "copy-b.txt"]
        report = ingest_paths(store, paths, resources=resources_for(store))
        assert report.errors == [] and report.embedded == 2
        once = snapshot(store)
        assert ingest_paths(store, paths, resources=resources_for(store)).embedded == 0
        assert snapshot(store) == once

    _record("twice: same content under two names", run)


# -- file names -----------------------------------------------------------------------------------


def test_dotdot_in_the_path_is_resolved(store: Settings, tmp_path: Path) -> None:
    """A `../` in a given path names the real file; stored sources never contain `..`."""

    def run() -> None:
        (tmp_path / "sub").mkdir()
        f = tmp_path / "dotdot.txt"
        f.write_text("The Kestrel pump moves 12 litres per minute.", encoding="utf-8")
        report = ingest_paths(store, [tmp_path / "sub" / ".." / "dotdot.txt"], resources=resources_for(store))
        assert report.errors == [] and report.added_sources == ["dotdot.txt"]
        folder = tmp_path / "tree"
        (folder / "a").mkdir(parents=True)
        (folder / "a" / "inner.md").write_text("The Plover valve opens at 3 bar.", encoding="utf-8")
        report = ingest_paths(store, [folder / "a" / ".." / ".." / "tree"], resources=resources_for(store))
        assert report.errors == [] and report.added_sources == ["a/inner.md"]
        assert not [src for src in chunks_by_source(store) if ".." in src.split("/")]

    _record("name: ../ in path", run)


def test_nul_in_a_path_is_a_clear_error(
    store: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    def run() -> None:
        before = snapshot(store)
        report = ingest_paths(store, [tmp_path / "bad\x00name.txt"], resources=resources_for(store))
        _single_error(report, "bad")
        assert snapshot(store) == before
        assert_no_traceback(caplog, capfd)

    _record("name: NUL", run)


def test_very_long_names(
    store: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """A 250-character name is a fine name; a name too long for the file system is a clear error."""

    def run() -> None:
        long_name = "l" * 246 + ".txt"  # 250 bytes: just under the usual 255-byte limit
        f = tmp_path / long_name
        f.write_text("The Albatross glider has a 21 metre wingspan.", encoding="utf-8")
        report = ingest_paths(store, [f], resources=resources_for(store))
        assert report.errors == [] and report.added_sources == [long_name]
        assert chunks_by_source(store)[long_name] == ["The Albatross glider has a 21 metre wingspan."]
        before = snapshot(store)
        too_long = tmp_path / ("x" * 300 + ".txt")
        report = ingest_paths(
            store, [too_long, tmp_path / ("d" * 300) / "a.txt"], resources=resources_for(store)
        )
        assert len(report.errors) == 2
        for e in report.errors:
            assert_clear(e["message"])
        assert snapshot(store) == before
        assert_no_traceback(caplog, capfd)

    _record("name: very long", run)


def test_non_ascii_names(store: Settings, tmp_path: Path, resources: Resources) -> None:
    def run() -> None:
        folder = tmp_path / "Ünïcode 目录"
        folder.mkdir()
        names = ["Grüße aus Köln.md", "東京-倉庫.txt", "naïve café – notes.html", "emoji 🚀 plan.txt"]
        texts = [
            "The Köln depot stores spare grippers for the Ruhr region.",
            "The Tokyo warehouse opens on Mondays at nine.",
            "<p>The café espresso machine needs descaling every month.</p>",
            "The launch plan ships the rover on a Tuesday.",
        ]
        for name, text in zip(names, texts, strict=True):
            (folder / name).write_text(text, encoding="utf-8")
        report = ingest_paths(store, [folder], resources=resources_for(store))
        assert report.errors == []
        assert sorted(report.added_sources) == sorted(names)
        stored = chunks_by_source(store)
        for name in names:
            assert stored[name], name
        assert "descaling" in stored["naïve café – notes.html"][0]

    _record("name: non-ASCII", run)


def test_missing_path_is_one_clear_error(store: Settings, tmp_path: Path) -> None:
    def run() -> None:
        before = snapshot(store)
        report = ingest_paths(store, [tmp_path / "does-not-exist.txt"], resources=resources_for(store))
        assert "no such file" in _single_error(report, "does-not-exist.txt")
        assert snapshot(store) == before

    _record("name: missing path", run)


# -- upload names (ingest/uploads.py, when the UI's upload helper exists) -------------------------

UPLOAD_NAMES = [
    "../../etc/passwd.txt",
    "..\\..\\windows\\system32\\evil.md",
    "/abs/path/notes.txt",
    "bad\x00name.txt",
    "n" * 400 + ".md",
    "Grüße 東京 🚀.txt",
    "..",
    ".hidden.txt",
    "con.txt",
    "  spaced  .txt",
]


@pytest.mark.parametrize("raw", UPLOAD_NAMES, ids=[repr(n[:20]) for n in UPLOAD_NAMES])
def test_upload_names_are_sanitised(raw: str) -> None:
    def run() -> None:
        try:
            name = sanitise_name(raw)
        except ContextLensError as e:  # refusing a name outright is fine, with a clear message
            assert_clear(str(e))
            return
        assert name and "/" not in name and "\\" not in name and "\x00" not in name
        assert name not in {".", ".."} and not name.startswith(".")
        assert len(name.encode("utf-8")) <= 255
        assert name == name.strip()

    _record(f"upload name: {raw[:20]!r}", run)


def test_upload_of_bad_files_reports_and_keeps_index(store: Settings) -> None:
    """The UI path: save_and_ingest(settings, [(name, bytes)], resources=resources_for(settings)) → one message per bad upload."""

    def run() -> None:
        s = store
        before = snapshot(s)
        files = [(b.name, b.make()) for b in BAD] + [("../../escape.txt", b""), ("nul\x00.txt", b"")]
        errors = save_and_ingest(s, files, resources=resources_for(s)).errors
        assert len(errors) == len(files), errors
        for e in errors:
            assert_clear(e["message"])
        assert snapshot(s) == before
        folder = uploads_dir(s)
        assert (
            not (folder.parent / "escape.txt").exists() and not (folder.parent.parent / "escape.txt").exists()
        )
        if folder.exists():  # refused files leave nothing behind
            assert [p.name for p in folder.iterdir()] == []

    _record("upload: bad files through save_and_ingest", run)


def test_50_mb_upload_is_refused_before_it_is_written(store: Settings) -> None:
    def run() -> None:
        before = snapshot(store)
        data = b"The quick brown fox jumps over the lazy dog near the river bank.\n" * 820_000  # ~52 MB
        report = save_and_ingest(store, [("huge.txt", data)], resources=resources_for(store))
        message = _single_error(report, "huge.txt")
        assert "MB" in message and "limit" in message, message
        assert snapshot(store) == before
        assert not (uploads_dir(store) / "huge.txt").exists()

    _record("upload: 50 MB file", run)


# -- the CLI --------------------------------------------------------------------------------------


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONTEXTLENS_")}
    env["HF_HUB_OFFLINE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "ingest", *args, "--json"],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_cli_reports_bad_files_in_json(tmp_path: Path) -> None:
    def run() -> None:
        folder = tmp_path / "docs"
        folder.mkdir()
        (folder / "good.txt").write_text(GOOD, encoding="utf-8")
        (folder / "latin1.txt").write_bytes(FRENCH.encode("latin-1"))
        bad_names = ["empty.txt", "garbage.txt", "truncated.pdf", "scan.pdf", "scripts.html"]
        for bad in BAD:
            if bad.name in bad_names:
                (folder / bad.name).write_bytes(bad.make())
        store = tmp_path / "store"
        too_long = str(tmp_path / ("y" * 300 + ".txt"))
        proc = _cli(str(folder), too_long, "--store", str(store), cwd=tmp_path)
        assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        errors = {e["file"]: e["message"] for e in result["errors"]}
        assert set(bad_names) <= set(errors)
        assert len(errors) == len(bad_names) + 1  # + the over-long path
        for message in errors.values():
            assert_clear(message)
        assert sorted(result["added_sources"]) == ["good.txt", "latin1.txt"]
        for name in bad_names:
            assert f"skipped {name}:" in proc.stderr

        # only bad input: exit 1, still a JSON summary with the errors, and the store untouched
        settings = make_settings(tmp_path, store_path=store)
        before = snapshot(settings)
        forget_indexes()
        proc = _cli(
            str(folder / "empty.txt"), str(folder / "report.docx"), "--store", str(store), cwd=tmp_path
        )
        assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
        assert proc.returncode == 1, (proc.returncode, proc.stderr)
        forget_indexes()
        assert snapshot(settings) == before

    _record("cli: bad files → errors in --json", run)


@pytest.mark.slow
def test_cli_bad_paths_do_not_crash(tmp_path: Path) -> None:
    def run() -> None:
        proc = _cli(str(tmp_path / ("z" * 300)), "--store", str(tmp_path / "store"), cwd=tmp_path)
        assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
        assert proc.returncode == 2 and proc.stderr.startswith("error:"), proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1

    _record("cli: over-long path argument", run)


def test_tally(request: pytest.FixtureRequest) -> None:
    """Print bad inputs tried / passed (meaningful when the whole module ran)."""
    tried, passed = len(RESULTS), sum(RESULTS.values())
    failed = sorted(k for k, ok in RESULTS.items() if not ok)
    logging.getLogger(__name__).info("bad inputs: %d tried, %d passed", tried, passed)
    print(f"\nBAD INPUT TALLY: {passed}/{tried} passed" + (f"; failed: {failed}" if failed else ""))
    assert not failed
