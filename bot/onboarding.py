"""The onboarding conversation: a platform-free state machine that walks a member through their interest profile.

Adapters (console, Discord, Telegram) only feed it what the person typed or the value of the button they pressed,
and render the `Reply` it returns: plain text (adapters escape it for their markup), optional choices (buttons)
and paper cards. The state is a `Conversation` that round-trips through JSON and is stored in ``users.conversation``
after every turn, so a conversation survives restarts and resumes where it stopped.

Steps: interests -> avoid -> authors -> categories -> rate (5 diverse recent papers) -> digest (off/daily/weekly)
-> weekday (weekly only) -> time -> timezone -> saved. Commands at any step: /cancel, /skip, /back, /edit FIELD,
/status, /help. Every bad answer (empty, too long, emoji only, an unknown author or category, a bad time zone) gets
a reply saying what would work, and the conversation stays at the same step.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import difflib
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from bot import learn
from bot.arxiv_taxonomy import check_category, describe
from bot.authors import MAX_NAMES, author_index, split_names
from bot.cards import PaperCard
from bot.core import Core
from bot.digest import rank_papers
from bot.models import Paper, Profile, Topic, UserRecord
from bot.names import fold
from bot.users import (
    WEEKDAYS,
    SettingError,
    check_user_key,
    describe_settings,
    parse_post_time,
    parse_timezone,
    parse_weekday,
    profile_owner,
)

MAX_INPUT = 2000  # characters per answer; a 5,000-character paste is an accident, not an answer
MAX_TOPICS = 12
MAX_AVOID = 12
MAX_AUTHORS = 50
MAX_CATEGORIES = 20
RATE_COUNT = 5
RATE_POOL = 50  # the cold-start top-N the papers to rate are picked from
RECENT_DAYS = 7
DIVERSITY = 0.6  # weight of dissimilarity against relevance when picking papers to rate (MMR)
STATE_VERSION = 1
STATE_KIND = "onboarding"  # its kind in the chat_state table

STEPS = ("interests", "avoid", "authors", "categories", "rate", "digest", "weekday", "time", "timezone")
FIELDS: dict[str, str] = {  # what /edit accepts -> the step it starts at
    "interests": "interests",
    "avoid": "avoid",
    "authors": "authors",
    "categories": "categories",
    "ratings": "rate",
    "digest": "digest",
}
_FIELD_ALIASES = {
    "topics": "interests",
    "interest": "interests",
    "avoids": "avoid",
    "author": "authors",
    "category": "categories",
    "cats": "categories",
    "rate": "ratings",
    "rating": "ratings",
    "papers": "ratings",
    "schedule": "digest",
    "time": "digest",
    "timezone": "digest",
    "tz": "digest",
}
_STEP_FIELD = {"weekday": "digest", "time": "digest", "timezone": "digest", "rate": "ratings"}

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL = dict.fromkeys(c for c in (*range(32), *range(127, 160)) if c not in (9, 10))
_HAS_WORD = re.compile(r"[^\W_]")
_ITEM_SPLIT = re.compile(r"[\n;]+")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")
_NOTHING = {"none", "nothing", "no", "nope", "n/a", "na", "-", "skip", "nobody", "no one", "all", "any"}
_UP = {"up", "+", "+1", "👍", "y", "yes", "like", "good", "relevant"}
_DOWN = {"down", "-", "-1", "👎", "n", "no", "dislike", "bad", "irrelevant"}
_SKIP = {"skip", "s", "pass", "?", "unsure", "not sure", "dunno"}


# --- what the adapters see ---


@dataclass(frozen=True, slots=True)
class Choice:
    """A button: show `label`, send `value` back as the answer (typing the value or its number works too)."""

    label: str
    value: str


@dataclass(frozen=True, slots=True)
class Reply:
    """What to show the person: plain text, then cards, then choices.

    `step` is the step now waiting for an answer ('' once the conversation ended); `done` is True when it ended
    (saved or cancelled) and `saved` when the profile was saved.
    """

    text: str
    choices: tuple[Choice, ...] = ()
    cards: tuple[PaperCard, ...] = ()
    step: str = ""
    done: bool = False
    saved: bool = False


# --- the state ---


@dataclass
class Draft:
    """Everything the person told us so far; nothing here is stored in the profile until the end."""

    interests: list[str] = field(default_factory=list)
    avoid: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    ratings: dict[str, int] = field(default_factory=dict)  # paper id -> +1 / -1, recorded when saved
    digest_mode: str = "off"
    post_time: str = "09:00"
    timezone: str = "UTC"
    weekly_day: int = 0
    # parts of a profile made elsewhere (a TOML file) that this conversation does not ask about but must keep
    boost: list[str] = field(default_factory=list)
    penalize: list[str] = field(default_factory=list)
    applications: list[str] = field(default_factory=list)
    keep_if: str = ""


@dataclass
class Conversation:
    """The serialisable state of one person's onboarding (or of editing one field)."""

    user_key: str = ""
    mode: str = "onboarding"  # onboarding | edit
    step: str = "interests"
    editing: str = ""  # the field being edited (edit mode) or visited with /edit during onboarding
    return_to: str = ""  # during onboarding, where to continue after an /edit detour
    display_name: str = ""
    draft: Draft = field(default_factory=Draft)
    pending: list[dict[str, Any]] = field(default_factory=list)  # authors/categories still to resolve
    rate_ids: list[str] = field(default_factory=list)
    rate_index: int = 0
    choices: list[list[str]] = field(default_factory=list)  # [label, value] of the last reply's choices
    version: int = STATE_VERSION

    def to_json(self) -> str:
        """The state as JSON, for ``users.conversation``."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Conversation:
        """Parse a state saved by `to_json`; raises ValueError when it is not one."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            raise ValueError("not an onboarding state of this version")
        draft = Draft(**data.pop("draft"))
        conv = cls(**{**data, "draft": draft})
        if conv.step not in STEPS or conv.mode not in ("onboarding", "edit"):
            raise ValueError(f"unknown step {conv.step!r}")
        draft.ratings = {str(k): (1 if int(v) > 0 else -1) for k, v in draft.ratings.items()}
        conv.choices = [[str(label), str(value)] for label, value in conv.choices]
        return conv

    def choice_tuple(self) -> tuple[Choice, ...]:
        """The choices of the last question, as buttons."""
        return tuple(Choice(label, value) for label, value in self.choices)


