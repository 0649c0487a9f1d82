"""A member's reactions as they can see and change them: the list, undoing one or all, and what one changed.

What a reaction changed is measured on the learner itself (`bot.ranking.learn.learned_part`): the learned part of
the member's scores of the latest stored day's papers with the reaction and without it (or with its earlier
value), each relative to the day's median, as the ranking uses it. The reply names the paper that moved most in
the reaction's direction, and as topic words the units of the reacted paper's title (the topic vocabulary of
`bot.text.terms`: a named term whole and in any spelling, other words in any inflection) whose papers moved, on
average, further than a typical paper did (a unit in more than a tenth of the day's papers names no topic).
Below `learn.MIN_REACTIONS` the learner is not in use, and the reply says so.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace as dc_replace

import numpy as np

from bot.core import Core
from bot.errors import InputError
from bot.models import FeedbackRecord, InvalidPaperId, Paper, split_arxiv_id
from bot.ranking import learn
from bot.text.safetext import short_phrase
from bot.text.terms import RANKER, WORD, Part, Unit, UnitIndex, text_tokens

MAX_WORDS = 3  # topic words named in one reply
MAX_WORD_SHARE = 0.1  # a word in more of the day's papers than this names no topic
MIN_WORD_PAPERS = 2  # a word in fewer of the day's papers says nothing about how papers moved
MIN_MOVE = 1e-4  # cosine units: less than this is no movement at all
MAX_LISTED = 50  # reactions listed at once
MAX_TITLE = 200  # characters of a title named in full (arXiv titles are shorter); examples get 80


@dataclass(frozen=True, slots=True)
class ReactionEffect:
    """What one reaction (given, changed or undone) changed in what the learner adds to the member's scores."""

    paper: Paper
    value: int  # the reaction now: +1, -1, or 0 once undone
    previous: int  # the reaction before: +1, -1, or 0 for none
    stored: int  # the member's reactions now
    learning: bool  # the learner uses the member's reactions now (or did before this one)
    direction: int  # +1: papers like this one moved up, -1: down, 0: nothing moved
    words: tuple[str, ...] = ()  # topic words of the papers that moved most, as the paper's title writes them
    day: dt.date | None = None  # the day the movement was measured on
    examples: tuple[str, ...] = ()  # titles of that day's papers that moved most


def _normal_id(raw: str) -> str:
    try:
        return split_arxiv_id(raw)[0]
    except InvalidPaperId:
        return raw.strip()


async def reactions_of(core: Core, user_key: str) -> list[FeedbackRecord]:
    """The member's reactions, the latest first (how `/reactions` numbers them)."""
    return await core.repo.reactions_newest_first(user_key)


class NoSuchReaction(InputError):
    """`which` names none of the member's `count` reactions: a number out of range (`number` set) or a paper they
    did not react to. The message is the member's words; another reader (the CLI) words it from the fields."""

    def __init__(self, which: str, count: int, number: int | None) -> None:
        self.which, self.count, self.number = which, count, number
        if number is None:
            said = f"You have no reaction to {which!r}; /reactions lists them, numbered."
        else:
            said = (
                "You have one reaction: undo 1."
                if count == 1
                else f"You have {count} reactions: undo 1 to {count} (1 is the latest)."
            )
        super().__init__(said)


async def find_reaction(core: Core, user_key: str, which: str) -> FeedbackRecord:
    """The reaction `which` names: its number in `reactions_of` or its paper's arXiv id; InputError when the member
    has none, NoSuchReaction when `which` names none of them."""
    rows = await reactions_of(core, user_key)
    if not rows:
        raise InputError("You have no reactions to undo.")
    text = which.strip().lstrip("#")
    if text.isdigit():
        number = int(text)
        if not 1 <= number <= len(rows):
            raise NoSuchReaction(text[:40], len(rows), number)
        return rows[number - 1]
    wanted = _normal_id(text)
    for row in rows:
        if row.paper_id == wanted:
            return row
    raise NoSuchReaction(text[:40], len(rows), None)


async def react(core: Core, user_key: str, paper: Paper, value: int) -> ReactionEffect:
    """Store a thumbs up (+1) or down (-1) for `paper` and say what it changed."""
    before = await _stored(core, user_key)
    previous = next((r.value for r in before if r.paper_id == paper.id), 0)
    if previous == value:
        return ReactionEffect(paper, value, previous, len(before), learning=False, direction=0)
    probe = await _probe(core, {r.paper_id for r in before} | {paper.id})
    then = await learn.learned_part(core, user_key, probe.vectors)  # the model in use until now: no training
    await learn.record_reaction(core, user_key, paper.id, value)
    return await _effect(core, user_key, paper, value, previous, probe, then)


