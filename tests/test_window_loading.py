"""The window index loads on demand: a windowed search reads only the announcement days it has not read yet."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from dataclasses import replace

import numpy as np
import pytest

from bot.core import Core
from bot.models import Paper, day_to_int
from bot.store.vectors import VectorStore
from bot.store.window_index import DayRanges, DaySpan

FIRST = dt.date(2025, 5, 27)  # 20 days of 3 papers each, across the end of May
DAYS = [FIRST + dt.timedelta(days=n) for n in range(20)]


def test_missing_parts_of_a_range() -> None:
    held = DayRanges()
    assert held.missing(20250510, 20250512) == [(20250510, 20250512)]
    held.add(20250510, 20250512)
    assert held.missing(20250511, 20250511) == []
    assert held.missing(20250508, 20250514) == [(20250508, 20250509), (20250513, 20250514)]
    held.add(20250520, 20250520)
    assert held.missing(20250501, 20250531) == [(20250501, 20250509), (20250513, 20250519), (20250521, 20250531)]
    assert held.missing(None, 20250511) == [(None, 20250509)]
    assert held.missing(20250512, None) == [(20250513, 20250519), (20250521, None)]
    assert held.missing(None, None) == [(None, 20250509), (20250513, 20250519), (20250521, None)]
    assert held.missing(20250515, 20250514) == []  # an empty window needs nothing


def test_ranges_merge_when_they_overlap_or_touch_even_across_a_month_end() -> None:
    held = DayRanges()
    held.add(20250525, 20250531)
    held.add(20250601, 20250603)  # the day after May 31
    assert held.spans == [(20250525, 20250603)]
    held.add(20250610, 20250612)
    held.add(20250605, 20250611)
    assert held.spans == [(20250525, 20250603), (20250605, 20250612)]
    assert held.missing(20250520, 20250615) == [(20250520, 20250524), (20250604, 20250604), (20250613, 20250615)]
    held.add(20250604, 20250604)
    assert held.spans == [(20250525, 20250612)]
    held.add(20251231, None)
    held.add(20260101, 20260105)  # inside the open end: nothing changes
    assert held.spans == [(20250525, 20250612), (20251231, None)]
    held.add(None, 20250524)
    assert held.spans == [(None, 20250612), (20251231, None)]
    assert held.missing(None, None) == [(20250613, 20251230)]
    held.add(20250601, 20251230)
    assert held.spans == [(None, None)]
    assert held.missing(None, None) == []
    assert held.missing(19000101, 29991231) == []
    held.clear()
    assert held.missing(20250101, 20250101) == [(20250101, 20250101)]


def _spread(papers: list[Paper]) -> list[Paper]:
    """The stored day's papers, three a day over DAYS; every third one also listed in cs.ZZ."""
    return [
        replace(p, announced=DAYS[i // 3], categories=(*p.categories, "cs.ZZ") if i % 3 == 0 else p.categories)
        for i, p in enumerate(papers)
    ]


@pytest.fixture
async def spread_core(core: Core, embedded_day: tuple[list[Paper], np.ndarray]) -> Core:
    papers, vectors = embedded_day
    await core.vectors.upsert(_spread(papers), vectors)
    return core


def _recording(store: VectorStore) -> list[list[DaySpan]]:
    """Record the day spans every load of `store` reads from Chroma."""
    calls: list[list[DaySpan]] = []
    load = store._load_index

    def recorded(collection: object, spans: list[DaySpan], listed: object = None) -> int:
        calls.append(list(spans))
        return load(collection, spans, listed)

    store._load_index = recorded  # type: ignore[method-assign]
    return calls


# (since, until, categories): 1 day, 5 days, a window inside them, overlapping ones, open ends, categories only
WINDOWS: list[tuple[dt.date | None, dt.date | None, tuple[str, ...]]] = [
    (DAYS[4], DAYS[4], ()),
    (DAYS[3], DAYS[7], ()),
    (DAYS[5], DAYS[6], ("cs.ZZ",)),
    (DAYS[6], DAYS[10], ()),
    (DAYS[15], None, ()),
    (None, DAYS[2], ()),
    (DAYS[0], DAYS[19], ("cs.ZZ",)),
    (None, None, ("cs.ZZ",)),
    (None, None, ("cs.LG", "cs.CL")),
]


async def test_on_demand_windows_find_what_a_full_load_finds(
    spread_core: Core, embedded_day: tuple[list[Paper], np.ndarray]
) -> None:
    _, vectors = embedded_day
    rng = np.random.default_rng(5)
    queries = [vectors[0], vectors[31], *rng.standard_normal((3, vectors.shape[1])).astype(np.float32)]
    full = VectorStore(spread_core.settings, spread_core.embedder)
    assert len(await full.window_index()) == 60
    lazy = VectorStore(spread_core.settings, spread_core.embedder)
    reads = _recording(lazy)
    checked = 0
    for since, until, categories in WINDOWS:
        for query in queries:
            for k in (1, 4, 100):
                expected = await full.search_window(query, k, since, until, categories)
                got = await lazy.search_window(query, k, since, until, categories)
                assert [i for i, _ in got] == [i for i, _ in expected], (since, until, categories, k)
                np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-6)
                assert set(await lazy.window_vectors([i for i, _ in got])) == {i for i, _ in got}
                checked += bool(expected)
    assert checked > 100
    day = [day_to_int(d) for d in DAYS]
    assert reads == [
        [(day[4], day[4])],  # one day
        [(day[3], day[3]), (day[5], day[7])],  # five days around it: only the four it lacked
        # days 5-6 are held: nothing read
        [(day[8], day[10])],
        [(day[15], None)],
        [(None, day[2])],
        [(day[11], day[14])],  # the whole span of days: only its gap
        # categories alone need every day, and every day is held
    ]


async def test_a_one_day_window_reads_only_that_day(spread_core: Core) -> None:
    store = VectorStore(spread_core.settings, spread_core.embedder)
    query = np.ones(store.embedder.dim, dtype=np.float32)
    hits = await store.search_window(query, 10, DAYS[4], DAYS[4])
    assert len(hits) == 3
    assert len(await store.window_index(DAYS[4], DAYS[4])) == 3  # the other 57 vectors were never read


async def test_writes_keep_a_partly_loaded_index_in_step_without_duplicates(
    spread_core: Core, embedded_day: tuple[list[Paper], np.ndarray]
) -> None:
    papers, vectors = embedded_day
    spread = _spread(papers)
    store = spread_core.vectors
    await store.window_index(DAYS[0], DAYS[1])
    assert len(await store.window_index(DAYS[0], DAYS[1])) == 6
    # a paper of a loaded day is replaced, one is deleted, one of a day not loaded yet is stored again
    await store.upsert([spread[0]], vectors[5:6])
    await store.delete([spread[1].id])
    await store.upsert([spread[40]], vectors[40:41])
    hits = await store.search_window(vectors[5], 10, DAYS[0], DAYS[0])
    assert hits[0][0] == spread[0].id and hits[0][1] > 0.999  # spread[5]'s vector now, on its own day
    assert spread[1].id not in {i for i, _ in hits}
    index = await store.window_index(DAYS[10], DAYS[19])  # holds spread[40] already: read again, kept once
    assert len(index) == 5 + 30
    assert [i for i, _ in await store.search_window(vectors[40], 1, DAYS[13], DAYS[13])] == [spread[40].id]
    index = await store.window_index()
    assert len(index) == 59


@pytest.mark.parametrize("write", ["upsert", "delete"])
async def test_a_write_while_a_range_loads_is_not_lost(
    spread_core: Core, embedded_day: tuple[list[Paper], np.ndarray], write: str
) -> None:
    papers, _ = embedded_day
    spread = _spread(papers)
    store = spread_core.vectors
    await store.window_index(DAYS[0], DAYS[0])  # the index exists and holds one day
    load = store._load_index

    def slow_load(collection: object, spans: list[DaySpan], listed: object = None) -> int:
        read = load(collection, spans, listed)  # reads the window's rows as stored so far, then the write arrives
        time.sleep(0.5)
        return read

    store._load_index = slow_load  # type: ignore[method-assign]
    late = replace(spread[30], id="2505.99999")  # announced DAYS[10]
    vector = np.asarray([1.0] + [0.0] * (store.embedder.dim - 1), dtype=np.float32)

    async def write_late() -> None:
        await asyncio.sleep(0.2)
        if write == "upsert":
            await store.upsert([late], vector[None, :])
        else:
            await store.delete([spread[30].id])

    index, _ = await asyncio.gather(store.window_index(DAYS[8], DAYS[12]), write_late())
    found = {i for i, _ in index.search(vector, 100, day_to_int(DAYS[10]), day_to_int(DAYS[10]))}
    if write == "upsert":
        assert found == {spread[30].id, spread[31].id, spread[32].id, late.id}
    else:
        assert found == {spread[31].id, spread[32].id}
