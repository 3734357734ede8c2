"""A real `chroma run` subprocess on a loopback port, for the server-mode and fault tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.fake_openai import closed_port

CHROMA = Path(sys.executable).parent / "chroma"


@dataclass
class ChromaServer:
    path: Path
    port: int
    log: Path
    proc: subprocess.Popen | None = None

    def start(self, timeout: float = 90.0) -> ChromaServer:
        """Start `chroma run` and wait until its heartbeat answers (or fail with its log)."""
        log = self.log.open("ab")
        self.proc = subprocess.Popen(
            [str(CHROMA), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C on the test run does not hit the server first
        )
        log.close()
        deadline = time.monotonic() + timeout
        url = f"http://127.0.0.1:{self.port}/api/v2/heartbeat"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"chroma run exited with {self.proc.returncode}:\n{self.log.read_text()[-2000:]}")
            try:
                if httpx.get(url, timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.kill()
        pytest.fail(f"chroma run did not answer within {timeout:.0f}s:\n{self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        """A clean shutdown (SIGTERM, then SIGKILL if it hangs)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)

    def kill(self) -> None:
        """SIGKILL, like a crash or an OOM kill."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None


def in_folder(folder: Path) -> ChromaServer:
    """A server (not started) on a free loopback port, with its data and log in folder."""
    return ChromaServer(folder / "chroma-data", closed_port(), folder / "chroma.log")


@contextmanager
def running(folder: Path) -> Iterator[ChromaServer]:
    """A started server in folder, shut down on exit."""
    server = in_folder(folder).start()
    try:
        yield server
    finally:
        server.stop()