async def undo(core: Core, user_key: str, which: str) -> ReactionEffect:
    """Remove the reaction `which` names (see `find_reaction`) from what the learner uses; say what that changed."""
    row = await find_reaction(core, user_key, which)
    found = await core.repo.get_papers([row.paper_id])
    paper = found[0] if found else _unstored(row)
    probe = await _probe(core, {r.paper_id for r in await _stored(core, user_key)})
    then = await learn.learned_part(core, user_key, probe.vectors)
    await learn.remove_reaction(core, user_key, row.paper_id)
    return await _effect(core, user_key, paper, 0, row.value, probe, then)


async def reset(core: Core, user_key: str) -> int:
    """Delete every reaction of the member and what was learned from them; how many went."""
    return await learn.forget_feedback(core, user_key)


async def effect_of(core: Core, user_key: str, paper: Paper) -> ReactionEffect | None:
    """What the member's standing reaction to `paper` changes (as if it were given now); None without one."""
    now = await _stored(core, user_key)
    value = next((r.value for r in now if r.paper_id == paper.id), 0)
    if not value:
        return None
    probe = await _probe(core, {r.paper_id for r in now})
    without = [r for r in now if r.paper_id != paper.id]
    then = await learn.learned_part(core, user_key, probe.vectors, without)  # trained anew, without it
    return await _effect(core, user_key, paper, value, 0, probe, then)


async def shift_on_its_day(core: Core, user_key: str, paper: Paper) -> tuple[float, int]:
    """How far the member's reactions move `paper` against the median paper of its day (cosine units, as the
    ranking adds them), and how many reactions the learner uses (0: not in use, the shift is 0)."""
    day = [p for p in await core.repo.papers_on(paper.announced) if p.id != paper.id]
    found = await _day_vectors(core, paper.announced, [paper.id, *(p.id for p in day)])
    if paper.id not in found:
        return 0.0, 0
    ids = [paper.id, *(p.id for p in day if p.id in found)]
    learned, used = await learn.learned_part(core, user_key, np.stack([found[i] for i in ids]))
    return float(learned[0] - np.median(learned)), used


