"""What a question asks for once it is read: the interface between understanding a question and retrieving its
papers."""

from __future__ import annotations

from dataclasses import dataclass

from bot.questions.timewords import TimeWindow


@dataclass(frozen=True, slots=True)
class Filters:
    """What a question asks for, after parsing."""

    topic: str
    window: TimeWindow | None = None
    authors: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    restrict_to: tuple[str, ...] = ()  # a follow-up about "those" papers
    excluded: tuple[str, ...] = ()  # topics the papers must not be about ("not about LLMs")
    contribution: str = ""  # "benchmark": the papers must introduce a benchmark or data set
    narrows: bool = False  # a follow-up whose topic is a condition on the previous papers ("which of those are X")
