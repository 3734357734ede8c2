"""The eval's options, the run over all datasets, and the report it writes."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apps.eval import datasets as dsets
from apps.eval import report as rep
from apps.eval import sweep as sw
from apps.eval.curve import evidence_curve, plot_curve
from apps.eval.metrics import summarize
from apps.eval.runner import DatasetRun, SweepRow, dataset_settings, run_dataset
from core.config import PROJECT_ROOT, RETRIEVAL_MODES, Settings, load_settings
from core.resources import Models, Resources

log = logging.getLogger(__name__)

DEFAULT_TAUS = sw.frange(0.0, 0.7, 0.02)
DEFAULT_MIN_CTX = (0, 40, 80, 120, 160)
DEFAULT_AMS = sw.frange(0.2, 0.5, 0.05)
DEFAULT_OVERLAPS = (0.2, 0.34, 0.5, 0.67, 1.0)


@dataclass
class EvalConfig:
    """What to evaluate and how (the CLI's options)."""

    squad: list[Path] = field(default_factory=list)
    stici: list[Path] = field(default_factory=list)
    split: str = "train_validate"
    jsonl: list[Path] = field(default_factory=list)
    corpus: Path = PROJECT_ROOT / "data" / "corpus"
    offtopic: Path | None = PROJECT_ROOT / "data" / "offtopic.txt"
    out: Path = Path("eval_out")
    limit: int | None = None
    seed: int = 0
    k: int | None = None
    budget: int | None = None
    modes: list[str] = field(default_factory=list)  # empty → the settings' mode
    taus: list[float] = field(default_factory=lambda: list(DEFAULT_TAUS))
    min_ctxs: list[int] = field(default_factory=lambda: list(DEFAULT_MIN_CTX))
    amss: list[float] = field(default_factory=lambda: list(DEFAULT_AMS))
    overlaps: list[float] = field(default_factory=lambda: list(DEFAULT_OVERLAPS))
    sweep: bool = True
    objective: str = "guarded"
    max_acc_loss: float = sw.MAX_ACC_LOSS
    progress: bool = True
    command: str = "python -m apps.eval"
    curve: list[int] = field(default_factory=list)  # budgets of the evidence-kept curve (none: no curve)


def _grid(text: str, cast: type) -> list[Any]:
    """'0,0.1,0.2' or 'start:stop:step'."""
    text = text.strip()
    try:
        if ":" in text:
            a, b, c = (float(x) for x in text.split(":"))
            return [cast(v) for v in sw.frange(a, b, c)]
        return [cast(x) for x in text.split(",") if x.strip()]
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"bad grid {text!r}: use a,b,c or start:stop:step") from e


