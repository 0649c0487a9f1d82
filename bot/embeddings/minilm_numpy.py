"""The MiniLM forward pass in NumPy, for a few short texts in a process that should not import torch.

`import torch` is 1.5-1.8 s of CPU, most of a cold `paperscout ask`, which embeds one question. This module
computes the same sentence vector as `bot.embeddings.minilm` (6-layer BERT, exact-erf GELU, layer norm, mean
pooling over the attention mask, L2 normalisation) from the same verified files: model.safetensors through
`safetensors.numpy`, tokenizer.json through `tokenizers`, truncated to the same 256 word pieces. The arithmetic is
float32 like torch's, but summed in another order (OpenBLAS, not MKL), so a vector agrees with torch's to about
1e-7 per component (cosine above 0.99999, tests/test_minilm_numpy.py), not bit for bit: stored vectors, which
must all come from one computation, stay on torch; only query texts of a one-shot command take this path
(`bot.embeddings.query`).

Each text runs alone, unpadded, so its attention mask covers every one of its word pieces: nothing is masked and
nothing is computed for padding. Its cost grows with the word pieces (about 5 ms each on this project's machine,
most of it the GELU's erf, which NumPy lacks and `math.erf` computes one value at a time).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from bot.embeddings.minilm import load_tokenizer, read_config

_SQRT_HALF = math.sqrt(0.5)


class NumpyMiniLM:
    """all-MiniLM-L6-v2 in NumPy from a sentence-transformers model directory whose weights were verified."""

    def __init__(self, path: Path, tokenizer: Any = None) -> None:
        from safetensors.numpy import load_file

        config = read_config(path)
        self._heads = config.heads
        self._layers = config.layers
        self._eps = np.float32(config.eps)
        self._weights: dict[str, np.ndarray] = load_file(str(path / "model.safetensors"))
        self.tokenizer = tokenizer or load_tokenizer(path, config, padding=False)  # unpadded: one text at a time

    def word_pieces(self, texts: list[str]) -> list[list[int]]:
        """The word-piece ids each text is computed from (`word_pieces`)."""
        return word_pieces(self.tokenizer, texts)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Normalised float32 vectors of `texts`, one row each."""
        return self.encode_pieces(self.word_pieces(texts))

    def encode_pieces(self, pieces: list[list[int]]) -> np.ndarray:
        """Normalised float32 vectors of texts given as their word-piece ids (`word_pieces`), one row each."""
        from threadpoolctl import threadpool_limits

        vectors = np.zeros((len(pieces), self._weights["embeddings.word_embeddings.weight"].shape[1]), np.float32)
        # one BLAS thread: these products are a few rows long, and OpenBLAS's threads spinning at their barriers
        # made a question 7x slower on two busy cores (0.18 s against 0.026 s)
        with threadpool_limits(limits=1, user_api="blas"):
            for row, ids in enumerate(pieces):
                vectors[row] = self._encode_one(np.asarray(ids, dtype=np.int64))
        return vectors

    def _encode_one(self, ids: np.ndarray) -> np.ndarray:
        w = self._weights

        def norm(x: np.ndarray, name: str) -> np.ndarray:
            centred = x - x.mean(axis=-1, keepdims=True)
            variance = (centred * centred).mean(axis=-1, keepdims=True)
            return centred / np.sqrt(variance + self._eps) * w[f"{name}.weight"] + w[f"{name}.bias"]

        def dense(x: np.ndarray, name: str) -> np.ndarray:
            return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]

        length = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][0]
        x = norm(x + w["embeddings.position_embeddings.weight"][:length], "embeddings.LayerNorm")
        width = x.shape[-1]
        head = width // self._heads
        scale = np.float32(head**-0.5)
        for layer in range(self._layers):
            p = f"encoder.layer.{layer}"
            q, k, v = (
                dense(x, f"{p}.attention.self.{part}").reshape(length, self._heads, head).transpose(1, 0, 2)
                for part in ("query", "key", "value")
            )
            scores = (q @ k.transpose(0, 2, 1)) * scale
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            attention = (scores / scores.sum(axis=-1, keepdims=True)) @ v
            attention = attention.transpose(1, 0, 2).reshape(length, width)
            x = norm(dense(attention, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
            hidden = _gelu(dense(x, f"{p}.intermediate.dense"))
            x = norm(dense(hidden, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
        mean = x.mean(axis=0)  # mean pooling: unpadded, every word piece is attended
        # normalised twice, as sentence-transformers does (see bot.embeddings.minilm)
        for _ in range(2):
            mean = mean / max(np.linalg.norm(mean), np.float32(1e-12))
        return mean.astype(np.float32)


def word_pieces(tokenizer: Any, texts: list[str]) -> list[list[int]]:
    """The word-piece ids of each text, stripped and truncated as sentence-transformers does (`tokenizer` from
    `bot.embeddings.minilm.load_tokenizer`, unpadded)."""
    return [encoding.ids for encoding in tokenizer.encode_batch([text.strip() for text in texts])]


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU with the exact erf, as torch's default: x/2 * (1 + erf(x/sqrt 2)), erf in double precision."""
    scaled = (x.astype(np.float64) * _SQRT_HALF).ravel().tolist()
    erf = np.fromiter(map(math.erf, scaled), dtype=np.float64, count=len(scaled)).reshape(x.shape)
    return (0.5 * x * (1.0 + erf)).astype(np.float32)
