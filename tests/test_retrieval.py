"""Retrieval (issue 22): dense, BM25 and topic-word rankings fused by reciprocal rank, exact names first."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import io
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from bot.cli import DEMO_QUERY
from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.save import store_papers
from bot.ingest.vectors import paper_sentences
from bot.models import Paper
from bot.questions.filters import Filters
from bot.questions.rag import ask, parse_question
from bot.questions.retrieval import (
    MADE,
    MAX_MORE,
    MEANING_PAGE,
    MEANING_RANKS,
    SENTENCE_NEAR,
    SPREAD,
    Retrieved,
    _selected,
    exact_names,
    excluded_kinds,
    excluded_readings,
    grazing,
    names_only,
    ranked,
    reciprocal_rank_fusion,
    select,
    topic_evidence,
    without_excluded,
)
from bot.questions.search import SearchResults, _of_kind, search_papers
from bot.questions.timewords import TimeWindow
from bot.questions.topics import (
    COVERED,
    Alternative,
    QuestionTopic,
    TopicEvidence,
    corpus_terms,
    expand_terms,
    joined_spellings,
    split_spellings,
    variant_spellings,
)
from bot.ranking.contribution import contribution_sentence, paper_kinds
from bot.ranking.contribution_words import asked_kind
from bot.text.terms import Unit, text_tokens
from bot.views.render import paper_text
from tests.conftest import StoreDay
from tests.word_vectors import WordEmbedder

MONDAY = dt.date(2025, 5, 26)
COMOE, LMASK, PREMOE = "2505.17553", "2505.17938", "2505.17639"
LAPS_SD, CLOSE_TO_LAPS_SD = "2505.17074", ("2505.17150", "2505.17965")


def _titled(papers: list[Paper], title: str, abstract: str) -> list[Paper]:
    """`papers` given the title `title` with a number each, and the abstract `abstract`."""
    return [dataclasses.replace(p, title=f"{title} {n}", abstract=abstract) for n, p in enumerate(papers)]


def _rewritten(papers: list[Paper], written: Sequence[tuple[str, str]]) -> list[Paper]:
    """The first of `papers`, one for each (title, abstract) of `written`, given those."""
    return [
        dataclasses.replace(paper, title=title, abstract=abstract)
        for paper, (title, abstract) in zip(papers, written, strict=False)
    ]


@pytest.fixture
async def routing_day(core: Core, demo_papers: list[Paper]) -> list[Paper]:
    """The bundled Monday's mixture-of-experts papers, its routing papers (vehicles, urban traffic) and 30 others."""
    wanted = [p for p in demo_papers if any(w in p.title for w in ("Mixture", "MoE", "Routing"))]
    others = [p for p in demo_papers if p not in wanted][:30]
    await store_papers(core, wanted + others)
    return wanted + others


@pytest.fixture(scope="session")
def language_model_papers(demo_papers: list[Paper]) -> list[Paper]:
    """The first MAX_MORE + 20 of the bundled Monday's papers saying "language model" in their title or abstract: all
    match "language models", more than a first page (10) and MAX_MORE further papers, so a search or an answer for it
    is cut at MAX_MORE while more papers match, at a quarter of the whole day's embedding time."""
    said = [p for p in demo_papers if "language model" in f"{p.title} {p.abstract}".lower()]
    return said[: MAX_MORE + 20]


def test_reciprocal_rank_fusion_shares_ties_and_gives_absent_items_nothing() -> None:
    dense = np.array([0.9, 0.5, 0.5, 0.1])
    lexical = np.array([np.nan, 2.0, 1.0, np.nan])
    fused = reciprocal_rank_fusion([dense, lexical], [1.0, 1.0])
    # the two tied at 0.5 hold places 2 and 3 together: each ranks 2.5
    assert fused[1] == pytest.approx(1 / 62.5 + 1 / 61) and fused[2] == pytest.approx(1 / 62.5 + 1 / 62)
    assert fused[0] == pytest.approx(1 / 61) and fused[3] == pytest.approx(1 / 64)
    assert list(np.argsort(-fused)) == [1, 2, 0, 3]  # in both lists beats first in one


def test_a_group_tied_in_one_ranking_shares_its_places_rather_than_each_taking_the_first() -> None:
    # "egocentric video": the papers naming only "video" in their title all cover the topic alike; sharing the best
    # rank, each counted as the first of them in the coverage ranking, and together they came before a paper first in
    # every other ranking and covered a little less
    coverage = np.array([0.8, *[1.0] * 6])
    dense = np.array([1.0, *np.linspace(0.9, 0.5, 6)])
    lexical = np.array([2.0, *[1.0] * 6])
    fused = reciprocal_rank_fusion([dense, coverage, lexical], [1.0, 1.0, 1.0])
    assert np.argmax(fused) == 0
    # the six tied hold places 1 to 6 of the coverage ranking and 2 to 7 of the lexical one: 3.5 and 4.5 each
    assert fused[1] == pytest.approx(1 / 62 + 1 / 63.5 + 1 / 64.5)


async def test_a_paper_holding_every_part_of_the_topic_ranks_above_one_similar_in_a_single_part(
    core: Core, routing_day: list[Paper]
) -> None:
    # the demo's own search: vehicle routing (LMask) is the closest in meaning, CoMoE the one that says sparse
    # mixture-of-experts routing; the dense ranking alone put LMask first
    found = await search_papers(core, DEMO_QUERY)
    assert found.hits[0].paper.id == COMOE
    # vehicle routing holds one part of the topic only: offered after the matches, not among them (issue 22)
    assert LMASK not in [h.paper.id for h in found.hits] and LMASK in [h.paper.id for h in found.more]


