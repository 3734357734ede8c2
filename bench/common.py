"""Shared helpers for the benchmarks: the SQuAD corpus, settings in a tmp store, percentiles,
peak RSS, a Chroma server on loopback, and the human-lines-then-one-JSON-line output."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.config import Settings, settings_in

ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


SQUAD = ROOT.parent / "shared" / "eval" / "squad2" / "dev-v2.0-even-articles.json"


# -- data ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Paragraph:
    article: str
    index: int
    text: str


@dataclass(frozen=True)
class Question:
    text: str
    paragraph: int  # index into paragraphs()
    answerable: bool


def squad_path(given: str | None = None) -> Path:
    """The SQuAD 2.0 subset (the shared eval copy unless a path is given)."""
    path = Path(given) if given else SQUAD
    if not path.exists():
        raise SystemExit(f"SQuAD file not found: {path} (pass --squad PATH)")
    return path


def load_squad(path: Path, limit: int = 0) -> tuple[list[Paragraph], list[Question]]:
    """Paragraphs (one document each) and their questions, in file order (only the first limit
    paragraphs and their questions when limit > 0)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    paragraphs: list[Paragraph] = []
    questions: list[Question] = []
    for art in data["data"]:
        title = re.sub(r"\W+", "_", art["title"]).strip("_") or "article"
        for n, p in enumerate(art["paragraphs"]):
            pi = len(paragraphs)
            paragraphs.append(Paragraph(title, n, p["context"].strip()))
            for qa in p["qas"]:
                questions.append(Question(qa["question"].strip(), pi, not qa.get("is_impossible", False)))
    if limit:
        paragraphs = paragraphs[:limit]
        questions = [q for q in questions if q.paragraph < limit]
    return paragraphs, questions


def source_name(p: Paragraph) -> str:
    """The relative path the paragraph is written to (article folder = category)."""
    return f"{p.article}/{p.index:03d}.txt"


def write_corpus(paragraphs: Sequence[Paragraph], dest: Path) -> Path:
    """Write each paragraph as a .txt file under dest/<article>/; returns dest."""
    for p in paragraphs:
        f = dest / source_name(p)
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(p.text + "\n", encoding="utf-8")
    return dest


def distinct(questions: Sequence[Question]) -> list[Question]:
    """The questions whose text has not been seen earlier in the list (a cached query embedding
    never answers a repeat)."""
    seen: set[str] = set()
    return [q for q in questions if not (q.text in seen or seen.add(q.text))]  # type: ignore[func-returns-value]


# -- settings / store ---------------------------------------------------------------------------
def make_settings(store: Path, **overrides: Any) -> Settings:
    """Settings in a bench store, ignoring the developer's .env; traces off."""
    return settings_in(store, **{"store_path": store, "trace_enabled": False, **overrides})


@contextlib.contextmanager
def workdir(keep: str | None = None, prefix: str = "clbench-") -> Iterator[Path]:
    """A scratch directory (deleted afterwards unless --keep DIR was given)."""
    if keep:
        path = Path(keep)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


# -- measurement --------------------------------------------------------------------------------
def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile (p in [0, 100]); nan for no values."""
    if not values:
        return float("nan")
    xs = sorted(values)
    k = (len(xs) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summary(values: Sequence[float]) -> dict[str, float]:
    """p50/p90/mean/max of a list of milliseconds, rounded."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": round(percentile(values, 50), 3),
        "p90": round(percentile(values, 90), 3),
        "mean": round(sum(values) / len(values), 3),
        "max": round(max(values), 3),
    }


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None


def _status_mb(field: str) -> float | None:
    """A size field of /proc/self/status (e.g. "VmRSS") in MiB; None when it cannot be read."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def rss_mb() -> float:
    """Current resident set size in MiB (Linux /proc; 0 elsewhere)."""
    return _status_mb("VmRSS") or 0.0


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) so the next peak belongs to what follows."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_rss_mb() -> float:
    """Peak resident set size in MiB since the last reset (VmHWM), else the process maximum."""
    peak = _status_mb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> dict[str, Any]:
    """What the numbers were measured on (cores, load, thread settings, BLAS kernel)."""
    info: dict[str, Any] = {
        "python": sys.version.split()[0],
        "cores": os.cpu_count(),
        "loadavg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_info

        info["blas"] = [
            {k: p.get(k) for k in ("internal_api", "architecture", "num_threads")}
            for p in threadpool_info()
            if p.get("user_api") == "blas"
        ][:2]
    except ImportError:
        pass
    return info


# -- output -------------------------------------------------------------------------------------
class Report:
    """Human lines as the bench goes, and with --json one JSON object as the very last line."""

    def __init__(self, name: str, as_json: bool) -> None:
        self.as_json = as_json
        self.data: dict[str, Any] = {"bench": name, "machine": machine()}

    def line(self, text: str) -> None:
        print(text, flush=True)

    def finish(self) -> None:
        self.data["machine"]["loadavg_1m_end"] = round(os.getloadavg()[0], 2)
        if self.as_json:
            print(json.dumps(self.data, sort_keys=False), flush=True)


def as_module(spec: object, module: str) -> None:
    """Run `python bench/x.py` again as `python -m bench.x` (spec: the script's __spec__, None
    when it was started by path): a script's own folder comes first on sys.path, and there
    bench/ingest.py would hide the `ingest` package."""
    if spec is None:
        os.execv(sys.executable, [sys.executable, "-m", module, *sys.argv[1:]])


def quiet_logs() -> None:
    """Library chatter (Chroma telemetry, HF) off: the bench prints its own lines."""
    import logging

    logging.basicConfig(level=logging.WARNING)
    for name in ("chromadb", "httpx", "sentence_transformers", "transformers"):
        logging.getLogger(name).setLevel(logging.ERROR)


# -- Chroma server ------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def chroma_binary() -> str:
    exe = Path(sys.executable).parent / "chroma"
    if exe.exists():
        return str(exe)
    found = shutil.which("chroma")
    if not found:
        raise SystemExit("the `chroma` CLI (ships with chromadb) was not found")
    return found


@contextlib.contextmanager
def chroma_server(path: Path, timeout: float = 60.0) -> Iterator[tuple[str, int]]:
    """`chroma run` on a free loopback port for the duration of the block (stopped by its pid)."""
    port = free_port()
    log = open(path.parent / f"chroma-{port}.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [chroma_binary(), "run", "--path", str(path), "--port", str(port), "--host", "127.0.0.1"],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("chroma run did not answer in time") from None
                time.sleep(0.25)
        yield "127.0.0.1", port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)
        log.close()
