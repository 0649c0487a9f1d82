"""The onboarding steps, declared once: what each asks, how it reads an answer, what /skip does there.

`FLOW` is the whole conversation in order; the engine (`bot.members.onboarding.flow`) derives from it the next and
previous
question (steps whose `applies` is false for the draft are passed over: no weekday unless the digest is weekly),
the steps of each field `/edit` can change, and the hint a bad answer gets. A handler returns a `Reply` to stay
at its step (a question again, or a follow-up such as "did you mean ...?"), or `Answered` when the step is done
and the conversation moves on.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.core import Core
from bot.ingest.taxonomy import check_category, describe
from bot.members.onboarding.drafts import build_profile
from bot.members.onboarding.hygiene import has_words, split_items
from bot.members.onboarding.rating import papers_to_rate
from bot.members.onboarding.state import Choice, Draft, OnboardingState, Reply
from bot.members.settings import WEEKDAYS, SettingError, parse_post_time, parse_timezone, parse_weekday
from bot.questions.authors import MAX_NAMES, author_index, split_names
from bot.ranking.interest_spelling import corrected_items, read_as
from bot.text.names import fold
from bot.text.tldr import shown_tldrs
from bot.views.model import PaperView, paper_view

MAX_TOPICS = 12
MAX_AVOID = 12
MAX_AUTHORS = 50
MAX_CATEGORIES = 20

_NOTHING = {"none", "nothing", "no", "nope", "n/a", "na", "-", "skip", "nobody", "no one", "all", "any"}
_UP = {"up", "+", "+1", "👍", "y", "yes", "like", "good", "relevant"}
_DOWN = {"down", "-", "-1", "👎", "n", "no", "dislike", "bad", "irrelevant"}
_SKIP = {"skip", "s", "pass", "?", "unsure", "not sure", "dunno"}


@dataclass(frozen=True, slots=True)
class Answered:
    """A step is done: the conversation moves on from `step`, saying `note` first."""

    step: str
    note: str = ""


Outcome = Reply | Answered


def _join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def _list_or(items: list[str], empty: str) -> str:
    return "; ".join(items) if items else empty


def reply_to(
    conv: OnboardingState,
    prefix: str,
    text: str,
    choices: tuple[Choice, ...] = (),
    cards: tuple[PaperView, ...] = (),
) -> Reply:
    conv.choices = [[c.label, c.value] for c in choices]
    body = f"{prefix}\n\n{text}" if prefix else text
    return Reply(text=body, choices=choices, cards=cards, step=conv.step)


def retry(conv: OnboardingState, message: str, keep_choices: bool = False, with_hint: bool = True) -> Reply:
    """A helpful reply that stays at the same step (the choices of the question stay valid if asked)."""
    if not keep_choices:
        conv.choices = []
    hint = STEP_BY_NAME[conv.step].hint if with_hint and conv.step in STEP_BY_NAME else ""
    text = message if hint in message else _join(message, hint)
    return Reply(text=text, step=conv.step, choices=conv.choice_tuple())


def _keep(conv: OnboardingState, step: str, otherwise: str = "") -> str:
    # Shown when a step is revisited (edit, /back, pre-filled onboarding) so /skip keeps something visible.
    current = STEP_BY_NAME[step].now(conv.draft)
    return f"\nNow: {current}\n(Send a new answer, or /skip to keep it.)" if current else otherwise


# --- asking ---


async def _ask_interests(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    text = (
        "What do you want to read about? Describe your interests in your own words, one topic per line "
        "or separated by ';'.\nExample: sparse mixture-of-experts; theory of in-context learning"
        + _keep(conv, "interests")
    )
    return reply_to(conv, prefix, text)


async def _ask_avoid(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    text = "Anything you would rather not see? (e.g. medical imaging; benchmark-only papers)"
    return reply_to(conv, prefix, text + _keep(conv, "avoid", "\nSend /skip if nothing."))


async def _ask_authors(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    text = (
        "Any authors to follow? Their new papers always make your digest. Names separated by ';' or one "
        "per line (e.g. Yann LeCun; Y. Bengio)."
    )
    return reply_to(conv, prefix, text + _keep(conv, "authors", "\nSend /skip if none."))


async def _ask_categories(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    collected = ", ".join(core.settings.categories)
    text = "Which arXiv categories should I look in? (e.g. cs.LG, cs.CL, stat.ML)"
    return reply_to(
        conv, prefix, text + _keep(conv, "categories", f"\nSend /skip for everything I collect ({collected}).")
    )


async def _ask_digest(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    text = f"Would you like a digest of your own, ranked for you: off, daily or weekly? (now {conv.draft.digest_mode})"
    return reply_to(conv, prefix, text, (Choice("off", "off"), Choice("daily", "daily"), Choice("weekly", "weekly")))


async def _ask_weekday(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    text = f"Which day should the weekly digest come? (now {WEEKDAYS[conv.draft.weekly_day % 7]})"
    return reply_to(conv, prefix, text, tuple(Choice(day, day) for day in WEEKDAYS))


async def _ask_time(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    return reply_to(conv, prefix, f"At what time? (24-hour HH:MM, now {conv.draft.post_time})")


async def _ask_timezone(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    text = f"In which time zone? (e.g. Europe/Berlin, America/New_York; now {conv.draft.timezone})"
    return reply_to(conv, prefix, text)


# --- answering ---


async def _answer_interests(core: Core, conv: OnboardingState, text: str) -> Outcome:
    if text.lower() in _NOTHING:
        return retry(conv, "Interests are what I rank papers by, so this one can't be skipped.")
    if not has_words(text):
        return retry(conv, "I need words to match papers against; emoji alone don't tell me what to look for.")
    items = split_items(text, MAX_TOPICS + 1)
    if len(items) > MAX_TOPICS:
        return retry(conv, f"That's more than {MAX_TOPICS} topics; please merge some so each is a real theme.")
    too_short = [i for i in items if len(i) < 3 and not i.isupper()]
    if too_short or not items:
        return retry(conv, "Could you say a bit more? A few words per topic help me find the right papers.")
    items, made = await corrected_items(core, items)
    conv.draft.interests = items
    noted = "Noted " + (f"{len(items)} topics." if len(items) > 1 else "your interest.")
    return Answered("interests", _join(noted, read_as(made)))


async def _answer_avoid(core: Core, conv: OnboardingState, text: str) -> Outcome:
    if text.lower() in _NOTHING:
        conv.draft.avoid = []
        return Answered("avoid", "Nothing to avoid, fine.")
    if not has_words(text):
        return retry(conv, "I can't tell what to avoid from emoji alone; please use words, or /skip.")
    items = split_items(text, MAX_AVOID + 1)
    if len(items) > MAX_AVOID:
        return retry(conv, f"Please keep it to {MAX_AVOID} things to avoid; merge some of them.")
    items, made = await corrected_items(core, items)
    conv.draft.avoid = items
    return Answered("avoid", _join(f"I'll keep away from: {'; '.join(items)}.", read_as(made)))


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


async def _resolve_authors(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    """Ask about the first unresolved name, or move on when none is left."""
    if conv.pending:
        text, choices = _author_question(conv.pending[0])
        return reply_to(conv, prefix, text, choices)
    following = f"Following: {'; '.join(conv.draft.authors)}." if conv.draft.authors else "No authors to follow."
    return Answered("authors", _join(prefix, following))


async def _match_names(core: Core, conv: OnboardingState, names: list[str], first: bool = False) -> list[str]:
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


async def _answer_authors(core: Core, conv: OnboardingState, text: str) -> Outcome:
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
        if not has_words(text) or text.isdigit():
            # a number that is not one of the choices is a slip, never a new name (it would drop this one)
            count = len(conv.choices)
            options = "1 or 2" if count == 2 else f"1 to {count}"
            return retry(
                conv, f"Pick {options}, send a corrected spelling of '{item['query']}', or /skip.", keep_choices=True
            )
        conv.pending.pop(0)  # a corrected spelling replaces the name being asked about
        notes = await _match_names(core, conv, split_names(text)[:MAX_NAMES], first=True)
        return await _resolve_authors(core, conv, ("Matched " + "; ".join(notes) + ".") if notes else "")
    if text.lower() in _NOTHING:
        conv.draft.authors = []
        return Answered("authors", "No authors to follow.")
    if not has_words(text):
        return retry(conv, "Author names need letters; emoji won't match anyone.")
    every = split_names(text)
    names = [name for name in every if has_words(name) and not name.isdigit()]
    if len(names) > MAX_NAMES:
        return retry(conv, f"Please send at most {MAX_NAMES} names at a time.")
    if any(len(n) > 120 for n in names):
        return retry(conv, "That doesn't look like a list of names (one is over 120 characters).")
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


async def _check_categories(core: Core, conv: OnboardingState, parts: list[str]) -> Outcome:
    for part in parts:
        check = check_category(part)
        if check.code is not None:
            if check.code not in conv.draft.categories:
                conv.draft.categories.append(check.code)
        else:
            conv.pending.append({"query": check.text, "reason": check.reason, "candidates": list(check.suggestions)})
    conv.draft.categories = conv.draft.categories[:MAX_CATEGORIES]
    return await _resolve_categories(core, conv, "")


async def _resolve_categories(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    if conv.pending:
        text, choices = _category_question(conv.pending[0])
        accepted = f"So far: {', '.join(conv.draft.categories)}." if conv.draft.categories else ""
        return reply_to(conv, _join(prefix, accepted), text, choices)
    cats = conv.draft.categories
    if not cats:
        return Answered("categories", _join(prefix, "I'll look in every category I collect."))
    collected = set(core.settings.categories)
    outside = [c for c in cats if c not in collected]
    note = (
        f"Note: I collect {', '.join(sorted(collected))} only, so {', '.join(outside)} will show papers "
        "cross-listed there until an admin adds them."
        if outside
        else ""
    )
    return Answered("categories", _join(prefix, f"Categories: {', '.join(cats)}.", note))


async def _answer_categories(core: Core, conv: OnboardingState, text: str) -> Outcome:
    if conv.pending:
        item = conv.pending[0]
        if text.lower() in {"skip", "no", "n", "none"}:
            conv.pending.pop(0)
            return await _resolve_categories(core, conv, f"Skipped '{item['query']}'.")
        if not has_words(text):
            return retry(conv, "Pick one of the suggestions, send a corrected category, or /skip.", True)
        conv.pending.pop(0)
        return await _check_categories(core, conv, _split_categories(text))
    if text.lower() in _NOTHING:
        conv.draft.categories = []
        return Answered("categories", "I'll look in every category I collect.")
    if not has_words(text):
        return retry(conv, "Categories are codes like cs.LG; emoji won't match one.")
    parts = _split_categories(text)
    if len(parts) > MAX_CATEGORIES:
        return retry(conv, f"Please pick at most {MAX_CATEGORIES} categories.")
    conv.draft.categories = []
    return await _check_categories(core, conv, parts)


async def _ask_rating(core: Core, conv: OnboardingState, prefix: str) -> Outcome:
    conv.step = "rate"
    if not conv.rate_ids:
        rated = {f.paper_id for f in await core.repo.user_feedback_rows(conv.user_key)}
        profile = build_profile(conv.draft, "draft")
        papers = await papers_to_rate(core, profile, rated | set(conv.draft.ratings)) if profile.topics else []
        conv.rate_ids = [p.id for p in papers]
        conv.rate_index = 0
    if conv.rate_index >= len(conv.rate_ids):
        note = "There are no stored papers to rate yet, so I skipped that." if not conv.rate_ids else ""
        return Answered("rate", _join(prefix, note))
    paper_id = conv.rate_ids[conv.rate_index]
    papers = await core.repo.get_papers([paper_id])
    if not papers:  # deleted meanwhile: move on
        conv.rate_index += 1
        return await _ask_rating(core, conv, prefix)
    tldr = (await shown_tldrs(core, papers[:1]))[paper_id]
    intro = (
        "Now rate a few recent papers so I learn what you like. They are picked to differ from each other.\n"
        if conv.rate_index == 0
        else ""
    )
    text = f"{intro}Paper {conv.rate_index + 1} of {len(conv.rate_ids)}: would you like papers like this one?"
    choices = (Choice("👍 up", "up"), Choice("👎 down", "down"), Choice("skip", "skip"))
    return reply_to(conv, prefix, text, choices, (paper_view(papers[0], tldr=tldr, actions=()),))


async def _answer_rate(core: Core, conv: OnboardingState, text: str) -> Outcome:
    answer = text.lower()
    if conv.rate_index >= len(conv.rate_ids):
        return Answered("rate")
    paper_id = conv.rate_ids[conv.rate_index]
    if answer in _UP or answer.startswith("👍"):
        conv.draft.ratings[paper_id] = 1
    elif answer in _DOWN or answer.startswith("👎"):
        conv.draft.ratings[paper_id] = -1
    elif answer not in _SKIP:
        return retry(conv, "That isn't a rating.", keep_choices=True)
    conv.rate_index += 1
    if conv.rate_index < len(conv.rate_ids):
        return await _ask_rating(core, conv, "")
    rated = sum(1 for pid in conv.rate_ids if pid in conv.draft.ratings)
    return Answered("rate", f"Thanks! {rated} of {len(conv.rate_ids)} papers rated.")


async def _answer_digest(core: Core, conv: OnboardingState, text: str) -> Outcome:
    answer = text.lower()
    modes = {"off": "off", "no": "off", "none": "off", "never": "off", "daily": "daily", "day": "daily"}
    modes |= {"every day": "daily", "weekly": "weekly", "week": "weekly", "once a week": "weekly"}
    mode = modes.get(answer)
    if mode is None:
        return retry(conv, "Please pick one of the options.", keep_choices=True)
    conv.draft.digest_mode = mode
    note = "No personal digest; you can still ask for one any time." if mode == "off" else f"A {mode} digest it is."
    return Answered("digest", note)


async def _answer_setting(core: Core, conv: OnboardingState, text: str) -> Outcome:
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
            return reply_to(conv, "", f"{exc}. Did you mean one of these?", choices)
        if step == "weekday":
            return retry(conv, "That isn't a day of the week.", keep_choices=True)
        return retry(conv, f"{exc}.", keep_choices=True, with_hint=step == "timezone")
    return Answered(step, note)


# --- /skip at each step ---


async def _skip_interests(core: Core, conv: OnboardingState) -> Outcome:
    if conv.draft.interests:
        return Answered("interests", "Kept your interests.")
    return retry(conv, "Interests are what I rank papers by, so this one can't be skipped.")


async def _skip_optional(core: Core, conv: OnboardingState) -> Outcome:
    # avoid, authors and categories: /skip keeps what is there, or leaves the answer empty
    step = conv.step
    if step == "authors" and conv.pending:  # with a name in question, /skip leaves out that one
        return await _resolve_authors(core, conv, f"Skipped '{conv.pending.pop(0)['query']}'.")
    if step == "categories" and conv.pending:
        return await _resolve_categories(core, conv, f"Skipped '{conv.pending.pop(0)['query']}'.")
    return Answered(step, f"Kept your {step}." if STEP_BY_NAME[step].now(conv.draft) else "Skipped.")


async def _skip_rating(core: Core, conv: OnboardingState) -> Outcome:
    conv.rate_index = len(conv.rate_ids)
    return Answered("rate", "Skipped the rest of the ratings.")


async def _skip_setting(core: Core, conv: OnboardingState) -> Outcome:
    return Answered(conv.step, "Kept it.")  # digest settings always have a value to keep


# --- the table ---

AskFn = Callable[[Core, OnboardingState, str], Awaitable[Outcome]]
AnswerFn = Callable[[Core, OnboardingState, str], Awaitable[Outcome]]
SkipFn = Callable[[Core, OnboardingState], Awaitable[Outcome]]


def _always(draft: Draft) -> bool:
    return True


def _nothing(draft: Draft) -> str:
    return ""


@dataclass(frozen=True, slots=True)
class Step:
    """One question of the onboarding: its handlers, the /edit field it belongs to, and its hint."""

    name: str
    field: str
    ask: AskFn
    answer: AnswerFn
    skip: SkipFn
    hint: str
    now: Callable[[Draft], str] = _nothing  # the current answer, shown when the step is revisited
    applies: Callable[[Draft], bool] = _always
    pending_question: Callable[[dict[str, Any]], tuple[str, tuple[Choice, ...]]] | None = None


FLOW: tuple[Step, ...] = (
    Step(
        "interests",
        "interests",
        _ask_interests,
        _answer_interests,
        _skip_interests,
        "Describe what you want to read about, one topic per line or separated by ';'. "
        "For example: sparse mixture-of-experts; theory of in-context learning",
        now=lambda d: _list_or(d.interests, ""),
    ),
    Step(
        "avoid",
        "avoid",
        _ask_avoid,
        _answer_avoid,
        _skip_optional,
        "Name what you would rather not see, separated by ';' (e.g. medical imaging; benchmark-only papers), "
        "or send /skip.",
        now=lambda d: _list_or(d.avoid, ""),
    ),
    Step(
        "authors",
        "authors",
        _ask_authors,
        _answer_authors,
        _skip_optional,
        "Send author names separated by ';' or one per line (e.g. Yann LeCun; Y. Bengio), or /skip.",
        now=lambda d: _list_or(d.authors, ""),
        pending_question=_author_question,
    ),
    Step(
        "categories",
        "categories",
        _ask_categories,
        _answer_categories,
        _skip_optional,
        "Send arXiv categories like cs.LG, cs.CL or stat.ML (separated by commas), or /skip for all.",
        now=lambda d: ", ".join(d.categories),
        pending_question=_category_question,
    ),
    Step(
        "rate",
        "ratings",
        _ask_rating,
        _answer_rate,
        _skip_rating,
        "Answer up (👍), down (👎) or skip for this paper, or /skip to stop rating.",
    ),
    Step("digest", "digest", _ask_digest, _answer_digest, _skip_setting, "Answer off, daily or weekly."),
    Step(
        "weekday",
        "digest",
        _ask_weekday,
        _answer_setting,
        _skip_setting,
        "Answer a day of the week, e.g. Monday.",
        applies=lambda d: d.digest_mode == "weekly",
    ),
    Step(
        "time",
        "digest",
        _ask_time,
        _answer_setting,
        _skip_setting,
        "Answer a time like 08:30, 18:00 or 7pm.",
        applies=lambda d: d.digest_mode != "off",
    ),
    Step(
        "timezone",
        "digest",
        _ask_timezone,
        _answer_setting,
        _skip_setting,
        "Answer a time zone like Europe/Berlin, America/New_York, Asia/Tokyo or UTC.",
        applies=lambda d: d.digest_mode != "off",
    ),
)
STEP_BY_NAME = {step.name: step for step in FLOW}
STEPS = tuple(step.name for step in FLOW)
FIELDS: dict[str, str] = {}  # what /edit accepts -> the first step of that field
for _step in FLOW:
    FIELDS.setdefault(_step.field, _step.name)
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