# --- input hygiene ---


def strip_controls(text: str) -> str:
    """`text` without terminal escape sequences or control characters (newlines and tabs kept)."""
    return _ANSI.sub("", text).translate(_CONTROL)


def clean_input(text: str) -> str:
    """NFC, no terminal escapes or control characters (newlines and tabs kept), trimmed."""
    return strip_controls(unicodedata.normalize("NFC", text)).strip()


def _has_words(text: str) -> bool:
    return bool(_HAS_WORD.search(text))


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def split_items(text: str, limit: int) -> list[str]:
    """Items one per line or separated by ';' (bullets and numbering removed), without repeats."""
    items: list[str] = []
    for raw in _ITEM_SPLIT.split(text):
        item = _one_line(_BULLET.sub("", raw), MAX_INPUT)
        if item and _has_words(item) and item.lower() not in (i.lower() for i in items):
            items.append(item)
    return items[:limit]


# --- profile <-> draft ---


def _topic_name(want: str) -> str:
    if len(want) <= 40:
        return want
    cut = want[:40].rsplit(" ", 1)[0]
    return (cut or want[:40]) + "…"


def profile_name(display_name: str, user_key: str) -> str:
    """The name a personal profile (and its digest header) carries."""
    who = _one_line(display_name, 40) or user_key.partition(":")[2][:40] or user_key
    return f"{who} (personal)"


def build_profile(draft: Draft, name: str) -> Profile:
    """The profile a finished draft describes: one topic per interest, and what to avoid once for all of them."""
    topics = tuple(Topic(name=_topic_name(w), want=w) for w in draft.interests)
    return Profile(
        name=name,
        topics=topics,
        boost=tuple(draft.boost),
        penalize=tuple(draft.penalize),
        applications=tuple(draft.applications),
        categories=tuple(draft.categories),
        authors=tuple(draft.authors),
        keep_if=draft.keep_if,
        avoid=tuple(draft.avoid),
    )


def draft_from_saved(profile: Profile | None, user: UserRecord | None) -> Draft:
    """A draft holding what is stored, so one field can be edited and everything else kept."""
    draft = Draft()
    if profile is not None:
        draft.interests = [t.want for t in profile.topics]
        # profiles saved before `Profile.avoid` existed carry the answer in every topic and as penalize keywords
        avoid = list(profile.avoid)
        for topic in profile.topics:
            avoid += [a.strip() for a in topic.avoid.split(";") if a.strip()]
        legacy = not profile.avoid and any(t.avoid for t in profile.topics)
        avoid += list(profile.penalize) if legacy else []
        draft.avoid = list(dict.fromkeys(avoid))
        draft.penalize = [] if legacy else list(profile.penalize)
        draft.authors = list(profile.authors)
        draft.categories = list(profile.categories)
        draft.boost = list(profile.boost)
        draft.applications = list(profile.applications)
        draft.keep_if = profile.keep_if
    if user is not None:
        draft.digest_mode = user.digest_mode
        draft.post_time = user.post_time
        draft.timezone = user.timezone
        draft.weekly_day = user.weekly_day
    return draft


def _list_or(items: Sequence[str], empty: str) -> str:
    return "; ".join(items) if items else empty


def summary(draft: Draft, stored_ratings: Mapping[str, int] | None = None) -> str:
    """What the draft (or a stored profile, via `draft_from_saved`) says, one line per field.

    `stored_ratings` (paper id -> +1/-1) are the thumbs already recorded; the draft's own ratings count on top.
    """
    settings = UserRecord(
        key="",
        digest_mode=draft.digest_mode,
        post_time=draft.post_time,
        timezone=draft.timezone,
        weekly_day=draft.weekly_day,
    )
    lines = [
        f"Interests: {_list_or(draft.interests, '(none yet)')}",
        f"Avoid: {_list_or(draft.avoid, 'nothing')}",
        f"Authors: {_list_or(draft.authors, 'none')}",
        f"Categories: {_list_or([describe(c) for c in draft.categories], 'all that paperscout collects')}",
    ]
    ratings = {**(stored_ratings or {}), **draft.ratings}
    if ratings:
        ups = sum(1 for v in ratings.values() if v > 0)
        lines.append(f"Ratings: {ups} up, {len(ratings) - ups} down")
    lines.append(describe_settings(settings))
    return "\n".join(lines)


# --- choosing papers to rate ---


def pick_diverse(relevance: np.ndarray, vectors: np.ndarray, k: int, diversity: float = DIVERSITY) -> list[int]:
    """Maximal marginal relevance: indices of `k` items, each relevant and unlike those already picked.

    Rating five near-duplicates teaches little; five different corners of what the profile might mean teach more.
    """
    n = len(relevance)
    if n == 0 or k <= 0:
        return []
    spread = float(relevance.max() - relevance.min())
    rel = (relevance - relevance.min()) / spread if spread > 0 else np.ones(n)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms > 0, norms, 1.0)
    sims = unit @ unit.T
    picked = [int(np.argmax(rel))]
    while len(picked) < min(k, n):
        closest = sims[:, picked].max(axis=1)
        gain = (1 - diversity) * rel - diversity * closest
        gain[picked] = -np.inf
        picked.append(int(np.argmax(gain)))
    return picked