def build_parser() -> argparse.ArgumentParser:
    """The CLI's options."""
    p = argparse.ArgumentParser(
        prog="python -m apps.eval",
        description="Baseline vs engineered evaluation and refusal-threshold calibration.",
    )
    p.add_argument("--squad", action="append", type=Path, default=[], metavar="FILE", help="SQuAD v2 JSON")
    p.add_argument("--stici", action="append", type=Path, default=[], metavar="DIR", help="STICI data folder")
    p.add_argument("--split", default="train_validate", help="STICI split (train_validate | test)")
    p.add_argument("--jsonl", action="append", type=Path, default=[], metavar="FILE",
                   help='{"q", "gold": [...] | "OOS", "doc"} per line')  # fmt: skip
    p.add_argument("--corpus", type=Path, default=PROJECT_ROOT / "data" / "corpus",
                   help="folder the --jsonl docs are relative to (default data/corpus)")  # fmt: skip
    p.add_argument("--offtopic", default=str(PROJECT_ROOT / "data" / "offtopic.txt"),
                   help="off-topic questions added to every dataset as OOS ('' = none)")  # fmt: skip
    p.add_argument("--out", type=Path, default=Path("eval_out"), help="output folder (default eval_out)")
    p.add_argument("--limit", type=int, help="at most N questions per dataset (off-topic ones added)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed for --limit")
    p.add_argument("--k", type=int, help="top-k (default: the settings')")
    p.add_argument("--budget", type=int, help="knowledge budget in tokens (default: the settings')")
    p.add_argument(
        "--retrieval", default="", help="comma list of dense,lexical,hybrid (default: the settings' mode)"
    )
    p.add_argument("--tau-grid", type=lambda t: _grid(t, float), default=None, help="default 0:0.7:0.02")
    p.add_argument("--ctx-grid", type=lambda t: _grid(t, int), default=None, help="default 0,40,80,120,160")
    p.add_argument("--overlap-grid", type=lambda t: _grid(t, float), default=None,
                   help="refusal word-overlap minimum grid, default 0.2,0.34,0.5,0.67,1.0")  # fmt: skip
    p.add_argument("--ams-grid", type=lambda t: _grid(t, float), default=None,
                   help="answerer min-similarity grid, default 0.2:0.5:0.05 ('' = the setting only)")  # fmt: skip
    p.add_argument("--no-sweep", action="store_true", help="skip the threshold calibration")
    p.add_argument("--objective", choices=sorted(sw.OBJECTIVES), default="guarded",
                   help="what the recommended thresholds maximise (see apps/eval/sweep.py)")  # fmt: skip
    p.add_argument("--max-acc-loss", type=float, default=sw.MAX_ACC_LOSS,
                   help="guarded objective: accuracy the refusal rule may cost (default 0.005)")  # fmt: skip
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--resweep", nargs="+", type=Path, metavar="DIR",
                   help="calibrate again from earlier --out folders (pooled), asking nothing")  # fmt: skip
    p.add_argument("--curve", type=lambda t: _grid(t, int), default=None, metavar="B1,B2,…",
                   help="also measure gold-in-context and accuracy at these budgets for blind top-k, "
                   "whole chunks and unit packing (e.g. 300,700,1500)")  # fmt: skip
    p.add_argument("--threads", type=int, help="torch CPU threads for embedding (default: torch's own)")
    return p


def config_from_args(args: argparse.Namespace, argv: list[str]) -> EvalConfig:
    """EvalConfig from parsed CLI arguments."""
    modes = [m.strip() for m in args.retrieval.split(",") if m.strip()]
    bad = [m for m in modes if m not in RETRIEVAL_MODES]
    if bad:
        from core.errors import SettingsError

        raise SettingsError(f"unknown retrieval mode {bad[0]!r}: choose from {', '.join(RETRIEVAL_MODES)}")
    cfg = EvalConfig(
        squad=list(args.squad),
        stici=list(args.stici),
        split=args.split,
        jsonl=list(args.jsonl),
        corpus=args.corpus,
        offtopic=Path(args.offtopic) if args.offtopic else None,
        out=args.out,
        limit=args.limit,
        seed=args.seed,
        k=args.k,
        budget=args.budget,
        modes=modes,
        sweep=not args.no_sweep,
        objective=args.objective,
        max_acc_loss=args.max_acc_loss,
        progress=not args.no_progress,
        command=" ".join(["python -m apps.eval", *(shlex.quote(a) for a in argv)]),
    )
    if args.tau_grid is not None:
        cfg.taus = args.tau_grid
    if args.ctx_grid is not None:
        cfg.min_ctxs = args.ctx_grid
    if args.ams_grid is not None:
        cfg.amss = args.ams_grid
    if args.overlap_grid is not None:
        cfg.overlaps = args.overlap_grid
    if args.curve:
        cfg.curve = list(args.curve)
    if not (cfg.squad or cfg.stici or cfg.jsonl or args.resweep):
        cfg.jsonl = [PROJECT_ROOT / "data" / "eval.jsonl"]  # the project's own sample set
    return cfg


def load_datasets(cfg: EvalConfig) -> list[dsets.Dataset]:
    """Every input as a Dataset (documents written under OUT/datasets), sampled, plus off-topic."""
    work = cfg.out / "datasets"
    out: list[dsets.Dataset] = []
    for f in cfg.squad:
        out.append(dsets.load_squad(f, work))
    for d in cfg.stici:
        out.append(dsets.load_stici(d, work, cfg.split))
    for f in cfg.jsonl:
        out.append(dsets.load_jsonl(f, cfg.corpus))
    offtopic = dsets.load_offtopic(cfg.offtopic) if cfg.offtopic else []
    for ds in dsets.unique_names(out):
        ds.questions = dsets.sample(ds.questions, cfg.limit, cfg.seed, ds.name) + offtopic
    return out


