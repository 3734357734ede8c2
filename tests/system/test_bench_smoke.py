"""Each benchmark runs end to end at minimal sizes and prints one valid JSON object last."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SQUAD = ROOT.parent / "shared" / "eval" / "squad2" / "dev-v2.0-even-articles.json"

CASES = {
    "ingest.py": ["--limit", "12", "--rounds", "2"],
    "query.py": [
        "--limit",
        "30",
        "--sizes",
        "60,200",
        "--questions",
        "3",
        "--server-size",
        "100",
        "--breakdown",
        "2",
    ],  # fmt: skip
    "budget.py": ["--limit", "30", "--questions", "4"],
    "recall.py": ["--limit", "12"],
}


def _run(name: str, args: list[str], tmp: Path, python: str = sys.executable) -> dict:
    proc = subprocess.run(
        [python, "-m", f"bench.{name.removesuffix('.py')}", *args, "--keep", str(tmp / "work"), "--json"],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    lines = proc.stdout.strip().splitlines()
    assert len(lines) >= 2, proc.stdout  # human lines first
    return json.loads(lines[-1])


@pytest.mark.slow
@pytest.mark.skipif(not SQUAD.exists(), reason="the shared SQuAD subset is not beside the repo")
@pytest.mark.parametrize("name", sorted(CASES))
def test_bench_runs_and_prints_json_last(name: str, tmp_path: Path) -> None:
    data = _run(name, CASES[name], tmp_path)
    assert data["bench"] == name.removesuffix(".py")
    assert data["machine"]["cores"]
    if name == "ingest.py":
        assert data["chunks"] > 0 and data["ingest_vs_raw_ratio"] > 0
        assert all(r["embedded"] == data["chunks"] for r in data["rounds"])
        assert data["reingest_embedded"] == 0 and data["reingest_files_unchanged"] == data["files"]
        assert 0 <= data["reingest_fraction"] < 1 and data["peak_rss_mb"] > 0
    elif name == "query.py":
        for size in ("60", "200"):
            for mode in ("dense", "hybrid"):
                r = data["embedded"][size][mode]
                assert r["retrieval_plus_budgeting_ms"]["n"] == 3
                assert r["query_embeddings_computed"] == r["questions"] == 3  # no cache hits
        assert data["builds"]["200"]["chunks"] == 200
        assert data["server"]["modes"]["hybrid"]["retrieval_plus_budgeting_ms"]["p50"] > 0
        assert data["p50_largest_over_smallest"]["dense"] > 0
        assert data["hybrid_over_dense_p50"]["200"] > 0
    elif name == "recall.py":
        rec = data["recall"]
        assert data["questions"] > 0 and set(rec) >= {"dense", "lexical", "hybrid"}
        for row in rec.values():  # recall never falls as k grows
            values = list(row.values())
            assert values == sorted(values) and 0 < values[-1] <= 1
        either = rec["either list's top-k"]
        assert all(either[k] >= max(rec["dense"][k], rec["lexical"][k]) for k in either)
    else:
        assert data["questions"] == 4 and data["ours_over_naive_p50"] > 0
        assert data["ours_fates"]["kept"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not SQUAD.exists(), reason="the shared SQuAD subset is not beside the repo")
@pytest.mark.skipif(
    not (importlib.util.find_spec("onnxruntime") and importlib.util.find_spec("onnx")),
    reason="the optional ONNX backend needs onnxruntime and onnx",
)
def test_embedders_bench_compares_backends(tmp_path: Path) -> None:
    args = ["--limit", "8", "--questions", "10", "--latency-questions", "3", "--rounds", "1",
            "--backends", "torch,onnx-fp32"]  # fmt: skip
    data = _run("embedders.py", args, tmp_path)
    assert data["bench"] == "embedders"
    assert data["cosine_to_torch"]["onnx-fp32"]["min"] > 0.999  # the same model, exported
    assert abs(data["recall_delta_vs_torch"]["onnx-fp32"]) <= 0.1
    assert data["chunks_per_s"]["onnx-fp32"] > 0


def _peers_python() -> str | None:
    """An interpreter with the peer's packages: `make bench-peers`'s .venv-peers, else this one."""
    venv = ROOT / ".venv-peers" / "bin" / "python"
    if venv.exists():
        return str(venv)
    return sys.executable if importlib.util.find_spec("llama_index") else None


@pytest.mark.slow
@pytest.mark.skipif(not SQUAD.exists(), reason="the shared SQuAD subset is not beside the repo")
@pytest.mark.skipif(_peers_python() is None, reason="the peer's packages are absent (make bench-peers)")
def test_peers_bench_runs_both_systems(tmp_path: Path) -> None:
    python = _peers_python()
    assert python is not None
    data = _run("peers.py", ["--limit", "8", "--questions", "6"], tmp_path, python)
    assert data["bench"] == "peers" and data["questions"] == 6 and data["chunks"] > 0
    for system in ("ours", "peer"):
        for mode in ("dense", "lexical", "hybrid"):
            assert 0 <= data["recall_at_5"][system][mode] <= 1
            assert data["latency_ms"][system][mode]["n"] == 6
    assert data["ratio_p50"]["hybrid"] > 0 and data["ratio_p50"]["dense"] > 0
