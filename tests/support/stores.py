"""Test stores: settings isolated in a tmp folder, and one Resources per store for the session.

The app builds its Resources once at its entry point; the tests are one long-lived process that
opens many stores, so they keep theirs here (with one embedder shared by all of them)."""

from __future__ import annotations

from pathlib import Path

from core.config import Settings, settings_in
from core.index import Index
from core.pipeline import Pipeline
from core.resources import Models, Resources

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE = ROOT / "data" / "corpus"

_models: Models | None = None
_open: dict[tuple[object, ...], Resources] = {}


def make_settings(tmp: Path, **overrides: object) -> Settings:
    """Settings isolated in tmp (store, traces), ignoring any .env of the developer."""
    return settings_in(tmp, **overrides)


def shared_models() -> Models:
    """The real embedder and tokenizer, loaded once per test session."""
    global _models
    if _models is None:
        _models = Models(make_settings(Path("/nonexistent-test-store")))
    return _models


def resources_for(s: Settings) -> Resources:
    """The session's Resources for the store these settings name."""
    key = (str(s.store_path), s.chroma_host, s.chroma_port, s.collection)
    if key not in _open:
        _open[key] = Resources.open(s, shared_models())
    return _open[key]


def index_for(s: Settings) -> Index:
    return resources_for(s).index


def close_stores() -> None:
    """Forget the opened stores (after a store folder is deleted or replaced)."""
    _open.clear()


def chunks_by_source(s: Settings) -> dict[str, list[str]]:
    """The stored chunk texts of each source."""
    got = index_for(s).vectors.collection.get(include=["documents", "metadatas"])
    out: dict[str, list[str]] = {}
    for doc, meta in zip(got["documents"], got["metadatas"], strict=True):
        out.setdefault(str(meta["source"]), []).append(doc)
    return out


def docs_by_id(s: Settings) -> dict[str, str]:
    """The stored chunk texts by chunk id."""
    got = index_for(s).vectors.collection.get(include=["documents"])
    return dict(zip(got["ids"], got["documents"], strict=True))


def make_pipeline(s: Settings, backend: object = "auto") -> Pipeline:
    """A Pipeline over the session's Resources for this store."""
    return Pipeline(s, resources_for(s), backend)
