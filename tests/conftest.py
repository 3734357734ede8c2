"""Shared fixtures: the real bundled embedder (loaded once), real tiktoken, real Chroma in tmp_path."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import Settings
from core.resources import Models
from tests.support.stores import SAMPLE, close_stores, make_settings, resources_for, shared_models


@pytest.fixture(scope="session")
def resources() -> Models:
    """The real embedder, tokenizer and sentence scorer, loaded once per test session."""
    return shared_models()


@pytest.fixture()
def settings(tmp_path: Path) -> Iterator[Settings]:
    yield make_settings(tmp_path)
    close_stores()


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory: pytest.TempPathFactory, resources: Models) -> Settings:
    """The sample corpus ingested once into a session store (read-only for tests)."""
    from ingest.sync import ingest_paths

    tmp = tmp_path_factory.mktemp("sample")
    s = make_settings(tmp)
    report = ingest_paths(s, [SAMPLE], resources=resources_for(s))
    assert report.embedded > 0 and not report.errors, report.errors
    return s


@pytest.fixture()
def sample_copy(tmp_path: Path, sample_store: Settings) -> Iterator[Settings]:
    """A private, writable copy of the ingested sample store."""
    close_stores()
    dst = tmp_path / "store"
    shutil.copytree(sample_store.store_path, dst)
    s = make_settings(tmp_path, store_path=dst)
    yield s
    close_stores()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Figures a test measured (its "measured" property), printed once the run ends: tests run in
    worker processes (pytest-xdist), whose own output never reaches the terminal."""
    for report in terminalreporter.stats.get("passed", []):
        for name, value in getattr(report, "user_properties", ()):
            if name == "measured":
                terminalreporter.write_line(str(value))
