"""Evidence kept vs tokens: for each budget, how often the injected context holds the gold answer
and how often the answer is right, for blind top-k, the whole-chunk walk and unit packing.

Every answerable question is asked through the real pipeline (extractive answerer, the configured
refusal rule) once per setup; "in context" reads the knowledge block as built, before the refusal
rule decides whether it is sent, because what is measured here is what the budget keeps."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from apps.eval.datasets import Dataset
from apps.eval.metrics import is_correct
from apps.eval.runner import contains_gold
from core.config import Settings
from core.pipeline import Pipeline
from core.resources import Resources

SETUPS = ("blind", "chunks", "units")


def evidence_curve(
    ds: Dataset,
    settings: Settings,
    res: Resources,
    budgets: Sequence[int],
    tick: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """One row per (setup, budget): n, share with the gold answer in context, accuracy, mean
    context tokens (blind top-k has no budget: one row, budget None)."""
    answerable = [q for q in ds.questions if q.kind == "answerable" and q.gold]
    setups: list[tuple[str, int | None, Pipeline]] = [("blind", None, Pipeline(settings, res, backend=None))]
    for packing in ("chunks", "units"):
        for b in budgets:
            s = settings.updated(packing=packing, knowledge_budget=b)
            setups.append((packing, b, Pipeline(s, res, backend=None)))
    rows = []
    for name, budget, pipe in setups:
        held = right = tokens = 0
        for q in answerable:
            a = pipe.ask(q.q, baseline=name == "blind", record=False)
            context = a.context.text if a.context is not None else ""
            held += contains_gold(context, q)
            # a refusal is never right (in related mode its text is not the refusal sentence)
            refusal = pipe.settings.refusal_sentence
            right += not a.refused and is_correct(a.text, q.gold, q.match, q.q, refusal)
            tokens += int(a.trace["context_tokens"])
            if tick:
                tick()
        n = max(1, len(answerable))
        rows.append({
            "dataset": ds.name, "setup": name, "budget": budget, "n": len(answerable),
            "in_context": round(held / n, 4), "accuracy": round(right / n, 4), "mean_context_tokens": round(tokens / n, 1),
        })  # fmt: skip
    return rows


def curve_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The rows as a Markdown table."""
    out = [
        "| dataset | setup | budget | n | gold in context | accuracy | mean context tokens |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        budget = "—" if r["budget"] is None else str(r["budget"])
        out.append(
            f"| {r['dataset']} | {r['setup']} | {budget} | {r['n']} | {r['in_context']:.3f} | "
            f"{r['accuracy']:.3f} | {r['mean_context_tokens']:.0f} |"
        )
    return out


def plot_curve(rows: Sequence[dict[str, Any]], path: Any) -> None:
    """Gold in context vs mean context tokens, one line per setup and dataset."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for ds in dict.fromkeys(r["dataset"] for r in rows):
        for setup, marker in (("blind", "s"), ("chunks", "o"), ("units", "^")):
            pts = [r for r in rows if r["dataset"] == ds and r["setup"] == setup]
            if pts:
                ax.plot(
                    [r["mean_context_tokens"] for r in pts], [r["in_context"] for r in pts],
                    marker=marker, label=f"{ds[:18]} · {setup}",
                )  # fmt: skip
    ax.set_xlabel("mean context tokens")
    ax.set_ylabel("gold answer in the injected context")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
