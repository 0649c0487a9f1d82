"""Grouping papers: Ward clustering at two levels, the top level on each paper's research-area profile
(`bot.topictree.areas`), the subtopics on its MiniLM vector joined with its TF-IDF words.

The meaning of a paper (its dense vector) and the words it shares with the other papers (its TF-IDF row) are put side
by side, each unit-length and weighed, so the squared distance between two papers is a weighted sum of the two cosine
distances. Ward's method builds one tree of merges; the number of topics is where the tree cuts best by silhouette,
within bounds a reader can take in (a handful to ten top-level topics, two to five subtopics under a large one).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import pdist, squareform
from sklearn.metrics import silhouette_score
from sklearn.preprocessing import normalize

WORD_WEIGHT = 0.3  # the words' share of the squared distance; the vectors' is the rest
MAX_TOPICS = 10
MIN_TOPICS = 3
PAPERS_PER_TOPIC = 3  # at least this many papers per topic on average
MAX_SUBTOPICS = 5
SPLIT_FROM = 6  # a topic of this many papers or more gets subtopics


def joined_features(vectors: np.ndarray, words: np.ndarray, word_weight: float = WORD_WEIGHT) -> np.ndarray:
    """The dense vectors and the word rows side by side, each row unit-length and scaled by the root of its weight."""
    dense = normalize(np.asarray(vectors, dtype=np.float64))
    if words.size == 0 or not np.any(words) or word_weight <= 0:
        return dense
    return np.hstack([np.sqrt(1 - word_weight) * dense, np.sqrt(word_weight) * normalize(words.astype(np.float64))])


def cut_best(features: np.ndarray, low: int, high: int) -> np.ndarray:
    """Group labels (0-based) from Ward's tree, cut at the number of groups in [low, high] with the best silhouette."""
    count = len(features)
    if count < 2 or high < 2:
        return np.zeros(count, dtype=int)
    tree = linkage(features, method="ward")
    choices = range(max(2, low), min(high, count - 1) + 1)
    if len(choices) == 1:  # nothing to choose: no silhouette (its distance matrix is most of the time on 2,000 papers)
        return fcluster(tree, t=choices[0], criterion="maxclust") - 1
    distances = squareform(pdist(features))
    best, best_score = np.zeros(count, dtype=int), -2.0
    for k in choices:
        labels = fcluster(tree, t=k, criterion="maxclust") - 1
        found = len(set(labels))
        if found < 2 or found >= count:
            continue
        score = silhouette_score(distances, labels, metric="precomputed")
        if score > best_score:
            best, best_score = labels, score
    return best


def topic_bounds(count: int, most: int = MAX_TOPICS, fewest: int = MIN_TOPICS) -> tuple[int, int]:
    """How many groups `count` papers may get: at most `most`, with at least 3 papers per group on average, and at
    least about the root of a quarter of the papers (silhouette alone favours a few huge groups on a large set)."""
    high = min(most, count // PAPERS_PER_TOPIC)
    low = max(fewest, round(math.sqrt(count / 4)))
    return min(low, high), high


def two_levels(features: np.ndarray, top_features: np.ndarray | None = None) -> list[list[list[int]]]:
    """Paper indices grouped into topics, each a list of subtopics (one subtopic: not split). Larger groups first;
    inside a group the papers keep their given order. The top level is cut from `top_features` when given (the
    papers' research-area profiles: what they are about), the subtopics from `features` (how they differ)."""
    low, high = topic_bounds(len(features))
    top = cut_best(features if top_features is None else top_features, low, high)
    topics: list[list[list[int]]] = []
    for label in _by_size(top):
        members = np.flatnonzero(top == label)
        if len(members) < SPLIT_FROM:
            topics.append([members.tolist()])
            continue
        sub = cut_best(features[members], *topic_bounds(len(members), MAX_SUBTOPICS, 2))
        topics.append([members[sub == s].tolist() for s in _by_size(sub)])
    return topics


def _by_size(labels: np.ndarray) -> list[int]:
    values, counts = np.unique(labels, return_counts=True)
    first = {v: int(np.flatnonzero(labels == v)[0]) for v in values}
    return [int(v) for v, _ in sorted(zip(values, counts, strict=True), key=lambda vc: (-vc[1], first[vc[0]]))]
