"""The real app in a real browser: `streamlit run` on a loopback port, driven by Debian Chromium."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.config import Settings
from tests.support.stores import ROOT

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ZEPHYR = (
    "# Zephyr Conveyor Z9\n\n"
    "The Zephyr Conveyor Z9 moves parcels at up to 3.5 metres per second. "
    "Its belt is made of food-grade polyurethane and carries up to 120 kg per metre of belt. "
    "The Zephyr Conveyor Z9 was designed by the Lisbon team in 2024.\n\n"
    "## Maintenance\n\n"
    "The Zephyr Conveyor Z9 belt must be re-tensioned every 400 operating hours. "
    "Its rollers are sealed and need no lubrication.\n"
)
STARTUP_S = 240  # first page load includes loading the embedder (slow on a busy 2-core CI box)
ANSWER_MS = 180_000


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def app_env() -> dict[str, str]:
    """Extra environment for the app (a test module overrides it, e.g. to point at an LLM)."""
    return {}


@pytest.fixture()
def server(tmp_path: Path, sample_copy: Settings, app_env: dict[str, str]) -> Iterator[str]:
    """`streamlit run ui/app.py` on a free loopback port over a private copy of the sample store."""
    _require_chromium()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTEXTLENS_", "OPENAI_"))}
    env.update(
        CONTEXTLENS_STORE_PATH=str(sample_copy.store_path),
        CONTEXTLENS_TRACE_PATH=str(tmp_path / "traces.jsonl"),
        CONTEXTLENS_EVAL_DIR=str(tmp_path / "eval_out"),
        HF_HUB_OFFLINE="1",
        # the app's packages from this checkout (cwd is tmp_path, and an editable install of
        # another checkout would otherwise win)
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    )
    env.update(app_env)
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "ui" / "app.py"),
        "--server.port", str(port), "--server.headless", "true", "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal",
        "--server.fileWatcherType", "none",
    ]  # fmt: skip
    log_path = tmp_path / "streamlit.log"
    with log_path.open("wb") as log:
        # cwd=tmp_path: no developer .env or .streamlit/ config leaks in
        proc = subprocess.Popen(
            cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        _stop(proc)
        server_log = log_path.read_text(errors="replace")
        # the app logs the traceback of anything that reached its top-level guard
        assert "unexpected error in the app" not in server_log, server_log[-3000:]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server (and anything it started) by its own process group."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)


def _scroll_to_top_of(locator: object) -> None:
    locator.evaluate("e => e.scrollIntoView({block: 'start'})")  # type: ignore[attr-defined]
    time.sleep(0.5)


def _ask_nth(page: object, question: str, n: int) -> object:
    """Type a question into the chat box and return the n-th (1-based) answer once it is there."""
    from playwright.sync_api import expect

    box = page.get_by_placeholder("Ask about your documents…")  # type: ignore[attr-defined]
    box.wait_for(state="visible", timeout=max(ANSWER_MS, STARTUP_S * 1000))
    box.fill(question)
    box.press("Enter")
    answers = page.locator("[class*='st-key-turn-answer-']")  # type: ignore[attr-defined]
    expect(answers).to_have_count(n, timeout=ANSWER_MS)
    return answers.nth(n - 1)


def test_ask_inspect_upload_and_cite(
    server: str, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server)
            box = page.get_by_placeholder("Ask about your documents…")
            box.wait_for(state="visible", timeout=STARTUP_S * 1000)
            expect(page.get_by_text("Chunks", exact=True)).to_be_visible()

            # 1. ask; the answer streams into the page
            box.fill("How much does the ArmX2 package cost?")
            start = time.monotonic()
            box.press("Enter")
            first = page.locator(".st-key-streaming [data-testid='stMarkdown']").first
            first.wait_for(state="visible", timeout=ANSWER_MS)
            visible_s = time.monotonic() - start
            answers = page.locator("[class*='st-key-turn-answer-']")
            answers.first.wait_for(state="visible", timeout=ANSWER_MS)
            complete_s = time.monotonic() - start
            expect(answers.first).to_contain_text("Sources:")
            expect(answers.first).to_contain_text("products/arm-x2.md")
            expect(answers.first).to_contain_text("24,500")

            # 2. open the inspector: the per-section tokens and the ledger are there
            page.get_by_text("Inspector ·").first.click()
            page.get_by_role("tab", name="Tokens").first.click()
            expect(page.get_by_text("Knowledge block:").first).to_be_visible()
            page.get_by_role("tab", name="Evidence ledger").first.click()
            expect(page.get_by_text("Text as injected").first).to_be_visible()
            time.sleep(1.5)  # let the data grid paint
            _scroll_to_top_of(page.locator("[data-testid='stChatMessage']").first)
            shot = tmp_path / "answer-with-inspector.png"
            page.screenshot(path=str(shot))
            if os.environ.get("CONTEXTLENS_SCREENSHOT"):
                target = Path(os.environ["CONTEXTLENS_SCREENSHOT"])
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(shot, target)

            # 3. upload a new document through the real file uploader
            doc = tmp_path / "zephyr-z9.md"
            doc.write_text(ZEPHYR, encoding="utf-8")
            page.locator(".st-key-upload_docs input[type='file']").set_input_files(str(doc))
            expect(page.get_by_text("zephyr-z9.md — added").first).to_be_visible(timeout=ANSWER_MS)
            expect(page.get_by_text("does not remove it from the index").first).to_be_visible()

            # 4. the next question cites it
            second = _ask_nth(page, "How fast does the Zephyr Conveyor Z9 move parcels?", 2)
            expect(second).to_contain_text("uploads/zephyr-z9.md", timeout=ANSWER_MS)
            expect(second).to_contain_text("3.5 metres per second")
            assert page.locator("[data-testid='stException']").count() == 0
            page.screenshot(path=str(tmp_path / "after-upload.png"), full_page=True)

            # 5. the Documents page removes it after a confirmation; the next answer stops citing it
            page.get_by_role("link", name="Documents").first.click()
            search = page.get_by_label("Search documents")
            search.wait_for(state="visible", timeout=ANSWER_MS)
            search.fill("zephyr")
            search.press("Enter")
            expect(page.get_by_role("heading", name="uploads/zephyr-z9.md")).to_be_visible(timeout=ANSWER_MS)
            page.get_by_role("button", name="Remove from the index…").click()
            yes = page.get_by_role("button", name="Yes, remove it")
            yes.wait_for(state="visible", timeout=ANSWER_MS)
            time.sleep(1.0)  # the rerun that drew the confirmation settles before the next click
            yes.click()
            expect(page.get_by_text("Removed uploads/zephyr-z9.md").first).to_be_visible(timeout=ANSWER_MS)
            page.screenshot(path=str(tmp_path / "documents-page.png"), full_page=True)
            page.get_by_role("link", name="Chat").first.click()
            third = _ask_nth(page, "How fast does the Zephyr Conveyor Z9 move parcels?", 3)
            expect(third).not_to_contain_text("uploads/zephyr-z9.md")
            expect(third).not_to_contain_text("3.5 metres per second")
        finally:
            browser.close()
    # printed after the run by tests/conftest.py (a worker's own output never reaches the terminal)
    record_property(
        "measured",
        f"[browser] Enter → answer visible: {visible_s:.2f} s "
        f"(complete with citations and inspector: {complete_s:.2f} s)",
    )


def test_answers_are_structured_and_about_the_model_asked(server: str) -> None:
    """The three kinds of question a product-docs user asks first, as they render in the page."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(server)

            def ask(question: str, n: int) -> object:
                return _ask_nth(page, question, n)

            # factual, about a model with a near-identical sibling in the same documents
            payload = ask("What is the rated payload of the ArmX2?", 1)
            expect(payload).to_contain_text("5 kg")
            expect(payload).not_to_contain_text("12 kg")  # the ArmX3's

            # procedural: the guide's steps as a numbered list, in order
            steps = ask("How do I calibrate an ArmX3 arm?", 2)
            items = steps.locator("ol li")
            expect(items.first).to_contain_text("Warm up the arm")
            assert items.count() >= 7
            texts = [items.nth(i).inner_text() for i in range(items.count())]
            assert texts.index(next(t for t in texts if "Remove the gripper" in t)) == 1

            # comparison: one bullet per arm with its own values, no table syntax
            compare = ask("Compare the ArmX2 and the ArmX3 in payload and reach", 3)
            bullets = compare.locator("ul li")
            expect(bullets).to_have_count(2)
            expect(bullets.filter(has_text="ArmX2")).to_contain_text("850 mm")
            expect(bullets.filter(has_text="ArmX3")).to_contain_text("1,300 mm")
            expect(compare).not_to_contain_text("|")
            assert page.locator("[data-testid='stException']").count() == 0
        finally:
            browser.close()


