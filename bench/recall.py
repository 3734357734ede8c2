"""Retrieval recall on the SQuAD subset: dense vs lexical (FTS5) vs hybrid (RRF), issue 9.

    python bench/recall.py [--squad FILE] [--keep DIR] [--json]

The paragraphs are ingested with the real ingest code (one document each); every answerable
question is searched with the shipped retriever, and recall@k counts a question when a chunk of its
gold paragraph is among the first k. Dense and lexical lists are prefixes of one 20-deep search;
hybrid is searched at each k, as the pipeline does (it fuses 2k of each list). "either list's
top-k" is the share whose gold paragraph is in the dense or the lexical top-k: a reference for
how much the two lists hold between them, not a bound (fusion can promote a paragraph that is 6th in
both lists into its top 5); "either list's top-20" is what a reranker of the two 20-deep lists
could work with.

The shipped configuration embeds questions with the ONNX Runtime query encoder and searches the
lexical rows in memory (issue 21); `--variants` adds the dense and hybrid rows with each other
query encoder ("… (torch query)", "… (onnx query)" for fp32, "… (onnx-int8 query)") and the
lexical and hybrid rows with FTS5's own bm25 query ("… (FTS5 engine)"), so both choices are
measured against what they replaced.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bench.common import (
    Report,
    as_module,
    load_squad,
    make_settings,
    quiet_logs,
    source_name,
    squad_path,
    workdir,
    write_corpus,
)

if TYPE_CHECKING:
    from bench.common import Paragraph, Question
    from core.retrieval import Retriever
    from core.types import Candidate

KS = (1, 3, 5, 8, 10, 20)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--squad", help="SQuAD v2 JSON (default: the shared eval subset)")
    p.add_argument("--limit", type=int, default=0, help="only the first N SQuAD paragraphs (0 = all)")
    p.add_argument("--keep", help="work in this directory and keep it (the store is reused)")
    p.add_argument("--json", action="store_true", help="one JSON object as the last line")
    p.add_argument(
        "--variants", action="store_true", help="also the other query encoders and the FTS5 engine"
    )
    args = p.parse_args(argv)
    quiet_logs()

    from core.index import Index
    from core.resources import Resources
    from core.retrieval import Retriever
    from ingest.sync import ingest_paths

    paragraphs, questions = load_squad(squad_path(args.squad), args.limit)
    asked = [q for q in questions if q.answerable]
    report = Report("recall", args.json)
    with workdir(args.keep) as work:
        s = make_settings(work / "store", collection="recall")
        res = Resources.open(s)
        t0 = time.perf_counter()
        ingest_paths(s, [write_corpus(paragraphs, work / "corpus")], resources=res)
        report.line(f"ingested {len(paragraphs)} paragraphs in {time.perf_counter() - t0:.1f} s")
        retriever = res.retriever  # the one the pipeline searches with
        hits, hybrid = _measure(retriever, asked, paragraphs, s.rrf_k, ("dense", "lexical"))
        extra: dict[str, dict[str, float]] = {}
        if args.variants:
            from core.embed.query import make_query_encoder

            for kind in ("torch", "onnx", "onnx-int8"):
                if kind == s.query_encoder:
                    continue
                enc = make_query_encoder(kind, "", s.onnx_cache_path, lambda: res.embedder)
                h, hy = _measure(
                    Retriever(res.index, res.embedder, enc), asked, paragraphs, s.rrf_k, ("dense",)
                )
                extra[f"dense ({kind} query)"] = _table(h["dense"])
                extra[f"hybrid ({kind} query)"] = _hybrid_row(hy)
            fts5 = Retriever(Index(s.updated(lexical_engine="fts5")), res.embedder, res.query_encoder)
            h, hy = _measure(fts5, asked, paragraphs, s.rrf_k, ("lexical",))
            extra["lexical (FTS5 engine)"] = _table(h["lexical"])
            extra["hybrid (FTS5 engine)"] = _hybrid_row(hy)
        report.data["query_encoder"] = res.query_encoder.name
        report.data["lexical_engine"] = s.lexical_engine

    table = {mode: _table(ranks) for mode, ranks in hits.items()}
    table["hybrid"] = _hybrid_row(hybrid)
    either = [
        min((r for r in (d, lx) if r is not None), default=None)
        for d, lx in zip(hits["dense"], hits["lexical"], strict=True)
    ]
    table["either list's top-k"] = _table(either)
    table.update(extra)
    report.data.update({"questions": len(asked), "recall": table})
    report.line(f"recall of the gold paragraph, {len(asked)} answerable questions")
    report.line(f"{'':32}" + "".join(f"{'@' + str(k):>8}" for k in KS))
    for name, row in table.items():
        report.line(f"{name:32}" + "".join(f"{row[f'@{k}']:>8.3f}" for k in KS))
    report.finish()
    return 0


def _measure(
    retriever: Retriever, asked: Sequence[Question], paragraphs: Sequence[Paragraph], rrf_k: int,
    modes: Sequence[str],
) -> tuple[dict[str, list[int | None]], dict[int, list[bool]]]:  # fmt: skip
    """Per mode the gold paragraph's rank in one 20-deep search, and hybrid's hit at each k."""
    depth = max(KS)
    hits: dict[str, list[int | None]] = {m: [] for m in modes}
    hybrid: dict[int, list[bool]] = {k: [] for k in KS}
    for q in asked:
        gold = source_name(paragraphs[q.paragraph])
        qvec = retriever.embed_query(q.text)
        for mode in hits:
            found = retriever.search(q.text, depth, mode=mode, rrf_k=rrf_k, query_vector=qvec)
            hits[mode].append(_rank(found, gold))
        for k in KS:
            found = retriever.search(q.text, k, mode="hybrid", rrf_k=rrf_k, query_vector=qvec)
            hybrid[k].append(_rank(found, gold) is not None)
    return hits, hybrid


def _table(ranks: list[int | None]) -> dict[str, float]:
    n = max(1, len(ranks))
    return {f"@{k}": round(sum(1 for r in ranks if r is not None and r <= k) / n, 4) for k in KS}


def _hybrid_row(hybrid: dict[int, list[bool]]) -> dict[str, float]:
    return {f"@{k}": round(sum(v) / max(1, len(v)), 4) for k, v in hybrid.items()}


def _rank(found: Sequence[Candidate], gold: str) -> int | None:
    """1-based rank of the first candidate from the gold source, None when it is not there."""
    return next((n for n, c in enumerate(found, 1) if c.chunk.source == gold), None)


if __name__ == "__main__":
    as_module(__spec__, "bench.recall")
    raise SystemExit(main())
