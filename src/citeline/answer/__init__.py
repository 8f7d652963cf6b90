"""The answer stage: from the gate's kept hits to a checked, cited answer.

Two ways, one contract (SPEC "Answer"): whatever writes the text may only
write [n]; citeline attaches documents and locators afterwards, removes
markers that match no source and strips every link.

- :func:`extractive_answer` — no model: selected sentences with exact sub-range spans.
- :func:`generate_answer` — an LLM :class:`~.generators.Generator` over :func:`.prompt.build_prompt`,
  its output checked by :mod:`.citations` (streamed pieces are checked before they are shown).

``pipeline.Index.ask`` wires this after the gate; a refusal never reaches here.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from citeline.answer.citations import StreamSanitizer, sanitize, uncited_sentences
from citeline.answer.extractive import (
    ANSWER_BUDGET,
    candidates,
    named_rows,
    open_fence,
    score,
    select,
    single_row,
    spans,
    sub_locator,
)
from citeline.answer.generators import (
    GENERATOR_NAMES,
    REGISTRY,
    Extractive,
    Generator,
    GeneratorConfig,
    GeneratorName,
    LocalGenerator,
    OpenAIGenerator,
    Reply,
    drain,
    make_generator,
)
from citeline.answer.prompt import Prompt, build_prompt
from citeline.embed import Embedder
from citeline.errors import GeneratorError, ModelUnavailable
from citeline.types import Hit, Locator, Span

__all__ = [
    "ANSWER_BUDGET", "GENERATOR_NAMES", "REGISTRY", "Drafted", "Extractive", "Generator",
    "GeneratorConfig", "GeneratorName", "LocalGenerator", "OpenAIGenerator", "Prompt", "Reply",
    "build_prompt", "extractive_answer", "generate_answer", "make_generator", "prompt_tokens",
]

TextSink = Callable[[str], None]


@dataclass
class Drafted:
    """What the answer step produced, before it becomes a :class:`~citeline.types.Answer`."""

    text: str = ""
    spans: tuple[Span, ...] = ()
    unused_sources: tuple[int, ...] = ()
    invalid_markers: tuple[str, ...] = ()
    stripped_links: tuple[str, ...] = ()
    uncited_sentences: tuple[str, ...] = ()
    error: str | None = None
    cut_off: str | None = None  # why the generator was stopped before it finished
    prompt: str = ""
    prompt_tokens: int = 0
    prompt_tokenizer: str = ""
    timings: dict[str, float] = field(default_factory=dict)  # milliseconds


# Two sentences a blank line parts in the document are in two paragraphs
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


def extractive_answer(
    question: str, hits: Sequence[Hit], embedder: Embedder, budget: int = ANSWER_BUDGET,
    on_text: TextSink | None = None,
    locate_span: Callable[[Hit, int, int], Locator] = sub_locator,
    text_before: Callable[[Hit], str] | None = None,
) -> Drafted:
    """The selected sentences, each followed by its hit's [n]; one paragraph per hit
    (a sheet's rows one per line).

    Document text is quoted, so it passes the same link/marker check as a model's
    output (``quoted=True``): a document cannot smuggle a URL or a ``[7]`` into the
    answer. The spans keep the verbatim text (``text == document[start:end]``).
    Every shown sentence carries its [n] by construction, so none is uncited.
    ``locate_span(hit, start, end)`` gives a sentence's locator (the pipeline's reads
    the document's region map; :func:`sub_locator` takes the hit's page, time or sheet).
    ``text_before(hit)``: the document's text before the hit (the pipeline's reads the
    stored text), which tells whether the hit starts inside a long code listing the
    chunker cut; without it, a hit is read as if it started outside one.
    """
    t0 = time.perf_counter()
    openers = [open_fence(text_before(h)) if text_before is not None and h.start > 0
               and h.locator.sheet_range is None else "" for h in hits]
    # hits the gate kept always give an answer: when they hold only fragments shorter
    # than a sentence (a list of short items, a table of numbers), the fragments
    cands = candidates(hits, openers=openers) or candidates(hits, min_chars=1,
                                                            openers=openers)
    scores = score(question, cands, embedder)
    named = named_rows(question, cands, lambda c: single_row(
        locate_span(c.hit, c.start, c.end).sheet_range))
    if named:  # the rows the question names by their key are the answer, and only they
        chosen = select([cands[i] for i in named], [scores[i] for i in named], budget)
    else:
        chosen = select(cands, scores, budget)
    picked = spans(chosen, locate_span)
    invalid: list[str] = []
    links: list[str] = []
    paragraphs: list[str] = []
    kept: list[Span] = []  # the sentences the answer shows (a link alone shows nothing)
    for n in range(1, len(hits) + 1):
        hit = hits[n - 1]
        shown = ""
        last = None  # the span shown last, whose end the next one's gap starts at
        for sp in (s for s in picked if s.citation == n):
            checked = sanitize(sp.text, len(hits), quoted=True)
            invalid.extend(checked.invalid_markers)
            links.extend(checked.stripped_links)
            if checked.text:
                sep = "\n" if checked.text.endswith("```") else " "
                if last is not None:  # a sheet's rows one per line, as the sheet shows them,
                    # and a sentence of another paragraph (a man page's next option) on its own
                    gap = hit.content[last.end - hit.start:sp.start - hit.start]
                    shown += "\n" if hit.locator.sheet_range or _BLANK_LINE.search(gap) else " "
                shown += f"{checked.text}{sep}[{n}]"
                kept.append(sp)
                last = sp
        if shown:
            paragraphs.append(shown)
    sel = tuple(kept)
    text = "\n\n".join(paragraphs)
    if on_text is not None and text:
        on_text(text)
    used = {s.citation for s in sel}
    return Drafted(
        text=text, spans=sel,
        unused_sources=tuple(n for n in range(1, len(hits) + 1) if n not in used),
        invalid_markers=tuple(invalid), stripped_links=tuple(links),
        timings={"select": _ms(t0)},
    )


def prompt_tokens(prompt: Prompt, generator: Generator, embedder: Embedder) -> tuple[int, str]:
    """(count, whose tokenizer): the generator's own when it has one (local), else the
    embedding model's word pieces — an approximation, an endpoint's tokenizer is unknown."""
    count = getattr(generator, "count_tokens", None)
    if count is not None:
        return int(count(prompt)), str(getattr(generator, "tokenizer_name", generator.name))
    n = embedder.count_tokens([prompt.text])[0]
    return n, f"{embedder.identity.model_id} word pieces (approximation of the endpoint's)"


def generate_answer(
    question: str, hits: Sequence[Hit], generator: Generator, embedder: Embedder, *,
    timeout: float, on_text: TextSink | None = None, count_prompt: bool = False,
) -> Drafted:
    """Prompt the generator, check what it wrote; errors are returned, never raised.

    With ``on_text`` the answer is streamed: each piece is checked (links
    stripped, markers mapped) before it is handed over.
    """
    t0 = time.perf_counter()
    prompt = build_prompt(question, hits)
    d = Drafted(prompt=prompt.text)
    d.timings["prompt"] = _ms(t0)
    if count_prompt:
        try:
            d.prompt_tokens, d.prompt_tokenizer = prompt_tokens(prompt, generator, embedder)
        except (GeneratorError, ModelUnavailable) as exc:
            d.error = str(exc)
            return d
    sanitizer = StreamSanitizer(len(hits))
    t1 = time.perf_counter()

    def take(piece: str) -> None:
        if "first_token" not in d.timings:
            d.timings["first_token"] = _ms(t1)
        shown = sanitizer.feed(piece)
        if on_text is not None and shown:
            on_text(shown)

    try:
        if on_text is not None:
            d.cut_off = drain(generator.stream(prompt, timeout=timeout), take)
        else:
            reply = generator.generate(prompt, timeout=timeout)
            take(reply.text)
            d.cut_off = reply.cut_off
    except (GeneratorError, ModelUnavailable) as exc:
        d.error = str(exc)
    d.timings["generation"] = _ms(t1)
    last, checked = sanitizer.finish()
    if on_text is not None and last:
        on_text(last)
    d.text = checked.text
    if d.error is None and not d.text.strip():  # neither an answer nor a refusal: a failure
        d.error = f"the generator ({generator.name}) wrote no answer"
    d.invalid_markers = tuple(checked.invalid_markers)
    d.stripped_links = tuple(checked.stripped_links)
    d.uncited_sentences = tuple(uncited_sentences(checked.text))
    d.unused_sources = tuple(n for n in range(1, len(hits) + 1) if n not in checked.cited)
    return d
