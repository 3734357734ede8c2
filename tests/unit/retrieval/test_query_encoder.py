"""The query encoder: ONNX Runtime by default, the same vectors as the torch document embedder."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from core.config import Settings
from core.embed.query import OnnxQueryEncoder, TorchQueryEncoder, make_query_encoder
from core.resources import Models

TEXTS = [
    "What restocking fee is deducted when a product is returned?",
    "Who ruled the duchy of Normandy?",
    "ArmX2 E-211",
    "a",
]


def test_onnx_fp32_queries_match_torch(resources: Models) -> None:
    settings = Settings()
    enc = make_query_encoder("onnx", "", settings.onnx_cache_path, lambda: resources.embedder)
    if not isinstance(enc, OnnxQueryEncoder):
        pytest.skip(f"ONNX Runtime unavailable here: {enc.fallback_reason}")
    torch_vecs = resources.embedder.embed(TEXTS)
    for text, ref in zip(TEXTS, torch_vecs, strict=True):
        v = enc.encode(text)
        assert v.dtype == np.float32 and v.shape == ref.shape
        assert float(np.linalg.norm(v)) == pytest.approx(1.0, abs=1e-5)
        assert float(v @ ref) >= 0.999, text


def test_the_fp32_graph_is_fused_and_an_unfusable_one_runs_as_exported(
    resources: Models, tmp_path: Path
) -> None:
    """One Attention node per layer (ONNX Runtime's BERT fusion of the eager-attention export); a
    graph whose layers the fusion does not all cover is used as torch.onnx wrote it."""
    import onnx

    from core.embed.onnx import _fuse

    enc = make_query_encoder("onnx", "", Settings().onnx_cache_path, lambda: resources.embedder)
    if not isinstance(enc, OnnxQueryEncoder):
        pytest.skip(f"ONNX Runtime unavailable here: {enc.fallback_reason}")
    ops = [n.op_type for n in onnx.load(str(enc.onnx_file), load_external_data=False).graph.node]
    assert ops.count("Attention") == 6 and len(ops) < 60, sorted(set(ops))
    plain = enc.onnx_file.with_name("model-export.onnx")
    _fuse(plain, tmp_path / "m.onnx", {"num_hidden_layers": 7, "num_attention_heads": 12, "hidden_size": 384})
    assert (tmp_path / "m.onnx").read_bytes() == plain.read_bytes()


def test_falls_back_to_torch_with_one_line_reason(
    resources: Models, tmp_path: object, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="core.embed.query"):
        enc = make_query_encoder("onnx", "/nonexistent/model", str(tmp_path), lambda: resources.embedder)
    assert isinstance(enc, TorchQueryEncoder)
    assert "not a local model folder" in enc.fallback_reason
    assert len([r for r in caplog.records if "queries are embedded with torch" in r.message]) == 1
    ref = resources.embedder.embed([TEXTS[0]])[0]
    assert float(enc.encode(TEXTS[0]) @ ref) == pytest.approx(1.0, abs=1e-5)


def test_the_retriever_uses_the_query_encoder(resources: Models) -> None:
    assert resources.query_encoder is resources.query_encoder  # built once per Models
