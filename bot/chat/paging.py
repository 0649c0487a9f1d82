"""The lists given to members and the pages after their first: /more and the "Next N" button.

Every answer or search is kept as a list of its own: the papers it did not show yet, in order, and which of them are
only close in meaning (so each page says what it holds), under a short token for as long as follow-ups last. It is
the last list of the member it was given to, in that place, whatever conversation the question itself continues (a
question asked as a reply to another member's answer is followed up in that answer's conversation, but its list is
the asker's): /more pages through it. A "Next N" button names its list and where its page starts, so whoever presses
it, however often, gets the page after the one it is on, and that list becomes the presser's last list there.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.models import Paper
from bot.store.repos.members import GIVEN_KEY, LIST_KEY


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a given list: its papers, which of them are only close in meaning, and what is left after it."""

    papers: list[Paper]
    meaning: frozenset[str]
    left: int
    left_meaning: int
    token: str
    next_start: int
    cut: bool = False  # the list was cut at its longest: more papers may match than it holds


def ttl(core: Core) -> dt.timedelta:
    """How long a given list is kept: as long as a follow-up can refer to it (0: not at all)."""
    return dt.timedelta(minutes=core.settings.followup_minutes)


async def give(
    core: Core,
    member: str,
    asker: str,
    more: Sequence[Paper],
    meaning: Collection[str] = frozenset(),
    *,
    cut: bool | None = None,
) -> str:
    """Keep `more` (the papers not shown, `meaning` the ids of those only close in meaning) as the last list of
    `member` (their key in a place) and return its token ('' when nothing is left or lists are not kept). A list
    with nothing left still replaces the member's last one, so /more never reaches back past it. `cut`: whether
    the list was cut at its longest (None: as an answer's is, when it is that long; False for a day's papers, all
    of them kept, so its pages count exactly)."""
    keep = ttl(core)
    if not keep:
        return ""
    token = secrets.token_hex(5) if more else ""
    if token:
        ids = [p.id for p in more]
        state: dict[str, object] = {"more": ids, "meaning": [i for i in ids if i in meaning]}
        if cut is not None:
            state["cut"] = cut
        await core.repo.save_conversation_state(LIST_KEY + token, json.dumps(state), asker, max_age=keep)
    await _point(core, member, asker, token, 0)
    return token


async def last_page(core: Core, member: str, asker: str, count: int) -> Page | None:
    """The next page of `member`'s last list (None when there is none or nothing is left), which it then moves past."""
    keep = ttl(core)
    stored = await core.repo.conversation_state(GIVEN_KEY + member, max_age=keep) if keep else None
    if not stored:
        return None
    pointer = json.loads(stored)
    return await page_of(core, member, asker, str(pointer.get("list", "")), int(pointer.get("start", 0)), count)


async def page_of(core: Core, member: str, asker: str, token: str, start: int, count: int) -> Page | None:
    """The page of list `token` starting at `start` (None when the list is gone or nothing is left there); the list
    becomes `member`'s last, its next page the one after this."""
    from bot.questions.retrieval import cut_at_most  # numpy and the ranking: loaded when a list is paged, not before

    keep = ttl(core)
    stored = await core.repo.conversation_state(LIST_KEY + token, max_age=keep) if keep and token else None
    if not stored:
        return None
    state = json.loads(stored)
    ids, meaning = list(state.get("more", [])), frozenset(state.get("meaning", []))
    start = max(0, start)
    page, rest = ids[start : start + count], ids[start + count :]
    if not page:
        return None
    found = {p.id: p for p in await core.repo.get_papers(page)}
    await _point(core, member, asker, token, start + len(page))
    left_meaning = sum(1 for i in rest if i in meaning)
    papers = [found[i] for i in page if i in found]
    cut = bool(state["cut"]) if "cut" in state else cut_at_most(len(ids))
    return Page(papers, meaning & set(page), len(rest), left_meaning, token, start + len(page), cut)


async def _point(core: Core, member: str, asker: str, token: str, start: int) -> None:
    state = json.dumps({"list": token, "start": start})
    await core.repo.save_conversation_state(GIVEN_KEY + member, state, asker, max_age=ttl(core))
