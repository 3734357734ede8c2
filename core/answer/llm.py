"""The OpenAI-compatible chat backend; every failure becomes one BackendError line without secrets."""

from __future__ import annotations

import json
import logging
import re
import socket
import ssl
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import openai

from core.answer.citations import cited_labels
from core.answer.draft import Draft
from core.answer.related import says_not_in_sources
from core.errors import BackendError

if TYPE_CHECKING:
    from core.config import Settings

log = logging.getLogger(__name__)

OPENAI_URL = "https://api.openai.com/v1"
LOCAL_KEY = "not-needed"  # local servers (llama.cpp, Ollama, vLLM) ignore the key but the client wants one


class ChatBackend(Protocol):
    """A chat model: one reply at once, or the reply as text deltas."""

    name: str  # e.g. "openai:gpt-4o-mini"; never contains the key

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str: ...

    def stream(
        self, messages: Sequence[Mapping[str, str]], *, max_tokens: int | None = None
    ) -> Iterator[str]: ...


def safe_url(url: str) -> str:
    """The URL without user:password, query or fragment, fit for messages and logs."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:  # IPv6 literal
            host = f"[{host}]"
        netloc = f"{host}:{parts.port}" if parts.port else host
        return urlunsplit((parts.scheme, netloc, parts.path, "", "")) or "(unparsable URL)"
    except ValueError:
        return "(unparsable URL)"


class OpenAIBackend:
    """Chat completions through the official `openai` client (OpenAI or any compatible server)."""

    def __init__(self, settings: Settings) -> None:
        self.model = settings.llm_model
        self.base_url = settings.llm_base_url or OPENAI_URL
        self.timeout = settings.llm_timeout
        self.max_retries = settings.llm_max_retries
        self.temperature = settings.llm_temperature
        self.name = f"openai:{self.model}"
        self._where = safe_url(self.base_url)
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key is not None else LOCAL_KEY
        try:
            # base_url and api_key are explicit so OPENAI_BASE_URL / OPENAI_API_KEY never leak in
            self._client = openai.OpenAI(
                base_url=self.base_url,
                api_key=key,
                timeout=self.timeout,
                max_retries=self.max_retries,
            )
        except Exception as e:  # noqa: BLE001 - any constructor failure is a settings problem
            problem = type(e).__name__
        else:
            return
        # raised outside the except block so no exception (which may hold the key) is chained
        raise BackendError(f"Could not set up the LLM client for {self._where} ({problem})")

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(model={self.model!r}, base_url={self._where!r}, "
            f"timeout={self.timeout:g}, max_retries={self.max_retries})"
        )

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self._client.close()

    def _params(self, messages: Sequence[Mapping[str, str]], max_tokens: int | None) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.temperature,
        }
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        return params

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str:
        """The model's whole reply; with json_mode the reply is guaranteed to parse as a JSON object."""
        params = self._params(messages, max_tokens)
        if json_mode:
            params["response_format"] = {"type": "json_object"}
        problem: str
        try:
            reply = self._client.chat.completions.create(**params)
            text = _reply_text(reply)
            if json_mode and not _is_json_object(text):
                raise _Malformed("not a JSON object")
        except Exception as e:  # noqa: BLE001 - every failure becomes one BackendError line
            problem = self._describe(e)
        else:
            return text
        log.warning("LLM call failed: %s", problem)
        raise BackendError(problem)  # outside except: no chained openai error (it may hold headers)

    def stream(
        self, messages: Sequence[Mapping[str, str]], *, max_tokens: int | None = None
    ) -> Iterator[str]:
        """The reply as content deltas; a stream that breaks mid-way raises BackendError."""
        params = self._params(messages, max_tokens)
        params["stream"] = True
        problem: str
        chunks = None
        try:
            chunks = self._client.chat.completions.create(**params)
            finished = False
            produced = False
            for chunk in chunks:
                choices = getattr(chunk, "choices", None)
                if choices is None or not isinstance(choices, list):
                    raise _Malformed("chunk without choices")
                if not choices:
                    continue  # e.g. the trailing usage chunk
                choice = choices[0]
                delta = getattr(choice, "delta", None)
                content = getattr(delta, "content", None) if delta is not None else None
                if content is not None and not isinstance(content, str):
                    raise _Malformed("non-string content")
                if content:
                    produced = True
                    yield content
                if getattr(choice, "finish_reason", None):
                    finished = True
            if not finished:
                raise _Truncated()
            if not produced:
                raise _Empty()
        except GeneratorExit:
            raise  # the consumer stopped early; the finally block closes the response
        except Exception as e:  # noqa: BLE001 - every failure becomes one BackendError line
            problem = self._describe(e, streaming=chunks is not None)
        else:
            return
        finally:
            if chunks is not None and hasattr(chunks, "close"):
                try:
                    chunks.close()
                except Exception:  # noqa: BLE001 - closing a dead stream must not mask the real error
                    log.debug("closing the LLM stream failed", exc_info=False)
        log.warning("LLM stream failed: %s", problem)
        raise BackendError(problem)

    def _describe(self, error: BaseException, *, streaming: bool = False) -> str:
        """One user-facing line for any failure, built only from our own words, never the error's text.

        `streaming` means the reply had started arriving, so the client did not retry.
        """
        where = f"LLM server at {self._where}"
        if isinstance(error, _Empty):
            return "LLM server returned an empty reply"
        if isinstance(error, _Truncated):
            return f"{where} ended the reply stream early"
        if isinstance(error, _Malformed):
            return "LLM server returned a malformed reply"
        if isinstance(error, openai.APITimeoutError):
            tries = f" (tried {self.max_retries + 1} times)" if self.max_retries and not streaming else ""
            return f"LLM server timed out after {self.timeout:g}s{tries}"
        if isinstance(error, openai.APIConnectionError):
            return _connection_problem(error, where, streaming)
        if isinstance(error, openai.APIStatusError):
            return _status_problem(error, self.max_retries, self.model)
        if isinstance(
            error, openai.APIError | json.JSONDecodeError | ValueError | TypeError | AttributeError
        ):
            # APIError without status: an error event inside the stream, or a body that is not the schema
            return "LLM server returned a malformed reply"
        return f"LLM backend failed unexpectedly ({type(error).__name__})"


