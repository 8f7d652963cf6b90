"""The HTTP API over real HTTP: uploads and states, auth, limits, names, shapes, concurrency."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest

from citeline import cli
from citeline.pipeline import Index
from citeline.server.auth import KeyStore
from citeline.store.sqlite import DB_NAME
from server_live import FIXTURES, no_leftovers, wait_settled

KETTLE = (FIXTURES / "corpus" / "kettle.md").read_bytes()
NOTES = (FIXTURES / "corpus" / "notes.txt").read_bytes()
LIMIT_MB = 0.05  # 52,428 bytes: small enough to test the limit with a tiny body
WARRANTY = "How long is the kettle warranty?"


@pytest.fixture(scope="module")
def env(live, embedder, tmp_path_factory):
    data = tmp_path_factory.mktemp("server") / "data"
    data.mkdir()
    ks = KeyStore(data)
    admin, _ = ks.create(("*",), "write", "admin")
    reader, _ = ks.create(("kb",), "read", "reader of kb")
    other_writer, _ = ks.create(("other",), "write", "writer of other")
    server = live(data_dir=data, embedder=embedder, max_upload_mb=LIMIT_MB)
    c = server.client(admin)
    for name in ("kb", "other"):
        assert c.post("/api/collections", json={"name": name}).status_code == 201
    r = c.post("/api/collections/kb/documents",
               files=[("files", ("kettle.md", KETTLE)), ("files", ("notes.txt", NOTES))])
    assert r.status_code == 202
    wait_settled(c, "kb")
    return {"server": server, "data": data, "admin": admin, "reader": reader,
            "other_writer": other_writer, "client": c, "keys": ks}


def assert_error(r: httpx.Response, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "detail"}
    assert body["error"]["code"] == code and body["error"]["message"]
    return body["error"]


def test_health_ready_version_openapi(env, embedder):
    s = env["server"]
    with s.client() as anon:  # health, version and the page need no key
        assert anon.get("/healthz").json() == {"status": "ok"}
        ready = anon.get("/readyz")
        assert ready.status_code == 200 and ready.json()["model_loaded"] is True
        v = anon.get("/api/version").json()
        assert v["citeline"] == "0.1.0" and v["model"]["key"] == embedder.identity.key
        spec = anon.get("/openapi.json").json()
        assert "/api/collections/{name}/ask" in spec["paths"]
        page = anon.get("/")
        assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
        assert anon.get("/static/app.js").status_code == 200
        assert_error(anon.get("/no/such/thing"), 404, "not_found")


def test_the_openapi_document_declares_the_bodies_the_server_sends_and_takes(env):
    # schemathesis: every 4xx but FastAPI's 422 was undocumented, and that 422 was
    # declared as FastAPI's {detail: [...]}, not the {error: {code, message, detail}}
    # sent; an upload declared no body, and ask no event stream
    spec = env["client"].get("/openapi.json").json()
    error = {"$ref": "#/components/schemas/ErrorBody"}
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            for status in ("4XX", "5XX"):
                assert op["responses"][status]["content"]["application/json"]["schema"] == error, \
                    (method, path)
            assert "422" not in op["responses"], (method, path)
    upload = spec["paths"]["/api/collections/{name}/documents"]["post"]["requestBody"]
    form = upload["content"]["multipart/form-data"]["schema"]
    assert form["required"] == ["files"] and form["properties"]["files"]["type"] == "array"
    assert form["properties"]["files"]["minItems"] == 1
    ask = spec["paths"]["/api/collections/{name}/ask"]["post"]["responses"]["200"]["content"]
    assert set(ask) == {"application/json", "text/event-stream"}
    # schemathesis checks each event against the stream's schema: it is an event, not a string
    event = ask["text/event-stream"]["schema"]
    assert event["properties"]["event"]["enum"] == ["citations", "answer", "done", "error"]
    # a collection's name rule is in the schema (the server's 400 names the field)
    pattern = spec["components"]["schemas"]["CreateCollection"]["properties"]["name"]["pattern"]
    for name, ok in (("kb", True), ("a.b-c_d", True), ("a" * 64, True), ("", False),
                     ("a" * 65, False), ("x.", False), ("-x", False), ("../up", False)):
        assert bool(re.fullmatch(pattern, name)) is ok, name
    # a blank question is refused, and the schema says so
    question = spec["components"]["schemas"]["AskBody"]["properties"]["question"]
    assert not re.search(question["pattern"], " \t\n") and re.search(question["pattern"], " a")
    file = spec["paths"]["/api/collections/{name}/documents/{document}/file"]["get"]
    assert "*/*" in file["responses"]["200"]["content"]


def test_a_method_a_path_does_not_take_is_405_naming_every_method_it_does(env):
    # schemathesis: OPTIONS /api/collections/kb answered 405 with "Allow: GET" (the first
    # route of the path only), hiding its DELETE, and a message naming nothing
    c = env["client"]
    for method, path, allowed in (
            ("OPTIONS", "/api/collections/kb", "DELETE, GET"),
            ("PUT", "/api/collections", "GET, POST"),
            ("PATCH", "/api/collections/kb/documents/kettle.md", "DELETE, GET"),
            # (a DELETE there is routed too: to the document 'kettle.md/file', a 404)
            ("POST", "/api/collections/kb/documents/kettle.md/file", "DELETE, GET, HEAD"),
            ("GET", "/api/collections/kb/search", "POST")):
        r = c.request(method, path)
        err = assert_error(r, 405, "method_not_allowed")
        assert r.headers["allow"] == allowed, (method, path)
        assert err["message"] == f"{method} is not allowed on {path}; it takes {allowed}"


def test_upload_answers_pending_then_indexer_states(env):
    c, data = env["client"], env["data"]
    r = c.post("/api/collections/kb/documents", files=[
        ("files", ("bicycle.md", (FIXTURES / "corpus" / "guides" / "bicycle.md").read_bytes())),
        ("files", ("empty.md", b"")),
        ("files", ("cyrillic.txt", (FIXTURES / "corpus" / "cyrillic.txt").read_bytes())),
    ])
    assert r.status_code == 202
    up = r.json()["documents"]
    assert [d["document"] for d in up] == ["bicycle.md", "empty.md", "cyrillic.txt"]
    assert all(d["state"] == "pending" for d in up) and up[0]["bytes"] > 0
    docs = wait_settled(c, "kb")
    assert docs["bicycle.md"]["state"] == "indexed"
    assert docs["empty.md"]["state"] == "failed" and "empty" in docs["empty.md"]["reason"]
    assert docs["cyrillic.txt"]["state"] == "failed" and "UTF-8" in docs["cyrillic.txt"]["reason"]
    # chunk counts and versions are the indexer's own, as `citeline status --json` shows them
    idx = Index(data / "kb", create=False)
    mine = {s.record.path: s.to_json() for s in idx.status()}
    for name in ("kettle.md", "bicycle.md"):
        for field in ("chunks", "content_hash", "model_id", "pipeline_version", "extractor_version"):
            assert docs[name][field] == mine[name][field]
        assert docs[name]["chunks"] > 0

    # a failed one: fix the file by re-uploading it, then retry the other in place
    r = c.post("/api/collections/kb/documents", files=[("files", ("empty.md", b"# Fixed\n\nNow it has text.\n"))])
    assert r.status_code == 202
    r = c.post("/api/collections/kb/documents/cyrillic.txt/retry")
    assert r.status_code == 202 and r.json()["state"] == "pending"
    docs = wait_settled(c, "kb")
    assert docs["empty.md"]["state"] == "indexed" and docs["empty.md"]["chunks"] == 1
    assert docs["cyrillic.txt"]["state"] == "failed"  # the same bytes fail the same way

    # delete: gone from the list, the index and the files folder
    for name in ("empty.md", "cyrillic.txt", "bicycle.md"):
        assert c.delete(f"/api/collections/kb/documents/{name}").json() == {"deleted": name}
    docs = wait_settled(c, "kb")
    assert set(docs) == {"kettle.md", "notes.txt"}
    assert sorted(p.name for p in (data / "kb" / "files").iterdir()) == ["kettle.md", "notes.txt"]
    assert_error(c.delete("/api/collections/kb/documents/bicycle.md"), 404, "not_found")
    hits = c.post("/api/collections/kb/search", json={"query": "bicycle tyre pressure"}).json()["hits"]
    assert all(h["document"] != "bicycle.md" for h in hits)


def test_search_and_ask_return_the_cli_json(env, embedder):
    c, data = env["client"], env["data"]
    r = c.post("/api/collections/kb/search", json={"query": "descaling vinegar", "k": 3})
    body = r.json()
    assert set(body) == {"query", "mode", "fusion", "hits", "timings_ms"} and len(body["hits"]) == 3
    idx = Index(data / "kb", embedder=embedder, create=False)
    mine = idx.search("descaling vinegar", k=3).to_json()
    # the CLI's JSON, each hit with the server's URL of its file at its place
    for hit in body["hits"]:
        url = hit.pop("url")
        assert url.startswith(f"/api/collections/kb/documents/{hit['document']}/file#")
        assert url.endswith(hit["locator"])
    strip = lambda d: {k: v for k, v in d.items() if k != "timings_ms"}  # noqa: E731
    assert strip(body) == strip(mine)

    answer = c.post("/api/collections/kb/ask", json={"question": WARRANTY}).json()
    ref = idx.ask(WARRANTY).to_json()
    # the CLI's url is relative to the indexed folder; the server's resolves against it
    for key in ("citations", "spans"):
        for mine_item, served in zip(ref[key], answer[key], strict=True):
            path, _, fragment = mine_item["url"].partition("#")
            assert served["url"] == f"/api/collections/kb/documents/{path}/file#{fragment}"
            mine_item["url"] = served["url"]
    assert answer["spans"] and c.get(answer["citations"][0]["url"].split("#")[0]).content == \
        (data / "kb" / "files" / "kettle.md").read_bytes()
    assert {k: v for k, v in answer.items() if k != "timings"} == {
        k: v for k, v in ref.items() if k != "timings"}
    assert not answer["refused"] and answer["citations"][0]["document"] == "kettle.md"
    text = c.get("/api/collections/kb/documents/kettle.md/text").json()["text"]
    cit = answer["citations"][0]
    start, end = cit["location"]["char"]
    assert text[start:end] == cit["quote"] and "24 months" in cit["quote"]

    refused = c.post("/api/collections/kb/ask", json={"question": "what is the capital of mongolia"}).json()
    assert refused["refused"] and refused["citations"] == []
    assert refused["answer"].startswith("NO ANSWER: nothing under cosine distance 0.675")
    assert refused["nearest_distance"] > 0.675

    assert_error(c.post("/api/collections/kb/search", json={"query": ""}), 422, "validation_error")
    err = assert_error(c.post("/api/collections/kb/search", json={"query": "x", "mode": "fuzzy"}),
                       422, "validation_error")
    assert err["detail"][0]["field"] == "mode"
    assert_error(c.post("/api/collections/kb/search", json={"query": "x", "k": 0}), 422, "validation_error")
    assert_error(c.post("/api/collections/nope/search", json={"query": "x"}), 404, "not_found")
    # a blank query, JSON's types taken as they are, a body that is not JSON: each names its field
    for body, field in (({"query": "   \n"}, "query"), ({"query": "x", "k": "5"}, "k"),
                        ({"query": "x", "k": True}, "k")):
        err = assert_error(c.post("/api/collections/kb/search", json=body), 422, "validation_error")
        assert [d["field"] for d in err["detail"]] == [field], body
    err = assert_error(c.post("/api/collections/kb/ask", json={"question": "x", "stream": "yes"}),
                       422, "validation_error")
    assert [d["field"] for d in err["detail"]] == ["stream"]
    err = assert_error(c.post("/api/collections/kb/search", content=b'{bad',
                              headers={"content-type": "application/json"}), 422, "validation_error")
    assert err["detail"][0]["field"] == "" and err["detail"][0]["type"] == "json_invalid"
    assert err["detail"][0]["message"].startswith("the body is not valid JSON at character 1")
    # mode rerank with no cross-encoder on disk: the same code answered and streamed
    err = assert_error(c.post("/api/collections/kb/search", json={"query": "x", "mode": "rerank"}),
                       503, "model_unavailable")
    r = c.post("/api/collections/kb/ask", json={"question": WARRANTY, "mode": "rerank",
                                                "stream": True})
    streamed = json.loads(r.text.split("event: error\ndata: ", 1)[1])
    assert streamed["error"]["code"] == "model_unavailable"
    assert streamed["error"]["message"] == err["message"]


def test_a_json_body_the_parser_cannot_read_is_a_validation_error_saying_why(env):
    # schemathesis: bytes that are not UTF-8, or arrays nested past the parser's depth,
    # got FastAPI's 400 "There was an error parsing the body", naming nothing; they are
    # bodies that are not JSON, as b'{bad' is
    c = env["client"]
    json_type = {"content-type": "application/json"}
    for body, why in ((b'\xff{"query": "x"}', "not UTF-8 text (byte 0xff at byte 0)"),
                      (b'{"query": "caf\xe9"}', "not UTF-8 text (byte 0xe9 at byte 14)"),
                      (b"[" * 100_000 + b"]" * 100_000, "nested deeper")):
        for path in ("/api/collections/kb/search", "/api/collections/kb/ask", "/api/collections"):
            err = assert_error(c.post(path, content=body, headers=json_type), 422,
                               "validation_error")
            assert err["message"] == "invalid request: body", path
            [d] = err["detail"]
            assert d["field"] == "" and d["type"] == "json_invalid", path
            assert d["message"].startswith("the body is not valid JSON: ") and why in d["message"]


def test_ask_streams_citations_then_text_then_done(env):
    c = env["client"]
    with c.stream("POST", "/api/collections/kb/ask", json={"question": WARRANTY, "stream": True}) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        raw = "".join(r.iter_text())
    events = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((lines["event"], json.loads(lines["data"])))
    names = [n for n, _ in events]
    assert names[0] == "citations" and names[-1] == "done"
    assert set(names[1:-1]) == {"answer"} and len(names) >= 3
    done = events[-1][1]
    assert events[0][1]["citations"] == done["citations"] and done["citations"]
    assert all(c["url"].startswith("/api/collections/kb/documents/kettle.md/file#char=")
               for c in done["citations"] if c["document"] == "kettle.md")
    head = {k: v for k, v in done.items() if k in events[0][1]}
    assert events[0][1] == head  # the first event says what done says, nearest distance too
    assert "".join(d["text"] for n, d in events if n == "answer") == done["answer"]


def _events(raw: str) -> list[tuple[str, dict]]:
    out = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_search_and_ask_in_some_documents(env):
    c = env["client"]
    ask, search = "/api/collections/kb/ask", "/api/collections/kb/search"
    r = c.post(search, json={"query": "kettle warranty descaling", "documents": ["*.txt"]})
    body = r.json()
    assert r.status_code == 200 and body["documents"] == ["notes.txt"]
    assert body["hits"] and {h["document"] for h in body["hits"]} == {"notes.txt"}

    answer = c.post(ask, json={"question": WARRANTY, "documents": ["kettle.md"]}).json()
    assert not answer["refused"] and answer["documents"] == ["kettle.md"]
    assert {ci["document"] for ci in answer["citations"]} == {"kettle.md"}
    assert answer["reason"].endswith("searched only 1 document matching 'kettle.md': kettle.md")
    # the kettle's warranty is not in the notes: refused, saying where it looked
    refused = c.post(ask, json={"question": WARRANTY, "documents": ["notes.txt"]}).json()
    assert refused["refused"] and refused["documents"] == ["notes.txt"]
    assert refused["answer"].endswith(" in the 1 document matching 'notes.txt'")
    # streamed: the same answer in done
    r = c.post(ask, json={"question": WARRANTY, "stream": True, "documents": ["kettle.md"]})
    events = _events(r.text)
    assert r.status_code == 200 and events[-1][0] == "done"
    assert {k: v for k, v in events[-1][1].items() if k != "timings"} == {
        k: v for k, v in answer.items() if k != "timings"}

    # its first event says where it looked, as done and the unstreamed answer do
    assert events[0][0] == "citations"
    assert events[0][1] == {k: v for k, v in answer.items() if k in events[0][1]}
    assert events[0][1]["documents"] == ["kettle.md"] and events[0][1]["citations"]
    assert events[0][1]["reason"].endswith("searched only 1 document matching 'kettle.md': "
                                           "kettle.md")
    # a refusal's too (no generator ran: its first event comes with done)
    events = _events(c.post(ask, json={"question": WARRANTY, "stream": True,
                                       "documents": ["notes.txt"]}).text)
    assert [n for n, _ in events] == ["citations", "answer", "done"]
    assert events[0][1]["refused"] and events[0][1]["documents"] == ["notes.txt"]
    assert events[0][1] == {k: v for k, v in refused.items() if k in events[0][1]}
    # unfiltered, the first event is as it was: no documents field
    events = _events(c.post(ask, json={"question": WARRANTY, "stream": True}).text)
    assert "documents" not in events[0][1] and "documents" not in events[-1][1]

    # an entry that matches nothing: 400 naming the field and the entry, streamed or not
    for path, body in ((search, {"query": "x"}), (ask, {"question": "x"}),
                       (ask, {"question": "x", "stream": True})):
        err = assert_error(c.post(path, json={**body, "documents": ["kettle.md", "nope/**"]}),
                           400, "bad_request")
        assert err["detail"] == {"field": "documents", "unmatched": ["nope/**"]}, path
        assert err["message"] == "documents: no indexed document matches 'nope/**'"
    # not a list of non-blank strings: 422 naming the field
    for documents, field in (("kettle.md", "documents"), ([], "documents"), ([""], "documents.0"),
                             (["kettle.md", " "], "documents.1"), ([3], "documents.0"),
                             (["x" * 5000], "documents.0")):
        for path, body in ((search, {"query": "x"}), (ask, {"question": "x"})):
            err = assert_error(c.post(path, json={**body, "documents": documents}), 422,
                               "validation_error")
            assert [d["field"] for d in err["detail"]] == [field], (documents, path)
    # null is every document, as no field at all
    r = c.post(search, json={"query": "descaling vinegar", "k": 3, "documents": None})
    assert "documents" not in r.json() and len(r.json()["hits"]) == 3


def test_media_with_its_transcript_is_one_document(env):
    c, files = env["client"], env["data"] / "other" / "files"
    vtt = b"WEBVTT\n\n00:00:02.000 --> 00:00:04.000\nThe ferry leaves at seven.\n"
    r = c.post("/api/collections/other/documents",
               files=[("files", ("ferry.mp3", b"ID3\x03\x00")), ("files", ("ferry.vtt", vtt))])
    assert r.status_code == 202
    docs = wait_settled(c, "other")
    assert docs["ferry.mp3"]["state"] == "indexed" and "ferry.vtt" not in docs
    hit = c.post("/api/collections/other/search", json={"query": "When does the ferry leave?",
                                                         "k": 1}).json()["hits"][0]
    assert hit["document"] == "ferry.mp3" and hit["locator"].startswith("#t=2")
    assert c.delete("/api/collections/other/documents/ferry.mp3").status_code == 200
    assert not (files / "ferry.mp3").exists() and not (files / "ferry.vtt").exists()


def test_a_recording_and_its_transcript_uploaded_apart_are_one_document(env):
    c = env["client"]
    vtt = b"WEBVTT\n\n00:00:05.000 --> 00:00:08.000\nThe tram depot opens at six.\n"
    # the recording first: alone it has no text
    assert c.post("/api/collections/other/documents",
                  files=[("files", ("depot.mp3", b"ID3\x03\x00"))]).status_code == 202
    docs = wait_settled(c, "other")
    assert docs["depot.mp3"]["state"] == "failed" and "no transcript" in docs["depot.mp3"]["reason"]
    # its transcript in a later upload: the recording is indexed with it, not left failed
    assert c.post("/api/collections/other/documents",
                  files=[("files", ("depot.vtt", vtt))]).status_code == 202
    docs = wait_settled(c, "other")
    assert docs["depot.mp3"]["state"] == "indexed" and "depot.vtt" not in docs
    hit = c.post("/api/collections/other/search", json={"query": "When does the tram depot open?",
                                                         "k": 1}).json()["hits"][0]
    assert hit["document"] == "depot.mp3" and hit["locator"] == "#t=5,8"
    assert c.delete("/api/collections/other/documents/depot.mp3").status_code == 200

    # the transcript first: indexed on its own, until its recording arrives
    assert c.post("/api/collections/other/documents",
                  files=[("files", ("yard.vtt", vtt.replace(b"tram depot", b"bus yard")))]
                  ).status_code == 202
    assert wait_settled(c, "other")["yard.vtt"]["state"] == "indexed"
    assert c.post("/api/collections/other/documents",
                  files=[("files", ("yard.mp4", b"\0\0\0\x18ftypmp42"))]).status_code == 202
    docs = wait_settled(c, "other")
    assert docs["yard.mp4"]["state"] == "indexed" and "yard.vtt" not in docs  # words not twice
    hits = c.post("/api/collections/other/search", json={"query": "When does the bus yard open?",
                                                          "k": 5}).json()["hits"]
    assert [h["document"] for h in hits if "bus yard" in h["content"]] == ["yard.mp4"]
    assert c.delete("/api/collections/other/documents/yard.mp4").status_code == 200


def test_auth_401_403_and_scopes(env):
    s = env["server"]
    with s.client() as anon:
        err = assert_error(anon.get("/api/collections"), 401, "unauthorized")
        assert "API key" in err["message"]
        r = anon.post("/api/collections/kb/search", json={"query": "kettle"})
        assert_error(r, 401, "unauthorized")
        assert r.headers["www-authenticate"] == "Bearer"
        # the key is checked before the body's fields: no validation detail without one
        assert_error(anon.post("/api/collections/kb/search", json={"query": "", "k": "x"}),
                     401, "unauthorized")
        # ... and before the body is parsed: a body that is not JSON is 401 too, not 422
        assert_error(anon.post("/api/collections/kb/search", content=b'{bad',
                               headers={"content-type": "application/json"}), 401, "unauthorized")
        deep = b"[" * 100_000 + b"]" * 100_000  # the JSON parser gives up on it: still 401
        assert_error(anon.post("/api/collections/kb/search", content=deep,
                               headers={"content-type": "application/json"}), 401, "unauthorized")
    with s.client("cl_00000000_" + "A" * 43) as bad:
        assert_error(bad.post("/api/collections/kb/search", json={"query": "kettle"}), 401, "unauthorized")
    with s.client(env["reader"]) as reader:
        listed = reader.get("/api/collections").json()
        assert [x["name"] for x in listed["collections"]] == ["kb"]
        assert listed["can_create"] is False  # the page offers no "New collection" to this key
        assert reader.post("/api/collections/kb/search", json={"query": "kettle"}).status_code == 200
        err = assert_error(reader.post("/api/collections/other/search", json={"query": "kettle"}),
                           403, "forbidden")
        assert err["detail"]["collections"] == ["kb"]
        assert_error(reader.post("/api/collections/kb/documents", files=[("files", ("a.md", b"# A\n\nx\n"))]),
                     403, "forbidden")
        assert_error(reader.delete("/api/collections/kb/documents/kettle.md"), 403, "forbidden")
        assert_error(reader.post("/api/collections", json={"name": "mine"}), 403, "forbidden")
    with s.client(env["other_writer"]) as ow:
        assert_error(ow.post("/api/collections/kb/documents", files=[("files", ("a.md", b"# A\n\nx\n"))]),
                     403, "forbidden")
        assert_error(ow.delete("/api/collections/other"), 403, "forbidden")  # needs '*'
    # X-API-Key works too; a revoked key stops working at once
    key, rec = env["keys"].create(("kb",), "read")
    h = {"X-API-Key": key}
    with s.client() as anon:
        assert anon.get("/api/collections/kb", headers=h).status_code == 200
        assert env["keys"].revoke(rec.id)
        assert_error(anon.get("/api/collections/kb", headers=h), 401, "unauthorized")


def test_upload_size_limit_is_413_and_leaves_nothing(env):
    c, files = env["client"], env["data"] / "kb" / "files"
    big = b"# Big\n\n" + b"word " * 20_000  # 100 KB > 52 KB
    with no_leftovers(files):
        r = c.post("/api/collections/kb/documents",
                   files=[("files", ("ok.md", b"# ok\n\nfine\n")), ("files", ("big.md", big))])
        err = assert_error(r, 413, "payload_too_large")
        assert err["detail"] == {"file": "big.md", "limit_bytes": int(LIMIT_MB * 1024 * 1024)}
    assert set(wait_settled(c, "kb")) == {"kettle.md", "notes.txt"}  # nothing queued either
    r = c.post("/api/collections/kb/search", json={"query": "x" * (2 << 20)})
    assert assert_error(r, 413, "payload_too_large")["detail"] == {"limit_bytes": 1 << 20}
    with env["server"].client() as anon:  # without a valid key: 401 before any body limit
        for headers in ({}, {"Authorization": "Bearer cl_00000000_" + "A" * 43}):
            r = anon.post("/api/collections/kb/search", json={"query": "x" * (2 << 20)},
                          headers=headers)
            assert_error(r, 401, "unauthorized")
    # sent chunked, with no Content-Length, the body is counted as it arrives
    chunks = (b'{"query": "' + b"x" * (1 << 16) for _ in range(64))
    r = c.post("/api/collections/kb/search", content=chunks,
               headers={"content-type": "application/json"})
    assert assert_error(r, 413, "payload_too_large")["detail"] == {"limit_bytes": 1 << 20}
    small = (part for part in (b'{"query": ', b'"kettle warranty"', b', "k": 2}'))
    r = c.post("/api/collections/kb/search", content=small,
               headers={"content-type": "application/json"})
    assert r.status_code == 200 and len(r.json()["hits"]) == 2


def test_an_upload_cut_short_is_400_and_replaces_nothing(env):
    c, files = env["client"], env["data"] / "kb" / "files"
    before = c.get("/api/collections/kb/documents/kettle.md/text").text
    head = (b'--XB\r\ncontent-disposition: form-data; name="files"; filename="kettle.md"'
            b"\r\n\r\n# Kettle\n\nTRUNCATED: the first half of a lon")
    whole = b"\r\n".join([head + b"ger line.", b'--XB\r\ncontent-disposition: form-data; '
                           b'name="files"; filename="notes.txt"\r\n\r\nand then nothing more'])
    for body in (head, whole):  # the first file cut short; the last one cut short
        with no_leftovers(files):
            r = c.post("/api/collections/kb/documents", content=body,
                       headers={"content-type": "multipart/form-data; boundary=XB"})
            err = assert_error(r, 400, "bad_request")
            assert err["message"].startswith("malformed multipart upload: the body ends before "
                                              "its closing boundary")
    docs = wait_settled(c, "kb")
    assert docs["kettle.md"]["state"] == "indexed"
    assert c.get("/api/collections/kb/documents/kettle.md/text").text == before


def test_an_upload_that_would_fill_the_disk_is_507_and_leaves_nothing(live, embedder,
                                                                      tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    free_mb = shutil.disk_usage(data).free >> 20
    # a reserve above what is free: refused before a byte is read
    full = live(data_dir=data, embedder=embedder, min_free_mb=free_mb + 1024)
    with full.client() as c:
        assert c.post("/api/collections", json={"name": "kb"}).status_code == 201
        files = data / "kb" / "files"
        with no_leftovers(files):
            r = c.post("/api/collections/kb/documents", files=[("files", ("kettle.md", KETTLE))])
            err = assert_error(r, 507, "insufficient_storage")
            assert err["detail"]["min_free_bytes"] == (free_mb + 1024) << 20
    # a reserve 32 MiB under what is free, and a 64 MiB body sent with no length: the
    # disk is looked at again as it streams, and the upload stops with the file named
    tight = live(data_dir=data, embedder=embedder, max_upload_mb=128,
                 min_free_mb=(shutil.disk_usage(data).free >> 20) - 32)
    block = b"# Log\n\n" + b"a line of a long log\n" * 52_000
    boundary = b"citelineboundary"
    parts = [b"--" + boundary + b"\r\ncontent-disposition: form-data; name=\"files\"; "
             b"filename=\"log.md\"\r\ncontent-type: text/markdown\r\n\r\n"]
    parts += [block] * 64 + [b"\r\n--" + boundary + b"--\r\n"]
    with tight.client() as c, no_leftovers(files):
        r = c.post("/api/collections/kb/documents", content=iter(parts), headers={
            "content-type": "multipart/form-data; boundary=" + boundary.decode()})
        err = assert_error(r, 507, "insufficient_storage")
        assert err["detail"]["file"] == "log.md" and "log.md" in err["message"]
        assert c.get("/api/collections/kb/documents").json()["documents"] == []


def test_an_upload_that_stalls_is_408_and_leaves_nothing(live, embedder, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    server = live(data_dir=data, embedder=embedder, upload_idle_seconds=1.0)
    with server.client() as c:
        assert c.post("/api/collections", json={"name": "kb"}).status_code == 201
        r = c.post("/api/collections/kb/documents", files=[("files", ("kettle.md", KETTLE))])
        assert r.status_code == 202
        wait_settled(c, "kb")
    part = (b"--b\r\ncontent-disposition: form-data; name=\"files\"; filename=\"slow.md\""
            b"\r\n\r\n# Slow\n\nthe first bytes, then nothing")
    head = (f"POST /api/collections/kb/documents HTTP/1.1\r\nHost: 127.0.0.1:{server.port}"
            f"\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: 100000"
            f"\r\n\r\n").encode()
    with no_leftovers(data / "kb" / "files"), socket.create_connection(
            ("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(head + part)
        t0 = time.monotonic()
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            got = sock.recv(65536)
            if not got:
                break
            answer += got
        assert time.monotonic() - t0 < 15
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 408"), answer
    assert json.loads(body)["error"]["code"] == "upload_timeout"
    with server.client() as c:  # the server still answers, and what it held is intact
        docs = c.get("/api/collections/kb/documents").json()["documents"]
        assert [(d["document"], d["state"]) for d in docs] == [("kettle.md", "indexed")]


def test_file_names_are_sanitised_or_refused(env):
    c, data = env["client"], env["data"]
    root = data.parent
    r = c.post("/api/collections/other/documents", files=[
        ("files", ("../../etc/passwd.md", b"# p\n\nnot a password file\n")),
        ("files", ("/tmp/abs.md", b"# a\n\nabsolute\n")),
        ("files", ("..\\..\\win.md", b"# w\n\nbackslashes\n")),
    ])
    assert r.status_code == 202
    assert [d["document"] for d in r.json()["documents"]] == ["passwd.md", "abs.md", "win.md"]
    assert not (root / "etc").exists() and not (data / "etc").exists()
    assert sorted(p.name for p in (data / "other" / "files").iterdir()) == ["abs.md", "passwd.md", "win.md"]
    for bad, code in ((b".env.md", 400), (b"..", 400), (b"../", 400), (b"a\x01b.md", 400),
                      (b"\xff.md", 400), (b"tool.exe", 415),
                      (b"line%0Abreak.md", 400), (b"cr%0dreturn.md", 400)):  # as browsers send
        # a raw body: httpx would percent-encode the control character itself
        body = (b'--XyZ\r\nContent-Disposition: form-data; name="files"; filename="' + bad
                + b'"\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--\r\n')
        r = c.post("/api/collections/other/documents", content=body,
                   headers={"Content-Type": "multipart/form-data; boundary=XyZ"})
        assert_error(r, code, {400: "bad_request", 415: "unsupported_media_type"}[code])
    # a browser sends a quote in a file name as %22: the name is the user's, with its quote
    body = (b'--XyZ\r\nContent-Disposition: form-data; name="files"; filename="a%22b.md"'
            b'\r\nContent-Type: text/plain\r\n\r\n# Quoted\n\nx\r\n--XyZ--\r\n')
    r = c.post("/api/collections/other/documents", content=body,
               headers={"Content-Type": "multipart/form-data; boundary=XyZ"})
    assert r.status_code == 202 and r.json()["documents"][0]["document"] == 'a"b.md'
    assert (data / "other" / "files" / 'a"b.md').exists()
    assert_error(c.post("/api/collections/other/documents", json={"x": 1}), 415, "unsupported_media_type")
    assert_error(c.post("/api/collections/other/documents", data={"note": "no file"},
                        files=[("nofile", ("", b""))]), 400, "bad_request")
    err = assert_error(c.post("/api/collections/other/documents",
                              files=[("other", ("stray.md", b"# Stray\n\nx\n"))]), 400, "bad_request")
    assert err["detail"] == {"field": "other"} and "'files'" in err["message"]
    # documents are addressed inside the collection only
    for path in ("..%2F..%2Fetc%2Fpasswd", "../kb/files/kettle.md", "%2Fetc%2Fpasswd"):
        r = c.get(f"/api/collections/other/documents/{path}/file")
        assert r.status_code == 404, path
    f = c.get("/api/collections/kb/documents/kettle.md/file")
    assert f.content == KETTLE and f.headers["content-security-policy"] == "sandbox"
    wait_settled(c, "other")


def test_a_document_name_longer_than_the_filesystem_allows_is_404(env):
    # schemathesis: GET .../documents/<300 characters>/file was a 500 (stat raised
    # ENAMETOOLONG); no document can have that name
    c = env["client"]
    for name in ("a" * 300, "é" * 200 + ".md", "dir/" + "b" * 256 + ".md"):
        for path in ("/file", "/text", ""):
            assert_error(c.get(f"/api/collections/kb/documents/{name}{path}"), 404, "not_found")
        assert_error(c.post(f"/api/collections/kb/documents/{name}/retry"), 404, "not_found")
        assert_error(c.delete(f"/api/collections/kb/documents/{name}"), 404, "not_found")


def test_a_filename_star_names_the_upload(env):
    """A part named by ``filename*=UTF-8''...`` only (RFC 6266's encoding, which some
    clients send for a non-ASCII name though RFC 7578 says not to) is that file,
    percent-decoded (it was answered "no file"); beside a plain ``filename`` it wins, as
    RFC 6266 says; a malformed one is a 400 naming the field."""
    c = env["client"]
    assert c.post("/api/collections", json={"name": "names"}).status_code == 201
    url = "/api/collections/names/documents"

    def send(disposition: bytes) -> httpx.Response:
        # a raw body: httpx writes only filename="..."
        body = (b'--XyZ\r\nContent-Disposition: form-data; name="files"; ' + disposition
                + b"\r\nContent-Type: text/plain\r\n\r\n# Rates\n\nThe euro rate is fixed "
                b"every morning.\r\n--XyZ--\r\n")
        return c.post(url, content=body,
                      headers={"Content-Type": "multipart/form-data; boundary=XyZ"})

    for disposition, name in (
        (b"filename*=UTF-8''%E2%82%AC%20rates.txt", "€ rates.txt"),
        (b"filename=\"EUR rates.md\"; filename*=utf-8'en'%E2%82%AC%20rates.md", "€ rates.md"),
        (b"filename*=UTF-8''%C2%A3%20rates.md; filename=\"GBP rates.md\"", "£ rates.md"),
        (b"filename*=ISO-8859-1''caf%E9.md", "café.md"),
    ):
        r = send(disposition)
        assert r.status_code == 202, (disposition, r.text)
        assert [d["document"] for d in r.json()["documents"]] == [name]
    files = env["data"] / "names" / "files"
    assert sorted(p.name for p in files.iterdir()) == ["café.md", "£ rates.md", "€ rates.md",
                                                       "€ rates.txt"]
    with no_leftovers(files):
        for bad in (b"filename*=UTF-8''%E2%82.md",  # cut UTF-8
                    b"filename*=UTF-8''rates%2.md",  # a '%' without two hex digits
                    b"filename*=%E2%82%AC.md",  # no charset'language'
                    b"filename*=KOI8-R''rates.md",  # a charset not UTF-8 or ISO-8859-1
                    b"filename=\"ok.md\"; filename*=UTF-8'rates.md"):  # it wins, malformed
            err = assert_error(send(bad), 400, "bad_request")
            assert err["detail"] == {"field": "filename*"} and "filename*" in err["message"]
    docs = wait_settled(c, "names")
    assert docs["€ rates.txt"]["state"] == "indexed"
    assert c.delete("/api/collections/names").status_code == 200


def test_concurrent_asks_while_indexing(env):
    c, admin = env["client"], env["admin"]
    s = env["server"]
    # enough text that indexing outlasts the first asks: 5 files of 30 sections
    files = []
    for i in range(5):
        body = "\n\n".join(
            f"## Topic {i}-{j}\n\nThe inspection of valve {i}-{j} happens every {j + 2} weeks; "
            f"log the pressure reading and the technician's initials in ledger {i}."
            for j in range(30)
        )
        files.append(("files", (f"ledger{i}.md", f"# Ledger {i}\n\n{body}\n".encode())))
    assert c.post("/api/collections/kb/documents", files=files).status_code == 202
    results: list[tuple[int, str]] = []
    seen_busy: list[bool] = []
    errors: list[BaseException] = []

    def asker() -> None:
        try:
            with s.client(admin) as cl:
                for _ in range(4):
                    r = cl.post("/api/collections/kb/ask", json={"question": WARRANTY})
                    results.append((r.status_code, r.json()["citations"][0]["document"]))
                    states = [d["state"] for d in cl.get("/api/collections/kb/documents").json()["documents"]]
                    seen_busy.append(any(x in ("pending", "indexing") for x in states))
        except BaseException as exc:  # surfaced below, in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=asker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert len(results) == 32 and all(r == (200, "kettle.md") for r in results)
    assert any(seen_busy)  # the asks really overlapped the indexing
    docs = wait_settled(c, "kb")
    assert all(docs[f"ledger{i}.md"]["state"] == "indexed" for i in range(5))
    for i in range(5):
        c.delete(f"/api/collections/kb/documents/ledger{i}.md")


def test_request_timeout_is_504(env):
    cfg = env["server"].app.state.config
    old = cfg.request_timeout
    cfg.request_timeout = 1e-4
    try:
        r = env["client"].post("/api/collections/kb/search", json={"query": "kettle"})
    finally:
        cfg.request_timeout = old
    err = assert_error(r, 504, "timeout")
    assert err["detail"] == {"timeout_seconds": 1e-4}


def test_timeout_answers_a_stream_that_has_not_started_and_never_cuts_one_that_has():
    """The middleware over a real ASGI app whose stream waits before its first event
    (as an ask does while it retrieves) or between events (as a generator does)."""
    import asyncio

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from citeline.server.app import ServerConfig, TimeoutMiddleware

    def events(first: float, between: float):  # type: ignore[no-untyped-def]
        async def gen():  # type: ignore[no-untyped-def]
            await asyncio.sleep(first)
            yield "event: citations\ndata: {}\n\n"
            await asyncio.sleep(between)
            yield "event: done\ndata: {}\n\n"
        return gen()

    async def slow_start(request):  # type: ignore[no-untyped-def]
        return StreamingResponse(events(2.0, 0), media_type="text/event-stream")

    async def slow_answer(request):  # type: ignore[no-untyped-def]
        return StreamingResponse(events(0, 1.0), media_type="text/event-stream")

    async def slow_json(request):  # type: ignore[no-untyped-def]
        await asyncio.sleep(2.0)
        return JSONResponse({})

    def blocked_events():  # type: ignore[no-untyped-def]
        time.sleep(3.0)  # a thread waiting for the pipeline's first event (the model busy)
        yield "event: citations\ndata: {}\n\n"

    async def blocked_start(request):  # type: ignore[no-untyped-def]
        return StreamingResponse(blocked_events(), media_type="text/event-stream")

    def blocked_json(request):  # type: ignore[no-untyped-def]
        time.sleep(3.0)  # a search in a worker thread
        return JSONResponse({})

    app = Starlette(routes=[Route("/a/ask", slow_start, methods=["POST"]),
                            Route("/b/ask", slow_answer, methods=["POST"]),
                            Route("/c/search", slow_json, methods=["POST"]),
                            Route("/d/ask", blocked_start, methods=["POST"]),
                            Route("/e/search", blocked_json, methods=["POST"])])
    with TestClient(TimeoutMiddleware(app, ServerConfig(request_timeout=0.3))) as c:
        # a thread cannot be cancelled: the answer comes at the timeout all the same
        for path in ("/d/ask", "/e/search"):
            t0 = time.monotonic()
            r = c.post(path)
            assert time.monotonic() - t0 < 1.5, path
            assert "timeout" in r.text and (r.status_code == 504 or r.text.startswith("event: error"))
        r = c.post("/a/ask")  # headers out, no event in time: an error event, not silence
        assert r.status_code == 200 and r.text.startswith("event: error\n")
        err = json.loads(r.text.split("data: ", 1)[1])["error"]
        assert err["code"] == "timeout" and err["detail"] == {"timeout_seconds": 0.3}
        r = c.post("/b/ask")  # first event in time: the stream runs to its end
        assert r.text == "event: citations\ndata: {}\n\nevent: done\ndata: {}\n\n"
        assert_error(c.post("/c/search"), 504, "timeout")


def test_collections_create_and_delete(env):
    c, data = env["client"], env["data"]
    r = c.post("/api/collections", json={"name": "tmp1", "strategy": "C", "threshold": 0.5})
    assert r.status_code == 201 and r.json()["strategy"] == "C" and r.json()["threshold"] == 0.5
    assert r.json()["ocr_languages"] == "eng"
    r = c.post("/api/collections", json={"name": "briefe", "ocr_languages": "deu+eng"})
    assert r.status_code == 201 and c.get("/api/collections/briefe").json()["ocr_languages"] == "deu+eng"
    assert c.delete("/api/collections/briefe").status_code == 200
    # a language pack Tesseract does not have: refused naming it, no collection left behind
    r = c.post("/api/collections", json={"name": "lettres", "ocr_languages": "fra+tlh"})
    err = assert_error(r, 400, "bad_request")
    assert err["message"].startswith("ocr_languages: Tesseract has no")
    assert "tesseract-ocr-tlh" in err["message"] and not (data / "lettres").exists()
    assert_error(c.post("/api/collections", json={"name": "tmp1"}), 409, "conflict")
    assert_error(c.post("/api/collections", json={"name": "../up"}), 400, "bad_request")
    for name in ("tmp2\n", "tmp2\n\n", "\ntmp2"):  # "$" matched before a final newline
        assert_error(c.post("/api/collections", json={"name": name}), 400, "bad_request")
    assert not (data / "tmp2\n").exists()
    assert c.get("/api/collections/tmp1%0A").status_code == 404
    for name in ("keys.sqlite3", "keys.sqlite3-journal", "Keys.SQLite3-wal"):  # the keys' files
        err = assert_error(c.post("/api/collections", json={"name": name}), 400, "bad_request")
        assert "are the API keys' files" in err["message"], name
    assert c.get("/api/collections").status_code == 200  # the keys still open
    # a folder of the data folder that is not a collection is not taken over (a delete of
    # the collection would have removed what it holds)
    (data / "thesis").mkdir()
    (data / "thesis" / "draft.txt").write_text("precious")
    err = assert_error(c.post("/api/collections", json={"name": "thesis"}), 400, "bad_request")
    assert "not a collection" in err["message"]
    assert (data / "thesis" / "draft.txt").read_text() == "precious"
    shutil.rmtree(data / "thesis")
    err = assert_error(c.post("/api/collections", json={"name": "x."}), 400, "bad_request")
    assert "not ending with '.'" in err["message"]
    assert_error(c.post("/api/collections", json={"name": "t", "threshold": 3}), 422, "validation_error")
    assert_error(c.post("/api/collections", json={"name": "t", "strategy": "Z"}), 422, "validation_error")
    assert c.delete("/api/collections/tmp1").json() == {"deleted": "tmp1"}
    assert not (data / "tmp1").exists()
    assert_error(c.get("/api/collections/tmp1"), 404, "not_found")


def test_open_access_only_on_loopback_without_keys(live, embedder, tmp_path):
    open_srv = live(data_dir=tmp_path / "open", embedder=embedder)
    with open_srv.client() as anon:
        assert anon.post("/api/collections", json={"name": "a"}).status_code == 201
        assert anon.get("/api/collections").json()["collections"][0]["name"] == "a"
    closed = live(data_dir=tmp_path / "closed", embedder=embedder, open_allowed=False)
    with closed.client() as anon:  # as if bound to a network address: no keys means no access
        assert_error(anon.get("/api/collections"), 401, "unauthorized")
    # a server whose keys were all revoked is locked, not opened, even on loopback
    key, rec = KeyStore(tmp_path / "open").create(("*",), "write")
    with open_srv.client() as anon, open_srv.client(key) as keyed:
        assert_error(anon.get("/api/collections"), 401, "unauthorized")
        assert keyed.get("/api/collections").status_code == 200
        assert KeyStore(tmp_path / "open").revoke(rec.id)
        assert_error(anon.get("/api/collections"), 401, "unauthorized")
        assert_error(anon.delete("/api/collections/a"), 401, "unauthorized")


def test_an_open_server_refuses_other_sites_and_host_names(live, embedder, tmp_path):
    """With no key, any program on this machine may call the server, but no web page of
    another site: its browser would upload or delete with the user's access (a no-cors
    POST needs no preflight), and DNS rebinding would let it read the answers."""
    srv = live(data_dir=tmp_path / "open", embedder=embedder)
    with srv.client() as c:
        assert c.post("/api/collections", json={"name": "a"}).status_code == 201
        own = srv.url  # the page's own origin
        assert c.get("/api/collections", headers={"Origin": own}).status_code == 200
        assert c.get("/api/collections", headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
        for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                        {"Origin": "http://127.0.0.2:8799", "Sec-Fetch-Site": "cross-site"}):
            err = assert_error(c.post("/api/collections/a/documents", headers=headers,
                                      files=[("files", ("planted.md", b"# Planted\n\nHi.\n"))]),
                               403, "forbidden")
            assert "other web pages" in err["message"], headers
        assert not (tmp_path / "open" / "a" / "files" / "planted.md").exists()
        err = assert_error(c.get("/api/collections", headers={"Host": "attacker.example"}),
                           403, "forbidden")
        assert "attacker.example" in err["message"]
        assert c.get("/", headers={"Host": "localhost"}).status_code == 200  # the page itself
    # with keys, a key is what is checked: a page of another site has none
    key, _ = KeyStore(tmp_path / "open").create(("*",), "read")
    with srv.client(key) as keyed:
        assert keyed.get("/api/collections", headers={"Origin": "http://tool.example"}
                         ).status_code == 200


def test_single_index_mode_serves_one_cli_index(live, embedder, clean_corpus, tmp_path):
    ix = tmp_path / "kb-index"
    Index(ix, embedder=embedder).index(clean_corpus)
    srv = live(index_dir=ix, embedder=embedder)
    with srv.client() as c:
        cols = c.get("/api/collections").json()
        assert [x["name"] for x in cols["collections"]] == ["kb-index"] and not cols["can_create"]
        t = c.get("/api/collections/kb-index/documents/guides/bicycle.md/text")
        assert t.status_code == 200 and "bicycle" in t.json()["text"].lower()
        f = c.get("/api/collections/kb-index/documents/guides/bicycle.md/file")
        assert f.content == (clean_corpus / "guides" / "bicycle.md").read_bytes()
        head = c.head("/api/collections/kb-index/documents/guides/bicycle.md/file")
        assert head.status_code == 200 and int(head.headers["content-length"]) == len(f.content)
        assert c.post("/api/collections/kb-index/documents/guides/bicycle.md/retry").status_code == 202
        assert wait_settled(c, "kb-index")["guides/bicycle.md"]["state"] == "indexed"
        assert_error(c.post("/api/collections", json={"name": "x"}), 400, "bad_request")
        # an upload named as a CLI-indexed file is refused at once: nothing saved, nothing listed
        before = c.get("/api/collections/kb-index/documents").json()["documents"]
        err = assert_error(c.post("/api/collections/kb-index/documents",
                                  files=[("files", ("kettle.md", b"# Kettle\n\nOther text.\n"))]),
                           409, "conflict")
        assert err["detail"] == {"file": "kettle.md"} and str(clean_corpus) not in err["message"]
        assert not (ix / "files" / "kettle.md").exists()
        assert c.get("/api/collections/kb-index/documents").json()["documents"] == before
        # a name the CLI did not index is an upload like any other
        assert c.post("/api/collections/kb-index/documents",
                      files=[("files", ("new.md", b"# New\n\nA new note about tea.\n"))]).status_code == 202
        assert wait_settled(c, "kb-index")["new.md"]["state"] == "indexed"
        # the folder deleted under the server: 404 from every thread, and nothing (an
        # upload least of all) makes an empty index there again
        shutil.rmtree(ix)
        for _ in range(6):  # the server's threads, with and without a connection
            assert_error(c.get("/api/collections/kb-index/documents"), 404, "not_found")
            assert_error(c.post("/api/collections/kb-index/search", json={"query": "tea"}),
                         404, "not_found")
        assert_error(c.post("/api/collections/kb-index/documents",
                            files=[("files", ("tea.md", b"# Tea\n\nSteep it.\n"))]),
                     404, "not_found")
        assert not ix.exists()
        Index(ix, embedder=embedder).index(clean_corpus / "guides")  # built anew: served
        docs = c.get("/api/collections/kb-index/documents").json()["documents"]
        assert [d["document"] for d in docs] == ["bicycle.md"]


def test_a_compressed_document_s_file_is_served_decompressed(live, embedder, tmp_path,
                                                             monkeypatch):
    """Its #page= and #char= are in the decompressed file, so that is what /file serves,
    named and typed as the inner file (the page's PDF viewer takes application/pdf only);
    one that does not decompress is a 422 saying why. The copy is gone once sent."""
    import gzip

    import doc_builders as b

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = b.titled_pdf(tmp_path, "boiler.pdf", "Boiler", "Bleed the radiators every October.")
    (docs / "boiler.pdf.gz").write_bytes(gzip.compress(pdf.read_bytes(), mtime=0))
    (docs / "kettle.md.gz").write_bytes(gzip.compress(KETTLE, mtime=0))
    (docs / "cut.md.gz").write_bytes(gzip.compress(KETTLE, mtime=0)[:40])
    ix = tmp_path / "gz-index"
    report = Index(ix, embedder=embedder).index(docs)
    assert sorted(report.indexed) == ["boiler.pdf.gz", "kettle.md.gz"]
    srv = live(index_dir=ix, embedder=embedder)
    url = "/api/collections/gz-index/documents"
    with srv.client() as c:
        f = c.get(f"{url}/boiler.pdf.gz/file")
        assert f.status_code == 200 and f.content == pdf.read_bytes()
        assert f.headers["content-type"] == "application/pdf"
        assert 'filename="boiler.pdf"' in f.headers["content-disposition"]
        head = c.head(f"{url}/boiler.pdf.gz/file")
        assert int(head.headers["content-length"]) == len(pdf.read_bytes())
        md = c.get(f"{url}/kettle.md.gz/file")
        assert md.content == KETTLE and md.headers["content-type"] == "text/plain; charset=utf-8"
        err = assert_error(c.get(f"{url}/cut.md.gz/file"), 422, "unreadable_file")
        assert err["message"].startswith("cut.md.gz: not a valid gzip file: ")
        deadline = time.monotonic() + 5  # removed after the last byte is sent
        while list(scratch.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(scratch.iterdir()) == []



def _pixels(data: bytes | Path, page: int = 1) -> tuple[tuple[int, int], bytes]:
    """An image's size and grey pixels (page ``page`` of a TIFF), as Pillow reads them."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data) if isinstance(data, bytes) else data) as img:
        img.seek(page - 1)
        return img.size, img.convert("L").tobytes()


def test_an_image_is_served_inline_and_a_tiff_s_page_as_png(live, embedder, tmp_path):
    """The page shows an image citation as the image with the cited box over it: /file
    serves a PNG inline as image/png (an SVG never as image/svg+xml, whose script would
    run), and /image a page of a TIFF, which no browser shows, as a PNG of its size."""
    import gzip

    real = FIXTURES / "real"
    data = tmp_path / "data"
    data.mkdir()
    srv = live(data_dir=data, embedder=embedder)
    url = "/api/collections/pictures/documents"
    with srv.client() as c:
        assert c.post("/api/collections", json={"name": "pictures"}).status_code == 201
        r = c.post(url, files=[
            ("files", ("irrigation-handset.png", (real / "irrigation-handset.png").read_bytes())),
            ("files", ("water-budget.tiff", (real / "water-budget.tiff").read_bytes()))])
        assert r.status_code == 202
        docs = wait_settled(c, "pictures")
        assert {d["state"] for d in docs.values()} == {"indexed"}, docs

        png = c.get(f"{url}/irrigation-handset.png/file")
        assert png.status_code == 200 and png.content == (real / "irrigation-handset.png").read_bytes()
        assert png.headers["content-type"] == "image/png"
        assert png.headers["content-disposition"].startswith("inline;")
        assert png.headers["content-security-policy"] == "sandbox"
        assert png.headers["x-content-type-options"] == "nosniff"
        # a TIFF is no image a browser shows: its file is a download, its pages are /image's
        tiff = c.get(f"{url}/water-budget.tiff/file")
        assert tiff.headers["content-type"] == "application/octet-stream"
        assert tiff.headers["content-disposition"].startswith("attachment;")

        # the answer's sentence on the TIFF's second page: its box is on that page's PNG
        answer = c.post("/api/collections/pictures/ask",
                        json={"question": "What is the consumption by site?"}).json()
        span = next(s for s in answer["spans"] if s["document"] == "water-budget.tiff")
        assert span["location"]["pages"] == [2]
        x, y, w, h = span["location"]["xywh"]
        page2 = c.get(f"{url}/water-budget.tiff/image", params={"page": 2})
        assert page2.status_code == 200 and page2.headers["content-type"] == "image/png"
        assert page2.headers["content-security-policy"] == "sandbox"
        assert page2.headers["content-disposition"] == \
            "inline; filename*=utf-8''water-budget-page2.png"
        size, pixels = _pixels(page2.content)
        assert page2.content.startswith(b"\x89PNG") and size == (2667, 1500)
        assert (size, pixels) == _pixels(real / "water-budget.tiff", page=2)
        assert page2.headers["x-page-count"] == "2"  # the viewer's pager counts on it
        assert 0 <= x < x + w <= size[0] and 0 <= y < y + h <= size[1]
        first = c.get(f"{url}/water-budget.tiff/image")  # page 1 unless asked
        assert _pixels(first.content) == _pixels(real / "water-budget.tiff", page=1)
        # a page the file does not have, or none at all: the error names the field
        err = assert_error(c.get(f"{url}/water-budget.tiff/image", params={"page": 3}),
                           404, "not_found")
        assert err["detail"] == {"field": "page", "pages": 2}
        assert err["message"] == "page: water-budget.tiff has 2 page(s), no page 3"
        for bad in ("0", "two"):
            err = assert_error(c.get(f"{url}/water-budget.tiff/image", params={"page": bad}),
                               422, "validation_error")
            assert [d["field"] for d in err["detail"]] == ["page"], bad
        # any other image has one page: the image itself, as PNG
        one = c.get(f"{url}/irrigation-handset.png/image")
        assert _pixels(one.content) == _pixels(real / "irrigation-handset.png")
        assert assert_error(c.get(f"{url}/irrigation-handset.png/image?page=2"), 404,
                            "not_found")["detail"] == {"field": "page", "pages": 1}
        err = assert_error(c.get(f"{url}/nothing.tiff/image"), 404, "not_found")
        assert err["message"] == "no original file for 'nothing.tiff' in collection 'pictures'"

        files = data / "pictures" / "files"
        # an SVG (no document, but a file /file serves) is a download, never an image
        (files / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg">'
                                        "<script>alert(1)</script></svg>")
        svg = c.get(f"{url}/logo.svg/file")
        assert svg.headers["content-type"] == "application/octet-stream"
        assert svg.headers["content-disposition"].startswith("attachment;")
        err = assert_error(c.get(f"{url}/logo.svg/image"), 422, "not_an_image")
        assert err["message"].startswith("logo.svg is not an image (one of PNG, JPEG, GIF, ")
        # AVIF: every current browser shows it, as its own type; /image reads it too
        from PIL import Image

        Image.open(real / "irrigation-handset.png").save(files / "shot.avif")
        avif = c.get(f"{url}/shot.avif/file")
        assert avif.headers["content-type"] == "image/avif"
        assert avif.headers["content-disposition"].startswith("inline;")
        assert _pixels(c.get(f"{url}/shot.avif/image").content)[0] == (900, 700)
        # compressed: served as the image it holds; cut short: a 422 saying so
        (files / "scan.tiff.gz").write_bytes(gzip.compress((real / "water-budget.tiff").read_bytes()))
        (files / "shot.png.gz").write_bytes(gzip.compress((real / "irrigation-handset.png").read_bytes()))
        assert _pixels(c.get(f"{url}/scan.tiff.gz/image?page=2").content) == \
            _pixels(real / "water-budget.tiff", page=2)
        shot = c.get(f"{url}/shot.png.gz/file")
        assert shot.headers["content-type"] == "image/png"
        assert shot.content == (real / "irrigation-handset.png").read_bytes()
        (files / "cut.png").write_bytes((real / "irrigation-handset.png").read_bytes()[:4000])
        err = assert_error(c.get(f"{url}/cut.png/image"), 422, "unreadable_file")
        assert err["message"].startswith("cut.png: a damaged image, cut short or corrupt (")

        spec = c.get("/openapi.json").json()
        op = spec["paths"]["/api/collections/{name}/documents/{document}/image"]["get"]
        assert op["tags"] == ["documents"] and "image/png" in op["responses"]["200"]["content"]
        assert "X-Page-Count" in op["responses"]["200"]["headers"]
        (param,) = [p for p in op["parameters"] if p["name"] == "page"]
        assert param["in"] == "query" and param["schema"]["minimum"] == 1


def test_an_image_page_takes_a_read_key_and_is_no_page_of_a_text(env):
    with env["server"].client(env["reader"]) as reader:
        assert_error(reader.get("/api/collections/other/documents/kettle.md/image"),
                     403, "forbidden")
        err = assert_error(reader.get("/api/collections/kb/documents/kettle.md/image"),
                           422, "not_an_image")
        assert err["detail"] == {"document": "kettle.md"}
    with env["server"].client() as anon:
        assert_error(anon.get("/api/collections/kb/documents/kettle.md/image"),
                     401, "unauthorized")

def test_a_heic_is_a_download_and_its_page_a_png_as_shown(live, embedder, tmp_path,
                                                          monkeypatch):
    """No browser but Safari shows HEIC, an iPhone's photos: /file sends it as a download,
    /image as a PNG of the picture as it is shown, turned by the HEIF file's own rotation
    (the fixture stored sideways, 700 x 900, is 900 x 700), where its citations' boxes
    are. Without pillow-heif, /image says what to install."""
    real = FIXTURES / "real"
    data = tmp_path / "data"
    data.mkdir()
    srv = live(data_dir=data, embedder=embedder)
    url = "/api/collections/photos/documents"
    names = ("irrigation-handset.heic", "irrigation-handset-rotated.heic")
    with srv.client() as c:
        assert c.post("/api/collections", json={"name": "photos"}).status_code == 201
        r = c.post(url, files=[("files", (n, (real / n).read_bytes())) for n in names])
        assert r.status_code == 202
        docs = wait_settled(c, "photos")
        assert {d["state"] for d in docs.values()} == {"indexed"}, docs
        assert {d["media_type"] for d in docs.values()} == {"image/heic"}
        assert {d["extractor"] for d in docs.values()} == {"image"}
        shown = _pixels(real / "irrigation-handset.png")
        for name in names:
            f = c.get(f"{url}/{name}/file")
            assert f.status_code == 200 and f.content == (real / name).read_bytes()
            assert f.headers["content-type"] == "application/octet-stream"
            assert f.headers["content-disposition"].startswith("attachment;")
            page = c.get(f"{url}/{name}/image")
            assert page.status_code == 200 and page.headers["content-type"] == "image/png"
            assert page.headers["x-page-count"] == "1"
            size, pixels = _pixels(page.content)
            assert size == (900, 700), name
            # HEVC is lossy: the screenshot it was made from, within a few grey levels
            assert sum(abs(a - b) for a, b in zip(pixels, shown[1], strict=True)) / len(pixels) < 3
            assert assert_error(c.get(f"{url}/{name}/image?page=2"), 404,
                                "not_found")["detail"] == {"field": "page", "pages": 1}
        hit = c.post("/api/collections/photos/search",
                     json={"query": "frost thermostat setting", "k": 1}).json()["hits"][0]
        x, y, w, h = hit["location"]["xywh"]
        assert 0 <= x < x + w <= 900 and 0 <= y < y + h <= 700
        monkeypatch.setattr("citeline.server.app.heif_status",
                            lambda: "pillow-heif is not installed")
        err = assert_error(c.get(f"{url}/{names[0]}/image"), 501, "not_installed")
        assert err["message"] == "showing a HEIF image needs pillow-heif: pillow-heif is not installed"


def test_serve_refuses_network_address_without_keys(tmp_path, capsys):
    code = cli.main(["serve", "--data", str(tmp_path / "d"), "--host", "0.0.0.0", "--port", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "refusing to serve on 0.0.0.0" in err and "--insecure-open" in err
    assert cli._is_loopback("127.0.0.1") and cli._is_loopback("::1") and cli._is_loopback("localhost")
    assert not cli._is_loopback("0.0.0.0") and not cli._is_loopback("192.168.1.5")


def test_keys_cli_shows_the_key_once_and_stores_a_hash(tmp_path, capsys):
    d = str(tmp_path / "d")
    assert cli.main(["keys", "create", "--data", d, "--collections", "a,b", "--scope", "read"]) == 0
    key = capsys.readouterr().out.strip()
    assert key.startswith("cl_")
    raw = (tmp_path / "d" / "keys.sqlite3").read_bytes()
    assert key.encode() not in raw and key.split("_", 2)[2].encode() not in raw
    assert cli.main(["keys", "list", "--data", d, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["collections"] == ["a", "b"] and listed[0]["scope"] == "read"
    assert key not in json.dumps(listed)
    rec = KeyStore(d).verify(key)
    assert rec is not None and rec.allows("a", "read") and not rec.allows("a", "write")
    assert not rec.allows("c", "read")
    capsys.readouterr()
    assert cli.main(["keys", "revoke", "--data", d, rec.id]) == 0
    assert "no active key is left" in capsys.readouterr().out  # the server is now locked
    assert KeyStore(d).verify(key) is None
    assert cli.main(["keys", "revoke", "--data", d, rec.id]) == 2


def test_restart_requeues_uploaded_files_the_index_never_recorded(live, embedder, tmp_path):
    data = tmp_path / "d"
    Index(data / "kb", embedder=embedder).close()
    files = data / "kb" / "files"
    files.mkdir()
    (files / "kettle.md").write_bytes(KETTLE)  # saved, then the server stopped before indexing
    (files / ".upload-0123456789abcdef").write_bytes(b"half an upload")
    secret = tmp_path / "secret.txt"
    secret.write_text("The vault code is 4711 and nobody should read it here.\n")
    (files / "leak.txt").symlink_to(secret)  # not an upload: it points out of the folder
    srv = live(data_dir=data, embedder=embedder)
    with srv.client() as c:
        docs = wait_settled(c, "kb")
        assert docs["kettle.md"]["state"] == "indexed" and "leak.txt" not in docs
        assert c.get("/api/collections/kb/documents/leak.txt/text").status_code == 404
        c.post("/api/collections/kb/documents/leak.txt/retry")  # not a document: nothing to do
        assert "4711" not in json.dumps(c.post("/api/collections/kb/search",
                                               json={"query": "vault code"}).json())
    assert sorted(p.name for p in files.iterdir() if not p.is_dir()) == ["kettle.md", "leak.txt"]
    assert not any(p.is_file() for p in files.glob(".*/*"))  # nothing kept, held or pending


def test_restart_indexes_a_re_upload_the_stopped_server_had_queued(live, embedder, tmp_path):
    """A server killed while a re-upload waited in its queue: the new file is in files/,
    the indexed version's kept aside; the index still knows the name. It is indexed on
    restart (it was left as the old version, with nothing queued). A re-upload that
    failed (the index says failed) is not tried again."""
    data = tmp_path / "d"
    files = data / "kb" / "files"
    files.mkdir(parents=True)
    old, new = KETTLE, KETTLE.replace(b"24 months", b"36 months")
    (files / "kettle.md").write_bytes(old)
    (files / "broken.md").write_bytes(b"# Broken\n\nIt was fine once, before the upload.\n")
    ix = Index(data / "kb", embedder=embedder)
    ix.index(files)
    ix.store.mark("broken.md", str(files), "failed", "not valid UTF-8 (byte 3)")
    ix.close()
    (files / ".indexed").mkdir()
    for name, upload in (("kettle.md", new), ("broken.md", b"\xff\xfe broken")):
        os.replace(files / name, files / ".indexed" / name)  # as keep_indexed_file does
        (files / name).write_bytes(upload)
    srv = live(data_dir=data, embedder=embedder)
    with srv.client() as c:
        deadline = time.monotonic() + 60
        while "36 months" not in c.get("/api/collections/kb/documents/kettle.md/text").text:
            assert time.monotonic() < deadline, "the re-upload was never indexed"
            time.sleep(0.1)
        docs = wait_settled(c, "kb")
        assert docs["kettle.md"]["state"] == "indexed" and docs["broken.md"]["state"] == "failed"
        assert c.get("/api/collections/kb/documents/kettle.md/file").content == new
    assert not (files / ".indexed" / "kettle.md").exists()
    assert (files / ".indexed" / "broken.md").read_bytes().startswith(b"# Broken")


def test_restart_indexes_a_failed_document_s_re_upload_that_was_still_queued(live, embedder,
                                                                             tmp_path):
    """A document failed; its fixed re-upload was accepted (202) and waited in the queue
    when the server died. The restart must index it: the index says "failed" of the
    upload that failed, which tells nothing of the file now in files/."""
    data = tmp_path / "d"
    first = live(data_dir=data, embedder=embedder)
    url = "/api/collections/kb/documents"
    with first.client() as c:
        assert c.post("/api/collections", json={"name": "kb"}).status_code == 201
        assert c.post(url, files=[("files", ("notes.md", b""))]).status_code == 202
        assert wait_settled(c, "kb")["notes.md"]["state"] == "failed"
        held = first.app.state.collections.get("kb").lock
        held.acquire()  # the worker stops at its next document, as a dead server's did
        try:
            fixed = b"# Notes\n\nThe boiler is serviced every October by the landlord.\n"
            assert c.post(url, files=[("files", ("notes.md", fixed))]).status_code == 202
            # a second server on the folder, as the restarted one (the first never ends
            # the job it holds)
            second = live(data_dir=data, embedder=embedder)
            with second.client() as c2:
                doc = wait_settled(c2, "kb")["notes.md"]
                assert doc["state"] == "indexed", doc
                assert c2.get(url + "/notes.md/file").content == fixed
                hits = c2.post("/api/collections/kb/search",
                               json={"query": "when is the boiler serviced"}).json()["hits"]
                assert hits and hits[0]["document"] == "notes.md"
            assert not (data / "kb" / ".queue" / "pending" / "notes.md").exists()
            second.stop()
        finally:
            held.release()
        wait_settled(c, "kb")


def test_a_re_upload_during_another_s_indexing_keeps_the_file_citations_point_into(env):
    """v2 is being indexed when v3 (not UTF-8) arrives: v2 is what the index holds after,
    and v3 fails, so the served file must stay v2's (it was v3's: every citation's
    quote missed the file it opened)."""
    c = env["client"]
    assert c.post("/api/collections", json={"name": "race"}).status_code == 201
    url = "/api/collections/race/documents"
    v1 = b"# Log\n\nThe first entry of the boiler log.\n"
    assert c.post(url, files=[("files", ("log.md", v1))]).status_code == 202
    assert wait_settled(c, "race")["log.md"]["state"] == "indexed"
    v2 = ("# Log\n\n" + "\n\n".join(
        f"Entry {i}: the boiler pressure read {i % 7 + 1}.{i % 10} bar at visit {i}, "
        f"and the engineer bled radiator {i % 13} in room {i % 17}." for i in range(400))
    ).encode()
    assert c.post(url, files=[("files", ("log.md", v2))]).status_code == 202
    deadline = time.monotonic() + 60
    while c.get(url + "/log.md").json()["state"] != "indexing":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(0.5)  # past the file's reading: v2 is being embedded
    v3 = "# Log\n\nПривет, журнал котельной.\n".encode("cp1251")  # no encoding we read
    assert c.post(url, files=[("files", ("log.md", v3))]).status_code == 202
    doc = wait_settled(c, "race", timeout=120)["log.md"]
    assert doc["state"] == "failed" and "still searchable" in doc["reason"]
    hit = c.post("/api/collections/race/search", json={"query": "boiler pressure at visit 399"}
                 ).json()["hits"][0]
    served = c.get(url + "/log.md/file").content
    assert served == v2, served[:60]
    start, end = hit["start"], hit["end"]
    assert served.decode()[start:end] == hit["content"]
    files = env["data"] / "race" / "files"
    assert not any((files.parent / ".queue" / "indexing").glob("*"))
    assert (files / ".indexed" / "log.md").read_bytes() == v2
    assert c.get(url + "/.indexed/log.md/file").status_code == 404  # kept, not a document
    assert c.delete(url + "/log.md").status_code == 200
    assert not any(p.is_file() for p in files.rglob("*"))
    assert c.delete("/api/collections/race").status_code == 200


def test_a_document_indexed_through_a_link_serves_its_file(live, embedder, tmp_path):
    """`serve --index`: a file the CLI indexed through a symbolic link (the indexer follows
    links to files) is served, so its citations' urls open; a link to a folder is not
    followed, by the indexer or by the server."""
    docs, outside = tmp_path / "docs", tmp_path / "outside"
    docs.mkdir()
    outside.mkdir()
    (outside / "real.md").write_text("# Wombats\n\nWombats dig burrows with their front claws.\n")
    (docs / "linked.md").symlink_to(outside / "real.md")
    (docs / "own.md").write_text("# Own\n\nA note of the folder's own about tea.\n")
    ix = tmp_path / "ix"
    Index(ix, embedder=embedder).index(docs)
    srv = live(index_dir=ix, embedder=embedder)
    with srv.client() as c:
        hit = c.post("/api/collections/ix/search", json={"query": "wombat burrows", "k": 1}).json()["hits"][0]
        assert hit["document"] == "linked.md"
        f = c.get(hit["url"].split("#")[0])
        assert f.status_code == 200 and f.content == (outside / "real.md").read_bytes()
        (docs / "sub").symlink_to(outside)  # made after indexing: names no indexed document
        assert c.get("/api/collections/ix/documents/sub/real.md/file").status_code == 404


def test_model_loaded_in_the_background_serves_the_same_model(live, embedder, tmp_path):
    # no embedder injected: the app loads it at startup (the session's cached instance)
    srv = live(data_dir=tmp_path / "bg")
    with srv.client() as c:
        deadline = time.monotonic() + 60
        while c.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert c.get("/api/version").json()["model"]["key"] == embedder.identity.key
        c.post("/api/collections", json={"name": "kb"})
        c.post("/api/collections/kb/documents", files=[("files", ("kettle.md", KETTLE))])
        assert wait_settled(c, "kb")["kettle.md"]["state"] == "indexed"
        assert c.post("/api/collections/kb/ask", json={"question": WARRANTY}).json()["citations"]


def test_ask_streams_an_llm_answer_as_it_is_generated(env, monkeypatch):
    """With an OpenAI-compatible generator (configured by CITELINE_* like the CLI), the
    citations arrive before the first token and the text in the endpoint's pieces."""
    from replay_llm import openai_endpoint

    c = env["client"]
    reply = "The warranty lasts 24 months [1]. See http://evil.example for more [9]."
    with openai_endpoint(monkeypatch, reply) as srv:
        with c.stream("POST", "/api/collections/kb/ask",
                      json={"question": WARRANTY, "stream": True}) as r:
            assert r.status_code == 200
            raw = "".join(r.iter_text())
        events = [(dict(line.split(": ", 1) for line in b.split("\n"))) for b in
                  raw.strip().split("\n\n")]
        names = [e["event"] for e in events]
        assert names[0] == "citations" and names[-1] == "done"
        pieces = [json.loads(e["data"])["text"] for e in events if e["event"] == "answer"]
        assert len(pieces) > 5  # streamed in the endpoint's pieces, not in one block
        streamed = "".join(pieces)
        assert "evil.example" not in streamed  # links are stripped before a piece goes out
        done = json.loads(events[-1]["data"])
        assert done["generator"] == "openai:replay" and "24 months [1]" in done["answer"]
        assert done["invalid_markers"] == ["[9]"] and "[9]" not in done["answer"]
        assert done["stripped_links"] and json.loads(events[0]["data"])["citations"] == \
            done["citations"]
        assert len(srv.requests) == 1 and srv.requests[0]["body"]["stream"] is True
        # a refusal calls no model, streamed or not
        r = c.post("/api/collections/kb/ask", json={"question": "capital of mongolia?",
                                                    "stream": True})
        assert "event: done" in r.text and '"refused": true' in r.text
        assert len(srv.requests) == 1


def test_deleting_a_pending_document_does_not_wait_for_another_being_indexed(env):
    c = env["client"]
    assert c.post("/api/collections", json={"name": "busy"}).status_code == 201
    paragraphs = "".join(f"## Part {i}\n\nThe ledger entry {i} records a delivery of "
                         f"{i * 7} crates to the north depot, checked by the night clerk.\n\n"
                         for i in range(380))  # ~45 KB: under the upload limit
    r = c.post("/api/collections/busy/documents",
               files=[("files", ("big.md", "# Ledger\n\n" + paragraphs)),
                      ("files", ("tiny.md", "# Tiny\n\nA tiny note.\n"))])
    assert r.status_code == 202
    deadline = time.monotonic() + 60
    while True:  # the worker has started on big.md (tiny.md waits behind it)
        docs = {d["document"]: d["state"] for d in
                c.get("/api/collections/busy/documents").json()["documents"]}
        if docs.get("big.md") == "indexing" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert docs == {"big.md": "indexing", "tiny.md": "pending"}
    assert c.delete("/api/collections/busy/documents/tiny.md").status_code == 200
    docs = {d["document"]: d["state"] for d in
            c.get("/api/collections/busy/documents").json()["documents"]}
    assert docs == {"big.md": "indexing"}  # the delete returned while big.md was indexing
    assert not (env["data"] / "busy" / "files" / "tiny.md").exists()
    assert wait_settled(c, "busy")["big.md"]["state"] == "indexed"
    assert c.delete("/api/collections/busy").status_code == 200


def test_deleting_a_collection_stops_the_indexing_of_its_big_upload(live, embedder, tmp_path):
    """DELETE of a collection whose big upload is being embedded answers in seconds: it
    waited for the whole document (minutes for a big PDF, past any client's timeout).
    The worker stops at its next group of texts, the collection's queued uploads are
    dropped, another collection is not touched (its queued upload is indexed next), and a
    new collection of the same name starts empty and works."""
    data = tmp_path / "d"
    srv = live(data_dir=data, embedder=embedder)
    with srv.client() as c:
        for name in ("doomed", "keep"):
            assert c.post("/api/collections", json={"name": name}).status_code == 201
        assert c.post("/api/collections/keep/documents",
                      files=[("files", ("kettle.md", KETTLE))]).status_code == 202
        kept = wait_settled(c, "keep")["kettle.md"]
        assert kept["state"] == "indexed"
        # ~390 KB, ~3000 chunks: minutes of embedding on two cores, one group ~2-4 s
        big = "# Ledger\n\n" + "".join(
            f"## Part {i}\n\nThe ledger entry {i} records a delivery of {i * 7} crates to "
            f"the north depot, checked by the night clerk on shift {i % 11}.\n\n"
            for i in range(3000))
        url = "/api/collections/doomed/documents"
        assert c.post(url, files=[("files", ("big.md", big)),
                                  ("files", ("queued.md", "# Queued\n\nIt waits.\n"))]
                      ).status_code == 202
        deadline = time.monotonic() + 60
        while c.get(url + "/big.md").json()["state"] != "indexing":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(1.0)  # past reading the file: it is being chunked or embedded
        later = b"# Later\n\nThe descaler is stored under the sink.\n"
        assert c.post("/api/collections/keep/documents",
                      files=[("files", ("later.md", later))]).status_code == 202
        t0 = time.monotonic()
        r = c.delete("/api/collections/doomed", timeout=30)
        took = time.monotonic() - t0
        assert r.status_code == 200 and r.json() == {"deleted": "doomed"}
        assert took < 15, f"the delete waited {took:.1f} s"
        assert not (data / "doomed").exists()
        assert_error(c.get("/api/collections/doomed"), 404, "not_found")
        docs = wait_settled(c, "keep")  # the other collection's upload is indexed next
        assert docs["later.md"]["state"] == "indexed" and docs["kettle.md"] == kept
        assert (data / "keep" / "files" / "kettle.md").read_bytes() == KETTLE
        assert srv.app.state.jobs.busy() == 0 and srv.app.state.jobs.states("doomed") == {}
        # the same name again: empty, and the worker (alive) indexes into it
        assert c.post("/api/collections", json={"name": "doomed"}).status_code == 201
        assert c.get(url).json()["documents"] == []
        assert [p for p in (data / "doomed").rglob("*")  # its index alone, no old file
                if p.is_file() and not p.name.startswith(DB_NAME)] == []
        assert c.post(url, files=[("files", ("fresh.md", later))]).status_code == 202
        docs = wait_settled(c, "doomed")
        assert set(docs) == {"fresh.md"} and docs["fresh.md"]["state"] == "indexed"
        hits = c.post("/api/collections/doomed/search",
                      json={"query": "where is the descaler stored"}).json()["hits"]
        assert hits and {h["document"] for h in hits} == {"fresh.md"}
        time.sleep(0.5)  # nothing of the old run lands in the new folder afterwards
        assert not (data / "doomed" / "files" / "big.md").exists()
        assert not any((data / "doomed" / ".queue").rglob("big.md"))


def test_an_upload_streaming_while_its_collection_is_deleted_is_404_and_keeps_nothing(
        live, embedder, tmp_path):
    """A collection deleted while an upload's body streams: the upload is answered 404
    (the collection is gone) and writes nothing, neither into the deleted folder (a
    files/ made again there refused a new collection of the name: 'not a collection')
    nor into a new collection of the same name created before the body ends; the
    DELETE does not wait for the upload. It was a 500 (its received file was gone)."""
    data = tmp_path / "d"
    srv = live(data_dir=data, embedder=embedder)
    url, boundary = "/api/collections/late/documents", "citelineboundary"
    resume = threading.Event()
    answer: dict[str, httpx.Response] = {}

    def body():  # type: ignore[no-untyped-def]
        yield (f"--{boundary}\r\ncontent-disposition: form-data; name=\"files\"; "
               "filename=\"late.md\"\r\n\r\n# Late\n\nThe first half, ").encode()
        if resume.wait(10):  # else the test has failed: end the body anyway
            yield b"then the rest of it.\n"
        yield f"\r\n--{boundary}--\r\n".encode()

    def upload() -> None:
        with srv.client() as up:
            answer["r"] = up.post(url, content=body(), headers={
                "content-type": f"multipart/form-data; boundary={boundary}"})

    with srv.client() as c:
        assert c.post("/api/collections", json={"name": "late"}).status_code == 201
        sender = threading.Thread(target=upload)
        sender.start()
        try:
            deadline = time.monotonic() + 10  # the first half is in its temporary file
            while not any((data / "late" / "files").glob(".upload-*")):
                assert time.monotonic() < deadline, "the upload never started its file"
                time.sleep(0.01)
            assert c.delete("/api/collections/late", timeout=10).status_code == 200
            assert not (data / "late").exists()
            assert c.post("/api/collections", json={"name": "late"}).status_code == 201
        finally:
            resume.set()
            sender.join(10)
        assert not sender.is_alive()
        err = assert_error(answer["r"], 404, "not_found")
        assert "late" in err["message"]
        assert c.get(url).json()["documents"] == []
        assert [p for p in (data / "late").rglob("*")  # its index alone
                if p.is_file() and not p.name.startswith(DB_NAME)] == []
        assert srv.app.state.jobs.states("late") == {}


def test_a_reupload_keeps_the_indexed_version_s_file_until_it_is_indexed(env):
    c = env["client"]
    assert c.post("/api/collections", json={"name": "versions"}).status_code == 201
    url = "/api/collections/versions/documents"
    first = b"# Pump\n\nThe pump is primed with two litres of water before it starts.\n"
    assert c.post(url, files=[("files", ("pump.md", first))]).status_code == 202
    assert wait_settled(c, "versions")["pump.md"]["state"] == "indexed"
    # a re-upload that fails: the index still cites the first version, and its file is served
    assert c.post(url, files=[("files", ("pump.md", b""))]).status_code == 202
    doc = wait_settled(c, "versions")["pump.md"]
    assert doc["state"] == "failed" and "still searchable" in doc["reason"]
    assert c.get(url + "/pump.md/file").content == first
    assert c.get(url + "/pump.md/text").json()["text"] in first.decode()
    # a good re-upload, once indexed, is what the file and the text are
    second = b"# Pump\n\nThe pump is primed with three litres of water before it starts.\n"
    assert c.post(url, files=[("files", ("pump.md", second))]).status_code == 202
    assert wait_settled(c, "versions")["pump.md"]["state"] == "indexed"
    assert c.get(url + "/pump.md/file").content == second
    assert "three litres" in c.get(url + "/pump.md/text").json()["text"]
    assert not any((env["data"] / "versions" / "files" / ".indexed").glob("*"))
    assert c.delete("/api/collections/versions").status_code == 200


def test_a_collection_counts_the_documents_its_list_shows_while_one_is_pending(env):
    """A collection's counts are those of its document list: an upload waiting in the
    queue is listed as pending and counted, with each state's own count, in
    /api/collections and /api/collections/{c} alike (they counted indexed documents only,
    so the page said "1 documents" over a list of two)."""
    c = env["client"]
    assert c.post("/api/collections", json={"name": "counts"}).status_code == 201
    url = "/api/collections/counts/documents"
    assert c.post(url, files=[("files", ("kettle.md", KETTLE))]).status_code == 202
    assert wait_settled(c, "counts")["kettle.md"]["state"] == "indexed"

    def infos() -> list[dict]:
        listed = [x for x in c.get("/api/collections").json()["collections"]
                  if x["name"] == "counts"]
        return [c.get("/api/collections/counts").json(), *listed]

    held = env["server"].app.state.collections.get("counts").lock
    held.acquire()  # the worker waits at the next document: the upload stays pending
    try:
        assert c.post(url, files=[("files", ("notes.txt", NOTES))]).status_code == 202
        docs = c.get(url).json()["documents"]
        assert [(d["document"], d["state"]) for d in docs] == [("kettle.md", "indexed"),
                                                               ("notes.txt", "pending")]
        for info in infos():
            assert info["documents"] == len(docs) == 2, info
            assert info["states"] == {"pending": 1, "indexing": 0, "indexed": 1, "failed": 0,
                                      "stale": 0}
            assert info["chunks"] == sum(d["chunks"] for d in docs) > 0
    finally:
        held.release()
    docs = list(wait_settled(c, "counts").values())
    for info in infos():
        assert info["documents"] == 2 and info["states"]["indexed"] == 2
        assert info["chunks"] == sum(d["chunks"] for d in docs)
    assert c.delete("/api/collections/counts").status_code == 200


def test_the_pages_name_pattern_is_the_servers():
    """The new-collection form's pattern is a copy of the server's (HTML cannot import
    it): the two take and refuse the same names."""
    import citeline.server
    from citeline.server.collections import COLLECTION_NAME_PATTERN

    page = (Path(citeline.server.__file__).parent / "static" / "index.html").read_text()
    form = re.search(r'id="new-name" required pattern="([^"]+)"', page).group(1)
    for name in ("kb", "a.b-c_d", "a" * 64, "a" * 65, "", "x.", "-x", ".x", "a b", "x-", "x_"):
        assert bool(re.fullmatch(form, name)) is bool(re.fullmatch(COLLECTION_NAME_PATTERN, name)), name