async def papers_to_rate(core: Core, profile: Profile, exclude: set[str], k: int = RATE_COUNT) -> list[Paper]:
    """`k` recent papers to rate: from the cold-start top `RATE_POOL` for `profile`, picked to differ."""
    latest = await core.repo.latest_day()
    if latest is None:
        return []
    start = latest - dt.timedelta(days=RECENT_DAYS - 1)
    papers = await core.repo.papers_between(start, latest, list(profile.categories) or None)
    if not papers:  # nothing recent in their categories: any recent paper still teaches something
        papers = await core.repo.papers_between(start, latest)
    papers = [p for p in papers if p.id not in exclude]
    ranked = await rank_papers(core, papers, profile, RATE_POOL)
    if not ranked:
        return []
    vectors = await core.vectors.vectors([s.paper.id for s in ranked])
    order = pick_diverse(np.array([s.score for s in ranked], dtype=np.float32), vectors, k)
    return [ranked[i].paper for i in order]


# --- the questions ---

_HELP = (
    "Commands: /skip skips an optional question, /back goes to the previous one, /edit FIELD changes one answer "
    "(interests, avoid, authors, categories, ratings, digest), /status shows your answers so far, "
    "/cancel stops (nothing new is saved), /help shows this."
)

_HINTS = {
    "interests": "Describe what you want to read about, one topic per line or separated by ';'. "
    "For example: sparse mixture-of-experts; theory of in-context learning",
    "avoid": "Name what you would rather not see, separated by ';' (e.g. medical imaging; benchmark-only papers), "
    "or send /skip.",
    "authors": "Send author names separated by ';' or one per line (e.g. Yann LeCun; Y. Bengio), or /skip.",
    "categories": "Send arXiv categories like cs.LG, cs.CL or stat.ML (separated by commas), or /skip for all.",
    "rate": "Answer up (👍), down (👎) or skip for this paper, or /skip to stop rating.",
    "digest": "Answer off, daily or weekly.",
    "weekday": "Answer a day of the week, e.g. Monday.",
    "time": "Answer a time like 08:30, 18:00 or 7pm.",
    "timezone": "Answer a time zone like Europe/Berlin, America/New_York, Asia/Tokyo or UTC.",
}


def _current(conv: Conversation, step: str) -> str:
    # Shown when a step is revisited (edit, /back, pre-filled onboarding) so /skip keeps something visible.
    d = conv.draft
    values = {
        "interests": _list_or(d.interests, ""),
        "avoid": _list_or(d.avoid, ""),
        "authors": _list_or(d.authors, ""),
        "categories": ", ".join(d.categories),
    }
    return values.get(step, "")


async def _ask(core: Core, conv: Conversation, step: str, prefix: str = "") -> Reply:
    """Move to `step` and ask its question (with `prefix` before it)."""
    conv.step = step
    conv.pending = []
    choices: tuple[Choice, ...] = ()
    cards: tuple[PaperCard, ...] = ()
    current = _current(conv, step)
    keep = f"\nNow: {current}\n(Send a new answer, or /skip to keep it.)" if current else ""
    if step == "interests":
        text = (
            "What do you want to read about? Describe your interests in your own words, one topic per line "
            "or separated by ';'.\nExample: sparse mixture-of-experts; theory of in-context learning" + keep
        )
    elif step == "avoid":
        text = "Anything you would rather not see? (e.g. medical imaging; benchmark-only papers)" + (
            keep or "\nSend /skip if nothing."
        )
    elif step == "authors":
        text = (
            "Any authors to follow? Their new papers always make your digest. Names separated by ';' or one "
            "per line (e.g. Yann LeCun; Y. Bengio)." + (keep or "\nSend /skip if none.")
        )
    elif step == "categories":
        collected = ", ".join(core.settings.categories)
        text = "Which arXiv categories should I look in? (e.g. cs.LG, cs.CL, stat.ML)" + (
            keep or f"\nSend /skip for everything I collect ({collected})."
        )
    elif step == "rate":
        return await _ask_rating(core, conv, prefix)
    elif step == "digest":
        text = (
            f"Would you like a digest of your own, ranked for you: off, daily or weekly? (now {conv.draft.digest_mode})"
        )
        choices = (Choice("off", "off"), Choice("daily", "daily"), Choice("weekly", "weekly"))
    elif step == "weekday":
        text = f"Which day should the weekly digest come? (now {WEEKDAYS[conv.draft.weekly_day % 7]})"
        choices = tuple(Choice(day, day) for day in WEEKDAYS)
    elif step == "time":
        text = f"At what time? (24-hour HH:MM, now {conv.draft.post_time})"
    else:
        text = f"In which time zone? (e.g. Europe/Berlin, America/New_York; now {conv.draft.timezone})"
    return _reply(conv, prefix, text, choices, cards)


def _reply(
    conv: Conversation,
    prefix: str,
    text: str,
    choices: tuple[Choice, ...] = (),
    cards: tuple[PaperCard, ...] = (),
) -> Reply:
    conv.choices = [[c.label, c.value] for c in choices]
    body = f"{prefix}\n\n{text}" if prefix else text
    return Reply(text=body, choices=choices, cards=cards, step=conv.step)


