"""Retrieval + budgeting latency at growing index sizes, dense vs hybrid, embedded and server Chroma.

    python bench/query.py [--sizes 1000,10000,100000] [--questions 40] [--server-size 10000] [--json]

Corpus: the SQuAD subset is ingested for real (real chunks, real embeddings); sizes beyond it are
synthesised: each extra chunk is a run of real sentences from two real chunks of one article, its
stored embedding the normalised mix of theirs plus Gaussian noise, written straight into Chroma and
the FTS5 lexical index (so hybrid works) with a manifest row per synthetic file. The query path is
the real one: `core.pipeline.Pipeline.ask` with the real embedder, Chroma and budget, and the
latency is the trace's retrieval_ms + budgeting_ms. Every question is a distinct SQuAD question,
so the query-embedding cache never answers first (fresh embeddings per question are counted). Modes are interleaved per
question and alternate which goes first. Prints measured ratios, not pass/fail.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import (
    Question,
    Report,
    as_module,
    chroma_server,
    distinct,
    load_squad,
    make_settings,
    quiet_logs,
    ratio,
    squad_path,
    summary,
    workdir,
    write_corpus,
)

STORE_VERSION = 2  # bump when the synthesis changes (invalidates --keep stores)


# -- corpus -------------------------------------------------------------------------------------
class Seed:
    """The real SQuAD chunks (text, metadata, embedding) grouped by file, as ingest stored them."""

    def __init__(self, index: Any, root: str) -> None:
        got = index.vectors.collection.get(include=["documents", "metadatas", "embeddings"])
        by_id = {
            cid: (doc, meta, np.asarray(emb, dtype=np.float32))
            for cid, doc, meta, emb in zip(
                got["ids"], got["documents"], got["metadatas"], got["embeddings"], strict=True
            )
        }
        self.root = root
        self.files: list[tuple[str, str, list[str]]] = []  # (source, file_hash, ids)
        for rec in index.manifest.all_files():
            self.files.append((rec.source, rec.file_hash, list(rec.chunk_ids)))
        self.ids = [cid for _, _, ids in self.files for cid in ids]
        self.text = {cid: by_id[cid][0] for cid in self.ids}
        self.meta = {cid: dict(by_id[cid][1]) for cid in self.ids}
        self.vec = {cid: by_id[cid][2] for cid in self.ids}
        self.by_category: dict[str, list[str]] = {}
        for cid in self.ids:
            self.by_category.setdefault(str(self.meta[cid].get("category", "")), []).append(cid)


def build_store(index: Any, n: int, seed: Seed, models: Any, rng_seed: int, log: Any) -> dict[str, Any]:
    """Fill an (empty) index with n chunks: the real ones first, then synthetic ones."""
    from core.shield.quarantine import defused_text, ingest_metadata
    from core.text import split_sentences
    from core.types import Chunk

    counter, prepare = models.counter, models.preparer

    t0 = time.perf_counter()
    ids: list[str] = []
    texts: list[str] = []
    metas: list[dict[str, Any]] = []
    vecs: list[np.ndarray] = []
    files: list[tuple[str, str, str, list[int]]] = []  # (root, source, hash, positions)

    for source, fhash, cids in seed.files:
        if len(ids) + len(cids) > n:
            break
        pos = []
        for cid in cids:
            pos.append(len(ids))
            ids.append(cid)
            texts.append(seed.text[cid])
            metas.append(seed.meta[cid])
            vecs.append(seed.vec[cid])
        files.append((seed.root, source, fhash, pos))
    real = len(ids)

    rng = random.Random(rng_seed)
    nprng = np.random.default_rng(rng_seed)
    cats = sorted(seed.by_category)
    sents = {cid: split_sentences(seed.text[cid]) for cid in seed.ids}
    per_file = 50
    k = 0
    while len(ids) < n:
        cat = cats[k % len(cats)]
        pool = seed.by_category[cat]
        source = f"synthetic/{cat}/{k // len(cats):06d}.txt"
        pos = []
        for j in range(min(per_file, n - len(ids))):
            a, b = rng.choice(pool), rng.choice(pool)
            sa, sb = sents[a], sents[b]
            ia = rng.randrange(len(sa))
            ib = rng.randrange(len(sb))
            part_a = list(sa[ia : ia + rng.randint(2, 4)])
            part_b = list(sb[ib : ib + rng.randint(1, 3)])
            text = " ".join(part_a + part_b)
            w = len(part_a) / (len(part_a) + len(part_b))
            v = w * seed.vec[a] + (1 - w) * seed.vec[b] + nprng.normal(0, 0.03, seed.vec[a].shape)
            v = (v / np.linalg.norm(v)).astype(np.float32)
            pos.append(len(ids))
            cid = f"syn{k:07d}{j:03d}"
            ids.append(cid)
            texts.append(text)
            metas.append({
                "source": source, "category": cat, "title": f"{cat} {k}", "chunk_index": j,
                "tokens": 0, "content_hash": "", "file_hash": f"{k:016x}",
                **ingest_metadata("", text),  # the shield's record, as ingest writes it on every chunk
            })  # fmt: skip
            vecs.append(v)
        files.append((seed.root, source, f"{k:064x}", pos))
        k += 1
    # real token counts, as ingest stores them (the budget reads metadata["tokens"])
    for i, t in zip(range(real, len(ids)), counter.count_many(texts[real:]), strict=True):
        metas[i]["tokens"] = t

    emb = np.vstack(vecs).astype(np.float32)
    # what the budget needs of each chunk, as ingest stores it (core/prepared.py)
    prepared = [
        prepare(defused_text(Chunk(cid, t, "", m))) for cid, t, m in zip(ids, texts, metas, strict=True)
    ]
    t1 = time.perf_counter()
    with index.writing():  # as ingest writes: the vectors, then each file's rows and records
        index.upsert_vectors(ids, emb, texts, metas, prepared)
        t2 = time.perf_counter()
        for root, source, fhash, pos in files:
            index.commit_file(root, source, fhash, [(ids[i], texts[i]) for i in pos], [])
    t3 = time.perf_counter()
    built = {"chunks": len(ids), "real_chunks": real, "synthetic_chunks": len(ids) - real,
             "files": len(files), "chroma_s": round(t2 - t1, 1), "lexical_s": round(t3 - t2, 1),
             "total_s": round(t3 - t0, 1)}  # fmt: skip
    log(f"  built {n} chunks ({real} real, {len(ids) - real} synthetic) in {t3 - t0:.1f}s "
        f"(Chroma {t2 - t1:.1f}s, FTS5 {t3 - t2:.1f}s)")  # fmt: skip
    return built


def ensure_store(store: Path, n: int, seed: Seed, models: Any, rng_seed: int, log: Any,
                 **overrides: Any) -> tuple[Any, Any, dict[str, Any]]:  # fmt: skip
    """A store with n chunks at store (reused when --keep left a matching one): its settings, its
    Resources (sharing models) and how it was built."""
    from core.resources import Resources

    marker = store / "bench-store.json"
    want = {"n": n, "seed": rng_seed, "version": STORE_VERSION, **{k: str(v) for k, v in overrides.items()}}
    s = make_settings(store, **overrides)
    res = Resources.open(s, models)
    if marker.exists() and not overrides.get("chroma_host"):
        info = json.loads(marker.read_text())
        if info.get("want") == want:
            log(f"  reusing the {n}-chunk store in {store}")
            res.index.fill_records()  # a store kept from before the local record copies gets them
            res.index.fill_prepared(models.preparer)  # and one from before the stored Prepared
            return s, res, info["built"]
    built = build_store(res.index, n, seed, models, rng_seed, log)
    marker.write_text(json.dumps({"want": want, "built": built}))
    return s, res, built


def own_retriever(res: Any) -> Any:
    """Resources on the same index and models with a Retriever (so a query-embedding cache) of
    their own: one per mode, so no mode finds a question already embedded by another."""
    from core.resources import Resources

    return Resources(res.models, res.index)


# -- measuring ----------------------------------------------------------------------------------
def measure(settings: Any, res: Any, modes: Sequence[str], questions: Sequence[Question],
            warm: Sequence[Question]) -> dict[str, Any]:  # fmt: skip
    """Per mode: retrieval_ms, budgeting_ms and their sum from real Pipeline.ask traces."""
    from core.pipeline import Pipeline

    pipes = {
        m: Pipeline(settings.model_copy(update={"retrieval_mode": m}), own_retriever(res), backend=None)
        for m in modes
    }
    for q in warm:
        for p in pipes.values():
            p.ask(q.text, record=False)
    misses0 = {m: p.resources.retriever._embed_cached.cache_info().misses for m, p in pipes.items()}
    out: dict[str, dict[str, list[float]]] = {
        m: {"retrieval": [], "budgeting": [], "total": []} for m in modes
    }
    extra: dict[str, dict[str, list[float]]] = {m: {"candidates": [], "included": []} for m in modes}
    for i, q in enumerate(questions):
        order = list(modes) if i % 2 == 0 else list(reversed(modes))
        for m in order:
            tr = pipes[m].ask(q.text, record=False).trace
            out[m]["retrieval"].append(tr["retrieval_ms"])
            out[m]["budgeting"].append(tr["budgeting_ms"])
            out[m]["total"].append(tr["retrieval_ms"] + tr["budgeting_ms"])
            extra[m]["candidates"].append(tr["num_candidates"])
            extra[m]["included"].append(tr["num_chunks_included"])
    res: dict[str, Any] = {}
    for m in modes:
        info = pipes[m].resources.retriever._embed_cached.cache_info()
        res[m] = {
            "retrieval_plus_budgeting_ms": summary(out[m]["total"]),
            "retrieval_ms": summary(out[m]["retrieval"]),
            "budgeting_ms": summary(out[m]["budgeting"]),
            # every question must be embedded afresh once (the pipeline may re-read the cache later)
            "query_embeddings_computed": info.misses - misses0[m],
            "questions": len(questions),
            "mean_candidates": round(float(np.mean(extra[m]["candidates"])), 2),
            "mean_included": round(float(np.mean(extra[m]["included"])), 2),
        }
    return res


def breakdown(settings: Any, models: Any, questions: Sequence[Question]) -> dict[str, Any]:
    """Where the time goes, per component, in wall and process-CPU milliseconds.

    On a shared machine wall time includes waiting for a core; CPU time is close to what an idle
    machine's wall time would be (single-threaded parts; the query encoder's two threads count
    twice, so the model takes the smaller of its CPU and wall time). `model_*` adds the CPU components up
    the way the real path runs them: dense = embed + search + budget; hybrid = max(embed, lexical)
    (the lexical search runs beside the query embedding) + the rest of search + budget.
    `embed_query` is the shipped query encoder (ONNX Runtime by default), `embed_query_torch` the
    documents' torch embedder on the same text; `dense_query` the shipped nearest-neighbour read
    (Chroma's ids and distances, the records from their local copies), `chroma_query_full` Chroma
    returning documents, metadata and vectors itself; `lexical_search` the shipped lexical engine
    (in memory by default), `fts5_search` FTS5's own bm25 query over the same rows.
    """
    from core.answer.refusal import rarity
    from core.context.fit import fit_evidence
    from core.pipeline import Pipeline
    from core.resources import Resources

    s = settings.model_copy(update={"retrieval_mode": "hybrid"})
    p = Pipeline(s, Resources.open(s, models), backend=None)
    r = p.resources.retriever
    k = s.top_k
    n_lex = k * 2
    names = ["embed_query", "embed_query_torch", "dense_query", "chroma_query_full", "lexical_search", "fts5_search",
             "search_dense", "search_hybrid", "budget_dense", "budget_hybrid"]  # fmt: skip
    from core.index.lexical import LexicalIndex

    fts5 = LexicalIndex(r.index.db, "fts5")  # FTS5 itself, for comparison with the shipped engine
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    model: dict[str, list[float]] = {"dense": [], "hybrid": []}
    r.embedder.embed(["warm up the embedder"])
    r.search("warm up the index", k, query_vector=r._encode("warm up the index"))
    fts5.search("warm up the index", n_lex)

    def timed(name: str, fn: Any, *a: Any) -> Any:
        w, c = time.perf_counter(), time.process_time()
        out = fn(*a)
        cpu[name].append((time.process_time() - c) * 1000)
        wall[name].append((time.perf_counter() - w) * 1000)
        return out

    def budget(question: str, cands: list[Any]) -> Any:
        res, weights = p.resources, rarity(question, p.builder.word_counts(question))
        return fit_evidence(
            cands, question, question, s, s.knowledge_budget, res.counter, res.scorer, weights=weights
        )

    def search(question: str, mode: str, vec: Any) -> Any:
        return r.search(question, k, mode, s.rrf_k, query_vector=vec)

    for q in questions:
        vec = timed("embed_query", r._encode, q.text)  # the shipped query encoder, uncached
        timed("embed_query_torch", lambda t: r.embedder.embed([t])[0], q.text)
        timed("dense_query", r.index.query, vec, k * 2)  # Chroma's ids + distances, local records
        timed("chroma_query_full", r.index.vectors.query, vec, k * 2)  # Chroma returning everything
        timed("fts5_search", fts5.search, q.text, n_lex)
        timed("lexical_search", r.index.lexical.search, q.text, n_lex)
        dense = timed("search_dense", search, q.text, "dense", vec)
        hybrid = timed("search_hybrid", search, q.text, "hybrid", vec)
        timed("budget_dense", budget, q.text, dense)
        timed("budget_hybrid", budget, q.text, hybrid)
        # the query encoder runs on two threads: its CPU time is both threads' work, so the model
        # takes the smaller of its CPU and wall time
        e, f = min(cpu["embed_query"][-1], wall["embed_query"][-1]), cpu["lexical_search"][-1]
        model["dense"].append(e + cpu["search_dense"][-1] + cpu["budget_dense"][-1])
        model["hybrid"].append(max(e, f) + max(0.0, cpu["search_hybrid"][-1] - f) + cpu["budget_hybrid"][-1])
    return {
        "wall_ms": {n: summary(v) for n, v in wall.items()},
        "cpu_ms": {n: summary(v) for n, v in cpu.items()},
        "model_from_cpu_ms": {m: summary(v) for m, v in model.items()},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="1000,10000,100000", help="index sizes in chunks")
    p.add_argument("--questions", type=int, default=40, help="distinct questions per size and mode")
    p.add_argument("--modes", default="dense,hybrid")
    p.add_argument("--server-size", type=int, default=10000, help="Chroma server mode size (0: skip)")
    p.add_argument("--breakdown", type=int, default=20, help="questions for the component timings")
    p.add_argument("--squad", help="SQuAD v2 JSON (default: ../shared/eval/squad2/...)")
    p.add_argument("--limit", type=int, default=0, help="only the first N SQuAD paragraphs as real chunks")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--keep", help="work in this directory and keep it (stores are reused)")
    p.add_argument("--profile", help="write a pyinstrument profile of the largest size's loop here")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = p.parse_args(argv)
    quiet_logs()

    from core.resources import Models, Resources
    from ingest.sync import ingest_paths

    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    rep = Report("query", args.json)
    paragraphs, all_questions = load_squad(squad_path(args.squad), args.limit)
    pool = distinct(all_questions)
    random.Random(args.seed).shuffle(pool)
    warm = pool[:3]
    questions = pool[3 : 3 + args.questions]
    comp_qs = pool[3 + args.questions : 3 + args.questions + args.breakdown]

    with workdir(args.keep) as work:
        corpus = write_corpus(paragraphs, work / "corpus")
        seed_settings = make_settings(work / "seed")
        models = Models(seed_settings)  # one embedder, counter and scorer for every store
        seed_res = Resources.open(seed_settings, models)
        models.embedder.embed(["warm up"] * 4)
        if not (work / "seed" / "bench-seed.json").exists():
            t = time.perf_counter()
            r = ingest_paths(seed_settings, [corpus], resources=seed_res)
            (work / "seed" / "bench-seed.json").write_text(json.dumps(r.as_dict()))
            rep.line(f"seed: real ingest of {len(paragraphs)} SQuAD paragraphs → {r.embedded} chunks "
                     f"in {time.perf_counter() - t:.1f}s")  # fmt: skip
        seed = Seed(seed_res.index, str(corpus.resolve()))
        del seed_res
        rep.line(f"questions: {len(questions)} distinct SQuAD questions per size and mode "
                 f"(+{len(warm)} warm-up), modes {modes}, top_k {seed_settings.top_k}")  # fmt: skip

        results: dict[str, Any] = {}
        builds: dict[str, Any] = {}
        for n in sizes:
            rep.line(f"size {n}:")
            s, res, built = ensure_store(work / f"store-{n}", n, seed, models, args.seed, rep.line)
            builds[str(n)] = built
            prof = None
            if args.profile and n == max(sizes):
                from pyinstrument import Profiler

                prof = Profiler(interval=0.001)
                prof.start()
            results[str(n)] = measure(s, res, modes, questions, warm)
            if prof is not None:
                prof.stop()
                Path(args.profile).write_text(prof.output_text(unicode=False, color=False))
            _print(rep, n, results[str(n)])
            del res  # this store's index is done with

        comp: dict[str, Any] = {}
        if args.breakdown:
            for n in sizes:
                comp[str(n)] = c = breakdown(make_settings(work / f"store-{n}"), models, comp_qs)
                cp, md = c["cpu_ms"], c["model_from_cpu_ms"]
                rep.line(
                    f"components at {n}, CPU p50 ms: "
                    + ", ".join(f"{k} {v['p50']:.2f}" for k, v in cp.items())
                    + f"; modelled idle-machine latency p50/p90: dense {md['dense']['p50']:.1f}/{md['dense']['p90']:.1f},"
                    f" hybrid {md['hybrid']['p50']:.1f}/{md['hybrid']['p90']:.1f}"
                )

        server = None
        if args.server_size:
            n = args.server_size
            rep.line(f"server mode, size {n}:")
            data = work / f"chroma-server-{n}"
            shutil.rmtree(data, ignore_errors=True)  # a fresh server store every run
            data.mkdir(parents=True)
            with chroma_server(data) as (host, port):
                s, res, built = ensure_store(work / f"server-store-{n}", n, seed, models, args.seed, rep.line,
                                             chroma_host=host, chroma_port=port)  # fmt: skip
                server = {"size": n, "build": built, "modes": measure(s, res, modes, questions, warm)}
                del res  # its client talks to the server about to stop
            _print(rep, n, server["modes"], prefix="  server ")

        summary_out = _summarise(results, sizes, modes, server)
        if comp:
            lo, hi = str(min(sizes)), str(max(sizes))
            md = {n: c["model_from_cpu_ms"] for n, c in comp.items()}
            summary_out["model_from_cpu"] = {
                "p50_ms": {n: {m: v[m]["p50"] for m in v} for n, v in md.items()},
                "p90_ms": {n: {m: v[m]["p90"] for m in v} for n, v in md.items()},
                "p50_largest_over_smallest": {m: ratio(md[hi][m]["p50"], md[lo][m]["p50"]) for m in md[hi]},
                "hybrid_over_dense_p50": {
                    n: ratio(v["hybrid"]["p50"], v["dense"]["p50"]) for n, v in md.items()
                },
            }
            mc = summary_out["model_from_cpu"]
            summary_out["_lines"].append(
                f"CPU-time model (idle-machine estimate): p50({hi})/p50({lo}) {mc['p50_largest_over_smallest']}, "
                f"hybrid/dense p50 {mc['hybrid_over_dense_p50']}"
            )
        for line in summary_out.pop("_lines"):
            rep.line(line)
        rep.data.update({
            "sizes": sizes, "modes": modes, "questions_per_size_and_mode": len(questions),
            "distinct_questions": True, "top_k": seed_settings.top_k, "embedded": results,
            "server": server, "builds": builds, "components_ms": comp, **summary_out,
            "query_encoder": models.query_encoder.name, "lexical_engine": seed_settings.lexical_engine,
            "targets": {"hybrid_p50_ms_at_100k": "<= 15", "hybrid_p90_ms_at_100k": "<= 25",
                        "dense_p50_ms_at_100k": "<= 10", "p50_100k_over_1k": "<= 1.5"},
        })  # fmt: skip
        rep.finish()
    return 0


def _print(rep: Report, n: int, res: dict[str, Any], prefix: str = "  ") -> None:
    for m, r in res.items():
        tot, ret, bud = r["retrieval_plus_budgeting_ms"], r["retrieval_ms"], r["budgeting_ms"]
        rep.line(f"{prefix}{m:<7} n={n}: retrieval+budgeting p50 {tot['p50']:.1f} ms, p90 {tot['p90']:.1f} ms "
                 f"(retrieval p50 {ret['p50']:.1f}, budgeting p50 {bud['p50']:.1f}); "
                 f"query embeddings computed {r['query_embeddings_computed']}/{r['questions']}")  # fmt: skip


def _summarise(results: dict[str, Any], sizes: list[int], modes: list[str], server: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"_lines": []}
    if not sizes:
        return out
    lo, hi = str(min(sizes)), str(max(sizes))
    scaling = {}
    for m in modes:
        a = results[lo][m]["retrieval_plus_budgeting_ms"]["p50"]
        b = results[hi][m]["retrieval_plus_budgeting_ms"]["p50"]
        scaling[m] = ratio(b, a)
        out["_lines"].append(f"{m}: p50({hi})/p50({lo}) = {scaling[m]}  (target ≤ 1.5)")
    out["p50_largest_over_smallest"] = scaling
    if "dense" in modes and "hybrid" in modes:
        hd = {
            n: ratio(results[n]["hybrid"]["retrieval_plus_budgeting_ms"]["p50"],
                     results[n]["dense"]["retrieval_plus_budgeting_ms"]["p50"])
            for n in results
        }  # fmt: skip
        out["hybrid_over_dense_p50"] = hd
        out["_lines"].append(f"hybrid/dense p50 by size: {hd}  (target ≤ 1.5)")
        if server:
            sm = server["modes"]
            out["server_hybrid_over_dense_p50"] = ratio(
                sm["hybrid"]["retrieval_plus_budgeting_ms"]["p50"],
                sm["dense"]["retrieval_plus_budgeting_ms"]["p50"],
            )
    if server and str(server["size"]) in results:
        n = str(server["size"])
        out["server_over_embedded_p50"] = {
            m: ratio(server["modes"][m]["retrieval_plus_budgeting_ms"]["p50"],
                     results[n][m]["retrieval_plus_budgeting_ms"]["p50"])
            for m in modes
        }  # fmt: skip
        out["_lines"].append(f"server/embedded p50 at {n}: {out['server_over_embedded_p50']}")
    return out


if __name__ == "__main__":
    as_module(__spec__, "bench.query")
    sys.exit(main())