async def test_a_word_typical_of_a_named_term_may_be_missing_from_a_longer_compound(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "sparse mixture-of-experts routing": PreMoe is on MoE and its router without saying "sparse", as most MoE
    # papers imply it; it was only close in meaning ("no stored paper carries the words"), now it matches. MoE is a
    # rare term in a day's papers (under a twentieth of them), as on the bundled day
    moe = [p for p in demo_papers if p.id in (COMOE, PREMOE)]
    await store_papers(core, moe + [p for p in demo_papers if p not in moe][:160])
    found = await search_papers(core, DEMO_QUERY)
    assert {COMOE, PREMOE} <= {h.paper.id for h in found.hits if h.by_words}


async def test_the_cli_search_and_search_in_chat_read_their_candidates_alike(
    core: Core, routing_day: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    # one ranking and one cut-off everywhere (issue 22): the CLI's search without --until read the collection's
    # approximate nearest neighbours over no window, /search in chat the window up to the latest stored day; two
    # candidate pools fuse into two orders
    windows: list[tuple[object, object]] = []
    searched = core.vectors.search_window

    async def recording(vector: np.ndarray, k: int, start: object, end: object, categories: object = ()) -> object:
        windows.append((start, end))
        return await searched(vector, k, start, end, categories)

    monkeypatch.setattr(core.vectors, "search_window", recording)
    cli = await search_papers(core, DEMO_QUERY)  # as `paperscout search` and the demo call it
    chat = await search_papers(core, DEMO_QUERY, until=MONDAY, limit=10, cut=True)  # as /search in chat does
    assert windows[0] == windows[1] and windows[0][1] == MONDAY
    assert [h.paper.id for h in (*cli.hits, *cli.more)] == [h.paper.id for h in (*chat.hits, *chat.more)]


async def test_a_search_for_a_name_lists_the_papers_naming_it(core: Core, demo_papers: list[Paper]) -> None:
    # LAPS-SD is named in one abstract only; two other speculative-decoding papers are close in meaning
    await store_papers(core, [p for p in demo_papers if p.id in (LAPS_SD, COMOE, *CLOSE_TO_LAPS_SD)] + demo_papers[:30])
    for name, paper_id in (("LAPS-SD", LAPS_SD), ("CoMoE", COMOE)):
        found = await search_papers(core, name)
        assert [h.paper.id for h in found.hits] == [paper_id] and found.total == 1


async def test_a_search_reads_its_topic_out_of_the_request_around_it(core: Core, demo_papers: list[Paper]) -> None:
    # "papers on", "any new work about" are no topic: embedded with the topic, they moved its vector and the list
    wanted = [p for p in demo_papers if "ecoding" in p.title or "Diffusion" in p.title]
    await store_papers(core, wanted + [p for p in demo_papers if p not in wanted][:40])
    plain = await search_papers(core, "speculative decoding")
    for asked in ("papers on speculative decoding", "any new work about speculative decoding?"):
        found = await search_papers(core, asked)
        assert found.query == "speculative decoding"
        assert [h.paper.id for h in (*found.hits, *found.more)] == [h.paper.id for h in (*plain.hits, *plain.more)]


def test_names_match_with_a_capitalised_first_letter_and_a_name_alone_is_a_name_question() -> None:
    assert exact_names("text-to-SQL")[0].search("Strong Reasoning in Text-to-SQL")
    assert not exact_names("YAQA")[0].search("yaqa")
    assert names_only("YAQA") and names_only("what is R2R") and names_only("Trinity-RFT")
    assert not names_only("R2R token routing") and not names_only("MoE") and not names_only("LLM agents")


async def test_papers_only_similar_in_meaning_are_offered_when_others_carry_the_topic(
    core: Core, demo_papers: list[Paper]
) -> None:
    # the code-review paper says "code generation"; the pseudo-code one is only close in meaning: shown before, now
    # offered with /more (precision from ordering, nothing dropped)
    code_review, pseudo_code = "2505.17928", "2505.18011"
    await store_papers(core, [p for p in demo_papers if p.id in (code_review, pseudo_code)] + demo_papers[:120])
    answer = await ask(core, "code generation papers today?", today=MONDAY)
    assert [p.id for p in answer.citations] == [code_review]
    assert pseudo_code in [p.id for p in answer.more]


async def test_a_search_lists_papers_only_similar_in_meaning_after_those_carrying_its_words(
    core: Core, demo_papers: list[Paper]
) -> None:
    # the pseudo-code paper never says "code generation" but is close in meaning: a search used to drop it whenever
    # another paper carried the words; it is listed after them now (ranked lower, never dropped)
    code_review, pseudo_code = "2505.17928", "2505.18011"
    await store_papers(core, [p for p in demo_papers if p.id in (code_review, pseudo_code)] + demo_papers[:120])
    found = await search_papers(core, "code generation")
    assert code_review in [h.paper.id for h in found.hits]
    assert pseudo_code in [h.paper.id for h in found.more]
    assert found.total == len(found.hits) + len(found.more)


async def test_search_in_chat_says_how_many_match_and_more_pages_through_all_of_them(
    core: Core, demo_papers: list[Paper]
) -> None:
    import re

    from bot.chat import ChatController, Incoming, Place, Speaker, TextReply

    await store_papers(core, demo_papers[:120])
    ctl, bob, channel = ChatController(core), Speaker("telegram:7", "Bob"), Place("telegram", "-55", is_dm=False)
    found = await search_papers(core, "language models", until=MONDAY)
    assert found.total > 10  # more than a page
    (reply,) = await ctl.handle(Incoming.from_text(bob, channel, "/search language models"))
    assert isinstance(reply, TextReply) and reply.text.startswith(found.counted("language models"))
    listed = [card.id for card in reply.cards]
    assert listed == [h.paper.id for h in found.hits]
    pressed = False
    offer = r"/more lists (\d+) more|(\d+) more papers? match(?: and (\d+) more)?|(\d+) more papers? (?:is|are) close"
    while match := re.search(offer, f"{reply.text}\n{reply.after}"):
        left = sum(int(n) for n in match.groups() if n)
        assert left == found.total - len(listed)
        # the next page by its button (as /more, the same list) or by typing /more, in turn
        (button,) = reply.choices
        assert button.label == f"Next {min(10, found.total - len(listed))} →"
        turn = Incoming(bob, channel, button=button.value) if not pressed else Incoming.from_text(bob, channel, "/more")
        pressed = not pressed
        (reply,) = await ctl.handle(turn)
        assert isinstance(reply, TextReply) and 0 < len(reply.cards) <= 10
        assert all(paper_text(card).count("2025-05-26") == 1 for card in reply.cards)  # the day, once
        listed += [card.id for card in reply.cards]
    assert listed == [h.paper.id for h in (*found.hits, *found.more)]  # every match, in order, none twice
    assert reply.choices == ()  # nothing left: no button
    (done,) = await ctl.handle(Incoming.from_text(bob, channel, "/more"))
    assert "Nothing more" in done.text


def test_a_paper_without_the_words_is_offered_when_the_fusion_ranks_it_high_among_such_papers(
    demo_papers: list[Paper],
) -> None:
    # twelve papers carry the topic's words; the fusion ranks a wordless one next though its similarity is only 0.40
    # (below NEAR): it is offered, as are the next wordless ones down to the tenth of them; the eleventh is not.
    # Counted among all papers, every one of them was below the tenth rank and dropped: a topic many papers name
    # has as many written in other words
    papers = iter(demo_papers)

    def paper(dense: float, words: bool = False) -> Retrieved:
        return Retrieved(next(papers), dense + (0.15 if words else 0.0), dense, words, words, every_part=words)

    carriers = [paper(0.6, True) for _ in range(12)]
    wordless = [paper(0.40), *(paper(0.35) for _ in range(9)), paper(0.4)]
    shown, offered = select([*carriers, *wordless], Filters(topic="diffusion language models"))
    assert shown == carriers
    assert offered == wordless[:10]  # the first ten of the wordless in the fused order; below them only similarity


def test_a_paper_holding_every_part_of_the_topic_apart_is_offered(demo_papers: list[Paper]) -> None:
    # the topic's words far apart in its abstract ("sparse ... experts ... routing"), far in the fused order and in
    # meaning: it carries the question's key terms and is offered, never dropped
    papers = iter(demo_papers)
    carriers = [Retrieved(next(papers), 0.75, 0.6, True, True) for _ in range(12)]
    others = [Retrieved(next(papers), 0.32, 0.32, False, False, every_part=False) for _ in range(12)]
    apart = Retrieved(next(papers), 0.2, 0.2, False, False, every_part=True)
    shown, offered = select([*carriers, *others, apart], Filters(topic="sparse mixture-of-experts routing"))
    assert apart in offered and apart not in shown


def test_a_paper_carrying_only_a_piece_of_the_topic_as_typed_is_listed_last_never_shown(
    demo_papers: list[Paper],
) -> None:
    # "LLM agents that use tools or browse the web" is read by role ("LLM agents browse the web"); a paper that only
    # browses the web, far in meaning, carries the question's words: listed after the others, never dropped or shown
    papers = iter(demo_papers)
    carriers = [Retrieved(next(papers), 0.75, 0.6, True, True) for _ in range(3)]
    others = [Retrieved(next(papers), 0.32, 0.32, False, False, every_part=False) for _ in range(12)]
    typed = Retrieved(next(papers), 0.2, 0.2, False, False, every_part=False, loose=True)
    for stating in (False, True):
        shown, offered = select(
            [*carriers, typed, *others], Filters(topic="LLM agents that use tools or browse the web"), stating=stating
        )
        assert shown == carriers and offered[-1] == typed


async def test_the_pieces_of_a_topic_as_typed_mark_the_papers_carrying_them(
    core: Core, demo_papers: list[Paper]
) -> None:
    role = dataclasses.replace(
        demo_papers[0], title="Gecko agents browse the web", abstract="Our gecko agents browse the web for tides."
    )
    # (three of them: a phrase the archive seldom uses outside the whole would stand for it)
    typed = _titled(demo_papers[1:4], "A tidal crawler", "A crawler to browse the web for tide tables.")
    await store_papers(core, [role, *typed, *demo_papers[4:30]])
    results, _ = await ranked(core, Filters(topic="gecko agents that use tools or browse the web"))
    by_id = {r.paper.id: r for r in results}
    assert by_id[role.id].in_title
    assert all(by_id[p.id].loose and not by_id[p.id].in_title and not by_id[p.id].in_abstract for p in typed)


def test_a_paper_missing_a_side_of_the_topic_is_offered_first_not_shown(demo_papers: list[Paper]) -> None:
    # "LLMs for time series": a time-series paper naming no LLM carries the topic as papers are listed, but the
    # answer shows those holding both sides and offers it first after them; it is never dropped
    papers = iter(demo_papers)
    one_side = Retrieved(next(papers), 0.85, 0.65, True, True, shows=False)
    both = [Retrieved(next(papers), 0.8 - n / 100, 0.6, True, True) for n in range(3)]
    wordless = [Retrieved(next(papers), 0.4, 0.4, False, False, every_part=False) for _ in range(3)]
    topic = Filters(topic="LLMs for time series")
    shown, offered = select([one_side, *both, *wordless], topic, SPREAD, stating=True)
    assert shown == both and offered[0] == one_side and len(offered) == 4
    # when no paper holds every side, the papers carrying the topic are shown as before
    shown, offered = select([one_side, *wordless], topic, SPREAD, stating=True)
    assert shown == [one_side]
    # a search's first page is ranked as before: both kinds of carrier, in their order
    shown, offered = select([one_side, *both, *wordless], topic)
    assert shown == [one_side, *both]


def test_a_first_page_with_no_carrier_of_every_side_is_chosen_as_one_by_meaning(demo_papers: list[Paper]) -> None:
    """ "Active learning for materials discovery" where no paper names materials beside active learning: the answer's
    first page is not the active-learning papers (one side) but chosen as when no paper carries the topic, among the
    papers close to all of it: one holding each side in words of its own comes first; the one-sided carriers are
    listed right after it, nothing dropped."""
    papers = iter(demo_papers)
    one_sided = [Retrieved(next(papers), 0.8 - n / 100, 0.55, True, True, shows=False) for n in range(5)]
    whole = Retrieved(next(papers), 0.75, 0.6, False, False)
    topic = Filters(topic="active learning for materials discovery")
    shown, offered = select([*one_sided, whole], topic, SPREAD, stating=True)
    assert shown == [whole] and offered[:5] == one_sided


def test_a_paper_naming_the_topic_once_in_its_abstract_is_offered_first_when_others_are_firmly_about_it(
    demo_papers: list[Paper],
) -> None:
    # "RL exploration": a framework paper whose abstract names exploration once is offered first after the papers
    # naming the topic in their title or twice in the abstract; never dropped
    papers = iter(demo_papers)
    once = Retrieved(next(papers), 0.7, 0.6, False, True, firm=False)
    firm = [Retrieved(next(papers), 0.68 - n / 100, 0.55, n == 0, True) for n in range(2)]
    topic = Filters(topic="RL exploration")
    shown, offered = select([once, *firm], topic, SPREAD, stating=True)
    assert shown == firm and offered == [once]
    # with no paper firmly about it, the ones naming it once are shown as before
    shown, offered = select([once], topic, SPREAD, stating=True)
    assert shown == [once]
    # a search's first page is ranked as before
    shown, offered = select([once, *firm], topic)
    assert shown == [once, *firm]


def test_a_passing_mention_far_below_the_best_paper_does_not_make_the_page_alone(demo_papers: list[Paper]) -> None:
    # "imitation learning with diffusion or flow policies": no paper is firmly about it, one names "diffusion policy"
    # once in its abstract (relevance 0.58) while a paper holding every part in words of its own is far closer (0.77):
    # the page is chosen by meaning, and the paper naming it is offered first; never dropped
    papers = iter(demo_papers)
    once = Retrieved(next(papers), 0.58, 0.5, False, True, firm=False)
    close = Retrieved(next(papers), 0.77, 0.71, False, False, sentence=0.82)
    other = Retrieved(next(papers), 0.4, 0.4, False, False, every_part=False, sentence=0.5)
    topic = Filters(topic="imitation learning with diffusion or flow policies")
    shown, offered = select([close, once, other], topic, SPREAD, stating=True)
    assert shown == [close] and offered[0] == once
    # within MARGIN of the best it is shown, as before
    near = Retrieved(next(papers), 0.7, 0.6, False, True, firm=False)
    shown, offered = select([close, near, other], topic, SPREAD, stating=True)
    assert shown == [near]
    # a search's first page is ranked as before
    assert select([close, once, other], topic)[0] == [once]


def test_a_page_chosen_by_meaning_takes_the_papers_holding_the_rarest_part_of_the_topic(
    demo_papers: list[Paper],
) -> None:
    # "koopman operator methods": no paper holds every part; of the papers close in meaning, two neural-operator
    # papers name only "operator" and one names Koopman: it is shown, the others offered first (never dropped)
    papers = iter(demo_papers)
    operators = [
        Retrieved(next(papers), 0.34 - n / 100, 0.3, False, False, every_part=False, rarest=False, sentence=0.35)
        for n in range(2)
    ]
    koopman = Retrieved(next(papers), 0.3, 0.28, False, False, every_part=False, sentence=0.33)
    topic = Filters(topic="koopman operator methods")
    shown, offered = select([*operators, koopman], topic, SPREAD, stating=True)
    assert shown == [koopman] and offered == operators
    # when none holds it, the page is chosen by meaning as before
    plain = [dataclasses.replace(r, rarest=False) for r in (*operators, koopman)]
    assert select(plain, topic, SPREAD, stating=True)[0] == plain
    # a search's first page is ranked as before
    assert select([*operators, koopman], topic)[0] == [*operators, koopman]


def test_the_rarest_part_is_read_only_of_a_topic_of_two_parts() -> None:
    # "koopman operator methods": the Koopman papers hold its specific part; in a longer compound the rarest word is
    # as often a modifier ("low-rank training of LLMs from scratch"), so no paper is told apart by it
    def unit(word: str, weight: float) -> Unit:
        return Unit(word, (tuple(text_tokens(word)),), weight=weight)

    koopman = QuestionTopic((TopicEvidence((unit("koopman", 6.4), unit("operator", 2.5))),))
    assert koopman.holds_rarest("Koopman dynamics") and not koopman.holds_rarest("A neural operator")
    common = QuestionTopic((TopicEvidence((unit("neural", 2.0), unit("operator", 2.5))),))  # no specific part
    assert common.holds_rarest("A neural network")
    longer = QuestionTopic(
        (TopicEvidence(tuple(unit(w, 2.0 + n) for n, w in enumerate("low rank from scratch".split()))),)
    )
    assert longer.holds_rarest("A neural operator")


def test_an_authors_papers_off_the_topic_asked_are_offered_after_it(demo_papers: list[Paper]) -> None:
    # "anything from Edward Choi (the clinical AI person)?": the topic describes the person; the author's paper on
    # another subject is offered after those on it, not dropped
    on_topic = Retrieved(demo_papers[0], 0.5, 0.5, True, True)
    other = Retrieved(demo_papers[1], 0.05, 0.05, False, False, every_part=False)
    shown, offered = select([on_topic, other], Filters(topic="clinical AI", authors=("Edward Choi",)))
    assert shown == [on_topic] and offered == [other]


def test_a_paper_without_the_words_is_offered_when_one_of_its_sentences_states_the_topic(
    demo_papers: list[Paper],
) -> None:
    # whole-paper similarity 0.30 and ranked past the tenth of the papers without the words: only its best sentence
    # (0.65, at SENTENCE_NEAR or above) says it is about the topic in other words; one whose best sentence is 0.5, or
    # that has none stored, is not offered
    papers = iter(demo_papers)

    def paper(dense: float, words: bool = False, sentence: float = float("nan")) -> Retrieved:
        return Retrieved(
            next(papers), dense + (0.15 if words else 0.0), dense, words, words, every_part=words, sentence=sentence
        )

    carrier, *middle = [paper(0.6, True), *(paper(0.35) for _ in range(10))]
    stated, loose, unstored = paper(0.3, sentence=SENTENCE_NEAR + 0.05), paper(0.3, sentence=0.5), paper(0.3)
    shown, offered = select([carrier, *middle, stated, loose, unstored], Filters(topic="diffusion language models"))
    assert shown == [carrier]
    assert offered == [*middle, stated]


def test_papers_shown_for_their_meaning_alone_need_a_sentence_close_to_the_topic(demo_papers: list[Paper]) -> None:
    # no paper carries the topic's words: of those close as a whole, the ones whose best sentence is also near the
    # closest sentence are shown; one close as a whole with no sentence stating the topic is offered
    papers = iter(demo_papers)

    def paper(dense: float, sentence: float = float("nan")) -> Retrieved:
        return Retrieved(next(papers), dense, dense, False, False, every_part=False, sentence=sentence)

    stating, near, vague = paper(0.55, 0.78), paper(0.5, 0.72), paper(0.5, 0.55)
    shown, offered = select([stating, near, vague], Filters(topic="hallucination benchmarks"), stating=True)
    assert shown == [stating, near] and offered == [vague]
    unstored = [paper(0.55), paper(0.5)]  # without sentence vectors, similarity alone decides, as before
    assert select(unstored, Filters(topic="hallucination benchmarks"), stating=True)[0] == unstored
    # a search's first page is not cut so (`retrieve`)
    assert select([stating, near, vague], Filters(topic="hallucination benchmarks"))[0] == [stating, near, vague]
    # however many are close, an answer shows the closest few for their meaning alone and offers the others
    many = [paper(0.5, 0.7) for _ in range(MEANING_PAGE + 2)]
    shown, offered = select(many, Filters(topic="hallucination benchmarks"), stating=True)
    assert shown == many[:MEANING_PAGE] and offered == many[MEANING_PAGE:]
    # and says how many it moved to the offer, which the answer's offer makes room for (`retrieve_all`)
    assert _selected(many, Filters(topic="hallucination benchmarks"), stating=True)[2] == 2


async def test_retrieval_reads_each_candidates_best_sentence_from_the_store(tmp_path: Path) -> None:
    # the title and each abstract sentence are embedded apart at ingest; a candidate's best sentence is its highest
    # cosine with the question's vector; with sentence vectors off nothing is read and nothing is claimed
    papers = [
        Paper(
            id=f"2505.{n:05d}",
            title=f"Paper {n} on topic{n}",
            authors=("A. Author",),
            abstract=f"We study widget{n} estimation. Our method uses gadget{n} sampling. Results improve.",
            categories=("cs.LG",),
            announced=MONDAY,
        )
        for n in range(3)
    ]
    query = WordEmbedder().embed(["gadget1 sampling"])[0]
    for sentence_vectors in (True, False):
        settings = Settings(home=tmp_path / f"home-{sentence_vectors}", sentence_vectors=sentence_vectors)
        async with open_core(settings, WordEmbedder()) as core:
            await store_papers(core, papers)
            results, _ = await ranked(core, Filters(topic="gadget1 sampling"))
        by_id = {r.paper.id: r.sentence for r in results}
        assert set(by_id) == {p.id for p in papers}
        for p in papers:
            best = float(np.max(WordEmbedder().embed(paper_sentences(p)) @ query))
            if sentence_vectors:
                assert by_id[p.id] == pytest.approx(best, abs=2e-3)  # stored as float16
            else:
                assert np.isnan(by_id[p.id])
        assert not sentence_vectors or by_id[papers[1].id] > max(by_id[papers[0].id], by_id[papers[2].id])


async def test_an_answer_offering_more_has_a_next_button_that_lists_the_next_page(
    core: Core, demo_papers: list[Paper]
) -> None:
    from bot.chat import AnswerReply, ChatController, Incoming, Place, Speaker, TextReply
    from bot.frontends.discord.render import render

    await store_papers(core, demo_papers[:120])
    ctl, bob, dm = ChatController(core), Speaker("discord:7", "Bob"), Place("discord", "d7", is_dm=True)
    (answer,) = await ctl.handle(Incoming.from_text(bob, dm, "/ask papers on language models"))
    assert isinstance(answer, AnswerReply) and "/more" in answer.text
    (button,) = answer.choices
    assert any(b.custom_id == button.value for message in render(answer) for row in message.rows for b in row)
    (page,) = await ctl.handle(Incoming(bob, dm, button=button.value))
    assert isinstance(page, TextReply) and page.cards
    assert not {v.id for v in answer.citations} & {card.id for card in page.cards}


async def test_a_search_that_matches_nothing_leaves_nothing_for_more(core: Core, demo_papers: list[Paper]) -> None:
    """/more after a search pages through that search: one that matched nothing does not hand /more the list of the
    question asked before it, as if those papers matched the search."""
    from bot.chat import ChatController, Incoming, Place, Speaker

    await store_papers(core, demo_papers[:120])
    ctl, bob, channel = ChatController(core), Speaker("telegram:7", "Bob"), Place("telegram", "-55", is_dm=False)
    (listed,) = await ctl.handle(Incoming.from_text(bob, channel, "/search language models"))
    assert listed.choices, "the first search leaves papers for /more"
    (nothing,) = await ctl.handle(Incoming.from_text(bob, channel, "/search zxqv wobblefrump"))
    assert "No stored paper matches" in nothing.text
    (more,) = await ctl.handle(Incoming.from_text(bob, channel, "/more"))
    assert "Nothing more" in more.text, more.text


async def test_a_search_listing_the_most_it_lists_says_at_least_how_many_match(
    core: Core, language_model_papers: list[Paper]
) -> None:
    """A search lists at most MAX_MORE papers after its first page: when it is cut there, more papers may match than
    it lists, and neither chat nor the command line states the listed count as how many match."""
    from bot.chat import ChatController, Incoming, Place, Speaker
    from bot.cli import _print_search

    await store_papers(core, language_model_papers)
    found = await search_papers(core, "language models", until=MONDAY)
    assert len(found.more) == MAX_MORE, "more papers match than a search lists"
    assert found.total < len(language_model_papers), "more papers match than it lists"
    ctl, bob, channel = ChatController(core), Speaker("telegram:7", "Bob"), Place("telegram", "-55", is_dm=False)
    (reply,) = await ctl.handle(Incoming.from_text(bob, channel, "/search language models"))
    assert reply.text.startswith(f"at least {found.total} stored papers match"), reply.text
    assert "at least" in reply.text.splitlines()[-1], "its offer of the rest says it too"
    listed = SearchResults(found.hits, found.more[:-1])
    assert listed.matched == str(listed.total)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        _print_search(found, 1, 10, "add --page 2")
    assert printed.getvalue().startswith(f"at least {found.total} stored papers match")


async def test_an_answer_offering_the_most_it_offers_says_at_least_how_many_match(
    core: Core, language_model_papers: list[Paper]
) -> None:
    """An answer offers at most MAX_MORE further papers: when its offer is cut there it says "at least", as a search
    does, in its head line and in its offer (the LLM's answer keeps the offer too)."""
    await store_papers(core, language_model_papers)
    answer = await ask(core, "language models on Monday", today=MONDAY)
    assert len(answer.more) == MAX_MORE, "more papers match than an answer offers"
    head, *_, offer = answer.text.splitlines()
    assert "at least" in head, head
    assert "at least" in offer and offer.endswith("/more lists them."), offer


def test_a_paper_naming_an_exclusion_in_passing_is_offered_not_shown(demo_papers: list[Paper]) -> None:
    # "LLM hallucination, not the vision-language ones": a hallucination paper saying "Large Vision-Language Models"
    # once is about no vision-language model by the exclusion's test, so it is kept; the first page holds the others
    # and it comes first among the rest (nothing dropped). When every shown paper names it, they stay shown.
    papers = iter(demo_papers)
    clean, grazes = Retrieved(next(papers), 0.8, 0.6, True, True), Retrieved(next(papers), 0.8, 0.6, True, True)
    grazes = dataclasses.replace(grazes, grazes=True)
    rest = Retrieved(next(papers), 0.2, 0.2, False, False, every_part=True)
    asked = Filters(topic="LLM hallucination", excluded=("vision-language models",))
    assert select([grazes, clean, rest], asked) == ([clean], [grazes, rest])
    assert select([grazes, rest], asked) == ([grazes], [rest])


async def test_an_exclusion_named_in_passing_is_one_the_archive_seldom_names(
    core: Core, demo_papers: list[Paper]
) -> None:
    # a paper naming a rare exclusion once grazes it; naming "LLMs", which a tenth of the papers or more name (often
    # in passing: "inspired by LLMs"), says nothing
    vlm = dataclasses.replace(
        demo_papers[0], title="Tidal decoding", abstract="Large vision-language models hallucinate objects."
    )
    llm = dataclasses.replace(demo_papers[1], title="Tidal pruning", abstract="Unlike LLMs, our tidal nets are small.")
    await store_papers(core, [vlm, llm, *demo_papers[2:60]])
    for excluded, expected in (("vision-language models", {vlm.id}), ("LLMs", set())):
        readings, _ = await excluded_readings(core, Filters(topic="tidal", excluded=(excluded,)))
        assert grazing(readings, [vlm, llm]) == expected


async def test_an_exclusion_holds_its_words_derivations(core: Core, demo_papers: list[Paper]) -> None:
    # "not counterfactual explanations" excludes "Counterfactual Explainability" (the noun of "explainable", derived
    # from "explain" as "explanation" is), and keeps a paper on counterfactual reasoning
    written = (
        ("Graph Style Transfer for Counterfactual Explainability", "We transfer graph styles to find counterfactuals."),
        ("Can LLMs Reason Through Counterfactuals?", "A dataset of counterfactual premises for logical reasoning."),
    )
    explainability, reasoning = _rewritten(demo_papers, written)
    await store_papers(core, [explainability, reasoning, *demo_papers[2:30]])
    asked = Filters(topic="counterfactuals", excluded=("counterfactual explanations",))
    assert [p.id for p in await without_excluded(core, asked, [explainability, reasoning])] == [reasoning.id]


async def test_an_exclusion_reads_a_title_acronym_its_abstract_defines(core: Core, demo_papers: list[Paper]) -> None:
    # "attack detection other than the vehicle-network ones" excludes "Unseen Attack Detection in IoV Networks", whose
    # abstract defines IoV as "Internet of Vehicles" and names vehicles and networks apart: its title is about vehicle
    # networks; a paper on attacks over computer networks stays
    written = (
        (
            "Tidal Autoencoder for Unseen Attack Detection in IoV Networks",
            "Internet of Vehicles (IoV) systems connect vehicles, infrastructure and cloud services. We detect attacks "
            "on each network with an autoencoder.",
        ),
        ("Tidal Botnet Detection with Graph Attention", "We detect botnet attacks in computer network traffic."),
    )
    vehicles, botnets = _rewritten(demo_papers, written)
    await store_papers(core, [vehicles, botnets, *demo_papers[2:30]])
    asked = Filters(topic="attack detection", excluded=("vehicle-network",))
    assert [p.id for p in await without_excluded(core, asked, [vehicles, botnets])] == [botnets.id]


async def test_x_for_y_that_no_paper_puts_so_is_read_as_its_head(core: Core, demo_papers: list[Paper]) -> None:
    # no stored paper names an optimizer together with "training neural nets" (papers write "networks"): the compound
    # used to leave nothing carrying the topic, and papers on neural networks were shown by meaning alone
    optimizer = dataclasses.replace(
        demo_papers[0],
        title="A faster tidal optimizer",
        abstract="We propose an optimizer with tidal momentum that trains deep neural networks faster.",
    )
    memory = dataclasses.replace(
        demo_papers[1], title="Tidal memory", abstract="We give tidal agents a memory that lasts across tasks."
    )
    await store_papers(core, [optimizer, memory, *demo_papers[2:30]])
    head = await topic_evidence(core, "optimizers for training neural nets", asked=True)
    assert [u.key for u in head.alternatives[0].units] == ["optimizer"]
    both = await topic_evidence(core, "memory for tidal agents", asked=True)  # a paper names both: the compound stands
    assert len([u for u in both.alternatives[0].units if not u.optional]) > 1
    # no paper names both, and the purpose is what fewer papers name: the papers on it ("ML for sports": the sports
    # papers, not every machine learning paper)
    sports = _titled(demo_papers[30:32], "Tidal sports analytics", "We rank tennis sports players.")
    learning = _titled(demo_papers[32:36], "Tidal learning", "A machine learning method for tides.")
    await store_papers(core, [*sports, *learning])
    domain = await topic_evidence(core, "machine learning for sports", asked=True)
    assert [u.key for u in domain.alternatives[0].units] == ["sport"]
    # an exclusion, or one alternative of several, is not broadened to its head
    excluded = await topic_evidence(core, "optimizers for training neural nets")
    assert len(excluded.alternatives[0].units) > 1


async def test_a_method_nearly_every_paper_names_for_a_field_no_paper_names_is_read_as_the_field(
    core: Core, demo_papers: list[Paper]
) -> None:
    # no paper names a telescope: "machine learning for telescope data" was read as its head, and every paper naming it
    # (a tenth of an archive) was listed before the astronomy papers closest in meaning
    learning = _titled(demo_papers[:8], "Tidal machine learning", "A machine learning method for tides.")
    await store_papers(core, [*learning, *demo_papers[8:60]])
    topic = await topic_evidence(core, "machine learning for telescope data", asked=True)
    assert [u.key for u in topic.alternatives[0].units] == ["telescope"]
    # a head few papers name is still what the papers are (`test_x_for_y_that_no_paper_puts_so_is_read_as_its_head`)
    rare = dataclasses.replace(demo_papers[60], title="Tidal optimizers", abstract="Tidal optimizers for tides.")
    await store_papers(core, [rare])
    head = await topic_evidence(core, "tidal optimizers for telescope data", asked=True)
    assert "telescope" not in [u.key for u in head.alternatives[0].units]


async def test_x_for_y_read_as_one_side_shows_first_the_papers_naming_some_of_the_other(
    core: Core, demo_papers: list[Paper]
) -> None:
    # no paper names "cloud" at all: "tidal deep RL for cloud resource scheduling" is read as "tidal deep RL", and its
    # first page showed deep RL papers of any kind; one naming "scheduling" too is shown first, the others offered
    written = [("job scheduling", "We schedule jobs on a cluster.")] + [("Atari games", "We play games.")] * 3
    papers = [
        dataclasses.replace(p, title=f"Tidal deep reinforcement learning for {t}", abstract=f"Tidal deep RL. {a}")
        for p, (t, a) in zip(demo_papers, written, strict=False)
    ]
    # among a hundred papers, as deep RL is a few percent of an archive's (not a method nearly every paper names)
    await store_papers(core, [*papers, *demo_papers[4:100]])
    topic = await topic_evidence(core, "tidal deep RL for cloud resource scheduling", asked=True)
    assert [u.key for u in topic.alternatives[0].units] == ["tidal", "deep", "reinforcement learning"]
    assert [topic.shows(p.title, p.abstract) for p in papers] == [True, False, False, False]
    assert all(topic.holds_every_part(f"{p.title} {p.abstract}") for p in papers)  # all listed


async def test_a_hyphenated_word_is_also_read_as_papers_write_it_joined(core: Core, demo_papers: list[Paper]) -> None:
    # "pre-training" (the speller's reading of "pretraining") was the tokens "pre" and "training": a paper writing
    # "pretraining" held no "pre", so no paper attested "data mixtures for LLM pre-training" and the question was read
    # as "LLM pre-training" alone (fewer papers name it than data mixtures), its first page pre-training papers of any
    # kind
    joined = dataclasses.replace(
        demo_papers[0],
        title="Tidal data mixtures for LLM pretraining",
        abstract="Large language models (LLMs) depend on the tidal data mixtures of their pretraining corpora.",
    )
    apart = _titled(demo_papers[1:3], "Tidal pre-training", "LLM pre-training on tidal text.")
    mixtures = _titled(demo_papers[3:6], "Tidal data mixtures", "Tidal data mixtures for ocean models.")
    await store_papers(core, [joined, *apart, *mixtures, *demo_papers[6:30]])
    topic = "tidal data mixtures for LLM pre-training"
    assert await joined_spellings(core, topic) == [("pre training", "pretraining")]
    results, words = await ranked(core, Filters(topic=topic))
    assert words is not None and "mixture" in {u.key for a in words.alternatives for u in a.units}
    assert next(r for r in results if r.paper.id == joined.id).in_title
    # the question's vector is the one it had: the joined spelling says nothing new to the model
    vector_text = expand_terms(topic)
    with corpus_terms(await joined_spellings(core, topic)):
        assert expand_terms(topic) == vector_text
    assert await joined_spellings(core, "LLM-based tidal agents") == []  # a named term's compound is the term


async def test_a_word_typed_in_one_english_spelling_finds_papers_writing_the_other(
    core: Core, demo_papers: list[Paper]
) -> None:
    """ "dialog systems": abstracts mostly write "dialogue", which neither the full-text index (Porter's "dialogu")
    nor `same_word` read as "dialog"; the papers writing it were found by meaning alone or not at all. A word the
    archive writes the other way, British or American, reads as both spellings; one it does not, as typed."""
    writing = _titled(demo_papers[:3], "Tidal dialogue systems", "Tidal dialogue systems for ships.")
    await store_papers(core, [*writing, *demo_papers[3:30]])
    assert await variant_spellings(core, "tidal dialog systems") == [("dialog", "dialogue")]
    assert await variant_spellings(core, "tidal catalog systems") == []  # no paper writes "catalogue"
    results, _ = await ranked(core, Filters(topic="tidal dialog systems"))
    assert all(next(r for r in results if r.paper.id == p.id).in_title for p in writing)


async def test_a_word_typed_joined_finds_papers_writing_it_hyphenated(core: Core, demo_papers: list[Paper]) -> None:
    """ "MAE pretraining", "nonconvex landscape theory": papers writing "pre-training" or "non-convex" held no
    "pretraining" and were found by meaning alone; a word typed joined that papers commonly write in two pieces
    reads as both spellings, as `joined_spellings` reads a hyphenated one. A name typed as one ("TidalPoint") is not
    split, nor is a word papers seldom write apart."""
    apart = _titled(demo_papers[:3], "Tidal pre-training", "Tidal pre-training of ocean models.")
    named = _titled(demo_papers[3:6], "Tidal point", "Tidal point clouds.")
    await store_papers(core, [*apart, *named, *demo_papers[6:30]])
    assert await split_spellings(core, "tidal pretraining") == [("pre training", "pretraining")]
    assert await split_spellings(core, "TidalPoint") == []
    results, _ = await ranked(core, Filters(topic="tidal pretraining"))
    assert all(next(r for r in results if r.paper.id == p.id).in_title for p in apart)


async def test_no_word_feedback_when_no_candidate_holds_a_word_of_the_topic(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "ML for telescope data", read as a field no paper names: the first pass was the ranking by meaning alone, and
    the word feedback (RM3) from its three nearest papers voted a second time for their vocabulary ("benchmark" of
    two astronomy benchmarks), putting two astronomy papers closer in meaning 13th and 17th. With no candidate
    holding a word of the topic the papers come by meaning, as the vector feedback reads no guess either; a topic
    the papers name is still expanded."""
    import bot.questions.retrieval as retrieval

    await store_papers(core, demo_papers[:60])
    expanded: list[str] = []
    expansion_scores = retrieval.expansion_scores

    async def recorded(core: Core, papers: list[Paper], feedback: object, topic: str) -> np.ndarray | None:
        expanded.append(topic)
        return await expansion_scores(core, papers, feedback, topic)  # type: ignore[arg-type]

    monkeypatch.setattr(retrieval, "expansion_scores", recorded)
    results, _ = await ranked(core, Filters(topic="telescopes"))  # no paper of the day names one
    assert results and not any(r.in_title or r.in_abstract for r in results)
    assert expanded == []
    assert [r.dense for r in results] == sorted((r.dense for r in results), reverse=True)
    await ranked(core, Filters(topic="reinforcement learning"))
    assert len(expanded) == 1


async def test_a_rare_joined_spelling_of_a_hyphenated_word_is_not_read(core: Core, demo_papers: list[Paper]) -> None:
    # "multiagent" in 2 papers beside "multi-agent" in 10: a rare variant; read as one term, "multi-agent" would be one
    # unit where it is two, and "multi-agent LLM systems for data analysis" another compound (its parts needed closer)
    written = ["Tidal multiagent planning"] * 2 + ["Tidal multi-agent planning"] * 10
    papers = [dataclasses.replace(p, title=t, abstract=f"{t}.") for p, t in zip(demo_papers, written, strict=False)]
    await store_papers(core, [*papers, *demo_papers[12:30]])
    assert await joined_spellings(core, "tidal multi-agent planning") == []


async def test_a_question_carrying_a_members_profile_ranks_it_as_the_members_digest_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the profile's share of the fusion is the digest's own score, the sentence term of one-line interests included
    from bot.ranking import rank
    from bot.ranking.for_profile import rank_papers
    from tests.test_interests import member

    papers = [
        Paper(
            id=f"2505.{n:05d}",
            title=f"Sampling study {n}",
            authors=("A. Author",),
            abstract=f"We study sampling of kind {n}. One part concerns gadget{n} estimation. Results improve.",
            categories=("cs.LG",),
            announced=MONDAY,
        )
        for n in range(4)
    ]
    profile = member(["gadget2 estimation", "widget theory"])
    seen: list[dict[str, float]] = []
    scorer = rank.rank_for_profile

    def recording(*args: object, **kwargs: object) -> list:
        out = scorer(*args, **kwargs)  # type: ignore[arg-type]
        seen.append({r.paper.id: r.score for r in out})
        return out

    async with open_core(Settings(home=tmp_path / "home", sentence_vectors=True), WordEmbedder()) as core:
        await store_papers(core, papers)
        digest = {r.paper.id: r.score for r in await rank_papers(core, papers, profile)}
        monkeypatch.setattr(rank, "rank_for_profile", recording)
        await ranked(core, Filters(topic="sampling"), profile=profile)
    assert seen and set(seen[-1]) == set(digest)
    assert seen[-1] == pytest.approx(digest)


async def test_a_short_search_list_is_filled_up_to_a_page_in_the_fused_order(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search whose matches stop short of a page lists the candidates next in the fused order after them, as
    papers close in meaning: a paper on the topic in other words ranked just after the cut was never listed. Its
    first page does not change."""
    import bot.questions.retrieval as retrieval

    await store_papers(core, demo_papers[:60])
    found = await search_papers(core, "speculative decoding", limit=10)
    monkeypatch.setattr(retrieval, "_filling", lambda *args: [])
    short = await search_papers(core, "speculative decoding", limit=10)
    assert 0 < short.total < 10 and found.total == 10
    assert [h.paper.id for h in found.hits] == [h.paper.id for h in short.hits]
    added = [h for h in found.more if h.paper.id not in {s.paper.id for s in (*short.hits, *short.more)}]
    assert [h.paper.id for h in found.more[: len(short.more)]] == [h.paper.id for h in short.more]
    assert len(added) == 10 - short.total and not any(h.by_words for h in added)


def test_with_no_paper_carrying_the_topic_one_holding_every_part_high_in_the_fused_order_is_shown(
    demo_papers: list[Paper],
) -> None:
    # "exploration in deep RL": no paper carries the phrase; those closest as a whole are RL papers that never say
    # exploration, while one holding every part apart ranks third in the fused order at similarity 0.40: it is shown,
    # the others offered after it (before, it came after all of them, since only the close ones made the page)
    papers = iter(demo_papers)

    def paper(dense: float, every_part: bool = False) -> Retrieved:
        return Retrieved(next(papers), dense, dense, False, False, every_part=every_part)

    close = [paper(0.65), paper(0.61)]
    apart = paper(0.40, every_part=True)
    rest = [paper(0.6), paper(0.55), paper(0.3)]
    topic = Filters(topic="exploration in deep RL")
    shown, offered = select([*close, apart, *rest], topic)
    assert shown == [apart] and offered[:4] == [*close, *rest[:2]]
    # an answer's page for meaning alone is chosen by its sentences (`_stating`), not so
    assert apart not in select([*close, apart, *rest], topic, SPREAD, stating=True)[0]
    # one holding every part below FLOOR, or past the first MEANING_RANKS of such papers, is not shown so
    far = [paper(0.5) for _ in range(MEANING_RANKS)]
    for results in ([*close, paper(0.2, every_part=True), *rest], [*close, *far, paper(0.4, every_part=True)]):
        shown, _ = select(results, topic)
        assert shown == [r for r in results if r.relevance >= 0.65 - 0.16]


async def test_a_search_page_holds_what_select_shows_and_a_far_passing_mention_opens_the_rest(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A paper naming the query only in an abstract far from it in meaning (under FLOOR) is listed first after the
    page, as an answer offers it; it was on the page, beside the papers `select` shows. The listed order is the same."""
    import bot.questions.retrieval as retrieval

    papers = iter(demo_papers)
    title = Retrieved(next(papers), 0.8, 0.6, True, True)
    close = Retrieved(next(papers), 0.5, 0.45, False, True)
    far = Retrieved(next(papers), 0.26, 0.2, False, True)
    wordless = [Retrieved(next(papers), 0.35, 0.35, False, False, every_part=False) for _ in range(8)]
    results = [title, far, close, *wordless]

    async def fake_ranked(*args: object, **kwargs: object) -> tuple[list[Retrieved], None]:
        return results, None

    monkeypatch.setattr(retrieval, "ranked", fake_ranked)
    first, rest = await retrieval.retrieve(core, Filters(topic="token pruning"), limit=10)
    assert first == [title, close] and rest == [far, *wordless]
    # when `select` shows nothing, the papers carrying the words make the page, as before
    results = [far, Retrieved(next(papers), 0.2, 0.2, False, False, every_part=False)]
    first, rest = await retrieval.retrieve(core, Filters(topic="token pruning"), limit=10)
    assert first == [far]


async def test_a_search_page_holds_the_papers_naming_the_query_as_an_answers_first_page_reads_it(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "knowledge distillation": a paper writing "distilled models" once carries the query as papers are listed (the
    common "knowledge" only says where "distillation" lives) and was on the search's page beside the papers naming
    knowledge distillation. The page now holds those (`Retrieved.paged`, a search's reading beside an answer's
    `Retrieved.shows`), as an answer's first page does; the other opens the rest, nothing dropped, the listed order
    otherwise the same."""
    import bot.questions.retrieval as retrieval

    papers = iter(demo_papers)
    naming = [Retrieved(next(papers), 0.8 - n / 100, 0.6, True, True) for n in range(2)]
    distilled = Retrieved(next(papers), 0.5, 0.4, False, True, shows=False, paged=False)
    wordless = [Retrieved(next(papers), 0.35, 0.35, False, False, every_part=False) for _ in range(8)]
    results = [naming[0], distilled, naming[1], *wordless]

    async def fake_ranked(*args: object, **kwargs: object) -> tuple[list[Retrieved], None]:
        return results, None

    monkeypatch.setattr(retrieval, "ranked", fake_ranked)
    first, rest = await retrieval.retrieve(core, Filters(topic="knowledge distillation"), limit=10)
    assert first == naming and rest[0] == distilled and rest[1:] == wordless
    # when no paper of the page names it so, the page is as before
    results = [distilled, *wordless]
    first, rest = await retrieval.retrieve(core, Filters(topic="knowledge distillation"), limit=10)
    assert first == [distilled]


async def test_a_search_page_holds_only_papers_the_fusion_ranks_within_a_page(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "graph generative models": a paper naming the query once in its abstract ("Topological Structure Learning
    Should Be A Research Priority ...") was on the search's page although the fused ranking put it 37th, after a page
    of papers without the words. A page paper the fusion ranks after `limit` candidates opens the rest; the listed
    order is the same, and a page left with none of them is kept whole."""
    import bot.questions.retrieval as retrieval

    papers = iter(demo_papers)
    naming = Retrieved(next(papers), 0.8, 0.6, True, True)
    wordless = [Retrieved(next(papers), 0.35, 0.35, False, False, every_part=False) for _ in range(10)]
    far = Retrieved(next(papers), 0.7, 0.5, True, True)
    results = [naming, *wordless, far]

    async def fake_ranked(*args: object, **kwargs: object) -> tuple[list[Retrieved], None]:
        return results, None

    monkeypatch.setattr(retrieval, "ranked", fake_ranked)
    assert retrieval.select(results, Filters(topic="graph generative models"))[0] == [naming, far]
    first, rest = await retrieval.retrieve(core, Filters(topic="graph generative models"), limit=10)
    assert first == [naming] and rest == [far, *wordless]
    # within a page of candidates it stays; and when every page paper is ranked so far, the page is as before
    first, _ = await retrieval.retrieve(core, Filters(topic="graph generative models"), limit=12)
    assert first == [naming, far]
    results = [*wordless, far]
    first, _ = await retrieval.retrieve(core, Filters(topic="graph generative models"), limit=10)
    assert first == [far]


async def test_a_searchs_list_puts_the_fused_rankings_first_papers_before_a_far_passing_mention(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "network science": after the page, every paper naming the query came before any written in other words, so
    a passing mention the fusion put 30th came before "Identifying Super Spreaders in Multilayer Networks", which it
    put 3rd, and pushed it past the first ten. The papers the fusion puts among its first FUSED_DEPTH come first
    (joined by those of them nothing else listed), the others after them as listed."""
    import bot.questions.retrieval as retrieval

    papers = iter(demo_papers)
    naming = Retrieved(next(papers), 0.8, 0.6, True, True)
    close = [Retrieved(next(papers), 0.4, 0.4, False, False, every_part=False) for _ in range(2)]
    others = [Retrieved(next(papers), 0.2, 0.2, False, False, every_part=False) for _ in range(20)]
    mention = Retrieved(next(papers), 0.25, 0.2, False, True)
    results = [naming, *close, *others, mention]

    async def fake_ranked(*args: object, **kwargs: object) -> tuple[list[Retrieved], None]:
        return results, None

    monkeypatch.setattr(retrieval, "ranked", fake_ranked)
    first, rest = await retrieval.retrieve(core, Filters(topic="network science"), limit=3)
    depth = retrieval.FUSED_DEPTH
    assert first == [naming]
    assert rest == [*close, *others[: depth - 3], mention]
    # a list shorter than a page is filled up to it in the fused order, after everything listed
    first, rest = await retrieval.retrieve(core, Filters(topic="network science"), limit=10)
    assert first == [naming] and rest == [*close, mention, *others[:6]]
    # a name asked for alone lists the papers naming it, nothing else
    named = Retrieved(next(papers), 0.9, 0.6, True, True, named=2)
    results = [named, *close, *others]
    first, rest = await retrieval.retrieve(core, Filters(topic="YAQA"), limit=10)
    assert first == [named] and rest == []


async def test_a_search_page_shown_for_meaning_alone_gives_way_to_the_papers_naming_the_query(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An acronym the model embeds poorly ("MCTS"): the papers writing it are far in meaning (under FLOOR), so
    `select` showed the papers closest as a whole (Monte Carlo sampling) and listed the ones naming the query after
    them, past the first page. The papers carrying the words now make the page; the close ones follow them."""
    import bot.questions.retrieval as retrieval

    papers = iter(demo_papers)
    close = [Retrieved(next(papers), 0.5 - n / 100, 0.5 - n / 100, False, False) for n in range(10)]
    naming = [Retrieved(next(papers), 0.29, 0.29, False, True), Retrieved(next(papers), 0.22, 0.22, False, True)]
    results = [*naming, *close]

    async def fake_ranked(*args: object, **kwargs: object) -> tuple[list[Retrieved], None]:
        return results, None

    monkeypatch.setattr(retrieval, "ranked", fake_ranked)
    assert retrieval.select(results, Filters(topic="MCTS"))[0] == close  # the page as `select` reads it
    first, rest = await retrieval.retrieve(core, Filters(topic="MCTS"), limit=10)
    assert first == naming and rest[:10] == close
    # a page holding a paper that names the query is left as it was
    results = [naming[0], dataclasses.replace(close[0], in_title=True), *close[1:]]
    first, rest = await retrieval.retrieve(core, Filters(topic="MCTS"), limit=10)
    assert first[0].in_title and naming[0] in rest


async def test_an_exclusion_naming_kinds_of_contribution_reads_the_papers_kinds(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "skip surveys and evaluations" was read as the words "surveys" and "evaluations": a method paper whose abstract
    # says "evaluations" twice was dropped; a survey, a position paper and an evaluation study are what it excludes
    written = (
        ("Tidal Models: A Survey", "We survey tidal models."),
        ("Position: Tidal Models Need Priors", "This position paper argues for priors."),
        ("Evaluating Tidal Models on Real Coasts", "We evaluate five tidal models."),
        (
            "A Faster Tidal Model",
            "We propose a tidal model. Our evaluations on coasts and extensive evaluations show it.",
        ),
    )
    survey, position, study, method = _rewritten(demo_papers, written)
    await store_papers(core, [survey, position, study, method, *demo_papers[4:30]])
    for excluded in ("surveys and evaluations, position papers", "surveys or position papers or evaluation studies"):
        asked = Filters(topic="tidal models", excluded=(excluded,))
        assert [p.id for p in await without_excluded(core, asked, [survey, position, study, method])] == [method.id]
    assert excluded_kinds("benchmarks") == {MADE} and excluded_kinds("pure evaluation studies") == {"benchmark"}
    assert not excluded_kinds("survey sampling") and not excluded_kinds("LLM evaluation")


async def test_a_topics_pieces_as_typed_are_read_once_per_ranking(
    core: Core, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch
) -> None:
    # they make candidates of their own and mark the papers carrying them (`Retrieved.loose`): both from one reading
    import bot.questions.retrieval as retrieval

    await store_day(core)
    read: list[str] = []
    reading = retrieval.loose_alternatives

    def counted(topic: str) -> list[Alternative]:
        read.append(topic)
        return reading(topic)

    monkeypatch.setattr(retrieval, "loose_alternatives", counted)
    topic = "LLM agents that use tools or browse the web"
    assert reading(topic), "the topic has pieces as typed beside its reading by role"
    assert (await ranked(core, Filters(topic=topic)))[0]
    assert read == [topic]


def test_a_search_asking_for_a_kind_of_paper_is_read_apart_from_its_topic() -> None:
    assert asked_kind("position papers arguing the field should change course") == (
        "position",
        "arguing the field should change course",
    )
    assert asked_kind("survey papers") == ("survey", "")
    assert asked_kind("surveys on tidal models") == ("survey", "on tidal models")
    # in the singular before what it covers ("is there a survey on agents?"), the kind is the phrase's head too
    assert asked_kind("survey on tidal models") == ("survey", "on tidal models")
    assert asked_kind("review of diffusion models") == ("survey", "of diffusion models")
    # a kind word modifying a topic asks for no kind
    for topic in ("survey sampling", "positional encoding", "review generation", "product reviews", "peer review"):
        assert asked_kind(topic) == ("", topic)


def test_a_stance_asks_for_position_papers_only_when_they_are_named() -> None:
    # "position on X" read as position papers on X: a position is a stance a paper takes (or a token's place), a
    # survey a document; position papers are asked for by name ("position papers on X")
    assert asked_kind("position on tidal models") == ("", "position on tidal models")
    assert asked_kind("perspective on tidal models") == ("", "perspective on tidal models")
    assert asked_kind("position papers on tidal models") == ("position", "on tidal models")
    assert parse_question("position on LLM alignment?", dt.date(2025, 5, 30)).constraints == ()
    filters = parse_question("any position papers on LLM alignment?", dt.date(2025, 5, 30))
    assert (filters.topic, filters.constraints) == ("LLM alignment", ("position papers",))


def test_a_title_led_by_a_kind_word_s_verb_names_no_survey() -> None:
    # "Self-Reviewing LLM Agents" was a survey to `paper_kinds`: the kind is the noun ("A Survey", "Reviews of X"),
    # not a verb's form naming what the method does
    method = "We propose LLM agents with a planner."
    assert paper_kinds("Self-Reviewing LLM Agents", method) == frozenset()
    assert paper_kinds("Surveying Tidal Models with Drones", method) == frozenset()
    assert paper_kinds("Tidal Models: A Review", method) == {"survey"}
    assert paper_kinds("Reviews of Tidal Models", method) == {"survey"}


def test_a_kind_word_after_a_noun_heads_a_compound_naming_a_topic() -> None:
    # "code review papers" listed ten surveys first (the code-review papers off the page) and "peer review papers"
    # one survey: a noun before the kind word makes a topic of it ("code review", "user survey"); a word of asking
    # or an adjective before it does not ("recent survey papers", "systematic review papers")
    filler = frozenset({"any", "recent", "new"})
    for topic in ("code review papers", "peer review papers on LLMs", "user survey papers"):
        assert asked_kind(topic, filler) == ("", topic)
    assert asked_kind("any recent survey papers on RL", filler) == ("survey", "any recent on RL")
    assert asked_kind("systematic review papers", filler) == ("survey", "systematic")


async def test_a_search_for_a_kind_of_paper_lists_the_papers_of_that_kind_first(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "position papers arguing X" searched the words "position arguing X": position papers argue in their own words,
    # so none carried them and the page held papers close to "arguing"; a kind of paper is what the papers are
    written = (
        ("Position: Tidal Models Need Priors", "This position paper argues that tidal models need priors."),
        ("Position: Benchmarks Should Report Variance", "In this position paper we argue for reporting variance."),
        ("Tidal Models: A Survey", "We survey tidal models of coasts."),
        ("A Faster Tidal Model", "We propose a tidal model and argue that the community should adopt it."),
    )
    tidal, variance, survey, method = _rewritten(demo_papers, written)
    await store_papers(core, [tidal, variance, survey, method, *demo_papers[4:30]])
    found = await search_papers(core, "position papers arguing the community should change course", limit=10)
    assert {h.paper.id for h in found.hits} == {tidal.id, variance.id}  # the topic describes the kind: all of them
    found = await search_papers(core, "position papers on tidal models", limit=10)
    assert [h.paper.id for h in found.hits] == [tidal.id]  # of the kind, those about the topic
    assert {method.id, survey.id} <= {h.paper.id for h in found.more}  # the other matches follow, nothing dropped
    found = await search_papers(core, "survey papers", limit=10)
    assert survey.id in {h.paper.id for h in found.hits}
    assert all("survey" in paper_kinds(h.paper.title, h.paper.abstract) for h in found.hits)


async def test_papers_of_a_kind_without_a_window_are_those_of_every_stored_day(
    core: Core, demo_papers: list[Paper]
) -> None:
    # filters naming no window (as `retrieve` reads them: every stored day) had stopped the kind's listing at an
    # assert; a window listing days holds only those days
    position = dataclasses.replace(
        demo_papers[0], title="Position: Tidal Models Need Priors", abstract="This position paper argues for priors."
    )
    later = dataclasses.replace(
        demo_papers[1],
        title="Position: Benchmarks Should Report Variance",
        abstract="In this position paper we argue for reporting variance.",
        announced=MONDAY + dt.timedelta(days=2),
    )
    await store_papers(core, [position, later, *demo_papers[2:20]])
    found = await _of_kind(core, "position", "", Filters(topic="position"), [], [], 10, "position papers")
    assert {h.paper.id for h in found.hits} == {position.id, later.id}
    days = TimeWindow(MONDAY, MONDAY + dt.timedelta(days=2), "", days=(MONDAY,))
    found = await _of_kind(core, "position", "", Filters(topic="position", window=days), [], [], 10, "position")
    assert [h.paper.id for h in found.hits] == [position.id]


async def test_an_exclusion_needs_every_word_it_names(core: Core, demo_papers: list[Paper]) -> None:
    # "generation", in most stored papers, may be missing from a paper about "video generation" asked for; excluded,
    # "video generation" is not every video paper, and "speech and audio" excludes the papers on either
    common = [dataclasses.replace(p, abstract=f"{p.abstract} Text generation.") for p in demo_papers[3:30]]
    understanding = dataclasses.replace(
        demo_papers[0], title="Long video understanding", abstract="Video agents answer questions about long video."
    )
    generating = dataclasses.replace(
        demo_papers[1], title="Fast video generation", abstract="We speed up video generation with caching."
    )
    speech = dataclasses.replace(
        demo_papers[2], title="Emotion in speech", abstract="Recognising emotion from speech signals and speech."
    )
    await store_papers(core, [understanding, generating, speech, *common])
    asked = Filters(topic="video", excluded=("video generation",))
    assert [p.id for p in await without_excluded(core, asked, [understanding, generating])] == [understanding.id]
    asked = Filters(topic="emotion", excluded=("speech and audio",))
    assert await without_excluded(core, asked, [speech]) == []


async def test_an_exclusion_named_where_a_paper_says_what_it_contributes(core: Core, demo_papers: list[Paper]) -> None:
    # "not about LLMs": a paper naming LLMs once, in the sentence saying what it makes, is about them; one naming them
    # once as background is not
    aligned = dataclasses.replace(
        demo_papers[0],
        title="Tidal preference optimisation",
        abstract="Preference data is noisy. We propose TidalPO, a preference optimisation method for LLMs.",
    )
    inspired = dataclasses.replace(
        demo_papers[1],
        title="Tidal continual learning",
        abstract="Inspired by LLMs, forgetting matters. We propose a tidal replay buffer for continual learning.",
    )
    await store_papers(core, [aligned, inspired, *demo_papers[2:30]])
    asked = Filters(topic="tidal", excluded=("LLMs",))
    assert [p.id for p in await without_excluded(core, asked, [aligned, inspired])] == [inspired.id]


async def test_an_exclusion_named_where_the_paper_itself_says_what_it_proposes(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "This paper proposes a framework ... for stock price prediction" says what the paper makes as "we propose"
    # does: "ML for finance other than stock prediction" had shown it (its "we" sentence came later, about ensembles)
    stock = dataclasses.replace(
        demo_papers[0],
        title="Gradient boosting with recurrent nets for investment",
        abstract="This paper proposes a hybrid framework combining recurrent nets with boosting for stock price "
        "prediction. Building on baselines, we develop an ensemble model.",
    )
    credit = dataclasses.replace(
        demo_papers[1],
        title="Credit default prediction with ensembles",
        abstract="This paper proposes an ensemble for credit default prediction. Stock markets differ.",
    )
    await store_papers(core, [stock, credit, *demo_papers[2:30]])
    asked = Filters(topic="finance", excluded=("stock prediction",))
    assert [p.id for p in await without_excluded(core, asked, [stock, credit])] == [credit.id]


def test_the_paper_as_subject_is_read_past_an_earlier_mention_of_a_work() -> None:
    # the first "this work" had ended the reading: "our paper proposes" later in the sentence was never seen
    sentence = "Extending this work to images, our paper proposes a detector for stock price prediction."
    assert contribution_sentence(f"Markets move. {sentence}", work=True) == sentence
    assert contribution_sentence(f"Markets move. {sentence}") == ""


async def test_a_word_standing_for_its_phrase_lists_but_a_first_page_names_the_phrase(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "credit" is seldom written outside "credit assignment", so it stands for the phrase in the listing; but a paper
    # on credit default prediction had been shown first for "credit assignment": it is offered after those naming it
    assigning = _titled(demo_papers[:3], "Tidal credit assignment", "Credit assignment for sparse rewards.")
    default = dataclasses.replace(
        demo_papers[3], title="Tidal credit default prediction", abstract="We predict loan default from credit data."
    )
    tasks = _titled(demo_papers[4:12], "Tidal task assignment", "Task assignment for robot fleets.")
    await store_papers(core, [*assigning, default, *tasks, *demo_papers[12:30]])
    topic = await topic_evidence(core, "credit assignment", asked=True)
    assert [u.key for u in topic.alternatives[0].standalone] == ["credit"]
    assert [topic.shows(p.title, p.abstract) for p in [*assigning, default]] == [True, True, True, False]
    assert all(topic.holds_every_part(f"{p.title} {p.abstract}") for p in [*assigning, default])  # all listed


async def _knowledge_graph_construction(
    core: Core, demo_papers: list[Paper]
) -> tuple[list[Paper], Paper, QuestionTopic]:
    """Two papers on knowledge graph construction, one on knowledge graph reasoning, 200 without the term, and the
    topic "knowledge graph construction" read over them."""
    building = _titled(demo_papers[:2], "Tidal knowledge graph construction", "Knowledge graph construction from text.")
    reasoning = dataclasses.replace(
        demo_papers[2],
        title="Tidal knowledge graph reasoning",
        abstract="We answer questions over a knowledge graph with multi-hop reasoning.",
    )
    others = [p for p in demo_papers[3:] if "knowledge graph" not in f"{p.title} {p.abstract}".lower()]
    await store_papers(core, [*building, reasoning, *others[:200]])
    return building, reasoning, await topic_evidence(core, "knowledge graph construction", asked=True)


async def test_a_named_term_standing_for_its_phrase_lists_but_a_first_page_names_the_phrase(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "knowledge graph" stands for "knowledge graph construction" in the listing (a rare named term, and
    # "construction" typical of it), but a first page of every knowledge graph paper (reasoning, QA, completion) had
    # been shown for it: a paper shown first names the phrase, when any does, as for a word standing for its phrase
    building, reasoning, topic = await _knowledge_graph_construction(core, demo_papers)
    assert [u.key for u in topic.alternatives[0].standalone] == ["knowledge graph"]
    assert [topic.shows(p.title, p.abstract) for p in [*building, reasoning]] == [True, True, False]
    assert all(topic.holds_every_part(f"{p.title} {p.abstract}") for p in [*building, reasoning])  # all listed


async def test_a_named_term_standing_for_its_phrase_stands_on_a_search_page(
    core: Core, demo_papers: list[Paper]
) -> None:
    # a search's query is often a named term and its usual head ("dialog systems", "spatio-temporal forecasting"): its
    # page shows every paper the term stands in, as before an answer's first page came to name the phrase (8f6f610
    # took the term's papers off the search pages too); an answer's first page still names the phrase
    building, reasoning, topic = await _knowledge_graph_construction(core, demo_papers)
    assert [topic.shows(p.title, p.abstract, search=True) for p in [*building, reasoning]] == [True, True, True]
    assert [topic.shows(p.title, p.abstract) for p in [*building, reasoning]] == [True, True, False]
    found = await search_papers(core, "knowledge graph construction")
    assert reasoning.id in [h.paper.id for h in found.hits]


async def test_an_abbreviation_standing_for_its_phrase_stands_on_the_first_page_too(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "AV" is seldom written outside "AV QA" in a small archive, but papers write "AV" alone for audio-visual work:
    # a run of letters too short to be a word keeps standing for the phrase where an answer's first page reads it
    asking = _titled(demo_papers[:3], "Tidal AV QA", "Audio-visual question answering, AV QA.")
    alone = dataclasses.replace(demo_papers[3], title="Tidal AV speech", abstract="AV speech separation with lips.")
    await store_papers(core, [*asking, alone, *demo_papers[4:30]])
    topic = await topic_evidence(core, "AV QA", asked=True)
    assert "av" in [u.key for u in topic.alternatives[0].standalone]
    assert not topic.first_page_differs
    assert topic.shows(alone.title, alone.abstract)


async def test_a_paper_nearer_an_exclusion_in_meaning_than_the_topic_grazes_it(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "MRI papers other than brain imaging": a connectome paper writing "diffusion MRI" and "brain" but never "brain
    # imaging" is about no exclusion by its words, so it is kept; nearer the exclusion than the topic in meaning, it
    # is not surely outside it (offered first after the first page, as a paper naming it in passing is)
    written = (
        (
            "Predicting Structural Connectomes of the Brain",
            "We predict structural connectomes of the human brain from diffusion MRI tractography in 2,000 subjects.",
        ),
        (
            "Cardiac MRI Segmentation with Anatomical Priors",
            "We segment the left ventricle in cardiac MRI scans with anatomical shape priors.",
        ),
    )
    brain, cardiac = _rewritten(demo_papers, written)
    await store_papers(core, [brain, cardiac, *demo_papers[2:30]])
    results, _ = await ranked(core, Filters(topic="MRI", excluded=("brain imaging",)))
    grazing_ids = {r.paper.id for r in results if r.grazes}
    assert brain.id in grazing_ids and cardiac.id not in grazing_ids
    results, _ = await ranked(core, Filters(topic="MRI", excluded=("benchmarks",)))  # a kind: no meaning to be near
    assert not any(r.grazes for r in results)


async def test_a_broad_conjunct_joined_by_and_says_where_the_other_lives(core: Core, demo_papers: list[Paper]) -> None:
    # "LLMs and peer review": "LLMs" read as an alternative of its own (any of a third of the archive) filled a first
    # page with LLM papers on anything; beside a rarer conjunct it only says where that one lives. "or" still
    # offers either, and two conjuncts neither of which is that common stay two
    reviewing = dataclasses.replace(
        demo_papers[0], title="LLM-written peer reviews", abstract="We detect peer reviews written by LLMs."
    )
    await store_papers(core, [reviewing, *demo_papers[1:80]])
    llm = [p for p in demo_papers[1:80] if re.search(r"\b(LLMs?|[Ll]arge [Ll]anguage [Mm]odels?)\b", p.abstract)]
    assert len(llm) >= 0.2 * 80  # the premise: a fifth of the stored papers or more write it
    read = await topic_evidence(core, "LLMs and peer review", asked=True)
    assert len(read.alternatives) == 1 and read.coverage(reviewing.title) >= COVERED
    assert not any(read.coverage(p.title, p.abstract) >= COVERED for p in llm if "review" not in p.abstract)
    assert len((await topic_evidence(core, "LLMs or peer review", asked=True)).alternatives) == 2
    assert len((await topic_evidence(core, "peer review and GANs", asked=True)).alternatives) == 2


async def test_x_for_y_whose_purpose_no_paper_writes_as_typed_is_read_by_its_units(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "ML for cancer diagnosis": no paper writes "cancer diagnosis" (they write "diagnosis of cancer"), so the purpose
    # looked unnamed and the head, "ML", was the topic (any paper writing ML). The papers holding each of its units
    # name it: fewer than write "ML", so the purpose is the topic
    diagnosis = _titled(demo_papers[:2], "Tidal diagnosis of cancer", "Early diagnosis of skin cancer.")
    learning = _titled(demo_papers[2:6], "Tidal ML", "An ML method for forecasting tides.")
    await store_papers(core, [*diagnosis, *learning, *demo_papers[6:30]])
    read = await topic_evidence(core, "ML for cancer diagnosis", asked=True)
    assert [u.key for u in read.alternatives[0].units] == ["cancer", "diagnosis"]
    assert read.coverage(diagnosis[0].title) >= COVERED and read.coverage(learning[0].title) < COVERED


async def test_a_verb_led_compound_needs_every_part_after_the_verb(core: Core, demo_papers: list[Paper]) -> None:
    # "which papers integrate knowledge graphs into language models?" (dc4ed58): the verb was made optional before the
    # compound was read, which left two needed parts, so "knowledge graphs" stood alone for the whole (`_standing`)
    # and papers on knowledge graphs alone were listed first; only the verb may be missing
    graphs = _titled(demo_papers[:2], "Tidal knowledge graphs", "We build knowledge graphs of tides.")
    await store_papers(core, [*graphs, *demo_papers[2:]])
    topic = "integrate knowledge graphs into language models"
    led = (await topic_evidence(core, topic, verb_first=True, asked=True)).alternatives[0]
    plain = (await topic_evidence(core, topic, asked=True)).alternatives[0]
    assert led.units[0].optional
    assert [u.optional for u in led.units[1:]] == [u.optional for u in plain.units[1:]]
    assert led.standalone == plain.standalone
    assert led.coverage("Tidal knowledge graphs", "We build knowledge graphs of tides.") < COVERED


async def test_a_multi_word_part_of_a_compound_is_matched_as_that_part(core: Core, demo_papers: list[Paper]) -> None:
    # "papers combining distributionally robust optimization with reinforcement learning": the rare modifier
    # ("distributionally", matched in "Out-of-Distribution") stood for its phrase, whose head was left as only saying
    # where it lives, so a paper naming "Out-of-Distribution" and "policy optimization" apart counted as holding it
    scattered = _titled(
        demo_papers[:1],
        "Out-of-Distribution reasoning with reinforcement learning",
        "We train with reinforcement learning and robust policy optimization on new tasks.",
    )
    whole = _titled(
        demo_papers[1:2],
        "Distributionally robust optimization for reinforcement learning",
        "We study distributionally robust optimization of policies trained with reinforcement learning.",
    )
    await store_papers(core, [*scattered, *whole, *demo_papers[2:]])
    topic = "combining distributionally robust optimization with reinforcement learning"
    read = (await topic_evidence(core, topic, verb_first=True, asked=True)).alternatives[0]
    for reading in (read, read.showing):
        assert reading.coverage(whole[0].title, whole[0].abstract) >= COVERED
        assert reading.coverage(scattered[0].title, scattered[0].abstract) < COVERED
        assert reading.coverage(scattered[0].abstract) < COVERED


async def test_an_exclusion_whose_head_the_topic_means_is_a_kind_of_it(core: Core, demo_papers: list[Paper]) -> None:
    # "MRI papers other than brain imaging" kept a brain-MRI paper: MRI is magnetic resonance imaging, so every
    # candidate is imaging and the exclusion is brain MRI; its words, "brain imaging", were needed together
    texts = [
        ("Cardiac MRI segmentation", "We segment cardiac magnetic resonance imaging (MRI) scans of the heart."),
        ("Knee MRI reconstruction", "We reconstruct knee magnetic resonance imaging (MRI) from few samples."),
        ("Brain aging from structural MRI", "We study brain aging with magnetic resonance imaging (MRI) of adults."),
    ]
    papers = [dataclasses.replace(p, title=t, abstract=a) for p, (t, a) in zip(demo_papers, texts, strict=False)]
    await store_papers(core, [*papers, *demo_papers[3:60]])
    filters = Filters(topic="MRI", excluded=("brain imaging",))
    with corpus_terms([("magnetic resonance imaging", "MRI")]):
        kept = await without_excluded(core, filters, papers)
    assert [p.title for p in kept] == ["Cardiac MRI segmentation", "Knee MRI reconstruction"]
    # a head the topic holds as typed is `beyond`'s to read: "world models, not reward models" stays whole
    worlds = Filters(topic="world models", excluded=("reward models",))
    reward = dataclasses.replace(demo_papers[0], title="Reward shaping for world models", abstract="We shape rewards.")
    assert await without_excluded(core, worlds, [reward]) == [reward]


async def test_an_exclusion_naming_an_activity_of_the_topics_head_is_read_whole(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "LLM papers other than language modeling" left out a paper on LLMs' language neurons: LLM spells out as large
    # language model, and "modeling" was read as its head "model", so "language" alone told the excluded papers; an
    # activity ("modeling") is no kind of the thing ("model"), and the exclusion is needed whole
    texts = [
        ("Language neurons in multilingual LLMs", "We find neurons specific to one language in LLMs of many tongues."),
        ("Better language modeling with LLMs", "We improve language modeling of large language models (LLMs)."),
    ]
    papers = [dataclasses.replace(p, title=t, abstract=a) for p, (t, a) in zip(demo_papers, texts, strict=False)]
    await store_papers(core, [*papers, *demo_papers[2:60]])
    filters = Filters(topic="LLM", excluded=("language modeling",))
    with corpus_terms([("large language model", "LLM")]):
        kept = await without_excluded(core, filters, papers)
    assert [p.title for p in kept] == ["Language neurons in multilingual LLMs"]
