"""A real local HTTP server speaking the OpenAI chat-completions protocol, with scriptable faults.

    with FakeOpenAI() as server:               # 127.0.0.1, a free port, a background thread
        server.reply = "Paris is the capital."  # or a function of the request's messages
        server.behaviour = "429"                # ok | 401 | 429 | 500 | timeout | malformed_json | html |
                                                # empty_choices | bad_content | malformed_sse |
                                                # broken_stream | truncated_stream | stall_stream
        server.script = ["500", "ok"]           # consumed one per request before `behaviour` applies
        server.requests[-1].messages            # what the client sent (headers too)

Streams use HTTP/1.1 chunked transfer like the real API, so "broken_stream" (socket closed mid-body)
is a genuine protocol break, not a clean end. "refused" is simulated with `closed_port()`.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest

Reply = str | Callable[[list[dict[str, Any]]], str]

BEHAVIOURS = frozenset(
    {
        "ok",
        "401",
        "429",
        "500",
        "timeout",
        "malformed_json",
        "html",
        "empty_choices",
        "bad_content",
        "malformed_sse",
        "broken_stream",
        "truncated_stream",
        "stall_stream",
    }
)
FAULTS = [*sorted(BEHAVIOURS - {"ok"}), "refused"]  # every fault the fake server can play (+ no server)
STREAM_ONLY = {"malformed_sse", "broken_stream", "truncated_stream", "stall_stream"}
# (mode, fault) pairs a client can meet: stream-only faults only when streaming
FAULT_CASES = [
    (mode, fault)
    for mode in ("complete", "stream")
    for fault in FAULTS
    if mode == "stream" or fault not in STREAM_ONLY
]


@dataclass
class RecordedRequest:
    """One request as the server received it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list((self.body or {}).get("messages", []))


@dataclass
class FakeOpenAI:
    """The server; every attribute can be changed between requests."""

    behaviour: str = "ok"
    reply: Reply = "Hello from the fake LLM."
    model: str = "fake-model"
    delay: float = 2.0  # how long "timeout" / "stall_stream" hang (longer than the client timeout)
    retry_after: str = "0"  # Retry-After header on 429 and 500
    # retry-after-ms on 429 and 500: openai 3.54 ignores "Retry-After: 0" (it honours only delays > 0)
    # and would back off 0.5 s, 1 s, ...; 1 ms keeps retry tests fast. None = send only Retry-After.
    retry_after_ms: str | None = "1"
    require_key: str | None = None  # answer 401 unless "Authorization: Bearer <this>"
    leak_headers: bool = False  # hostile server: echo the request's headers in error/garbage bodies
    script: list[str] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------------------

    def start(self) -> Self:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes handlers sleeping in "timeout" / "stall_stream"
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # helpers for tests ---------------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reset(self, behaviour: str = "ok") -> None:
        with self._lock:
            self.behaviour = behaviour
            self.script.clear()
            self.requests.clear()

    def _next_behaviour(self) -> str:
        with self._lock:
            behaviour = self.script.pop(0) if self.script else self.behaviour
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"unknown behaviour {behaviour!r}")
        return behaviour

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _reply_for(self, messages: list[dict[str, Any]]) -> str:
        return self.reply(messages) if callable(self.reply) else self.reply


