"""The embedder: normalised vectors, identity, and thread safety."""

from __future__ import annotations

import threading

import numpy as np

from citeline.embed import model_identity


def test_vectors_are_unit_length_and_cosine_is_dot(model_itself):
    embedder = model_itself  # every call reaches the model
    v = embedder.embed(["descale the kettle with vinegar", "inflate the tyres", "hello"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    # for unit vectors 1 - cos = |a - b|^2 / 2
    d = 1 - float(v[0] @ v[1])
    assert abs(d - float(np.sum((v[0] - v[1]) ** 2)) / 2) < 1e-5


def test_identity_without_loading_matches_the_loaded_model(model_itself):
    embedder = model_itself  # every call reaches the model
    assert model_identity() == embedder.identity
    assert embedder.identity.dim == 384 and len(embedder.identity.weights_hash) == 16


def test_token_counting_and_embedding_from_two_threads(model_itself):
    """Regression: an untruncated count racing a truncated encode corrupted the
    fast tokenizer's shared settings (seen as a ValueError in a server test)."""
    embedder = model_itself  # every call reaches the model
    long_text = "word " * 600  # over the window: counted without truncation
    # different lengths, so a batch left unpadded by the other thread cannot be a tensor
    texts = [("kettle " * (i % 7 + 1)) + f"number {i}" for i in range(32)]
    reference = embedder.embed(texts)
    errors: list[BaseException] = []
    results: list[np.ndarray] = []

    def count() -> None:
        try:
            for _ in range(3000):
                assert embedder.count_tokens([long_text, "short"])[0] > 256
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    def embed() -> None:
        try:
            for _ in range(30):
                results.append(embedder.embed(texts))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=count), threading.Thread(target=embed)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for r in results:
        np.testing.assert_allclose(r, reference, atol=1e-5)


def test_a_query_waits_for_one_group_not_a_whole_document(model_itself):
    """The model lock is held per group of LOCK_TEXTS texts: a query embedded while a big
    document is being embedded gets its turn between two groups (the server's searches
    timed out while an upload's thousands of texts held the lock in one call)."""
    embedder = model_itself  # every call reaches the model
    from citeline.embed import LOCK_TEXTS

    texts = [f"paragraph {i} about descaling kettle number {i} with citric acid"
             for i in range(12 * LOCK_TEXTS)]
    started, done = threading.Event(), threading.Event()
    out: dict[str, np.ndarray] = {}
    inner = embedder.model.encode

    def encode(*args, **kwargs):  # the real encode; it only says when the first one ran
        started.set()
        return inner(*args, **kwargs)

    def document() -> None:
        out["doc"] = embedder.embed(texts)
        done.set()

    embedder.model.encode = encode
    try:
        worker = threading.Thread(target=document)
        worker.start()
        assert started.wait(30)
        query = embedder.embed(["how do I descale the kettle"])
        assert not done.is_set(), "the query waited for the whole document"
        worker.join(120)
    finally:
        del embedder.model.encode  # the instance attribute goes; the class's method is back
    assert done.is_set() and out["doc"].shape == (len(texts), 384)
    np.testing.assert_allclose(query[0], embedder.embed(["how do I descale the kettle"])[0],
                               atol=1e-6)
    np.testing.assert_allclose(out["doc"][:3], embedder.embed(texts[:3]), atol=1e-6)
