"""Ingest throughput vs the raw encoder, re-ingest cost, and peak RSS (issue 6).

    python bench/ingest.py [--corpus DIR | --squad PATH --limit N] [--rounds 2] [--json]

Default corpus: the SQuAD 2.0 subset's paragraphs written as .txt files (one per paragraph, a
folder per article) into a tmp dir. Each round ingests the corpus into a fresh tmp store through
the real ingest code (`ingest.sync.ingest_paths`) and encodes the very same chunk texts with the
raw encoder alone (`SentenceTransformer.encode`, same batch size, one call); the order of the two
alternates between rounds so neither is favoured by warm caches or by noise drift. Then the
unchanged corpus is ingested again. Each ingest round runs cold: the pure text caches ingest
fills (the shield's verdicts, sentence splits, blanked entities, known stems) are emptied first, so a
round pays what a first ingest in a fresh process pays (reading the chunk texts for the raw
encoder would otherwise have left every page's shield verdict cached). Prints measured ratios, not
pass/fail.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import (
    Report,
    as_module,
    load_squad,
    make_settings,
    peak_rss_mb,
    quiet_logs,
    ratio,
    reset_peak_rss,
    rss_mb,
    squad_path,
    workdir,
    write_corpus,
)


def chunk_texts(settings: Any, corpus: Path, res: Any) -> tuple[list[str], int]:
    """The chunk texts ingest will embed (same discovery, loader and chunker; nothing stored)."""
    from ingest.isolate import ParseLimits, parse_checked
    from ingest.sync import Ingestor, discover, file_sha

    ingestor = Ingestor(settings, res)
    files, _, _ = discover([corpus])
    texts: list[str] = []
    limits = ParseLimits.from_settings(settings)
    for f in files:
        data = f.path.read_bytes()
        doc = parse_checked(f.source, data, limits)  # what a parse worker returns, parsed here
        texts.extend(ingestor._prepare(f, file_sha(data), doc, None).texts)  # the texts _flush embeds
    return texts, len(files)


def cold() -> None:
    """Empty the pure caches an ingest fills, so the next ingest computes what a first one does."""
    from core.query.entities import without_entities
    from core.shield.detect import inspect
    from core.stems import STEMMER
    from core.text import split_sentences

    inspect.cache_clear()
    split_sentences.cache_clear()
    without_entities.cache_clear()
    STEMMER._known.clear()  # noqa: SLF001 - a word's stem is memoised per process


class _TimedEmbed:
    """Wraps embedder.embed to add up the time ingest spends inside the encoder."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.inner = embedder.embed
        self.seconds = 0.0
        self.calls = 0

    def __enter__(self) -> _TimedEmbed:
        def embed(texts: Any) -> Any:
            t = time.perf_counter()
            try:
                return self.inner(texts)
            finally:
                self.seconds += time.perf_counter() - t
                self.calls += 1

        self.embedder.embed = embed
        return self

    def __exit__(self, *exc: object) -> None:
        del self.embedder.embed  # back to the class method


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", help="ingest this folder instead of the SQuAD paragraphs")
    p.add_argument("--squad", help="SQuAD v2 JSON (default: ../shared/eval/squad2/...)")
    p.add_argument("--limit", type=int, default=0, help="only the first N SQuAD paragraphs")
    p.add_argument("--rounds", type=int, default=2, help="ingest/raw pairs, order alternating")
    p.add_argument("--batch-size", type=int, default=0, help="embedding batch size (default: settings)")
    p.add_argument("--backend", default="torch", choices=["torch", "onnx"])
    p.add_argument("--keep", help="work in this directory and keep it")
    p.add_argument("--profile", help="write a pyinstrument profile of one extra ingest to this .txt")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = p.parse_args(argv)
    quiet_logs()

    from core.resources import Models, Resources
    from ingest.sync import ingest_paths

    rep = Report("ingest", args.json)
    with workdir(args.keep) as work:
        if args.corpus:
            corpus = Path(args.corpus).resolve()
            corpus_name = str(corpus)
        else:
            paragraphs, _ = load_squad(squad_path(args.squad), args.limit)
            corpus = write_corpus(paragraphs, work / "corpus")
            corpus_name = f"squad2 subset ({len(paragraphs)} paragraphs as .txt)"

        overrides: dict[str, Any] = {"embedding_backend": args.backend}
        if args.batch_size:
            overrides["embedding_batch_size"] = args.batch_size
        base = make_settings(work / "warm", **overrides)
        t = time.perf_counter()
        models = Models(base)  # one embedder for every store of the run (the one _TimedEmbed wraps)
        emb = models.embedder  # loaded here, on first use
        load_s = time.perf_counter() - t
        res = Resources.open(base, models)
        bs = base.embedding_batch_size
        raw_encode = _raw_encoder(emb, bs)

        # warm up: model (a full batch), tokenizers, Chroma/SQLite code paths (a tiny ingest)
        texts, n_files = chunk_texts(base, corpus, res)
        raw_encode(texts[:bs])
        warm = work / "warm-corpus"
        for f in sorted(corpus.rglob("*.txt"))[:3]:
            (warm / f.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(f, warm / f.parent.name / f.name)
        if warm.exists():
            ingest_paths(base, [warm], resources=res)
        rep.line(f"corpus: {corpus_name}: {n_files} files, {len(texts)} chunks; batch size {bs}; "
                 f"backend {args.backend}; model load {load_s:.1f}s")  # fmt: skip

        rounds: list[dict[str, Any]] = []
        last_settings, last_res = base, res
        for r in range(args.rounds):
            s = make_settings(work / f"store-{r}", **overrides)
            order = ["raw", "ingest"] if r % 2 == 0 else ["ingest", "raw"]
            row: dict[str, Any] = {"round": r + 1, "order": "+".join(order)}
            for what in order:
                if what == "raw":
                    t = time.perf_counter()
                    raw_encode(texts)
                    row["raw_s"] = round(time.perf_counter() - t, 3)
                else:
                    cold()
                    rss0 = rss_mb()
                    reset_peak_rss()
                    with _TimedEmbed(emb) as timer:
                        t = time.perf_counter()
                        round_res = Resources.open(s, models)  # a fresh store's index, shared models
                        report = ingest_paths(s, [corpus], resources=round_res)
                        row["ingest_s"] = round(time.perf_counter() - t, 3)
                    row["ingest_embed_s"] = round(timer.seconds, 3)
                    row["ingest_embed_calls"] = timer.calls
                    row["rss_before_mb"] = round(rss0, 1)
                    row["peak_rss_mb"] = round(peak_rss_mb(), 1)
                    row["embedded"] = report.embedded
                    if report.errors:
                        row["errors"] = report.errors[:3]
            row["ratio"] = ratio(row["raw_s"], row["ingest_s"])  # = ingest chunks/s ÷ raw chunks/s
            rounds.append(row)
            rep.line(
                f"round {r + 1} ({row['order']}): ingest {row['ingest_s']:.2f}s "
                f"({row['embedded'] / row['ingest_s']:.1f} chunks/s; {row['ingest_embed_s']:.2f}s in "
                f"the encoder, {row['ingest_embed_calls']} calls), raw encoder {row['raw_s']:.2f}s "
                f"({len(texts) / row['raw_s']:.1f} chunks/s) → ratio {row['ratio']:.3f}; "
                f"peak RSS {row['peak_rss_mb']:.0f} MiB (before {row['rss_before_mb']:.0f})"
            )
            last_settings, last_res = s, round_res
            if row["embedded"] != len(texts):
                rep.line(f"  note: ingest embedded {row['embedded']} chunks, raw encoded {len(texts)}")

        # re-ingest the unchanged corpus into the last store (same process, warm)
        t = time.perf_counter()
        again = ingest_paths(last_settings, [corpus], resources=last_res)
        re_s = time.perf_counter() - t
        ingest_total = sum(r["ingest_s"] for r in rounds)
        first_s = ingest_total / len(rounds)
        raw_total = sum(r["raw_s"] for r in rounds)
        rep.line(f"re-ingest unchanged: {re_s * 1000:.0f} ms = {re_s / first_s:.2%} of a first ingest "
                 f"(files unchanged {again.files_unchanged}/{again.files}, embedded {again.embedded})")  # fmt: skip

        profile_path = None
        if args.profile:
            profile_path = _profile(args.profile, work, overrides, corpus, models)
            rep.line(f"profile of one more ingest: {profile_path}")

        ratio_all = ratio(raw_total, ingest_total)
        share = ratio(sum(r["ingest_embed_s"] for r in rounds), ingest_total)
        rep.line(f"ingest/raw throughput ratio (all rounds): {ratio_all:.3f}  (target ≥ 0.95, issue 21)")
        rep.line(f"encoder share of the ingest's own time: {share:.3f} (the same ratio measured inside "
                 "each ingest, immune to load drift between the ingest and the raw run)")  # fmt: skip
        rep.data.update(
            {
                "corpus": corpus_name,
                "files": n_files,
                "chunks": len(texts),
                "batch_size": bs,
                "backend": args.backend,
                "model_load_s": round(load_s, 2),
                "rounds": rounds,
                "ingest_chunks_per_s": round(len(texts) * len(rounds) / ingest_total, 2),
                "raw_chunks_per_s": round(len(texts) * len(rounds) / raw_total, 2),
                "ingest_vs_raw_ratio": ratio_all,
                "ingest_vs_raw_ratio_per_round": [r["ratio"] for r in rounds],
                "encoder_share_of_ingest": share,
                "ingest_overhead_outside_encoder_s": round(
                    sum(r["ingest_s"] - r["ingest_embed_s"] for r in rounds) / len(rounds), 3
                ),
                "reingest_s": round(re_s, 4),
                "reingest_fraction": round(re_s / first_s, 5),
                "reingest_files_unchanged": again.files_unchanged,
                "reingest_embedded": again.embedded,
                "peak_rss_mb": max(r["peak_rss_mb"] for r in rounds),
                "rss_before_ingest_mb": min(r["rss_before_mb"] for r in rounds),
                "profile": profile_path,
                "targets": {"ingest_vs_raw_ratio": ">= 0.95", "reingest_fraction": "<= 0.05"},
            }
        )
        rep.finish()
    return 0


def _raw_encoder(embedder: Any, batch_size: int) -> Any:
    """The encoder alone on a list of texts: `model.encode` with the ingest's batch size (torch),
    the embedder's own `embed` otherwise (ONNX: the session call and nothing more)."""
    model = getattr(embedder, "_model", None)
    if model is not None and hasattr(model, "encode"):

        def encode(texts: list[str]) -> Any:
            return model.encode(
                texts, batch_size=batch_size, normalize_embeddings=True,
                convert_to_numpy=True, show_progress_bar=False,
            )  # fmt: skip

        return encode
    return embedder.embed  # the ONNX backend: embed is the session call alone


def _profile(out: str, work: Path, overrides: dict[str, Any], corpus: Path, models: Any) -> str:
    from pyinstrument import Profiler

    from core.resources import Resources
    from ingest.sync import ingest_paths

    s = make_settings(work / "store-profile", **overrides)
    prof = Profiler(interval=0.005)
    prof.start()
    ingest_paths(s, [corpus], resources=Resources.open(s, models))
    prof.stop()
    Path(out).write_text(prof.output_text(unicode=False, color=False, show_all=False))
    return out


if __name__ == "__main__":
    as_module(__spec__, "bench.ingest")
    sys.exit(main())