def split_deltas(text: str) -> list[str]:
    """Word-sized pieces whose concatenation is exactly `text` (how the fake streams a reply)."""
    return re.findall(r"\s*\S+|\s+$", text) or [text]


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, as the real API

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean (and never echo headers)

    # routing ---------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._record_request(None)
        if self.path.rstrip("/").endswith("/models"):
            created = int(time.time())
            self._json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": self.fake.model,
                            "object": "model",
                            "created": created,
                            "owned_by": "fake-openai",
                        }
                    ],
                },
            )
        else:
            self._error(404, "Not found", "invalid_request_error", "not_found")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self._record_request(body if isinstance(body, dict) else None)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._error(404, "Not found", "invalid_request_error", "not_found")
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._error(400, "'messages' is required", "invalid_request_error", None)
            return
        behaviour = self.fake._next_behaviour()
        if self.fake.require_key is not None and self.headers.get("Authorization") != (
            f"Bearer {self.fake.require_key}"
        ):
            behaviour = "401"
        self._answer(behaviour, body)

    def _record_request(self, body: dict[str, Any] | None) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake._record(RecordedRequest(self.command, self.path, headers, body))

    # answers ---------------------------------------------------------------------------------------

    def _answer(self, behaviour: str, body: dict[str, Any]) -> None:
        fake = self.fake
        if behaviour == "401":
            self._error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        elif behaviour == "429":
            self._error(429, "Rate limit reached.", "requests", "rate_limit_exceeded", self._retry_headers())
        elif behaviour == "500":
            self._error(
                500,
                "The server had an error while processing your request.",
                "server_error",
                None,
                self._retry_headers(),
            )
        elif behaviour == "timeout":
            fake._stop.wait(fake.delay)
            self._quietly(lambda: self._json(200, self._completion(body, fake._reply_for(body["messages"]))))
        elif behaviour == "malformed_json":
            self._raw(
                200, "application/json", b'{"id": "chatcmpl-1", "choices": [{"message": ' + self._leak()
            )
        elif behaviour == "html":  # e.g. a captive portal or reverse proxy page
            self._raw(200, "text/html", b"<html><body>Please log in" + self._leak() + b"</body></html>")
        elif behaviour == "empty_choices":
            completion = self._completion(body, "")
            completion["choices"] = []
            self._json(200, completion)
        elif behaviour == "bad_content":
            completion = self._completion(body, "")
            completion["choices"][0]["message"]["content"] = {"text": 42}
            self._json(200, completion)
        elif body.get("stream"):
            self._stream(behaviour, body)
        else:
            self._json(200, self._completion(body, fake._reply_for(body["messages"])))

    def _stream(self, behaviour: str, body: dict[str, Any]) -> None:
        fake = self.fake
        text = fake._reply_for(body["messages"])
        cid = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        created = int(time.time())
        model = str(body.get("model") or fake.model)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            payload = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            }
            return b"data: " + json.dumps(payload).encode() + b"\n\n"

        pieces = split_deltas(text)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self._chunk(chunk({"role": "assistant", "content": ""}))
            half = max(1, len(pieces) // 2)
            for i, piece in enumerate(pieces):
                if i == half and behaviour in {"malformed_sse", "broken_stream", "stall_stream"}:
                    if behaviour == "malformed_sse":
                        self._chunk(
                            b'data: {"id": "chatcmpl-x", "choices": [{"delta": ' + self._leak() + b"\n\n"
                        )
                    elif behaviour == "stall_stream":
                        fake._stop.wait(fake.delay)
                    self.close_connection = True  # close without the terminating chunk: a broken body
                    return
                self._chunk(chunk({"content": piece}))
            if behaviour == "truncated_stream":  # a clean HTTP end, but no finish_reason and no [DONE]
                self._end_chunks()
                return
            self._chunk(chunk({}, "stop"))
            if (body.get("stream_options") or {}).get("include_usage"):
                usage = {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [],
                    "usage": self._usage(body, text),
                }
                self._chunk(b"data: " + json.dumps(usage).encode() + b"\n\n")
            self._chunk(b"data: [DONE]\n\n")
            self._end_chunks()
        except OSError:
            self.close_connection = True  # the client went away (e.g. it timed out)

    # wire helpers ----------------------------------------------------------------------------------

    def _retry_headers(self) -> dict[str, str]:
        headers = {"Retry-After": self.fake.retry_after}
        if self.fake.retry_after_ms is not None:
            headers["retry-after-ms"] = self.fake.retry_after_ms
        return headers

    def _leak(self) -> bytes:
        """What a hostile server would echo back: the request headers, including Authorization."""
        if not self.fake.leak_headers:
            return b""
        return json.dumps(dict(self.headers.items())).encode()

    def _completion(self, body: dict[str, Any], text: str) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model") or self.fake.model),
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": self._usage(body, text),
        }

    @staticmethod
    def _usage(body: dict[str, Any], text: str) -> dict[str, int]:
        prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion = len(text.split())
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _error(
        self, status: int, message: str, kind: str, code: str | None, headers: dict[str, str] | None = None
    ) -> None:
        leak = self._leak().decode()
        payload = {
            "error": {
                "message": message + (f" headers={leak}" if leak else ""),
                "type": kind,
                "param": None,
                "code": code,
            }
        }
        self._json(status, payload, headers)

    def _json(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        self._raw(status, "application/json", json.dumps(payload).encode(), headers)

    def _raw(
        self, status: int, content_type: str, data: bytes, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{uuid.uuid4().hex[:16]}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _quietly(self, send: Callable[[], None]) -> None:
        try:
            send()
        except OSError:
            self.close_connection = True


def closed_port() -> int:
    """A local port nothing listens on (bound, then released), for connection-refused tests."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def fake_openai_server(**options: Any) -> Iterator[FakeOpenAI]:
    """A started FakeOpenAI for a `with` block."""
    server = FakeOpenAI(**options)
    with server:
        yield server


@pytest.fixture()
def fake_openai() -> Iterator[FakeOpenAI]:
    """A fresh fake server per test (import this fixture into the test module)."""
    with fake_openai_server() as server:
        yield server
