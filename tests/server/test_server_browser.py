"""The web page in a real browser: Playwright driving Debian's chromium (never `playwright install`).

Each test saves a screenshot of the page into its tmp folder.
"""

from __future__ import annotations

import json
import shutil

import pytest

from citeline.server.auth import KeyStore
from server_live import FIXTURES

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
    server.data_dir = data  # where a test makes further keys
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
    # the page's timers on a clock a test can move on (Playwright's Clock): a test that
    # waits for the document list's next poll jumps the five seconds instead; until then
    # time flows as it does
    ctx.clock.install()
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(pg, server.url, key)
    yield pg
    ctx.close()
    assert errors == []


def next_poll(pg) -> None:  # type: ignore[no-untyped-def]
    """Move the page's clock past the document list's idle poll (five seconds; the
    page's POLL_IDLE_MS) and a second more, firing the timers due meanwhile once. The
    page sets its next poll once it has drawn the last answer: a jump before that finds
    no timer, and the poll comes five real seconds later, as it would without the
    clock (slower, never wrong)."""
    pg.wait_for_timeout(250)
    pg.clock.fast_forward(6000)


def sign_in(pg, url: str, key: str) -> None:
    """Open the page at ``url`` and give it ``key`` as a user does; back once it lists
    the collections."""
    pg.goto(url + "/")
    pg.fill("#api-key", key)
    pg.click("#key-form button")
    pg.wait_for_selector("#collection option[value=manuals]", state="attached")


def upload(pg, name: str, content: str) -> None:
    pg.set_input_files("#file-input", files=[{"name": name, "mimeType": "text/markdown",
                                              "buffer": content.encode()}])


def cited_row(pg, question: str, has_text: str):  # type: ignore[no-untyped-def]
    """Ask ``question`` on the page; the citation row whose text holds ``has_text``."""
    pg.fill("#question", question)
    pg.click("#ask-btn")
    row = pg.locator("#citations tbody tr").filter(has_text=has_text).first
    row.wait_for()
    return row


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


def test_the_highlight_is_the_quote_after_characters_beyond_the_bmp(page, tmp_path):
    """The server counts code points; JavaScript strings count UTF-16 units, in which
    each emoji before the quote takes two: the page must convert, not slice as is."""
    pg = page
    upload(pg, "otters.md", "# Emoji notes\n\nRockets " + "\U0001F680" * 10 + " and smiles "
           + "\U0001F600" * 10 + " fill this opening paragraph.\n\n## Otters\n\n"
           "Sea otters hold hands while sleeping so that they do not drift apart.\n")
    wait_indexed(pg, "otters.md")
    row = cited_row(pg, "Why do sea otters hold hands while sleeping?", "Sea otters hold hands")
    quote = row.locator("td.quote").text_content()
    row.click()
    mark = pg.locator("#doc-text mark#highlight")
    mark.wait_for()
    assert mark.text_content() == quote
    pg.screenshot(path=str(tmp_path / "highlight-after-emoji.png"), full_page=True)


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
    pg.once("dialog", lambda d: d.dismiss())  # a delete is confirmed first: "no" keeps it
    row.get_by_role("button", name="delete blank.md").click()
    pg.wait_for_timeout(300)
    assert row.count() == 1
    pg.once("dialog", lambda d: d.accept())
    row.get_by_role("button", name="delete blank.md").click()
    row.wait_for(state="detached")
    pg.screenshot(path=str(tmp_path / "failed.png"), full_page=True)


def _two_page_pdf() -> bytes:
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    c.setTitle("Lighthouse keeping")
    # paragraphs long enough that each is its own chunk: page 2's is not packed
    # with page 1's text, so its citation points at page 2 alone
    pages = [
        [["The lighthouse log is kept in the watch room and signed by the keeper on watch",
          "each night, with the weather, the visibility, the state of the sea and every",
          "vessel sighted, and it is sent to the harbour master at the end of each month."],
         ["Visitors may climb the tower on Sundays between ten and four o'clock, in groups",
          "of no more than eight, accompanied by a keeper; children under twelve must hold",
          "the hand rail and an adult's hand on the spiral stair at all times, for safety."]],
        [["The Fresnel lens of the lighthouse is polished every fourteen days with chamois",
          "leather and jeweller's rouge, working from the top prism panel downwards, and",
          "the brass frame is wiped with a dry cloth only, never with polish or solvent.",
          "A lens polished more often than that wears its prisms, and one polished less",
          "often dims the beam by a measurable amount within a month of salt spray, so the",
          "fortnightly interval is written into the keeper's standing orders."]],
    ]
    for paragraphs in pages:
        y = 760
        for lines in paragraphs:
            for line in lines:
                c.drawString(60, y, line)
                y -= 14
            y -= 20
        c.showPage()
    c.save()
    return buf.getvalue()


def _silent_wav(seconds: int) -> bytes:
    import io
    import wave

    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(8000)
        w.writeframes(b"\x80" * 8000 * seconds)
    return buf.getvalue()


VTT = (
    "WEBVTT\n\n"
    "00:00:01.000 --> 00:00:03.000\n<v Host>Welcome to the bakery podcast.\n\n"
    "00:00:04.000 --> 00:00:07.500\n<v Baker>Feed the rye sourdough starter every twelve hours.\n"
)


def test_a_pdf_citation_opens_the_pdf_at_its_page(page, tmp_path):
    pg = page
    pdf = _two_page_pdf()
    pg.set_input_files("#file-input", files=[{"name": "lighthouse.pdf",
                                              "mimeType": "application/pdf", "buffer": pdf}])
    wait_indexed(pg, "lighthouse.pdf")
    row = cited_row(pg, "How often is the Fresnel lens of the lighthouse polished?", "Fresnel")
    assert row.locator("td.loc").text_content() == "#page=2"
    with pg.expect_response(lambda r: r.url.endswith("/documents/lighthouse.pdf/file")) as resp:
        row.click()
    # the viewer fetched the uploaded PDF itself, served as a PDF
    r = resp.value
    assert r.status == 200 and r.headers["content-type"] == "application/pdf"
    assert r.body() == pdf
    frame = pg.locator("#viewer-body iframe")
    frame.wait_for()
    src = frame.get_attribute("src")
    assert src.startswith("blob:") and src.endswith("#page=2")
    pg.screenshot(path=str(tmp_path / "pdf-page.png"), full_page=True)


def test_a_labelled_pdf_page_shows_its_printed_number_beside_the_locator(page, tmp_path):
    # "#page=2" opens the file's second page; the number printed on it is what a reader
    # of the book looks for, and the page shows it with the locator and in the viewer
    from doc_builders import label_pages

    pg = page
    pdf = label_pages(_two_page_pdf(), [(0, 1, "/r", "", 1)])
    pg.set_input_files("#file-input", files=[{"name": "lighthouse.pdf",
                                              "mimeType": "application/pdf", "buffer": pdf}])
    wait_indexed(pg, "lighthouse.pdf")
    row = cited_row(pg, "How often is the Fresnel lens of the lighthouse polished?", "Fresnel")
    assert row.locator("td.loc").text_content() == "#page=2 (printed page ii)"
    row.click()
    pg.locator("#viewer-body iframe").wait_for()
    assert "#page=2 (printed page ii)" in pg.locator("#viewer-where").text_content()


