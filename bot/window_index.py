"""Exact nearest-neighbour search inside an announcement-date window, in memory.

Chroma stays the store of record, but its metadata-filtered queries cost 70-230 ms at 100,000 papers
(docs/BENCHMARKS.md), while questions nearly always name a window ("this week"). This index mirrors the stored
vectors in one float32 matrix with each row's announcement day; a window is a contiguous slice of the rows
sorted by day, so a query is one matrix-vector product over that slice. 100,000 papers take about 150 MB.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

_GROW = 1.5


class WindowIndex:
    """Vectors with their announcement days (yyyymmdd ints) and categories, searchable by date window."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._days = np.zeros(0, dtype=np.int32)
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._categories: list[frozenset[str]] = []
        self._alive = np.zeros(0, dtype=bool)
        self._size = 0
        self._order: np.ndarray | None = None  # rows sorted by day, rebuilt lazily after writes
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return int(self._alive[: self._size].sum())

    def _reserve(self, extra: int) -> None:
        needed = self._size + extra
        if needed <= len(self._matrix):
            return
        capacity = max(needed, int(len(self._matrix) * _GROW) + 16)
        matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        matrix[: self._size] = self._matrix[: self._size]
        days = np.zeros(capacity, dtype=np.int32)
        days[: self._size] = self._days[: self._size]
        alive = np.zeros(capacity, dtype=bool)
        alive[: self._size] = self._alive[: self._size]
        self._matrix, self._days, self._alive = matrix, days, alive

    def upsert(
        self, ids: Sequence[str], days: Sequence[int], vectors: np.ndarray, categories: Sequence[Sequence[str]]
    ) -> None:
        """Add or replace rows (a replaced paper keeps its row)."""
        with self._lock:
            self._reserve(len(ids))
            for paper_id, day, vector, cats in zip(ids, days, vectors, categories, strict=True):
                row = self._row.get(paper_id)
                if row is None:
                    row = self._size
                    self._size += 1
                    self._row[paper_id] = row
                    self._ids.append(paper_id)
                    self._categories.append(frozenset(cats))
                else:
                    self._categories[row] = frozenset(cats)
                self._matrix[row] = vector
                self._days[row] = day
                self._alive[row] = True
            self._order = None

    def delete(self, ids: Sequence[str]) -> None:
        """Drop rows; their slots stay allocated but are never returned."""
        with self._lock:
            for paper_id in ids:
                row = self._row.pop(paper_id, None)
                if row is not None:
                    self._alive[row] = False
            self._order = None

    def _sorted(self) -> np.ndarray:
        if self._order is None:
            live = np.flatnonzero(self._alive[: self._size])
            self._order = live[np.argsort(self._days[live], kind="stable")]
        return self._order

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of the ids this index holds, by id (the others are absent)."""
        with self._lock:
            rows = {i: self._row[i] for i in ids if i in self._row}
            return {i: self._matrix[row].copy() for i, row in rows.items()}

    def search(
        self,
        vector: np.ndarray,
        k: int,
        start: int | None = None,
        end: int | None = None,
        categories: Sequence[str] = (),
    ) -> list[tuple[str, float]]:
        """The `k` most similar rows announced between `start` and `end` (inclusive), optionally in `categories`."""
        with self._lock:
            order = self._sorted()
            days = self._days[order]
            low = int(np.searchsorted(days, start, side="left")) if start is not None else 0
            high = int(np.searchsorted(days, end, side="right")) if end is not None else len(order)
            rows = order[low:high]
            if categories:
                wanted = set(categories)
                rows = rows[[bool(wanted & self._categories[r]) for r in rows]]
            if len(rows) == 0:
                return []
            sims = self._matrix[rows] @ np.asarray(vector, dtype=np.float32)
            top = min(k, len(rows))
            best = np.argpartition(-sims, top - 1)[:top]
            best = best[np.argsort(-sims[best])]
            return [(self._ids[rows[i]], float(sims[i])) for i in best]
