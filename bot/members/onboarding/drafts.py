"""Between a conversation's `Draft` and a stored `Profile`: building one from the other, and a summary of either."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.ingest.taxonomy import describe
from bot.members.onboarding.hygiene import one_line
from bot.members.onboarding.state import Draft
from bot.members.settings import describe_settings
from bot.models import Profile, Topic, UserRecord
from bot.store.profile_format import topic_name


def profile_name(display_name: str, user_key: str) -> str:
    """The name a personal profile (and its digest header) carries."""
    who = one_line(display_name, 40) or user_key.partition(":")[2][:40] or user_key
    return f"{who} (personal)"


def build_profile(draft: Draft, name: str) -> Profile:
    """The profile a finished draft describes: one topic per interest, and what to avoid once for all of them."""
    topics = tuple(Topic(name=topic_name(w), want=w) for w in draft.interests)
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
