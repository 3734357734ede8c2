"""ContextLens against a framework peer (LlamaIndex) in the same run: recall@5 and retrieval p50.

    python bench/peers.py [--limit N] [--questions N] [--json]     (needs bench/requirements-peers.txt:
    `make bench-peers` installs it into .venv-peers and runs this)

Same data, same model, same store: the SQuAD subset is ingested with ContextLens's real ingest;
the peer gets the very chunks ContextLens stored (their stored text, with the contextual header
line, and their source) as LlamaIndex TextNodes, embedded by LlamaIndex's HuggingFaceEmbedding of
the same bundled all-MiniLM-L6-v2 (sentence-transformers on torch) into a Chroma collection of the
same chromadb version (cosine space, like ours) through its VectorStoreIndex. Its hybrid is its
BM25Retriever (bm25s, its default English stemmer) fused with the vector retriever by
QueryFusionRetriever in reciprocal-rank mode (one query, no LLM), each list as deep as ours (2k).

Per answerable question, each system's retrieval is timed (the question embedded afresh each
time: our query cache is cleared, the peer has none), systems and modes interleaved with the order
alternating. ContextLens's latency is `Retriever.search` (query embedding + search + fusion +
fetching the chunks), not budgeting, since the peer's retriever does no budgeting. Our query
encoder is ONNX Runtime by default and the peer's is torch: `ours_torch_query` repeats our dense
and hybrid search with the torch query encoder so the encoder's share of the ratio is visible
(`ours_int8_query`: with the int8 ONNX one).
recall@5: a question counts when a chunk of its gold paragraph is among the first 5.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    Report,
    as_module,
    load_squad,
    make_settings,
    quiet_logs,
    ratio,
    source_name,
    squad_path,
    summary,
    workdir,
    write_corpus,
)

K = 5
MODES = ("dense", "lexical", "hybrid")


def peer_available() -> str:
    """'' when the peer's packages import, else the reason."""
    try:
        import llama_index.core  # noqa: F401
        import llama_index.embeddings.huggingface  # noqa: F401
        import llama_index.retrievers.bm25  # noqa: F401
        import llama_index.vector_stores.chroma  # noqa: F401
    except ImportError as e:
        return f"{e.name} is not installed (pip install -r bench/requirements-peers.txt, or make bench-peers)"
    return ""


