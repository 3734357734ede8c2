"""Embedding backends compared: torch fp32 vs ONNX Runtime fp32 vs ONNX Runtime int8 (issue 6 stretch).

    python bench/embedders.py [--backends torch,onnx-fp32,onnx-int8] [--questions 0] [--json]

Throughput: every backend embeds the same SQuAD paragraphs (one chunk each, as the ingest of the
subset makes them) with the same batch size; the order of the backends rotates every round.
Single-query latency: the same distinct questions, one at a time. Retrieval quality: recall@5 of
the gold paragraph for the answerable questions, by exact cosine search over each backend's own
paragraph vectors (so only the embedder differs). Prints measured ratios against torch fp32.

Query encoders (issue 21, `--query-encoders`, default torch,onnx,onnx-int8): the shipped
single-question path (`core.embed.query`), timed one question at a time in rotation, and its
recall@5 against the *torch* paragraph vectors — the combination the app runs (documents embedded
by torch at ingest, questions by the query encoder) — with the cosine of each question's vector to
torch's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import (
    Report,
    as_module,
    distinct,
    load_squad,
    quiet_logs,
    ratio,
    squad_path,
    summary,
    workdir,
)


def make(backend: str, batch_size: int, cache: Path) -> Any:
    if backend == "torch":
        from core.embed.sbert import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder("", batch_size)
    from core.embed.onnx import OnnxEmbedder

    return OnnxEmbedder("", batch_size, cache_dir=cache, quantize=backend == "onnx-int8")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backends", default="torch,onnx-fp32,onnx-int8")
    p.add_argument("--rounds", type=int, default=2, help="throughput rounds (backend order rotates)")
    p.add_argument("--limit", type=int, default=0, help="only the first N SQuAD paragraphs")
    p.add_argument("--questions", type=int, default=0, help="answerable questions for recall (0: all)")
    p.add_argument("--latency-questions", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--squad", help="SQuAD v2 JSON (default: ../shared/eval/squad2/...)")
    p.add_argument("--cache", help="ONNX export cache (default: a tmp dir, so the export is timed)")
    p.add_argument("--keep", help="work in this directory and keep it")
    p.add_argument("--query-encoders", default="torch,onnx,onnx-int8", help="'' to skip")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = p.parse_args(argv)
    quiet_logs()

    rep = Report("embedders", args.json)
    paragraphs, questions = load_squad(squad_path(args.squad), args.limit)
    answerable = [q for q in questions if q.answerable]
    if args.questions:
        answerable = answerable[: args.questions]
    texts = [p.text for p in paragraphs]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]

    with workdir(args.keep) as work:
        cache = Path(args.cache) if args.cache else work / "onnx-cache"
        from core.errors import SettingsError

        emb: dict[str, Any] = {}
        setup: dict[str, float] = {}
        skipped: dict[str, str] = {}
        for b in list(backends):
            t = time.perf_counter()
            try:
                emb[b] = make(b, args.batch_size, cache)
            except SettingsError as e:  # the optional ONNX packages are not installed
                skipped[b] = str(e)
                backends.remove(b)
                rep.line(f"skipping {b}: {e}")
                continue
            setup[b] = round(time.perf_counter() - t, 2)
            emb[b].embed(texts[: args.batch_size])  # warm
        rep.line(f"{len(texts)} paragraphs, {len(answerable)} answerable questions; batch size "
                 f"{args.batch_size}; setup s (load + first-use export): {setup}")  # fmt: skip

        seconds: dict[str, float] = {b: 0.0 for b in backends}
        vectors: dict[str, np.ndarray] = {}
        for r in range(args.rounds):
            order = backends[r % len(backends) :] + backends[: r % len(backends)]
            for b in order:
                t = time.perf_counter()
                vectors[b] = emb[b].embed(texts)
                seconds[b] += time.perf_counter() - t
        throughput = {b: round(len(texts) * args.rounds / seconds[b], 2) for b in backends}

        latency: dict[str, list[float]] = {b: [] for b in backends}
        qs = [q.text for q in distinct(questions)][: args.latency_questions]
        for i, q in enumerate(qs):
            order = backends[i % len(backends) :] + backends[: i % len(backends)]
            for b in order:
                t = time.perf_counter()
                emb[b].embed([q])
                latency[b].append((time.perf_counter() - t) * 1000)

        recall: dict[str, float] = {}
        gold = np.array([q.paragraph for q in answerable])
        for b in backends:
            qv = emb[b].embed([q.text for q in answerable])
            top = np.argsort(-(qv @ vectors[b].T), axis=1)[:, :5]
            recall[b] = round(float((top == gold[:, None]).any(axis=1).mean()), 4)
        cos = {}
        if "torch" in vectors:
            for b in backends:
                c = (vectors[b] * vectors["torch"]).sum(axis=1)
                cos[b] = {"min": round(float(c.min()), 4), "mean": round(float(c.mean()), 5)}

        query = _query_encoders(args, cache, emb.get("torch"), vectors.get("torch"), answerable, qs, rep)

        base = "torch" if "torch" in backends else backends[0]
        for b in backends:
            rep.line(f"{b:<10} {throughput[b]:7.2f} chunks/s (×{ratio(throughput[b], throughput[base])} of {base}); "
                     f"query p50 {summary(latency[b])['p50']:.1f} ms; recall@5 {recall[b]:.4f} "
                     f"(Δ {recall[b] - recall[base]:+.4f}); cosine to torch {cos.get(b)}")  # fmt: skip
        rep.data.update({
            "paragraphs": len(texts), "answerable_questions": len(answerable), "batch_size": args.batch_size,
            "rounds": args.rounds, "setup_s": setup, "chunks_per_s": throughput,
            "throughput_vs_torch": {b: ratio(throughput[b], throughput[base]) for b in backends},
            "query_ms": {b: summary(v) for b, v in latency.items()}, "recall_at_5": recall,
            "recall_delta_vs_torch": {b: round(recall[b] - recall[base], 4) for b in backends},
            "cosine_to_torch": cos, "skipped": skipped, "query_encoders": query,
            "targets": {"throughput_vs_torch": ">= 2 (int8)", "recall_delta_vs_torch": ">= -0.01"},
        })  # fmt: skip
        rep.finish()
    return 0


def _query_encoders(args: Any, cache: Path, torch_emb: Any, torch_vecs: Any, answerable: Any,
                    qs: list[str], rep: Report) -> dict[str, Any]:  # fmt: skip
    """Single-question latency and recall@5 (against torch paragraph vectors) per query encoder."""
    kinds = [k.strip() for k in args.query_encoders.split(",") if k.strip()]
    if not kinds or torch_emb is None or torch_vecs is None:
        return {}
    from core.embed.query import make_query_encoder

    enc = {k: make_query_encoder(k, "", cache, lambda: torch_emb) for k in kinds}  # type: ignore[arg-type]
    for e in enc.values():
        e.encode("warm up")
    lat: dict[str, list[float]] = {k: [] for k in kinds}
    for i, q in enumerate(qs):
        order = kinds[i % len(kinds) :] + kinds[: i % len(kinds)]
        for k in order:
            t = time.perf_counter()
            enc[k].encode(q)
            lat[k].append((time.perf_counter() - t) * 1000)
    gold = np.array([q.paragraph for q in answerable])
    ref = torch_emb.embed([q.text for q in answerable])
    out: dict[str, Any] = {}
    for k in kinds:
        qv = np.vstack([enc[k].encode(q.text) for q in answerable])
        top = np.argsort(-(qv @ torch_vecs.T), axis=1)[:, :5]
        c = (qv * ref).sum(axis=1)
        out[k] = {
            "encoder": enc[k].name, "query_ms": summary(lat[k]),
            "recall_at_5_vs_torch_documents": round(float((top == gold[:, None]).any(axis=1).mean()), 4),
            "cosine_to_torch": {"min": round(float(c.min()), 5), "mean": round(float(c.mean()), 6)},
        }  # fmt: skip
        rep.line(f"query encoder {k:<9} p50 {out[k]['query_ms']['p50']:.2f} ms, p90 {out[k]['query_ms']['p90']:.2f} ms; "
                 f"recall@5 vs torch documents {out[k]['recall_at_5_vs_torch_documents']:.4f}; "
                 f"cosine to torch min {out[k]['cosine_to_torch']['min']}")  # fmt: skip
    return out


if __name__ == "__main__":
    as_module(__spec__, "bench.embedders")
    sys.exit(main())
