"""The web page in a real browser: Playwright driving Debian's chromium (never `playwright install`).

Each test saves a screenshot of the page into its tmp folder.
"""

from __future__ import annotations

import shutil

import pytest
from server_live import FIXTURES

from citeline.server.auth import KeyStore

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(autouse=True, scope="module")
def _chromium_present():
    """A missing browser is a failure, not a skip: .ci/run installs Debian's chromium."""
    assert shutil.which(CHROMIUM), f"{CHROMIUM} missing: apt-get install chromium (.ci/run does)"

EVIL = (
    "# Cookie policy\n\n"
    "The evil note says cookies are baked at 180 degrees for twelve minutes. "
    "<script>window.__pwned=1</script> and <img src=x onerror=\"window.__pwned=1\"> "
    "appear here as plain text.\n"
)
EVIL_NAME = "<img src=x onerror=window.__pwned=1>.md"  # no quotes: browsers send them as %22


@pytest.fixture(scope="module")
def site(live, embedder, tmp_path_factory):
    data = tmp_path_factory.mktemp("browser") / "data"
    data.mkdir()
    key, _ = KeyStore(data).create(("*",), "write", "browser test")
    server = live(data_dir=data, embedder=embedder)
    with server.client(key) as c:
        assert c.post("/api/collections", json={"name": "manuals"}).status_code == 201
    return server, key


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield b
        b.close()


@pytest.fixture
def page(site, browser):
    server, key = site
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server.url + "/")
    pg.fill("#api-key", key)
    pg.click("#key-form button")
    pg.wait_for_selector("#collection option[value=manuals]", state="attached")
    yield pg
    ctx.close()
    assert errors == []


def upload(pg, name: str, content: str) -> None:
    pg.set_input_files("#file-input", files=[{"name": name, "mimeType": "text/markdown",
                                              "buffer": content.encode()}])


def wait_indexed(pg, name: str) -> None:
    row = pg.locator("#docs tr").filter(has=pg.get_by_role("button", name=name, exact=True))
    row.locator('[data-state="indexed"]').wait_for(timeout=30_000)


def test_upload_ask_click_citation_highlights_the_quote(page, tmp_path):
    pg = page
    upload(pg, "kettle.md", (FIXTURES / "corpus" / "kettle.md").read_text())
    wait_indexed(pg, "kettle.md")
    pg.fill("#question", "How long is the kettle warranty?")
    pg.click("#ask-btn")
    pg.wait_for_selector("#citations tbody tr")
    # the answer's [1] links to citation row 1
    ref = pg.locator("#answer a.cite-ref").first
    assert ref.text_content() == "[1]" and ref.get_attribute("href") == "#cite-1"
    row = pg.locator("#cite-1")
    quote = row.locator("td.quote").text_content()
    assert "24 months" in quote
    assert row.locator("td.loc").text_content().startswith("#char=")
    row.click()
    mark = pg.locator("#doc-text mark#highlight")
    mark.wait_for()
    assert mark.text_content() == quote
    pg.screenshot(path=str(tmp_path / "answer-and-highlight.png"), full_page=True)


def test_drag_and_drop_uploads(page, tmp_path):
    pg = page
    dt = pg.evaluate_handle(
        """() => { const dt = new DataTransfer();
                   dt.items.add(new File(["# Dropped\\n\\nA dropped note about lighthouses.\\n"],
                                         "dropped.md", {type: "text/markdown"}));
                   return dt; }"""
    )
    pg.dispatch_event("#drop", "dragover", {"dataTransfer": dt})
    pg.dispatch_event("#drop", "drop", {"dataTransfer": dt})
    wait_indexed(pg, "dropped.md")
    pg.screenshot(path=str(tmp_path / "dropped.png"), full_page=True)


def test_document_text_is_never_run_as_html(page, tmp_path):
    pg = page
    upload(pg, EVIL_NAME, EVIL)
    wait_indexed(pg, EVIL_NAME)
    pg.fill("#question", "At what temperature are the cookies baked according to the evil note?")
    pg.click("#ask-btn")
    pg.wait_for_selector("#citations tbody tr")
    cite = pg.locator("#citations tbody tr").filter(has_text="Cookie policy").first
    assert "<script>window.__pwned=1</script>" in cite.locator("td.quote").text_content()
    cite.click()
    pg.locator("#doc-text mark").wait_for()
    text = pg.locator("#doc-text").text_content()
    assert '<img src=x onerror="window.__pwned=1">' in text and "<script>" in text
    assert pg.locator("#viewer img, #viewer script, #docs img, #citations img").count() == 0
    # the file name itself is shown as text in the documents table
    assert pg.get_by_role("button", name=EVIL_NAME, exact=True).is_visible()
    assert pg.evaluate("typeof window.__pwned") == "undefined"
    pg.screenshot(path=str(tmp_path / "untrusted-text.png"), full_page=True)


def test_unanswerable_question_shows_the_refusal(page, tmp_path):
    pg = page
    pg.fill("#question", "what is the capital of mongolia")
    pg.click("#ask-btn")
    line = pg.locator("#refusal-line")
    line.wait_for()
    assert line.text_content().startswith("NO ANSWER: nothing under cosine distance 0.675")
    assert pg.locator("#nearest").text_content().startswith("nearest distance: 0.")
    assert pg.locator("#citations").is_hidden()
    pg.screenshot(path=str(tmp_path / "refusal.png"), full_page=True)


def test_page_asks_for_a_key_when_it_has_none(site, browser, tmp_path):
    server, _ = site
    ctx = browser.new_context()
    pg = ctx.new_page()
    pg.goto(server.url + "/")
    err = pg.locator("#error")
    err.wait_for()
    assert "needs an API key" in err.text_content()
    pg.screenshot(path=str(tmp_path / "no-key.png"), full_page=True)
    ctx.close()


def test_a_failed_upload_shows_its_reason_and_can_be_retried(page, tmp_path):
    pg = page
    upload(pg, "blank.md", "")
    row = pg.locator("#docs tr").filter(has=pg.get_by_role("button", name="blank.md", exact=True))
    row.locator('[data-state="failed"]').wait_for(timeout=30_000)
    assert "empty" in row.locator(".reason").text_content()
    row.get_by_role("button", name="Retry").click()
    row.locator('[data-state="failed"]').wait_for(timeout=30_000)  # same bytes, same reason
    row.get_by_role("button", name="✕").click()
    row.wait_for(state="detached")
    pg.screenshot(path=str(tmp_path / "failed.png"), full_page=True)
