"""Research areas: a fixed picture of what arXiv's machine-learning papers are about, learnt once from a large corpus,
so that a handful of papers can be grouped the way a person files them (by the object of study: LLMs, diffusion,
graphs) rather than by whatever method words a few abstracts happen to share.

The picture is a set of k-means codebooks of paper vectors (several sizes, several seeds) fitted on the four shared
arXiv days (1,609 papers; regenerate with ``python -m bot.topictree.areas DATA_DIR``). A paper's area profile is its
soft assignment to each codebook's centroids (a softmax of cosine similarities), square-rooted so that Euclidean
distance between profiles is the Hellinger distance, the codebooks side by side. Two papers are close when the
corpus places them in the same areas at every resolution, which a small set's own vectors cannot tell.
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import normalize

log = logging.getLogger(__name__)
AREAS_FILE = Path(__file__).with_name("data") / "research_areas.npz"
SIZES = (10, 20, 30, 45)  # codebooks from broad to narrow: no one number of areas is right for every set
SEEDS = (0, 1, 2)  # k-means of one seed is noisy; three side by side steady it
TEMPERATURE = 0.1  # cosine units: a paper belongs to a few nearby areas, not one or all
# papers whose typical nearest area is less similar than this are not what the areas were learnt on (arXiv's ML
# papers sit at 0.5-0.6, titles alone at 0.5, random vectors at 0.1): they are grouped on their own vectors
MIN_SIMILARITY = 0.3


@dataclass(frozen=True, slots=True)
class Areas:
    """The codebooks: every centroid (unit-length rows) and which codebook each belongs to."""

    centroids: np.ndarray  # (centroids, dim)
    codebook: np.ndarray  # (centroids,) the index of each centroid's codebook
    model: str

    @property
    def dim(self) -> int:
        """The vector size the areas were learnt for."""
        return int(self.centroids.shape[1])


def fit_areas(vectors: np.ndarray, model: str, sizes: tuple[int, ...] = SIZES, seeds: tuple[int, ...] = SEEDS) -> Areas:
    """Codebooks of `sizes` x `seeds` fitted by k-means on `vectors` (a large corpus of paper vectors)."""
    unit = normalize(np.asarray(vectors, dtype=np.float64))
    centroids, which = [], []
    for n, (size, seed) in enumerate((size, seed) for size in sizes for seed in seeds):
        centroids.append(normalize(KMeans(size, n_init=4, random_state=seed).fit(unit).cluster_centers_))
        which += [n] * size
    return Areas(np.vstack(centroids).astype(np.float32), np.asarray(which, dtype=np.int16), model)


def save_areas(areas: Areas, path: Path = AREAS_FILE) -> None:
    """Write `areas` (half-precision centroids: the softmax does not notice)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        np.savez(handle, centroids=areas.centroids.astype(np.float16), codebook=areas.codebook, model=areas.model)


@functools.cache
def bundled_areas(path: Path = AREAS_FILE) -> Areas | None:
    """The shipped research areas, or None when the file is missing or unreadable (grouping then goes without)."""
    try:
        with np.load(path, allow_pickle=False) as found:
            return Areas(found["centroids"].astype(np.float32), found["codebook"], str(found["model"]))
    except (OSError, ValueError, KeyError):
        return None


def known_to(vectors: np.ndarray, areas: Areas | None, model: str = "") -> bool:
    """Whether `areas` can place these papers: learnt with the embedding model `model` the vectors are from (when
    given), for vectors of this size, and the median paper's nearest area at least `MIN_SIMILARITY` alike."""
    if areas is None or len(vectors) == 0 or np.ndim(vectors) != 2 or vectors.shape[1] != areas.dim:
        return False
    if model and model != areas.model:  # another model's vectors live in another space, even at the same size
        _other_model(areas.model, model)
        return False
    nearest = (normalize(np.asarray(vectors, dtype=np.float64)) @ areas.centroids.T.astype(np.float64)).max(axis=1)
    return bool(np.median(nearest) >= MIN_SIMILARITY)


@functools.cache
def _other_model(learnt: str, running: str) -> None:
    """Say once per pair of models that the areas are not used."""
    log.warning(
        "the research areas were learnt with %s but papers are embedded with %s: topics are grouped without them "
        "(python -m bot.topictree.areas DATA_DIR learns them again)", learnt, running,
    )  # fmt: skip


def area_profiles(vectors: np.ndarray, areas: Areas, temperature: float = TEMPERATURE) -> np.ndarray:
    """Each paper's area profile: per codebook, the root of its softmax over cosine similarities to the centroids
    (unit length), all codebooks side by side, the whole row unit length."""
    unit = normalize(np.asarray(vectors, dtype=np.float64))
    scores = unit @ areas.centroids.T.astype(np.float64) / temperature
    parts = []
    for n in np.unique(areas.codebook):
        block = scores[:, areas.codebook == n]
        weights = np.exp(block - block.max(axis=1, keepdims=True))
        parts.append(normalize(np.sqrt(weights / weights.sum(axis=1, keepdims=True))))
    return normalize(np.hstack(parts))


def main() -> None:
    """Fit the research areas on the arXiv days (JSON lines with title and abstract) in DATA_DIR/arxiv."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("data", type=Path, help="a folder with arxiv/*.jsonl (e.g. ../shared/data)")
    parser.add_argument("--out", type=Path, default=AREAS_FILE)
    args = parser.parse_args()
    from bot.embeddings.embedder import MINILM_NAME, LocalEmbedder

    from .build import paper_text_vectors
    from .tree import PaperText

    papers = []
    for path in sorted((args.data / "arxiv").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                papers.append(PaperText(str(row["id"]), row["title"], row["abstract"]))
    vectors = paper_text_vectors(LocalEmbedder().embed, papers)
    areas = fit_areas(vectors, MINILM_NAME)
    save_areas(areas, args.out)
    books = len(SIZES) * len(SEEDS)
    print(f"{len(papers)} papers -> {len(areas.centroids)} centroids in {books} codebooks: {args.out}")


if __name__ == "__main__":
    main()
