"""A small deterministic embedder for tests whose subject is not the embeddings, and `paperscout` run with it.

    python -m tests.word_vectors ARGS...        # `paperscout ARGS` with `WordEmbedder` instead of MiniLM

A command that embeds loads torch and MiniLM (seconds of CPU) and spends about 0.1 s of CPU per text; a test that
starts a dozen such processes to check locking, repair or crash safety spends most of its time there. `WordEmbedder`
hashes the words of a text into a unit vector: texts sharing words are near, the same text always gives the same
vector, in every process. Only the embedder is replaced (`bot.core.make_embedder` and `command_embedder`); the
command, its store and its locks are paperscout's own.

With PAPERSCOUT_TEST_EMBED_GATE=PATH set, the first embedding of the process writes PATH + ".waiting" and then
waits until PATH exists: a test can hold a writer in the middle of its write for as long as it needs (no sleeps).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

DIM = 384
GATE_ENV = "PAPERSCOUT_TEST_EMBED_GATE"
GATE_LIMIT_SECONDS = 600  # a gate nobody opens ends the command instead of hanging the test
_WORD = re.compile(r"\w+")


class WordEmbedder:
    """Hashed bag of lower-cased words, L2-normalised (a text without words gets a fixed vector)."""

    name = "test-word-vectors"
    dim = DIM

    def __init__(self, gate: Path | None = None) -> None:
        self.gate = gate

    def embed(self, texts: list[str]) -> np.ndarray:
        """One unit vector per text."""
        self._wait_at_gate()
        vectors = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()) or [""]:
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                vectors[row, int.from_bytes(digest[:4], "little") % DIM] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors[:, 0] += (norms[:, 0] == 0).astype(np.float32)  # all hashed words cancelled out
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def _wait_at_gate(self) -> None:
        gate, self.gate = self.gate, None  # only the first embedding waits
        if gate is None:
            return
        gate.with_name(gate.name + ".waiting").write_text(str(os.getpid()), encoding="utf-8")
        deadline = time.monotonic() + GATE_LIMIT_SECONDS
        while not gate.exists():
            if time.monotonic() > deadline:
                raise RuntimeError(f"nobody opened the test gate {gate}")
            time.sleep(0.01)


def use_word_vectors() -> None:
    """Make this process's paperscout embed with `WordEmbedder` (call before a command runs)."""
    import bot.core

    gate = os.environ.get(GATE_ENV)
    bot.core.make_embedder = lambda settings: WordEmbedder(Path(gate) if gate else None)  # type: ignore[assignment]
    bot.core.command_embedder = lambda settings: None  # type: ignore[assignment]


if __name__ == "__main__":
    use_word_vectors()
    from bot.cli import main

    sys.exit(main(sys.argv[1:]))
