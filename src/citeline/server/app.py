"""The HTTP API and the web page: a thin layer over :class:`citeline.pipeline.Index`.

``create_app(data_dir=...)`` (many collections), ``create_app(index_dir=...)``
(one) or ``create_app(store_url=..., files_dir=...)`` (one PostgreSQL store that
several server processes share) returns a FastAPI app; ``citeline serve`` runs it with uvicorn. Every
4xx/5xx answer has one shape::

    {"error": {"code": "forbidden", "message": "...", "detail": ...}}

``search`` and ``ask`` return exactly the CLI's ``--json`` objects; ``ask`` with
``"stream": true`` (or ``Accept: text/event-stream``) answers as Server-Sent
Events: ``citations``, then ``answer`` text pieces, then ``done`` (the full
answer object). The OpenAPI document is at ``/openapi.json``.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import mimetypes
import os
import queue
import re
import secrets
import shutil
import sqlite3
import tempfile
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match

from citeline import __version__
from citeline.embed import Embedder, load_embedder, model_identity
from citeline.errors import (
    CiteError,
    ConfigError,
    ExtractionError,
    IndexNotFound,
    ModelMismatch,
    ModelUnavailable,
    SchemaError,
    StoreUnavailable,
    UnmatchedDocuments,
)
from citeline.extract import compressed, why_unsupported
from citeline.extract.image import FORMATS as IMAGE_FORMATS  # what /image opens
from citeline.extract.image import (
    HEIF_SUFFIXES,
    MAX_PIXELS,
    deep_grey_as_8_bit,
    heif_status,
    opened_formats,
    page_count,
    upright,
)
from citeline.extract.transcript import MEDIA_SUFFIXES, companion, sidecar_for
from citeline.server.auth import ApiKey, KeyStore, Scope, open_keys
from citeline.server.collections import (
    COLLECTION_NAME_PATTERN,
    Collection,
    CollectionDeleted,
    Collections,
    NameError_,
    sanitize_filename,
)
from citeline.server.jobs import IndexQueue, SharedQueue
from citeline.types import MODES, STRATEGIES, DocState

log = logging.getLogger("citeline.server")
STATIC = Path(__file__).parent / "static"

# The default: large enough for a book-length PDF or an hour of subtitles.
DEFAULT_MAX_UPLOAD_MB = 100
# A search is ~20-60 ms here and an extractive ask about the same; 30 s only
# trips on a wedged request (or a slow generator once those land).
DEFAULT_REQUEST_TIMEOUT = 30.0
# One upload request may carry many files, but not an unbounded number of parts.
MAX_FILES_PER_UPLOAD = 256
# While a body streams, the disk's free space is looked at again every this many bytes.
ROOM_CHECK_BYTES = 8 << 20
# Uploads stop short of leaving the disk that holds the collections with less than
# this free (507): the indexes on it need room to write what they index, and 256
# files of 100 MiB in one request would otherwise fill it.
DEFAULT_MIN_FREE_MB = 1024
# An upload whose client sends nothing for this long is ended (408) and its partial
# files removed: a stalled or deliberately slow client holds no connection forever.
UPLOAD_IDLE_SECONDS = 60.0
# Search depth a client may ask for: the fused list is cut at 200 anyway.
MAX_K = 200
# Questions and queries longer than this are not questions.
MAX_QUERY_CHARS = 4000
# A document filter: at most this many entries, each at most a path's length (PATH_MAX);
# a page that lets its user tick documents in a long list still fits.
MAX_DOCUMENT_PATTERNS = 1000
MAX_PATTERN_CHARS = 4096
# JSON request bodies (everything but uploads) hold a question and a few options.
MAX_JSON_BODY = 1 << 20

_STATUS_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 408: "upload_timeout", 409: "conflict",
    413: "payload_too_large", 415: "unsupported_media_type", 422: "validation_error",
    500: "internal_error", 503: "not_ready", 504: "timeout", 507: "insufficient_storage",
}


class ApiError(Exception):
    """An error answered as ``{error: {code, message, detail}}`` with ``status``."""

    def __init__(self, status: int, message: str, detail: Any = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code or _STATUS_CODES.get(status, "error")
        self.message = message
        self.detail = detail


def error_body(status: int, message: str, detail: Any = None, code: str | None = None) -> dict:
    return {"error": {"code": code or _STATUS_CODES.get(status, "error"), "message": message,
                      "detail": detail}}


def cite_error_status(exc: CiteError) -> int:
    """The HTTP status of a pipeline error, the same in a JSON answer and in a stream."""
    if isinstance(exc, IndexNotFound):
        return 404
    if isinstance(exc, ModelMismatch | SchemaError):
        return 409
    if isinstance(exc, ModelUnavailable | StoreUnavailable):
        return 503
    return 400


def cite_error_body(exc: CiteError) -> dict:
    status = cite_error_status(exc)
    # weights missing on disk (the reranker of mode "rerank") are not a server still starting
    code = ("model_unavailable" if isinstance(exc, ModelUnavailable)
            else "store_unavailable" if isinstance(exc, StoreUnavailable) else None)
    return error_body(status, str(exc), code=code)


def _error(status: int, message: str, detail: Any = None, code: str | None = None,
           headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(error_body(status, message, detail, code), status_code=status,
                        headers=headers)


@dataclass
class ServerConfig:
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_MB * 1024 * 1024
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    # False when serving on a non-loopback address without --insecure-open. True still
    # needs a keys file that never held a key: revoking the last key locks the server.
    open_allowed: bool = True
    # Serving on a loopback address: an open server then answers only requests whose
    # Host is a loopback name (a DNS-rebinding page comes in under its own host name).
    loopback: bool = True
    min_free_bytes: int = DEFAULT_MIN_FREE_MB * 1024 * 1024
    upload_idle_seconds: float = UPLOAD_IDLE_SECONDS


# Hosts an open loopback server answers to (the port is not checked: a rebinding page's
# requests name the attacker's host, whatever the port).
_LOOPBACK_HOST = re.compile(r"^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$", re.I)


def _local_only(request: Request, loopback: bool) -> None:
    """With no API key configured, any process on the machine may call the server, but a
    web page of another site must not: its browser would send the user's requests (an
    upload, a delete) and, through DNS rebinding, read the answers. Refuse a browser
    request from another site (Sec-Fetch-Site, Origin), and on a loopback server a
    request to a host name that is not a loopback one."""
    host = request.headers.get("host", "")
    if loopback and not _LOOPBACK_HOST.match(host):
        raise ApiError(403, f"this server has no API key and answers its own address only, not "
                            f"host {host[:100]!r}; create a key to serve other names")
    site = request.headers.get("sec-fetch-site", "")
    origin = request.headers.get("origin", "")
    if site in ("cross-site", "same-site") or (
            origin and origin.split("://", 1)[-1].lower() != host.lower()):
        raise ApiError(403, "this server has no API key, so it takes requests from its own page "
                            "and from programs on this machine, not from other web pages; "
                            "create a key to call it from a page of another site")


# --- request bodies ------------------------------------------------------------------------


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be blank (it is only whitespace)")
    return text


# A question or query: JSON strings only, not blank (the schema's pattern says so too).
QueryText = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS,
                                 json_schema_extra={"pattern": r"\S"}),
                      AfterValidator(_not_blank)]
# Bodies take JSON's own types: "5" is not a number, true is not 1, "yes" is not true.
STRICT = ConfigDict(strict=True)


class CreateCollection(BaseModel):
    model_config = STRICT
    name: str = Field(description="1-64 letters, digits, '_', '-', '.', starting with a letter "
                      "or digit and not ending with '.'",
                      json_schema_extra={"pattern": COLLECTION_NAME_PATTERN})
    strategy: Literal["A", "B", "C", "D", "E", "F"] = Field("E", description="chunking strategy")
    threshold: float | None = Field(
        None, gt=0, le=2, description="refusal threshold (cosine distance); default 0.675"
    )
    ocr_languages: str | None = Field(
        None, max_length=200, description="Tesseract language packs scanned pages and images "
        "are read with, joined by '+' (eng+deu); default eng; each must be installed")


# One entry of a document filter: a document's path, a folder ending in "/", or a glob.
DocumentPattern = Annotated[str, Field(min_length=1, max_length=MAX_PATTERN_CHARS,
                                       json_schema_extra={"pattern": r"\S"}),
                            AfterValidator(_not_blank)]


def _documents_field() -> Any:
    return Field(
        None, min_length=1, max_length=MAX_DOCUMENT_PATTERNS,
        description="only these documents: each a path as the documents list names it, a "
        "folder ending in '/', or a glob ('*' within one folder, '**' across folders: "
        "'handbook/**', 'contracts/2024-*.pdf'); absent or null: every document. An entry "
        "that matches no document is a 400 naming it")


class SearchBody(BaseModel):
    model_config = STRICT
    query: QueryText
    k: int = Field(20, ge=1, le=MAX_K)
    mode: Literal["dense", "bm25", "hybrid", "rerank"] = "hybrid"
    documents: list[DocumentPattern] | None = _documents_field()


class AskBody(BaseModel):
    model_config = STRICT
    question: QueryText
    mode: Literal["dense", "bm25", "hybrid", "rerank"] = "hybrid"
    stream: bool = Field(False, description="answer as Server-Sent Events")
    documents: list[DocumentPattern] | None = _documents_field()


def _unmatched(exc: UnmatchedDocuments) -> ApiError:
    """A filter entry that matches no document: a 400 naming the field and the entries."""
    return ApiError(400, str(exc), {"field": "documents", "unmatched": exc.patterns})


class ErrorDetail(BaseModel):
    code: str = Field(description="e.g. not_found, validation_error, timeout")
    message: str
    detail: Any = Field(None, description="validation_error: the failing fields")


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer's body (the OpenAPI document's, for every route)."""
    error: ErrorDetail


