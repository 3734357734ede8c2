"""Process-wide heavy resources (embedder, tokenizer, index), created once per settings key."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from core.config import Settings
from core.embed import Embedder, get_embedder
from core.index import Index
from core.tokens import TiktokenCounter, get_counter


@dataclass(frozen=True)
class Resources:
    embedder: Embedder
    counter: TiktokenCounter


def get_resources(settings: Settings) -> Resources:
    """The embedder and token counter for these settings (loaded once per process)."""
    embedder = get_embedder(
        settings.embedding_model,
        settings.embedding_batch_size,
        settings.embedding_backend,
        str(settings.store_path / "onnx") if settings.embedding_backend == "onnx" else "",
    )
    return Resources(embedder=embedder, counter=get_counter(settings.encoding))


_index_lock = threading.Lock()
_indexes: dict[tuple[object, ...], Index] = {}


def get_index(settings: Settings) -> Index:
    """One Index object per store location and collection, shared by every caller."""
    key = (str(settings.store_path), settings.chroma_host, settings.chroma_port, settings.collection)
    with _index_lock:
        if key not in _indexes:
            _indexes[key] = Index(settings)
        return _indexes[key]


def forget_indexes() -> None:
    """Drop cached Index objects (tests, and after a store is deleted)."""
    with _index_lock:
        _indexes.clear()
