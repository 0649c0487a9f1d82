"""Questions and searches: /ask (and a plain message taken as a question) and /search."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.chat.messages import AnswerReply, Choice, Reply, TextReply
from bot.chat.paging import Page, give, last_page, page_of
from bot.chat.turns import Turn, has_words, member_profile, save_numbering, text_reply, today
from bot.days import stored_days_note
from bot.text.tldr import shown_tldrs
from bot.views.model import LIST_MARK, list_button, paper_view, usage_line

if TYPE_CHECKING:
    from bot.models import Paper, Profile
    from bot.questions.listing import DayOrder

MAX_QUESTION_CHARS = 2000  # a question longer than this is a paste, not a question
MAX_LIST = 10  # papers in a search or "more like this" list


async def ask(turn: Turn) -> list[Reply]:
    """/ask QUESTION, and a plain message that is a question: the question checked, then answered."""
    question = turn.args.strip()
    if not question:
        return text_reply("Ask something after /ask, e.g. /ask what MoE papers this week?", ephemeral=True)
    if len(question) > MAX_QUESTION_CHARS:
        return text_reply(
            f"That question is {len(question):,} characters; questions are limited to {MAX_QUESTION_CHARS:,}.",
            ephemeral=True,
        )
    if not has_words(question):
        return text_reply("I need words to search for, e.g. 'what MoE papers this week?'", ephemeral=True)
    wait = cooldown_left(turn)
    if wait == math.inf:
        return text_reply("One question at a time: your last question is still being answered.", ephemeral=True)
    if wait > 0:
        return text_reply(f"One question at a time: ask again in {math.ceil(wait)} s.", ephemeral=True)
    try:
        return [await answer(turn, question)]
    finally:
        answered(turn)


def cooldown_left(turn: Turn) -> float:
    """Seconds before the speaker may ask again in this place (0: now, and the question is marked as being
    answered; inf: their previous question still is).

    Each answer may cost an LLM call and a search over every stored paper, so one member cannot queue them back to
    back: a question is refused while their previous one is being answered and for the pause after that answer was
    sent (counted from the answer, so a slow answer does not eat the member's time to read it and follow up). The
    pause is per member and place, so a question in a DM does not hold up one in a group."""
    pause = turn.core.settings.ask_cooldown_seconds
    if pause <= 0:
        return 0.0
    key = turn.place.key + "|" + turn.user
    now = time.monotonic()
    marks = turn.core.last_questions
    left = marks.get(key, -math.inf) + pause - now
    if left > 0:
        return left
    for old in [k for k, at in marks.items() if at + pause <= now]:  # forget what no longer holds anyone up
        del marks[old]
    marks[key] = math.inf  # being answered
    return 0.0


def answered(turn: Turn) -> None:
    """Note that the speaker's answer here is out: their pause runs from now (see `cooldown_left`)."""
    if turn.core.settings.ask_cooldown_seconds > 0:
        turn.core.last_questions[turn.place.key + "|" + turn.user] = time.monotonic()


async def answer(turn: Turn, question: str) -> AnswerReply:
    """Answer a question from stored papers in the speaker's context (a reply continues the replied answer's)."""
    from bot.questions.rag import ask as answer_question

    core, user = turn.core, turn.user
    context = conversation_of(turn)
    if turn.msg.replied is not None:  # looked up by the controller
        context = turn.msg.replied.context or context
    profile = await member_profile(core, user)
    answered = await answer_question(
        core,
        question,
        today=await today(core),
        conversation_id=context,
        profile=profile,
        asker=user,
        day_order=await day_order(turn, profile),
    )
    text = answered.text
    if not answered.citations:
        text += "\n" + await stored_days_note(core)
    views = tuple(paper_view(p, number=n) for n, p in enumerate(answered.citations, 1))
    await save_numbering(core, user, list(views))
    # the answer's list is the asker's own, even when the question continues another member's conversation
    token = await give(
        core, conversation_of(turn), user, answered.more, answered.by_meaning, cut=False if answered.complete else None
    )
    return AnswerReply(
        text,
        views,
        answered.window,
        context_id=context,
        usage_line=usage_line(answered.usage),
        choices=next_button(token, 0, len(answered.more)),
    )


async def day_order(turn: Turn, profile: Profile | None) -> DayOrder | None:
    """How a question asking for a day's papers ("summarize Monday") ranks them for this speaker here: as the
    place's channel digest ranks them where it has one, else as the member's own digest does (their thumbs
    included), else None (the store's order). The digest's own ranking (`ranked_candidates`), not a second one."""
    from bot.digests.standing import ranked_candidates
    from bot.questions.listing import DayOrder

    core, user = turn.core, turn.user
    found = await core.repo.target_at(turn.place.platform, turn.place.chat_id)
    if found is not None and not found[0].member:  # a channel's digest, not a member's own posted to their DM
        target, channel = found

        async def as_channel(papers: Sequence[Paper]) -> list[Paper]:
            return [item.paper for item in await ranked_candidates(core, channel, papers)]

        return DayOrder("this channel's digest", target.categories, as_channel)
    if profile is None:
        return None
    mine = profile

    async def as_member(papers: Sequence[Paper]) -> list[Paper]:
        return [item.paper for item in await ranked_candidates(core, mine, papers, user)]

    return DayOrder("your digest", tuple(profile.categories), as_member)


async def search(turn: Turn) -> list[Reply]:
    """/search WORDS: the stored papers matching the words, numbered, the first page; /more lists the rest."""
    from bot.questions.filters import Filters
    from bot.questions.rag import remember_list
    from bot.questions.retrieval import as_told
    from bot.questions.search import search_note, search_papers

    core, words = turn.core, turn.args.strip()
    if not has_words(words) or len(words) > MAX_QUESTION_CHARS:
        return text_reply("Search for some words, e.g. /search sparse attention", ephemeral=True)
    until = await today(core)
    found = await search_papers(core, words, until=until, limit=MAX_LIST, cut=True)
    note = await search_note(core, found)
    note = f"{note}\n" if note else ""
    # the search is the speaker's last list, even an empty one: /more pages through the rest, "which of those ..."
    # reads it, and neither reaches back to the list before it
    meaning = {h.paper.id for h in (*found.hits, *found.more) if not h.by_words}
    await remember_list(
        core,
        conversation_of(turn),
        turn.user,
        Filters(topic=found.query, authors=found.authors),
        [h.paper for h in found.hits],
        [h.paper for h in found.more],
        meaning,
    )
    token = await give(core, conversation_of(turn), turn.user, [h.paper for h in found.more], meaning)
    if not found.hits and found.more:
        # none made the first page (an author's papers on none of the words asked for): /more lists the rest
        said = f"{note}{found.counted(words[:80])}, none closely enough to list first: /more lists them."
        return [TextReply(said, choices=next_button(token, 0, len(found.more)))]
    if not found.hits:
        return text_reply(f"{note}No stored paper matches '{words[:80]}'. {await stored_days_note(core)}")
    tldrs = await shown_tldrs(core, [h.paper for h in found.hits])
    cards = tuple(paper_view(h.paper, tldr=tldrs[h.paper.id], number=n) for n, h in enumerate(found.hits, 1))
    await save_numbering(core, turn.user, cards)
    best = f", the best {len(cards)} first" if found.more else ""
    # the first line already counts both kinds; naming them again for the rest read as the same count said twice
    offer = f"/more lists {as_told(len(found.more), 0, found.cut)[0]} more." if found.more else ""
    text = f"{note}{found.counted(words[:80])}{best}:"
    # the offer ends the list, after its cards, as an answer's and a later page's do
    return [TextReply(text, cards=cards, choices=next_button(token, 0, len(found.more)), after=offer)]


def next_button(token: str, start: int, left: int) -> tuple[Choice, ...]:
    """The button that lists the page of list `token` from `start`, as /more does (none when nothing is left). Its
    value is /more's paper button naming the list and the page: it works on any platform, for any member who
    presses it, and after a restart while the list is kept (`bot.chat.paging`)."""
    if not (left and token):
        return ()
    return (Choice(f"Next {min(left, MAX_LIST)} →", list_button(token, start)),)


def conversation_of(turn: Turn) -> str:
    """The key of the speaker's own conversation in this place (their questions' follow-ups, their last list)."""
    return turn.place.key + "|" + turn.user if not turn.place.is_dm else turn.user


async def rest(turn: Turn) -> list[Reply]:
    """/more without a paper: the next page of the list the speaker was last given here (an answer or a search)."""
    found = await last_page(turn.core, conversation_of(turn), turn.user, MAX_LIST)
    if found is None:
        return text_reply("Nothing more to show: /more N lists papers like number N of a list.", ephemeral=True)
    return await shown_page(turn, found)


async def pressed_next(turn: Turn) -> list[Reply]:
    """A "Next N" button ('@TOKEN:START'): that page of the list it names, for whoever pressed it."""
    token, _, start = turn.args.removeprefix(LIST_MARK).partition(":")
    found = None
    if start.isdigit():
        found = await page_of(turn.core, conversation_of(turn), turn.user, token, int(start), MAX_LIST)
    if found is None:
        minutes = turn.core.settings.followup_minutes
        return text_reply(
            f"That list is no longer kept (lists last {minutes} minutes): ask or search again.", ephemeral=True
        )
    return await shown_page(turn, found)


async def shown_page(turn: Turn, page: Page) -> list[Reply]:
    """A page of a list: what it holds (matching papers, then those only close in meaning), its cards numbered for
    /paper N, and the offer of what is left."""
    from bot.questions.rag import more_offer

    tldrs = await shown_tldrs(turn.core, page.papers)
    cards = tuple(paper_view(p, tldr=tldrs[p.id], number=n) for n, p in enumerate(page.papers, 1))
    await save_numbering(turn.core, turn.user, cards)
    meaning = sum(1 for p in page.papers if p.id in page.meaning)
    words = len(cards) - meaning
    if not meaning:
        head = f"{words} more matching {'paper' if words == 1 else 'papers'}:"
    elif not words:
        head = f"{meaning} more {'paper' if meaning == 1 else 'papers'}, close in meaning:"
    else:
        head = f"{len(cards)} more papers: {words} matching, then {meaning} close in meaning:"
    tail = more_offer(page.left - page.left_meaning, page.left_meaning, cut=page.cut) if page.left else ""
    choices = next_button(page.token, page.next_start, page.left)
    return [TextReply(head, cards=cards, choices=choices, after=tail)]