async def _day_vectors(core: Core, day: dt.date, ids: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors of a day's papers from the in-memory window index (read from the store once per process)."""
    return (await core.vectors.window_index(day, day)).vectors(ids)


async def _stored(core: Core, user_key: str) -> list[learn.Reaction]:
    return [learn.Reaction(r.paper_id, r.value) for r in await core.repo.user_feedback_rows(user_key)]


def _unstored(row: FeedbackRecord) -> Paper:
    """A stand-in for a reacted paper that is not stored (a reaction may outlive the paper's row)."""
    return Paper(
        id=row.paper_id,
        title=row.title or row.paper_id,
        abstract="",
        authors=(),
        categories=(),
        announced=dt.date.min,
    )


@dataclass(frozen=True, slots=True)
class _Probe:
    """The latest stored day's papers (but those rated) with their vectors: where a change is measured."""

    day: dt.date | None
    papers: list[Paper]
    vectors: np.ndarray


async def _probe(core: Core, rated: set[str]) -> _Probe:
    day = await core.repo.latest_day()
    if day is None:
        return _Probe(None, [], np.zeros((0, 1), dtype=np.float32))
    papers = [p for p in await core.repo.papers_on(day) if p.id not in rated]
    found = await _day_vectors(core, day, [p.id for p in papers])
    papers = [p for p in papers if p.id in found]
    vectors = np.stack([found[p.id] for p in papers]) if papers else np.zeros((0, 1), dtype=np.float32)
    return _Probe(day, papers, vectors)


async def _effect(
    core: Core,
    user_key: str,
    paper: Paper,
    value: int,
    previous: int,
    probe: _Probe,
    then: tuple[np.ndarray, int],
) -> ReactionEffect:
    """Compare the learned part of the probe's scores now with `then` (before the change)."""
    stored = len(await core.repo.user_feedback_rows(user_key))
    now, n_now = await learn.learned_part(core, user_key, probe.vectors)
    before, n_then = then
    learning = bool(n_now or n_then)
    if not learning or not probe.papers:
        return ReactionEffect(paper, value, previous, stored, learning=learning, direction=0, day=probe.day)
    delta = (now - np.median(now)) - (before - np.median(before))
    direction = 1 if value > previous else -1
    moved = direction * delta
    if float(moved.max()) < MIN_MOVE:
        return ReactionEffect(paper, value, previous, stored, learning=True, direction=0, day=probe.day)
    best = [int(i) for i in np.argsort(-moved, kind="stable")[:2] if moved[int(i)] >= MIN_MOVE]
    return ReactionEffect(
        paper,
        value,
        previous,
        stored,
        learning=True,
        direction=direction,
        words=topic_words(paper, probe.papers, moved),
        day=probe.day,
        examples=tuple(probe.papers[i].title for i in best),
    )


def topic_words(paper: Paper, papers: Sequence[Paper], moved: np.ndarray) -> tuple[str, ...]:
    """Units of `paper`'s title (named terms whole, "KV cache" in any spelling, and its other words; the topic
    vocabulary of `bot.text.terms`) whose papers among `papers` moved further than a typical paper did (on average,
    in the reaction's direction: `moved` larger is further), the `MAX_WORDS` that moved most; a unit in fewer than
    `MIN_WORD_PAPERS` or more than `MAX_WORD_SHARE` of the papers is left out. As the title writes them and in its
    order, neighbours joined into one phrase."""
    if not len(papers):
        return ()
    index = _unit_index(tuple(p.title for p in papers), tuple(p.abstract for p in papers))
    typical = float(np.median(np.abs(moved)))
    limit = max(MIN_WORD_PAPERS, int(MAX_WORD_SHARE * len(papers)))
    spans = list(WORD.finditer(paper.title))
    mean_moved: dict[tuple[int, int], float] = {}
    seen: set[str] = set()
    for first, last, unit in _title_units([(text_tokens(m.group()) or [""])[0] for m in spans]):
        if unit.key in seen:
            continue
        seen.add(unit.key)
        holders = np.flatnonzero(index.hits(unit)[1])
        if MIN_WORD_PAPERS <= len(holders) <= limit:
            mean = float(np.mean(moved[holders]))
            if mean >= max(typical, MIN_MOVE):
                mean_moved[first, last] = mean
    chosen = sorted(sorted(mean_moved, key=lambda span: -mean_moved[span])[:MAX_WORDS])
    phrases: list[str] = []
    for n, (first, last) in enumerate(chosen):
        written = _as_in_a_sentence(paper.title[spans[first].start() : spans[last].end()])
        if n and chosen[n - 1][1] == first - 1:
            gap = paper.title[spans[first - 1].end() : spans[first].start()]
            if gap in (" ", "-"):
                phrases[-1] += gap + written
                continue
        phrases.append(written)
    return tuple(phrases)


def _title_units(tokens: Sequence[str]) -> list[tuple[int, int, Unit]]:
    """(first, last token position, unit) of a title's tokens: named terms by their longest spelling, other words
    (not digits or single letters) one unit each."""
    units = []
    i = 0
    while i < len(tokens):
        found = RANKER.find(tokens, i)
        if found is not None:
            term, span = found
            units.append((i, i + span - 1, Unit.of(Part(tuple(tokens[i : i + span]), term))))
            i += span
            continue
        if len(tokens[i]) >= 2 and not tokens[i].isdigit():
            units.append((i, i, Unit.of(Part((tokens[i],), None))))
        i += 1
    return units


@functools.lru_cache(maxsize=4)
def _unit_index(titles: tuple[str, ...], abstracts: tuple[str, ...]) -> UnitIndex:
    """The day's papers indexed for units (a day's papers are read again at every reaction)."""
    return UnitIndex(list(titles), list(abstracts))


def _as_in_a_sentence(text: str) -> str:
    """A title's capitalised words as a sentence writes them ('Quantization' -> 'quantization'; 'KV', 'LoRA' stay)."""
    return WORD.sub(lambda m: m.group().lower() if m.group()[1:].islower() else m.group(), text)


# ---------------------------------------------------------------- what a member reads


def _thumb(value: int) -> str:
    return "👍" if value > 0 else "👎"


def _count(stored: int) -> str:
    return f"{stored} reaction{'' if stored == 1 else 's'}"


def _clip(title: str, limit: int = 80) -> str:
    return short_phrase(title, limit)  # at a word boundary: a title cut mid-word reads as a typo


def _movement(effect: ReactionEffect, *, again: bool = False) -> str:
    """'moves papers on KV cache compression up (on 2025-05-30 most of all: "…")' or '' when nothing moved."""
    if not effect.direction:
        return ""
    words = list(effect.words)
    topic = ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)
    what = f"papers on {topic}" if topic else "papers like this one"
    way = "up" if effect.direction > 0 else "down"
    example = f" (on {effect.day.isoformat()} most of all: “{_clip(effect.examples[0])}”)" if effect.examples else ""
    return f"moves {what} {way}{' again' if again else ''}{example}"


