"""The in-memory date-window index against a brute-force reference."""

from __future__ import annotations

import itertools

import numpy as np

from bot.core import Core
from bot.store.window_index import DaySpan, WindowIndex
from tests.conftest import StoreDay


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, 8)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_search_matches_brute_force_inside_the_window() -> None:
    vectors = _unit(300, 1)
    days = [20250501 + i % 30 for i in range(300)]
    cats = [["cs.LG"] if i % 2 else ["cs.CL", "cs.AI"] for i in range(300)]
    index = WindowIndex(8)
    ids = [f"p{i}" for i in range(300)]
    index.upsert(ids, days, vectors, cats)
    query = _unit(1, 2)[0]
    hits = index.search(query, 5, 20250510, 20250512, ["cs.LG"])
    allowed = [i for i in range(300) if 20250510 <= days[i] <= 20250512 and i % 2]
    expected = sorted(allowed, key=lambda i: -float(vectors[i] @ query))[:5]
    assert [h[0] for h in hits] == [f"p{i}" for i in expected]
    assert all(a[1] >= b[1] for a, b in itertools.pairwise(hits))


def test_replace_and_delete() -> None:
    index = WindowIndex(8)
    vectors = _unit(3, 3)
    index.upsert(["a", "b", "c"], [20250501, 20250502, 20250503], vectors, [[], [], []])
    index.upsert(["a"], [20250503], vectors[2:3], [[]])  # replaced text moves "a" next to "c"
    assert {h[0] for h in index.search(vectors[2], 5, 20250503, 20250503)} == {"a", "c"}
    index.delete(["c"])
    assert [h[0] for h in index.search(vectors[2], 5, 20250503, 20250503)] == ["a"]
    assert len(index) == 2
    assert index.search(vectors[0], 5, 20260101, 20260131) == []
    held = index.vectors(["a", "b", "c", "never"])  # the deleted and the unknown are absent, as not embedded
    assert set(held) == {"a", "b"}
    np.testing.assert_array_equal(held["a"], vectors[2])
    held["a"][:] = 0  # a copy: the index keeps its own
    np.testing.assert_array_equal(index.vectors(["a"])["a"], vectors[2])


async def test_a_paper_stored_while_the_index_loads_is_not_lost(core: Core, store_day: StoreDay) -> None:
    import asyncio
    import threading
    from dataclasses import replace

    papers = await store_day(core)
    store = core.vectors
    load = store._load_index
    read_done = threading.Event()

    def load_then_signal(collection: object, spans: list[DaySpan], listed: object = None) -> int:
        read = load(collection, spans, listed)  # every row stored so far is read; the new paper is written after this
        read_done.set()
        return read

    store._load_index = load_then_signal  # type: ignore[method-assign]
    late = replace(papers[0], id="2505.99999")
    vector = np.asarray([1.0] + [0.0] * (store.embedder.dim - 1), dtype=np.float32)

    async def store_late() -> None:
        assert await asyncio.to_thread(read_done.wait, 60), "the index load never ran"
        await store.upsert([late], vector[None, :])

    index, _ = await asyncio.gather(store.window_index(), store_late())
    assert index.search(vector, 1, None, None, [])[0][0] == "2505.99999"
