"""Secrets (issue 7): a planted API key must appear nowhere — not in reprs, exception messages or
tracebacks (whole chains), log records at DEBUG (ours and the HTTP stack's), trace files, the CLI's
stdout/stderr, nor anything the Streamlit app renders.

The key is planted through Settings(llm_api_key=...), Settings.updated, and the environment
(CONTEXTLENS_LLM_API_KEY); failures are real: a closed port, and a hostile OpenAI-compatible server
(tests/support/fake_openai.py with leak_headers) that echoes the request's Authorization header back in its
error and garbage bodies.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.config import Settings, load_settings
from core.errors import ContextLensError, SettingsError
from core.pipeline import Answer
from tests.support.fake_openai import FakeOpenAI, closed_port, fake_openai_server
from tests.support.stores import ROOT, make_pipeline, make_settings

KEY = f"sk-PLANTED-{uuid.uuid4().hex}"
QUESTION = "How much does the ArmX2 package cost?"
TRANSPORT_LOGGERS = ("openai", "openai._base_client", "httpx", "httpcore", "urllib3", "chromadb")


_SECRET_PART = KEY.split("-")[-1]
_WINDOWS = {_SECRET_PART[i : i + 8] for i in range(len(_SECRET_PART) - 7)}


def leaks(*texts: object) -> list[int]:
    """Indexes of the texts that contain the key or any 8-character piece of its secret part
    (reprs that truncate long values in the middle still leak their ends)."""
    return [i for i, t in enumerate(texts) if any(w in str(t) for w in _WINDOWS)]


def chain_texts(error: BaseException) -> list[str]:
    """Every way an exception can be shown, over its whole cause/context chain."""
    out = [str(error), repr(error), "".join(traceback.format_exception(error))]
    link: BaseException | None = error
    seen: set[int] = set()
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        out += [str(link), repr(link), repr(getattr(link, "args", ()))]
        link = link.__cause__ or link.__context__
    return out


def log_texts(caplog: pytest.LogCaptureFixture) -> list[str]:
    out = [caplog.text]
    for r in caplog.records:
        out += [r.getMessage(), repr(r.args)]
        if r.exc_info and r.exc_info[1] is not None:
            out += chain_texts(r.exc_info[1])
    return out


@pytest.fixture()
def debug_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    for name in TRANSPORT_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def _llm(base: Settings, tmp: Path, url: str) -> Settings:
    return base.updated(
        llm_api_key=KEY,
        llm_base_url=url,
        llm_timeout=0.5,
        llm_max_retries=0,
        trace_path=tmp / "traces.jsonl",
    )


def _answer_texts(answer: Answer) -> list[str]:
    return [
        repr(answer),
        answer.text,
        answer.backend_error,
        json.dumps(answer.trace, default=str),
        repr(answer.context),
        repr(answer.prompt),
    ]


# -- settings -------------------------------------------------------------------------------------


def test_settings_never_show_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    direct = make_settings(tmp_path, llm_api_key=KEY)
    monkeypatch.setenv("CONTEXTLENS_LLM_API_KEY", KEY)
    from_env = load_settings(_env_file=None, store_path=tmp_path / "s")
    assert from_env.llm_api_key is not None and from_env.llm_api_key.get_secret_value() == KEY
    texts: list[object] = []
    for s in (direct, from_env, direct.updated(top_k=3), direct.model_copy(update={"top_k": 4})):
        texts += [
            repr(s),
            str(s),
            f"{s}",
            s.model_dump(),
            s.model_dump_json(),
            repr(vars(s)),
            repr(s.llm_api_key),
        ]
    assert not leaks(*texts)


@pytest.mark.parametrize(
    "bad",
    [
        {"CONTEXTLENS_TOP_K": "lots"},
        {"CONTEXTLENS_CHUNK_OVERLAP": "999"},  # a model-level check: pydantic shows the whole input
        {"CONTEXTLENS_LLM_TIMEOUT": "-1", "CONTEXTLENS_MIN_SCORE": "2"},
    ],
    ids=["field", "model", "two-fields"],
)
def test_invalid_settings_next_to_the_key(bad: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTEXTLENS_LLM_API_KEY", KEY)
    for name, value in bad.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as err:
        load_settings(_env_file=None)
    assert str(err.value).startswith("Invalid settings:")
    assert not leaks(*chain_texts(err.value))


def test_invalid_update_of_settings_holding_the_key(tmp_path: Path) -> None:
    s = make_settings(tmp_path, llm_api_key=KEY)
    for change in ({"top_k": 0}, {"chunk_overlap": 10_000}, {"llm_api_key": 42}):
        with pytest.raises(SettingsError) as err:
            s.updated(**change)
        assert not leaks(*chain_texts(err.value))


# -- the pipeline with a failing backend ----------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_refused_connection_through_the_pipeline(
    stream: bool, sample_store: Settings, tmp_path: Path, debug_logs: pytest.LogCaptureFixture
) -> None:
    s = _llm(sample_store, tmp_path, f"http://127.0.0.1:{closed_port()}/v1")
    pipe = make_pipeline(s)
    tokens: list[str] = []
    answer = pipe.ask(QUESTION, on_token=tokens.append if stream else None)
    assert answer.fallback and "refused the connection" in answer.backend_error
    texts = _answer_texts(answer) + [repr(pipe), repr(vars(pipe)), repr(pipe.backend), pipe.backend_name]
    texts += [s.trace_path.read_text(encoding="utf-8"), "".join(tokens)]
    texts += log_texts(debug_logs)
    assert not leaks(*texts), leaks(*texts)
    pipe.backend.close()


HOSTILE = ["401", "429", "500", "malformed_json", "html", "malformed_sse", "broken_stream"]


@pytest.fixture(scope="module")
def hostile() -> Iterator[FakeOpenAI]:
    """A server that echoes every request header (Authorization included) in its bodies."""
    with fake_openai_server(leak_headers=True, delay=1.0) as server:
        yield server


@pytest.mark.parametrize("behaviour", HOSTILE)
def test_hostile_server_echoing_the_key(
    behaviour: str,
    hostile: FakeOpenAI,
    sample_store: Settings,
    tmp_path: Path,
    debug_logs: pytest.LogCaptureFixture,
) -> None:
    hostile.reset(behaviour)
    if behaviour == "401":
        hostile.require_key = "sk-someone-else"
    s = _llm(sample_store, tmp_path, hostile.base_url)
    pipe = make_pipeline(s)
    stream = behaviour in {"malformed_sse", "broken_stream"}
    tokens: list[str] = []
    try:
        answer = pipe.ask(QUESTION, on_token=tokens.append if stream else None)
    finally:
        hostile.require_key = None
    assert answer.fallback and answer.backend_error
    # the server really saw (and echoed) the key: the test is meaningful
    assert hostile.chat_requests[-1].headers["authorization"] == f"Bearer {KEY}"
    texts = _answer_texts(answer) + [s.trace_path.read_text(encoding="utf-8"), "".join(tokens)]
    texts += log_texts(debug_logs)
    assert not leaks(*texts), leaks(*texts)
    pipe.backend.close()


def test_direct_backend_errors_carry_no_key(hostile: FakeOpenAI, tmp_path: Path) -> None:
    from core.answer.llm import make_backend

    hostile.reset("500")
    backend = make_backend(_llm(make_settings(tmp_path), tmp_path, hostile.base_url))
    assert backend is not None
    for call in (lambda: backend.complete([{"role": "user", "content": "hi"}]),
                 lambda: list(backend.stream([{"role": "user", "content": "hi"}]))):  # fmt: skip
        with pytest.raises(ContextLensError) as err:
            call()
        assert not leaks(*chain_texts(err.value))
    backend.close()


# -- the CLI --------------------------------------------------------------------------------------


def _cli_env(store: Path, tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTEXTLENS_", "OPENAI_"))}
    env.update(
        HF_HUB_OFFLINE="1",
        CONTEXTLENS_STORE_PATH=str(store),
        CONTEXTLENS_TRACE_PATH=str(tmp / "cli-traces.jsonl"),
        CONTEXTLENS_LLM_API_KEY=KEY,
        CONTEXTLENS_LLM_MAX_RETRIES="0",
        CONTEXTLENS_LLM_TIMEOUT="2",
    )
    env.update(extra)
    return env


def _ask_cli(env: dict[str, str], tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "core", "ask", QUESTION, "--json"],
        check=False,
        cwd=tmp,  # no developer .env
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_cli_ask_with_the_key_in_the_environment(
    sample_copy: Settings, hostile: FakeOpenAI, tmp_path: Path
) -> None:
    # 1. connection refused, 2. a hostile server echoing the key in a 500, 3. an invalid setting
    runs: list[tuple[str, subprocess.CompletedProcess[str]]] = []
    env = _cli_env(
        sample_copy.store_path, tmp_path, CONTEXTLENS_LLM_BASE_URL=f"http://127.0.0.1:{closed_port()}/v1"
    )
    runs.append(("refused", _ask_cli(env, tmp_path)))
    hostile.reset("500")
    env = _cli_env(sample_copy.store_path, tmp_path, CONTEXTLENS_LLM_BASE_URL=hostile.base_url)
    runs.append(("hostile", _ask_cli(env, tmp_path)))
    assert hostile.chat_requests and hostile.chat_requests[-1].headers["authorization"] == f"Bearer {KEY}"
    env = _cli_env(sample_copy.store_path, tmp_path, CONTEXTLENS_CHUNK_OVERLAP="9999")
    runs.append(("invalid", _ask_cli(env, tmp_path)))

    for name, proc in runs:
        assert not leaks(proc.stdout, proc.stderr), name
        assert "Traceback" not in proc.stderr, (name, proc.stderr[-2000:])
    for name, proc in runs[:2]:
        assert proc.returncode == 0, (name, proc.stderr[-2000:])
        trace = json.loads(proc.stdout.strip().splitlines()[-1])
        assert trace["fallback"] is True and trace["backend_error"], name
        assert "extractive fallback" in proc.stdout
    assert runs[2][1].returncode == 2 and runs[2][1].stderr.startswith("error: Invalid settings")
    assert not leaks((tmp_path / "cli-traces.jsonl").read_text(encoding="utf-8"))


# -- the UI ---------------------------------------------------------------------------------------


def rendered(at: Any) -> list[str]:
    """The text of every element AppTest saw (each element's protobuf, which is what the browser
    receives), plus the session state."""
    out: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        children = getattr(node, "children", None) or {}
        for child in children.values():
            walk(child)

    walk(at._tree)
    out.append(json.dumps(at.session_state.to_dict(), default=str))
    return out


@pytest.mark.slow
def test_ui_never_renders_the_key(
    sample_store: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    debug_logs: pytest.LogCaptureFixture,
) -> None:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from tests.support.stores import close_stores as forget_indexes

    for name in list(os.environ):
        if name.startswith(("CONTEXTLENS_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXTLENS_STORE_PATH", str(sample_store.store_path))
    monkeypatch.setenv("CONTEXTLENS_TRACE_PATH", str(tmp_path / "ui-traces.jsonl"))
    monkeypatch.setenv("CONTEXTLENS_LLM_API_KEY", KEY)
    monkeypatch.setenv("CONTEXTLENS_LLM_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("CONTEXTLENS_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("CONTEXTLENS_LLM_TIMEOUT", "1")
    st.cache_resource.clear()
    forget_indexes()
    try:
        at = AppTest.from_file(str(ROOT / "ui" / "app.py"), default_timeout=120)
        at.run()
        assert not at.exception, at.exception
        before = rendered(at)
        at.chat_input(key="question").set_value(QUESTION).run()
        assert not at.exception, at.exception
        after = rendered(at)
        traces = (tmp_path / "ui-traces.jsonl").read_text(encoding="utf-8")
        found = leaks(*before, *after, traces, *log_texts(debug_logs))
        assert not found, f"the key reached {len(found)} rendered/logged texts"
        # the user sees why the answer is a fallback
        trace = at.session_state["cl_traces"][-1]
        assert trace["fallback"] and trace["backend_error"]
        page = "\n".join(after)
        assert QUESTION in page and len(after) > 20  # the walk really saw the page
        assert trace["backend_error"] in page or "refused the connection" in page
    finally:
        st.cache_resource.clear()
        forget_indexes()
