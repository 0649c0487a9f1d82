"""Plain data types shared by every part of paperscout.

These are the nouns of the system: a paper, an interest profile, a place to post (target),
a scored paper and the digest built from them. They carry no I/O.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field

ARXIV_ABS_URL = "https://arxiv.org/abs/"

# New-style ids (2505.17083) and old-style ids (hep-th/9901001), with an optional version suffix.
# ASCII digits only ([0-9], not \d: Devanagari or full-width digits would store one paper under several ids), and
# a version of at most four digits (SQLite integers end at 2**63; arXiv versions are in the tens).
_ARXIV_ID = re.compile(
    r"^(?P<base>([0-9]{4}\.[0-9]{4,5})|([a-z\-]+(\.[A-Z]{2})?/[0-9]{7}))(v(?P<version>[1-9][0-9]{0,3}))?$"
)


class InvalidPaperId(ValueError):
    """Raised when a string is not an arXiv identifier."""


def split_arxiv_id(raw: str) -> tuple[str, int | None]:
    """Return the version-less arXiv id and the version (or None) of `raw`.

    Accepts bare ids, ``arXiv:`` prefixes and abs/pdf URLs.
    """
    text = raw.strip()
    text = re.sub(r"^(https?://)?(www\.|export\.)?arxiv\.org/(abs|pdf)/", "", text)
    text = re.sub(r"(?i)^arxiv:", "", text).removesuffix(".pdf")
    match = _ARXIV_ID.match(text)
    if not match:
        raise InvalidPaperId(f"not an arXiv id: {raw!r}")
    version = match.group("version")
    return match.group("base"), int(version) if version else None


def day_to_int(day: dt.date) -> int:
    """Encode a date as the yyyymmdd integer stored in metadata filters."""
    return day.year * 10000 + day.month * 100 + day.day


def int_to_day(value: int) -> dt.date:
    """Decode a yyyymmdd integer back into a date."""
    return dt.date(value // 10000, value // 100 % 100, value % 100)


# How paper vectors are made (bot.embeddings.embedder.paper_vectors). Bump it when that changes: stored vectors made
# another way
# no longer match `Paper.vector_key` and are re-embedded on the next ingest.
VECTOR_RECIPE = "text+title"
# How a paper's sentence vectors are made (bot.ingest.vectors.paper_sentences: the title, then each abstract sentence,
# each embedded apart). Bump it when that changes: stored sentence vectors made another way are embedded again.
SENTENCE_RECIPE = "title+sentences"


def vector_key_of(content_hash: str) -> str:
    """What a paper vector made from a text hashed `content_hash` by `VECTOR_RECIPE` is stored with."""
    return f"{content_hash}/{VECTOR_RECIPE}"


def sentence_key_of(content_hash: str) -> str:
    """What sentence vectors made from a text hashed `content_hash` by `SENTENCE_RECIPE` are stored with."""
    return f"{content_hash}/{SENTENCE_RECIPE}"


@dataclass(frozen=True, slots=True)
class Paper:
    """One arXiv paper as paperscout stores it (version-less id)."""

    id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    categories: tuple[str, ...]
    announced: dt.date
    comment: str = ""
    version: int | None = None
    announce_type: str = "new"  # new | cross | replace | replace-cross

    @property
    def url(self) -> str:
        """The arXiv abstract page."""
        return ARXIV_ABS_URL + self.id

    @property
    def primary_category(self) -> str:
        """The first category is the primary one."""
        return self.categories[0] if self.categories else ""

    @property
    def text(self) -> str:
        """The text that is embedded and searched: title and abstract."""
        return f"{self.title}. {self.abstract}"

    @property
    def content_hash(self) -> str:
        """Changes when the embedded text changes, so a replaced paper is re-embedded once."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]

    @property
    def vector_key(self) -> str:
        """What a stored vector was made from: the text and the recipe (`VECTOR_RECIPE`); a change re-embeds."""
        return vector_key_of(self.content_hash)

    @property
    def sentence_key(self) -> str:
        """What stored sentence vectors were made from: the text and the recipe (`SENTENCE_RECIPE`)."""
        return sentence_key_of(self.content_hash)


@dataclass(frozen=True, slots=True)
class Topic:
    """A named interest with what to want and what to avoid, in the user's words."""

    name: str
    want: str
    avoid: str = ""