def _loadavg() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def evaluate(cfg: EvalConfig, base: Settings) -> dict[str, Any]:
    """Run everything, write report.json / report.md / the plot / records.jsonl; return the report."""
    t0 = time.perf_counter()
    cfg.out.mkdir(parents=True, exist_ok=True)
    modes = cfg.modes or [base.retrieval_mode]
    primary = base.retrieval_mode if base.retrieval_mode in modes else modes[0]
    data = load_datasets(cfg)
    total = sum(len(ds.questions) for ds in data) * len(modes)

    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc="eval", unit="q", file=sys.stderr, dynamic_ncols=True)
    runs: list[DatasetRun] = []
    curve_rows: list[dict[str, Any]] = []
    ingest_s = 0.0
    models = Models(base)  # one embedder for every dataset's store
    try:
        for ds in data:
            s = dataset_settings(base, cfg.out, ds.name, top_k=cfg.k, knowledge_budget=cfg.budget)
            if bar is not None:
                bar.set_postfix_str(f"{ds.name}: ingest")
            run = run_dataset(
                ds, s, modes,
                sweep_modes=[primary] if cfg.sweep else [],
                ams_grid=cfg.amss,
                tick=(lambda: bar.update(1)) if bar is not None else None,
                on_ingested=(lambda name=ds.name: bar.set_postfix_str(name)) if bar is not None else None,
                models=models,
            )  # fmt: skip
            ingest_s += run.ingest_seconds
            log.info("%s done in %.1f s", ds.name, run.seconds)
            runs.append(run)
            if cfg.curve:
                curve_rows += evidence_curve(ds, s, Resources.open(s, models), cfg.curve)
    finally:
        if bar is not None:
            bar.close()
    ask_s = sum(r.seconds for r in runs) - ingest_s
    report = build_report(cfg, base, modes, primary, runs)
    report["timing"] = {
        "ingest_seconds": round(ingest_s, 1),
        "ask_seconds": round(ask_s, 1),
        "asks": total * 2,
        "loadavg": _loadavg(),
        "cpus": os.cpu_count(),
    }
    rows = [r for run in runs for r in run.sweep]
    plots = _calibrate(cfg, report, rows, primary, modes)
    if curve_rows:
        report["curve"] = curve_rows
        plot_curve(curve_rows, cfg.out / "curve.png")
    report["seconds"] = round(time.perf_counter() - t0, 1)
    rep.write_json(cfg.out / "report.json", report)
    rep.write_markdown(cfg.out / "report.md", report, plots)
    _write_records(cfg.out / "records.jsonl", runs)
    write_sweep_rows(cfg.out / "sweep_rows.jsonl", rows)
    return report


def _settings_summary(s: Settings) -> dict[str, Any]:
    """The settings a trace records (less the collection: each dataset reports its own), plus
    what shaped the collections."""
    snap = {k: v for k, v in s.snapshot().items() if k != "collection"}
    return {
        **snap,
        "chunk_size": s.chunk_size,
        "chunk_overlap": s.chunk_overlap,
        "embedding_model": s.embedding_model or "bundled all-MiniLM-L6-v2",
    }


def build_report(
    cfg: EvalConfig,
    base: Settings,
    modes: list[str],
    primary: str,
    runs: list[DatasetRun],
) -> dict[str, Any]:
    """The report dict (without calibration and timing)."""
    eff = dataset_settings(base, cfg.out, "x", top_k=cfg.k, knowledge_budget=cfg.budget)
    datasets: dict[str, Any] = {}
    for run in runs:
        per_mode = {
            mode: {setup: summarize(run.records[(mode, setup)]) for setup in ("baseline", "engineered")}
            for mode in modes
        }
        datasets[run.name] = {
            **per_mode[primary],
            "modes": per_mode,
            "counts": run.counts,
            "collection": run.collection,
            "ingest": run.ingest,
            "seconds": round(run.seconds, 1),
            "answerer_mismatches": run.answerer_mismatches,
        }
    return {
        "command": cfg.command,
        "modes": modes,
        "primary_mode": primary,
        "settings": _settings_summary(eff),
        "limit": cfg.limit,
        "seed": cfg.seed,
        "datasets": datasets,
        "tau_sweep": [],
        "recommended": None,
    }


