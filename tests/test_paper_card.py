"""/paper shows the abstract (bounded), the day, the arXiv comment and the categories; lists spanning several days
show each paper's day (issue 23)."""

from __future__ import annotations

import datetime as dt

from bot.chat import ChatController, Incoming, Place, Speaker, TextReply
from bot.chat.turns import numbered_ids, save_numbering
from bot.core import Core
from bot.frontends.telegram.render import HTML
from bot.models import Digest, Paper, ScoredPaper
from bot.views.cards import paper_card
from bot.views.layout import paper_block
from bot.views.model import ABSTRACT_CHARS, digest_view, paper_view
from bot.views.render import digest_markdown, digest_text, item_to_dict, paper_text

READER = Speaker("telegram:100", "Ada")
HERE = Place("telegram", "100", is_dm=True)
SENTENCE = "We propose a router for sparse experts that balances the load without auxiliary losses. "
PAPER = Paper(
    id="2505.17639",
    title="Routing with $\\alpha$-entmax",
    authors=("A. Author", "B. Author"),
    abstract=SENTENCE * 30,
    categories=("cs.LG", "cs.AI"),
    announced=dt.date(2025, 5, 28),
    comment="ICML 2025; code at \\url{https://example.org}",
)


async def test_a_papers_card_shows_its_abstract_day_comment_and_categories(core: Core) -> None:
    await core.repo.upsert_papers([PAPER])
    card = await paper_card(core, PAPER.id)
    assert card.title == "Routing with α-entmax"
    assert card.abstract.startswith(SENTENCE.strip()) and card.abstract.endswith(" […]")
    assert len(card.abstract) <= ABSTRACT_CHARS
    assert card.arxiv_comment == "ICML 2025; code at"
    shown = paper_text(card, indent="")
    assert "2025-05-28" in shown and "cs.LG, cs.AI" in shown
    assert "arXiv comment: ICML 2025" in shown and "Abstract: We propose a router" in shown
    assert item_to_dict(card)["abstract"] == card.abstract
    telegram = HTML.block(paper_block(card))
    assert "2025-05-28" in telegram and "Abstract" in telegram and "ICML 2025" in telegram


def test_a_list_over_several_days_shows_each_papers_day() -> None:
    other = Paper(
        id="2505.20001",
        title="Another paper",
        authors=("C. Author",),
        abstract="We study things.",
        categories=("cs.LG",),
        announced=dt.date(2025, 5, 30),
    )
    items = tuple(ScoredPaper(p, 0.5, 5.0, 5.0, tldr="We study things.") for p in (PAPER, other))
    weekly = Digest(dt.date(2025, 5, 30), "p", 10, items, start=dt.date(2025, 5, 24))
    for text in (digest_markdown(weekly), digest_text(weekly)):
        assert "2025-05-28" in text and "2025-05-30" in text.split("Another paper", 1)[1]
    view = digest_view(weekly)
    assert not view.items[0].abstract  # a list shows TL;DRs, not abstracts
    assert all(item.announced.isoformat() in HTML.block(paper_block(item)) for item in view.items)


def _listed(n: int) -> Paper:
    return Paper(
        id=f"2505.2000{n}",
        title=f"Listed paper {n}",
        authors=("C. Author",),
        abstract="We study things.",
        categories=("cs.LG",),
        announced=dt.date(2025, 5, 30),
    )


async def test_paper_n_keeps_the_list_that_numbers_name(core: Core) -> None:
    """After "/paper 2" of a digest, "/up 3" is still the digest's third paper, not a list of one's."""
    listed = [_listed(n) for n in (1, 2, 3)]
    await core.repo.upsert_papers([*listed, PAPER])
    await save_numbering(core, READER.user_key, [paper_view(p, tldr="", number=n) for n, p in enumerate(listed, 1)])
    ctl = ChatController(core)

    (card,) = await ctl.handle(Incoming.from_text(READER, HERE, "/paper 2"))
    assert isinstance(card, TextReply) and card.cards[0].number == 2 and card.cards[0].id == listed[1].id
    (reply,) = await ctl.handle(Incoming.from_text(READER, HERE, "/up 3"))
    assert isinstance(reply, TextReply) and "Listed paper 3" in reply.text
    # a paper of the list named by its id keeps its number too
    (card,) = await ctl.handle(Incoming.from_text(READER, HERE, f"/paper {listed[0].id}"))
    assert isinstance(card, TextReply) and card.cards[0].number == 1 and card.cards[0].id == listed[0].id
    assert await numbered_ids(core, READER.user_key) == [p.id for p in listed]
    # a paper outside it becomes the list of one that numbers name
    (card,) = await ctl.handle(Incoming.from_text(READER, HERE, f"/paper {PAPER.id}"))
    assert isinstance(card, TextReply) and card.cards[0].number == 1
    assert await numbered_ids(core, READER.user_key) == [PAPER.id]
    (refused,) = await ctl.handle(Incoming.from_text(READER, HERE, "/up 2"))
    assert isinstance(refused, TextReply) and "Use 1," in refused.text
