"""Embedders: a Protocol, the bundled sentence-transformers model, and the ONNX Runtime backend."""

import os

# the tokenizers library's thread pool costs more than it saves on the few short texts a question
# tokenizes (static vectors of a chunk's sentences), and competes with torch for the same cores:
# budgeting p50 6.3 ms without it vs 12.5 ms with it on 60 sample questions at load ≈ 2
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from core.embed.factory import make_embedder
from core.embed.protocol import Embedder

__all__ = ["Embedder", "make_embedder"]