async def _ask_rating(core: Core, conv: Conversation, prefix: str) -> Reply:
    conv.step = "rate"
    if not conv.rate_ids:
        rated = {f.paper_id for f in await core.repo.user_feedback_rows(conv.user_key)}
        profile = build_profile(conv.draft, "draft")
        papers = await papers_to_rate(core, profile, rated | set(conv.draft.ratings)) if profile.topics else []
        conv.rate_ids = [p.id for p in papers]
        conv.rate_index = 0
    if conv.rate_index >= len(conv.rate_ids):
        note = "There are no stored papers to rate yet, so I skipped that." if not conv.rate_ids else ""
        return await _next(core, conv, "rate", _join(prefix, note))
    paper_id = conv.rate_ids[conv.rate_index]
    papers = await core.repo.get_papers([paper_id])
    if not papers:  # deleted meanwhile: move on
        conv.rate_index += 1
        return await _ask_rating(core, conv, prefix)
    tldr = (await core.repo.tldrs([paper_id])).get(paper_id, "")
    intro = (
        "Now rate a few recent papers so I learn what you like. They are picked to differ from each other.\n"
        if conv.rate_index == 0
        else ""
    )
    text = f"{intro}Paper {conv.rate_index + 1} of {len(conv.rate_ids)}: would you like papers like this one?"
    choices = (Choice("👍 up", "up"), Choice("👎 down", "down"), Choice("skip", "skip"))
    return _reply(conv, prefix, text, choices, (PaperCard(paper=papers[0], tldr=tldr),))


def _join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


# --- moving between steps ---


def _field_steps(field_name: str) -> tuple[str, ...]:
    return ("digest", "weekday", "time", "timezone") if field_name == "digest" else (FIELDS[field_name],)


def _following(conv: Conversation, step: str) -> str:
    """The step after `step` in the full onboarding order ('' when the profile is complete)."""
    if step == "digest":
        mode = conv.draft.digest_mode
        return "" if mode == "off" else ("weekday" if mode == "weekly" else "time")
    if step == "weekday":
        return "time"
    if step == "time":
        return "timezone"
    if step == "timezone":
        return ""
    order = ["interests", "avoid", "authors", "categories", "rate", "digest"]
    return order[order.index(step) + 1]


def _previous(conv: Conversation, step: str) -> str:
    order = ["interests", "avoid", "authors", "categories", "rate", "digest", "weekday", "time", "timezone"]
    index = order.index(step)
    while index > 0:
        index -= 1
        candidate = order[index]
        if candidate == "weekday" and conv.draft.digest_mode != "weekly":
            continue
        return candidate
    return ""


async def _next(core: Core, conv: Conversation, step: str, prefix: str = "") -> Reply:
    """Continue after `step` was answered: the next question, the end of an /edit detour, or saving."""
    following = _following(conv, step)
    field_name = _STEP_FIELD.get(step, step)
    end_of_field = not following or _STEP_FIELD.get(following, following) != field_name
    if end_of_field and conv.mode == "edit":
        return await _finish(core, conv, prefix)
    if end_of_field and conv.return_to:
        back, conv.return_to, conv.editing = conv.return_to, "", ""
        return await _ask(core, conv, back, _join(prefix, "Back to where we were."))
    if not following:
        return await _finish(core, conv, prefix)
    return await _ask(core, conv, following, prefix)


async def _finish(core: Core, conv: Conversation, prefix: str) -> Reply:
    user_key = conv.user_key
    draft = conv.draft
    if not draft.interests and not draft.authors:
        return await _ask(core, conv, "interests", _join(prefix, "I need at least one interest to rank papers by."))
    profile = build_profile(draft, profile_name(conv.display_name, user_key))
    await core.repo.ensure_user(user_key, conv.display_name)
    await core.repo.save_profile(profile_owner(user_key), profile)
    await core.repo.save_user_settings(
        user_key,
        digest_mode=draft.digest_mode,
        post_time=draft.post_time,
        timezone=draft.timezone,
        weekly_day=draft.weekly_day,
    )
    await learn.record_reactions(core, user_key, draft.ratings)
    conv.choices = []
    head = f"Saved your new {conv.editing}." if conv.mode == "edit" else "All set! Your profile is saved."
    shown = summary(draft, await _stored_ratings(core, user_key))
    text = "\n".join([*([prefix, ""] if prefix else []), head, "", shown, "", "Change one thing with /edit FIELD."])
    return Reply(text=text, step="", done=True, saved=True)


# --- answering each step ---


async def _answer_interests(core: Core, conv: Conversation, text: str) -> Reply:
    if text.lower() in _NOTHING:
        return _retry(conv, "Interests are what I rank papers by, so this one can't be skipped.")
    if not _has_words(text):
        return _retry(conv, "I need words to match papers against; emoji alone don't tell me what to look for.")
    items = split_items(text, MAX_TOPICS + 1)
    if len(items) > MAX_TOPICS:
        return _retry(conv, f"That's more than {MAX_TOPICS} topics; please merge some so each is a real theme.")
    too_short = [i for i in items if len(i) < 3 and not i.isupper()]
    if too_short or not items:
        return _retry(conv, "Could you say a bit more? A few words per topic help me find the right papers.")
    conv.draft.interests = items
    noted = "Noted " + (f"{len(items)} topics." if len(items) > 1 else "your interest.")
    return await _next(core, conv, "interests", noted)


async def _answer_avoid(core: Core, conv: Conversation, text: str) -> Reply:
    if text.lower() in _NOTHING:
        conv.draft.avoid = []
        return await _next(core, conv, "avoid", "Nothing to avoid, fine.")
    if not _has_words(text):
        return _retry(conv, "I can't tell what to avoid from emoji alone; please use words, or /skip.")
    items = split_items(text, MAX_AVOID + 1)
    if len(items) > MAX_AVOID:
        return _retry(conv, f"Please keep it to {MAX_AVOID} things to avoid; merge some of them.")
    conv.draft.avoid = items
    return await _next(core, conv, "avoid", f"I'll keep away from: {'; '.join(items)}.")


