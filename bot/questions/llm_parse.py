"""A question parsed by the LLM into the same filters the rules produce (optional: `llm_parse_questions`).

The model gets the question as delimited data and must reply with one JSON object of `SCHEMA` (asked for as
strict structured output where the server supports it). The reply is untrusted: it is used only when it is that
object exactly, with dates that make a window no later than today, and with every topic word, author name and
category grounded in the question itself (typos and a named term's other spellings allowed), and when each
author resolves to a stored author as the rules resolve them. Anything else (a failed call, malformed or extra
JSON, invented words, an instruction obeyed) returns None, and the caller keeps the rules' filters.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from bot.core import Core
from bot.errors import SourceUnavailable
from bot.llm.prompts import clean_untrusted
from bot.llm.usage import budget_today
from bot.questions.asked_authors import find_named_authors
from bot.questions.spelling import edits
from bot.questions.timewords import TimeWindow
from bot.questions.topics import FILLER, META, split_units, topic_key
from bot.text.terms import text_tokens

log = logging.getLogger(__name__)

PURPOSE = "question"
MAX_TOKENS = 150
MAX_TOPIC = 200
MAX_AUTHORS = 5
EARLIEST = dt.date(1991, 8, 14)  # arXiv's first day
TYPO_EDITS = 2  # a topic or name word this close to a word of the question is that word, corrected
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "topic": {"type": "string"},
        "authors": {"type": "array", "items": {"type": "string"}},
        "since": {"type": ["string", "null"]},
        "until": {"type": ["string", "null"]},
        "categories": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["topic", "authors", "since", "until", "categories"],
    "additionalProperties": False,
}
_CATEGORY = re.compile(r"^[a-z][a-z\-]{1,12}\.[A-Za-z][A-Za-z\-]{1,12}$")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ParsedQuestion:
    """What the LLM read in a question, after the checks: the same parts as the rules' filters."""

    topic: str
    authors: tuple[str, ...]
    window: TimeWindow | None
    categories: tuple[str, ...]


class Rejected(ValueError):
    """The LLM's reply is not usable; the message says why (for the log)."""


def _grounded(word: str, asked: set[str]) -> bool:
    return word in asked or (len(word) >= 4 and any(edits(word, a) <= TYPO_EDITS for a in asked if len(a) >= 3))


def _check_topic(topic: str, question: str) -> str:
    """The topic when every content word comes from the question (or spells a named term the question names)."""
    topic = clean_untrusted(topic, MAX_TOPIC)
    asked = set(text_tokens(question))
    for part in split_units(topic_key(question)):  # "SSM" in the question grounds "state space model" and back
        if part.term is not None:
            asked.update(w for spelling in part.term.spellings for w in spelling)
    for word in text_tokens(topic):
        if word not in FILLER and word not in META and not _grounded(word, asked):
            raise Rejected(f"topic word {word!r} is not in the question")
    return topic


def _day(value: object, name: str) -> dt.date | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise Rejected(f"{name} is not a date")
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise Rejected(f"{name} is not a date") from None


def _window(since: object, until: object, today: dt.date) -> TimeWindow | None:
    start, end = _day(since, "since"), _day(until, "until")
    if start is None and end is None:
        return None
    start, end = start or EARLIEST, min(end or today, today)
    if not EARLIEST <= start <= end:
        raise Rejected("the dates make no window up to today")
    return TimeWindow(start, end, "as the LLM read it")


def read_reply(text: str) -> dict[str, Any]:
    """The reply as the schema's object, or `Rejected`: strict JSON (a Markdown fence around it aside)."""
    text = text.strip()
    fenced = _FENCE.match(text)
    try:
        data = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        raise Rejected("the reply is not JSON") from None
    if not isinstance(data, dict) or set(data) != set(SCHEMA["properties"]):
        raise Rejected("the reply is not the schema's object")
    if not isinstance(data["topic"], str):
        raise Rejected("topic is not a string")
    for name in ("authors", "categories"):
        values = data[name]
        if not isinstance(values, list) or len(values) > MAX_AUTHORS or not all(isinstance(v, str) for v in values):
            raise Rejected(f"{name} is not a short list of strings")
    return data


async def parse_with_llm(core: Core, question: str, today: dt.date) -> ParsedQuestion | None:
    """The filters the LLM reads in `question` (topic, authors, window, categories), checked; None on any doubt."""
    if core.llm is None:
        return None
    messages = core.llm.prompts.question.messages(question=clean_untrusted(question, 1000), today=today.isoformat())
    budget = await budget_today(core.repo, core.settings)
    if not budget.allows(core.llm.client.estimate_cost(messages, MAX_TOKENS)):
        return None
    try:
        result = await core.llm.client.chat(messages, json_schema=SCHEMA, max_tokens=MAX_TOKENS, purpose=PURPOSE)
        if result.refused or result.truncated:
            raise Rejected("the model refused or was cut short")
        data = read_reply(result.text)
        return await _checked(core, data, question, today)
    except (SourceUnavailable, Rejected) as exc:
        log.info("question parsed by the rules: %s", exc)
        return None


async def _checked(core: Core, data: dict[str, Any], question: str, today: dt.date) -> ParsedQuestion:
    topic = _check_topic(data["topic"], question)
    window = _window(data["since"], data["until"], today)
    lowered = question.lower()
    categories = []
    for category in data["categories"]:
        if not _CATEGORY.match(category) or category.lower() not in lowered:
            raise Rejected(f"category {category[:20]!r} is not in the question")
        categories.append(category)
    authors: list[str] = []
    asked = set(text_tokens(question))
    for name in data["authors"]:
        name = clean_untrusted(name, 100)
        words = text_tokens(name)
        if not words or not all(_grounded(w, asked) or len(w) == 1 for w in words):
            raise Rejected("an author is not named in the question")
        start, end = (window.start, window.end) if window else (None, None)
        found = await find_named_authors(core, f"papers by {name}", start, end, FILLER | META)
        if len(found.authors) != 1:
            raise Rejected("an author is not a stored author")
        authors.append(found.authors[0])
    if not topic and not authors:
        raise Rejected("neither a topic nor an author")
    return ParsedQuestion(topic, tuple(authors), window, tuple(categories))