_POINT_KEYS = (
    "tau", "min_overlap", "min_context_tokens", "answer_min_similarity", "acc_mean", "refusal_mean", "balanced",
)  # fmt: skip


def _calibrate(
    cfg: EvalConfig, report: dict[str, Any], rows: list[SweepRow], primary: str, modes: list[str]
) -> list[str]:
    if not cfg.sweep:
        return []
    s = report["settings"]
    current = {
        "tau": s["refusal_tau"],
        "min_overlap": s.get("refusal_min_overlap", 1.0),
        "min_context_tokens": s["min_context_tokens"],
        "answer_min_similarity": s["answer_min_similarity"],
    }
    by_mode: dict[str, Any] = {}
    result: dict[str, Any] = {}
    for mode in modes:
        res = sw.sweep(
            [r for r in rows if r.mode == mode],
            cfg.taus,
            cfg.min_ctxs,
            current,
            cfg.objective,
            cfg.max_acc_loss,
            cfg.overlaps,
        )
        if mode == primary:
            result = res
        elif res["recommended"]:
            by_mode[mode] = {k: res["recommended"][k] for k in _POINT_KEYS}
    best = result.get("recommended")
    if not best:
        return []
    report["tau_sweep"] = result["points"]
    report["recommended"] = {
        **{k: best[k] for k in _POINT_KEYS},
        "objective": cfg.objective,
        "mode": primary,
        "current": {k: result["current"][k] for k in _POINT_KEYS},
    }
    report["calibration"] = {
        "mode": primary,
        "objective": result["objective"],
        "objective_name": cfg.objective,
        "grid": {
            "tau": f"{min(cfg.taus)}–{max(cfg.taus)} ({len(cfg.taus)} values)",
            "min_overlap": list(cfg.overlaps),
            "min_context_tokens": list(cfg.min_ctxs),
            "answer_min_similarity": sorted({a for r in rows if r.mode == primary for a in r.by_ams}),
        },
        "recommended": best,
        "best": result["best"],
        "current": result["current"],
        "best_accuracy": result["best_accuracy"],
        "by_mode": by_mode,
    }
    baseline = {
        name: {
            "acc_answerable": d["modes"][primary]["baseline"]["acc_answerable"],
            "refusal_negative": d["modes"][primary]["baseline"]["refusal_unanswerable_oos"],
        }
        for name, d in report["datasets"].items()
        if primary in d["modes"]
    }
    name = "calibration.png"
    title = f"accuracy vs refusal ({primary}); ★ = {cfg.objective} objective (report.md)"
    sw.plot(result, baseline, cfg.out / name, title)
    return [name]


