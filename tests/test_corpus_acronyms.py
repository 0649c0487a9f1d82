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


def _defining(paper: Paper, meaning: str, use: str) -> Paper:
    return dataclasses.replace(
        paper, title=f"A study of {use}", abstract=f"We revisit {meaning} (TTA) for {use}. TTA is cheap at test time."
    )


def test_an_acronym_defined_two_ways_has_two_meanings_most_used_first(demo_papers: list[Paper]) -> None:
    from bot.questions.acronyms import grouped, meanings
    from bot.questions.rag import meanings_note

    days = demo_papers[:6]
    augmenting = [_defining(days[0], "Test-Time Augmentation", "segmentation")]
    adapting = [
        _defining(days[1], "test-time adaptation", "speech"),
        _defining(days[2], "Test-time adaptations", "tracking"),  # another spelling of the same meaning
        dataclasses.replace(days[3], abstract="Test-time adaptation of detectors to fog."),  # writes it out only
    ]
    found = meanings("TTA papers?", [*augmenting, *adapting, days[4]])
    assert [(m.spelled, len(m.paper_ids)) for m in found] == [
        ("test-time adaptation", 3),
        ("test-time augmentation", 1),
    ]
    assert grouped([days[4], *augmenting, *adapting], found) == [*adapting, *augmenting, days[4]]
    assert meanings("TTA papers?", adapting) == []  # one meaning: nothing to tell apart
    said = meanings_note(found, in_order=False)  # an LLM's answer cites the papers in its own order: none is claimed
    assert said.startswith("'TTA' stands for different things in these papers: test-time adaptation (3 papers) and")
    assert "listed in that order" not in said and "listed in that order" in meanings_note(found)


async def test_a_question_typing_an_acronym_of_several_meanings_says_so_and_lists_them_by_meaning(
    core: Core, demo_papers: list[Paper]
) -> None:
    """'TTA' is test-time adaptation in three stored papers and test-time augmentation in two: the answer says both,
    and lists each meaning's papers together, the meaning most of them use first."""
    augmenting = [_defining(demo_papers[i], "test-time augmentation", use) for i, use in ((0, "lesions"), (1, "crops"))]
    adapting = [
        _defining(demo_papers[i], "test-time adaptation", use) for i, use in ((2, "speech"), (3, "radar"), (4, "depth"))
    ]
    await store_papers(core, [*augmenting, *adapting, *demo_papers[5:40]])
    answer = await ask(core, "any TTA papers today?", today=MONDAY)
    assert (
        "'TTA' stands for different things in these papers: test-time adaptation (3 papers) and test-time "
        "augmentation (2 papers), listed in that order." in answer.text
    ), answer.text
    listed = [p.id for p in (*answer.citations, *answer.more)]
    assert {p.id for p in (*adapting, *augmenting)} <= set(listed)
    meaning_of = {**{p.id: "adaptation" for p in adapting}, **{p.id: "augmentation" for p in augmenting}}
    order = [meaning_of[i] for i in listed if i in meaning_of]
    assert order == ["adaptation"] * 3 + ["augmentation"] * 2, order


async def test_an_acronym_one_paper_defines_is_a_term_when_other_papers_write_it_out(
    core: Core, demo_papers: list[Paper]
) -> None:
    # one paper defines "tidal state estimation (TSE)" and three others write "tidal state estimation": a field's
    # term, whose papers a search for "TSE" lists (it was a name, so only the defining paper was listed); one paper
    # defining "foo bar reasoning (FBR)", written by no other, stays that paper's name
    from bot.questions.acronyms import defined_acronyms
    from bot.questions.search import search_papers

    defining = dataclasses.replace(
        demo_papers[0],
        title="Tide charts",
        abstract="We study tidal state estimation (TSE) from coastal gauges. We also propose foo bar reasoning (FBR).",
    )
    spelled = [
        dataclasses.replace(
            demo_papers[i],
            title=f"Robust Tidal State Estimation {i}",
            abstract="Harbours need tidal state estimation between sparse gauges; we fuse them with a filter.",
        )
        for i in (1, 2, 3)
    ]
    await store_papers(core, [defining, *spelled, *demo_papers[4:40]])
    assert await defined_acronyms(core, "TSE") == [("tidal state estimation", "TSE")]
    assert await defined_acronyms(core, "FBR") == []
    found = await search_papers(core, "TSE")
    assert {p.id for p in spelled} <= {h.paper.id for h in (*found.hits, *found.more)}


async def test_a_narrowing_typing_an_acronym_finds_a_previous_paper_that_only_spells_it_out(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "just the ones about generative AI" after a list holding "... in the Age of Generative Artificial Intelligence":
    # a narrowing read the acronym as typed (only a first question read it as the archive defines it), so the paper
    # spelling it out was neither shown nor kept
    defining = [
        dataclasses.replace(
            demo_papers[i],
            title=f"Harbour tide charts {i}",
            abstract="We study tidal state estimation (TSE) for harbours. TSE matters for harbour pilots.",
        )
        for i in (0, 1)
    ]
    spelled = dataclasses.replace(
        demo_papers[2],
        title="Robust Tidal State Estimation for Harbours",
        abstract="Harbours need reliable estimates of the tide between sparse gauges; we fuse them with a filter.",
    )
    cranes = [
        dataclasses.replace(
            demo_papers[i], title=f"Harbour crane scheduling {i}", abstract="We schedule cranes in busy harbours."
        )
        for i in (3, 4)
    ]
    await store_papers(core, [*defining, spelled, *cranes, *demo_papers[5:40]])
    first = await ask(core, "harbour papers today?", today=MONDAY, conversation_id="tse")
    assert spelled.id in [p.id for p in (*first.citations, *first.more)]
    answer = await ask(core, "which of those are about TSE?", today=MONDAY, conversation_id="tse")
    assert spelled.id in [p.id for p in answer.citations]


async def test_an_acronym_defined_several_ways_is_read_as_the_meaning_the_question_s_other_words_go_with(
    core: Core, demo_papers: list[Paper]
) -> None:
    # two papers define "TSE" as tidal state estimation, one as text style editing in a paper on language models
    # (three more write "text style editing" out): "TSE with language models" is the editing, "TSE" alone and
    # "TSE from gauges" the estimation ("DP algorithms with transformers" was read as differential privacy)
    from bot.questions.acronyms import defined_acronyms

    tidal = [
        dataclasses.replace(
            demo_papers[i],
            title=f"Tide charts {i}",
            abstract="We study tidal state estimation (TSE) from coastal gauges. TSE matters for harbours.",
        )
        for i in (0, 1)
    ]
    editing = dataclasses.replace(
        demo_papers[2],
        title="Rewriting in another voice",
        abstract="We study text style editing (TSE) with large language models that rewrite a sentence's tone.",
    )
    written = [
        dataclasses.replace(demo_papers[i], title=f"Style {i}", abstract="Text style editing keeps the content.")
        for i in (3, 4, 5)
    ]
    await store_papers(core, [*tidal, editing, *written, *demo_papers[6:40]])
    assert await defined_acronyms(core, "TSE with language models") == [("text style editing", "TSE")]
    assert await defined_acronyms(core, "TSE") == [("tidal state estimation", "TSE")]
    assert await defined_acronyms(core, "TSE from gauges") == [("tidal state estimation", "TSE")]
