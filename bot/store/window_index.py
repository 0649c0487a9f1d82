"""Exact nearest-neighbour search inside an announcement-date window, in memory.

Chroma stays the store of record, but its metadata-filtered queries cost 70-230 ms at 100,000 papers
(docs/BENCHMARKS.md), while questions nearly always name a window ("this week"). This index mirrors the stored
vectors in one float32 matrix with each row's announcement day; a window is a contiguous slice of the rows
sorted by day, so a query is one matrix-vector product over that slice. 100,000 papers take about 150 MB.

The index need not hold the whole archive: `DayRanges` records which announcement days it holds completely, so a
process asking about one week (a CLI `ask`) reads that week from Chroma and not the other 100,000 vectors.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Sequence

import numpy as np

from bot.models import day_to_int, int_to_day

_GROW = 1.5
# rows per matrix-vector product: OpenBLAS hands a bigger product to its threads, and on a busy machine waiting for
# them cost a 30-day window 15-24 ms at p95 instead of 2.5 ms (bench/retrieval.py, docs/BENCHMARKS.md)
_BLOCK = 256
_FIRST = -(10**9)  # stands for an open start: before every yyyymmdd day (and the 0 of a missing one)
_LAST = 10**9  # stands for an open end: after every yyyymmdd day

DaySpan = tuple[int | None, int | None]  # inclusive yyyymmdd days; None is an open end


def _step(day: int, days: int) -> int:
    """The yyyymmdd day `days` after `day` (20250131 -> 20250201), or plain integer steps for a non-date."""
    try:
        return day_to_int(int_to_day(day) + dt.timedelta(days=days))
    except (ValueError, OverflowError):
        return day + days


class DayRanges:
    """A set of inclusive announcement-day ranges (yyyymmdd ints), kept merged: which days an index holds in full.

    Consecutive days merge across month ends (..20250131 and 20250201.. are one range), so no empty gap between
    them is ever asked for.
    """

    def __init__(self) -> None:
        self._spans: list[tuple[int, int]] = []  # sorted, disjoint, never adjacent

    @staticmethod
    def _bounds(low: int | None, high: int | None) -> tuple[int, int]:
        return (_FIRST if low is None else low, _LAST if high is None else high)

    @property
    def spans(self) -> list[DaySpan]:
        """The ranges held, in order (None for an open end)."""
        return [(None if a == _FIRST else a, None if b == _LAST else b) for a, b in self._spans]

    def missing(self, low: int | None, high: int | None) -> list[DaySpan]:
        """The parts of [low, high] not held yet, in order (None for an open end); empty when all is held."""
        start, end = self._bounds(low, high)
        gaps: list[tuple[int, int]] = []
        cursor = start
        for a, b in self._spans:
            if b < cursor:
                continue
            if a > end:
                break
            if a > cursor:
                gaps.append((cursor, _step(a, -1)))
            cursor = _step(b, 1)
            if cursor > end:
                break
        if cursor <= end:
            gaps.append((cursor, end))
        return [(None if a == _FIRST else a, None if b == _LAST else b) for a, b in gaps if a <= b]

    def add(self, low: int | None, high: int | None) -> None:
        """Record [low, high] as held, merging it with the ranges it overlaps or touches."""
        start, end = self._bounds(low, high)
        if start > end:
            return
        kept: list[tuple[int, int]] = []
        for a, b in self._spans:
            if _step(b, 1) < start or a > _step(end, 1):
                kept.append((a, b))
            else:
                start, end = min(start, a), max(end, b)
        kept.append((start, end))
        self._spans = sorted(kept)

    def clear(self) -> None:
        """Forget every range."""
        self._spans = []


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

    def reserve(self, extra: int) -> None:
        """Make room for `extra` more rows at once (a load that knows its size grows the matrix once)."""
        with self._lock:
            self._reserve(extra)

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

    def relabel(self, ids: Sequence[str], days: Sequence[int], categories: Sequence[Sequence[str]]) -> None:
        """Give the rows held among `ids` a new day and categories, keeping their vectors (others are ignored)."""
        with self._lock:
            for paper_id, day, cats in zip(ids, days, categories, strict=True):
                row = self._row.get(paper_id)
                if row is not None:
                    self._categories[row] = frozenset(cats)
                    if self._days[row] != day:
                        self._days[row] = day
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
            query = np.asarray(vector, dtype=np.float32)
            sims = np.empty(len(rows), dtype=np.float32)
            for first in range(0, len(rows), _BLOCK):
                block = rows[first : first + _BLOCK]
                sims[first : first + len(block)] = self._matrix[block] @ query
            top = min(k, len(rows))
            best = np.argpartition(-sims, top - 1)[:top]
            best = best[np.argsort(-sims[best])]
            return [(self._ids[rows[i]], float(sims[i])) for i in best]