def describe_effect(effect: ReactionEffect) -> str:
    """The reply to a 👍/👎 or an undo: what it changed, how many reactions there are, and how to see or undo them."""
    if effect.value == 0 and effect.previous:
        return _describe_undo(effect, _MEMBER)
    tail = f"{_count(effect.stored)} so far; /reactions to see or undo them."
    title = _clip(effect.paper.title, MAX_TITLE)
    if effect.value == effect.previous:
        return f"You had already given “{title}” a {_thumb(effect.value)}; nothing changed. {tail}"
    if effect.previous:
        head = f"Changed to {_thumb(effect.value)}: {'more' if effect.value > 0 else 'less'} like “{title}”."
    else:
        head = f"Noted: {'more' if effect.value > 0 else 'less'} like “{title}”."
    if not effect.learning:
        needed = learn.MIN_REACTIONS - effect.stored
        if needed > 0:
            body = f"Your digest starts learning from your reactions with {_count(needed)} more."
        else:
            body = "This paper has no stored vector yet, so it does not move your digest."
        return f"{head} {body} {tail}"
    moves = _movement(effect)
    body = f"Your next digest {moves}." if moves else "It does not move any of the latest day's papers noticeably."
    if effect.value < 0:
        body += " This paper stays out of your personal digest."
    return f"{head} {body} {tail}"


def describe_undo_to_operator(effect: ReactionEffect, member: str) -> str:
    """The operator's account of undoing `member`'s reaction (`paperscout reactions --undo`): whose reaction on
    which paper was taken back and what the member's next digest no longer does."""
    return _describe_undo(
        effect, _Reader(f"{member}'s", f"{member}'s", "their", cites=True, left=f" of {member} left.")
    )


@dataclass(frozen=True, slots=True)
class _Reader:
    """Who reads the account of an undo: the member themselves, or the operator about a member."""

    whose: str  # mid-sentence: "your", "telegram:42's"
    owner: str  # starting a sentence: "Your", "telegram:42's"
    their: str  # "your", "their"
    cites: bool  # names the paper's arXiv id (the operator has not seen the paper in a digest)
    left: str  # after the count of reactions left: how to see them, or whose they are


_MEMBER = _Reader("your", "Your", "your", cites=False, left=" left; /reactions lists them.")


def _describe_undo(effect: ReactionEffect, reader: _Reader) -> str:
    """Whose reaction on which paper was taken back, what their next digest no longer does, how many are left."""
    paper = effect.paper
    cited = f" (arXiv:{paper.id})" if reader.cites else ""
    head = f"Undone: {reader.whose} {_thumb(effect.previous)} on “{_clip(paper.title, MAX_TITLE)}”{cited}."
    if not effect.learning:
        body = f"{reader.owner} next digest is ranked by {reader.their} profile alone again."
    elif effect.direction:
        body = f"{reader.owner} next digest no longer {_movement(dc_replace(effect, direction=-effect.direction))}."
    else:
        body = f"{reader.owner} next digest is ranked without it; it moved none of the latest day's papers noticeably."
    return f"{head} {body} {_count(effect.stored)}{reader.left}"


def describe_standing_reaction(effect: ReactionEffect, at: str) -> str:
    """The /why line about the member's own reaction to the paper: when it was given and what it changes."""
    day = at[:10]
    moves = _movement(effect)
    if not effect.learning:
        needed = max(learn.MIN_REACTIONS - effect.stored, 1)
        does = f"your digest starts learning from your reactions with {_count(needed)} more"
    elif moves:
        does = f"it {moves} in your next digest"
    else:
        does = "it does not move any of the latest day's papers noticeably"
    return f"You gave it a {_thumb(effect.value)} on {day}: {does}; /reactions to see or undo it."


CHAT_HOW_TO_UNDO = "/reactions undo N takes one back; /reactions reset removes them all (it asks first)."
NO_REACTIONS = "You have no reactions yet: 👍 or 👎 a paper (/up N, /down N) and your digest learns from it."


def describe_reactions(
    rows: Sequence[FeedbackRecord],
    *,
    limit: int = MAX_LISTED,
    how_to_undo: str = CHAT_HOW_TO_UNDO,
    none: str = NO_REACTIONS,
    whose: str = "Your",
) -> str:
    """The numbered list of `reactions_of`: thumb, title, id and the day it was given; `how_to_undo` (the chat's
    commands unless the caller's own, e.g. the CLI's flags), or `none` when there are none; `whose` heads the list
    ("Your" to the member, "telegram:42's" to the operator)."""
    if not rows:
        return none
    lines = [f"{whose} {_count(len(rows))}, the latest first:"]
    for number, row in enumerate(rows[:limit], 1):
        title = _clip(row.title, MAX_TITLE) if row.title else "(paper not stored)"
        lines.append(f"{number}. {_thumb(row.value)} {title} (arXiv:{row.paper_id}, {row.at[:10]})")
    if len(rows) > limit:
        lines.append(f"… and {len(rows) - limit} older ones.")
    lines.append(how_to_undo)
    return "\n".join(lines)
