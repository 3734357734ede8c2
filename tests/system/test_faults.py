"""Faults (issue 7): a failing LLM endpoint and a Chroma server that is down or goes away.

LLM faults run against tests/support/fake_openai.py (a real local HTTP server speaking the OpenAI protocol):
every fault must leave Pipeline.ask returning the extractive answer flagged as a fallback with the
reason in backend_error, streaming or not. The Chroma tests run a real `chroma run` server on a free
loopback port, kill it, and bring it back on the same port and path.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import Settings
from core.errors import ContextLensError, StoreUnavailable
from core.pipeline import Answer
from core.resources import Models as Resources
from ingest.sync import ingest_paths
from tests.support.chroma_server import ChromaServer, in_folder
from tests.support.fake_openai import FAULT_CASES, FakeOpenAI, closed_port, fake_openai_server
from tests.support.stores import SAMPLE, make_pipeline, make_settings, resources_for
from tests.support.stores import close_stores as forget_indexes
from tests.support.stores import index_for as get_index

QUESTION = "What is the rated payload of the ArmX2?"
GOLD = "5 kg"

RESULTS: dict[str, bool] = {}


def _record(case: str, fn: object) -> None:
    RESULTS[case] = False
    fn()  # type: ignore[operator]
    RESULTS[case] = True


@pytest.fixture(scope="module")
def extractive(sample_store: Settings, tmp_path_factory: pytest.TempPathFactory) -> Answer:
    """The offline answer to QUESTION: what every fallback must show."""
    s = sample_store.model_copy(update={"trace_path": tmp_path_factory.mktemp("ex") / "t.jsonl"})
    answer = make_pipeline(s, backend=None).ask(QUESTION)
    assert not answer.refused and answer.citations
    return answer


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAI]:
    with fake_openai_server(delay=2.0) as srv:
        yield srv


def _llm_settings(base: Settings, tmp: Path, url: str, **extra: object) -> Settings:
    update: dict[str, object] = {
        "llm_base_url": url,
        "llm_timeout": 0.5,
        "llm_max_retries": 1,
        "trace_path": tmp / "traces.jsonl",
    }
    update.update(extra)
    return base.model_copy(update=update)


@pytest.mark.parametrize(("mode", "fault"), FAULT_CASES, ids=[f"{m}-{f}" for m, f in FAULT_CASES])
def test_llm_fault_falls_back_to_the_extractive_answer(
    mode: str,
    fault: str,
    server: FakeOpenAI,
    sample_store: Settings,
    extractive: Answer,
    tmp_path: Path,
) -> None:
    def run() -> None:
        server.reset(fault if fault != "refused" else "ok")
        url = f"http://127.0.0.1:{closed_port()}/v1" if fault == "refused" else server.base_url
        retries = 0 if fault in {"timeout", "refused", "stall_stream"} else 1
        s = _llm_settings(sample_store, tmp_path, url, llm_max_retries=retries)
        pipe = make_pipeline(s)
        assert pipe.backend is not None
        tokens: list[str] = []
        t0 = time.perf_counter()
        answer = pipe.ask(QUESTION, on_token=tokens.append if mode == "stream" else None)
        elapsed = time.perf_counter() - t0
        assert answer.fallback is True
        assert answer.backend_error.startswith("LLM "), answer.backend_error
        assert "\n" not in answer.backend_error and len(answer.backend_error) < 200
        assert answer.text == extractive.text
        assert not answer.refused and answer.citations == extractive.citations
        t = answer.trace
        assert t["fallback"] is True and t["backend_error"] == answer.backend_error
        assert t["llm_called"] is True and t["answer"] == answer.text
        assert s.trace_path.exists() and answer.trace["id"] in s.trace_path.read_text(encoding="utf-8")
        if fault != "refused":
            assert server.chat_requests, "the LLM was never called"
        assert elapsed < 30, f"{fault} took {elapsed:.1f}s"
        pipe.backend.close()

    _record(f"llm {mode} {fault}", run)


def test_llm_recovers_after_faults(server: FakeOpenAI, sample_store: Settings, tmp_path: Path) -> None:
    """The same Pipeline object keeps working: fault → fallback, then the LLM answers again."""

    def run() -> None:
        server.reset("ok")
        server.reply = f"The ArmX2 carries {GOLD} (products/arm-x2.md)."
        pipe = make_pipeline(_llm_settings(sample_store, tmp_path, server.base_url))
        try:
            server.behaviour = "500"
            bad = pipe.ask(QUESTION)
            assert bad.fallback and "500" in bad.backend_error
            server.behaviour = "ok"
            good = pipe.ask(QUESTION)
            assert not good.fallback and good.backend_error == "" and good.text == server.reply
            tokens: list[str] = []
            streamed = pipe.ask(QUESTION, on_token=tokens.append)
            assert not streamed.fallback and "".join(tokens) == server.reply == streamed.text
        finally:
            server.reply = "Hello from the fake LLM."
            pipe.backend.close()

    _record("llm recovery", run)


def test_fault_tally() -> None:
    tried, survived = len(RESULTS), sum(RESULTS.values())
    print(f"\nLLM FAULT TALLY: {survived}/{tried} survived")
    assert tried == survived


# -- the Chroma server ----------------------------------------------------------------------------


@pytest.fixture()
def chroma(tmp_path: Path) -> Iterator[ChromaServer]:
    srv = in_folder(tmp_path)
    yield srv
    srv.kill()
    forget_indexes()


def _server_settings(tmp_path: Path, port: int) -> Settings:
    return make_settings(tmp_path, chroma_host="127.0.0.1", chroma_port=port)


KILN = (
    "The Heron kiln fires stoneware at 1280 degrees Celsius in a twelve hour cycle. "
    "Its chamber holds forty shelves of pottery and is lined with ceramic fibre insulation. "
    "The kiln controller ramps the temperature by 150 degrees per hour until it reaches the peak. "
    "Operators must wear heat-resistant gloves and open the door only below 200 degrees."
)
SMALL = [SAMPLE / "products" / "arm-x2.md", SAMPLE / "support" / "faq.md"]


def _clear(e: BaseException) -> None:
    text = str(e)
    assert isinstance(e, ContextLensError)
    assert text and "\n" not in text and "Traceback" not in text and len(text) < 400, text
    assert "Chroma server" in text, text


@pytest.mark.slow
def test_chroma_server_killed_mid_session_then_recovers(
    chroma: ChromaServer, tmp_path: Path, resources: Resources
) -> None:
    def run() -> None:
        chroma.start()
        s = _server_settings(tmp_path, chroma.port)
        report = ingest_paths(s, SMALL, resources=resources_for(s))
        assert report.errors == [] and report.embedded > 0
        pipe = make_pipeline(s, backend=None)
        first = pipe.ask(QUESTION)
        assert not first.refused and first.citations

        chroma.kill()
        for _ in range(2):  # still down: every try is a clear error, the process lives on
            with pytest.raises(StoreUnavailable) as err:
                pipe.ask(QUESTION)
            _clear(err.value)
        # an ingest of a new file while down: a clear error, and the next run converges
        extra = tmp_path / "extra"
        extra.mkdir()
        (extra / "kiln.txt").write_text(KILN, encoding="utf-8")
        with pytest.raises(StoreUnavailable) as err:
            ingest_paths(s, [extra / "kiln.txt"], resources=resources_for(s))
        _clear(err.value)

        chroma.start()  # same port, same data directory
        again = pipe.ask(QUESTION)
        assert again.text == first.text
        report = ingest_paths(s, [extra / "kiln.txt"], resources=resources_for(s))
        assert report.errors == [] and report.embedded == 1
        index = get_index(s)
        assert set(index.vectors.all_ids()) == index.lexical.ids()
        kiln = pipe.ask("What temperature does the Heron kiln fire stoneware at?")
        assert [c["source"] for c in kiln.citations] == ["kiln.txt"] and "1280" in kiln.text

    _record("chroma killed mid-session → error → recovery", run)


@pytest.mark.slow
def test_chroma_server_down_at_start_then_recovers(
    chroma: ChromaServer, tmp_path: Path, resources: Resources
) -> None:
    def run() -> None:
        s = _server_settings(tmp_path, chroma.port)
        with pytest.raises(ContextLensError) as err:  # constructing or asking: a clear error either way
            make_pipeline(s, backend=None).ask(QUESTION)
        _clear(err.value)
        with pytest.raises(ContextLensError) as err:
            ingest_paths(s, SMALL, resources=resources_for(s))
        _clear(err.value)

        chroma.start()
        report = ingest_paths(s, SMALL, resources=resources_for(s))
        assert report.errors == [] and report.embedded > 0
        answer = make_pipeline(s, backend=None).ask(QUESTION)
        assert not answer.refused and answer.citations

    _record("chroma down at start → error → recovery", run)


@pytest.mark.slow
def test_chroma_tally() -> None:
    chroma = {k: v for k, v in RESULTS.items() if k.startswith("chroma")}
    print(f"\nCHROMA FAULT TALLY: {sum(chroma.values())}/{len(chroma)} survived")
    assert all(chroma.values())
