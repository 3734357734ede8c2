"""The query encoder: one question → its normalised embedding, on ONNX Runtime by default.

A question is one short text, so the batch machinery of `Embedder.embed` (encode_batch, sort by
length, pad, mask) is pure overhead there: `OnnxQueryEncoder` tokenises the one text, runs the
exported graph on its ids alone (no padding, so no mask arithmetic) and mean-pools. The graph is
the document embedder's own model exported once (`core.embed.onnx`), so query vectors stay
comparable with the stored torch document vectors (fp32: cosine ≥ 0.999 to torch, checked by a
test). When onnxruntime is missing or the export/load fails, the torch embedder answers instead and
the reason is logged in one line.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from core.embed.protocol import Embedder

log = logging.getLogger(__name__)

QueryEncoderKind = Literal["onnx", "onnx-int8", "torch"]


class QueryEncoder(Protocol):
    """Embeds one question."""

    name: str

    def encode(self, text: str) -> np.ndarray: ...


class TorchQueryEncoder:
    """The document embedder itself (torch, or whatever backend it runs on)."""

    def __init__(self, embedder: Embedder, reason: str = "") -> None:
        self.embedder = embedder
        self.name = f"{embedder.name} (documents' embedder)"
        self.fallback_reason = reason

    def encode(self, text: str) -> np.ndarray:
        return self.embedder.embed([text])[0]


class OnnxQueryEncoder:
    """One text per call on an ONNX Runtime session of the exported model."""

    fallback_reason = ""

    def __init__(self, model: str = "", cache_dir: str | Path | None = None, quantize: bool = False) -> None:
        from core.embed.onnx import OnnxEmbedder

        # two intra-op threads (workers that sleep rather than spin, core/embed/onnx.py): measured
        # in turn with one on the 100k bench store, 240 questions, p50 of the retriever's whole
        # search 8.9 vs 10.3 ms dense and 10.1 vs 11.4 ms hybrid, where the lexical search runs
        # beside the forward pass (the embedding alone 5.7 vs 7.2 ms)
        threads = min(2, os.cpu_count() or 1)
        inner = OnnxEmbedder(model, 1, cache_dir=cache_dir, quantize=quantize, threads=threads)
        self.name = inner.name
        self.dim = inner.dim
        self.onnx_file = inner.onnx_file
        self._tokenizer = inner._tokenizer
        self._session = inner._session
        self._with_types = "token_type_ids" in inner._inputs
        self._lock = threading.Lock()  # HF fast tokenizers are not safe across threads

    def encode(self, text: str) -> np.ndarray:
        with self._lock:
            ids = self._tokenizer.encode(text).ids
        row = np.asarray(ids, dtype=np.int64)[None, :]
        ones = np.ones_like(row)
        feed = {"input_ids": row, "attention_mask": ones}
        if self._with_types:
            feed["token_type_ids"] = np.zeros_like(row)
        hidden = self._session.run(None, feed)[0][0]  # (tokens, dim): every token is real
        v = hidden.mean(axis=0)
        n = float(np.linalg.norm(v))
        return (v / n if n > 0 else v).astype(np.float32)


def make_query_encoder(
    kind: QueryEncoderKind, model: str, cache_dir: str | Path, documents: Callable[[], Embedder]
) -> QueryEncoder:
    """The encoder kind asks for; the documents' embedder (loaded through `documents`) when it is
    "torch" or when ONNX Runtime cannot be used (the reason logged in one line)."""
    if kind != "torch":
        from core.errors import SettingsError

        try:
            return OnnxQueryEncoder(model, cache_dir, quantize=kind == "onnx-int8")
        except SettingsError as e:
            reason = str(e)
        except Exception as e:  # an export or session failure of onnxruntime/torch.onnx
            reason = f"{type(e).__name__}: {e}"
        reason = reason.splitlines()[0] if reason else "unknown error"
        log.warning("query encoder: ONNX Runtime not used (%s); queries are embedded with torch", reason)
        return TorchQueryEncoder(documents(), reason)
    return TorchQueryEncoder(documents())
