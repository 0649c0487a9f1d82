"""Telegram HTML rendering of digests and replies, checked with the fake Bot API's own HTML parser."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from bot.chat import AnswerReply, Choice, TextReply
from bot.digests.pacing import ChatPacer
from bot.frontends.telegram.render import HTML, render, render_digest, utf16_length
from bot.models import Digest, Paper, ScoredPaper
from bot.views.layout import Span
from bot.views.model import digest_view, paper_view
from tests.fakes.telegram_html import parse_html

DAY = dt.date(2025, 5, 26)
HOSTILE = [
    "<script>alert('x')</script> & friends",
    "Unbalanced <b>bold and <i>italic",
    "R&D at scale: &nbsp; &amp;amp; </b> closing first",
    'Quotes " and \' and <a href="javascript:alert(1)">links</a>',
    "🎉 emoji 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 titles " + "long " * 10,
    "Ping @alice_lab and @everyone",
]


def hostile_paper(n: int) -> ScoredPaper:
    title = HOSTILE[n % len(HOSTILE)] + f" #{n}"
    if n % 7 == 0:
        title = f"#{n} " + "A 2,000-character title <i>&amp; " * 64
        title = title[:2000]
    paper = Paper(
        id=f"2505.{17000 + n:05d}",
        title=title,
        authors=tuple(f"Author <{k}> & Co" for k in range(n % 9 + 1)),
        abstract="abstract",
        categories=("cs.LG", "cs.AI"),
        announced=DAY,
    )
    return ScoredPaper(
        paper,
        score=1.0 - n / 100,
        relevance=7,
        novelty=5,
        reasons=(f"matches <topic> & 'sparse' {n}",) * 3,
        author_hits=("Ada <Lovelace>",) if n % 5 == 0 else (),
        tldr="We show that <x> & <y> " * (40 if n % 11 == 0 else 3),
    )


def hostile_digest(count: int = 60) -> Digest:
    return Digest(
        day=DAY,
        profile_name="Lab <b>& co",
        scanned=444,
        items=tuple(hostile_paper(n) for n in range(count)),
        notes=("Note with <tags> & ampersands",),
    )


def test_a_digest_of_60_hostile_papers_splits_at_paper_boundaries_and_always_parses() -> None:
    view = digest_view(hostile_digest())
    messages = render_digest(view)
    assert len(messages) >= 60 // HTML.papers_per_message
    seen: list[str] = []
    for message in messages:
        text, entities = parse_html(message.html)  # raises on anything Telegram would refuse
        assert 0 < utf16_length(text) <= 4096 and utf16_length(message.plain) <= 4096
        links = [e["url"] for e in entities if e["type"] == "text_link"]
        assert all(url.startswith("https://arxiv.org/abs/2505.") for url in links)
        ids = [url.rsplit("/", 1)[1] for url in links]
        assert len(ids) <= HTML.papers_per_message
        # the keyboard has one row per paper of this message, with that paper's actions
        assert [[b.value for b in row] for row in message.keyboard] == [
            [f"ps:up:{i}", f"ps:down:{i}", f"ps:more:{i}"] for i in ids
        ]
        assert all(len(b.value.encode()) <= 64 for row in message.keyboard for b in row)
        seen += ids
    assert seen == [item.id for item in view.items], "every paper once, in order, never split"
    first_text, _ = parse_html(messages[0].html)
    assert first_text.startswith("Lab <b>& co: arXiv digest for 2025-05-26")
    assert "<script>alert('x')</script> & friends #6" in first_text
    assert parse_html(messages[-1].html)[0].endswith("Note with <tags> & ampersands")


def test_plain_fallback_says_what_the_html_shows() -> None:
    (message,) = render_digest(digest_view(hostile_digest(2)))
    shown, _ = parse_html(message.html)
    assert (
        message.plain.replace(" (https://arxiv.org/abs/2505.17000)", "").replace(
            " (https://arxiv.org/abs/2505.17001)", ""
        )
        == shown
    )


def test_long_text_is_split_at_paragraphs_then_lines_then_words_in_utf16_units() -> None:
    paragraphs = ["word " * 300, "line\n" * 900, "x" * 5000, "🎉" * 3000]
    messages = render(TextReply("\n\n".join(paragraphs)))
    assert all(utf16_length(m.plain) <= HTML.message_limit and parse_html(m.html) for m in messages)
    shown = "".join(m.plain for m in messages)
    assert shown.replace("\n", "").replace(" ", "") == "".join(paragraphs).replace("\n", "").replace(" ", "")
    assert messages[0].plain.strip() == paragraphs[0].strip()
    assert [m.plain for m in messages[-2:]] == ["🎉" * 2000, "🎉" * 1000]


def test_text_reply_with_cards_and_choices() -> None:
    card = paper_view(hostile_paper(1).paper, tldr="short <tldr>", actions=())
    reply = TextReply(
        "Rate this <paper> & tell me:",
        cards=(card,),
        choices=(Choice("👍 relevant", "ps:c:rate:1"), Choice("👎 not for me", "ps:c:rate:2"), Choice("x", "bad")),
    )
    (message,) = render(reply)
    text, _ = parse_html(message.html)
    assert text.startswith("Rate this <paper> & tell me:") and "short <tldr>" in text
    assert [[b.value for b in row] for row in message.keyboard] == [["ps:c:rate:1", "ps:c:rate:2"]]


def test_answer_lists_sources_as_links_without_repeating_listed_titles() -> None:
    papers = [paper_view(hostile_paper(n).paper) for n in (1, 2)]
    written = AnswerReply("Sparse attention <is> covered by [1] and [2].", tuple(papers), (DAY, DAY), usage_line="")
    (message,) = render(written)
    text, entities = parse_html(message.html)
    assert "[1] " + papers[0].title in text
    assert [e["url"] for e in entities if e["type"] == "text_link"] == [p.url for p in papers]
    listing = "\n".join(f"[{n}] {p.title}" for n, p in enumerate(papers, 1))
    (message,) = render(AnswerReply(listing, tuple(papers), (DAY, DAY)))
    text, _ = parse_html(message.html)
    assert text.count(papers[0].title) == 1 and "[1] arXiv:2505.17001" in text


def test_every_piece_is_escaped_and_mentions_defused() -> None:
    line = (Span("<b>", "bold"), Span(" & "), Span('a "quoted" <title>', url='https://x.org/?a=1&b="2"'))
    text, entities = parse_html(HTML.line(line))
    assert text == '<b> & a "quoted" <title>'
    assert entities[1]["url"] == 'https://x.org/?a=1&b="2"'
    assert HTML.escape("by @alice_lab, mail a@b.org") == "by @\u2060alice_lab, mail a@\u2060b.org"


async def test_pacer_spaces_one_chat_and_leaves_others_alone() -> None:
    pacer = ChatPacer(interval=0.15, group_per_minute=20)
    loop_time = __import__("time").monotonic
    times: dict[int, list[float]] = {1: [], 2: []}

    async def send(chat: int) -> None:
        async with pacer.turn(chat):
            times[chat].append(loop_time())

    import asyncio

    await asyncio.gather(*(send(1) for _ in range(3)), send(2))
    assert times[1][1] - times[1][0] >= 0.14 and times[1][2] - times[1][1] >= 0.14
    assert times[2][0] - times[1][0] < 0.1


@pytest.mark.parametrize(("chat", "expected"), [(-100, 60.0 - 30.0), (100, 0.0)])
def test_pacer_keeps_groups_to_their_minute(chat: int, expected: float) -> None:
    now = [1000.0]
    pacer = ChatPacer(interval=1.0, group_per_minute=3, clock=lambda: now[0], is_group=lambda chat: chat < 0)
    for step in (0.0, 10.0, 20.0):
        now[0] = 1000.0 + step
        pacer._note(chat)
    now[0] = 1030.0
    assert pacer.wait_seconds(chat) == pytest.approx(expected)


async def test_pacer_keeps_all_chats_together_under_the_overall_rate() -> None:
    import asyncio
    import time

    pacer = ChatPacer(interval=0.0, group_per_minute=20, overall_per_second=3)
    starts: list[float] = []

    async def send(chat: int) -> None:
        async with pacer.turn(chat):
            starts.append(time.monotonic())

    await asyncio.gather(*(send(chat) for chat in range(1, 7)))
    starts.sort()
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert min(gaps) >= 0.33, "evenly spaced at 3 per 1.05 s, never a burst"
