"""The papers a question is asked over, named by a closing demonstrative ("... in this batch", "in these listings").

Asked with no previous answer, "this" or "these" before a noun has nothing in the conversation to point at but the
papers the question is about: the phrase names them, not a topic, and its noun ("batch", "listings") read as a topic
word left none of the papers asked for. A time phrase ("from this week") is the question's window and stays.
"""

from __future__ import annotations

import datetime as dt
import re

from bot.questions.timewords import find_time_window

_SCOPE = re.compile(
    r"\s*,?\s*\b(?:in|among|within|across)\s+(?:this|these|the\s+current)\s+[^\W\d_][\w\-]*(?P<end>\W*)$",
    re.IGNORECASE,
)


def without_scope(question: str, today: dt.date) -> str:
    """`question` without a closing "in this <noun>" naming the papers asked over (no time phrase)."""
    found = _SCOPE.search(question)
    if found is None or find_time_window(found.group(0), today) is not None:
        return question
    return question[: found.start()] + found.group("end").strip()
