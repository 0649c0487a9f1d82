"""The profile format: a parsed profile (TOML or JSON shape) checked and made a `Profile`, and a `Profile` as the
JSON the profiles table stores. TOML files are read by `bot.ranking.profiles`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bot.errors import InputError
from bot.ingest.taxonomy import UnknownCategory, validate_category
from bot.models import Profile, Topic
from bot.text.safetext import short_phrase

TOPIC_NAME_CHARS = 40  # a topic named after its want text: shortened at a word, it names the topic in reasons
MAX_TEXT = 2000  # one topic's want/avoid text; longer text is almost always a paste accident
MAX_LIST = 200
MAX_TOPICS = 50  # a 10,000-topic profile made one digest take 50 s; people write a handful

_TOP_KEYS = {"name", "categories", "authors", "avoid", "topics", "keywords", "scoring", "description"}
_TOPIC_KEYS = {"name", "want", "avoid"}
_KEYWORD_KEYS = {"boost", "penalize", "applications"}
_SCORING_KEYS = {"keep_if"}


def topic_name(want: str) -> str:
    """The name of a topic given only its want text (a one-line interest): the text shortened at a word."""
    return short_phrase(want, TOPIC_NAME_CHARS)


class ProfileError(InputError, ValueError):
    """A profile file or mapping that cannot be used, with a message naming the problem."""


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProfileError(f"{where} must be a list of strings")
    if len(value) > MAX_LIST:
        raise ProfileError(f"{where} has {len(value)} entries; at most {MAX_LIST}")
    return tuple(v.strip() for v in value if v.strip())


def _categories(typed: tuple[str, ...], strict: bool) -> tuple[str, ...]:
    """Canonical arXiv codes ("cs.lg" -> "cs.LG"): papers are matched by exact code, so a typo must not pass."""
    codes: list[str] = []
    for text in typed:
        try:
            code = validate_category(text)
        except UnknownCategory as exc:
            if strict:
                raise ProfileError(f"categories: {exc}") from None
            code = text
        if code not in codes:
            codes.append(code)
    return tuple(codes)


def _text(value: Any, where: str, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ProfileError(f"{where} must be {'non-empty ' if required else ''}text")
    if len(value) > MAX_TEXT:
        raise ProfileError(f"{where} is {len(value)} characters; at most {MAX_TEXT}")
    return value.strip()


def _unknown(keys: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(keys) - allowed)
    if extra:
        raise ProfileError(f"unknown field {extra[0]!r} in {where} (allowed: {', '.join(sorted(allowed))})")


def profile_from_mapping(data: Mapping[str, Any], strict_categories: bool = True) -> Profile:
    """Validate a parsed profile (TOML or JSON shape) and build a `Profile`.

    Categories become canonical arXiv codes; an unknown one is an error unless `strict_categories` is False (a
    stored profile written before categories were checked keeps it, so reading it never fails).
    """
    _unknown(data, _TOP_KEYS, "profile")
    topics_raw = data.get("topics", [])
    if not isinstance(topics_raw, list):
        raise ProfileError("topics must be a list of [[topics]] tables")
    if len(topics_raw) > MAX_TOPICS:
        raise ProfileError(f"the profile has {len(topics_raw)} topics; at most {MAX_TOPICS}")
    topics = []
    for i, raw in enumerate(topics_raw, 1):
        if not isinstance(raw, Mapping):
            raise ProfileError(f"topic {i} must be a table with name, want and avoid")
        _unknown(raw, _TOPIC_KEYS, f"topic {i}")
        want = _text(raw.get("want"), f"topic {i} 'want'", required=True)
        name = _text(raw.get("name"), f"topic {i} 'name'") or topic_name(want)
        topics.append(Topic(name=name, want=want, avoid=_text(raw.get("avoid"), f"topic {i} 'avoid'")))
    keywords = data.get("keywords", {})
    if not isinstance(keywords, Mapping):
        raise ProfileError("keywords must be a table")
    _unknown(keywords, _KEYWORD_KEYS, "keywords")
    scoring = data.get("scoring", {})
    if not isinstance(scoring, Mapping):
        raise ProfileError("scoring must be a table")
    _unknown(scoring, _SCORING_KEYS, "scoring")
    profile = Profile(
        name=_text(data.get("name"), "name") or "profile",
        topics=tuple(topics),
        boost=_strings(keywords.get("boost", []), "keywords.boost"),
        penalize=_strings(keywords.get("penalize", []), "keywords.penalize"),
        applications=_strings(keywords.get("applications", []), "keywords.applications"),
        categories=_categories(_strings(data.get("categories", []), "categories"), strict_categories),
        authors=_strings(data.get("authors", []), "authors"),
        keep_if=_text(scoring.get("keep_if"), "scoring.keep_if"),
        avoid=_strings(data.get("avoid", []), "avoid"),
    )
    if not profile.topics and not profile.boost and not profile.authors:
        raise ProfileError("a profile needs at least one topic, boost keyword or watched author")
    return profile


def profile_to_mapping(profile: Profile) -> dict[str, Any]:
    """The inverse of `profile_from_mapping`, for JSON storage."""
    return {
        "name": profile.name,
        "categories": list(profile.categories),
        "authors": list(profile.authors),
        "topics": [{"name": t.name, "want": t.want, **({"avoid": t.avoid} if t.avoid else {})} for t in profile.topics],
        "keywords": {
            "boost": list(profile.boost),
            "penalize": list(profile.penalize),
            "applications": list(profile.applications),
        },
        "scoring": {"keep_if": profile.keep_if} if profile.keep_if else {},
        **({"avoid": list(profile.avoid)} if profile.avoid else {}),
    }


def profile_to_json(profile: Profile) -> str:
    """Serialise a profile for the profiles table."""
    return json.dumps(profile_to_mapping(profile), ensure_ascii=False, sort_keys=True)


def profile_from_json(text: str) -> Profile:
    """Parse a profile stored with `profile_to_json`."""
    return profile_from_mapping(json.loads(text), strict_categories=False)
