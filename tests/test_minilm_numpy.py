"""MiniLM in NumPy (`bot.embeddings.minilm_numpy`) against the torch encoder the stored vectors come from, and the
rule of `bot.embeddings.query` that decides which one a one-shot command's request takes."""

from __future__ import annotations

import numpy as np
import pytest

from bot.embeddings.embedder import LocalEmbedder, model_dir
from bot.embeddings.minilm_numpy import NumpyMiniLM
from bot.embeddings.query import NUMPY_MAX_PIECES, QueryEmbedder
from bot.models import Paper

ODD_TEXTS = [
    "what MoE papers this week?",
    "  padded  ",
    "",
    "Ünïcödé — 数学 and emoji 🤔",
    "Schrödinger-Brücken für Diffusionsmodelle: Konvergenz in Wasserstein-Abständen",
    "模型压缩与量化的最新进展",
    "Обучение с подкреплением для больших языковых моделей",
    r"An $\mathcal{O}(n \log n)$ attention with $\alpha$-entmax & <b>tags</b>",
    "x" * 3000,  # a word over 100 characters: one [UNK]
    "sparse attention " * 300,  # 600 word pieces, truncated to 256
]


@pytest.fixture(scope="module")
def numpy_minilm() -> NumpyMiniLM:
    return NumpyMiniLM(model_dir())


def test_numpy_vectors_agree_with_torchs(
    numpy_minilm: NumpyMiniLM, embedder: LocalEmbedder, demo_papers: list[Paper]
) -> None:
    longest = sorted(demo_papers, key=lambda p: len(p.text), reverse=True)[:3]
    texts = [p.text for p in longest] + [p.title for p in demo_papers[:15]] + ODD_TEXTS
    pieces = numpy_minilm.word_pieces(texts)
    assert max(len(ids) for ids in pieces) == 256  # long texts are truncated as torch's encoder truncates them
    assert min(len(ids) for ids in pieces) == 2  # the empty text: [CLS] [SEP]

    ours = numpy_minilm.encode(texts)
    torchs = embedder.embed(texts)
    assert ours.dtype == np.float32 and ours.shape == (len(texts), 384)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-6)
    assert (ours * torchs).sum(axis=1).min() >= 0.99999
    assert np.abs(ours - torchs).max() < 1e-5
    # a text's vector does not depend on the texts computed with it
    np.testing.assert_array_equal(numpy_minilm.encode([texts[-3]]), ours[-3:-2])


def test_the_query_embedder_takes_numpy_for_short_requests_and_torch_for_larger(
    numpy_minilm: NumpyMiniLM, embedder: LocalEmbedder
) -> None:
    query = QueryEmbedder(embedder)
    calls = embedder.calls  # the session's torch embedder counts its requests (tests/conftest.MemoEmbedder)
    assert query.embed([]).shape == (0, 384)

    question = ["which papers introduce new benchmarks for LLM agents?"]
    vector = query.embed(question)
    assert embedder.calls == calls  # computed here, in NumPy
    assert float(vector[0] @ embedder.embed(question)[0]) >= 0.99999
    calls = embedder.calls
    pasted = ["mixture of experts routing " * 200]  # one text is truncated to 256 word pieces: still NumPy
    query.embed(pasted)
    assert embedder.calls == calls

    several = [f"interest number {i}: sparse mixture-of-experts routing in large language models" for i in range(20)]
    pieces = sum(len(ids) for ids in numpy_minilm.word_pieces(several))
    assert pieces > NUMPY_MAX_PIECES
    np.testing.assert_array_equal(query.embed(several), embedder.embed(several))  # torch's, as stored vectors are
    assert embedder.calls == calls + 2
