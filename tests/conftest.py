"""Shared fixtures: the real bundled embedder (loaded once), real tiktoken, real Chroma in tmp_path."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import Settings
from core.resources import Resources, forget_indexes, get_index, get_resources

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "corpus"


def make_settings(tmp: Path, **overrides: object) -> Settings:
    """Settings isolated in tmp (store, traces), ignoring any .env/env of the developer."""
    base: dict[str, object] = {
        "store_path": tmp / "store",
        "trace_path": tmp / "traces.jsonl",
        "_env_file": None,
    }
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def resources(tmp_path_factory: pytest.TempPathFactory) -> Resources:
    """The real embedder and tokenizer, loaded once per test session."""
    return get_resources(make_settings(tmp_path_factory.mktemp("res")))


@pytest.fixture()
def settings(tmp_path: Path) -> Iterator[Settings]:
    yield make_settings(tmp_path)
    forget_indexes()


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory: pytest.TempPathFactory, resources: Resources) -> Settings:
    """The sample corpus ingested once into a session store (read-only for tests)."""
    from ingest.sync import ingest_paths

    tmp = tmp_path_factory.mktemp("sample")
    s = make_settings(tmp)
    report = ingest_paths(s, [SAMPLE])
    assert report.embedded > 0 and not report.errors, report.errors
    return s


@pytest.fixture()
def sample_copy(tmp_path: Path, sample_store: Settings) -> Iterator[Settings]:
    """A private, writable copy of the ingested sample store."""
    forget_indexes()
    dst = tmp_path / "store"
    shutil.copytree(sample_store.store_path, dst)
    s = make_settings(tmp_path, store_path=dst)
    yield s
    forget_indexes()


def index_of(s: Settings):  # noqa: ANN201 - tiny helper
    return get_index(s)


def chunks_by_source(s: Settings) -> dict[str, list[str]]:
    """The stored chunk texts of each source."""
    got = get_index(s).vectors.collection.get(include=["documents", "metadatas"])
    out: dict[str, list[str]] = {}
    for doc, meta in zip(got["documents"], got["metadatas"], strict=True):
        out.setdefault(str(meta["source"]), []).append(doc)
    return out


def docs_by_id(s: Settings) -> dict[str, str]:
    """The stored chunk texts by chunk id."""
    got = get_index(s).vectors.collection.get(include=["documents"])
    return dict(zip(got["ids"], got["documents"], strict=True))
