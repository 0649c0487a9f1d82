"""Acronyms the archive defines (issue 22): a question typing one finds the papers writing the other."""

from __future__ import annotations

import dataclasses
import datetime as dt

from bot.core import Core
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.questions.acronyms import definitions, expansion_of
from bot.questions.rag import ask

MONDAY = dt.date(2025, 5, 26)


def test_a_parenthesised_acronym_is_spelled_out_by_the_words_whose_initials_it_takes() -> None:
    assert expansion_of("methods for test-time adaptation", "TTA") == "test time adaptation"
    assert expansion_of("we study graph neural networks", "GNNs") == "graph neural network"
    assert expansion_of("the quality of service", "QoS") == "quality of service"
    assert expansion_of("a new method", "FBR") == ""
    found = definitions(["Models under test-time adaptation (TTA) drift.", "Test-time adaptation (TTA) helps."])
    assert found[("TTA", "test time adaptation")] == 2


async def test_a_question_typing_an_acronym_finds_a_paper_that_only_spells_it_out(
    core: Core, demo_papers: list[Paper]
) -> None:
    # two papers define "tidal state estimation (TSE)"; a third says only "tidal state estimation": asked for TSE, the
    # question used to find the two (they write "TSE"), not the third
    defining = [
        dataclasses.replace(
            demo_papers[i],
            title=f"Tide charts {i}",
            abstract="We study tidal state estimation (TSE) from coastal gauges. TSE matters for harbours.",
        )
        for i in (0, 1)
    ]
    spelled = dataclasses.replace(
        demo_papers[2],
        title="Robust Tidal State Estimation from Sparse Gauges",
        abstract="Harbours need reliable estimates of the tide between sparse gauges; we fuse them with a filter.",
    )
    await store_papers(core, [*defining, spelled, *demo_papers[3:40]])
    answer = await ask(core, "any TSE papers today?", today=MONDAY)
    assert spelled.id in [p.id for p in (*answer.citations, *answer.more)]