class Peer:
    """LlamaIndex over the same chunks: VectorStoreIndex on Chroma, BM25, and their RRF fusion."""

    def __init__(self, chunks: Sequence[tuple[str, str, str]], chroma_path: Path, depth: int) -> None:
        import chromadb
        from llama_index.core import Settings as LlamaSettings
        from llama_index.core import StorageContext, VectorStoreIndex
        from llama_index.core.retrievers import QueryFusionRetriever
        from llama_index.core.schema import TextNode
        from llama_index.embeddings.huggingface import HuggingFaceEmbedding
        from llama_index.retrievers.bm25 import BM25Retriever
        from llama_index.vector_stores.chroma import ChromaVectorStore

        from core.embed.sbert import bundled_model_path

        LlamaSettings.llm = None  # no LLM anywhere: fusion of one query needs none
        self.embed_model = HuggingFaceEmbedding(model_name=bundled_model_path(), device="cpu")
        nodes = [
            TextNode(id_=cid, text=text, metadata={"source": source}, excluded_embed_metadata_keys=["source"])
            for cid, text, source in chunks
        ]  # fmt: skip
        client = chromadb.PersistentClient(path=str(chroma_path))
        collection = client.get_or_create_collection("peer", metadata={"hnsw:space": "cosine"})
        store = ChromaVectorStore(chroma_collection=collection)
        t = time.perf_counter()
        self.index = VectorStoreIndex(
            nodes,
            storage_context=StorageContext.from_defaults(vector_store=store),
            embed_model=self.embed_model,
        )
        self.index_s = time.perf_counter() - t
        self.retrievers: dict[str, Any] = {}
        self.retrievers["dense"] = self.index.as_retriever(similarity_top_k=K)
        self.retrievers["lexical"] = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=K)
        self.retrievers["hybrid"] = QueryFusionRetriever(
            [
                self.index.as_retriever(similarity_top_k=depth),
                BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=depth),
            ],
            similarity_top_k=K,
            num_queries=1,
            mode="reciprocal_rerank",
            use_async=False,
        )

    def sources(self, mode: str, question: str) -> list[str]:
        return [str(n.node.metadata.get("source", "")) for n in self.retrievers[mode].retrieve(question)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--squad", help="SQuAD v2 JSON (default: the shared eval subset)")
    p.add_argument("--limit", type=int, default=0, help="only the first N SQuAD paragraphs (0 = all)")
    p.add_argument("--questions", type=int, default=0, help="answerable questions (0 = all)")
    p.add_argument("--keep", help="work in this directory and keep it")
    p.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = p.parse_args(argv)
    quiet_logs()
    for name in ("llama_index", "bm25s", "httpx"):
        logging.getLogger(name).setLevel(logging.ERROR)
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

    rep = Report("peers", args.json)
    missing = peer_available()
    if missing:
        rep.line(f"peer not run: {missing}")
        rep.data.update({"skipped": missing})
        rep.finish()
        return 0

    from core.resources import Resources
    from core.retrieval import Retriever
    from ingest.sync import ingest_paths

    paragraphs, questions = load_squad(squad_path(args.squad), args.limit)
    asked = [q for q in questions if q.answerable]
    if args.questions:
        asked = asked[: args.questions]
    with workdir(args.keep, prefix="clpeers-") as work:
        s = make_settings(work / "store", collection="peers")
        res = Resources.open(s)
        ingest_paths(s, [write_corpus(paragraphs, work / "corpus")], resources=res)
        got = res.index.vectors.collection.get(include=["documents", "metadatas"])
        chunks = [
            (cid, doc, str(meta.get("source", "")))
            for cid, doc, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True)
        ]  # fmt: skip
        ours = res.retriever
        torch_q = Retriever(res.index, res.embedder)  # our search with the torch query encoder
        from core.embed.query import make_query_encoder

        int8 = make_query_encoder("onnx-int8", "", s.onnx_cache_path, lambda: res.embedder)
        int8_q = Retriever(res.index, res.embedder, int8)  # and with the int8 one
        depth = K * 2  # our hybrid fuses 2k of each list
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            peer = Peer(chunks, work / "peer-chroma", depth)
        rep.line(f"{len(paragraphs)} paragraphs → {len(chunks)} chunks (ours, shared with the peer); "
                 f"{len(asked)} answerable questions; our query encoder: {res.query_encoder.name}; "
                 f"peer: LlamaIndex (torch sentence-transformers, its own Chroma collection), "
                 f"indexed in {peer.index_s:.1f} s")  # fmt: skip

        def our(r: Retriever, mode: str) -> Callable[[str], list[str]]:
            def run(q: str) -> list[str]:
                r._embed_cached.cache_clear()  # every question embedded afresh, as the peer does
                return [c.chunk.source for c in r.search(q, K, mode=mode, rrf_k=s.rrf_k)]

            return run

        systems: dict[str, dict[str, Callable[[str], list[str]]]] = {
            "ours": {m: our(ours, m) for m in MODES},
            "peer": {m: (lambda q, m=m: peer.sources(m, q)) for m in MODES},
            "ours_torch_query": {m: our(torch_q, m) for m in ("dense", "hybrid")},
            "ours_int8_query": {m: our(int8_q, m) for m in ("dense", "hybrid")},
        }
        runs = [(sys_, m) for sys_, ms in systems.items() for m in ms]
        for sys_, m in runs:  # warm every path once
            systems[sys_][m]("warm up the retrievers")
        ms: dict[tuple[str, str], list[float]] = {r: [] for r in runs}
        hits: dict[tuple[str, str], list[bool]] = {r: [] for r in runs}
        for i, q in enumerate(asked):
            gold = source_name(paragraphs[q.paragraph])
            order = runs if i % 2 == 0 else list(reversed(runs))
            for r in order:
                t = time.perf_counter()
                found = systems[r[0]][r[1]](q.text)
                ms[r].append((time.perf_counter() - t) * 1000)
                hits[r].append(gold in found[:K])

    recall = {
        sys_: {m: round(sum(hits[(sys_, m)]) / max(1, len(asked)), 4) for m in ms_}
        for sys_, ms_ in systems.items()
    }
    lat = {sys_: {m: summary(ms[(sys_, m)]) for m in ms_} for sys_, ms_ in systems.items()}
    p50 = {sys_: {m: v["p50"] for m, v in d.items()} for sys_, d in lat.items()}
    ratio_p50 = {m: ratio(p50["ours"][m], p50["peer"][m]) for m in MODES}
    ratio_torch = {m: ratio(p50["ours_torch_query"][m], p50["peer"][m]) for m in ("dense", "hybrid")}
    ratio_int8 = {m: ratio(p50["ours_int8_query"][m], p50["peer"][m]) for m in ("dense", "hybrid")}
    for sys_ in systems:
        rep.line(f"{sys_:<17}" + "  ".join(
            f"{m} recall@5 {recall[sys_][m]:.3f} p50 {p50[sys_][m]:.2f} ms" for m in systems[sys_]
        ))  # fmt: skip
    rep.line(f"ours/peer p50: {ratio_p50} (with our torch query encoder: {ratio_torch}, int8: {ratio_int8}); "
             f"hybrid recall@5 ours {recall['ours']['hybrid']:.3f} vs peer {recall['peer']['hybrid']:.3f}")  # fmt: skip
    rep.data.update({
        "paragraphs": len(paragraphs), "chunks": len(chunks), "questions": len(asked), "k": K,
        "our_query_encoder": res.query_encoder.name,
        "peer": "llama-index VectorStoreIndex(Chroma) + BM25Retriever, QueryFusionRetriever reciprocal_rerank",
        "peer_query_encoder": "torch (HuggingFaceEmbedding, sentence-transformers)",
        "recall_at_5": recall, "latency_ms": lat, "p50_ms": p50,
        "ratio_p50": ratio_p50, "ratio_p50_with_our_torch_query_encoder": ratio_torch,
        "ratio_p50_with_our_int8_query_encoder": ratio_int8,
        "hybrid_recall_at_5_ours_minus_peer": round(recall["ours"]["hybrid"] - recall["peer"]["hybrid"], 4),
        "targets": {"ratio_p50": "<= 0.5", "hybrid_recall_at_5": ">= the peer's"},
    })  # fmt: skip
    rep.finish()
    return 0


if __name__ == "__main__":
    as_module(__spec__, "bench.peers")
    sys.exit(main())