def _author_question(item: dict[str, Any]) -> tuple[str, tuple[Choice, ...]]:
    query = item["query"]
    candidates: list[str] = item.get("candidates", [])
    anyway = Choice(f"watch '{query}' anyway", "anyway")
    skip = Choice("skip this name", "skip")
    if item["kind"] == "ambiguous":
        text = f"Several authors match '{query}'. Which one do you mean?"
    elif item["kind"] == "close":
        text = f"I found no author called '{query}' in the stored papers. Did you mean one of these?"
    else:
        text = (
            f"I found no author called '{query}' in the stored papers. Watch for the name anyway (they may "
            "publish later), or send a corrected spelling?"
        )
    return text, (*(Choice(c, c) for c in candidates), anyway, skip)


async def _resolve_authors(core: Core, conv: Conversation, prefix: str) -> Reply:
    """Ask about the first unresolved name, or move on when none is left."""
    if conv.pending:
        text, choices = _author_question(conv.pending[0])
        return _reply(conv, prefix, text, choices)
    following = f"Following: {'; '.join(conv.draft.authors)}." if conv.draft.authors else "No authors to follow."
    return await _next(core, conv, "authors", _join(prefix, following))


async def _match_names(core: Core, conv: Conversation, names: list[str], first: bool = False) -> list[str]:
    """Add the names that match one stored author; queue the others as questions (`first`: ask them next)."""
    index = await author_index(core)
    notes: list[str] = []
    queued: list[dict[str, Any]] = []
    # typo matching compares against every stored name: off the event loop
    matches = await asyncio.to_thread(lambda: [index.match(name) for name in names])
    for name, found in zip(names, matches, strict=True):
        if found.kind == "exact":
            if found.name not in conv.draft.authors:
                conv.draft.authors.append(found.name)
            if fold(found.name) != fold(name):
                notes.append(f"'{name}' -> {found.name}")
        else:
            queued.append({"query": name[:120], "kind": found.kind, "candidates": list(found.candidates)})
    conv.pending = [*queued, *conv.pending] if first else [*conv.pending, *queued]
    return notes


async def _answer_authors(core: Core, conv: Conversation, text: str) -> Reply:
    if conv.pending:
        item = conv.pending[0]
        lowered = fold(text)
        chosen = next((c for c in item.get("candidates", []) if fold(c) == lowered), None)
        if chosen is not None:
            conv.pending.pop(0)
            if chosen not in conv.draft.authors:
                conv.draft.authors.append(chosen)
            return await _resolve_authors(core, conv, f"Added {chosen}.")
        if lowered in {"anyway", "yes", "y", "watch"}:
            conv.pending.pop(0)
            conv.draft.authors.append(item["query"])
            return await _resolve_authors(core, conv, f"I'll watch for '{item['query']}'.")
        if lowered in {"skip", "no", "n", "none"}:
            conv.pending.pop(0)
            return await _resolve_authors(core, conv, f"Skipped '{item['query']}'.")
        if not _has_words(text) or text.isdigit():
            # a number that is not one of the choices is a slip, never a new name (it would drop this one)
            count = len(conv.choices)
            options = "1 or 2" if count == 2 else f"1 to {count}"
            return _retry(
                conv, f"Pick {options}, send a corrected spelling of '{item['query']}', or /skip.", keep_choices=True
            )
        conv.pending.pop(0)  # a corrected spelling replaces the name being asked about
        notes = await _match_names(core, conv, split_names(text)[:MAX_NAMES], first=True)
        return await _resolve_authors(core, conv, ("Matched " + "; ".join(notes) + ".") if notes else "")
    if text.lower() in _NOTHING:
        conv.draft.authors = []
        return await _next(core, conv, "authors", "No authors to follow.")
    if not _has_words(text):
        return _retry(conv, "Author names need letters; emoji won't match anyone.")
    every = split_names(text)
    names = [name for name in every if _has_words(name) and not name.isdigit()]
    if len(names) > MAX_NAMES:
        return _retry(conv, f"Please send at most {MAX_NAMES} names at a time.")
    if any(len(n) > 120 for n in names):
        return _retry(conv, "That doesn't look like a list of names (one is over 120 characters).")
    conv.draft.authors = []
    notes = await _match_names(core, conv, names)
    if len(conv.draft.authors) > MAX_AUTHORS:
        conv.draft.authors = conv.draft.authors[:MAX_AUTHORS]
    prefix = ("Matched " + "; ".join(notes) + ".") if notes else ""
    if len(names) < len(every):
        prefix = _join(prefix, "I left out what isn't a name (emoji or numbers alone).")
    return await _resolve_authors(core, conv, prefix)


def _category_question(item: dict[str, Any]) -> tuple[str, tuple[Choice, ...]]:
    suggestions: list[str] = item.get("candidates", [])
    text = f"'{item['query']}' is {item['reason']}."
    text += " Did you mean one of these?" if suggestions else " Send a corrected category, or /skip."
    return text, (*(Choice(describe(c), c) for c in suggestions), Choice("skip it", "skip"))


def _split_categories(text: str) -> list[str]:
    parts: list[str] = []
    for chunk in re.split(r"[,;\n]+", text):
        chunk = chunk.strip()
        words = chunk.split()
        # "cs.LG cs.AI" is two codes; "machine learning" is one name
        if len(words) > 1 and all(check_category(w).ok for w in words):
            parts += words
        elif chunk:
            parts.append(chunk)
    return parts