def test_a_media_citation_plays_from_its_cue(page, tmp_path):
    pg = page
    pg.set_input_files("#file-input", files=[
        {"name": "bakery.wav", "mimeType": "audio/wav", "buffer": _silent_wav(9)},
        {"name": "bakery.vtt", "mimeType": "text/vtt", "buffer": VTT.encode()},
    ])
    wait_indexed(pg, "bakery.wav")
    row = cited_row(pg, "How often should the sourdough starter be fed?", "sourdough")
    loc = row.locator("td.loc").text_content()
    assert loc.startswith("#t=")
    t0, t1 = (float(x) for x in loc.removeprefix("#t=").split(","))
    assert 0 < t0 < t1 <= 7.5
    row.click()
    audio = pg.locator("#viewer-body audio")
    audio.wait_for()
    assert audio.get_attribute("src").endswith(f"#t={t0:g},{t1:g}")
    pg.wait_for_function("() => document.querySelector('#viewer-body audio').readyState >= 1")
    assert pg.evaluate("document.querySelector('#viewer-body audio').currentTime") == t0
    # the transcript is part of the media document, not a document (or a failure) of its own
    assert pg.get_by_role("button", name="bakery.vtt", exact=True).count() == 0
    row = pg.locator("#docs tr").filter(has=pg.get_by_role("button", name="bakery.wav", exact=True))
    pg.once("dialog", lambda d: d.accept())
    row.get_by_role("button", name="delete bakery.wav").click()
    row.wait_for(state="detached")
    pg.screenshot(path=str(tmp_path / "media-cue.png"), full_page=True)


def test_an_llm_answer_streams_into_the_page(page, tmp_path, monkeypatch):
    """An OpenAI-compatible endpoint's streamed answer: the final text keeps [1] as a
    link to its citation, and neither the fabricated link nor the [9] it wrote shows."""
    from replay_llm import openai_endpoint

    reply = "Descale it monthly [1]. Details at http://evil.example [9]."
    with openai_endpoint(monkeypatch, reply) as srv:
        pg = page
        upload(pg, "descale.md", "# Descaling\n\nDescale the kettle once a month with citric acid.\n")
        wait_indexed(pg, "descale.md")
        pg.fill("#question", "How often should I descale the kettle?")
        pg.click("#ask-btn")
        pg.locator('#answer[data-state="done"]').wait_for()
        text = pg.locator("#answer").text_content()
        assert text.startswith("Descale it monthly [1].")
        assert "evil.example" not in text and "[9]" not in text
        ref = pg.locator("#answer a.cite-ref")
        assert ref.count() == 1 and ref.get_attribute("href") == "#cite-1"
        assert pg.locator("#cite-1").is_visible()
        assert len(srv.requests) == 1 and srv.requests[0]["body"]["stream"] is True
        assert pg.locator("#answer-checks").text_content() == (
            "note: 1 sentence(s) without a citation; removed 1 marker(s) with no source; "
            "removed 1 link(s) the answer wrote")
        assert pg.locator("#cites-nothing").count() == 0 and pg.locator("#cut-off").count() == 0
        pg.screenshot(path=str(tmp_path / "llm-answer.png"), full_page=True)
        # the endpoint stopped the answer at the token limit: the page says it is incomplete
        srv.reply, srv.finish_reason = "Descale it monthly [1] with", "length"
        pg.click("#ask-btn")
        pg.locator("#cut-off").wait_for()
        assert pg.locator("#answer").text_content().startswith("Descale it monthly [1] with")
        assert pg.locator("#cut-off").text_content() == (
            "This answer is incomplete: the answer reached the token limit "
            "(--max-new-tokens 256) and was cut off.")


def test_an_llm_answer_that_cites_nothing_is_marked_as_unchecked(page, tmp_path, monkeypatch):
    """A model that answers from its own knowledge writes no [n]: the page says that
    nothing in the answer can be checked, beside the sources it was given."""
    from replay_llm import openai_endpoint

    with openai_endpoint(monkeypatch, "Descaling is best done weekly with vinegar.") as srv:
        pg = page
        upload(pg, "descale-often.md",
               "# Descaling\n\nDescale the kettle every month with citric acid.\n")
        wait_indexed(pg, "descale-often.md")
        pg.fill("#question", "How often should I descale the kettle?")
        pg.click("#ask-btn")
        pg.locator('#answer[data-state="done"]').wait_for()
        warning = pg.locator("#cites-nothing")
        assert warning.is_visible()
        n = pg.locator("#citations tbody tr").count()
        assert n >= 1 and warning.text_content() == (
            f"This answer cites none of its {n} sources: nothing in it can be checked "
            "against them.")
        assert pg.locator("#answer a.cite-ref").count() == 0
        assert len(srv.requests) == 1
        pg.screenshot(path=str(tmp_path / "llm-cites-nothing.png"), full_page=True)