def _write_records(path: Path, runs: list[DatasetRun]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for run in runs:
            for recs in run.records.values():
                for r in recs:
                    fh.write(json.dumps({"dataset": run.name, **r.as_dict()}, ensure_ascii=False) + "\n")


def write_sweep_rows(path: Path, rows: list[SweepRow]) -> None:
    """What the calibration needs of each engineered question, for --resweep."""
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            obj = {
                "dataset": r.dataset,
                "mode": r.mode,
                "kind": r.kind,
                "top_score": r.top_score,
                "context_tokens": r.context_tokens,
                "overlap": r.overlap,
                "unheld": r.unheld,
                "by_ams": [[a, ref, ok] for a, (ref, ok) in sorted(r.by_ams.items())],
            }
            fh.write(json.dumps(obj) + "\n")


def read_sweep_rows(path: Path) -> list[SweepRow]:
    """Rows written by write_sweep_rows."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        o = json.loads(line)
        by_ams = {float(a): (bool(ref), bool(ok)) for a, ref, ok in o["by_ams"]}
        rows.append(
            SweepRow(
                o["dataset"],
                o["mode"],
                o["kind"],
                o["top_score"],
                int(o["context_tokens"]),
                by_ams,
                float(o["overlap"]) if "overlap" in o else None,
                bool(o.get("unheld", False)),
            )
        )
    return rows


def resweep(cfg: EvalConfig, dirs: list[Path]) -> dict[str, Any]:
    """Calibrate again from earlier runs' saved rows (no question is asked again), pooling their
    datasets; writes report.json / report.md / calibration.png to cfg.out with every run's tables."""
    from core.errors import SettingsError

    t0 = time.perf_counter()
    reports, rows = [], []
    for d in dirs:
        try:
            reports.append(json.loads((d / "report.json").read_text(encoding="utf-8")))
            rows += read_sweep_rows(d / "sweep_rows.jsonl")
        except (OSError, ValueError, KeyError) as e:
            raise SettingsError(
                f"{d}: not an eval output folder with report.json and sweep_rows.jsonl ({e})"
            ) from e
    if any(r.overlap is None for r in rows):
        # written before the word-overlap rule: nothing to sweep it on, so it is left out (minimum
        # 1.0 with overlap 0 is exactly the old score-only rule) rather than guessed
        log.warning("some runs recorded no evidence overlap: the overlap minimum is not swept (1.0)")
        rows = [r if r.overlap is not None else dataclasses.replace(r, overlap=0.0) for r in rows]
        cfg.overlaps = [1.0]
    first = reports[0]
    modes = [m for m in first["modes"] if all(m in r["modes"] for r in reports)]
    if not modes:
        raise SettingsError("the runs share no retrieval mode")
    if any(r["settings"] != first["settings"] for r in reports[1:]):
        log.warning("the runs were made with different settings; the first run's are reported")
    primary = first["primary_mode"] if first["primary_mode"] in modes else modes[0]
    report = {
        **first,
        "command": cfg.command,
        "modes": modes,
        "primary_mode": primary,
        "datasets": {k: v for r in reports for k, v in r["datasets"].items()},
        "sources": [str(d) for d in dirs],
        "tau_sweep": [],
        "recommended": None,
        "calibration": None,
    }
    report["timing"] = {
        k: round(sum(r["timing"].get(k, 0) for r in reports), 1)
        for k in ("ingest_seconds", "ask_seconds", "asks")
    }
    report["timing"]["loadavg"] = "; ".join(str(r["timing"].get("loadavg")) for r in reports)
    cfg.out.mkdir(parents=True, exist_ok=True)
    plots = _calibrate(cfg, report, rows, primary, modes)
    report["seconds"] = round(sum(r["seconds"] for r in reports) + time.perf_counter() - t0, 1)
    rep.write_json(cfg.out / "report.json", report)
    rep.write_markdown(cfg.out / "report.md", report, plots)
    return report


def run(args: argparse.Namespace, argv: list[str], base: Settings | None = None) -> dict[str, Any]:
    """The CLI: settings from env/.env (CONTEXTLENS_*) unless given, the run, the tables on stdout."""
    cfg = config_from_args(args, argv)
    if args.resweep:
        report = resweep(cfg, list(args.resweep))
        _print(report, cfg)
        return report
    base = base or load_settings()
    if args.threads:
        # on a busy machine fewer torch threads than cores avoids oversubscription stalls
        import torch

        torch.set_num_threads(max(1, args.threads))
    report = evaluate(cfg, base)
    _print(report, cfg)
    return report


def _print(report: dict[str, Any], cfg: EvalConfig) -> None:
    for name in report["datasets"]:
        print(rep.table(report["datasets"], name))
        print()
    rec = report.get("recommended")
    if rec:
        print(
            f"Recommended ({rec['mode']}): τ={rec['tau']}  min_overlap={rec.get('min_overlap')}  "
            f"min_context_tokens={rec['min_context_tokens']}  "
            f"answer_min_similarity={rec['answer_min_similarity']}  [{rec['objective']}: accuracy "
            f"{rec['acc_mean']}, refusal {rec['refusal_mean']}; current settings: accuracy "
            f"{rec['current']['acc_mean']}, refusal {rec['current']['refusal_mean']}]"
        )
    print(f"Report: {cfg.out / 'report.md'}  ({report['seconds']:.0f} s)")
