"""The heavy objects a process needs, built once at its entry point and passed in.

`Models` (the embedder, the token counter and the sentence scorer with its cache) do not depend
on the store and are shared by every store a process opens; `Resources` adds one store's Index
and Retriever. The CLI builds one in main(), the UI holds one in st.cache_resource, the eval one
per dataset store, the tests one per session. Nothing in core keeps them in module globals."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from core.config import Settings
from core.embed import Embedder, make_embedder
from core.embed.protocol import pieces_id
from core.embed.query import QueryEncoder, make_query_encoder
from core.embed.sbert import bundled_model_path
from core.index import Index
from core.prepared import Preparer
from core.retrieval import Retriever
from core.scoring import SentenceScorer
from core.tokens import TiktokenCounter


class Models:
    """The embedder (loaded on first use: a sync of an unchanged corpus never pays for it), the
    token counter and the sentence scorer."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        self.counter = TiktokenCounter(settings.encoding)
        self._spec = (
            settings.embedding_model,
            settings.embedding_batch_size,
            settings.embedding_backend,
            str(settings.onnx_cache_path) if settings.embedding_backend == "onnx" else "",
        )
        # an embedder handed in (a wrapper, another model) also embeds the questions: its vectors only
        kind = settings.query_encoder if embedder is None else "torch"
        self._query_spec = (kind, settings.embedding_model, settings.onnx_cache_path)
        self._embedder = embedder
        self._query: QueryEncoder | None = None
        self._scorer: SentenceScorer | None = None
        self._lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(*self._spec)
            return self._embedder

    @property
    def query_encoder(self) -> QueryEncoder:
        """Embeds questions (ONNX Runtime unless settings.query_encoder is torch or it fails)."""
        with self._lock:
            if self._query is not None:
                return self._query
        kind, model, cache = self._query_spec
        encoder = make_query_encoder(kind, model, cache, lambda: self.embedder)
        with self._lock:
            if self._query is None:
                self._query = encoder
            return self._query

    @property
    def preparer(self) -> Preparer:
        """Computes what the budget needs of a chunk (core/prepared.py); its key is known without
        loading the embedder, which it asks for only when it prepares a text."""
        if self._embedder is not None:
            return Preparer.of(self.counter, self._embedder)
        return Preparer(self.counter, pieces_id(self._spec[0] or bundled_model_path()), lambda: self.embedder)

    @property
    def scorer(self) -> SentenceScorer:
        embedder = self.embedder
        with self._lock:
            if self._scorer is None:
                self._scorer = SentenceScorer(embedder)
            return self._scorer


@dataclass
class Resources:
    """Models plus one store's index and retriever."""

    models: Models
    index: Index
    _retriever: Retriever | None = field(default=None, repr=False)

    @classmethod
    def open(cls, settings: Settings, models: Models | None = None) -> Resources:
        """The resources of the store these settings name (sharing models when given)."""
        return cls(models or Models(settings), Index(settings))

    @property
    def embedder(self) -> Embedder:
        return self.models.embedder

    @property
    def counter(self) -> TiktokenCounter:
        return self.models.counter

    @property
    def scorer(self) -> SentenceScorer:
        return self.models.scorer

    @property
    def query_encoder(self) -> QueryEncoder:
        return self.models.query_encoder

    @property
    def retriever(self) -> Retriever:
        if self._retriever is None:
            self._retriever = Retriever(self.index, self.embedder, self.models.query_encoder)
        return self._retriever
