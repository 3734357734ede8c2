"""Uploaded files: sanitise the name, refuse bad files before writing, store atomically, ingest.

The UI's upload box calls `save_and_ingest`; it holds no streamlit code so it is tested directly.
Accepted files land in `<store>/uploads/<name>` and are indexed under the source `uploads/<name>`.
A file that cannot be loaded is taken out of the uploads folder again (the previous version, if
any, is put back), so the folder and the index always agree.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.config import Settings
from core.resources import Resources
from ingest.loaders import SUPPORTED
from ingest.sync import Progress, SourceFile, SyncReport

log = logging.getLogger(__name__)

UPLOADS = "uploads"
MAX_NAME_BYTES = 180  # well under the 255-byte limit of common file systems, leaving room for temp names
_RESERVED = re.compile(r'[<>:"|?*\\/]')
_SPACES = re.compile(r"\s+")
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def uploads_dir(settings: Settings) -> Path:
    """Where uploaded files are kept (inside the store, so they travel with it)."""
    return settings.store_path / UPLOADS


def sanitise_name(name: str) -> str:
    """A safe single-component file name: no directories, no control characters, bounded length;
    letters of any script are kept."""
    name = unicodedata.normalize("NFC", name or "")
    name = re.split(r"[\\/]", name)[-1]  # browsers may send a path; keep the last component only
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")  # Cc, Cf, Cs, Co, Cn
    name = _RESERVED.sub("_", name)
    name = _SPACES.sub(" ", name).strip().lstrip(".").strip()  # no hidden files, no "..", no ".md"
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    stem = stem.rstrip(" .")
    ext = ext.strip()
    if len(ext.encode("utf-8")) > 16:  # not a real extension: part of the name
        stem, ext = name, ""
    stem = stem or "upload"
    suffix = f".{ext}" if ext else ""
    budget = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
    if len(stem.encode("utf-8")) > budget:
        stem = stem.encode("utf-8")[:budget].decode("utf-8", errors="ignore").rstrip(" .") or "upload"
    return stem + suffix


def _refusal(name: str, data: bytes, settings: Settings) -> str | None:
    """Why a file is refused before anything is written (None when it may be written)."""
    ext = Path(name).suffix.lower()
    if ext not in SUPPORTED:
        return f"unsupported file type {ext or '(none)'}; supported: {', '.join(SUPPORTED)}"
    limit = int(settings.max_file_mb * 1024 * 1024)
    if len(data) > limit:
        return (
            f"the file is {len(data) / 1048576:.1f} MB, over the {settings.max_file_mb:g} MB limit "
            "(CONTEXTLENS_MAX_FILE_MB)"
        )
    if not data.strip():
        return "the file is empty"
    return None


def _write_atomic(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and rename, so readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".upload-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _lock_for(folder: Path) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(str(folder.resolve()), threading.Lock())


def save_and_ingest(
    settings: Settings,
    files: Sequence[tuple[str, bytes]],
    progress: Progress | None = None,
    resources: Resources | None = None,
) -> SyncReport:
    """Store the uploaded (name, bytes) files under the store's uploads folder and index exactly
    them; refused or unloadable files are reported in `errors` and leave folder and index as
    they were."""
    from ingest.sync import Ingestor

    folder = uploads_dir(settings)
    errors: list[dict[str, str]] = []
    accepted: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    for raw_name, data in files:
        name = sanitise_name(raw_name)
        why = _refusal(name, data, settings)
        if why is None and name.lower() in seen:
            why = "another file in this upload has the same name"
        if why is not None:
            errors.append({"file": name, "message": why})
            continue
        seen.add(name.lower())
        accepted.append((name, data))
    if not accepted:
        return SyncReport(files=len(files), errors=errors)

    folder.mkdir(parents=True, exist_ok=True)
    root = str(settings.store_path.resolve())  # as a folder ingest of the store would see it
    with _lock_for(folder):
        previous: dict[str, bytes | None] = {}
        targets: list[SourceFile] = []
        for name, data in accepted:
            path = folder / name
            source = f"{UPLOADS}/{name}"
            try:
                previous[source] = path.read_bytes() if path.is_file() else None
                _write_atomic(path, data)
            except OSError as e:
                errors.append({"file": name, "message": f"cannot store the file: {e.strerror or e}"})
                continue
            targets.append(SourceFile(path, source, root))
        if not targets:
            return SyncReport(files=len(files), errors=errors)
        ingestor = Ingestor(settings, resources or Resources.open(settings))
        try:
            report = ingestor.sync_files(targets, progress)
        except BaseException:
            for f in targets:
                _restore(f.path, previous.get(f.source))
            raise
        failed = {e["file"] for e in report.errors}
        for f in targets:
            if f.source in failed:
                _restore(f.path, previous.get(f.source))
    # name the files as the user knows them (without the folder prefix) in errors
    for e in report.errors:
        e["file"] = e["file"].removeprefix(f"{UPLOADS}/")
    report.errors[:0] = errors
    report.files = len(files)
    return report


def upload_outcomes(names: Sequence[str], report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(added | unchanged | failed, name as uploaded, reason) for each uploaded file, in upload
    order, from save_and_ingest's report (SyncReport.as_dict()); an error for a name not among
    names (e.g. the whole upload) is a failed line of its own."""
    failed = {e["file"]: e["message"] for e in report.get("errors") or []}
    added = set(report.get("added_sources") or [])
    out: list[tuple[str, str, str]] = []
    for raw in names:
        name = sanitise_name(raw)
        if name in failed:
            out.append(("failed", raw, failed.pop(name)))
        elif f"{UPLOADS}/{name}" in added:
            out.append(("added", raw, ""))
        else:
            out.append(("unchanged", raw, ""))
    return out + [("failed", f, why) for f, why in failed.items()]


def _restore(path: Path, old: bytes | None) -> None:
    """Put back the previous version of an uploaded file, or remove a new one."""
    try:
        if old is None:
            path.unlink(missing_ok=True)
        else:
            _write_atomic(path, old)
    except OSError as e:
        log.warning("could not restore %s: %s", path.name, e.strerror or e)