async def _check_categories(core: Core, conv: Conversation, parts: list[str]) -> Reply:
    for part in parts:
        check = check_category(part)
        if check.code is not None:
            if check.code not in conv.draft.categories:
                conv.draft.categories.append(check.code)
        else:
            conv.pending.append({"query": check.text, "reason": check.reason, "candidates": list(check.suggestions)})
    conv.draft.categories = conv.draft.categories[:MAX_CATEGORIES]
    return await _resolve_categories(core, conv, "")


async def _resolve_categories(core: Core, conv: Conversation, prefix: str) -> Reply:
    if conv.pending:
        text, choices = _category_question(conv.pending[0])
        accepted = f"So far: {', '.join(conv.draft.categories)}." if conv.draft.categories else ""
        return _reply(conv, _join(prefix, accepted), text, choices)
    cats = conv.draft.categories
    if not cats:
        return await _next(core, conv, "categories", _join(prefix, "I'll look in every category I collect."))
    collected = set(core.settings.categories)
    outside = [c for c in cats if c not in collected]
    note = (
        f"Note: I collect {', '.join(sorted(collected))} only, so {', '.join(outside)} will show papers "
        "cross-listed there until an admin adds them."
        if outside
        else ""
    )
    return await _next(core, conv, "categories", _join(prefix, f"Categories: {', '.join(cats)}.", note))


async def _answer_categories(core: Core, conv: Conversation, text: str) -> Reply:
    if conv.pending:
        item = conv.pending[0]
        if text.lower() in {"skip", "no", "n", "none"}:
            conv.pending.pop(0)
            return await _resolve_categories(core, conv, f"Skipped '{item['query']}'.")
        if not _has_words(text):
            return _retry(conv, "Pick one of the suggestions, send a corrected category, or /skip.", True)
        conv.pending.pop(0)
        return await _check_categories(core, conv, _split_categories(text))
    if text.lower() in _NOTHING:
        conv.draft.categories = []
        return await _next(core, conv, "categories", "I'll look in every category I collect.")
    if not _has_words(text):
        return _retry(conv, "Categories are codes like cs.LG; emoji won't match one.")
    parts = _split_categories(text)
    if len(parts) > MAX_CATEGORIES:
        return _retry(conv, f"Please pick at most {MAX_CATEGORIES} categories.")
    conv.draft.categories = []
    return await _check_categories(core, conv, parts)


async def _answer_rate(core: Core, conv: Conversation, text: str) -> Reply:
    answer = text.lower()
    if conv.rate_index >= len(conv.rate_ids):
        return await _next(core, conv, "rate")
    paper_id = conv.rate_ids[conv.rate_index]
    if answer in _UP or answer.startswith("👍"):
        conv.draft.ratings[paper_id] = 1
    elif answer in _DOWN or answer.startswith("👎"):
        conv.draft.ratings[paper_id] = -1
    elif answer not in _SKIP:
        return _retry(conv, "That isn't a rating.", keep_choices=True)
    conv.rate_index += 1
    if conv.rate_index < len(conv.rate_ids):
        return await _ask_rating(core, conv, "")
    rated = sum(1 for pid in conv.rate_ids if pid in conv.draft.ratings)
    return await _next(core, conv, "rate", f"Thanks! {rated} of {len(conv.rate_ids)} papers rated.")


async def _answer_digest(core: Core, conv: Conversation, text: str) -> Reply:
    answer = text.lower()
    modes = {"off": "off", "no": "off", "none": "off", "never": "off", "daily": "daily", "day": "daily"}
    modes |= {"every day": "daily", "weekly": "weekly", "week": "weekly", "once a week": "weekly"}
    mode = modes.get(answer)
    if mode is None:
        return _retry(conv, "Please pick one of the options.", keep_choices=True)
    conv.draft.digest_mode = mode
    note = "No personal digest; you can still ask for one any time." if mode == "off" else f"A {mode} digest it is."
    return await _next(core, conv, "digest", note)


async def _answer_setting(core: Core, conv: Conversation, text: str) -> Reply:
    step = conv.step
    try:
        if step == "weekday":
            conv.draft.weekly_day = parse_weekday(text)
            note = f"On {WEEKDAYS[conv.draft.weekly_day]}s."
        elif step == "time":
            conv.draft.post_time = parse_post_time(text)
            note = f"At {conv.draft.post_time}."
        else:
            conv.draft.timezone = parse_timezone(text)
            note = f"Time zone {conv.draft.timezone}."
    except SettingError as exc:
        if exc.suggestions:
            choices = tuple(Choice(s, s) for s in exc.suggestions)
            return _reply(conv, "", f"{exc}. Did you mean one of these?", choices)
        if step == "weekday":
            return _retry(conv, "That isn't a day of the week.", keep_choices=True)
        return _retry(conv, f"{exc}.", keep_choices=True, with_hint=step == "timezone")
    return await _next(core, conv, step, note)


def _retry(conv: Conversation, message: str, keep_choices: bool = False, with_hint: bool = True) -> Reply:
    """A helpful reply that stays at the same step (the choices of the question stay valid if asked)."""
    if not keep_choices:
        conv.choices = []
    hint = _HINTS.get(conv.step, "") if with_hint else ""
    text = message if hint in message else _join(message, hint)
    return Reply(text=text, step=conv.step, choices=conv.choice_tuple())


_ANSWERS = {
    "interests": _answer_interests,
    "avoid": _answer_avoid,
    "authors": _answer_authors,
    "categories": _answer_categories,
    "rate": _answer_rate,
    "digest": _answer_digest,
    "weekday": _answer_setting,
    "time": _answer_setting,
    "timezone": _answer_setting,
}


# --- commands ---


