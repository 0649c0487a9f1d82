"""The core's chat layout (`bot.views.layout`): which fields a paper shows, and the one packer that splits a reply
into messages under a platform's limits without cutting an escape or a paper in two."""

from __future__ import annotations

import datetime as dt
import html
import logging
import re

import pytest

from bot.chat import AnswerReply, Choice, DigestReply, FileReply, TextReply, layout
from bot.models import Digest, DigestSection, Paper, ScoredPaper
from bot.views.layout import (
    Block,
    Span,
    Style,
    button,
    digest_blocks,
    pack,
    paper_block,
    split_block,
    text_block,
)
from bot.views.model import digest_view, paper_view

DAY = dt.date(2025, 5, 26)


class Html(Style):
    """A small HTML style: what a platform with entities does (an escape that a cut could break in two)."""

    message_limit = 500
    papers_per_message = 3

    def escape(self, text: str) -> str:
        return html.escape(text, quote=False)

    def bold(self, markup: str) -> str:
        return f"<b>{markup}</b>"

    def italic(self, markup: str) -> str:
        return f"<i>{markup}</i>"

    def link(self, markup: str, url: str) -> str:
        return f'<a href="{html.escape(url)}">{markup}</a>'


class Utf16(Style):
    """A style that counts as Telegram does: UTF-16 code units."""

    message_limit = 4000

    def size(self, markup: str) -> int:
        return len(markup.encode("utf-16-le")) // 2