# Declared on every route: also replaces FastAPI's 422 schema, which is not this shape.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": ErrorBody, "description": "refused; `error.code` says why"},
    "5XX": {"model": ErrorBody, "description": "not ready, unavailable, or timed out"},
}
# An upload is read as it streams (not by FastAPI), so its body is declared by hand.
UPLOAD_BODY = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["files"],
    "properties": {"files": {"type": "array", "minItems": 1, "maxItems": MAX_FILES_PER_UPLOAD,
                             "items": {"type": "string", "format": "binary"}}},
}}}}}
FILE_ANY = {200: {"description": "the file, as its own type",
                  "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}}}}
# The count of pages /image has for a document, sent with each page: the web page's
# viewer offers the next page of a multi-page TIFF by it.
PAGE_COUNT = "X-Page-Count"
PAGE_PNG = {200: {"description": "the page as a PNG image",
                  "headers": {PAGE_COUNT: {"description": "how many pages the image has",
                                           "schema": {"type": "integer", "minimum": 1}}},
                  "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}}}}
# Images every browser shows, by the suffix of the name a file is served under: /file
# serves them inline, as their own type. Never SVG, whose script would run on the
# server's origin. Any other image (a TIFF; a HEIC, which only Safari shows) is shown as
# /image's PNG of one page.
BROWSER_IMAGES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg",
    ".jfif": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp",
    ".avif": "image/avif",
}
# One event, as OpenAPI 3.2's itemSchema for text/event-stream has it; data is JSON.
SSE_EVENT = {"type": "object", "required": ["event", "data"], "properties": {
    "event": {"enum": ["citations", "answer", "done", "error"]},
    "data": {"type": "string", "contentMediaType": "application/json"}}}
ASK_STREAM = {200: {"description": "the answer; Server-Sent Events with stream=true",
                    "content": {"text/event-stream": {"schema": SSE_EVENT}}}}


assert set(MODES) == {"dense", "bm25", "hybrid"} and set(STRATEGIES) == set("ABCDEF")


# --- timeouts ------------------------------------------------------------------------------


# Handlers the timeout answered for, kept until their threads return (a task nobody
# holds may be collected while it runs).
_ABANDONED: set[asyncio.Future] = set()


def _forget(task: asyncio.Future) -> None:
    _ABANDONED.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: its error is of no one's concern now


class TimeoutMiddleware:
    """Answer 504 when a search or ask has not started answering in time.

    "Started" means the first byte of the body: a stream (``ask`` with
    ``stream``) sends its headers at once, and its first event only when the
    gate has kept its sources. A stream that has not sent one in time ends with
    an ``error`` event (code ``timeout``) instead of an empty body; once its
    first event is out it is never cut, however long the generator takes. The
    handler's thread cannot be killed; it finishes in the background and its
    result is dropped.
    """

    def __init__(self, app: Any, config: ServerConfig) -> None:
        self.app = app
        self.config = config

    @staticmethod
    def timed(scope: dict) -> bool:
        path = scope.get("path", "")
        return scope.get("method") == "POST" and path.endswith(("/search", "/ask"))

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.timed(scope):
            await self.app(scope, receive, send)
            return
        answering = asyncio.Event()
        stream: bool | None = None  # None until the handler has sent its headers
        late = False  # the timeout answered: what the handler sends after is dropped

        async def send_wrapper(message: dict) -> None:
            nonlocal stream
            if late:
                return
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers") or []).get(b"content-type", b"")
                stream = kind.startswith(b"text/event-stream")
            elif message.get("body") or not message.get("more_body", False):
                answering.set()
            await send(message)

        timeout = self.config.request_timeout
        handler = asyncio.ensure_future(self.app(scope, receive, send_wrapper))
        started = asyncio.ensure_future(answering.wait())
        await asyncio.wait({handler, started}, timeout=timeout,
                           return_when=asyncio.FIRST_COMPLETED)
        started.cancel()
        if answering.is_set() or handler.done() or stream is False:
            await handler  # answering (or a plain response about to): never cut
            return
        late = True
        # not awaited: a handler blocked in a worker thread (a search, a stream waiting
        # for its first event) ends only when that thread returns; its output is dropped
        handler.cancel()
        _ABANDONED.add(handler)
        handler.add_done_callback(_forget)
        err = error_body(504, f"the request took longer than {timeout:g} s",
                         {"timeout_seconds": timeout})
        if stream:
            await send({"type": "http.response.body", "body": _event("error", err).encode(),
                        "more_body": False})
            return
        body = json.dumps(err).encode()
        await send({"type": "http.response.start", "status": 504,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


# --- request body limit -----------------------------------------------------------------------


class BodyLimitMiddleware:
    """Answer 413 to a JSON request body over ``MAX_JSON_BODY`` bytes, counted as it
    arrives: a ``Content-Length`` over the limit is refused unread, and a chunked body
    (no length) is read only up to the limit. Uploads (``.../documents``) stream to
    disk under their own limit and pass through. ``identify`` (the key check) answers
    first: a caller without a valid key learns nothing of the body limit (401, as the
    README promises for a body not yet parsed)."""

    def __init__(self, app: Any, identify: Callable[[Request], Any] | None = None) -> None:
        self.app = app
        self.identify = identify

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path", "").endswith("/documents"):
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length", b"")
        if length.isdigit() and int(length) > MAX_JSON_BODY:
            await self.too_large(scope, receive, send)
            return
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            parts.append(message.get("body", b""))
            size += len(parts[-1])
            if size > MAX_JSON_BODY:
                await self.too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:  # after the body, what the client does next (a disconnect)
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(parts), "more_body": False}

        await self.app(scope, replay, send)

    async def too_large(self, scope: dict, receive: Any, send: Any) -> None:
        if self.identify is not None:
            try:
                self.identify(Request(scope))
            except ApiError as exc:
                await _error(exc.status, exc.message, exc.detail, exc.code)(scope, receive, send)
                return
        await _error(413, f"request body over {MAX_JSON_BODY} bytes",
                     {"limit_bytes": MAX_JSON_BODY})(scope, receive, send)


# --- the app ---------------------------------------------------------------------------------


def create_app(
    *,
    data_dir: str | Path | None = None,
    index_dir: str | Path | None = None,
    embedder: Embedder | None = None,
    model_path: str | None = None,
    model_id: str | None = None,
    max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    min_free_mb: float = DEFAULT_MIN_FREE_MB,
    upload_idle_seconds: float = UPLOAD_IDLE_SECONDS,
    open_allowed: bool = True,
    loopback: bool = True,
    store_url: str | None = None,
    files_dir: str | Path | None = None,
    name: str | None = None,
    index_worker: bool = True,
    rerank_model: str | None = None,
    rerank_candidates: int | None = None,
) -> FastAPI:
    """Build the app. Pass ``embedder`` to reuse a loaded model (tests); else it loads
    in the background at startup and ``/readyz`` answers 503 until it has.

    ``store_url`` + ``files_dir``: serve one PostgreSQL store as the collection
    ``name``; uploads are saved in ``files_dir`` (shared by every server over the
    store) and queued in the store's job table; ``index_worker=False`` makes this
    process answer queries and take uploads but leave the indexing to others."""
    if max_upload_mb <= 0:
        raise ConfigError(f"--max-upload-mb: must be positive, got {max_upload_mb}")
    if request_timeout <= 0:
        raise ConfigError(f"--timeout: must be positive, got {request_timeout}")
    if min_free_mb < 0:
        raise ConfigError(f"--min-free-mb: must not be negative, got {min_free_mb}")
    if upload_idle_seconds <= 0:
        raise ConfigError(f"upload_idle_seconds: must be positive, got {upload_idle_seconds}")
    collections = Collections(data_dir=data_dir, index_dir=index_dir, embedder=embedder,
                              model_path=model_path, model_id=model_id, store_url=store_url,
                              files_dir=files_dir, name=name,
                              rerank_model=rerank_model, rerank_candidates=rerank_candidates)
    keys: KeyStore = open_keys(folder=collections.keys_folder, store_url=store_url)
    jobs: IndexQueue | SharedQueue = (
        SharedQueue(collections, worker=index_worker) if collections.shared
        else IndexQueue(collections)
    )
    config = ServerConfig(int(max_upload_mb * 1024 * 1024), float(request_timeout), open_allowed,
                          loopback, int(min_free_mb * 1024 * 1024), float(upload_idle_seconds))
    model: dict[str, Any] = {"embedder": embedder, "error": None}
    ready = threading.Event()

    def load_model() -> None:
        try:
            emb = load_embedder(model_path, model_id)
        except CiteError as exc:
            model["error"] = str(exc)
            log.error("citeline: cannot load the embedding model: %s", exc)
            return
        model["embedder"] = emb
        collections.set_embedder(emb)
        ready.set()
        jobs.model_ready()

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # type: ignore[no-untyped-def]
        jobs.start()
        if embedder is not None:
            ready.set()
            jobs.model_ready()
        else:
            threading.Thread(target=load_model, name="citeline-model", daemon=True).start()
        recovered = jobs.recover()
        if recovered:
            log.warning("citeline: re-queued %d uploaded file(s) with no index record", recovered)
        yield
        jobs.stop()
        close = getattr(keys, "close", None)
        if close is not None:
            close()

    def caller(request: Request) -> None:
        """Every route's first dependency: on the collections API the key is checked
        before the body's fields are, so a caller without a valid key learns nothing
        about the request it sent but 401."""
        if request.url.path.startswith("/api/collections"):
            request.state.caller = identify(request)

    app = FastAPI(
        title="citeline",
        version=__version__,
        description="Answers over your own documents, with citations that point at the exact place.",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI loads from a CDN; the page must work offline
        redoc_url=None,
        dependencies=[Depends(caller)],
        responses=ERROR_RESPONSES,
    )
    app.state.collections = collections
    app.state.jobs = jobs
    app.state.keys = keys
    app.state.config = config
    app.add_middleware(TimeoutMiddleware, config=config)
    app.add_middleware(BodyLimitMiddleware, identify=lambda request: identify(request))
    # Another site's page may call the API with a key (sent as a header, never a cookie,
    # so a page without one gets nothing a key guards; an open server still refuses
    # cross-site requests, in identify). Outermost: its errors are readable there too.
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET", "POST", "DELETE"],
                       allow_headers=["Authorization", "X-API-Key", "Content-Type"],
                       expose_headers=[PAGE_COUNT], max_age=600)

    # --- errors ------------------------------------------------------------------------

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return _error(exc.status, exc.message, exc.detail, exc.code, headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and not hasattr(request.state, "caller"):
            try:  # a body the parser refused (nested too deep) came before the key check
                caller(request)
            except ApiError as denied:
                return await _api_error(request, denied)
        unreadable = _unreadable_json(exc)
        if unreadable is not None:  # FastAPI's bare "There was an error parsing the body"
            return _error(422, "invalid request: body", [unreadable])
        msg = exc.detail if isinstance(exc.detail, str) else _STATUS_CODES.get(exc.status_code, "error")
        headers = getattr(exc, "headers", None)
        if exc.status_code == 404 and msg == "Not Found":
            msg = f"no such endpoint: {request.method} {request.url.path}"
        if exc.status_code == 405:
            # Starlette's Allow names the methods of the first route of the path only
            # (GET of /api/collections/{name}, not its DELETE)
            allowed = ", ".join(allowed_methods(request))
            msg = f"{request.method} is not allowed on {request.url.path}; it takes {allowed}"
            headers = {**(headers or {}), "Allow": allowed}
        return _error(exc.status_code, msg, None, headers=headers)

    def allowed_methods(request: Request) -> list[str]:
        """Every method some route of ``request``'s path takes."""
        methods: set[str] = set()
        for route in app.router.routes:
            match, _ = route.matches(request.scope)
            if match is not Match.NONE:
                methods |= getattr(route, "methods", None) or set()
        return sorted(methods)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        try:  # a body that is not JSON fails before any dependency: check the key here too
            caller(request)
        except ApiError as denied:
            return await _api_error(request, denied)
        detail = [_invalid_json(e) if e.get("type") == "json_invalid" else
                  {"field": _field_name(e.get("loc", ())),
                   "message": e.get("msg", ""), "type": e.get("type", "")}
                  for e in exc.errors()]
        fields = ", ".join(d["field"] or "body" for d in detail)
        return _error(422, f"invalid request: {fields}", detail)

    @app.exception_handler(CiteError)
    async def _cite_error(request: Request, exc: CiteError) -> JSONResponse:
        return JSONResponse(cite_error_body(exc), status_code=cite_error_status(exc))

    @app.exception_handler(sqlite3.DatabaseError)
    async def _damaged(request: Request, exc: sqlite3.DatabaseError) -> JSONResponse:
        log.error("the index database cannot be read on %s: %s", request.url.path, exc)
        return _error(503, f"the index database cannot be read ({exc})", None,
                      "store_unavailable")

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return _error(500, "internal server error", {"type": type(exc).__name__})

    @app.middleware("http")
    async def _headers(request: Request, call_next):  # type: ignore[no-untyped-def]
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    # --- access --------------------------------------------------------------------------

    def identify(request: Request) -> ApiKey | None:
        """The caller's key record; None means open access (no keys, loopback)."""
        if hasattr(request.state, "caller"):  # checked already, by the dependency
            return request.state.caller
        header = request.headers.get("authorization", "")
        key = header[7:].strip() if header.lower().startswith("bearer ") else ""
        key = key or request.headers.get("x-api-key", "").strip()
        rec = keys.verify(key) if key else None
        if rec is not None:
            return rec
        if config.open_allowed and not keys.any_created():
            _local_only(request, config.loopback)
            return None
        if not key:
            raise ApiError(401, "an API key is required: send 'Authorization: Bearer KEY'")
        raise ApiError(401, "the API key is not valid (unknown or revoked)")

    def authorize(request: Request, collection: str | None, scope: Scope) -> None:
        rec = identify(request)
        if rec is not None and not rec.allows(collection, scope):
            what = f"collection '{collection}'" if collection else "every collection"
            raise ApiError(403, f"this key may not {scope} {what}",
                           {"key": rec.id, "scope": rec.scope, "collections": list(rec.collections)})

    def collection(request: Request, name: str, scope: Scope) -> Collection:
        authorize(request, name, scope)
        c = collections.get(name)
        if c is None:
            raise ApiError(404, f"no collection named '{name}'")
        return c

    def require_ready() -> None:
        if not ready.is_set():
            raise ApiError(503, model["error"] or "the embedding model is still loading",
                           {"model_loaded": False})

    # --- health ------------------------------------------------------------------------

    @app.get("/healthz", tags=["health"], summary="liveness: the process answers")
    def healthz() -> dict:
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"], summary="readiness: model loaded, data folder writable")
    def readyz() -> Response:
        writable = _writable(collections.root)
        detail: dict[str, Any] = {"model_loaded": ready.is_set(), "data_dir_writable": writable}
        db_error = None
        if collections.shared:
            try:
                c = collections.get(collections.single_name)
                if c is not None:
                    c.index.strategy  # noqa: B018 - one read: does the database answer?
            except CiteError as exc:
                db_error = str(exc)
            detail["database_reachable"] = db_error is None
        if not (ready.is_set() and writable and db_error is None):
            why = model["error"] or ("the embedding model is still loading" if not ready.is_set()
                                     else f"{collections.root} is not writable" if not writable
                                     else f"the database is not reachable: {db_error}")
            return _error(503, why, detail)
        return JSONResponse({"status": "ready", **detail})

    @app.get("/api/version", tags=["health"], summary="citeline version and embedding model")
    def version() -> dict:
        emb = model["embedder"]
        ident = emb.identity if emb is not None else model_identity(model_path, model_id)
        return {
            "citeline": __version__,
            "model": {"model_id": ident.model_id, "weights_hash": ident.weights_hash,
                      "dim": ident.dim, "key": ident.key},
            "mode": "multi" if collections.multi else "shared" if collections.shared else "single",
            "max_upload_bytes": config.max_upload_bytes,
        }

    # --- collections -----------------------------------------------------------------

    @app.get("/api/collections", tags=["collections"], summary="collections this key can read")
    def list_collections(request: Request) -> dict:
        rec = identify(request)
        out = []
        for name in collections.names():
            if rec is None or rec.allows(name, "read"):
                c = collections.get(name)
                if c is not None:  # can_write: the page offers Retry and delete only then
                    out.append({**info(c), "can_write": rec is None or rec.allows(name, "write")})
        # creating takes a '*' write key (or an open server): offer it only then
        may_create = rec is None or rec.allows(None, "write")
        return {"collections": out, "can_create": collections.multi and may_create}

    @app.post("/api/collections", status_code=201, tags=["collections"],
              summary="create a collection with its strategy, threshold and OCR languages")
    def create_collection(body: CreateCollection, request: Request) -> dict:
        authorize(request, None, "write")
        try:
            c = collections.create(body.name, body.strategy, body.threshold, body.ocr_languages)
        except FileExistsError as exc:
            raise ApiError(409, f"collection '{body.name}' already exists") from exc
        except NameError_ as exc:
            raise ApiError(400, str(exc), {"field": "name"}) from exc
        return info(c)

    @app.get("/api/collections/{name}", tags=["collections"], summary="one collection")
    def get_collection(name: str, request: Request) -> dict:
        return info(collection(request, name, "read"))

    @app.delete("/api/collections/{name}", tags=["collections"],
                summary="delete a collection, its index and its uploaded files")
    def delete_collection(name: str, request: Request) -> dict:
        authorize(request, None, "write")
        # a document of it being indexed stops within one group of embedded texts, and
        # its queued uploads are dropped: this answers in seconds, with nothing left
        if not collections.delete(name, forget=jobs.forget):
            raise ApiError(404, f"no collection named '{name}'")
        return {"deleted": name}

    # --- documents -----------------------------------------------------------------------

    def documents(c: Collection) -> list[dict]:
        queued = jobs.states(c.name)
        out: dict[str, dict] = {}
        for s in c.index.status():
            j = {**s.to_json(), "media_type": s.record.media_type}
            q = queued.get(s.record.path)
            if q is not None:
                j["searchable_state"] = j["state"]
                j["state"], j["reason"] = q.state, q.reason
            out[s.record.path] = j
        for doc, q in queued.items():
            if doc not in out:
                out[doc] = {**_EMPTY_DOC, "document": doc, "state": q.state, "reason": q.reason}
        return [out[k] for k in sorted(out)]

    def info(c: Collection) -> dict:
        """A collection's settings and the counts of its document list: counted from
        :func:`documents`, so an upload is counted as soon as it is listed (pending),
        not only once indexed. ``chunks`` are the searchable ones (a re-upload waiting
        counts its indexed version's)."""
        docs = documents(c)
        by_state = Counter(d["state"] for d in docs)
        return {
            "name": c.name, "strategy": c.index.strategy, "threshold": c.index.threshold,
            "ocr_languages": c.index.ocr_languages, "documents": len(docs),
            "states": {s.value: by_state[s.value] for s in DocState},
            "chunks": sum(d["chunks"] for d in docs),
        }

    @app.get("/api/collections/{name}/documents", tags=["documents"],
             summary="every document with state, reason, chunk count and versions")
    def list_documents(name: str, request: Request) -> dict:
        c = collection(request, name, "read")
        return {"collection": name, "documents": documents(c)}

    @app.post("/api/collections/{name}/documents", status_code=202, tags=["documents"],
              summary="upload one or many files (multipart field 'files'); indexing runs in the background",
              openapi_extra=UPLOAD_BODY)
    async def upload(name: str, request: Request) -> dict:
        c = collection(request, name, "write")
        c.index.store.get_setting("generation")  # 404 if its index was removed meanwhile,
        # before the files folder is made again under it
        out = []

        def accept(saved: list[tuple[str, int]]) -> None:
            for doc, size in saved:
                jobs.submit(name, doc)
                out.append({"document": doc, "state": DocState.PENDING, "bytes": size,
                            "url": f"/api/collections/{quote(name)}/documents/{quote(doc)}"})
            # A transcript uploaded after its recording, or a recording after its
            # transcript, changes what the other one is: index that one again too (in its
            # own job, so its listed state is its own: the recording's "no transcript"
            # failure goes).
            uploaded = {doc for doc, _ in saved}
            for doc in sorted(uploaded):
                other = companion(c.files / doc)
                if other is not None and other.name not in uploaded:
                    uploaded.add(other.name)
                    jobs.submit(name, other.name)

        await _receive_files(request, c, config, accept)
        return {"collection": name, "documents": out}

    def find_doc(c: Collection, document: str) -> dict:
        for d in documents(c):
            if d["document"] == document:
                return d
        raise ApiError(404, f"no document '{document}' in collection '{c.name}'")

    @app.get("/api/collections/{name}/documents/{document:path}/text", tags=["documents"],
             summary="the canonical text every #char= offset refers to")
    def document_text(name: str, document: str, request: Request) -> dict:
        c = collection(request, name, "read")
        doc = find_doc(c, document)
        text = c.index.document_text(document)
        if text is None:
            raise ApiError(404, f"document '{document}' has no indexed text (state {doc['state']})")
        return {"document": document, "title": doc["title"], "media_type": doc["media_type"],
                "text": text}

    @app.head("/api/collections/{name}/documents/{document:path}/file", include_in_schema=False)
    @app.get("/api/collections/{name}/documents/{document:path}/file", tags=["documents"],
             responses=FILE_ANY, summary="the original file (PDF and media open at #page= / #t=; "
                                         "a compressed one decompressed)")
    def document_file(name: str, document: str, request: Request) -> FileResponse:
        c = collection(request, name, "read")
        f = c.file_of(document)
        if f is None:
            raise ApiError(404, f"no original file for '{document}' in collection '{name}'")
        # a compressed document is served as what was indexed, the file decompressed: its
        # #page= and #char= offsets are in that, and a browser opens it (mimetypes names
        # manual.pdf.gz a PDF: its gzip bytes sent so would open as a broken PDF)
        plain = compressed.inner(f)
        shown = plain.name if plain is not None else f.name
        ctype = (BROWSER_IMAGES.get(Path(shown).suffix.lower()) or mimetypes.guess_type(shown)[0]
                 or "application/octet-stream")
        inline = (ctype == "application/pdf" or ctype in BROWSER_IMAGES.values()
                  or ctype.split("/")[0] in ("audio", "video", "text"))
        if ctype.startswith("text/"):
            ctype = "text/plain; charset=utf-8"  # never render an uploaded HTML/SVG as a page
        served, response = ((f, FileResponse) if plain is None
                            else (_decompressed_copy(f, document), TemporaryFileResponse))
        return response(
            served, media_type=ctype if inline else "application/octet-stream",
            filename=shown, content_disposition_type="inline" if inline else "attachment",
            headers={"Content-Security-Policy": "sandbox"},
        )

    @app.get("/api/collections/{name}/documents/{document:path}/image", tags=["documents"],
             responses=PAGE_PNG, summary="one page of an image document as PNG (a TIFF's page "
                                         "N, where its #page=N&xywh= box is), as browsers show it")
    def document_image(name: str, document: str, request: Request,
                       page: Annotated[int, Query(ge=1, description="1-based page: of a "
                                                  "multi-page TIFF; any other image has one")] = 1,
                       ) -> Response:
        c = collection(request, name, "read")
        f = c.file_of(document)
        if f is None:
            raise ApiError(404, f"no original file for '{document}' in collection '{name}'")
        plain = compressed.inner(f)
        opened = f if plain is None else _decompressed_copy(f, document)
        try:
            png, pages = _page_png(opened, document, page, heif=(plain or f).suffix.lower()
                                   in HEIF_SUFFIXES)
        finally:
            if opened is not f:
                opened.unlink(missing_ok=True)
        shown = f"{Path((plain or f).name).stem}-page{page}.png"
        return Response(png, media_type="image/png", headers={
            "Content-Security-Policy": "sandbox", PAGE_COUNT: str(pages),
            "Content-Disposition": f"inline; filename*=utf-8''{quote(shown, safe='')}"})

    @app.post("/api/collections/{name}/documents/{document:path}/retry", status_code=202,
              tags=["documents"], summary="index one document again from its file")
    def retry(name: str, document: str, request: Request) -> dict:
        c = collection(request, name, "write")
        doc = find_doc(c, document)
        if doc["state"] in (DocState.PENDING, DocState.INDEXING):
            raise ApiError(409, f"'{document}' is already {doc['state']}")
        in_index = doc["indexed_at"] is not None  # else only the queue knows it
        jobs.submit(name, document, "retry" if in_index else "index")
        return {"document": document, "state": DocState.PENDING}

    @app.get("/api/collections/{name}/documents/{document:path}", tags=["documents"],
             summary="one document's state, reason, chunk count and versions")
    def get_document(name: str, document: str, request: Request) -> dict:
        return find_doc(collection(request, name, "read"), document)

    @app.delete("/api/collections/{name}/documents/{document:path}", tags=["documents"],
                summary="remove a document from the index and delete its uploaded file")
    def delete_document(name: str, document: str, request: Request) -> dict:
        c = collection(request, name, "write")
        find_doc(c, document)
        with c.doc_lock(document):  # waits for this document's indexing, not another's
            jobs.forget(name, document)
            c.index.remove(document)
            c.drop_kept_file(document)
            f = (c.files / document).resolve()
            if f.is_relative_to(c.files.resolve()) and f.is_file():
                # a media file's transcript goes with it
                side = sidecar_for(f) if f.suffix.lower() in MEDIA_SUFFIXES else None
                f.unlink()
                if side is not None and side.parent == f.parent:
                    side.unlink(missing_ok=True)
        return {"deleted": document}

    # --- search / ask --------------------------------------------------------------------

    @app.post("/api/collections/{name}/search", tags=["retrieval"],
              summary="ranked hits without generation (the CLI's search --json)")
    def search(name: str, body: SearchBody, request: Request) -> JSONResponse:
        c = collection(request, name, "read")
        require_ready()
        try:
            result = c.index.search(body.query, k=body.k, mode=body.mode,
                                    documents=body.documents)
        except UnmatchedDocuments as exc:
            raise _unmatched(exc) from exc
        out = result.to_json()
        for hit, h in zip(out["hits"], result.hits, strict=True):
            hit["url"] = h.locator.url(h.document)
        return JSONResponse(_served_urls(out, name))

    @app.post("/api/collections/{name}/ask", tags=["retrieval"], responses=ASK_STREAM,
              summary="cited answer or refusal (the CLI's ask --json); SSE with stream=true")
    def ask(name: str, body: AskBody, request: Request) -> Response:
        c = collection(request, name, "read")
        require_ready()
        try:
            if body.stream or "text/event-stream" in request.headers.get("accept", ""):
                if body.documents is not None:  # a 400 before the stream, not an error event
                    c.index.documents_matching(body.documents)
                return StreamingResponse(
                    _sse_live(c.index, body.question, body.mode, name, body.documents),
                    media_type="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
                )
            answer = c.index.ask(body.question, mode=body.mode, documents=body.documents)
        except UnmatchedDocuments as exc:
            raise _unmatched(exc) from exc
        return JSONResponse(_served_urls(answer.to_json(), name))

    # --- the page ----------------------------------------------------------------------

    page_headers = {
        "Content-Security-Policy": (
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            "media-src 'self' blob:; frame-src 'self' blob:; object-src 'self' blob:; "
            "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        ),
    }

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html", headers=page_headers)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


_EMPTY_DOC: dict[str, Any] = {
    "document": "", "title": "", "state": "", "reason": "", "chunks": 0, "over_window": 0,
    "content_hash": None, "extractor": None, "extractor_version": None, "pipeline_version": None,
    "model_id": None, "weights_hash": None, "dim": None, "warnings": [], "indexed_at": None,
    "media_type": "",
}


def _field_name(loc: tuple) -> str:
    """A failing field as the client sends it: pydantic's ``("body", "k")`` is ``k``,
    ``("query", "page")`` is ``page``; a body's field named ``query`` stays ``query``."""
    if loc and loc[0] in ("body", "query"):
        loc = loc[1:]
    return ".".join(str(p) for p in loc if p != "body")


def _invalid_json(e: dict) -> dict[str, str]:
    """A body that is not JSON: pydantic puts the character position where a field
    name goes (loc ``("body", 1)``); name the body and say where it broke instead."""
    at = [p for p in e.get("loc", ()) if isinstance(p, int)]
    why = (e.get("ctx") or {}).get("error", "")
    where = f" at character {at[0]}" if at else ""
    return {"field": "", "message": f"the body is not valid JSON{where}: {why}".rstrip(": "),
            "type": "json_invalid"}


def _unreadable_json(exc: StarletteHTTPException) -> dict[str, str] | None:
    """A JSON body FastAPI's parser could not read, as :func:`_invalid_json` words a body
    that is not JSON: ``json.loads`` raised no ``JSONDecodeError`` but a
    ``UnicodeDecodeError`` (bytes that are not UTF-8) or a ``RecursionError`` (arrays
    nested past its depth), which FastAPI answers as a 400 saying only "There was an
    error parsing the body"."""
    cause = exc.__cause__
    if exc.status_code != 400:
        return None
    if isinstance(cause, UnicodeDecodeError):
        why = f"it is not UTF-8 text (byte {cause.object[cause.start]:#04x} at byte {cause.start})"
    elif isinstance(cause, RecursionError):
        why = "its arrays or objects are nested deeper than the parser reads"
    else:
        return None
    return {"field": "", "message": f"the body is not valid JSON: {why}", "type": "json_invalid"}


class TemporaryFileResponse(FileResponse):
    """A FileResponse of a temporary file, removed once it is sent or the sending fails
    (the client went away)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            Path(self.path).unlink(missing_ok=True)


def _decompressed_copy(f: Path, document: str) -> Path:
    """A temporary file holding compressed file ``f`` (document ``document``) decompressed;
    ApiError 422 saying why when it does not decompress (damaged, or past the cap)."""
    fd, name = tempfile.mkstemp(prefix="citeline-file-")
    os.close(fd)
    tmp = Path(name)
    try:
        compressed.decompress(f, document, tmp)
    except ExtractionError as exc:
        tmp.unlink()
        raise ApiError(422, f"{document}: {exc.reason}", {"document": document},
                       code="unreadable_file") from exc
    return tmp


def _page_png(f: Path, document: str, page: int, heif: bool = False) -> tuple[bytes, int]:
    """Page ``page`` (1-based) of image file ``f`` (document ``document``) as PNG bytes,
    and the count of its pages, as a browser shows the image and as its reader read it:
    turned by its EXIF orientation (a HEIF file by its own rotation, which libheif
    applies), so a citation's ``xywh`` box falls where it did. Each page of a multi-page
    TIFF is a page; any other image has one (an animation's first frame, a HEIF file's
    primary image: the one OCR read). ``heif``: the file is named a HEIF image.
    ApiError: 404 naming ``page`` past the last, 422 for a file that is not an image of
    :data:`IMAGE_FORMATS` or is damaged or too big to decode, 501 for a HEIF image when
    pillow-heif is not installed."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError as exc:
        raise ApiError(501, "showing an image needs Pillow: pip install 'citeline[ocr]'",
                       code="not_installed") from exc
    missing = heif_status()  # Pillow opens HEIF from here on, when pillow-heif is installed
    if heif and missing is not None:
        raise ApiError(501, f"showing a HEIF image needs pillow-heif: {missing}",
                       code="not_installed")
    try:
        with warnings.catch_warnings():  # past MAX_PIXELS is refused below, saying so
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(f, formats=opened_formats())
        with img:
            if img.width * img.height > MAX_PIXELS:  # the most the image reader reads
                raise ApiError(422, f"{document}: the image is {img.width} x {img.height} "
                               f"pixels, more than the {MAX_PIXELS} shown",
                               {"document": document}, code="unreadable_file")
            pages = page_count(img)
            if page > pages:
                raise ApiError(404, f"page: {document} has {pages} page(s), no page {page}",
                               {"field": "page", "pages": pages})
            if pages > 1:
                img.seek(page - 1)
            out = io.BytesIO()
            _png_mode(upright(img)).save(out, "PNG")
    except Image.DecompressionBombError as exc:  # twice the limit: refused by open itself
        raise ApiError(422, f"{document}: the image is too big to show ({exc})",
                       {"document": document}, code="unreadable_file") from exc
    except UnidentifiedImageError as exc:
        raise ApiError(422, f"{document} is not an image (one of "
                       f"{', '.join(IMAGE_FORMATS)}): only an image's pages are shown; its "
                       "file is at /file", {"document": document}, code="not_an_image") from exc
    except (OSError, SyntaxError, ValueError) as exc:  # Pillow's words for a damaged file
        raise ApiError(422, f"{document}: a damaged image, cut short or corrupt ({exc})",
                       {"document": document}, code="unreadable_file") from exc
    return out.getvalue(), pages


def _png_mode(img: Any) -> Any:
    """``img`` in a mode a PNG holds and every browser shows: 1-bit, grey, palette and
    RGB(A) as they are; 16- and 32-bit greys and floats (scans, microscopy) in 8 bits as
    the image reader reads them (:func:`~citeline.extract.image.deep_grey_as_8_bit`);
    anything else (CMYK, YCbCr) as RGB, or RGBA when it is transparent."""
    img = deep_grey_as_8_bit(img)
    if img.mode in ("1", "L", "LA", "P", "RGB", "RGBA"):
        return img
    return img.convert("RGBA" if img.has_transparency_data else "RGB")


def _writable(folder: Path) -> bool:
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".ready-"):
            return True
    except OSError:
        return False


def _event(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


_HEAD = ("question", "refused", "reason", "threshold", "nearest_distance", "citations")


def _head(answer: dict[str, Any]) -> dict[str, Any]:
    """A streamed ask's first event: the :data:`_HEAD` fields of ``answer`` (an
    ``ask --json`` object), and its ``documents`` when a filter chose them, so a
    client knows where the answer is looked for before its text comes."""
    return {k: answer[k] for k in (*_HEAD, "documents") if k in answer}


def _served_urls(body: dict[str, Any], collection: str) -> dict[str, Any]:
    """``body`` (search hits, or an answer's citations and spans) with each ``url`` made
    the server's own: the original file's path under the API, with the locator as its
    fragment (``/api/collections/kb/documents/manual.pdf/file#page=4``), which resolves
    against the server's address. The CLI's ``url`` is relative to the indexed folder,
    which means nothing to a client of the server."""
    base = f"/api/collections/{quote(collection, safe='')}/documents/"
    for key in ("hits", "citations", "spans"):
        for item in body.get(key) or ():
            if "url" in item:  # the document's path is percent-encoded: '#' is the fragment
                path, _, fragment = item["url"].partition("#")
                item["url"] = f"{base}{path}/file#{fragment}"
    return body


def _sse_live(index: Any, question: str, mode: str, collection: str,
              documents: list[str] | None = None) -> Iterator[str]:
    """Server-Sent Events as the answer is made: ``citations`` as soon as the gate has
    kept them (before any generator runs), then every ``answer`` piece as the
    generator produces it (each already checked: links stripped), then ``done``
    with the full answer object. ``done.answer`` is authoritative: invalid [n]
    markers are removed only once the whole text is known. A refusal sends its
    citations event (empty), the NO ANSWER line and done; an error, ``error``.
    """
    events: queue.Queue[tuple[str, Any]] = queue.Queue()

    def work() -> None:
        try:
            answer = index.ask(
                question, mode=mode, documents=documents,
                on_sources=lambda head: events.put(("citations", head)),
                on_text=lambda piece: events.put(("answer", piece)),
            )
            events.put(("done", answer))
        except CiteError as exc:
            events.put(("error", cite_error_body(exc)))
        except Exception as exc:  # the stream must end with an event, not hang
            log.exception("ask stream failed")
            events.put(("error", error_body(500, "internal server error",
                                            {"type": type(exc).__name__})))

    threading.Thread(target=work, name="citeline-ask", daemon=True).start()
    head_sent = streamed = False
    while True:
        kind, data = events.get()
        if kind == "citations":  # the answer's head, as the pipeline will return it
            yield _event("citations", _head(_served_urls(data.to_json(), collection)))
            head_sent = True
        elif kind == "answer":
            if data:
                streamed = True
                yield _event("answer", {"text": data})
        elif kind == "error":
            yield _event("error", data)
            return
        else:
            full = _served_urls(data.to_json(), collection)
            if not head_sent:  # refused: no generator ran, so no sources event came
                yield _event("citations", _head(full))
            if not streamed:
                yield _event("answer", {"text": full["answer"]})
            yield _event("done", full)
            return


_BROWSER_ESCAPES = re.compile(r"%(22|0[AD])", re.IGNORECASE)
# One parameter of a Content-Disposition header: a name, then a quoted string (its ';'
# and escaped '"' inside it) or a token up to the next ';'.
_DISPOSITION_PARAM = re.compile(r';\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')
# The charsets RFC 8187 (section 3.2.1) says every recipient of an extended value must
# take, by their names there (matched without case), as Python's codecs.
_EXTENDED_CHARSETS = {"utf-8": "utf-8", "iso-8859-1": "latin-1"}
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")


def _extended_filename(disposition: bytes) -> str | None:
    """The file name a part's ``filename*`` parameter gives, or None if it has none.

    ``filename*=UTF-8''%E2%82%AC%20rates.txt`` -> ``"€ rates.txt"``: RFC 8187's
    ``charset'language'percent-encoded bytes`` (the language is ignored). RFC 7578
    says multipart/form-data senders should not use it, and python-multipart drops
    it, but some clients name a non-ASCII file only this way; RFC 6266 (4.3) makes it
    win over a plain ``filename`` beside it. A malformed one is a 400, not a guess.
    """
    text = disposition.decode("latin-1")  # as python-multipart reads the header
    value = next((v for k, v in _DISPOSITION_PARAM.findall(text) if k.lower() == "filename*"),
                 None)
    if value is None:
        return None

    def malformed(why: str) -> ApiError:
        return ApiError(400, f"file name (filename*) {why}", {"field": "filename*"})

    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]  # quoted: not RFC 8187's syntax, but its meaning is plain
    charset, sep, rest = value.partition("'")
    _language, sep2, encoded = rest.partition("'")
    if not (sep and sep2):
        raise malformed("is not charset'language'value (RFC 8187), e.g. UTF-8''na%C3%AFve.md")
    codec = _EXTENDED_CHARSETS.get(charset.lower())
    if codec is None:
        raise malformed(f"has the charset {charset!r}: send UTF-8 or ISO-8859-1")
    if "%" in _PERCENT.sub("", encoded):
        raise malformed("has a '%' that is not followed by two hex digits")
    raw = _PERCENT.sub(lambda m: chr(int(m.group(1), 16)), encoded).encode("latin-1")
    try:
        return raw.decode(codec)
    except UnicodeDecodeError as exc:
        raise malformed(f"is not {charset} once percent-decoded") from exc


def _check_room(folder: Path, coming: int, keep: int, name: str | None = None) -> None:
    """507 if writing ``coming`` more bytes under ``folder`` would leave less than
    ``keep`` free on its disk."""
    free = shutil.disk_usage(folder).free
    if free - coming < keep:
        what = f"{name}: " if name else ""
        raise ApiError(507, f"{what}the disk holding the collection has {free >> 20} MiB free; "
                       f"uploads stop before it has less than {keep >> 20} MiB",
                       {"free_bytes": free, "min_free_bytes": keep,
                        **({"file": name} if name else {})})


def _deleted_during_upload(c: Collection) -> ApiError:
    return ApiError(404, f"no collection named '{c.name}': it was deleted during the "
                    "upload; nothing was kept")


async def _receive_files(request: Request, c: Collection, config: ServerConfig,
                         accept: Callable[[list[tuple[str, int]]], None]) -> None:
    """Stream a multipart body to ``<collection>/files/``, enforcing the upload limit
    per file, the disk's free-space reserve, and the idle timeout; then ``accept`` the
    received files (name, size).

    Each file goes to a hidden temporary name first and is renamed only when the
    whole request was accepted, so a refused upload never replaces a good file. The
    collection deleted meanwhile is a 404 with nothing kept: each step that writes
    into its folder, and the renames with their queueing, check that under its
    :meth:`~citeline.server.collections.Collection.receiving` lock.
    """
    limit, keep = config.max_upload_bytes, config.min_free_bytes
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if ctype != b"multipart/form-data" or not boundary:
        raise ApiError(415, "upload files as multipart/form-data (field 'files')")
    unchecked = [0]  # bytes written since the disk was last looked at
    parts: list[dict[str, Any]] = []
    cur: dict[str, Any] = {}
    header: dict[str, bytes] = {"field": b"", "value": b""}

    def on_part_begin() -> None:
        cur.clear()
        cur.update(headers={}, fh=None, size=0, name=None)

    def on_header_field(data: bytes, start: int, end: int) -> None:
        header["field"] += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        header["value"] += data[start:end]

    def on_header_end() -> None:
        cur["headers"][header["field"].decode("latin-1").lower()] = header["value"]
        header["field"], header["value"] = b"", b""

    def on_headers_finished() -> None:
        disposition = cur["headers"].get("content-disposition", b"")
        _, disp = parse_options_header(disposition)
        raw, extended = disp.get(b"filename"), _extended_filename(disposition)
        if raw is None and extended is None:
            return  # a plain form field: ignored
        field = disp.get(b"name", b"").decode("utf-8", "replace")
        if field != "files":
            raise ApiError(400, f"a file in the form field '{field}': send files in the field "
                           "'files'", {"field": field})
        if extended is not None:
            raw_name = extended
        else:
            assert raw is not None  # a part with neither name returned above
            try:
                raw_name = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ApiError(400, "file name is not UTF-8", {"field": "filename"}) from exc
            # a browser sends '"', CR and LF in a file name as %22, %0D, %0A (the HTML
            # standard's multipart form encoding; '%' itself is sent as it is)
            raw_name = _BROWSER_ESCAPES.sub(lambda m: chr(int(m.group(1), 16)), raw_name)
        try:
            name = sanitize_filename(raw_name)
        except NameError_ as exc:
            raise ApiError(400, str(exc), {"file": raw_name}) from exc
        if (why := why_unsupported(Path(name))) is not None:
            raise ApiError(415, f"{name}: {why}", {"file": name})
        if any(p["name"] == name for p in parts):
            raise ApiError(400, f"{name}: the same file name twice in one upload", {"file": name})
        if c.indexed_elsewhere(name):
            raise ApiError(409, f"{name}: a document of that name is already indexed from another "
                           "folder; rename the file to upload it", {"file": name})
        if len(parts) >= MAX_FILES_PER_UPLOAD:
            raise ApiError(413, f"at most {MAX_FILES_PER_UPLOAD} files per upload")
        tmp = c.files / f".upload-{secrets.token_hex(8)}"
        cur["name"], cur["tmp"] = name, tmp
        with c.receiving():
            cur["fh"] = open(tmp, "wb")  # noqa: SIM115 - closed in on_part_end or cleanup
        parts.append(cur.copy())

    def on_part_data(data: bytes, start: int, end: int) -> None:
        fh = cur.get("fh")
        if fh is None:
            return
        cur["size"] += end - start
        if cur["size"] > limit:
            raise ApiError(413, f"{cur['name']}: larger than the upload limit of {limit} bytes",
                           {"file": cur["name"], "limit_bytes": limit})
        unchecked[0] += end - start
        if unchecked[0] >= ROOM_CHECK_BYTES:  # a body with no length, or a disk filling
            _check_room(c.files, end - start, keep, cur["name"])
            unchecked[0] = 0
        fh.write(data[start:end])

    def on_part_end() -> None:
        fh = cur.get("fh")
        if fh is not None:
            fh.close()
            parts[-1]["size"] = cur["size"]
            cur["fh"] = None

    closed = [False]  # the closing boundary arrived: every part is whole

    def on_end() -> None:
        closed[0] = True

    parser = MultipartParser(boundary, {
        "on_part_begin": on_part_begin, "on_header_field": on_header_field,
        "on_header_value": on_header_value, "on_header_end": on_header_end,
        "on_headers_finished": on_headers_finished, "on_part_data": on_part_data,
        "on_part_end": on_part_end, "on_end": on_end,
    })
    idle = config.upload_idle_seconds
    body = request.stream().__aiter__()
    try:
        with c.receiving():
            c.files.mkdir(parents=True, exist_ok=True)
        length = request.headers.get("content-length", "")
        _check_room(c.files, int(length) if length.isdigit() else 0, keep)  # before a byte
        while True:
            try:
                chunk = await asyncio.wait_for(body.__anext__(), idle)
            except StopAsyncIteration:
                break
            except TimeoutError as exc:
                raise ApiError(408, f"the upload sent nothing for {idle:g} s",
                               {"idle_seconds": idle}) from exc
            if c.deleting.is_set():  # its folder goes: receive no more of the body
                raise CollectionDeleted(c.name)
            parser.write(chunk)
        parser.finalize()
        if not parts:
            raise ApiError(400, "no file in the upload (multipart field 'files')")
        if not closed[0]:  # cut short: the last file would be kept half written
            raise ApiError(400, f"malformed multipart upload: the body ends before its closing "
                           f"boundary ({parts[-1]['name']} may be cut short); nothing was kept",
                           {"file": parts[-1]["name"]})
        # a delete of the collection comes before these renames or after their queueing
        with c.receiving():
            for p in parts:
                c.keep_indexed_file(p["name"])  # citations of the indexed version still open it
                os.replace(p["tmp"], c.files / p["name"])
            accept([(p["name"], p["size"]) for p in parts])
    except CollectionDeleted as exc:
        raise _deleted_during_upload(c) from exc
    except FileNotFoundError as exc:  # its folder removed between a check and a write
        if not c.deleting.is_set():
            raise
        raise _deleted_during_upload(c) from exc
    except MultipartParseError as exc:
        raise ApiError(400, f"malformed multipart upload: {exc}") from exc
    except ClientDisconnect as exc:
        raise ApiError(400, "the client disconnected during the upload") from exc
    finally:
        fh = cur.get("fh")
        if fh is not None:
            fh.close()
        for p in parts:
            tmp = p["tmp"]
            if tmp.exists():
                tmp.unlink()