async def _skip(core: Core, conv: Conversation) -> Reply:
    step = conv.step
    if step == "interests":
        if conv.draft.interests:
            return await _next(core, conv, step, "Kept your interests.")
        return _retry(conv, "Interests are what I rank papers by, so this one can't be skipped.")
    # with a name or category in question, /skip leaves out that one, like its "skip" button
    if step == "authors" and conv.pending:
        return await _resolve_authors(core, conv, f"Skipped '{conv.pending.pop(0)['query']}'.")
    if step == "categories" and conv.pending:
        return await _resolve_categories(core, conv, f"Skipped '{conv.pending.pop(0)['query']}'.")
    if step == "rate":
        conv.rate_index = len(conv.rate_ids)
        return await _next(core, conv, step, "Skipped the rest of the ratings.")
    if step in ("avoid", "authors", "categories") and _current(conv, step):
        return await _next(core, conv, step, f"Kept your {step}.")
    # optional steps without an answer yet, and digest settings, which always have a value to keep
    return await _next(core, conv, step, "Skipped." if step in ("avoid", "authors", "categories") else "Kept it.")


async def _edit(core: Core, conv: Conversation, argument: str) -> Reply:
    name = argument.strip().lower()
    name = _FIELD_ALIASES.get(name, name)
    if name not in FIELDS:
        return _retry(conv, _which_field(name), keep_choices=True)
    if conv.mode == "onboarding" and FIELDS[name] != conv.step:
        conv.return_to = conv.return_to or conv.step
    conv.editing = name
    if name == "ratings":
        conv.rate_ids, conv.rate_index = [], 0
    return await _ask(core, conv, _field_steps(name)[0], f"Let's change your {name}.")


def _which_field(typed: str) -> str:
    """'/edit autors' -> did you mean authors?; '/edit' alone lists the fields."""
    fields = ", ".join(FIELDS)
    close = difflib.get_close_matches(typed, [*FIELDS, *_FIELD_ALIASES], n=1, cutoff=0.6) if typed else []
    if close:
        meant = _FIELD_ALIASES.get(close[0], close[0])
        return f"There is no field '{typed[:30]}'; did you mean /edit {meant}? The fields: {fields}."
    return f"Which field? /edit one of: {fields}."


async def _back(core: Core, conv: Conversation) -> Reply:
    previous = _previous(conv, conv.step)
    first_of_field = conv.mode == "edit" and conv.step == _field_steps(conv.editing)[0]
    if not previous or first_of_field:
        return _retry(conv, "This is the first question; /cancel stops instead.", keep_choices=True)
    if previous == "rate":
        conv.rate_index = max(0, len(conv.rate_ids) - 1)
        if conv.rate_ids:
            return await _ask_rating(core, conv, "Back to the last paper.")
    return await _ask(core, conv, previous, "Going back.")


async def _command(core: Core, conv: Conversation, text: str) -> Reply | None:
    """Run a /command; None means the conversation was cancelled."""
    word, _, argument = text.partition(" ")
    word = word.lower().split("@", 1)[0]  # Telegram appends @botname in groups
    if word == "/cancel":
        return None
    if word == "/help":
        return await _again(core, conv, _HELP)
    if word == "/status":
        head = "Your answers so far:" if conv.mode == "onboarding" else "Your profile (not saved until the end):"
        return await _again(core, conv, _join(head, summary(conv.draft)))
    if word == "/skip":
        return await _skip(core, conv)
    if word == "/back":
        return await _back(core, conv)
    if word == "/edit":
        return await _edit(core, conv, argument)
    if word in ("/start", "/interests", "/profile"):
        return await _again(core, conv, "We're in the middle of setting up your profile; here is where we were.")
    return await _again(core, conv, f"I don't know {word[:30]} here. {_HELP}")


async def _again(core: Core, conv: Conversation, prefix: str) -> Reply:
    """Ask the current question again (a pending author or category question included), after `prefix`."""
    if conv.pending:
        asker = _author_question if conv.step == "authors" else _category_question
        text, choices = asker(conv.pending[0])
        return _reply(conv, prefix, text, choices)
    if conv.step == "rate":
        return await _ask_rating(core, conv, prefix)
    return await _ask(core, conv, conv.step, prefix)


# --- the entry points adapters call ---


async def advance(core: Core, conv: Conversation, raw: str) -> tuple[Conversation | None, Reply]:
    """One turn: the new state (None once the conversation ended) and the reply.

    Only the end of the conversation writes anything (profile, settings, ratings); storing the state between
    turns is the caller's job (`handle` does it).
    """
    text = clean_input(raw)
    if conv.choices and text.isdigit() and 1 <= int(text) <= len(conv.choices):
        text = conv.choices[int(text) - 1][1]
    if len(text) > MAX_INPUT:
        reply = _retry(
            conv,
            f"That message is {len(text):,} characters; answers here are limited to {MAX_INPUT:,}. "
            "A few lines are plenty.",
            keep_choices=True,
        )
    elif text.startswith("/"):
        command_reply = await _command(core, conv, text)
        if command_reply is None:
            return None, _cancelled(conv)
        reply = command_reply
    elif not text:
        reply = _retry(conv, "I didn't get an answer.", keep_choices=True)
    else:
        reply = await _ANSWERS[conv.step](core, conv, text)
    return (None if reply.done else conv), reply


def _cancelled(conv: Conversation) -> Reply:
    if conv.mode == "edit":
        text = f"Cancelled; your {conv.editing or 'profile'} is unchanged."
    else:
        text = "Cancelled. Nothing new was saved; anything saved before is unchanged. Send /start to begin again."
    return Reply(text=text, step="", done=True)