class _Malformed(Exception):
    """The reply parsed but does not have the chat-completions shape."""


class _Empty(Exception):
    """The reply had no text at all."""


class _Truncated(Exception):
    """The stream ended cleanly at the HTTP level but no choice ever finished (no finish_reason)."""


def _reply_text(reply: object) -> str:
    """The first choice's message content, checking every step of the shape."""
    choices = getattr(reply, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise _Malformed("no choices")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None) if message is not None else None
    if content is None:
        raise _Empty()
    if not isinstance(content, str):
        raise _Malformed("non-string content")
    if not content.strip():
        raise _Empty()
    return content


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _causes(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _connection_problem(error: BaseException, where: str, streaming: bool) -> str:
    for cause in _causes(error):
        if isinstance(cause, ConnectionRefusedError):
            return f"{where} refused the connection"
        if isinstance(cause, socket.gaierror):
            return f"{where}: the host name could not be resolved"
        if isinstance(cause, ssl.SSLError):
            return f"{where}: the TLS handshake failed"
        if isinstance(cause, ConnectionResetError):
            return f"{where} reset the connection"
        if type(cause).__name__ == "RemoteProtocolError":
            return f"{where} dropped the connection mid-reply"
    if streaming:
        return f"{where} dropped the connection mid-reply"
    return f"{where} could not be reached"


_STATUS_WORDS = {
    400: "bad request",
    401: "the API key was rejected",
    403: "access denied",
    404: "model or endpoint not found",
    408: "request timeout",
    409: "conflict",
    413: "request too large",
    422: "request not processable",
    429: "rate limited",
}


def _status_problem(error: openai.APIStatusError, max_retries: int, model: str) -> str:
    code = error.status_code
    words = _STATUS_WORDS.get(code, "server error" if code >= 500 else "error")
    if code == 404:
        words = f"model {model!r} or endpoint not found"
    line = f"LLM server answered {code} ({words})"
    retried = _retries_taken(error, max_retries)
    if retried:
        line += f" after {retried} {'retry' if retried == 1 else 'retries'}"
    return line


def _retries_taken(error: openai.APIStatusError, default: int) -> int:
    """The retries the client really made (it stamps the count on each request it sends)."""
    try:
        value = error.response.request.headers.get("x-stainless-retry-count")
        return int(value) if value is not None else 0
    except (AttributeError, RuntimeError, ValueError):
        return default


def make_backend(settings: Settings) -> ChatBackend | None:
    """The configured LLM backend, or None when no base URL or key is set (use the offline answerer)."""
    if not settings.uses_llm:
        return None
    return OpenAIBackend(settings)


def llm_answer(
    backend: object,
    messages: list[dict[str, str]],
    max_tokens: int,
    on_token: Callable[[str], None] | None = None,
) -> str:
    """The backend's answer, streamed through on_token when given; raises BackendError."""
    if on_token is None:
        return backend.complete(messages, max_tokens=max_tokens)  # type: ignore[attr-defined]
    parts: list[str] = []
    for delta in backend.stream(messages, max_tokens=max_tokens):  # type: ignore[attr-defined]
        parts.append(delta)
        on_token(delta)
    return "".join(parts)


# the knowledge fence's tags (and look-alikes) a model may echo into its reply
_FENCE_TAG = re.compile(r"</?\s*doc(?:-[0-9a-z]+)?(?:\s[^<>]*)?>", re.I)


def draft_from_reply(text: str, refusal_sentence: str, related: bool = False) -> Draft:
    """The model's reply as a Draft (knowledge fence tags removed): its citations, and whether it
    said the refusal sentence (related mode: or opened with the not-in-the-sources clause, which
    makes it a related answer)."""
    text = re.sub(r"[ \t]{2,}", " ", _FENCE_TAG.sub("", text)).strip()
    labels = tuple(cited_labels(text))
    if related and says_not_in_sources(text):
        return Draft(text, labels, True, "the model said the sources do not contain it", related=True)
    refused = text.rstrip(".").strip().lower() == refusal_sentence.rstrip(".").strip().lower()
    return Draft(text, labels, refused, "the model said it does not know" if refused else "")
