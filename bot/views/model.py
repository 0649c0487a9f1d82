"""The one structured view of a paper (and of a digest) that the core builds and every renderer uses.

Renderers (Markdown and plain text in `bot.views.render`, Discord embeds, Telegram HTML) lay out a `PaperView`; none of
them decides what to show. The view is honest about what is known: the ranker's opinion is a position in the
day ('#3 of 444 papers on 2025-05-26, top 1%') with the reasons it matched, and 1-10 relevance and novelty appear
only when an LLM judged the paper, never computed from cue words.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.models import Digest, DigestSection, Paper, ScoredPaper
from bot.text.extractive import readable, split_sentences
from bot.text.latex import latex_to_text
from bot.text.safetext import short_phrase

ABSTRACT_CHARS = 1200  # a card's abstract: whole sentences up to this, then '[…]' (the rest is one click away)
ARXIV_COMMENT_CHARS = 200

PAPER_ACTIONS = ("up", "down", "more", "why", "undo")  # 'undo' takes the member's reaction to the paper back
ACTION_LABELS = {"up": "👍", "down": "👎", "more": "More like this", "why": "Why?", "undo": "Undo"}
BUTTON_PREFIX = "ps:"
MAX_BUTTON_BYTES = 64  # Telegram's callback_data limit (Discord allows 100 in a custom_id, Slack more)


def is_paperscout_button(value: str) -> bool:
    """True when a platform's button value (callback data, custom_id) is one of ours and within 64 bytes."""
    return value.startswith(BUTTON_PREFIX) and len(value.encode()) <= MAX_BUTTON_BYTES


def paper_button(action: str, paper_id: str) -> str:
    """The button value of a paper action ('up', 'down', 'more', 'why', 'undo'): 'ps:up:2505.17639' (<= 64
    bytes)."""
    if action not in PAPER_ACTIONS:
        raise ValueError(f"unknown paper action {action!r}")
    return f"{BUTTON_PREFIX}{action}:{paper_id}"


LIST_MARK = "@"  # /more's button argument naming a page of a given list ('@TOKEN:START'), never a paper


def list_button(token: str, start: int) -> str:
    """The value of a list's "Next" button: /more's paper button naming the list and where the page starts
    ('ps:more:@3f9a0c12de:10')."""
    return paper_button("more", f"{LIST_MARK}{token}:{start}")


PAPER_VIEW_ACTIONS = ("up", "down", "more")  # 'why' is a command; three buttons keep a row readable


@dataclass(frozen=True, slots=True)
class Choice:
    """A button under a question: show `label`, send `value` back (typing the value or its number works too)."""

    label: str
    value: str


@dataclass(frozen=True, slots=True)
class Action:
    """Something a reader can do with one paper: a button with its label and value."""

    kind: str  # up | down | more | why
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class PaperView:
    """One paper as every renderer shows it: the facts, and only the scores that mean something.

    `abstract` and `arxiv_comment` are set on a paper's own card (`details`), not in lists.
    `standing` says what the ranker knows in words a reader can use ('#3 of 444 papers on 2025-05-26', 'top 1%');
    `relevance` and `novelty` (1-10) are set only when an LLM judged the paper. `number` is its position in the
    digest or list it appears in (what '/up 3' refers to).
    """

    id: str
    title: str
    url: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]
    announced: dt.date
    tldr: str = ""
    number: int = 0
    standing: str = ""
    relevance: float | None = None
    novelty: float | None = None
    reasons: tuple[str, ...] = ()
    author_hits: tuple[str, ...] = ()
    comment: str = ""  # the LLM's one-line comment, when it gave one
    score: float | None = None  # the ranker's internal score, for machine-readable output only
    actions: tuple[Action, ...] = ()
    abstract: str = ""  # a paper's own card (/paper) only: the abstract, readable and bounded
    arxiv_comment: str = ""  # a paper's own card only: the authors' arXiv comment ('ICML 2025, 9 pages')


@dataclass(frozen=True, slots=True)
class TopicGroup:
    """A topic heading (level 1 a topic, 2 a subtopic) and the papers directly under it (none for a split topic)."""

    heading: str
    level: int
    items: tuple[PaperView, ...]
    note: str = ""


@dataclass(frozen=True, slots=True)
class DigestView:
    """A digest ready to render: a header, the papers in order, and notes for the footer."""

    title: str  # 'ML foundations: arXiv digest for 2025-05-26' (or 'for the week of 2025-05-26 – 2025-05-30')
    day: dt.date
    scanned: int
    items: tuple[PaperView, ...]
    notes: tuple[str, ...] = ()
    usage: dict[str, float] = field(default_factory=dict)  # LLM tokens and cost of the run, empty when none ran
    subtitle: str = ""  # replaces the scanned/picked line for lists that are not a day's digest ("more like this")
    sections: tuple[DigestSection, ...] = ()  # topic headings over `items` in order (a weekly topic tree)

    def topic_groups(self) -> list[TopicGroup]:
        """The papers under their topic headings, in order; empty when the digest is a flat list."""
        groups, at = [], 0
        for section in self.sections:
            groups.append(TopicGroup(section.heading, section.level, self.items[at : at + section.count], section.note))
            at += section.count
        if groups and at < len(self.items):  # headings that do not cover every paper: the rest stays visible
            groups.append(TopicGroup("Other papers", 1, self.items[at:]))
        return groups

    @property
    def picked(self) -> int:
        """How many papers made the digest."""
        return len(self.items)

    @property
    def summary(self) -> str:
        """'Scanned 444 papers, picked 10.' (or the `subtitle` of a list that is not a day's digest)."""
        return self.subtitle or f"Scanned {self.scanned} papers, picked {self.picked}."


