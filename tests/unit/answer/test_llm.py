"""The OpenAI-compatible backend against a real local HTTP server: replies, streams, faults, secrets."""

from __future__ import annotations

import json
import logging
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.answer.llm import LOCAL_KEY, OPENAI_URL, ChatBackend, OpenAIBackend, make_backend
from core.config import Settings
from core.errors import BackendError, ContextLensError
from tests.support.fake_openai import FAULT_CASES, FakeOpenAI, closed_port, fake_openai_server, split_deltas

KEY = "sk-test-PLANTED-123456"
MESSAGES = [
    {"role": "system", "content": "Answer only from the context."},
    {"role": "system", "content": '[Retrieved Knowledge]\nSource: a.md\n"quoted" — ünïcødé ✓\n---'},
    {"role": "user", "content": "first question?"},
    {"role": "assistant", "content": "first answer\nwith two lines"},
    {"role": "user", "content": "What is the capital of France?"},
]
TRANSPORT_LOGGERS = ("openai", "httpx", "httpx2", "httpcore", "httpcore2", "core", "urllib3")


def llm_settings(tmp_path: Path, base_url: str | None, **overrides: object) -> Settings:
    """Settings for the backend only, isolated from the developer's env/.env."""
    values: dict[str, object] = {
        "store_path": tmp_path / "store",
        "trace_path": tmp_path / "traces.jsonl",
        "llm_base_url": base_url,
        "llm_api_key": KEY,
        "llm_model": "fake-model",
        "llm_timeout": 2.0,
        "llm_max_retries": 2,
        "_env_file": None,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture()
def server() -> Iterator[FakeOpenAI]:
    with fake_openai_server() as fake:
        yield fake


@pytest.fixture()
def backend(server: FakeOpenAI, tmp_path: Path) -> Iterator[OpenAIBackend]:
    b = OpenAIBackend(llm_settings(tmp_path, server.base_url))
    yield b
    b.close()


def fails(call: object) -> BackendError:
    """Run a zero-arg call (or drain an iterator) and return the BackendError it must raise."""
    with pytest.raises(BackendError) as info:
        result = call() if callable(call) else call
        if isinstance(result, Iterator):
            list(result)
    return info.value


def key_free(text: str) -> bool:
    """Whether text is free of the planted key (checked without ever printing the key)."""
    return KEY not in text and "PLANTED" not in text


# happy paths ----------------------------------------------------------------------------------------


def test_complete_returns_the_reply_text(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.reply = "Paris is the capital of France (a.md)."
    chat: ChatBackend = backend  # satisfies the protocol (checked by type checkers)
    assert chat.complete(MESSAGES) == "Paris is the capital of France (a.md)."


def test_messages_model_and_parameters_arrive_intact(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    backend.complete(MESSAGES)
    backend.complete(MESSAGES[-1:], max_tokens=64)
    first, second = server.chat_requests
    assert first.messages == MESSAGES  # same order, same bytes (unicode, quotes, newlines)
    assert first.body is not None and second.body is not None
    assert first.body["model"] == "fake-model"
    assert first.body["temperature"] == 0.0
    assert "max_tokens" not in first.body and "response_format" not in first.body
    assert "stream" not in first.body or first.body["stream"] is False
    assert second.body["max_tokens"] == 64
    auth_ok = first.headers.get("authorization") == f"Bearer {KEY}"
    assert auth_ok, "the Authorization header did not carry the configured key"


def test_reply_can_depend_on_the_request(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.reply = lambda messages: f"{len(messages)} messages, last: {messages[-1]['content']}"
    assert backend.complete(MESSAGES) == "5 messages, last: What is the capital of France?"


def test_stream_yields_the_deltas_in_order(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.reply = "Paris is the capital of France, on the Seine (a.md)."
    deltas = list(backend.stream(MESSAGES, max_tokens=100))
    assert deltas == split_deltas(server.reply)
    assert len(deltas) > 5
    assert "".join(deltas) == server.reply
    (request,) = server.chat_requests
    assert request.body is not None
    assert request.body["stream"] is True and request.body["max_tokens"] == 100
    assert request.messages == MESSAGES


def test_stream_can_be_abandoned_early(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.reply = "one two three four five six seven"
    stream = backend.stream(MESSAGES)
    assert next(stream) == "one"
    stream.close()  # the consumer stops: no error, the response is released
    assert backend.complete(MESSAGES) == server.reply  # the pool still works


def test_json_mode_sends_response_format(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.reply = '{"query_type": "factual"}'
    text = backend.complete(MESSAGES, json_mode=True)
    assert json.loads(text) == {"query_type": "factual"}
    (request,) = server.chat_requests
    assert request.body is not None and request.body["response_format"] == {"type": "json_object"}


def test_json_mode_rejects_a_reply_that_is_not_a_json_object(
    server: FakeOpenAI, backend: OpenAIBackend
) -> None:
    server.reply = "factual"
    assert (
        str(fails(lambda: backend.complete(MESSAGES, json_mode=True)))
        == "LLM server returned a malformed reply"
    )


def test_models_endpoint_and_concurrent_use(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    assert [m.id for m in backend._client.models.list()] == ["fake-model"]
    server.reply = lambda messages: messages[-1]["content"].upper()
    with ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(lambda i: backend.complete([{"role": "user", "content": f"q{i}"}]), range(16))
        )
    assert answers == [f"Q{i}" for i in range(16)]


# faults ----------------------------------------------------------------------------------------------


def test_429_is_retried_then_fails(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.behaviour = "429"
    started = time.monotonic()
    error = fails(lambda: backend.complete(MESSAGES))
    assert str(error) == "LLM server answered 429 (rate limited) after 2 retries"
    assert len(server.chat_requests) == 1 + backend.max_retries
    assert time.monotonic() - started < 2.0  # retry-after-ms honoured: no exponential backoff


def test_429_then_success_is_transparent(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.script = ["429", "500"]
    assert backend.complete(MESSAGES) == server.reply
    assert len(server.chat_requests) == 3


def test_500_fails_after_retries(server: FakeOpenAI, tmp_path: Path) -> None:
    server.behaviour = "500"
    b = OpenAIBackend(llm_settings(tmp_path, server.base_url, llm_max_retries=1))
    error = fails(lambda: b.complete(MESSAGES))
    assert str(error) == "LLM server answered 500 (server error) after 1 retry"
    assert len(server.chat_requests) == 2


def test_500_on_a_stream_fails_before_any_delta(server: FakeOpenAI, tmp_path: Path) -> None:
    server.behaviour = "500"
    b = OpenAIBackend(llm_settings(tmp_path, server.base_url, llm_max_retries=0))
    got: list[str] = []
    with pytest.raises(BackendError, match=r"^LLM server answered 500 \(server error\)$"):
        for delta in b.stream(MESSAGES):
            got.append(delta)  # noqa: PERF402 - keep the deltas seen before the error
    assert got == []


def test_401_says_the_key_was_rejected(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.require_key = "sk-some-other-key"
    assert (
        str(fails(lambda: backend.complete(MESSAGES))) == "LLM server answered 401 (the API key was rejected)"
    )
    assert len(server.chat_requests) == 1  # 4xx other than 408/409/429 are not retried


def test_timeout_fails_within_a_bounded_time(server: FakeOpenAI, tmp_path: Path) -> None:
    server.behaviour = "timeout"
    server.delay = 6.0
    b = OpenAIBackend(llm_settings(tmp_path, server.base_url, llm_timeout=0.5, llm_max_retries=0))
    started = time.monotonic()
    error = fails(lambda: b.complete(MESSAGES))
    elapsed = time.monotonic() - started
    assert str(error) == "LLM server timed out after 0.5s"
    assert 0.4 < elapsed < 3.0  # the server would take 6 s; the slack is for a loaded CI machine
    assert len(server.chat_requests) == 1


def test_timeout_is_retried_and_says_so(server: FakeOpenAI, tmp_path: Path) -> None:
    server.behaviour = "timeout"
    b = OpenAIBackend(llm_settings(tmp_path, server.base_url, llm_timeout=0.3, llm_max_retries=1))
    assert str(fails(lambda: b.complete(MESSAGES))) == "LLM server timed out after 0.3s (tried 2 times)"
    assert len(server.chat_requests) == 2


def test_stream_stalling_mid_reply_times_out(server: FakeOpenAI, tmp_path: Path) -> None:
    server.behaviour = "stall_stream"
    server.reply = "one two three four five six"
    b = OpenAIBackend(llm_settings(tmp_path, server.base_url, llm_timeout=0.5, llm_max_retries=2))
    got: list[str] = []
    started = time.monotonic()
    with pytest.raises(BackendError) as info:
        for delta in b.stream(MESSAGES):
            got.append(delta)  # noqa: PERF402 - keep the deltas seen before the error
    assert str(info.value) == "LLM server timed out after 0.5s"  # mid-stream: no retries happen
    assert got == ["one", " two", " three"]
    assert time.monotonic() - started < 1.5


@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        ("malformed_json", "LLM server returned a malformed reply"),
        ("html", "LLM server returned a malformed reply"),
        ("empty_choices", "LLM server returned a malformed reply"),
        ("bad_content", "LLM server returned a malformed reply"),
    ],
)
def test_malformed_replies(server: FakeOpenAI, backend: OpenAIBackend, behaviour: str, message: str) -> None:
    server.behaviour = behaviour
    assert str(fails(lambda: backend.complete(MESSAGES))) == message
    assert len(server.chat_requests) == 1  # a 200 is never retried


def test_empty_reply(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.reply = "   "
    assert str(fails(lambda: backend.complete(MESSAGES))) == "LLM server returned an empty reply"


@pytest.mark.parametrize(
    ("behaviour", "message"),
    [
        ("malformed_sse", "LLM server returned a malformed reply"),
        ("broken_stream", "LLM server at http://127.0.0.1:{port}/v1 dropped the connection mid-reply"),
        ("truncated_stream", "LLM server at http://127.0.0.1:{port}/v1 ended the reply stream early"),
    ],
)
def test_broken_streams_raise_backend_error_after_partial_output(
    server: FakeOpenAI, backend: OpenAIBackend, behaviour: str, message: str
) -> None:
    server.behaviour = behaviour
    server.reply = "one two three four five six"
    got: list[str] = []
    with pytest.raises(BackendError) as info:
        for delta in backend.stream(MESSAGES):
            got.append(delta)  # noqa: PERF402 - keep the deltas seen before the error
    assert str(info.value) == message.format(port=server.port)
    assert got and "".join(got) == server.reply[: len("".join(got))]  # the caller saw a partial reply
    assert len(server.chat_requests) == 1


def test_connection_refused(tmp_path: Path) -> None:
    port = closed_port()
    b = OpenAIBackend(llm_settings(tmp_path, f"http://127.0.0.1:{port}/v1", llm_max_retries=1))
    started = time.monotonic()
    for call in (lambda: b.complete(MESSAGES), lambda: b.stream(MESSAGES)):
        error = fails(call)
        assert str(error) == f"LLM server at http://127.0.0.1:{port}/v1 refused the connection"
    assert time.monotonic() - started < 5.0


def test_backend_error_is_a_clean_contextlens_error(server: FakeOpenAI, backend: OpenAIBackend) -> None:
    server.behaviour = "500"
    error = fails(lambda: backend.complete(MESSAGES))
    assert isinstance(error, ContextLensError)
    assert error.__cause__ is None and error.__context__ is None  # no openai error (with headers) attached
    assert "\n" not in str(error)


def test_userinfo_and_query_never_shown(tmp_path: Path) -> None:
    port = closed_port()
    url = f"http://user:{KEY}@127.0.0.1:{port}/v1?token={KEY}"
    b = OpenAIBackend(llm_settings(tmp_path, url, llm_max_retries=0))
    assert key_free(repr(b)) and key_free(str(fails(lambda: b.complete(MESSAGES))))


# make_backend ----------------------------------------------------------------------------------------


def test_make_backend_none_without_url_or_key(tmp_path: Path) -> None:
    assert make_backend(llm_settings(tmp_path, None, llm_api_key=None)) is None
    assert make_backend(llm_settings(tmp_path, "  ", llm_api_key="  ")) is None


def test_make_backend_with_only_a_base_url_sends_a_placeholder_key(
    server: FakeOpenAI, tmp_path: Path
) -> None:
    b = make_backend(llm_settings(tmp_path, server.base_url, llm_api_key=None))
    assert isinstance(b, OpenAIBackend)
    assert b.complete(MESSAGES) == server.reply
    assert server.chat_requests[0].headers["authorization"] == f"Bearer {LOCAL_KEY}"


def test_make_backend_with_only_a_key_targets_openai(tmp_path: Path) -> None:
    b = make_backend(llm_settings(tmp_path, None))
    assert isinstance(b, OpenAIBackend)
    assert b.base_url == OPENAI_URL and b.name == "openai:fake-model"
    assert "api.openai.com" in repr(b)


# secrets ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "fault"), FAULT_CASES)
def test_planted_key_never_leaks(
    mode: str, fault: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in TRANSPORT_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    with fake_openai_server(leak_headers=True, delay=1.0) as server:  # a hostile server echoing headers
        base_url = f"http://127.0.0.1:{closed_port()}/v1" if fault == "refused" else server.base_url
        if fault == "refused":
            server.stop()
        else:
            server.behaviour = fault
            if fault == "401":
                server.require_key = "sk-other"
        retries = 0 if fault in {"refused", "timeout"} else 1  # those two back off 0.5 s per retry
        b = OpenAIBackend(llm_settings(tmp_path, base_url, llm_timeout=0.3, llm_max_retries=retries))
        call = (lambda: b.complete(MESSAGES)) if mode == "complete" else (lambda: b.stream(MESSAGES))
        error = fails(call)

    texts = [str(error), repr(error), "".join(traceback.format_exception(error)), repr(b), b.name]
    link: BaseException | None = error
    while link is not None:  # the whole chain, even parts a formatter would suppress
        texts += [str(link), repr(link), repr(getattr(link, "args", ()))]
        link = link.__cause__ or link.__context__
    texts += [record.getMessage() for record in caplog.records]
    texts += [repr(record.args) for record in caplog.records]
    texts.append(caplog.text)
    leaks = [i for i, text in enumerate(texts) if not key_free(text)]
    assert not leaks, f"planted key found in {len(leaks)} of {len(texts)} inspected texts (indexes {leaks})"
    assert str(error).startswith("LLM ")
    assert any(r.name == "core.answer.llm" and r.getMessage().endswith(str(error)) for r in caplog.records)


def test_planted_key_not_in_successful_call_logs(
    server: FakeOpenAI, backend: OpenAIBackend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in TRANSPORT_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    backend.complete(MESSAGES)
    list(backend.stream(MESSAGES))
    assert caplog.records, "expected transport debug logs to be captured"
    assert key_free(caplog.text) and all(key_free(repr(r.args)) for r in caplog.records)
    assert key_free(repr(backend)) and key_free(backend.name)


def test_echoed_fence_tags_are_stripped_from_a_reply() -> None:
    from core.answer.llm import draft_from_reply

    reply = "</doc-3fa9c1> The ArmX2 payload is 5 kg (products/arm-x2.md). <doc-3fa9c1 n=2>\n</doc>"
    d = draft_from_reply(reply, "I don't know.")
    assert d.text == "The ArmX2 payload is 5 kg (products/arm-x2.md)."
    assert d.citations == ("products/arm-x2.md",) and not d.refused
    assert draft_from_reply("x < y and <b>bold</b>", "I don't know.").text == "x < y and <b>bold</b>"
