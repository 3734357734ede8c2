"""Answers render no outside image or link (issue 18), in the real app in Chromium: a page whose key
sentence carries a Markdown image, a Markdown link, a bare URL and an e-mail address is asked about
offline, and an LLM (the OpenAI-protocol test server) answers with an image and links of its own; the
browser requests nothing outside the app and no answer holds an <a href> or <img src> pointing out."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from core.config import Settings
from ingest.sync import ingest_paths
from tests.e2e.test_browser import CHROMIUM, CHROMIUM_ARGS, _ask_nth, server  # noqa: F401 - the fixture
from tests.support.fake_openai import FakeOpenAI, fake_openai_server
from tests.support.stores import close_stores, make_settings, resources_for

pytestmark = pytest.mark.slow

PAGE = (
    "Harbor Cafe loyalty card\n\n"
    "The Harbor Cafe loyalty card gives one free coffee after nine stamps "
    "![card](https://tracker.invalid/card.png) and the full terms are at "
    "[the terms page](https://terms.invalid/loyalty), at https://bare.invalid/terms or from help@harbor.invalid.\n"
)
LLM_REPLY = (
    "Nine stamps earn a free coffee (cafe/loyalty-card.txt). ![pixel](https://pixel.invalid/p.png) "
    "Read [the terms](https://terms.invalid/x) or <https://auto.invalid/y>."
)
QUESTION = "How many stamps does the Harbor Cafe loyalty card need for a free coffee?"


@pytest.fixture()
def sample_copy(tmp_path: Path, sample_store: Settings) -> Iterator[Settings]:
    """The sample store plus the page with outside links (overrides conftest's, for `server`)."""
    close_stores()
    shutil.copytree(sample_store.store_path, tmp_path / "store")
    s = make_settings(tmp_path, store_path=tmp_path / "store")
    (tmp_path / "pages" / "cafe").mkdir(parents=True)
    (tmp_path / "pages" / "cafe" / "loyalty-card.txt").write_text(PAGE, encoding="utf-8")
    assert ingest_paths(s, [tmp_path / "pages"], resources=resources_for(s)).errors == []
    close_stores()  # the app opens the store itself
    yield s
    close_stores()


@pytest.fixture()
def llm() -> Iterator[FakeOpenAI]:
    with fake_openai_server(reply=LLM_REPLY) as fake:
        yield fake


@pytest.fixture()
def app_env(request: pytest.FixtureRequest) -> dict[str, str]:
    if "with_llm" not in request.node.name:
        return {}
    fake: FakeOpenAI = request.getfixturevalue("llm")
    return {"CONTEXTLENS_LLM_BASE_URL": fake.base_url, "CONTEXTLENS_LLM_API_KEY": "sk-test-render"}


def _ask_and_check(url: str, expected: list[str]) -> set[str]:
    from playwright.sync_api import expect, sync_playwright

    hosts: set[str] = set()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("request", lambda r: hosts.add(urlsplit(r.url).hostname or ""))
            page.goto(url)
            answer = _ask_nth(page, QUESTION, 1)
            for text in expected:
                expect(answer).to_contain_text(text)
            page.wait_for_timeout(1500)  # an image the answer held would have been requested by now
            outside = answer.locator("a[href], img[src]").evaluate_all(
                "els => els.map(e => e.href || e.src).filter(u => !u.startsWith(location.origin) && !u.startsWith('data:'))"
            )
            assert outside == []
            assert (
                page.locator("a[href*='.invalid'], img[src*='.invalid']").count() == 0
            )  # nowhere on the page
        finally:
            browser.close()
    return hosts


def test_offline_answer_renders_no_outside_image_or_link(server: str) -> None:  # noqa: F811
    hosts = _ask_and_check(server, ["nine stamps", "bare.invalid/terms", "help@harbor.invalid"])
    assert not [h for h in hosts if h.endswith(".invalid")], hosts  # (Streamlit itself may fetch its fonts)


def test_llm_answer_renders_no_outside_image_or_link_with_llm(server: str, llm: FakeOpenAI) -> None:  # noqa: F811
    expected = [
        "image from pixel.invalid, not shown",
        "the terms (link to terms.invalid)",
        "https://auto.invalid/y",
    ]
    hosts = _ask_and_check(server, expected)
    assert llm.requests, "the answer did not come from the LLM"
    assert not [h for h in hosts if h.endswith(".invalid")], hosts  # (Streamlit itself may fetch its fonts)
