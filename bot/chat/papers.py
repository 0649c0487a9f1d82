"""One paper at a time: /paper (its card), /up and /down (feedback that teaches the profile, `bot.chat.reactions`),
/more (papers like it) and /why (its rank explained). Each names a paper by its number in the last list or by its
arXiv id."""

from __future__ import annotations

from bot.chat.messages import DigestReply, DigestView, Reply, TextReply
from bot.chat.questions import MAX_LIST
from bot.chat.reactions import react, undo_button, why_line
from bot.chat.turns import Turn, member_profile, numbered_ids, paper_from_arg, save_numbering, text_reply
from bot.text.tldr import shown_tldrs
from bot.views.cards import explain_paper, paper_card
from bot.views.model import LIST_MARK, paper_view


async def paper(turn: Turn) -> list[Reply]:
    """/paper N|ID: one paper's card. A paper of the last list keeps its number there and the list stays the one
    numbers name (after "/paper 3", "/up 4" is still the list's fourth paper); any other paper becomes a list of one."""
    found = await paper_from_arg(turn.core, turn.user, turn.args)
    listed = await numbered_ids(turn.core, turn.user)
    if found.id in listed:
        return [TextReply("", cards=(await paper_card(turn.core, found, number=listed.index(found.id) + 1),))]
    card = await paper_card(turn.core, found, number=1)
    await save_numbering(turn.core, turn.user, [card])
    return [TextReply("", cards=(card,))]


async def up(turn: Turn) -> list[Reply]:
    """/up N|ID: thumbs up, and what it changed."""
    return await react(turn, 1)


async def down(turn: Turn) -> list[Reply]:
    """/down N|ID: thumbs down, and what it changed."""
    return await react(turn, -1)


async def more(turn: Turn) -> list[Reply]:
    """/more N|ID: the stored papers nearest to one, ordered with the speaker's profile when they have one."""
    from bot.chat.questions import pressed_next, rest
    from bot.ranking.similar import similar_papers

    if not turn.args.strip():
        return await rest(turn)  # the rest of the last answer's matching papers
    if turn.args.startswith(LIST_MARK):
        return await pressed_next(turn)  # a "Next N" button: that page of the list it names
    core = turn.core
    found = await paper_from_arg(core, turn.user, turn.args)
    profile = await member_profile(core, turn.user)
    nearest = await similar_papers(core, found, user_key=turn.user if profile else "", profile=profile, limit=MAX_LIST)
    if not nearest:
        return text_reply(f"I found nothing stored like {found.title}.", ephemeral=True)
    tldrs = await shown_tldrs(core, [s.paper for s in nearest])
    items = tuple(paper_view(s.paper, tldr=tldrs[s.paper.id], number=n) for n, s in enumerate(nearest, 1))
    shaped = " (ordered with your profile)" if profile else ""
    view = DigestView(
        title=f"More like: {found.title}",
        day=found.announced,
        scanned=len(nearest),
        items=items,
        subtitle=f"The {len(items)} stored papers nearest to {found.id}{shaped}.",
    )
    await save_numbering(core, turn.user, items)
    return [DigestReply(view)]


async def why(turn: Turn) -> list[Reply]:
    """/why N|ID: a paper's rank explained for the speaker's profile (in a channel without one, the channel's)."""
    core = turn.core
    found = await paper_from_arg(core, turn.user, turn.args)
    own = profile = await member_profile(core, turn.user)
    user_key, categories = (turn.user, None) if own is not None else ("", None)
    if profile is None:  # a place with a digest of its own (a channel, the console's terminal) explains by it
        target = await core.repo.target_at(turn.place.platform, turn.place.chat_id)
        profile, categories = (target[1], target[0].categories) if target else (None, None)
    if profile is None:
        return text_reply("/why explains a paper's rank for your profile; /start makes one.", ephemeral=True)
    # the standing its digest showed: the member's digest ranks with their feedback, a channel's in its categories
    explained = await explain_paper(core, found.id, profile, user_key=user_key, categories=categories)
    # a member's reactions shape their own ranking only, never the channel's
    learned = await why_line(core, turn.user, found) if own is not None else ""
    return text_reply(explained + (f"\n{learned}" if learned else ""), ephemeral=True)


PAPER_BUTTONS = {"up": up, "down": down, "more": more, "why": why, "undo": undo_button}  # what each button does
