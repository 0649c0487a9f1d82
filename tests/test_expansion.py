"""Pseudo-relevance feedback on words (RM3, issue 22): the first pass's best papers' words expand the topic, and a
paper saying the topic in those words is scored."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import numpy as np

from bot.models import Paper
from bot.questions.expansion import (
    Bags,
    bm25f,
    expanded_query,
    expansion_complete,
    index_terms,
    relevance_model,
    term_likelihoods,
)
from bot.store.connection import open_database
from bot.store.repos import Repository

DAY = dt.date(2025, 5, 26)


def paper(paper_id: str, title: str, abstract: str) -> Paper:
    return Paper(
        id=paper_id, title=title, authors=("Ada Lovelace",), abstract=abstract, categories=("cs.LG",), announced=DAY
    )


WEATHER = [
    paper("1", "Weather Forecasting on the Sphere", "We forecast atmospheric states: precipitation and wind at 6 h."),
    paper("2", "Localized Weather Prediction", "Kolmogorov-Arnold networks forecast atmospheric precipitation."),
    # the topic in other words: neither "weather" nor "forecasting", but the atmosphere and precipitation
    paper("3", "Score-Based Atmospheric Data Assimilation", "We assimilate atmospheric observations of precipitation."),
    paper("4", "Protein Folding by Language Models", "Language models fold proteins under a single loss."),
]


def test_index_terms_fold_case_and_accents_split_at_symbols_and_stem() -> None:
    assert index_terms("Retrieval-Augmented Generation for Café LLMs_3D") == [
        "retriev",
        "augment",
        "gener",
        "for",
        "cafe",
        "llm",
        "3d",
    ]


def test_a_paper_in_the_feedback_papers_words_is_scored_one_in_none_of_them_is_not() -> None:
    bags = Bags.of(WEATHER)
    df = {t: 1 for t in bags.terms(range(len(WEATHER)))}
    model = relevance_model(term_likelihoods(bags, [0, 1]), df, total=100)
    assert {"atmospher", "precipit"} <= set(model) and abs(sum(model.values()) - 1) < 1e-9
    scores = bm25f(bags, expanded_query(index_terms("weather forecasting"), model), df, total=100)
    assert scores[2] > 0  # the assimilation paper, found by the neighbours' words alone
    assert np.isnan(scores[3])  # the protein paper holds none of them
    assert scores[0] > scores[2]  # a paper with the topic's own words still comes first


def test_words_most_stored_papers_hold_are_no_expansion() -> None:
    bags = Bags.of(WEATHER)
    df = {t: 1 for t in bags.terms(range(len(WEATHER)))}
    df["we"] = df["atmospher"] = 50  # half of the stored papers: says nothing about a topic
    model = relevance_model(term_likelihoods(bags, [0, 1]), df, total=100)
    assert "we" not in model and "atmospher" not in model and "precipit" in model


def test_the_model_needs_the_frequencies_of_its_terms_and_of_the_more_likely_ones_only() -> None:
    likely = [("we", 0.3), ("atmospher", 0.2), ("precipit", 0.1), ("wind", 0.05)]
    with_limit = __import__("bot.questions.expansion", fromlist=["EXPANSION_TERMS"])
    saved, with_limit.EXPANSION_TERMS = with_limit.EXPANSION_TERMS, 1
    try:
        assert not expansion_complete(likely, {"we": 90}, 100)  # the most likely is too common: the next is needed
        assert expansion_complete(likely, {"we": 90, "atmospher": 3}, 100)  # wind cannot enter the model
        assert relevance_model(likely, {"we": 90, "atmospher": 3}, 100) == {"atmospher": 1.0}
    finally:
        with_limit.EXPANSION_TERMS = saved


async def test_term_document_frequencies_read_the_full_text_index_in_its_own_terms(tmp_path: Path) -> None:
    repo = Repository(await open_database(tmp_path / "db.sqlite3"))
    try:
        await repo.upsert_papers([replace(p, id=f"2505.0000{p.id}") for p in WEATHER])
        counts, total = await repo.term_document_frequencies(
            index_terms("atmospheric precipitation weather proteins unknownword")
        )
        assert total == 4
        assert counts == {"atmospher": 3, "precipit": 3, "weather": 2, "protein": 1}
        again, _ = await repo.term_document_frequencies(["weather"])  # the index's view is made once per connection
        assert again == {"weather": 2}
    finally:
        await repo.close()
