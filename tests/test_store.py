"""Ingest into the real stores: JSONL validation, idempotent upserts, each paper embedded once."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bot.core import Core
from bot.embeddings.embedder import paper_vectors
from bot.errors import InputError
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.ingest.vectors import Embedded, refresh_vectors
from bot.models import Paper
from bot.questions.search import search_papers
from bot.store.vectors import paper_metadata
from tests.conftest import StoreDay


async def test_second_ingest_embeds_nothing_and_a_replacement_is_embedded_once(
    core: Core, demo_papers: list[Paper]
) -> None:
    papers = demo_papers[:40]
    first = await store_papers(core, papers)
    assert (first.inserted, first.embedded) == (40, 40)
    again = await store_papers(core, papers)
    assert (again.inserted, again.updated, again.unchanged, again.embedded) == (0, 0, 40, 0)

    replaced = replace(papers[0], abstract=papers[0].abstract + " We add a new theorem.", version=3)
    third = await store_papers(core, [replaced, *papers[1:]])
    assert (third.updated, third.embedded) == (1, 1)
    assert await core.vectors.count() == 40
    assert await core.repo.count_papers() == 40


async def test_vectors_made_another_way_are_refreshed_once(core: Core, demo_papers: list[Paper]) -> None:
    papers = demo_papers[:12]
    await store_papers(core, papers)
    current = await core.vectors.vectors([p.id for p in papers])
    # as a store from before title vectors had them: title-and-abstract vectors under the bare content hash
    old_vectors = core.embedder.embed([p.text for p in papers[:5]])
    collection = await core.vectors.collection()
    collection.upsert(
        ids=[p.id for p in papers[:5]],
        embeddings=list(old_vectors),
        metadatas=[{**paper_metadata(p), "content_hash": p.content_hash} for p in papers[:5]],
    )
    assert (await refresh_vectors(core)) == (12, Embedded(papers=5))
    assert np.allclose(await core.vectors.vectors([p.id for p in papers]), current, atol=1e-5)
    assert (await refresh_vectors(core)) == (12, Embedded())


async def test_every_stored_paper_gets_an_extractive_tldr_in_sqlite_and_chroma(
    core: Core, demo_papers: list[Paper]
) -> None:
    papers = demo_papers[:5]
    await store_papers(core, papers)
    tldrs = await core.repo.tldrs([p.id for p in papers])
    assert set(tldrs) == {p.id for p in papers}
    for paper in papers:
        assert tldrs[paper.id] and tldrs[paper.id].rstrip("….")[-30:].lower() in paper.abstract.lower()
    collection = await core.vectors.collection()
    stored = collection.get(ids=[papers[0].id], include=["metadatas"])
    assert stored["metadatas"][0]["tldr"] == tldrs[papers[0].id]
    assert stored["metadatas"][0]["announced"] == 20250526


async def test_search_finds_a_paper_by_its_topic_within_the_window(core: Core, demo_papers: list[Paper]) -> None:
    await store_papers(core, demo_papers[:80])
    target = next(p for p in demo_papers[:80] if "mixture" in p.title.lower() or "moe" in p.title.lower())
    hits = (await search_papers(core, target.title, limit=3)).hits
    assert hits[0].paper.id == target.id
    assert (await search_papers(core, target.title, since=target.announced.replace(year=2026))).total == 0


def test_a_malformed_jsonl_line_names_file_and_line(tmp_path: Path, demo_papers: list[Paper]) -> None:
    good = json.dumps(
        {
            "id": "2505.00001",
            "title": "T",
            "authors": ["A"],
            "abstract": "B",
            "categories": ["cs.LG"],
            "announced": "2025-05-26",
        }
    )
    path = tmp_path / "day.jsonl"
    path.write_text(good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"day.jsonl:2: not valid JSON"):
        read_jsonl([path])
    path.write_text(good.replace('"2505.00001"', '"banana"') + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"day.jsonl:1: not an arXiv id"):
        read_jsonl([path])
    path.write_text(good.replace('"announced": "2025-05-26"', '"announced": "May 26"') + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"'announced' must be a date"):
        read_jsonl([path])


def test_versions_are_stripped_and_text_bounded(tmp_path: Path) -> None:
    record = {
        "id": "arXiv:2505.00001v4",
        "title": "T\x00itle  with\n space",
        "authors": ["A"],
        "abstract": "x" * 50_000,
        "categories": ["cs.LG"],
        "announced": "2025-05-26",
    }
    path = tmp_path / "day.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    [paper] = read_jsonl([path])
    assert (paper.id, paper.version, paper.title) == ("2505.00001", 4, "Title with space")
    assert len(paper.abstract) <= 6000


async def test_repair_rebuilds_vectors_that_claim_a_text_they_were_not_made_from(
    core: Core, store_day: StoreDay
) -> None:
    """Hashes are trusted by ingest and --refresh-vectors; --repair embeds a sample again and rebuilds on a lie."""
    from bot.store.repair import check_store, repair_store

    papers = await store_day(core)
    noise = np.random.default_rng(17).normal(size=(len(papers), core.embedder.dim)).astype(np.float32)
    await core.vectors.upsert(papers, noise / np.linalg.norm(noise, axis=1, keepdims=True))  # hashes still match
    assert (await check_store(core)).consistent  # nothing a listing can see
    report = await repair_store(core)
    assert report.rebuilt.endswith("vectors checked differ from their paper's text") and report.after.consistent
    stored = await core.vectors.vectors([p.id for p in papers])
    assert np.allclose(stored, paper_vectors(core.embedder.embed, papers), atol=1e-5)
    again = await repair_store(core)
    assert not again.rebuilt and again.lines() == [
        f"vector store consistent: {len(papers)} papers, {len(papers)} vectors; nothing to do"
    ]
