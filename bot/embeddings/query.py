"""The embedder of the one-shot commands `paperscout ask` and `search`: a question without torch.

A cold `ask` embeds one question. Importing torch for it (1.5-1.8 s of CPU) cost more than everything else the
command does, so a short request is computed here with NumPy (`bot.embeddings.minilm_numpy`) from the same
verified weights, and torch is never imported.

The rule: in `ask` and `search` only (`bot.core.command_embedder`), a request whose texts come to at most
`NUMPY_MAX_PIECES` word pieces in all (after each is truncated to the model's 256) is computed with NumPy in this
process; a larger one goes to `bulk`, which is torch (the helper process of `bot.embeddings.process`, or this
process on a single core). A question is 5-40 word pieces; 256 of them cost 0.4-0.6 s of CPU in NumPy, still
less than importing torch. Everything that stores vectors (ingest, repair, sentence vectors), the bot and the
console embed with torch, so the stored vectors all come from one computation; a NumPy query vector agrees with
torch's to about 1e-7 per component (cosine above 0.99999, tests/test_minilm_numpy.py), far below the gaps between
the papers it ranks (the held-out answers are the same, docs/BENCHMARKS.md). This embedder is the core's
`query_embedder` only: the stores these commands open embed with `bulk` (`bot.cli.run`), so a vector one of them
stores (a ranking for a member's profile embeds papers without one) is torch's like every other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bot.embeddings.embedder import Embedder, MiniLMEmbedder, model_dir, verify_weights
from bot.embeddings.minilm import load_tokenizer, read_config
from bot.embeddings.minilm_numpy import NumpyMiniLM, word_pieces

NUMPY_MAX_PIECES = 256


class QueryEmbedder(MiniLMEmbedder):
    """all-MiniLM-L6-v2 for a one-shot command: short requests in NumPy here, larger ones by `bulk` (torch).
    Building one reads nothing; the first text checks the weights' hash and loads the tokenizer, the first short
    request loads the weights."""

    def __init__(
        self,
        bulk: Embedder,
        batch_size: int = 32,
        threads: int = 0,
        model_path: Path | None = None,
        verified: Path | None = None,
    ) -> None:
        super().__init__(batch_size, threads, model_path, verified)
        self.bulk = bulk
        self._tokenizer: Any = None
        self._encoder: Any = None

    def embed(self, texts: list[str]) -> np.ndarray:
        """Normalised float32 vectors of `texts`: NumPy for at most `NUMPY_MAX_PIECES` word pieces, else `bulk`."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            path = self._model_path or model_dir()
            verified_now = False
            if self._tokenizer is None:
                # first the weights, as `load_encoder` checks them: a missing or damaged model fails here, whichever
                # path the request takes
                verify_weights(path / "model.safetensors", record=self._verified)
                verified_now = True
                self._tokenizer = load_tokenizer(path, read_config(path), padding=False)
            pieces = word_pieces(self._tokenizer, texts)
            short = sum(len(ids) for ids in pieces) <= NUMPY_MAX_PIECES
            if short and self._encoder is None:
                if not verified_now:  # checked again right before the weights are read
                    verify_weights(path / "model.safetensors", record=self._verified)
                self._encoder = NumpyMiniLM(path, self._tokenizer)
            if short:  # under the lock: the BLAS thread limit it sets is the process's, restored on return
                return np.asarray(self._encoder.encode_pieces(pieces), dtype=np.float32)
        return self.bulk.embed(texts)

    def close(self) -> None:
        """Stop the bulk embedder's helper process, if it has one and it was started."""
        close = getattr(self.bulk, "close", None)
        if close is not None:
            close()
