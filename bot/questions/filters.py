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
    any_author: bool = False  # the papers of any of `authors` ("by X or Y"), not only those they wrote together
    categories: tuple[str, ...] = ()
    restrict_to: tuple[str, ...] = ()  # a follow-up about "those" papers
    excluded: tuple[str, ...] = ()  # topics the papers must not be about ("not about LLMs")
    contribution: str = ""  # "benchmark": the papers must introduce a benchmark or data set
    narrows: bool = False  # the topic is a condition on the `restrict_to` papers ("which of those are X")
    # topics the papers must also be about, each applied in turn over the whole match list of what comes before it
    # ("diffusion papers? any on video?", a follow-up "which of those use RL?")
    constraints: tuple[str, ...] = ()
    narrowed_by: tuple[str, ...] = ()  # constraints the `restrict_to` papers already meet (a previous turn's)
    verb_led: tuple[str, ...] = ()  # constraints starting with the verb the papers do ("use RL"), named without it
    loose: bool = False  # the constraints came without a pronoun ("what about X?"): if no paper meets them, X anew
    # the `restrict_to` papers the previous answer listed only for their meaning: a narrowing keeps them after the
    # ones that carried its words, as that answer did
    previous_meaning: tuple[str, ...] = ()
    # the `restrict_to` papers the previous answer showed on its first page (the rest it only offered): a narrowing
    # shows those of them it keeps before the others, as that answer did
    previous_shown: tuple[str, ...] = ()
    # the window of the conversation's request when a narrowing of it kept another ("only the ones from Thursday"): a
    # new topic is asked over it, not over the narrowing's
    asked_window: TimeWindow | None = None
    likened_to: str = ""  # "papers in the same area as KVzip": the thing named, which may be a stored paper
    people: bool = False  # "who is working on X?": the answer names the authors of the papers found
    # what the answer says first of how the question was read ("which of those ..." after an answer listing none)
    note: str = ""