def paper_actions(paper_id: str, kinds: Sequence[str] = PAPER_VIEW_ACTIONS) -> tuple[Action, ...]:
    """The buttons under a paper."""
    return tuple(Action(kind, ACTION_LABELS[kind], paper_button(kind, paper_id)) for kind in kinds)


def standing(rank: int, total: int, day_phrase: str) -> str:
    """Where the ranker put a paper among those it ranked: '#3 of 444 papers on 2025-05-26 (top 1%)'."""
    if total <= 0 or rank <= 0:
        return ""
    text = f"#{rank} of {total} papers {day_phrase}"
    if total >= 20:
        share = max(1, -(-rank * 100 // total))  # ceiling: the top paper of 444 is in the top 1%, not 0%
        text += f" (top {share}%)"
    return text


def paper_view(
    paper: Paper,
    *,
    tldr: str = "",
    number: int = 0,
    scored: ScoredPaper | None = None,
    rank: int = 0,
    total: int = 0,
    day_phrase: str = "",
    actions: tuple[Action, ...] | None = None,
    details: bool = False,
) -> PaperView:
    """The view of one paper; `scored` adds the ranker's reasons (and the LLM's judgement when it gave one).

    Every view shows the title and TL;DR as readable text (LaTeX made Unicode, no leading connective, no clause cut),
    whatever wrote them and whenever: a digest frozen in the ledger before the cleaning existed reads the same.
    """
    judged = scored is not None and scored.judged
    tldr = tldr or (scored.tldr if scored else "")
    return PaperView(
        id=paper.id,
        title=latex_to_text(paper.title),
        url=paper.url,
        authors=paper.authors,
        categories=paper.categories,
        announced=paper.announced,
        tldr=readable(tldr) if tldr else "",
        number=number,
        standing=standing(rank, total, day_phrase),
        relevance=scored.relevance if judged and scored else None,
        novelty=scored.novelty if judged and scored else None,
        reasons=scored.reasons if scored else (),
        author_hits=scored.author_hits if scored else (),
        comment=scored.comment if judged and scored else "",
        score=scored.score if scored else None,
        actions=paper_actions(paper.id) if actions is None else actions,
        abstract=bounded_abstract(paper.abstract) if details else "",
        arxiv_comment=short_phrase(latex_to_text(paper.comment), ARXIV_COMMENT_CHARS) if details else "",
    )


def bounded_abstract(abstract: str, limit: int = ABSTRACT_CHARS) -> str:
    """The abstract as readable text, whole sentences up to `limit` characters and '[…]' when some are left out."""
    text = latex_to_text(abstract)
    if len(text) <= limit:
        return text
    kept = ""
    for sentence in split_sentences(text):
        if len(kept) + len(sentence) + 5 > limit:
            break
        kept = f"{kept} {sentence}".strip()
    return (kept or short_phrase(text, limit - 4).rstrip("…")) + " […]"


def digest_day_phrase(digest: Digest) -> str:
    """'on 2025-05-26', or 'from 2025-05-20 to 2025-05-26' for a weekly digest."""
    if digest.start is not None and digest.start != digest.day:
        return f"from {digest.start.isoformat()} to {digest.day.isoformat()}"
    return f"on {digest.day.isoformat()}"


def digest_span(digest: Digest) -> str:
    """'for 2025-05-30', or 'for the week of 2025-05-26 – 2025-05-30' for a digest of several days."""
    if digest.start is not None and digest.start != digest.day:
        return f"for the week of {digest.start.isoformat()} – {digest.day.isoformat()}"
    return f"for {digest.day.isoformat()}"


def digest_view(digest: Digest, *, with_actions: bool = True) -> DigestView:
    """The view of a built digest: numbered papers with their standing among the papers scanned (of each paper's
    own day, when the digest ranked them by day: `Digest.by_day`)."""
    phrase = digest_day_phrase(digest)
    items = tuple(
        paper_view(
            item.paper,
            scored=item,
            number=n,
            rank=item.rank or n,  # a digest frozen before standings were kept: its place in the digest, as posted
            total=item.ranked_of or digest.scanned,
            day_phrase=f"on {item.paper.announced.isoformat()}" if digest.by_day else phrase,
            actions=None if with_actions else (),
        )
        for n, item in enumerate(digest.items, 1)
    )
    return DigestView(
        title=f"{digest.profile_name}: arXiv digest {digest_span(digest)}",
        day=digest.day,
        scanned=digest.scanned,
        items=items,
        notes=digest.notes,
        usage=dict(digest.usage),
        sections=digest.sections,
    )


def usage_line(usage: dict[str, float]) -> str:
    """One line with LLM tokens and cost, empty when no LLM ran."""
    if not usage.get("total_tokens"):
        return ""
    return (
        f"LLM: {int(usage.get('prompt_tokens', 0)):,} prompt + {int(usage.get('completion_tokens', 0)):,} completion"
        f" tokens, ${usage.get('cost_usd', 0.0):.4f}"
    )
