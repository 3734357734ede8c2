"""The embedder a settings object asks for (torch by default, ONNX Runtime on request)."""

from __future__ import annotations

from core.embed.protocol import Embedder


def make_embedder(
    model: str = "", batch_size: int = 64, backend: str = "torch", cache_dir: str = ""
) -> Embedder:
    """Load an embedder (seconds: build it once at the entry point and pass it on); cache_dir
    holds ONNX exports."""
    if backend == "onnx":
        from core.embed.onnx import OnnxEmbedder

        return OnnxEmbedder(model, batch_size, cache_dir=cache_dir or None)
    from core.embed.sbert import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(model, batch_size)
