"""Embedders: a Protocol, the bundled sentence-transformers model, and the ONNX Runtime backend."""

from core.embed.factory import make_embedder
from core.embed.protocol import Embedder

__all__ = ["Embedder", "make_embedder"]
