"""Threshold calibration: sweep τ, the word-overlap minimum, min context tokens and the answerer's
threshold over the recorded engineered outcomes, and recommend the point that maximises the stated objective.

Per dataset, at each grid point: accuracy on answerable questions (a refusal is wrong) and the
refusal rate on unanswerable and out-of-scope questions together. Two objectives:

- "guarded" (the default): the highest mean refusal rate over the datasets among the points whose
  accuracy, on every dataset, is within MAX_ACC_LOSS of the best accuracy any grid point reaches
  there — refuse as much as possible while giving up (almost) no correct answers. Ties: higher
  mean accuracy.
- "balanced": the highest mean over the datasets of balanced accuracy = ½·(accuracy + refusal
  rate). When the refusal signals barely separate answerable from unanswerable questions (SQuAD
  2.0's unanswerable questions are written to resemble their paragraph), this prefers refusing
  nearly everything, so it is reported but not the default.

Each dataset weighs the same, whatever its size. Remaining ties go to the point found first in grid
order (smaller answerer threshold, then smaller min tokens, then smaller overlap minimum, then
smaller τ).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from apps.eval.runner import SweepRow

MAX_ACC_LOSS = 0.005
OBJECTIVES = {
    "guarded": (
        "the highest mean refusal rate on unanswerable + out-of-scope questions among the points whose "
        "accuracy on answerable questions is, on every dataset, within {loss:.1%} of the best accuracy "
        "of the grid (ties: higher accuracy)"
    ),
    "balanced": (
        "the highest mean over datasets of balanced accuracy = ½·(accuracy on answerable + refusal rate "
        "on unanswerable and out-of-scope questions)"
    ),
}


def describe(objective: str, max_acc_loss: float = MAX_ACC_LOSS) -> str:
    """The objective in words, as report.md states it."""
    return OBJECTIVES[objective].format(loss=max_acc_loss)


def frange(start: float, stop: float, step: float) -> list[float]:
    """start, start+step, … ≤ stop (rounded, so 0.3 stays 0.3)."""
    n = round((stop - start) / step)
    return [round(start + i * step, 4) for i in range(n + 1)]


@dataclass
class _Arrays:
    top: np.ndarray
    ctx: np.ndarray
    overlap: np.ndarray
    unheld: np.ndarray  # a name the question writes is held by no injected passage
    answerable: np.ndarray
    negative: np.ndarray  # unanswerable or oos
    oos: np.ndarray
    ans_refused: dict[float, np.ndarray]
    correct: dict[float, np.ndarray]


def _arrays(rows: Sequence[SweepRow]) -> _Arrays:
    grid = sorted(set.intersection(*(set(r.by_ams) for r in rows))) if rows else []
    return _Arrays(
        top=np.array([-1.0 if r.top_score is None else r.top_score for r in rows], dtype=float),
        ctx=np.array([r.context_tokens for r in rows], dtype=float),
        overlap=np.array([r.overlap for r in rows], dtype=float),
        unheld=np.array([r.unheld for r in rows], dtype=bool),
        answerable=np.array([r.kind == "answerable" for r in rows]),
        negative=np.array([r.kind != "answerable" for r in rows]),
        oos=np.array([r.kind == "oos" for r in rows]),
        ans_refused={a: np.array([r.by_ams[a][0] for r in rows]) for a in grid},
        correct={a: np.array([r.by_ams[a][1] for r in rows]) for a in grid},
    )


def point(
    arr: _Arrays, tau: float, min_ctx: int, ams: float, min_overlap: float = 1.0
) -> dict[str, float | None]:
    """Accuracy, refusal rates and balanced accuracy at one threshold setting."""
    # core.answer.refusal.decide: no evidence (no candidates or empty context), top < τ while the
    # overlap < its minimum or a name of the question is unheld, context < min
    weak = (arr.top < tau) & ((arr.overlap < min_overlap) | arr.unheld)
    rule = (arr.top < 0) | (arr.ctx <= 0) | weak | (arr.ctx < min_ctx)
    refused = rule | arr.ans_refused[ams]
    right = ~refused & arr.correct[ams]
    n_pos, n_neg = int(arr.answerable.sum()), int(arr.negative.sum())
    acc = float(right[arr.answerable].mean()) if n_pos else None
    ref = float(refused[arr.negative].mean()) if n_neg else None
    false_ref = float(refused[arr.answerable].mean()) if n_pos else None
    unans = arr.negative & ~arr.oos
    ref_unans = float(refused[unans].mean()) if unans.any() else None
    ref_oos = float(refused[arr.oos].mean()) if arr.oos.any() else None
    if acc is None and ref is None:
        bal = None
    else:
        bal = ((acc or 0.0) + (ref or 0.0)) / (2 if acc is not None and ref is not None else 1)
    return {
        "acc_answerable": acc,
        "refusal_negative": ref,
        "false_refusal": false_ref,
        "balanced": bal,
        "refusal_unanswerable": ref_unans,
        "refusal_oos": ref_oos,
    }


def sweep(
    rows: Sequence[SweepRow],
    taus: Sequence[float],
    min_ctxs: Sequence[int],
    current: dict[str, float],
    objective: str = "guarded",
    max_acc_loss: float = MAX_ACC_LOSS,
    overlaps: Sequence[float] = (1.0,),
) -> dict[str, Any]:
    """Every grid point's per-dataset metrics; the recommended point under `objective`, the best
    point under each objective, and the current settings' point."""
    by_ds: dict[str, _Arrays] = {}
    for name in dict.fromkeys(r.dataset for r in rows):
        by_ds[name] = _arrays([r for r in rows if r.dataset == name])
    if not by_ds:
        return {"points": [], "recommended": None, "current": None, "best": {}}
    amss = sorted(set.intersection(*(set(a.correct) for a in by_ds.values())))

    def evaluate(tau: float, m: int, ams: float, ov: float) -> dict[str, Any]:
        per = {name: point(arr, tau, m, ams, ov) for name, arr in by_ds.items()}

        def mean(key: str) -> float | None:
            vals = [p[key] for p in per.values() if p[key] is not None]
            return round(float(np.mean(vals)), 4) if vals else None

        return {
            "tau": tau,
            "min_overlap": ov,
            "min_context_tokens": m,
            "answer_min_similarity": ams,
            "balanced": mean("balanced"),
            "acc_mean": mean("acc_answerable"),
            "refusal_mean": mean("refusal_negative"),
            "datasets": {
                n: {k: (round(v, 4) if v is not None else None) for k, v in p.items()} for n, p in per.items()
            },
        }

    points = [evaluate(t, m, a, o) for a in amss for m in min_ctxs for o in overlaps for t in taus]
    best_acc = {
        n: max((p["datasets"][n]["acc_answerable"] or 0.0) for p in points) for n in by_ds
    }  # fmt: skip

    def guarded_ok(p: dict[str, Any]) -> bool:
        return all(
            p["datasets"][n]["acc_answerable"] is None
            or p["datasets"][n]["acc_answerable"] >= best_acc[n] - max_acc_loss - 1e-9
            for n in by_ds
        )

    def num(x: float | None) -> float:
        return -1.0 if x is None else x

    best = {
        "balanced": max(points, key=lambda p: num(p["balanced"])),
        "guarded": max(
            (p for p in points if guarded_ok(p)),
            key=lambda p: (num(p["refusal_mean"]), num(p["acc_mean"])),
            default=None,
        ),
    }
    cur_ams = min(amss, key=lambda a: abs(a - current["answer_min_similarity"]))
    cur = evaluate(
        current["tau"], int(current["min_context_tokens"]), cur_ams, float(current.get("min_overlap", 1.0))
    )
    chosen = best[objective]
    return {
        "points": points,
        "recommended": chosen,
        "best": best,
        "current": cur,
        "objective": describe(objective, max_acc_loss),
        "objective_name": objective,
        "max_acc_loss": max_acc_loss,
        "best_accuracy": best_acc,
    }