@dataclass(frozen=True, slots=True)
class Profile:
    """An interest profile: free-text topics, keyword signals, categories and watched authors."""

    name: str
    topics: tuple[Topic, ...]
    boost: tuple[str, ...] = ()
    penalize: tuple[str, ...] = ()
    applications: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    keep_if: str = ""
    avoid: tuple[str, ...] = ()  # what to avoid across every topic, one item each (a member's "avoid" answer)

    @property
    def fingerprint(self) -> str:
        """A short hash of everything that affects scores; cached scores are keyed by it."""
        parts = [self.name, *(f"{t.name}|{t.want}|{t.avoid}" for t in self.topics)]
        parts += ["b:" + "|".join(self.boost), "p:" + "|".join(self.penalize)]
        parts += ["a:" + "|".join(self.applications), "c:" + "|".join(self.categories)]
        parts += ["w:" + "|".join(self.authors)]
        if self.avoid:  # only when set, so profiles without it keep their fingerprints (and cached LLM scores)
            parts += ["v:" + "|".join(self.avoid)]
        return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:12]


CHANNEL_SCHEDULES = ("daily", "weekly")  # how often a channel's digest goes out
PERSONAL_CHAT_PREFIX = "dm:"  # chat_id of a personal target: "dm:<id part of the user key>"
DIGEST_SIZE = 15  # papers in a digest unless a target says otherwise
MAX_DIGEST_SIZE = 50  # the most a target may ask for (Discord's /setup option and chat /setup alike)


@dataclass(frozen=True, slots=True)
class Target:
    """A place digests are posted to: a Discord channel, a Telegram chat, a user's DM or the console."""

    platform: str  # discord | telegram | console
    chat_id: str
    profile_name: str
    categories: tuple[str, ...] = ("cs.LG", "cs.AI")
    post_time: str = "09:00"
    timezone: str = "UTC"
    digest_size: int = DIGEST_SIZE
    id: int | None = None
    paused: bool = False  # an admin paused the channel's digest (/pause); the schedule passes it over
    schedule: str = "daily"  # daily | weekly (a channel's: the week's picks as a topic tree, once a week)
    weekly_day: int = 0  # 0 = Monday: the day a weekly digest goes out, covering the seven days ending on it

    @property
    def key(self) -> str:
        """A stable name for logs and the posting ledger."""
        return f"{self.platform}:{self.chat_id}"

    @property
    def member(self) -> str:
        """The user key whose personal digest this target is ('' for a channel's)."""
        if not self.chat_id.startswith(PERSONAL_CHAT_PREFIX):
            return ""
        return f"{self.platform}:{self.chat_id[len(PERSONAL_CHAT_PREFIX) :]}"


@dataclass(frozen=True, slots=True)
class ScoredPaper:
    """A paper with its ranking score and the reasons it was picked."""

    paper: Paper
    score: float
    relevance: float  # 1-10 scale shown to readers
    novelty: float  # 1-10 scale shown to readers
    reasons: tuple[str, ...] = ()
    author_hits: tuple[str, ...] = ()
    tldr: str = ""
    comment: str = ""
    judged: bool = False  # relevance and novelty come from an LLM (else they are the ranker's internal scale)
    # Its standing: place and count in the ranking of every candidate of the day for this profile (and member), the
    # one `standing_of` computes for digests, /why and the site alike; 0 when not ranked that way.
    rank: int = 0
    ranked_of: int = 0


@dataclass(frozen=True, slots=True)
class DigestSection:
    """A topic heading in a digest grouped as a topic tree (a weekly digest): level 1 a topic, level 2 a subtopic;
    the next `count` papers of the digest stand directly under it (0 for a topic split into subtopics)."""

    heading: str
    level: int
    count: int
    note: str = ""  # one line on what the topic's papers do (written by an LLM), shown under the heading


@dataclass(frozen=True, slots=True)
class Digest:
    """One day's ranked digest for one profile."""

    day: dt.date
    profile_name: str
    scanned: int
    items: tuple[ScoredPaper, ...]
    notes: tuple[str, ...] = ()
    usage: dict[str, float] = field(default_factory=dict)
    start: dt.date | None = None  # first day covered, when more than `day` (a weekly digest)
    sections: tuple[DigestSection, ...] = ()  # topic headings over `items` in order; empty: a flat ranked list
    # each item's standing is among its own day's candidates (`standing_of`, as /why gives it), not the whole span's:
    # a digest of several days built since one numbering was kept (one frozen before holds the span's standings)
    by_day: bool = False

    @property
    def picked(self) -> int:
        """How many papers made it into the digest."""
        return len(self.items)


@dataclass(frozen=True, slots=True)
class UserRecord:
    """A member who talks to paperscout directly: their name and personal digest settings."""

    key: str  # platform:id, e.g. telegram:123 or console:alice
    display_name: str = ""
    digest_mode: str = "off"  # off | daily | weekly
    post_time: str = "09:00"
    timezone: str = "UTC"
    weekly_day: int = 0  # 0 = Monday
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class FeedbackRecord:
    """One thumbs up (+1) or down (-1) a user gave a paper, with the title for showing it back to them."""

    paper_id: str
    value: int
    at: str
    title: str = ""
