"""Parsing untrusted files away from the app: each file's bytes are parsed (text extraction and
structure, ingest/loaders.py) in a worker process with a wall-time limit and an address-space cap.

A worker that overruns its time is killed and replaced, and its file gets one clear error; the
other files of the run are parsed by the other workers meanwhile. Workers are not forked from the
app (it holds torch's threads): they are forked from a fork server, a clean process started once per
app process with the parsers imported, so a pool starts, parses a small file and closes in ~0.03 s
instead of ~0.2 s (spawned where there is no fork server); started on first use and reused for the whole run. The
chunker and the embedder stay in the parent: a parsed document's text is capped in the worker
(max_text_chars) before it is sent back."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from core.config import Settings
from core.errors import IngestError
from ingest.loaders import Document, decode_text, load_bytes


@dataclass(frozen=True)
class ParseLimits:
    timeout_s: float = 30.0
    memory_mb: int = 2048  # address space of a worker (RLIMIT_AS); 0 = no cap
    max_pdf_pages: int = 2000
    max_text_chars: int = 2_000_000

    @classmethod
    def from_settings(cls, s: Settings) -> ParseLimits:
        return cls(s.parse_timeout_s, s.parse_memory_mb, s.max_pdf_pages, s.max_text_chars)


def parse_checked(name: str, data: bytes, limits: ParseLimits) -> Document:
    """load_bytes with the extracted-text cap (what a worker runs; raises IngestError). A plain
    text or Markdown file far over the cap is refused before it is parsed (its text is about its size)."""
    if Path(name).suffix.lower() in _PLAIN and len(data) > limits.max_text_chars:
        chars = len(decode_text(data))
        if chars > 1.5 * limits.max_text_chars:  # its markup cannot bring it under the cap
            _too_long(chars, limits)
    doc = load_bytes(name, data, limits.max_pdf_pages)
    chars = sum(len(s.text) for s in doc.sections)
    if chars > limits.max_text_chars:
        _too_long(chars, limits)
    return doc


_PLAIN = (".txt", ".md", ".markdown")


def _too_long(chars: int, limits: ParseLimits) -> None:
    raise IngestError(
        f"the file's text is {chars / 1e6:.1f} M characters, over the {limits.max_text_chars / 1e6:g} M "
        "limit (CONTEXTLENS_MAX_TEXT_CHARS)"
    )


def _serve(conn: Connection, limits: ParseLimits) -> None:
    """A worker's loop: (name, bytes) in, ("ok", Document) or ("error", message) out."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(
        devnull, 2
    )  # a parser's own noise (or a crash's) is not the app's log; errors come back as messages
    if limits.memory_mb:
        import resource

        cap = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    conn.send(("ready", None))
    while True:
        job = conn.recv()
        if job is None:
            return
        name, data = job
        reply: tuple[str, Any]
        try:
            reply = ("ok", parse_checked(name, data, limits))
        except IngestError as e:
            reply = ("error", str(e))
        except MemoryError:
            reply = (
                "error",
                f"parsing it needs more than {limits.memory_mb} MB (CONTEXTLENS_PARSE_MEMORY_MB)",
            )
        except RecursionError:
            reply = ("error", "nested too deeply to parse")
        except Exception as e:  # a parser bug on hostile input: one line, never the traceback
            reply = ("error", f"the parser failed on this file ({type(e).__name__})")
        del data
        conn.send(reply)


def _context() -> Any:
    """The fork server's context, preloading the parsers (spawn where the platform has none)."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])  # read when the server starts: once per process
    return ctx


@dataclass
class _Worker:
    process: Any
    conn: Connection
    job: int | None = None  # index of the job it is parsing
    deadline: float = 0.0
    ready: bool = False  # it said it started


class ParsePool:
    """Parses files in up to `workers` worker processes, each file within limits.timeout_s."""

    def __init__(self, limits: ParseLimits, workers: int = 2) -> None:
        self.limits = limits
        self.size = max(1, workers)
        self.workers: list[_Worker] = []
        self.ctx = _context()

    def __enter__(self) -> ParsePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=_serve, args=(child, self.limits), daemon=True, name="contextlens-parse")
        p.start()
        child.close()
        w = _Worker(p, parent)
        self.workers.append(w)
        return w

    def _kill(self, w: _Worker) -> None:
        w.process.kill()
        w.process.join(5)
        w.conn.close()
        self.workers.remove(w)

    def parse(self, jobs: Sequence[tuple[str, bytes]]) -> list[Document | IngestError]:
        """Each job's Document, or the IngestError that says why it could not be parsed, in order."""
        out: list[Document | IngestError | None] = [None] * len(jobs)
        todo = list(range(len(jobs)))[::-1]
        while todo or any(w.job is not None for w in self.workers):
            self._dispatch(jobs, todo, out)
            busy = [w for w in self.workers if w.job is not None]
            if not busy:
                continue
            now = time.monotonic()
            ready = wait([w.conn for w in busy], timeout=max(0.0, min(w.deadline for w in busy) - now))
            for w in busy:
                assert w.job is not None
                if w.conn in ready:
                    self._collect(w, out)
                elif time.monotonic() >= w.deadline:
                    out[w.job] = IngestError(
                        f"could not be parsed within {self.limits.timeout_s:g} s (CONTEXTLENS_PARSE_TIMEOUT_S)"
                    )
                    self._kill(w)
        return [r if r is not None else IngestError("was not parsed") for r in out]

    def _dispatch(self, jobs: Sequence[tuple[str, bytes]], todo: list[int], out: list[Any]) -> None:
        """Give each idle worker (starting workers up to the pool size) the next job."""
        while todo:
            idle = next((w for w in self.workers if w.job is None), None)
            if idle is None and len(self.workers) < self.size:
                idle = self._start()
            if idle is None:
                return
            i = todo.pop()
            try:
                idle.conn.send(jobs[i])
            except (OSError, ValueError) as e:
                out[i] = IngestError(f"could not be handed to a parser ({e})")
                self._kill(idle)
                continue
            idle.job, idle.deadline = i, time.monotonic() + self.limits.timeout_s

    def _collect(self, w: _Worker, out: list[Any]) -> None:
        assert w.job is not None
        try:
            kind, value = w.conn.recv()
            if kind == "ready":  # the worker started; its job's reply is still to come
                w.ready = True
                return
            out[w.job] = value if kind == "ok" else IngestError(value)
            w.job = None
        except (EOFError, OSError):  # the worker died: killed by the kernel, or its cap hit in C code
            w.process.join(2)
            if not w.ready:
                out[w.job] = IngestError(
                    "a parse worker could not start (a script that ingests needs an "
                    "`if __name__ == '__main__':` guard: workers import it)"
                )
                self._kill(w)
                return
            cap = (
                f"its {self.limits.memory_mb} MB memory cap (CONTEXTLENS_PARSE_MEMORY_MB)"
                if self.limits.memory_mb
                else "memory"
            )
            out[w.job] = IngestError(f"the parser stopped on this file (probably over {cap})")
            self._kill(w)

    def close(self) -> None:
        for w in self.workers:  # every worker told first, so they stop together
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        for w in list(self.workers):
            w.process.join(2)
            if w.process.is_alive():
                w.process.kill()
                w.process.join(2)
            w.conn.close()
        self.workers.clear()