def _save_screenshot(page: object, tmp_path: Path, name: str, full_page: bool = False) -> None:
    """A screenshot kept with the test's files, and copied to CONTEXTLENS_SCREENSHOT_DIR when set
    (`CONTEXTLENS_SCREENSHOT_DIR=docs` re-takes the README's pictures)."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=full_page)  # type: ignore[attr-defined]
    target = os.environ.get("CONTEXTLENS_SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(target) / name)


def test_first_run_example_question_reload_and_narrow_screen(server: str, tmp_path: Path) -> None:
    """A new user: the first screen says what is indexed, an example question asks, the answer
    has its inspector, a reload brings the conversation back, and 800 px is usable."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            wide = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = wide.new_page()
            page.goto(server)
            welcome = page.locator(".st-key-welcome")
            welcome.wait_for(state="visible", timeout=STARTUP_S * 1000)
            expect(welcome).to_contain_text("22 documents")
            expect(welcome).to_contain_text("Northwind ArmX2 Collaborative Robot Arm")
            expect(welcome.locator("[data-testid='stButton']")).to_have_count(4)
            expect(page.locator("[data-testid='stSidebar']")).to_have_attribute("data-collapsed", "false")
            _save_screenshot(page, tmp_path, "first-run.png")

            # 1. click an example question: the answer and its inspector
            welcome.get_by_role("button", name="What is the rated payload of the ArmX2?").click()
            answers = page.locator("[class*='st-key-turn-answer-']")
            expect(answers).to_have_count(1, timeout=ANSWER_MS)
            expect(answers.first).to_contain_text("5 kg")
            expect(answers.first).to_contain_text("products/arm-x2.md")
            expect(page.locator(".st-key-welcome")).to_have_count(0)
            page.get_by_text("Inspector ·").first.click()
            page.get_by_role("tab", name="Tokens").first.click()
            expect(page.get_by_text("Knowledge block:").first).to_be_visible()
            page.wait_for_url("**/?c=*")
            url = page.url

            # 2. a second turn, then a reload: both turns and their inspectors are back
            _ask_nth(page, "Compare the ArmX2 and the ArmX3 in payload and reach", 2)
            expect(page.get_by_text("Inspector ·")).to_have_count(2)
            page.reload()
            restored = page.locator("[class*='st-key-turn-answer-']")
            expect(restored).to_have_count(2, timeout=ANSWER_MS)
            expect(restored.nth(0)).to_contain_text("5 kg")
            expect(restored.nth(1)).to_contain_text("1,300 mm")
            expect(page.get_by_text("Inspector ·")).to_have_count(2)
            assert page.url == url
            page.get_by_text("Inspector ·").first.click()
            page.get_by_role("tab", name="Evidence ledger").first.click()
            expect(page.get_by_text("Text as injected").first).to_be_visible()
            time.sleep(1.5)  # let the data grid paint
            _scroll_to_top_of(page.locator("[data-testid='stChatMessage']").first)
            _save_screenshot(page, tmp_path, "screenshot.png")

            # 3. the same conversation at 800 px: the sidebar starts collapsed, the tabs are reachable
            narrow = browser.new_context(viewport={"width": 800, "height": 1000})
            small = narrow.new_page()
            small.goto(url)
            expect(small.locator("[class*='st-key-turn-answer-']")).to_have_count(2, timeout=STARTUP_S * 1000)
            expect(small.locator("[data-testid='stSidebar']")).to_have_attribute("data-collapsed", "true")
            small.get_by_text("Inspector ·").first.click()
            tabs = small.get_by_role("tab")
            for n in range(6):
                box = tabs.nth(n).bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 800, (n, box)
            small.get_by_role("tab", name="Evidence ledger").first.click()
            grid = small.locator("[data-testid='stDataFrame']:visible").first
            expect(grid).to_be_visible()
            box = grid.bounding_box()
            assert box is not None and box["x"] + box["width"] <= 800  # the table scrolls inside the page
            time.sleep(1.5)
            _scroll_to_top_of(small.locator("[data-testid='stChatMessage']").nth(0))
            small.mouse.move(400, 500)
            small.mouse.wheel(0, -90)  # out from under the sticky header
            time.sleep(0.5)
            _save_screenshot(small, tmp_path, "narrow-800.png")
            assert small.locator("[data-testid='stException']").count() == 0
            assert page.locator("[data-testid='stException']").count() == 0
        finally:
            browser.close()