def _short_pages_pdf() -> bytes:
    """Three short pages that pack into one chunk (cited at its first page)."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    pages = [["Harbour rules: the pier lamp is lit at dusk by the harbour warden."],
             ["Harbour rules: the ferry bell is rung three times before each departure."],
             ["Harbour rules: the slipway winch is greased with marine tallow every spring.",
              "Never grease the slipway winch with engine oil."]]
    for lines in pages:
        for i, line in enumerate(lines):
            c.drawString(60, 760 - 14 * i, line)
        c.showPage()
    c.save()
    return buf.getvalue()


def test_an_answer_s_marker_opens_its_sentence_s_page(page):
    pg = page
    pg.set_input_files("#file-input", files=[{"name": "harbour-rules.pdf",
                                              "mimeType": "application/pdf",
                                              "buffer": _short_pages_pdf()}])
    wait_indexed(pg, "harbour-rules.pdf")
    row = cited_row(pg, "Which grease goes on the slipway winch?", "tallow")
    assert row.locator("td.loc").text_content() == "#page=1"  # the chunk starts on page 1
    marker = pg.locator("#answer .cite-ref").first
    marker.click()
    frame = pg.locator("#viewer-body iframe")
    frame.wait_for()
    assert frame.get_attribute("src").endswith("#page=3")  # the sentence is on page 3


def test_a_transcript_s_citation_opens_its_text_and_a_switch_clears_the_answer(page, site):
    pg = page
    server, key = site
    pg.set_input_files("#file-input", files=[{"name": "standup.vtt", "mimeType": "text/vtt",
                                              "buffer": VTT.encode()}])
    wait_indexed(pg, "standup.vtt")
    row = cited_row(pg, "How often is the rye sourdough starter fed?", "twelve hours")
    row.click()
    mark = pg.locator("#viewer-body #highlight")
    mark.wait_for()
    assert "twelve hours" in mark.text_content()
    # another collection: the answer and its citations (into this one's documents) go
    with server.client(key) as c:
        assert c.post("/api/collections", json={"name": "other"}).status_code == 201
    pg.click("#refresh")
    pg.wait_for_selector("#collection option[value=other]", state="attached")
    pg.select_option("#collection", "other")
    pg.locator("#answer").wait_for(state="hidden")
    assert pg.locator("#citations").is_hidden() and pg.locator("#viewer").is_hidden()
    pg.select_option("#collection", "manuals")


def test_the_page_fits_a_phone_and_uploads_from_the_keyboard(site, browser):
    server, key = site
    ctx = browser.new_context(viewport={"width": 375, "height": 740})
    pg = ctx.new_page()
    sign_in(pg, server.url, key)
    upload(pg, "a-rather-long-file-name-for-a-narrow-screen.md", "# Narrow\n\nA phone.\n")
    wait_indexed(pg, "a-rather-long-file-name-for-a-narrow-screen.md")
    assert pg.evaluate("document.documentElement.scrollWidth") <= 375
    with pg.expect_file_chooser() as chooser:
        pg.locator("#drop").press("Enter")  # focuses the drop zone, then the key
    assert chooser.value.is_multiple()
    # a question over the limit says what is wrong with it, not only its field's name
    pg.fill("#question", "x")
    pg.evaluate("document.querySelector('#question').removeAttribute('maxlength')")
    pg.fill("#question", "why " * 1200)
    pg.click("#ask-btn")
    err = pg.locator("#error")
    err.wait_for()
    assert "question" in err.text_content() and "4000" in err.text_content()
    ctx.close()


def test_the_citation_table_fits_a_laptop_screen_with_long_tokens_in_its_quotes(
        site, browser, tmp_path):
    """A quote holding a long word with no place to wrap (Valgrind's
    ``libX11.so.6.2/libX11.so.6.2/libXaw.so.7.0`` in a suppression) set the table's
    width, and at 1280 pixels its last column, the distance, was off the panel's edge;
    a title was broken inside its words ("un derstanding") to make room."""
    server, key = site
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    sign_in(pg, server.url, key)
    upload(pg, "memcheck-options-and-understanding.md",
           "# Using and understanding the memory checker's command-line options\n\n"
           "To ignore accesses just below the stack pointer, use "
           "--ignore-range-below-sp=8192-8189; to silence one library, suppress "
           "obj:libX11.so.6.2/libX11.so.6.2/libXaw.so.7.0/libXt.so.6.0.0/libICE.so.6.3.0 "
           "in your suppression file. Only one range may be given.\n")
    wait_indexed(pg, "memcheck-options-and-understanding.md")
    row = cited_row(pg, "How do I ignore accesses below the stack pointer?",
                    "--ignore-range-below-sp")
    # measured once the answer is done: the final answer draws the table anew, and a row
    # measured as it went had no box (a fresh clone's CI run once caught it so)
    pg.locator('#answer[data-state="done"]').wait_for()
    box = pg.evaluate("() => { const s = document.querySelector('#citations').parentElement;"
                      " return [s.scrollWidth, s.clientWidth]; }")
    assert box[0] <= box[1], f"the citation table is {box[0]} px wide in a {box[1]} px panel"
    dist = row.locator("td.dist").bounding_box()
    panel = pg.locator("#citations").locator("xpath=..").bounding_box()
    assert dist is not None and panel is not None
    assert dist["x"] + dist["width"] <= panel["x"] + panel["width"] + 1
    pg.screenshot(path=str(tmp_path / "citations-at-1280.png"), full_page=True)
    ctx.close()

def test_a_read_key_is_offered_no_retry_or_delete(site, browser):
    server, _ = site
    read_key, _ = KeyStore(server.data_dir).create(("manuals",), "read", "reader")
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.goto(server.url + "/")
    pg.fill("#api-key", read_key)
    pg.click("#key-form button")
    pg.locator("#docs tbody tr").first.wait_for()
    assert pg.locator("#docs button", has_text="✕").count() == 0
    # a wrong key: nothing the reader's key showed stays on screen
    pg.fill("#api-key", "cl_00000000_" + "A" * 43)
    pg.click("#key-form button")
    pg.locator("#error").wait_for()
    assert pg.locator("#docs tbody tr").count() == 0
    ctx.close()


def test_a_newer_question_or_a_switch_drops_the_answer_still_being_written(
        page, site, monkeypatch):
    """A slow generator is still writing the first answer when the user asks again, or
    picks another collection: the first answer never comes back onto the page."""
    from replay_llm import openai_endpoint

    pg = page
    server, key = site
    with openai_endpoint(monkeypatch, "Replace the solenoid coil [1].") as srv:
        srv.delay = 3.0
        upload(pg, "solenoid.md", "# Valves\n\nA valve solenoid reads 20 to 60 ohms.\n")
        wait_indexed(pg, "solenoid.md")
        cited_row(pg, "What resistance is normal for a valve solenoid?", "60 ohms")  # sources out
        pg.fill("#question", "How do I renew my Spanish passport?")
        pg.click("#ask-btn")
        pg.locator("#refusal-line").wait_for()
        pg.wait_for_timeout(4000)  # the first answer's stream has ended meanwhile
        assert pg.locator("#refusal-line").is_visible() and pg.locator("#citations").is_hidden()
        assert "solenoid" not in pg.locator("#answer").text_content()

        with server.client(key) as c:
            c.post("/api/collections", json={"name": "spare"})
        pg.click("#refresh")
        pg.wait_for_selector("#collection option[value=spare]", state="attached")
        cited_row(pg, "What resistance is normal for a valve solenoid?", "60 ohms")
        pg.select_option("#collection", "spare")
        pg.wait_for_timeout(4000)
        assert pg.locator("#answer").is_hidden() and pg.locator("#citations").is_hidden()
        pg.select_option("#collection", "manuals")


def test_a_stream_cut_off_leaves_neither_its_text_nor_its_sources(page, site, monkeypatch):
    from replay_llm import openai_endpoint

    pg = page
    server, _ = site
    with openai_endpoint(monkeypatch, "Replace the solenoid coil [1].") as srv:
        srv.delay = 3.0
        upload(pg, "coil.md", "# Coils\n\nA pump coil reads 5 ohms when it is healthy.\n")
        wait_indexed(pg, "coil.md")
        cited_row(pg, "What does a healthy pump coil read?", "5 ohms")
        server.drop_connections()  # the server goes while the answer is written
        pg.locator("#answer").wait_for(state="hidden", timeout=10_000)
        assert pg.locator("#citations").is_hidden() and pg.locator("#error").is_visible()
        assert pg.locator("#error").text_content() == (
            "the connection to the server was lost while the answer arrived")


def test_the_document_list_keeps_the_keyboard_s_place_while_it_polls(page, site):
    pg = page
    server, key = site
    upload(pg, "pump.md", "# Pump\n\nPrime the pump before the season.\n")
    wait_indexed(pg, "pump.md")
    pg.get_by_role("button", name="delete pump.md").focus()
    with pg.expect_response("**/collections/manuals/documents"):  # a poll, nothing changed
        next_poll(pg)
    pg.wait_for_timeout(300)  # drawn
    focused = "document.activeElement.getAttribute('aria-label')"
    assert pg.evaluate(focused) == "delete pump.md"
    with server.client(key) as c:  # the list changes under it
        files = [("files", ("hose.md", b"# Hose\n\nDrain the hose in autumn.\n"))]
        assert c.post("/api/collections/manuals/documents", files=files).status_code == 202
    next_poll(pg)  # the page learns of it
    wait_indexed(pg, "hose.md")
    assert pg.evaluate(focused) == "delete pump.md"


def test_a_revoked_key_leaves_nothing_on_screen_and_stops_the_polling(site, browser):
    server, _ = site
    keys = KeyStore(server.data_dir)
    read_key, rec = keys.create(("manuals",), "read", "to be revoked")
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.clock.install()
    pg = ctx.new_page()
    polls: list[str] = []
    pg.on("request", lambda r: polls.append(r.url) if r.url.endswith("/documents") else None)
    pg.goto(server.url + "/")
    pg.fill("#api-key", read_key)
    pg.click("#key-form button")
    pg.locator("#docs tbody tr").first.wait_for()
    assert keys.revoke(rec.id)
    next_poll(pg)
    pg.locator("#error").wait_for()
    assert "not valid" in pg.locator("#error").text_content()
    assert pg.locator("#docs tbody tr").count() == 0
    assert pg.locator("#collection option").count() == 0
    seen = len(polls)
    next_poll(pg)
    pg.wait_for_timeout(500)
    assert len(polls) == seen  # no poll after the key stopped working
    ctx.close()


def test_another_site_s_page_calls_the_api_with_a_key(site, browser, tmp_path):
    """The README's promise: a key lets another site's page call the server (CORS: the
    browser's preflight is answered, and the answers, errors too, are readable)."""
    import http.server
    import threading

    server, key = site
    (tmp_path / "tool.html").write_text(
        "<!doctype html><title>tool</title><pre id=out></pre><script>\n"
        f"const api = {json.dumps(server.url)}, key = {json.dumps(key)};\n"
        "async function call(path, k) {\n"
        "  const r = await fetch(api + path, {headers: k ? {Authorization: 'Bearer ' + k} : {}});\n"
        "  return r.status + ' ' + JSON.stringify(await r.json());\n"
        "}\n"
        "(async () => {\n"
        "  const out = [await call('/api/collections', key), await call('/api/collections', '')];\n"
        "  document.getElementById('out').textContent = out.join('\\n');\n"
        "})().catch((e) => { document.getElementById('out').textContent = 'failed: ' + e; });\n"
        "</script>\n")
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(  # noqa: E731
        *a, directory=str(tmp_path))
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    ctx = browser.new_context()
    pg = ctx.new_page()
    try:
        pg.goto(f"http://localhost:{other.server_address[1]}/tool.html")  # another origin
        pg.wait_for_function("document.getElementById('out').textContent !== ''")
        with_key, without = pg.locator("#out").text_content().split("\n")
        assert with_key.startswith("200 ") and '"manuals"' in with_key
        assert without.startswith("401 ") and "an API key is required" in without
    finally:
        ctx.close()
        other.shutdown()
        other.server_close()



def _on_port(app, port: int = 0):  # type: ignore[no-untyped-def]
    """A LiveServer of ``app`` on ``port`` (0: a free one), its socket reusable, so that a
    second server can take the port of a stopped one as a restarted process does."""
    import socket
    import threading

    from server_live import LiveServer

    s = LiveServer(app)
    s.sock.close()
    s.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.sock.bind(("127.0.0.1", port))
    s.port = s.sock.getsockname()[1]
    s.url = f"http://127.0.0.1:{s.port}"
    s.thread = threading.Thread(target=s.server.run, kwargs={"sockets": [s.sock]}, daemon=True)
    return s.start()


def test_a_server_that_goes_away_is_named_and_the_page_recovers_when_it_is_back(
        embedder, browser, tmp_path):
    """The page said 'Failed to fetch' when its server stopped, and kept saying it after
    the server was back and the list polled fine again."""
    from citeline.server.app import create_app

    data = tmp_path / "data"
    data.mkdir()
    app = create_app(data_dir=data, embedder=embedder)
    server = _on_port(app)
    with server.client() as c:
        assert c.post("/api/collections", json={"name": "flaky"}).status_code == 201
    ctx = browser.new_context()
    ctx.clock.install()
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(server.url + "/")
        pg.wait_for_selector("#collection option[value=flaky]", state="attached")
        server.stop()
        err = pg.locator("#error")
        next_poll(pg)
        err.wait_for()  # the next poll of the document list
        expected = f"cannot reach the server at 127.0.0.1:{server.port}: is it running?"
        assert err.text_content() == expected
        pg.fill("#question", "Is anyone there?")
        pg.click("#ask-btn")
        pg.locator('#answer[data-state="done"]').wait_for(state="attached")
        assert err.text_content() == expected and pg.locator("#answer").is_hidden()
        server = _on_port(app, server.port)
        next_poll(pg)
        err.wait_for(state="hidden")  # a poll that succeeds clears it
        assert pg.locator("#collection-info").text_content().startswith("strategy E")
    finally:
        ctx.close()
        server.stop()
    assert errors == []


def test_a_stream_that_ends_without_done_is_not_shown_as_the_answer(page):
    """The server's real stream, ended before its done event as a proxy that times out
    ends it: the page showed the streamed text as the whole answer, unchecked."""
    pg = page
    upload(pg, "anchor.md", "# Anchors\n\nThe bower anchor is weighed every spring.\n")
    wait_indexed(pg, "anchor.md")
    cut: list[str] = []

    def end_early(route):  # type: ignore[no-untyped-def]
        resp = route.fetch()
        body = resp.text()
        cut.append(body[body.index("event: done"):])
        route.fulfill(response=resp, body=body[:body.index("event: done")])

    pg.route("**/ask", end_early)
    pg.fill("#question", "When is the bower anchor weighed?")
    pg.click("#ask-btn")
    pg.locator('#answer[data-state="done"]').wait_for(state="attached")
    assert cut and '"refused": false' in cut[0]  # a real answer was cut
    assert pg.locator("#answer").is_hidden() and pg.locator("#citations").is_hidden()
    assert pg.locator("#error").text_content() == (
        "the answer was cut off: its stream ended before the server finished it")
    pg.unroute("**/ask")
    row = cited_row(pg, "When is the bower anchor weighed?", "bower anchor")  # whole again
    pg.locator('#answer[data-state="done"]').wait_for()
    assert row.is_visible() and pg.locator("#error").is_hidden()


def test_a_collection_deleted_by_another_client_leaves_the_page(page, site):
    """The page kept the deleted collection selected and listed, and polled it for a 404
    every five seconds ('no collection named ...') until the user pressed reload."""
    pg = page
    server, key = site
    with server.client(key) as c:
        assert c.post("/api/collections", json={"name": "doomed"}).status_code == 201
    pg.click("#refresh")
    pg.wait_for_selector("#collection option[value=doomed]", state="attached")
    pg.select_option("#collection", "doomed")
    pg.locator("#collection-info", has_text="· 0 documents").wait_for()
    polls: list[str] = []
    pg.on("request", lambda r: polls.append(r.url) if "/doomed/" in r.url else None)
    with server.client(key) as c:
        assert c.delete("/api/collections/doomed").status_code == 200
    err = pg.locator("#error")
    next_poll(pg)
    err.wait_for()
    assert err.text_content() == "the collection 'doomed' no longer exists: it was deleted"
    assert pg.locator("#collection option[value=doomed]").count() == 0
    assert pg.locator("#collection").input_value() == "manuals"
    seen = len(polls)
    next_poll(pg)
    pg.wait_for_timeout(500)
    assert len(polls) == seen  # nothing more asked of it
    assert err.text_content() == "the collection 'doomed' no longer exists: it was deleted"


def test_a_collection_is_created_and_deleted_from_the_page(page, site, browser):
    """The page could create a collection but not delete one: a '*' write key now gets
    a Delete button, confirmed first; a key for some collections only gets none."""
    pg = page
    server, key = site
    pg.click("#create-box summary")
    pg.fill("#new-name", "scratch")
    pg.click("#create-form button")
    pg.wait_for_selector("#collection option[value=scratch]", state="attached")
    assert pg.locator("#collection").input_value() == "scratch"
    upload(pg, "scrap.md", "# Scrap\n\nA scrap of paper about tide tables.\n")
    wait_indexed(pg, "scrap.md")
    messages: list[str] = []
    pg.once("dialog", lambda d: (messages.append(d.message), d.dismiss()))
    pg.get_by_role("button", name="Delete", exact=True).click()
    pg.wait_for_timeout(300)
    assert messages == ["Delete the collection scratch: its index and its 1 document(s), "
                        "uploaded files and all?"]
    assert pg.locator("#collection option[value=scratch]").count() == 1  # "no" keeps it
    pg.once("dialog", lambda d: d.accept())
    pg.get_by_role("button", name="Delete", exact=True).click()
    pg.wait_for_selector("#collection option[value=scratch]", state="detached")
    assert pg.locator("#collection").input_value() == "manuals"
    assert pg.locator("#error").is_hidden()
    with server.client(key) as c:
        assert "scratch" not in [x["name"] for x in c.get("/api/collections").json()["collections"]]
    assert not (server.data_dir / "scratch").exists()
    # a write key for one collection may not delete it: no button
    one_key, _ = KeyStore(server.data_dir).create(("manuals",), "write", "one collection")
    ctx = browser.new_context()
    other = ctx.new_page()
    other.goto(server.url + "/")
    other.fill("#api-key", one_key)
    other.click("#key-form button")
    other.locator("#collection-info", has_text="strategy E").wait_for()
    assert other.locator("#collection").input_value() == "manuals"
    assert other.locator("#delete-collection").is_hidden()
    ctx.close()


def test_a_question_over_the_limit_is_refused_whole_not_cut_and_answered(page):
    """The question box cut a pasted question to its first 4000 characters, silently,
    and the page answered that part: the user got an answer to a question they did
    not ask. Now the whole question is sent and the server's limit is shown."""
    pg = page
    question = "Which note says when the cookies are baked? " + "Please answer carefully. " * 200
    assert len(question) > 4000
    pg.locator("#question").focus()
    pg.keyboard.insert_text(question)  # what a paste does
    assert pg.input_value("#question") == question
    pg.click("#ask-btn")
    err = pg.locator("#error")
    err.wait_for()
    assert err.text_content() == (
        "invalid request: question — question: String should have at most 4000 characters")
    assert pg.locator("#answer").is_hidden() and pg.locator("#citations").is_hidden()


def test_a_late_document_list_is_not_drawn_under_the_collection_picked_since(page, site):
    """A slow answer to the list of one collection, arriving after the user picked
    another, was drawn under the new one's name, its delete buttons acting on it."""
    pg = page
    server, key = site
    with server.client(key) as c:
        c.post("/api/collections", json={"name": "quiet"})
    upload(pg, "bilge.md", "# Bilge\n\nPump the bilge dry after every storm.\n")
    wait_indexed(pg, "bilge.md")
    with pg.expect_response("**/api/collections/manuals/documents"):  # its poll is set
        pg.click("#refresh")
    pg.wait_for_selector("#collection option[value=quiet]", state="attached")
    held: list = []
    pg.route("**/api/collections/manuals/documents",  # the next poll's answer is held
             lambda route: route.continue_() if held else held.append(route))
    with pg.expect_request("**/api/collections/manuals/documents"):
        next_poll(pg)
    pg.wait_for_timeout(300)
    assert held
    with pg.expect_response("**/api/collections/quiet/documents"):
        pg.select_option("#collection", "quiet")  # quiet's list is drawn (no rows)
    pg.wait_for_timeout(300)
    held[0].continue_()  # manuals' list arrives now
    pg.wait_for_timeout(1000)
    assert pg.locator("#collection").input_value() == "quiet"
    assert pg.locator("#docs tbody tr").count() == 0
    assert pg.locator("#collection-info").text_content().endswith("· 0 documents · 0 chunks")
    pg.unroute("**/api/collections/manuals/documents")
    pg.select_option("#collection", "manuals")


def test_the_viewer_shows_the_last_document_clicked_and_close_stops_a_recording(page):
    """A slow document (a big PDF's bytes) that arrived after a later click replaced
    the later document under the later one's title; Close only hid the viewer, so a
    recording kept playing, and no file's blob: URL was ever freed."""
    pg = page
    upload(pg, "slow-one.md", "# Slow\n\nThe slow note is about barnacles.\n")
    upload(pg, "quick-one.md", "# Quick\n\nThe quick note is about limpets.\n")
    wait_indexed(pg, "slow-one.md")
    wait_indexed(pg, "quick-one.md")
    held: list = []
    pg.route("**/documents/slow-one.md/text", lambda route: held.append(route))
    pg.get_by_role("button", name="slow-one.md", exact=True).click()
    pg.wait_for_timeout(300)
    assert held
    pg.get_by_role("button", name="quick-one.md", exact=True).click()
    pg.locator("#doc-text", has_text="limpets").wait_for()
    held[0].continue_()  # the first document's text arrives last
    pg.wait_for_timeout(1000)
    assert "limpets" in pg.locator("#doc-text").text_content()
    assert pg.locator("#viewer-title").text_content() == "quick-one.md"
    pg.unroute("**/documents/slow-one.md/text")

    pg.set_input_files("#file-input", files=[
        {"name": "harbour.wav", "mimeType": "audio/wav", "buffer": _silent_wav(9)},
        {"name": "harbour.vtt", "mimeType": "text/vtt", "buffer": VTT.encode()},
    ])
    wait_indexed(pg, "harbour.wav")
    cited_row(pg, "How often should the sourdough starter be fed?", "harbour.wav").click()
    pg.locator("#viewer-body audio").wait_for()
    src = pg.locator("#viewer-body audio").get_attribute("src").split("#")[0]
    probe = ("new Promise((done) => { const a = new Audio(); a.onloadedmetadata = () => "
             f"done('read'); a.onerror = () => done('gone'); a.src = {json.dumps(src)}; }})")
    assert pg.evaluate(probe) == "read"
    pg.click("#viewer-close")
    assert pg.locator("#viewer").is_hidden()
    assert pg.locator("audio, video").count() == 0  # nothing left playing
    assert pg.evaluate(probe) == "gone"  # the file's memory is freed


def test_the_new_collection_form_takes_what_the_server_takes(page, site):
    """The form refused a threshold off its 0.005 grid (a calibrated 0.6725: 'enter a
    valid value', nothing sent), and let through a name ending in '.' for the server
    to refuse; it now checks the server's own rules."""
    pg = page
    server, key = site
    pg.click("#create-box summary")
    pg.fill("#new-name", "tides.")
    pg.click("#create-form button")
    assert pg.evaluate("document.querySelector('#new-name').validity.patternMismatch")
    pg.fill("#new-name", "tides_2024")
    pg.fill("#new-threshold", "0.6725")
    pg.click("#create-form button")
    pg.wait_for_selector("#collection option[value=tides_2024]", state="attached")
    assert pg.locator("#collection-info").text_content().startswith(
        "strategy E · threshold 0.6725 ·")
    with server.client(key) as c:
        assert c.get("/api/collections/tides_2024").json()["threshold"] == 0.6725
        assert c.delete("/api/collections/tides_2024").status_code == 200


def test_a_marker_citing_several_sources_links_each_of_them(page, monkeypatch):
    """The server writes a model's marker of several sources as "[1, 2]" ("[1-2]" too);
    the page linked single-number markers only, so those stayed plain text."""
    from replay_llm import openai_endpoint

    with openai_endpoint(monkeypatch, "Descale it monthly [1, 2]. Use citric acid [1-2]."):
        pg = page
        upload(pg, "scale-a.md", "# Limescale\n\nDescale the urn once a month with citric acid.\n")
        upload(pg, "scale-b.md", "# Urn care\n\nAn urn should be descaled monthly, then rinsed.\n")
        wait_indexed(pg, "scale-a.md")
        wait_indexed(pg, "scale-b.md")
        pg.fill("#question", "How often should I descale the urn?")
        pg.click("#ask-btn")
        pg.locator('#answer[data-state="done"]').wait_for()
        assert pg.locator("#answer").text_content().startswith(
            "Descale it monthly [1, 2]. Use citric acid [1, 2].")
        refs = pg.locator("#answer a.cite-ref")
        assert refs.all_text_contents() == ["1", "2", "1", "2"]
        assert [refs.nth(i).get_attribute("href") for i in range(4)] == [
            "#cite-1", "#cite-2", "#cite-1", "#cite-2"]
        refs.nth(1).click()
        pg.locator("#cite-2.flash").wait_for()


def test_a_search_shows_the_passages_without_an_answer_and_opens_them(page):
    """Search without generation (the API's /search) had no place on the page."""
    pg = page
    upload(pg, "tides.md", "# Tides\n\n## Spring tides\n\nSpring tides follow the new and the "
           "full moon, when the sun and the moon pull in one line.\n")
    wait_indexed(pg, "tides.md")
    pg.fill("#question", "spring tides new moon")
    with pg.expect_request("**/search") as req:
        pg.click("#search-btn")
    assert req.value.post_data_json == {"query": "spring tides new moon", "k": 20}
    pg.locator('#answer[data-state="done"]').wait_for()
    n = pg.locator("#citations tbody tr").count()
    assert 1 <= n <= 20
    assert pg.locator("#search-line").text_content() == (
        f"{n} passage(s) for “spring tides new moon”, best first (a search: no answer is written)")
    assert pg.locator("#answer a.cite-ref").count() == 0
    row = pg.locator("#citations tbody tr").filter(has_text="tides.md").first
    assert row.locator("td.loc").text_content().startswith("#char=")
    float(row.locator("td.dist").text_content())
    quote = row.locator("td.quote").text_content()
    row.locator("button.open-doc").press("Enter")  # from the keyboard, as a citation
    mark = pg.locator("#doc-text mark#highlight")
    mark.wait_for()
    assert mark.text_content() == quote and "full moon" in quote


def test_an_upload_on_its_way_is_shown_until_the_server_has_it(page):
    """Nothing on the page showed an upload whose body was still being sent: no row,
    no state, so a user with a big file on a slow link could only wait or send it again."""
    pg = page
    held: list = []
    pg.route("**/api/collections/manuals/documents",
             lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    pg.set_input_files("#file-input", files=[
        {"name": "slow-a.md", "mimeType": "text/markdown", "buffer": b"# A\n\nOne slow file.\n"},
        {"name": "slow-b.pdf", "mimeType": "application/pdf",  # fails at once: not a PDF
         "buffer": b"not a PDF" + b"\0" * 300_000}])
    note = pg.locator("#upload-note")
    note.wait_for()
    assert note.text_content() == "uploading 2 file(s), 0.3 MB…"
    assert held
    held[0].continue_()  # the server has it now
    note.wait_for(state="hidden")
    pg.unroute("**/api/collections/manuals/documents")
    wait_indexed(pg, "slow-a.md")


def test_the_only_in_field_limits_a_question_and_a_search_to_some_documents(page, tmp_path):
    pg = page
    upload(pg, "kettle.md", (FIXTURES / "corpus" / "kettle.md").read_text())
    wait_indexed(pg, "kettle.md")
    upload(pg, "bikes.md", (FIXTURES / "corpus" / "guides" / "bicycle.md").read_text())
    wait_indexed(pg, "bikes.md")
    pg.fill("#question", "How long is the kettle warranty?")
    # not in the bicycle guide: refused, saying where it looked
    pg.fill("#only-in", "bikes.md")
    pg.click("#ask-btn")
    line = pg.locator("#refusal-line")
    line.wait_for()
    assert line.text_content().endswith(" in the 1 document matching 'bikes.md'")
    # in the kettle's: every source is it, and the answer says it is from it only
    pg.fill("#only-in", " kettle.md , ")
    pg.click("#ask-btn")
    pg.locator("#answer-scope").wait_for()
    assert pg.locator("#answer-scope").text_content() == "from 1 document(s) only: kettle.md"
    docs = pg.locator("#citations tbody tr td:nth-child(2)").all_text_contents()
    assert docs and all("kettle.md" in d for d in docs)
    pg.screenshot(path=str(tmp_path / "only-in.png"), full_page=True)
    pg.fill("#only-in", "bikes.md")
    pg.click("#search-btn")
    pg.locator("#search-line").wait_for()
    docs = pg.locator("#citations tbody tr td:nth-child(2)").all_text_contents()
    assert docs and all("bikes.md" in d for d in docs)
    # an entry that names nothing is an error naming it, not an empty answer
    pg.fill("#only-in", "nope/*")
    pg.click("#ask-btn")
    err = pg.locator("#error")
    err.wait_for()
    assert "no indexed document matches 'nope/*'" in err.text_content()


# The viewer's image and the cited area's highlight as drawn: their boxes on screen, the
# image's natural size (its own pixels, the ones a citation's xywh counts) and its source.
DRAWN_IMAGE = """() => {
  const img = document.querySelector('#viewer-body .image-box img');
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  return { natural: [img.naturalWidth, img.naturalHeight], img: box(img), src: img.src,
           alt: img.alt, mark: box(document.querySelector('#image-highlight')) };
}"""


def xywh_of(locator: str) -> list[int]:
    """The box of a locator such as ``#xywh=8,13,782,152`` or ``#page=2&xywh=184,1003,1429,84``."""
    return [int(v) for v in locator.split("xywh=")[1].split()[0].split(",")]


def assert_highlight_over(drawn: dict, xywh: list[int]) -> None:
    """The highlight covers the cited box, scaled to the image's displayed size (2 px slack)."""
    (nat_w, nat_h), (left, top, width, height) = drawn["natural"], drawn["img"]
    x, y, w, h = xywh
    sx, sy = width / nat_w, height / nat_h
    want = [left + x * sx, top + y * sy, w * sx, h * sy]
    assert all(abs(a - b) <= 2 for a, b in zip(drawn["mark"], want, strict=True)), (drawn, want)


def test_a_screenshot_s_citation_shows_the_image_with_the_cited_lines_outlined(page, tmp_path):
    pg = page
    shot = (FIXTURES / "real" / "irrigation-handset.png").read_bytes()
    pg.set_input_files("#file-input", files=[{"name": "irrigation-handset.png",
                                              "mimeType": "image/png", "buffer": shot}])
    wait_indexed(pg, "irrigation-handset.png")
    pg.fill("#only-in", "irrigation-handset.png")
    row = cited_row(pg, "What is the frost thermostat setting?", "five degrees")
    locator = row.locator("td.loc").text_content()
    assert locator.startswith("#xywh=")
    quote = row.locator("td.quote").text_content()
    with pg.expect_response(lambda r: r.url.endswith("/irrigation-handset.png/file")) as resp:
        row.click()
    assert resp.value.headers["content-type"] == "image/png" and resp.value.body() == shot
    pg.locator("#image-highlight").wait_for()
    drawn = pg.evaluate(DRAWN_IMAGE)
    assert drawn["natural"] == [900, 700] and drawn["src"].startswith("blob:")
    assert drawn["alt"] == "image of irrigation-handset.png"
    assert_highlight_over(drawn, xywh_of(locator))
    x, y, w, h = xywh_of(locator)
    assert pg.get_by_role("img", name=f"the cited area: {w} × {h} pixels at x {x}, y {y}; "
                          "its text is marked below").is_visible()
    # under it, what OCR read, the cited range marked as a text citation's is
    mark = pg.locator("#doc-text mark#highlight")
    assert mark.text_content() == quote and "five degrees" in quote
    assert pg.locator("#ocr-note").text_content().startswith("The text OCR read from the image")
    pg.screenshot(path=str(tmp_path / "image-citation.png"))
    # a narrower window shows the image smaller: the highlight stays on its lines
    pg.set_viewport_size({"width": 700, "height": 900})
    pg.wait_for_timeout(100)
    narrow = pg.evaluate(DRAWN_IMAGE)
    assert narrow["img"][2] < drawn["img"][2]
    assert_highlight_over(narrow, xywh_of(locator))
    # closing frees the image's memory, as it does a recording's
    probe = ("new Promise((done) => { const i = new Image(); i.onload = () => done('read'); "
             f"i.onerror = () => done('gone'); i.src = {json.dumps(drawn['src'])}; }})")
    assert pg.evaluate(probe) == "read"
    pg.click("#viewer-close")
    assert pg.evaluate(probe) == "gone"


def test_a_tiff_s_citation_shows_its_cited_page_as_png(page, tmp_path):
    """No browser shows a TIFF: the page fetches the cited page as the server's PNG."""
    pg = page
    pg.set_input_files("#file-input", files=[{
        "name": "water-budget.tiff", "mimeType": "image/tiff",
        "buffer": (FIXTURES / "real" / "water-budget.tiff").read_bytes()}])
    wait_indexed(pg, "water-budget.tiff")
    pg.fill("#only-in", "water-budget.tiff")
    pg.fill("#question", "What is the consumption by site?")
    pg.click("#ask-btn")
    pg.locator('#answer[data-state="done"]').wait_for()
    # the answer's sentence is on the second page: its marker opens that page
    with pg.expect_response(lambda r: r.url.endswith("/water-budget.tiff/image?page=2")) as resp:
        pg.locator("#answer a.cite-ref").first.click()
    assert resp.value.status == 200 and resp.value.headers["content-type"] == "image/png"
    pg.locator("#image-highlight").wait_for()
    where = pg.locator("#viewer-where").text_content()
    assert where.startswith("water-budget.tiff #page=2&xywh=")
    drawn = pg.evaluate(DRAWN_IMAGE)
    assert drawn["natural"] == [2667, 1500] and drawn["alt"] == "image of water-budget.tiff, page 2"
    assert_highlight_over(drawn, xywh_of(where))
    assert pg.locator("#doc-text mark#highlight").text_content() == "CONSUMPTION BY SITE"
    pg.screenshot(path=str(tmp_path / "tiff-citation.png"))
    # the other page is a button away: the box is on its own page only, the quote stays marked
    assert pg.locator("#image-page").text_content() == "page 2 of 2"
    with pg.expect_response(lambda r: r.url.endswith("/water-budget.tiff/image?page=1")):
        pg.get_by_role("button", name="previous page").click()
    pg.locator("#image-page").filter(has_text="page 1 of 2").wait_for()
    assert pg.locator("#image-highlight").count() == 0
    assert pg.evaluate(DRAWN_IMAGE_ALT) == "image of water-budget.tiff, page 1"
    assert pg.locator("#doc-text mark#highlight").text_content() == "CONSUMPTION BY SITE"
    # on the first page "previous" is off: the keyboard's focus is on "next"
    assert pg.get_by_role("button", name="previous page").is_disabled()
    assert pg.evaluate("document.activeElement.getAttribute('aria-label')") == "next page"
    pg.keyboard.press("Enter")
    pg.locator("#image-highlight").wait_for()
    assert_highlight_over(pg.evaluate(DRAWN_IMAGE), xywh_of(where))


# The alt text of the viewer's image (which page it is).
DRAWN_IMAGE_ALT = "document.querySelector('#viewer-body .image-box img').alt"


def test_an_image_opened_from_the_list_shows_the_image_and_the_text_read(page, tmp_path):
    """A name in the document list opens an image as the picture itself, the text OCR
    read under it, nothing marked: a HEIC (which Chromium does not show) as the server's
    PNG of it, turned as the phone stored it to be shown; a screenshot as its file; a
    scan of two pages at its first, a button away from the second."""
    pg = page
    real = FIXTURES / "real"
    pg.set_input_files("#file-input", files=[
        {"name": "phone-photo.heic", "mimeType": "image/heic",
         "buffer": (real / "irrigation-handset-rotated.heic").read_bytes()},
        {"name": "water-budget.tiff", "mimeType": "image/tiff",
         "buffer": (real / "water-budget.tiff").read_bytes()},
        {"name": "irrigation-handset.png", "mimeType": "image/png",
         "buffer": (real / "irrigation-handset.png").read_bytes()}])
    for name in ("phone-photo.heic", "water-budget.tiff", "irrigation-handset.png"):
        wait_indexed(pg, name)
    opener = pg.get_by_role("button", name="phone-photo.heic", exact=True)
    assert opener.get_attribute("title") == "show the image and its text"
    with pg.expect_response(lambda r: r.url.endswith("/phone-photo.heic/image?page=1")) as resp:
        opener.click()
    assert resp.value.status == 200 and resp.value.headers["content-type"] == "image/png"
    pg.locator("#ocr-note").wait_for()
    drawn = pg.evaluate(DRAWN_IMAGE.replace(
        "mark: box(document.querySelector('#image-highlight'))", "mark: null"))
    assert drawn["natural"] == [900, 700] and drawn["alt"] == "image of phone-photo.heic"
    assert drawn["src"].startswith("blob:") and drawn["img"][2] > 0
    assert pg.locator("#image-highlight").count() == 0 and pg.locator(".image-pages").count() == 0
    assert pg.locator("#ocr-note").text_content() == "The text OCR read from the image:"
    text = pg.locator("#doc-text").text_content()
    assert "Cut the old emitter off flush with the pipe" in text
    assert pg.locator("#doc-text mark").count() == 0
    assert pg.locator("#viewer-title").text_content() == "phone-photo.heic"
    pg.screenshot(path=str(tmp_path / "heic-from-the-list.png"))

    with pg.expect_response(lambda r: r.url.endswith("/irrigation-handset.png/file")):
        pg.get_by_role("button", name="irrigation-handset.png", exact=True).click()
    pg.locator("#doc-text").filter(has_text="Cut the old emitter").wait_for()
    assert pg.evaluate(DRAWN_IMAGE_ALT) == "image of irrigation-handset.png"

    with pg.expect_response(lambda r: r.url.endswith("/water-budget.tiff/image?page=1")):
        pg.get_by_role("button", name="water-budget.tiff", exact=True).click()
    pg.locator("#image-page").filter(has_text="page 1 of 2").wait_for()
    assert pg.locator("#ocr-note").text_content() == "The text OCR read from the image, every page:"
    assert "CONSUMPTION BY SITE" in pg.locator("#doc-text").text_content()
    with pg.expect_response(lambda r: r.url.endswith("/water-budget.tiff/image?page=2")):
        pg.get_by_role("button", name="next page").click()
    pg.locator("#image-page").filter(has_text="page 2 of 2").wait_for()
    assert pg.evaluate("[document.querySelector('#viewer-body .image-box img').naturalWidth, "
                       "document.activeElement.getAttribute('aria-label')]") == [2667, "previous page"]
    assert pg.get_by_role("button", name="next page").is_disabled()
    # a text document opens as its text, as before
    upload(pg, "kettle-note.md", "# Kettle\n\nDescale the kettle every month with vinegar.\n")
    wait_indexed(pg, "kettle-note.md")
    pg.get_by_role("button", name="kettle-note.md", exact=True).click()
    pg.locator("#doc-text").filter(has_text="Descale the kettle").wait_for()
    assert pg.locator("#viewer-body img").count() == 0


def test_a_mailed_pdf_s_pages_are_shown_beside_its_citation(page, tmp_path):
    """A citation of an attached PDF's text names the PDF's pages next to the place in
    the message, and one of a mailed workbook's rows its sheet range, as the locator's
    JSON says them."""
    import email.policy
    import io
    from email.generator import BytesGenerator

    import doc_builders as b

    msg = b.mail_message("Island timetables", "Both timetables are attached.\n")
    msg.add_attachment(b.numbered_pages_pdf(6), maintype="application", subtype="pdf",
                       filename="timetable.pdf")
    b.spreadsheet(tmp_path / "piers.xlsx", {"Piers": [
        ["Pier", "Berths", "Operator"], ["North pier", 4, "Aran Ferries"],
        ["Kilronan quay", 9, "the harbour board of Inishmore"]]})
    msg.add_attachment((tmp_path / "piers.xlsx").read_bytes(), maintype="application",
                       subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                       filename="piers.xlsx")
    raw = io.BytesIO()
    BytesGenerator(raw, policy=email.policy.default).flatten(msg)
    pg = page
    pg.set_input_files("#file-input", files=[{"name": "timetables.eml",
                                              "mimeType": "message/rfc822",
                                              "buffer": raw.getvalue()}])
    wait_indexed(pg, "timetables.eml")
    row = cited_row(pg, "When does the ferry to island number 5 leave?", "Fact 5:")
    loc = row.locator("td.loc").text_content()
    # one chunk holds the six short pages: a run, as the CLI says it
    assert loc.startswith("#char=") and loc.endswith(" (in timetable.pdf, pages 1-6)")
    row = cited_row(pg, "Who operates the Kilronan quay?", "Kilronan quay")
    loc = row.locator("td.loc").text_content()
    assert loc.startswith("#char=") and " (in piers.xlsx, Piers!A" in loc
    pg.screenshot(path=str(tmp_path / "attached-pages.png"), full_page=True)
