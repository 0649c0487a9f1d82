"""Answers and searches that page honestly (issue 22): the papers carrying the words counted apart from those only
close in meaning, each /more page saying what it holds, and /more and "Next" finding the list the member was given
(or the one whose button they pressed), whatever conversation the question continued."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bot.chat import AnswerReply, ChatController, Incoming, Place, Speaker, TextReply
from bot.core import Core
from bot.frontends.console import render_reply
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.questions.search import search_papers

MONDAY = dt.date(2025, 5, 26)
CODE_REVIEW, PSEUDO_CODE = "2505.17928", "2505.18011"  # says "code generation" / only close in meaning to it
BOB, ANN = Speaker("telegram:7", "Bob"), Speaker("telegram:8", "Ann")
CHANNEL = Place("telegram", "-55", is_dm=False)


@pytest.fixture
async def code_day(core: Core, demo_papers: list[Paper]) -> list[Paper]:
    papers = [p for p in demo_papers if p.id in (CODE_REVIEW, PSEUDO_CODE)] + demo_papers[:120]
    await store_papers(core, papers)
    return papers


def head(reply: TextReply | AnswerReply) -> str:
    return reply.text.splitlines()[0]


async def test_a_search_counts_papers_close_in_meaning_apart_and_each_page_says_what_it_holds(
    core: Core, code_day: list[Paper]
) -> None:
    found = await search_papers(core, "code generation", until=MONDAY)
    meaning = {h.paper.id for h in (*found.hits, *found.more) if not h.by_words}
    words = found.total - len(meaning)
    assert PSEUDO_CODE in meaning and words >= 1, "the day has both kinds"
    ctl = ChatController(core)
    (reply,) = await ctl.handle(Incoming.from_text(BOB, CHANNEL, "/search code generation"))
    assert isinstance(reply, TextReply)
    noun = "paper matches" if words == 1 else "papers match"
    assert head(reply).startswith(f"{words} stored {noun} 'code generation'; {len(meaning)} more are close in meaning")
    listed = [card.id for card in reply.cards]
    rest = found.total - len(listed)
    assert reply.text.count("close in meaning") == 1, "the first line counts both kinds, the offer does not again"
    # the offer ends the list, after the cards (it was drawn above them, right under the first line)
    assert f"/more lists {rest} more." in reply.after and "/more" not in reply.text
    first = True
    while reply.choices:
        left = [h.paper.id for h in (*found.hits, *found.more)][len(listed) :]
        left_meaning = sum(1 for i in left if i in meaning)
        assert "by their words" not in reply.text
        if left_meaning == len(left) and not first:  # the rest is only close in meaning: the offer says so
            assert f"{len(left)} more papers are close in meaning: /more lists them." in reply.after
        first = False
        (reply,) = await ctl.handle(Incoming.from_text(BOB, CHANNEL, "/more"))
        assert isinstance(reply, TextReply) and reply.cards
        page = [card.id for card in reply.cards]
        if all(i in meaning for i in page):  # a page of meaning-matches says so, and not that they match
            assert head(reply) == f"{len(page)} more {'paper' if len(page) == 1 else 'papers'}, close in meaning:"
        elif not any(i in meaning for i in page):
            assert "close in meaning" not in head(reply)
        listed += page
    assert listed == [h.paper.id for h in (*found.hits, *found.more)]  # the counts are what was listed
    assert sum(1 for i in listed if i not in meaning) == words


async def test_an_answer_counts_papers_close_in_meaning_apart(core: Core, code_day: list[Paper]) -> None:
    ctl = ChatController(core)
    (answer,) = await ctl.handle(Incoming.from_text(BOB, CHANNEL, "/ask code generation papers today?"))
    assert isinstance(answer, AnswerReply) and [v.id for v in answer.citations] == [CODE_REVIEW]
    counted = re.match(
        r"(\d+) papers? about code generation announced on 2025-05-26, and (\d+) more close in meaning", answer.text
    )
    assert counted is not None, answer.text
    words, closer = int(counted.group(1)), int(counted.group(2))
    offer = f"{words - 1} more papers match and {closer} more are close in meaning: /more lists them."
    assert offer in answer.text if words > 2 else "close in meaning: /more lists them." in answer.text
    listed: list[str] = []
    while True:
        (page,) = await ctl.handle(Incoming.from_text(BOB, CHANNEL, "/more"))
        if not page.cards:
            break
        listed += [card.id for card in page.cards]
        if len(listed) <= words - 1:
            assert "close in meaning" not in head(page)
        elif len(listed) - len(page.cards) >= words - 1:  # a page of meaning-matches alone
            assert (
                head(page)
                == f"{len(page.cards)} more {'paper' if len(page.cards) == 1 else 'papers'}, close in meaning:"
            )
    assert PSEUDO_CODE in listed and len(listed) == words - 1 + closer


async def test_more_and_next_find_the_list_the_member_was_given_whatever_conversation_it_continued(
    core: Core, demo_papers: list[Paper]
) -> None:
    await store_papers(core, demo_papers[:120])
    ctl = ChatController(core)
    (bobs,) = await ctl.handle(Incoming.from_text(BOB, CHANNEL, "/ask papers on language models"))
    assert isinstance(bobs, AnswerReply) and bobs.choices
    await ctl.remember_message(CHANNEL, "m1", bobs)
    # Ann asks as a reply to Bob's answer: her question continues his conversation, but her list is hers
    (anns,) = await ctl.handle(Incoming.from_text(ANN, CHANNEL, "/ask papers on reinforcement learning", reply_to="m1"))
    assert isinstance(anns, AnswerReply) and anns.choices, anns.text
    (her_page,) = await ctl.handle(Incoming.from_text(ANN, CHANNEL, "/more"))
    assert her_page.cards, her_page.text
    assert not {c.id for c in her_page.cards} & {v.id for v in anns.citations}
    # Ann presses Next on Bob's answer: the page after his answer, twice the same; Bob's own /more is untouched
    (next_button,) = bobs.choices
    (pressed,) = await ctl.handle(Incoming(ANN, CHANNEL, button=next_button.value))
    (again,) = await ctl.handle(Incoming(ANN, CHANNEL, button=next_button.value))
    (his_page,) = await ctl.handle(Incoming.from_text(BOB, CHANNEL, "/more"))
    second = [c.id for c in his_page.cards]
    assert second and [c.id for c in pressed.cards] == [c.id for c in again.cards] == second
    # Bob's page's Next and Ann's /more (Bob's list is now the one she was last given) go on to the third page
    (third,) = (
        await ctl.handle(Incoming(BOB, CHANNEL, button=his_page.choices[0].value)) if his_page.choices else (None,)
    )
    (hers,) = await ctl.handle(Incoming.from_text(ANN, CHANNEL, "/more"))
    if third is not None:
        assert [c.id for c in hers.cards] == [c.id for c in third.cards] and not set(second) & {
            c.id for c in third.cards
        }


async def test_a_next_button_of_a_list_no_longer_kept_says_so(core: Core, demo_papers: list[Paper]) -> None:
    await store_papers(core, demo_papers[:120])
    ctl = ChatController(core)
    (gone,) = await ctl.handle(Incoming(BOB, CHANNEL, button="ps:more:@0123456789:10"))
    assert gone.ephemeral and "no longer kept" in gone.text
    (old,) = await ctl.handle(Incoming(BOB, CHANNEL, button="ps:more:"))  # a button sent before lists had names
    assert "Nothing more" in old.text


async def test_a_days_papers_page_with_exact_counts_however_many(core: Core, code_day: list[Paper]) -> None:
    """A day's papers asked for without a topic are all kept for /more: more than an answer's longest offer, and
    each page counts what is left exactly (no "at least", which a list cut at its longest says)."""
    ctl = ChatController(core)
    (answer,) = await ctl.handle(Incoming(BOB, CHANNEL, command="ask", args="what came out today?"))
    assert isinstance(answer, AnswerReply) and f"{len(code_day)} papers were announced" in head(answer)
    left = len(code_day) - len(answer.citations)
    assert left > 100 and f"{left} more papers match" in answer.text
    (page,) = await ctl.handle(Incoming(BOB, CHANNEL, command="more"))
    assert isinstance(page, TextReply) and len(page.cards) == 10
    assert f"{left - 10} more papers match" in page.after and "at least" not in page.after
    shown = render_reply(page)  # the offer ends the list it belongs to, under its last paper
    assert shown.index(page.after) > shown.index(page.cards[-1].title[:30]) and shown.endswith(page.after)