def plot(result: dict[str, Any], baseline: dict[str, dict[str, float | None]], path: Any, title: str) -> None:
    """Accuracy on answerable vs refusal on unanswerable+OOS: one panel per dataset, one line per
    min-context-tokens value as τ varies (at the recommended answerer threshold)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = result["points"]
    best, cur = result["recommended"], result["current"]
    if not points or best is None:
        return
    names = list(best["datasets"])
    fig, axes = plt.subplots(1, len(names), figsize=(5.2 * len(names), 4.6), squeeze=False)
    ams, ov = best["answer_min_similarity"], best.get("min_overlap", 1.0)
    for ax, name in zip(axes[0], names, strict=True):
        for m in sorted({p["min_context_tokens"] for p in points}):
            line = [p for p in points if p["answer_min_similarity"] == ams
                    and p["min_context_tokens"] == m and p.get("min_overlap", 1.0) == ov]  # fmt: skip
            line.sort(key=lambda p: p["tau"])
            xs = [p["datasets"][name]["refusal_negative"] or 0.0 for p in line]
            ys = [p["datasets"][name]["acc_answerable"] or 0.0 for p in line]
            ax.plot(xs, ys, marker=".", linewidth=1, markersize=3, label=f"min ctx {m}")
        # the current answerer threshold and min tokens, as τ varies (dashed)
        line = [p for p in points if p["answer_min_similarity"] == cur["answer_min_similarity"]
                and p["min_context_tokens"] == cur["min_context_tokens"]
                and p.get("min_overlap", 1.0) == cur.get("min_overlap", 1.0)]  # fmt: skip
        line.sort(key=lambda p: p["tau"])
        ax.plot([p["datasets"][name]["refusal_negative"] or 0.0 for p in line],
                [p["datasets"][name]["acc_answerable"] or 0.0 for p in line], "k--", linewidth=1,
                label="current min ctx & answerer threshold, τ varies")  # fmt: skip
        marks = [("recommended", best, "r*"), ("current", cur, "ks")]
        balanced = (result.get("best") or {}).get("balanced")
        if balanced is not None and balanced is not best:
            marks.append(("best balanced accuracy", balanced, "mD"))
        for label, p, style in marks:
            d = p["datasets"][name]
            ax.plot(
                [d["refusal_negative"] or 0.0],
                [d["acc_answerable"] or 0.0],
                style,
                markersize=10,
                label=f"{label} τ={p['tau']}, overlap={p.get('min_overlap')}, min={p['min_context_tokens']}, "
                f"ans={p['answer_min_similarity']}",
            )
        b = baseline.get(name)
        if b:
            ax.plot(
                [b.get("refusal_negative") or 0.0],
                [b.get("acc_answerable") or 0.0],
                "g^",
                markersize=9,
                label="baseline (never refuses)",
            )
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("refusal rate on unanswerable + OOS")
        ax.set_ylabel("accuracy on answerable")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, loc="best")
    import textwrap

    fig.suptitle("\n".join(textwrap.wrap(title, 60 * len(names))), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