def visible(markup: str) -> str:
    """What a reader of `Html` sees: tags gone, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def scored(n: int) -> ScoredPaper:
    paper = Paper(
        id=f"2505.{17000 + n:05d}",
        title=f"Paper <{n}> & friends",
        authors=("Ada <Lovelace>", "Alan & Co"),
        abstract="abstract",
        categories=("cs.LG",),
        announced=DAY,
    )
    return ScoredPaper(paper, 1.0 - n / 100, 7.0, 5.0, reasons=(f"topic {n}",), tldr=f"We show <x{n}> & y.")


def digest(count: int, **extra: object) -> Digest:
    return Digest(
        day=DAY,
        profile_name="Lab",
        scanned=444,
        items=tuple(scored(n) for n in range(count)),
        **extra,  # type: ignore[arg-type]
    )


def test_a_paper_shows_its_fields_in_order_with_numbered_buttons() -> None:
    item = digest_view(digest(2)).items[1]
    block = paper_block(item)
    lines = Style().lines(block)
    assert lines[0] == "2. Paper <1> & friends (https://arxiv.org/abs/2505.17001)"
    assert lines[1] == "Ada <Lovelace>, Alan & Co · cs.LG · 2025-05-26"
    assert lines[2] == "TL;DR We show <x1> & y."
    assert lines[3].startswith("#2 of 444 papers on 2025-05-26") and lines[-1] == "Why: topic 1"
    assert [(b.label, b.value) for b in block.buttons] == [
        ("2 👍", "ps:up:2505.17001"),
        ("2 👎", "ps:down:2505.17001"),
        ("2 More like this", "ps:more:2505.17001"),
    ]
    styled = Html().block(block)
    assert styled.startswith('<b>2. <a href="https://arxiv.org/abs/2505.17001">Paper &lt;1&gt; &amp; friends</a></b>\n')
    assert "<i>TL;DR</i> We show &lt;x1&gt; &amp; y." in styled  # the space stays outside the emphasis


def test_digest_pages_keep_the_limits_and_every_paper_once_in_order() -> None:
    view = digest_view(digest(20, notes=("A note & more",)))
    style = Html()
    pages = pack(digest_blocks(view), style)
    assert len(pages) > 20 // style.papers_per_message
    papers = []
    for page in pages:
        assert style.size(style.page(page)) <= style.message_limit
        assert sum(b.papers for b in page.blocks) <= style.papers_per_message
        papers += [b for b in page.blocks if b.kind == "paper"]
    assert [b.buttons[0].value for b in papers] == [f"ps:up:{i.id}" for i in view.items]
    assert visible(style.page(pages[0])).startswith("Lab: arXiv digest for 2025-05-26\nScanned 444 papers, picked 20.")
    assert pages[-1].blocks[-1].kind == "note" and visible(style.page(pages[-1])).endswith("\nA note & more")


def test_a_single_over_long_entry_is_cut_between_its_lines_title_first_buttons_last() -> None:
    paper = scored(1).paper
    card = paper_view(paper, tldr="long " * 120, number=3, details=False)
    block = paper_block(card)

    class Small(Html):
        message_limit = 300

    style = Small()
    assert style.measure(block) > style.message_limit
    pieces = split_block(block, style)
    assert len(pieces) > 1
    assert all(style.measure(p) <= style.message_limit for p in pieces)
    assert pieces[0].title == block.title and not any(p.title for p in pieces[1:])
    assert pieces[-1].buttons == block.buttons and not any(p.buttons for p in pieces[:-1])
    assert sum(p.papers for p in pieces) == 1
    shown = " ".join(visible(style.block(p)) for p in pieces)
    whole = visible(style.block(block))
    assert "TL;DR" in shown and shown.count("long") == whole.count("long") > 40
    pages = pack([block], style)
    assert 1 < len(pages) <= len(pieces) and all(style.size(style.page(p)) <= style.message_limit for p in pages)


def test_a_split_never_cuts_an_escape() -> None:
    style = Html()
    text = "&<>" * 400 + " tail & end"  # escapes to 5 characters a character, no space to cut at for 1,200 of them
    pages = pack(text_block(text), style)
    assert len(pages) > 1
    for page in pages:
        markup = style.page(page)
        assert style.size(markup) <= style.message_limit
        assert re.fullmatch(r"(?:&amp;|&lt;|&gt;|[^&<>])*", markup), "an entity cut in two"
    assert "".join(visible(style.page(p)) for p in pages) == text


def test_text_is_cut_at_paragraphs_then_lines_then_words_counting_as_the_platform_does() -> None:
    style = Utf16()
    paragraphs = ["word " * 300, "line\n" * 900, "x" * 5000]
    pages = pack(text_block("\n\n".join(paragraphs)), style)
    shown = [style.page(p) for p in pages]
    assert all(style.size(s) <= style.message_limit for s in shown)
    assert "".join(shown).replace("\n", "").replace(" ", "") == "".join(paragraphs).replace("\n", "").replace(" ", "")
    assert shown[0].strip() == paragraphs[0].strip(), "the first paragraph whole, not filled up with lines"
    emoji = [style.page(p) for p in pack(text_block("🎉" * 3000), style)]
    assert emoji == ["🎉" * 2000, "🎉" * 1000]


def test_a_long_topic_repeats_its_heading_and_topics_carry_no_buttons() -> None:
    view = digest_view(digest(30, sections=(DigestSection("Sparse <models>", 1, 30),)))
    style = Html()
    pages = pack(digest_blocks(view), style)
    topics = [b for page in pages for b in page.blocks if b.kind == "topic"]
    assert len(topics) > 1 and not any(b.buttons for b in topics)
    assert visible(Html().line(topics[0].title)) == "■ Sparse <models>"
    assert all(visible(Html().line(t.title)) == "■ Sparse <models> (continued)" for t in topics[1:])
    lines = [visible(Html().line(line)) for t in topics for line in t.lines]
    assert lines[0] == "1. Paper <0> & friends — We show <x0> & y." and len(lines) == 30


def test_row_and_block_limits_start_a_new_message() -> None:
    class Slots(Style):
        blocks_per_message = 4
        rows_are_blocks = True

    class Rows(Style):
        rows_per_message = 5
        buttons_per_row = 2

    blocks = digest_blocks(digest_view(digest(6)))
    slotted = pack(blocks, Slots())  # a header, then papers: a section and a row of buttons each
    assert [len(p.blocks) for p in slotted] == [2, 2, 2, 1]
    rowed = pack(blocks, Rows())  # a paper's three buttons are two rows of two
    assert [sum(b.papers for b in p.blocks) for p in rowed] == [2, 2, 2]


def test_buttons_past_64_bytes_or_not_ours_are_dropped_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert button("ok", "ps:c:step:1") is not None
        assert button("long", "ps:more:" + "9" * 60) is None
        assert button("foreign", "javascript:x") is None
    assert caplog.text.count("dropping a button") == 2
    reply = TextReply("Pick", choices=(Choice("short", "ps:c:s:1"), Choice("x", "bad"), Choice("y", "ps:c:s:2")))
    (choices,) = [b for b in layout(reply) if b.kind == "choices"]
    assert [b.value for b in choices.buttons] == ["ps:c:s:1", "ps:c:s:2"]

    class Telegramish(Style):
        choices_per_row = 2
        wide_label = 18

    assert [len(row) for row in Telegramish().rows(choices)] == [2]
    wide = Block("choices", buttons=(*choices.buttons, button("a label longer than eighteen", "ps:c:s:3")))
    assert [len(row) for row in Telegramish().rows(wide)] == [1, 1, 1]
    (page,) = pack(layout(reply), Telegramish())
    assert Telegramish().page(page) == "Pick", "the choices add no text, not even a separator"


def test_every_reply_has_one_layout() -> None:
    view = digest_view(digest(1))
    assert layout(DigestReply(view)) == digest_blocks(view)
    papers = tuple(paper_view(scored(n).paper) for n in (1, 2))
    written = layout(AnswerReply("Routers [1] and [2].", papers, (DAY, DAY), usage_line="LLM: 5 tokens"))
    assert [b.kind for b in written] == ["text", "sources", "note"]
    assert Style().lines(written[1])[0] == "[1] Paper <1> & friends (https://arxiv.org/abs/2505.17001) (2025-05-26)"
    listing = "\n".join(f"[{n}] {p.title}" for n, p in enumerate(papers, 1))
    (_, sources, note) = layout(AnswerReply(listing, papers, (DAY, DAY)))
    assert Style().lines(sources) == [f"[{n}] arXiv:{p.id} ({p.url})" for n, p in enumerate(papers, 1)]
    assert Style().lines(note) == ["Papers from 2025-05-26 to 2025-05-26"], "the answer's days, on every platform"
    followed = layout(AnswerReply("Routers [1].", papers[:1], (DAY, DAY), context_id="telegram:-5"))
    assert Style().lines(followed[-1])[-1] == "Reply to this message to ask a follow-up."
    assert [b.kind for b in layout(FileReply("a.csv", b"", "text/csv", caption="Your export"))] == ["text"]
    assert layout(TextReply("")) == [] and pack([], Style()) == []


def test_an_empty_span_is_never_markup() -> None:
    assert Html().line((Span("", "bold"), Span("x"), Span(" ", "italic"), Span("", url="https://a.org"))) == "x "


def test_fit_cuts_a_line_before_styling_so_no_escape_is_cut() -> None:
    style = Html()
    title = (Span("12. ", "bold"), Span("&" * 100, "bold", "https://arxiv.org/abs/2505.17001"))
    fitted = style.fit(title, 120)
    assert len(fitted) <= 120 and visible(fitted).endswith("&…") and visible(fitted).startswith("12. &&")
    assert re.fullmatch(r'<b>12\. <a href="[^"]+">(?:&amp;)+…</a></b>', fitted)
    assert style.fit((Span("short"),), 120) == "short"


def test_a_message_never_repeats_a_button() -> None:
    item = paper_view(scored(1).paper, number=1)
    pages = pack([paper_block(item), paper_block(item), paper_block(paper_view(scored(2).paper))], Style())
    assert [len(page.blocks) for page in pages] == [1, 2]
    assert all(len({b.value for b in p.buttons}) == len(p.buttons) for p in pages)