async def load(core: Core, user_key: str) -> Conversation | None:
    """The user's unfinished conversation, if any (an unreadable or foreign one is dropped)."""
    stored = await core.repo.chat_state(user_key, STATE_KIND)
    if not stored:
        return None
    try:
        conv = Conversation.from_json(stored)
    except (ValueError, TypeError, KeyError):
        conv = None
    if conv is None or conv.user_key != user_key:
        await core.repo.save_chat_state(user_key, STATE_KIND, "")
        return None
    return conv


async def _store(core: Core, conv: Conversation | None, user_key: str) -> None:
    await core.repo.save_chat_state(user_key, STATE_KIND, conv.to_json() if conv else "")


# Commands the conversation answers itself while it waits for an answer (the chat controller hands them over).
FLOW_COMMANDS = frozenset({"cancel", "help", "status", "skip", "back", "edit", "start", "interests", "profile"})


async def current_step(core: Core, user_key: str) -> str:
    """The step the user's unfinished conversation waits at ('' when there is none)."""
    conv = await load(core, user_key)
    return conv.step if conv else ""


async def is_active(core: Core, user_key: str) -> bool:
    """True when the user is in the middle of onboarding or editing."""
    return await load(core, user_key) is not None


async def _start(core: Core, user_key: str, display_name: str) -> Reply:
    if await load(core, user_key) is not None:
        return await _resume(core, user_key) or Reply(text=_HELP)
    # no `users` row yet: someone who starts and cancels has not become a member
    name = _one_line(clean_input(display_name), 80)
    profile = await core.repo.get_profile(profile_owner(user_key))
    user = await core.repo.get_user(user_key)
    conv = Conversation(
        user_key=user_key,
        display_name=name or (user.display_name if user else ""),
        draft=draft_from_saved(profile, user),
    )
    greeting = (
        "Let's go through your profile again; /skip keeps an answer as it is."
        if profile
        else "Hi! Let's set up your personal paper feed. It takes about two minutes; /cancel stops at any time, "
        "and you can leave and come back later to continue."
    )
    reply = await _ask(core, conv, "interests", greeting)
    await _store(core, conv, user_key)
    return reply


async def _begin_edit(core: Core, user_key: str, field_name: str) -> Reply:
    if await load(core, user_key) is not None:
        return await _handle(core, user_key, f"/edit {field_name}")
    profile = await core.repo.get_profile(profile_owner(user_key))
    if profile is None:
        return Reply(text="You have no profile yet; send /start to make one.", done=True)
    name = _FIELD_ALIASES.get(field_name.strip().lower(), field_name.strip().lower())
    if name not in FIELDS:
        return Reply(text=_which_field(name), done=True)
    user = await core.repo.get_user(user_key)
    conv = Conversation(
        user_key=user_key,
        mode="edit",
        editing=name,
        display_name=user.display_name if user else "",
        draft=draft_from_saved(profile, user),
    )
    reply = await _ask(core, conv, _field_steps(name)[0], f"Editing your {name}; /cancel keeps it as it is.")
    await _store(core, None if reply.done else conv, user_key)
    return reply


async def _handle(core: Core, user_key: str, text: str) -> Reply:
    conv = await load(core, user_key)
    if conv is None:
        cleaned = clean_input(text)
        command = cleaned.split(" ", 1)[0].lower().split("@", 1)[0]
        if command == "/edit":
            return await _begin_edit(core, user_key, cleaned.partition(" ")[2])
        if command in ("/start", "/interests") or await core.repo.get_profile(profile_owner(user_key)) is None:
            return await _start(core, user_key, "")
        return Reply(
            text="Your profile is set up. /edit FIELD changes one answer; /start goes through all of it again.",
            done=True,
        )
    new_state, reply = await advance(core, conv, text)
    await _store(core, new_state, user_key)
    return reply


async def _resume(core: Core, user_key: str) -> Reply | None:
    conv = await load(core, user_key)
    if conv is None:
        return None
    reply = await _again(core, conv, "Welcome back! Let's continue where we stopped.")
    await _store(core, None if reply.done else conv, user_key)
    return reply


# One step at a time per user: every entry point reads the stored state, changes it and stores it again, and
# adapters may deliver two messages of one user at once.


async def start(core: Core, user_key: str, display_name: str = "") -> Reply:
    """Begin onboarding (pre-filled from a stored profile, if any), or resume an unfinished conversation."""
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _start(core, user_key, display_name)


async def begin_edit(core: Core, user_key: str, field_name: str) -> Reply:
    """Change one field of a saved profile (or, during onboarding, jump to that field and come back)."""
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _begin_edit(core, user_key, field_name)


async def handle(core: Core, user_key: str, text: str) -> Reply:
    """Feed one message (or button value) into the user's conversation and return what to show them.

    Without a conversation in progress, /edit FIELD starts editing that field; /start (or any message from someone
    without a profile) starts onboarding.
    """
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _handle(core, user_key, text)


async def resume(core: Core, user_key: str) -> Reply | None:
    """Re-ask the question an unfinished conversation stopped at (None when there is none)."""
    check_user_key(user_key)
    async with core.user_locks(user_key):
        return await _resume(core, user_key)


async def show_profile(core: Core, user_key: str) -> str:
    """The stored profile and digest settings as text ('' when the user has none)."""
    profile = await core.repo.get_profile(profile_owner(user_key))
    if profile is None:
        return ""
    user = await core.repo.get_user(user_key)
    return summary(draft_from_saved(profile, user), await _stored_ratings(core, user_key))


async def _stored_ratings(core: Core, user_key: str) -> dict[str, int]:
    return {f.paper_id: f.value for f in await core.repo.user_feedback_rows(user_key)}
