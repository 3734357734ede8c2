"""Optional ONNX Runtime embedder (settings.embedding_backend = "onnx").

The sentence-transformers model (the bundled all-MiniLM-L6-v2 by default) is exported once with
torch.onnx into a cache directory and, by default, quantised to int8 (dynamic, per-channel, u8
weights: plain per-tensor int8 saturates on AVX2 and moved embeddings to cosine ~0.90 of fp32;
per-channel keeps ~0.99). The fp32 graph is then fused by ONNX Runtime's transformer optimizer (one
Attention node per layer, embedding and skip layer norms, bias-GELU: ~45 nodes instead of ~350),
which is why the export uses the eager attention its fusion recognises; a model it cannot fuse
runs unfused. Later runs load the cached file: only onnxruntime, tokenizers and numpy are used to
embed. The export needs torch, transformers and the `onnx` package; onnxruntime and
onnx are optional dependencies of ContextLens (the default backend is torch).

Embeddings are computed as sentence-transformers does for this model: word-piece tokens (at most
max_seq_length with [CLS]/[SEP]), the transformer's last hidden state mean-pooled over the
attention mask, L2-normalised.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.config import PROJECT_ROOT
from core.embed.protocol import mean_rows, pieces_id
from core.errors import SettingsError

log = logging.getLogger(__name__)

# where exports go when no cache dir is given (Settings.onnx_cache_path's default; git-ignored)
DEFAULT_CACHE = PROJECT_ROOT / "data" / "cache" / "onnx"
_EXPORT_VERSION = 2  # bump when the exported graph or the quantisation recipe changes


class OnnxEmbedder:
    """Embedder protocol (name, dim, max_tokens, embed, count_tokens, static_embed) on ONNX Runtime."""

    def __init__(
        self,
        model: str = "",
        batch_size: int = 64,
        cache_dir: str | Path | None = None,
        quantize: bool = True,
        threads: int = 0,
    ) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise SettingsError(
                "The onnx embedding backend needs the packages onnxruntime and tokenizers "
                f"({e.name} is missing); or set CONTEXTLENS_EMBEDDING_BACKEND=torch"
            ) from e
        from core.embed.sbert import bundled_model_path

        path = Path(model or bundled_model_path())
        if not (path / "config.json").exists():
            raise SettingsError(f"Cannot load embedding model {str(path)!r}: not a local model folder")
        self.name = f"{path} (onnx{' int8' if quantize else ''})"
        self.batch_size = batch_size
        self.quantize = quantize
        self._path = path
        st_config = _read_json(path / "sentence_bert_config.json")
        max_seq = int(st_config.get("max_seq_length") or 256)
        self.max_tokens = max_seq - 2
        self.dim = int(_read_json(path / "config.json").get("hidden_size") or 0)
        if (path / "1_Pooling" / "config.json").exists():
            pooling = _read_json(path / "1_Pooling" / "config.json")
            if not pooling.get("pooling_mode_mean_tokens", False):
                raise SettingsError(
                    "The onnx backend supports mean-pooling sentence-transformers models only"
                )

        self._load_tokenizers(Tokenizer, path / "tokenizer.json", max_seq)
        # what word_pieces depends on (core/prepared.py keys stored pieces by it)
        self.pieces_id = pieces_id(path)
        self.onnx_file = self._ensure_export(Path(cache_dir) if cache_dir else DEFAULT_CACHE)
        self._session = _session(ort, self.onnx_file, threads or os.cpu_count() or 1)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._table: np.ndarray | None = None
        self._lock = threading.Lock()

    def _load_tokenizers(self, tokenizer_cls: Any, tok_file: Path, max_seq: int) -> None:
        if not tok_file.exists():
            raise SettingsError(f"The onnx backend needs {tok_file} (a fast tokenizer)")
        self._tokenizer = tokenizer_cls.from_file(str(tok_file))  # for the model: truncated, padded
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_seq)
        self._counter = tokenizer_cls.from_file(str(tok_file))  # for counting: no truncation
        self._counter.no_padding()
        self._counter.no_truncation()
        pad = self._tokenizer.token_to_id("[PAD]")
        self._pad_id = 0 if pad is None else int(pad)

    # -- export -------------------------------------------------------------------------------
    def _ensure_export(self, cache: Path) -> Path:
        """The cached .onnx file for this model (exported, and quantised, on first use)."""
        weights = [p for p in sorted(self._path.iterdir()) if p.suffix in (".safetensors", ".bin")]
        stamp = "|".join(f"{p.name}:{p.stat().st_size}:{int(p.stat().st_mtime)}" for p in weights)
        key = hashlib.sha256(f"{self._path.resolve()}|{stamp}|{_EXPORT_VERSION}".encode()).hexdigest()[:16]
        folder = cache / key
        plain = folder / "model-export.onnx"  # as torch.onnx wrote it: what int8 and fusion start from
        fp32 = folder / "model.onnx"
        int8 = folder / "model-int8.onnx"
        target = int8 if self.quantize else fp32
        if target.exists():
            return target
        folder.mkdir(parents=True, exist_ok=True)
        if not plain.exists():
            log.warning("exporting the embedding model to ONNX once (about half a minute) into %s", folder)
            _atomic(plain, lambda tmp: _export(self._path, tmp))
        if self.quantize:
            log.info("quantising %s to int8 (once)", plain)
            _atomic(int8, lambda tmp: _quantize(plain, tmp))
        else:
            _atomic(fp32, lambda tmp: _fuse(plain, tmp, _read_json(self._path / "config.json")))
        return target

    # -- the Embedder protocol ----------------------------------------------------------------
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised float32 embeddings, one row per text (batched longest-first, like s-t)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encoded = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: -len(encoded[i].ids))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._run([encoded[i].ids for i in idx])
        return out

    def _run(self, rows: list[list[int]]) -> np.ndarray:
        width = max(len(r) for r in rows)
        ids = np.full((len(rows), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for n, r in enumerate(rows):
            ids[n, : len(r)] = r
            mask[n, : len(r)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word-piece counts without the special tokens, as the model would see them."""
        if not texts:
            return []
        return [len(e.ids) for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]

    def static_embed(self, texts: Sequence[str]) -> np.ndarray:
        """Cheap normalised vectors: the mean of the model's input word-piece embeddings."""
        return self.static_rows(self.word_pieces(texts))

    def word_pieces(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word-piece ids, without the special tokens."""
        if not texts:
            return []
        return [e.ids for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]

    def static_rows(self, rows: Sequence[Sequence[int]]) -> np.ndarray:
        """static_embed of texts given as their word pieces."""
        return mean_rows(self._word_table(), rows, self.dim)

    def _word_table(self) -> np.ndarray:
        with self._lock:
            if self._table is None:
                self._table = _word_embeddings(self._path)
            return self._table


def _session(ort: Any, onnx_file: Path, threads: int) -> Any:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # no busy-waiting workers: spinning threads collapse under any other load on few cores
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(str(onnx_file), opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # a corrupt cache file: onnxruntime raises its own error types
        raise SettingsError(f"Cannot load the ONNX model {onnx_file}: {e}") from e


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def _atomic(dest: Path, write: Any) -> None:
    """Write dest through a temp file in the same folder, so a crash never leaves half a model."""
    fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _export(model_path: Path, dest: Path) -> None:
    try:
        import onnx  # noqa: F401  (torch.onnx's exporter needs it)
        import torch
        from transformers import AutoModel
    except ImportError as e:
        raise SettingsError(
            f"Exporting the embedder to ONNX needs torch, transformers and onnx ({e.name} is missing)"
        ) from e

    class _Hidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    # eager attention: the pattern ONNX Runtime's BERT fusion recognises (the SDPA export's is not)
    model = AutoModel.from_pretrained(str(model_path), attn_implementation="eager").eval()
    sample = torch.ones((2, 8), dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about shape-dependent Python branches
        torch.onnx.export(
            _Hidden(model),
            (sample, sample, torch.zeros_like(sample)),
            str(dest),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "last_hidden_state": axes,
            },  # fmt: skip
            opset_version=17,
            dynamo=False,
        )


def _fuse(src: Path, dest: Path, config: dict[str, Any]) -> None:
    """dest: src with ONNX Runtime's BERT fusions, or src itself when they do not cover every layer
    (another architecture) or change the outputs: the same vectors either way, the fused graph a ms
    or so faster per query."""
    layers = int(config.get("num_hidden_layers") or 0)
    try:
        from onnxruntime.transformers.optimizer import optimize_model

        fused = optimize_model(
            str(src),
            model_type="bert",
            num_heads=int(config.get("num_attention_heads") or 0),
            hidden_size=int(config.get("hidden_size") or 0),
            opt_level=0,
        )
        attention = fused.get_fused_operator_statistics().get("Attention", 0)
        reason = f"{attention} of {layers} attention layers fused"
        if layers and attention == layers:
            fused.save_model_to_file(str(dest))
            if _same_outputs(src, dest):
                return
            reason = "the fused graph's outputs differ from the export's"
    except Exception as e:  # the optimizer's own errors on a graph it does not know
        reason = f"{type(e).__name__}: {e}".splitlines()[0]
    log.warning("the ONNX query graph runs unfused (%s)", reason)
    shutil.copyfile(src, dest)


def _same_outputs(a: Path, b: Path) -> bool:
    """Both graphs give the same hidden states for a padded batch of two short texts (the query
    vectors must stay comparable with the stored document vectors)."""
    import onnxruntime as ort

    ids = np.array([[101, 2054, 2003, 1996, 3976, 102], [101, 7592, 102, 0, 0, 0]], dtype=np.int64)
    mask = (ids != 0).astype(np.int64)
    outs = []
    for path in (a, b):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = {i.name for i in session.get_inputs()}
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        outs.append(session.run(None, {k: v for k, v in feed.items() if k in names})[0])
    return bool(np.allclose(outs[0] * mask[..., None], outs[1] * mask[..., None], atol=1e-4))


def _quantize(src: Path, dest: Path) -> None:
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:
        raise SettingsError(f"int8 quantisation needs the onnx package ({e.name} is missing)") from e
    quantize_dynamic(str(src), str(dest), per_channel=True, weight_type=QuantType.QUInt8)


def _word_embeddings(model_path: Path) -> np.ndarray:
    """The input word-piece embedding table (from safetensors; torch only as a fallback)."""
    st = model_path / "model.safetensors"
    if st.exists():
        from safetensors import safe_open

        with safe_open(str(st), "np") as f:
            for key in f.keys():  # noqa: SIM118 - safe_open is not a mapping
                if key.endswith("word_embeddings.weight"):
                    return np.asarray(f.get_tensor(key), dtype=np.float32)
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_path))
    return model.get_input_embeddings().weight.detach().cpu().numpy().astype(np.float32)
