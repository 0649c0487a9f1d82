"""Questions answered from the stored papers: question -> filters -> retrieve -> answer with citations.

Filters come from the question itself (time words, "by <author>", arXiv categories, and the topic that is left);
`bot.questions.retrieval` finds, ranks and cuts the papers that answer them. Only papers inside the window can be
cited. The answer is extractive (the matching papers and their TL;DRs) unless an LLM is configured, in which case
`bot.questions.answer` writes a short answer citing [n].
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field, replace

from bot.core import Core
from bot.llm.usage import run_usage, usage_run
from bot.models import Paper, Profile
from bot.questions import listing
from bot.questions.acronyms import Meaning, grouped, meanings
from bot.questions.answer import WrittenAnswer, write_answer
from bot.questions.asked_authors import NamedAuthors, find_author_group, find_named_authors
from bot.questions.authors import same_person
from bot.questions.coverage import vector_gap_note
from bot.questions.filters import Filters
from bot.questions.listing import (
    STORE_ORDER,
    DayOrder,
    asks_for_papers,
    listing_head,
    lists_window,
    window_papers,
)
from bot.questions.llm_parse import parse_with_llm
from bot.questions.request import (
    ASKER,
    NOT_METHODS,
    THEORY,
    applies_to,
    asking_clause,
    asks_for_people,
    beyond,
    continues,
    kind_reading,
    kinds_asked,
    likened_place,
    likened_to,
    names_documents,
    names_method,
    names_same_request,
    names_theory,
    paper_kind_of,
    papers_asked_for,
    people_topic,
    read_request,
    refers_back,
    restates,
    selects,
    split_kind,
    theory_of,
    verb_done,
    verb_of,
    without_address,
    without_reaction,
    without_reference,
    without_replacement,
)
from bot.questions.retrieval import (
    FLOOR,
    MAX_CITATIONS,
    MEANING_PAGE,
    Retrieved,
    as_told,
    cut_at_most,
    lists_contributions,
    retrieve_all,
    window_holds_papers,
)
from bot.questions.scope import without_scope
from bot.questions.spelling import corrected
from bot.questions.timewords import MONTHS, UP_TO_TODAY, WEEKDAYS, TimeWindow, find_time_window, relative_day
from bot.questions.topics import ABOUT_MENTIONS, FILLER, META, PRONOUNS, topic_alternatives, topic_key, topic_of
from bot.ranking.contribution import paper_kinds
from bot.ranking.contribution_words import kind_of_word, theory_mentions
from bot.text.safetext import straight_quotes
from bot.text.terms import text_tokens
from bot.text.tldr import shown_tldrs
from bot.text.wording import count_of

MAX_QUESTION = 1000
AUTHOR_GROUP_UNKNOWN = (
    "I cannot tell authors' nationality, country or affiliation from the stored papers: they record only the "
    "authors' names, so I cannot answer \"{group}\". Ask by topic, by day or by an author's name."
)
AUTHOR_GROUP_IGNORED = (
    "I cannot tell authors' nationality, country or affiliation from the stored papers (they record only names), "
    'so these are the matching papers whoever wrote them, not only "{group}".'
)
NOTHING_ASKED = (
    "I found nothing to search for in that. Ask about a topic or an author, for example "
    "'MoE papers this week' or 'what did Lenka Zdeborová post since Monday?'."
)

NOTHING_NAMED = "matching that"  # how `subject_of` names a question that names no topic, author or category

_CALENDAR_WORDS = frozenset(WEEKDAYS) | frozenset(MONTHS)
_CATEGORY = re.compile(
    r"\b(cs|stat|math|eess|econ|q-bio|q-fin|physics|astro-ph|cond-mat|nlin|hep-[a-z]{2}|nucl-[a-z]{2}|quant-ph|gr-qc)"
    r"\.([A-Za-z][A-Za-z\-]{1,12})\b",
    re.IGNORECASE,
)
_UPPER_SUFFIX = {"cs", "stat", "math", "eess", "econ", "q-bio", "q-fin"}
_BY_AUTHOR = re.compile(r"\b(?:by|from|authored by|written by)\s+((?:[A-Z][\w'\-\.]*\s*){1,4})")


@dataclass(frozen=True, slots=True)
class Answer:
    """The reply to a question: text citing [n], the cited papers in [n] order, and the window searched."""

    text: str
    citations: tuple[Paper, ...]
    window: tuple[dt.date, dt.date]
    filters: Filters
    usage: dict[str, float] = field(default_factory=dict)
    more: tuple[Paper, ...] = ()  # further matching papers the answer offers (/more), best first
    by_meaning: frozenset[str] = frozenset()  # the ids of those (cited or offered) only close in meaning
    complete: bool = False  # `more` holds every other paper asked for (a day's papers), however many: never cut

    def to_dict(self) -> dict[str, object]:
        """The JSON shape printed by `paperscout ask --json`."""
        return {
            "answer": self.text,
            "citations": [{"id": p.id, "title": p.title, "url": p.url} for p in self.citations],
            "more": [{"id": p.id, "title": p.title, "url": p.url} for p in self.more],
            "window": [self.window[0].isoformat(), self.window[1].isoformat()],
        }


@dataclass
class Turn:
    """The state a follow-up question can refer to: the whole request answered and the papers it listed."""

    topic: str
    window: tuple[str, str] | None
    authors: list[str]
    categories: list[str]
    paper_ids: list[str]
    more_ids: list[str] = field(default_factory=list)  # matching papers not shown yet, for /more
    constraints: list[str] = field(default_factory=list)  # what narrowed the topic's papers ("video", "use RL")
    excluded: list[str] = field(default_factory=list)
    contribution: str = ""
    verb_led: list[str] = field(default_factory=list)  # constraints named without their first word, a verb
    meaning_ids: list[str] = field(default_factory=list)  # the papers listed only for their meaning
    days: list[str] = field(default_factory=list)  # the window's days, when it was a list of days
    any_author: bool = False  # the papers were by any of `authors`, not all of them
    # the window of the request a narrowing picked among, when the narrowing kept another (`Filters.asked_window`)
    asked_window: list[str] = field(default_factory=list)
    asked_days: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        """Serialise for the conversations table."""
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str) -> Turn:
        """Parse a stored turn."""
        data = json.loads(text)
        window = tuple(data["window"]) if data.get("window") else None
        return Turn(
            data["topic"],
            window,  # type: ignore[arg-type]
            data["authors"],
            data["categories"],
            data["paper_ids"],
            data.get("more_ids", []),
            data.get("constraints", []),
            data.get("excluded", []),
            data.get("contribution", ""),
            data.get("verb_led", []),
            data.get("meaning_ids", []),
            data.get("days", []),
            data.get("any_author", False),
            data.get("asked_window", []),
            data.get("asked_days", []),
        )


# ---------------------------------------------------------------- parsing


def normalise_category(prefix: str, suffix: str) -> str:
    """'cs.lg' -> 'cs.LG', 'physics.comp-ph' stays lower case."""
    prefix = prefix.lower()
    return f"{prefix}.{suffix.upper() if prefix in _UPPER_SUFFIX else suffix.lower()}"


def strip_phrases(question: str, phrases: Sequence[str]) -> str:
    """Remove each phrase once (case-insensitive, with a possessive "'s" after it) from the question."""
    for phrase in phrases:
        if phrase:
            # with its possessive: "yesterday's federated learning papers" leaves no "s"
            question = re.sub(re.escape(phrase) + r"(?:['\u2019]s\b)?", " ", question, count=1, flags=re.IGNORECASE)
    return question


def has_words(question: str) -> bool:
    """True when the question holds at least one letter or digit (not only emoji or punctuation)."""
    return any(c.isalnum() for c in question)


# adverbs of time saying "up to today" ("image editing papers so far?"), a closed set of English phrases; not "up to
# date" (current: "keeping LLMs up to date" is a topic), nor a word a hyphen joins to the next ("approaches to
# now-casting", "far-field")
_UP_TO_NOW = re.compile(
    r"\b(?:so\s+far|thus\s+far|(?<!up\s)to\s+date|(?:up\s+)?(?:to|till|until|through)\s+now|"
    rf"{UP_TO_TODAY}|as\s+of\s+now)\b(?!-)",
    re.IGNORECASE,
)


def parse_question(
    question: str,
    today: dt.date,
    previous: Turn | None = None,
    *,
    authors: tuple[str, ...] | None = None,
    any_author: bool = False,
) -> Filters:
    """Split a question into time window, authors, categories, the topic, and a follow-up restriction.

    `authors`, when given, are the authors already found in the question (their names removed from it), so
    "by <Name>" is not looked for again and a question naming only authors is not a follow-up; `any_author` when
    they are alternatives ("by X or Y").
    """
    question = straight_quotes(question).strip()[:MAX_QUESTION]
    window = find_time_window(question, today)
    if window is None:  # "and the day before?": relative to the day the last answer was about
        before = tuple(dt.date.fromisoformat(d) for d in previous.window) if previous and previous.window else None
        window = relative_day(question, before, today)  # type: ignore[arg-type]
    removed: list[str] = [window.phrase] if window else []
    removed += [m.group(0) for m in _UP_TO_NOW.finditer(question)]  # the window every question has already
    categories = tuple(dict.fromkeys(normalise_category(m.group(1), m.group(2)) for m in _CATEGORY.finditer(question)))
    removed += [m.group(0) for m in _CATEGORY.finditer(question)]
    # looked for after the time words are gone, so "from May 1 to May 5" or "from Monday" is not an author
    by = _BY_AUTHOR.search(strip_phrases(question, removed)) if authors is None else None
    authors = authors or ()
    if by and by.group(1).split()[0].lower().rstrip(".") not in _CALENDAR_WORDS:
        name = by.group(1).strip().rstrip(".")
        authors = (name,)
        removed.append(by.group(0))
    rest = strip_phrases(question, removed)
    if previous is not None:
        rest = without_reaction(rest)
    rest, replaces = without_replacement(rest) if previous is not None else (rest, False)
    if window:  # the time phrase was matched in lower case; drop leftover joiners such as "since"
        rest = re.sub(r"\b(since|from|in|on|during|between)\s*$", " ", rest.strip(" ?!."), flags=re.IGNORECASE)
    rest = without_address(rest)  # "Hey team, anything on X?": the greeting is no part of the topic
    request = read_request(rest, follow_up=previous is not None)
    topic = topic_of(request.text)
    contribution = request.contribution  # alone ("new datasets this week?"): the papers introducing one
    constraints = tuple(c for c in (topic_of(r) for r in request.refinements) if c)
    kind, topic = split_kind(topic, request.text)  # "is there a survey on agents?": agents, narrowed to surveys
    constraints = (kind, *constraints) if kind else constraints
    if about := theory_of(topic):  # "the theory of transformers": the theoretical papers about transformers
        topic, constraints = about, (THEORY, *constraints)
    # "which papers study grokking?": the verb the papers do leads the topic; kept for the order, not needed of each
    # read on the clause that asks: "I'm a PhD student in NLP. Who is working on X?", "Hi! which papers study X?"
    asking = asking_clause(rest)
    verb = verb_done(asking)
    people = asks_for_people(asking)
    if people:  # "who is working on X?": X, and the authors of its papers; "who studies X?": the verb as the papers'
        topic = people_topic(topic, request.text)
        first = topic.split()[0].lower() if topic else ""
        verb = first if " " in topic and verb_done(f"which papers {topic}") else verb
    verb_led = (topic,) if verb and " " in topic and topic.split()[0].lower() == verb else ()
    likened = likened_to(asking)
    if likened and topic_key(topic).endswith(topic_key(likened)):  # "same area as KVzip" read "area as KVzip"
        topic = likened
    filters = Filters(
        topic=topic,
        window=window,
        authors=authors,
        any_author=any_author and len(authors) > 1,
        categories=categories,
        excluded=tuple(e for e in (beyond(topic, topic_of(x)) for x in request.excluded) if e),
        contribution=contribution,
        constraints=constraints,
        verb_led=verb_led,
        likened_to=likened if topic == likened else "",
        people=people,
    )
    if previous is None or not has_words(question):
        return filters
    place = likened_place(asking_clause(question))  # "the same area" is gone from `rest` (`without_reaction`)
    if place is not None and -len(previous.paper_ids) <= place < len(previous.paper_ids):
        # "papers in the same area as the first one": the previous answer's first paper, by its id (`_area_of_named_
        # paper`), over the question's window or the previous one; not a narrowing by the word "first"
        pointed = previous.paper_ids[place]
        window = window or _as_before(previous.window, previous.days)
        return replace(filters, topic=pointed, window=window, constraints=(), verb_led=(), likened_to=pointed)
    again = names_same_request(question)  # "same field, but only theory papers": the previous request, narrowed
    return follow_up(filters, request.text, rest, previous, replaces=replaces, again=again)


NOTHING_TO_NARROW = "The previous answer listed no papers, so there were none to pick from; asked on its own:"
AS_BEFORE = "as before"  # the phrase of a follow-up's window taken from the previous answer (it named none)


def follow_up(
    filters: Filters, topic_text: str, question: str, previous: Turn, *, replaces: bool = False, again: bool = False
) -> Filters:
    """A question asked after `previous`, read as the previous request plus what the question adds.

    - a question naming the previous papers by a pronoun ("which of those ...", "only the ones ...", "them"), or
      picking among them with a determiner whose noun is left out ("any on video?", "which use RL?", "what about
      video?") over a window sharing a day with the previous one,
      narrows the previous answer's whole match list: its topic (read as any question's, its subject and relation
      removed) becomes a constraint, and a contribution type, exclusion, author or window it names apply as filters;
    - a question adding nothing but a time phrase ("and from Thursday?", "and the day before?": relative to the
      previous day) asks the whole previous request again over that window;
    - a new topic opening as a continuation ("and diffusion?", "how about speech papers?") is a new question over the
      previous window and categories ("MoE papers from Thursday?" then "and diffusion?": Thursday's);
    - a question naming only an author, picking or continuing ("any by Kai Chen?", "and by Kai Chen?"), asks the
      previous request (window, topic, narrowings) again for that author;
    - with `replaces` (the question said "instead", or corrected the request: "I meant speech", "speech, not
      agents" after agents), what it names replaces that part of the previous request and
      the rest is kept: "what about speech instead?" asks the previous request (window, categories, authors,
      contribution) about speech, its narrowings and exclusions of the old topic left; "Thursday instead?" is
      "and from Thursday?";
    - with `again` (the question named "the same field", "the same topic"), what it adds narrows the previous
      request as a pronoun's would ("same field, but only theory papers");
    - a question naming nothing at all ("thanks!", "ok") asks nothing again: read on its own, it lists nothing;
    - anything else is a new question.
    """
    # "the same field/topic/question" names the previous request: what the question adds narrows it ("same field, but
    # only theory papers" had become a question about "theory")
    explicit = refers_back(question) or (again and bool(filters.topic or filters.contribution or filters.excluded))
    # "sorry, speech not agents" after agents: an exclusion of what was asked before corrects it, as "instead" does
    restated = (
        [e for e in filters.excluded if restates(e, previous.topic, filters.topic)]
        if filters.topic and not explicit
        else []
    )
    if restated:
        filters = replace(filters, excluded=tuple(e for e in filters.excluded if e not in restated))
    replaces = (replaces or bool(restated)) and not explicit  # "which of those are about audio instead of video?"
    adds = bool(filters.topic or filters.contribution or filters.excluded)
    own_subject = names_documents(question) and not explicit
    # a bare new topic ("quantization this week?") is a new question; a determiner without its noun picks among
    # the previous papers ("any on video?")
    picks = (selects(question) or applies_to(question)) and not own_subject
    # a window the previous answer did not cover ("anything on speech from Thursday?" after Monday's papers) holds
    # none of its papers to pick among: the question is asked anew over it
    picks = picks and not _elsewhere(filters.window, previous)
    narrows = not replaces and (explicit or (adds and picks and not filters.authors and not filters.categories))
    # an answer that listed nothing leaves nothing to pick among: "anything on X?" after it asks anew ("None of the 0
    # papers about grokking is about X" had come first)
    listed_nothing = not (previous.paper_ids or previous.more_ids)
    narrows = narrows and not listed_nothing
    # "any by Kai Chen?", "and by Kai Chen?": an author alone, picking or continuing, narrows the previous request to
    # that author ("papers by Kai Chen?" asks anew)
    by_author = bool(filters.authors) and not adds and not filters.categories and (picks or continues(question))
    # "and from Thursday?": the previous request over a window of its own; "Thursday instead?", "what about Kai Chen
    # instead?": the previous request, one part of it replaced. Naming nothing at all ("thanks!", "ok") asks nothing
    # again: the previous answer is not sent a second time
    named_nothing = not adds and not filters.authors and not filters.categories
    nothing_new = (named_nothing and filters.window is not None) or (replaces and not filters.topic) or by_author
    # "who is working on this?", "who wrote them?": the people behind the previous request's papers
    nothing_new = nothing_new or (filters.people and named_nothing)
    window = filters.window
    if window is None and previous.window:
        window = _as_before(previous.window, previous.days)
    # the request's own window, where a new topic is asked: "what about speech?" after "only the ones from Thursday"
    # is asked over the week the request was, not over Thursday
    request = _as_before(previous.asked_window, previous.asked_days) or _as_before(previous.window, previous.days)
    asked = filters.window or request
    if replaces and filters.topic:
        return replace(
            filters,
            window=window,
            authors=filters.authors or tuple(previous.authors),
            any_author=filters.any_author if filters.authors else previous.any_author,
            categories=filters.categories or tuple(previous.categories),
            contribution=filters.contribution or previous.contribution,
        )
    if not narrows and not nothing_new:
        # the same question about another topic; one picking among an answer that listed nothing, over its window
        if (continues(question) or (listed_nothing and (explicit or picks))) and not filters.authors:
            # "which of those are theoretical?" after an answer listing none: there were none to narrow, and it says so
            said = NOTHING_TO_NARROW if listed_nothing and explicit and previous.topic else ""
            return replace(
                _kind_kept(filters, previous.constraints, previous.contribution),
                window=asked,
                categories=filters.categories or tuple(previous.categories),
                note=said,
            )
        return filters
    excluded = tuple(dict.fromkeys([*previous.excluded, *filters.excluded]))
    carried = replace(
        filters,
        topic=previous.topic,
        window=window,
        authors=filters.authors or tuple(previous.authors),
        any_author=filters.any_author if filters.authors else previous.any_author,
        categories=filters.categories or tuple(previous.categories),
        excluded=excluded,
        contribution=filters.contribution or previous.contribution,
        verb_led=tuple(previous.verb_led),
    )
    if not narrows:  # "and from Thursday?": the previous request, narrowings included, over the new window
        return replace(carried, constraints=tuple(previous.constraints))
    constraint = topic_of(without_reference(topic_text)) if filters.topic else ""
    if constraint and asked_already(constraint, (previous.topic, *previous.constraints)):
        # the question asked again ("anything on X?" twice), or a part of what every paper was found for ("which are
        # about KV cache?" after KV cache eviction): it narrows nothing ("about KV cache eviction and about KV cache")
        constraint = ""
    if names_method(constraint):  # "which of those propose a method?": a kind of contribution, no topic
        constraint = ""
        carried = replace(carried, excluded=tuple(dict.fromkeys([*carried.excluded, NOT_METHODS])))
    verb = verb_of(topic_text)
    if verb and constraint.split()[:1] == [verb] and " " in constraint:
        carried = replace(carried, verb_led=(*carried.verb_led, constraint))
    if explicit and _elsewhere(filters.window, previous):
        # "and the ones from Friday?" after Monday's answer: no paper of its list is from Friday, so "the ones" are
        # the same request's papers of that window, its narrowings and the question's own read over them (it had
        # said that no paper on the topic is stored for Friday)
        return replace(
            carried,
            constraints=tuple(dict.fromkeys(c for c in (*previous.constraints, constraint, *filters.constraints) if c)),
        )
    return replace(
        carried,
        restrict_to=tuple(dict.fromkeys([*previous.paper_ids, *previous.more_ids])),
        constraints=tuple(dict.fromkeys(c for c in (constraint, *filters.constraints) if c)),
        narrowed_by=tuple(previous.constraints),
        asked_window=request if request and window and _days_of(request) != _days_of(window) else None,
        loose=not explicit,
        previous_meaning=tuple(previous.meaning_ids),
        previous_shown=tuple(previous.paper_ids),
    )


def _kind_kept(filters: Filters, constraints: Sequence[str], contribution: str) -> Filters:
    """`filters`, a new topic asked as a continuation of a request ("is there a survey on agents?" then "what about
    robotics?"), with the kind of paper that request asked for (its `constraints` naming one, `kinds_asked`, and its
    `contribution`) when the question names no kind of its own: only the topic changed."""
    if not filters.topic or kinds_asked(filters.constraints) or filters.contribution or names_theory(filters.topic):
        return filters
    kinds = kinds_asked(constraints)
    return replace(filters, constraints=(*filters.constraints, *kinds), contribution=contribution)


async def _area_of_named_paper(core: Core, filters: Filters) -> tuple[Filters, str, str]:
    """Filters asking for papers like a stored paper named by its title's lead or whole title ("KVzip" for "KVzip:
    Query-Agnostic KV Cache Compression with Context Reconstruction") read as asking for its area, what the rest of its
    title describes, the note saying so and the paper's id (the example, not one of the papers asked for); the
    filters unchanged, "" and "" when no stored paper is so named."""
    named = filters.likened_to
    # a paper of the previous answer named by its place ("the first one") is named by its id (`parse_question`)
    for paper in await core.repo.get_papers([named]):
        name, area = title_area(paper.title)
        return _in_area_of(filters, paper, name if area != name else f'"{paper.title.strip()}"')
    # the paper named may be from any stored day ("papers similar to KVzip from Thursday": KVzip came out Wednesday);
    # its area is asked over the question's window
    ids = [i for i, _ in await core.repo.lexical_search([named.split()], None, None, 20)]
    for paper in await core.repo.get_papers(ids):
        lead = paper.title.partition(":")[0]
        if named.casefold() not in {lead.strip().casefold(), paper.title.strip().casefold()}:
            continue
        return _in_area_of(filters, paper, named)
    return filters, "", ""


def title_area(title: str) -> tuple[str, str]:
    """A title's name and the area it describes: "KVzip: Query-Agnostic KV Cache Compression" -> ("KVzip", "Query-
    Agnostic KV Cache Compression"). A part after the colon that only says what kind of paper it is ("...: A
    Systematic Review", "...: A Survey": its last word a kind of paper, `kind_of_word`) leaves the area to the part
    before it; a title without a colon is both."""
    lead, _, described = (part.strip() for part in title.strip().partition(":"))
    words = text_tokens(described)
    if not described or not lead or (words and kind_of_word(words[-1])):
        return lead or described, lead or described
    return lead, described


def _in_area_of(filters: Filters, paper: Paper, name: str) -> tuple[Filters, str, str]:
    """`filters` asking for the area of `paper` (called `name`), what its title describes (`title_area`), the note
    saying so and its id."""
    area = title_area(paper.title)[1]
    said = f"Papers in the area of {name}, as its title describes it: {area}."
    return replace(filters, topic=area, likened_to=""), said, paper.id


def _as_before(window: Sequence[str] | None, days: Sequence[str]) -> TimeWindow | None:
    """A stored turn's window (its first and last day, and its days when it was a list of them) read again, or None."""
    if not window:
        return None
    start, end = (dt.date.fromisoformat(d) for d in window)
    return TimeWindow(start, end, AS_BEFORE, days=tuple(dt.date.fromisoformat(d) for d in days))


def _days_of(window: TimeWindow) -> tuple[dt.date, dt.date, tuple[dt.date, ...]]:
    return window.start, window.end, tuple(window.days)


def asked_already(constraint: str, asked: Sequence[str]) -> bool:
    """Whether every word of `constraint` is in each alternative of one of the topics the papers were `asked` for:
    "KV cache" after "KV cache eviction" holds for every paper found; "agents" after "RAG or agents" picks one of two
    alternatives and narrows."""
    words = set(topic_key(constraint).split())
    if not words:
        return False
    return any(
        alternatives and all(words <= set(topic_key(a.text).split()) for a in alternatives)
        for alternatives in (topic_alternatives(t) for t in asked if t)
    )


def _elsewhere(window: TimeWindow | None, previous: Turn) -> bool:
    """Whether `window` shares no day with the previous answer's window (a list of days is the days it names: "from
    Tuesday and Thursday" shares none with Wednesday)."""
    if window is None or not previous.window:
        return False
    start, end = (dt.date.fromisoformat(d) for d in previous.window)
    if window.end < start or window.start > end:
        return True
    listed = {dt.date.fromisoformat(d) for d in previous.days}
    spanned = (start + dt.timedelta(n) for n in range((end - start).days + 1))
    return not any(window.contains(day) and (not listed or day in listed) for day in spanned)


# words that never start a name: the questions' filler and meta words, and the pronouns, the asker's own among them
# (`bot.questions.request.ASKER`: "Our lab works on ..." had been read as a paper by an "Ou")
_NOT_NAMES = FILLER | META | PRONOUNS | ASKER | frozenset({"mine"})


async def understand(core: Core, question: str, today: dt.date, previous: Turn | None = None) -> Filters:
    """`parse_question` with the authors a question names found in the stored archive first (typos, initials,
    "X et al.", "X's", "by X and Y" included), so their names never become topic."""
    question = straight_quotes(question).strip()[:MAX_QUESTION]
    return _parsed(question, today, previous, await _named_authors(core, question, today))


async def _named_authors(core: Core, question: str, today: dt.date) -> NamedAuthors:
    window = find_time_window(question, today)
    start, end = (window.start, window.end) if window else (None, None)
    return await find_named_authors(core, question, start, end, _NOT_NAMES)


def _parsed(question: str, today: dt.date, previous: Turn | None, named: NamedAuthors) -> Filters:
    if previous is None:  # "... in this batch": the papers asked over, no topic (`bot.questions.scope`)
        question, named = without_scope(question, today), replace(named, rest=without_scope(named.rest, today))
    if not named.authors:
        # the archive's authors were looked up and none is named: a capitalised word after "by" or "from" that is
        # no stored author and that stored papers use ("datasets built from PubMed case reports") is topic, which
        # `parse_question`'s own pattern, for a question read without the store, would take for a name
        return parse_question(question, today, previous, authors=())
    return parse_question(named.rest, today, previous, authors=named.authors, any_author=named.any_of)


# ---------------------------------------------------------------- answering


def describe_window(window: tuple[dt.date, dt.date], days: Sequence[dt.date] = ()) -> str:
    """'on 2025-05-28', 'from 2025-05-26 to 2025-05-30', or for a list of days 'on Monday 2025-05-26 and Thursday
    2025-05-29'."""
    start, end = window
    if days:
        return f"on {name_days(days)}"
    return f"on {start}" if start == end else f"from {start} to {end}"


def name_days(days: Sequence[dt.date]) -> str:
    """'Monday 2025-05-26', 'Monday 2025-05-26 and Thursday 2025-05-29', '..., ... and ...'."""
    named = [f"{day.strftime('%A')} {day.isoformat()}" for day in days]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def subject_of(filters: Filters, *, one: bool = False) -> str:
    """How the answer names what was asked: 'about MoE', 'by Lenka Zdeborová', 'about MoE by ...'; `one`: of a single
    paper, whose verb agrees with it ("1 paper that studies grokking", not "that study")."""
    parts = ["introducing a benchmark or data set"] if filters.contribution else []
    if filters.topic:
        # "papers that study grokking": a topic led by the verb the papers do is named as a relative clause
        if filters.topic in filters.verb_led:
            verb, _, rest = filters.topic.partition(" ")
            parts.append(f"that {singular_verb(verb) if one else verb} {rest}")
        else:
            parts.append(f"about {filters.topic}")
    asked = (*filters.narrowed_by, *filters.constraints)
    narrowed = [named(c, filters) for c in asked if not paper_kind_of(c)]
    if narrowed:
        parts.append(("and " if parts else "") + "about " + " and about ".join(narrowed))
    kinds = [c for c in asked if paper_kind_of(c)]  # "surveys": what the papers are, not what they are about
    if kinds:
        parts.append(f"({', '.join(dict.fromkeys(kinds))} only)")  # "1 paper about RL (surveys only) announced"
    if filters.excluded:
        parts.append("and not about " + " or ".join(filters.excluded))
    if filters.authors:
        parts.append("by " + (" or ".join(filters.authors) if filters.any_author else ", ".join(filters.authors)))
    if filters.categories:
        parts.append("in " + ", ".join(filters.categories))
    return " ".join(parts) or NOTHING_NAMED


def singular_verb(verb: str) -> str:
    """A verb's present tense for one subject, by the spelling rules of English ("study" -> "studies", "use" ->
    "uses", "fix" -> "fixes", "have" -> "has")."""
    lower = verb.lower()
    if lower == "have":
        return verb[:2] + "s"
    if lower.endswith(("s", "x", "z", "ch", "sh", "o")):
        return verb + "es"
    if len(lower) > 2 and lower.endswith("y") and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def named(constraint: str, filters: Filters) -> str:
    """How the answer names a constraint: without the verb the papers do ("use RL" -> "RL")."""
    return constraint.split(" ", 1)[1] if constraint in filters.verb_led else constraint


def more_offer(words: int, meaning: int = 0, step: str = "/more lists them.", *, cut: bool = False) -> str:
    """The line offering the papers an answer or a search did not show: `words` of them carry the topic's words,
    `meaning` more (listed after them) are only close in meaning; the line names only the kinds that are there, then
    `step`, how to see them. `cut`: the list was cut at its longest, so its last kind reads "at least"."""
    told_words, told_meaning = as_told(words, meaning, cut)
    if words and meaning:
        parts = f"{told_words} more {'paper matches' if words == 1 else 'papers match'} and {told_meaning} more"
        return f"{parts} {_are(meaning)} close in meaning: {step}"
    if meaning:
        return f"{told_meaning} more {'paper is' if meaning == 1 else 'papers are'} close in meaning: {step}"
    return f"{told_words} more {'paper matches' if words == 1 else 'papers match'}: {step}"


def meanings_note(senses: Sequence[Meaning], *, in_order: bool = True) -> str:
    """The line saying an acronym asked about stands for several things among the papers, which and how many use each
    ('' for none); `in_order`: the papers are listed in that order (an LLM's answer cites them in its own)."""
    if not senses:
        return ""
    counted = [f"{m.spelled} ({len(m.paper_ids)} {'paper' if len(m.paper_ids) == 1 else 'papers'})" for m in senses]
    listed = ", ".join(counted[:-1]) + " and " + counted[-1] + (", listed in that order" if in_order else "")
    return (
        f"'{senses[0].acronym}' stands for different things in these papers: {listed}. "
        "Ask with the words of one to see only its papers."
    )


def _are(count: int) -> str:
    return "is" if count == 1 else "are"


def describe_days(window: tuple[dt.date, dt.date], days: Sequence[dt.date] = ()) -> str:
    """'for Tuesday 2025-05-27' (a day, or each of a list of days, is named by its weekday too) or 'from 2025-04-01
    to 2025-04-30'."""
    start, end = window
    if days or start == end:
        return f"for {name_days(days or (start,))}"
    return describe_window(window)


def extractive_answer(
    filters: Filters,
    papers: Sequence[Paper],
    tldrs: dict[str, str],
    window: tuple[dt.date, dt.date],
    *,
    more: int = 0,
    stored: bool = True,
    meaning: int = 0,
    more_meaning: int = 0,
    cut: bool = False,
    days: Sequence[dt.date] = (),
    order: str = "",
) -> str:
    """An answer without an LLM: the matching papers, numbered for citation, each with its TL;DR (and its day when
    the window holds several), then how many more match. `stored` False: the window holds no stored paper at all,
    and the answer names its days. `meaning` of the papers shown and offered (`more_meaning` of those offered) are
    only close in meaning: they are counted apart from those carrying the topic's words. `cut`: the offer was cut at
    its longest, so more may match than it counts ("at least", as a search says it). `days`: the window is that list
    of days. `order`: how papers asked for without a topic are ordered ("as your profile ranks them"; the store's
    order by default)."""
    subject, one = subject_of(filters), subject_of(filters, one=True)
    if not papers:
        hint = "Try a wider window (for example 'this month' or 'in 2025') or other words."
        if not stored:
            return f"No papers are stored {describe_days(window, days)}, so none {subject}. {hint}"
        return f"No stored papers {subject} announced {describe_window(window, days)}. {hint}"
    words = len(papers) + more - meaning
    told_words, told_meaning = as_told(words, meaning, cut)
    shown = f", the best {len(papers)} first" if more else ""
    if more and filters.contribution and not (filters.topic or filters.constraints or filters.authors):
        # "new datasets this week?": no topic ranks them, so the answer says how they come
        shown = (
            f", the first {len(papers)}: those whose main contribution it is first, each group {order or STORE_ORDER}"
        )
    if not words:
        head = f"No paper {one} announced {describe_window(window, days)} carries its words; {told_meaning}"
        lines = [f"{head} {_are(meaning)} close in meaning{shown}:"]
    else:
        close = f", and {told_meaning} more close in meaning" if meaning else ""
        noun, subject = ("paper", one) if words == 1 else ("papers", subject)
        lines = [f"{told_words} {noun} {subject} announced {describe_window(window, days)}{close}{shown}:"]
    lines += numbered(papers, tldrs, several_days=window[0] != window[1])
    if more:
        lines.append(more_offer(more - more_meaning, more_meaning, cut=cut))
    return "\n".join(lines)


MAX_PEOPLE = 12  # the authors a people question's answer names at most


def people_lines(cited: Sequence[Paper], limit: int = MAX_PEOPLE) -> str:
    """Who wrote the papers an answer cites, for a question asking who works on something: each author with the
    numbers of their papers among `cited` ([n], as the answer numbers them). Those with several of the papers come
    first, then each paper's first and last author (who led it, and usually whose group it is) in the papers' order;
    an author in the middle of a single paper's list is not named. At most `limit`, the others counted. Grounded: only
    names written on cited papers."""
    papers_of: dict[str, list[int]] = {}
    leads: set[str] = set()
    for number, paper in enumerate(cited, 1):
        authors = list(dict.fromkeys(a.strip() for a in paper.authors if a.strip()))
        leads.update(authors[:1] + authors[-1:])
        for author in authors:
            papers_of.setdefault(author, []).append(number)
    named = [(a, ns) for a, ns in papers_of.items() if len(ns) > 1 or a in leads]
    if not named:
        return ""
    ranked = sorted(named, key=lambda item: (-len(item[1]), item[1][0]))
    by_paper = "each one's first and last author"  # the order says only what the list holds
    order = f"several papers first, then {by_paper}" if any(len(ns) > 1 for _, ns in named) else by_paper
    lines = [f"Who wrote the {count_of(len(cited), 'paper')} below ({order}):"]
    lines += [f"- {name} {''.join(f'[{n}]' for n in numbers)}" for name, numbers in ranked[:limit]]
    if len(papers_of) > min(limit, len(ranked)):
        lines.append(f"and {count_of(len(papers_of) - min(limit, len(ranked)), 'other author')}.")
    return "\n".join(lines)


def numbered(papers: Sequence[Paper], tldrs: dict[str, str], *, several_days: bool) -> list[str]:
    """One line per paper, numbered for citation: '[n] title (its day, when the window holds several) — TL;DR'."""
    lines = []
    for n, paper in enumerate(papers, 1):
        tldr = tldrs.get(paper.id, "")
        day = f" ({paper.announced.isoformat()})" if several_days else ""
        lines.append(f"[{n}] {paper.title}{day}" + (f" — {tldr}" if tldr else ""))
    return lines


async def effective_window(core: Core, filters: Filters, today: dt.date) -> tuple[dt.date, dt.date]:
    """The window searched: the question's, or everything stored up to today."""
    if filters.window:
        return filters.window.start, filters.window.end
    return (await core.repo.earliest_day() or today), today


async def narrowed(
    core: Core, filters: Filters, *, profile: Profile | None = None
) -> tuple[Filters, list[Retrieved], list[Retrieved], str]:
    """The papers of `filters`' request, then of each constraint in turn among all of them (shown and offered): the
    filters finally answered, the papers to show and to offer, and a note when no previous paper names a constraint:
    a loose refinement ("what about X?") is then answered as a new topic, a pronoun's ("which of those are X?") by
    the closest few in meaning, and the answer says which."""
    if names_theory(filters.topic):
        # "any theory papers?": theoretical papers in general, read as a narrowing to them reads them (what theory
        # papers write), not the word "theory" (a music theory named in passing); narrowed later ("only the ones from
        # Friday"), the previous answer's papers are read so too
        kind = replace(filters, topic=kind_reading(filters.topic), constraints=())
        found, offered = _theory_first(*await retrieve_all(core, kind, profile=profile))
        found, offered = found[:MAX_CITATIONS], [*found[MAX_CITATIONS:], *offered]
    else:
        found, offered = await retrieve_all(core, replace(filters, constraints=()), profile=profile)
    note = ""
    elsewhere = _shown_elsewhere(filters, [*found, *offered])
    if elsewhere:
        # "only the ones from Friday" where the previous answer showed none of Friday's: the day's papers of the same
        # request, its narrowings read again over them ("theory of transformers": the theoretical ones first), not
        # all the day's papers it had only offered; and the answer says so
        note = elsewhere
        filters = replace(filters, constraints=filters.narrowed_by, narrowed_by=())
    # of the previous answer's papers, those naming its topic only in their abstract while far from it in meaning
    # (under FLOOR, where an answer's first page does not take an abstract's words either, `select`) name it in
    # passing ("CosyVoice 3", a speech generator evaluated on emotion recognition, was the only "speech one" shown
    # after "emotion recognition papers", before three papers on emotion in speech that write it otherwise): neither
    # about the topic nor vouched for by its words, as if listed for their meaning
    far = (
        {r.paper.id for r in (*found, *offered) if r.embedded and r.in_abstract and not r.in_title and r.dense < FLOOR}
        if filters.restrict_to and filters.topic
        else set()
    )
    # of the previous answer's papers, those about its topic as a whole (`QuestionTopic.is_about`, read in ranking)
    on_topic = (
        {r.paper.id for r in (*found, *offered) if r.about and r.paper.id not in far}
        if filters.restrict_to and filters.topic
        else set()
    )
    if filters.constraints and filters.topic and not filters.restrict_to:
        # a request narrowed in the same message ("the theory of transformers", "diffusion papers? any on video?"):
        # of its papers, those firmly about its topic (its words in their title, or twice in their abstract)
        on_topic = {r.paper.id for r in (*found, *offered) if r.firm and (r.in_title or r.in_abstract)}
    # the papers a request found anew only for their meaning stay after those carrying its words in every narrowing
    # of them, as a previous answer's do ("RL papers", "which are about reasoning?", "and Thursday?")
    meaning = [*filters.previous_meaning, *far]  # of a previous answer's papers, that answer said which
    if filters.constraints and filters.topic and not filters.restrict_to:
        meaning += [r.paper.id for r in (*found, *offered) if not (r.in_title or r.in_abstract)]
    meaning = list(dict.fromkeys(meaning))
    if filters.restrict_to:  # "only the ones from Thursday": what the previous answer only offered stays offered
        found, offered = _words_first(found, offered, meaning)
    if filters.restrict_to and filters.authors:  # "only those by X": the previous papers X wrote
        found, offered = (
            [r for r in rs if _written_by(r.paper, filters.authors, filters.any_author)] for rs in (found, offered)
        )
    asked = [filters.topic, *filters.narrowed_by]  # what the papers narrowed were found for
    for constraint in filters.constraints:
        ids = tuple(dict.fromkeys(r.paper.id for r in (*found, *offered)))
        verb_led = (constraint,) if constraint in filters.verb_led else ()
        step = Filters(
            topic=kind_reading(constraint),  # "theoretical": what theory papers write, not the word
            window=filters.window,
            restrict_to=ids,
            narrows=True,
            verb_led=verb_led,
            narrowed_by=tuple(asked),
        )
        asked.append(constraint)
        before, prior = len(ids), (found, offered)
        found, offered = await retrieve_all(core, step, profile=profile) if ids else ([], [])
        if names_theory(constraint):
            found, offered = _theory_first(found, offered)
        if kind := paper_kind_of(constraint):
            found, offered = _kind_first(found, offered, kind)
            if not found and before:
                # none is of that kind ("is there a survey on diffusion models?" where none is): said so, and the
                # papers of the request without it answered, not "No stored papers about X (surveys only)"
                said = f"{_none_of(before, subject_of(replace(filters, constraints=())))} a {constraint[:-1]}."
                note = " ".join(n for n in (note, said) if n)
                filters = replace(filters, constraints=tuple(c for c in filters.constraints if c != constraint))
                found, offered = prior
                continue
            # the others only write a word of the kind: counted with the papers close in meaning, not as surveys
            meaning = list(dict.fromkeys([*meaning, *(r.paper.id for r in offered)]))
        if found and any(r.in_title or r.in_abstract for r in found):
            found, offered = _words_first(found, offered, meaning)
            continue
        # "about X", or "that align LMs" for a verb-led topic; the `before` papers are all the request listed, its
        # kind's and those close in meaning: named without the kind ("the 15 papers about agents (surveys only)")
        kindless = tuple(c for c in filters.narrowed_by if not paper_kind_of(c))
        base = subject_of(replace(filters, constraints=(), narrowed_by=kindless))
        if filters.loose:
            # the same request about X: its window, categories and contribution kept ("benchmarks for agents?" then
            # "what about code generation?": benchmarks for code generation)
            # and the kind of paper it asked for ("is there a survey on agents?" then "what about robotics?": surveys)
            own_kind, topic = split_kind(constraint)  # "what about surveys on robotics?": a kind of its own
            anew = Filters(
                topic=topic,
                window=filters.asked_window or filters.window,  # the request's window, not a narrowing's
                categories=filters.categories,
                contribution=filters.contribution,
                constraints=(own_kind,) if own_kind else kinds_asked(filters.narrowed_by),
            )
            said = f"{_none_of(before, base)} about {named(constraint, filters)}."
            if not anew.constraints:
                found, offered = await retrieve_all(core, anew, profile=profile)
                return anew, found, offered, said
            anew, found, offered, kind_note = await narrowed(core, anew, profile=profile)
            return anew, found, offered, " ".join(n for n in (said, kind_note) if n)
        if found:  # nothing names it: the closest in meaning, said to be only that
            opening = _none_of(before, base, "names", "does not name")
            note = f"{opening} {named(constraint, filters)}; the closest in meaning:"
    # whatever narrowed them (a constraint, a day, an author, a contribution), those about the topic too come first,
    # and of those the ones the previous answer showed: it chose its first page from the same list
    found, offered = _on_topic_first(found, offered, on_topic)
    found, offered = _on_topic_first(found, offered, filters.previous_shown)
    return replace(filters, previous_meaning=tuple(meaning)), found, offered, note


def _none_of(count: int, base: str, many: str = "is", one: str = "is not") -> str:
    """The opening of a note that none of the `count` papers `base` (as `subject_of` names them: "about X", "that
    align language models") a narrowing read is what it asked for, with the verb for many papers and for one: "None
    of the 5 papers about X is", "The paper about X is not" (it had said "None of the 1 papers")."""
    if count == 1:  # a verb-led topic's verb agrees with "papers": named apart
        return f"The only paper found (papers {base}) {one}" if base.startswith("that ") else f"The paper {base} {one}"
    return f"None of the {count} papers {base} {many}"


def _shown_elsewhere(filters: Filters, listed: Sequence[Retrieved]) -> str:
    """What a narrowing to a window alone ("only the ones from Friday") says when the window holds papers of the
    previous answer's list but none of those it showed; "" otherwise."""
    window = filters.window
    if not (filters.restrict_to and filters.previous_shown and listed and window) or window.phrase == AS_BEFORE:
        return ""
    if filters.constraints or filters.authors or set(filters.previous_shown) & {r.paper.id for r in listed}:
        return ""
    if window.days or window.start == window.end:
        when = name_days(window.days or (window.start,))
    else:
        when = describe_window((window.start, window.end)).removeprefix("from ")
    count = len(filters.previous_shown)
    shown = "The paper shown before is not" if count == 1 else f"None of the {count} papers shown before is"
    then = "that day" if window.start == window.end else "then"
    return f"{shown} from {when}; the same request's papers from {then}, on the same topic:"


async def with_evaluations(
    core: Core, filters: Filters, found: list[Retrieved], offered: list[Retrieved], *, profile: Profile | None = None
) -> tuple[list[Retrieved], int]:
    """A benchmark question's offer ("new benchmarks for X") followed by the papers the same question about X alone
    lists (those carrying its words first) that name an evaluation, benchmark or data set without the contribution
    reader telling that one is what they make (a framework "generating and verifying" problem instances, "How
    Reliable are LLMs for ...?", a library "for benchmarking"), and how many: that reader misses some ways abstracts
    say it, and a paper it missed was never listed. Offered after every other, never shown."""
    if not (filters.contribution and filters.topic) or filters.restrict_to or filters.constraints:
        return offered, 0
    plain_found, plain_offered = await retrieve_all(core, replace(filters, contribution=""), profile=profile)
    listed = {r.paper.id for r in (*found, *offered)}
    extra = [r for r in (*plain_found, *plain_offered) if r.paper.id not in listed and names_evaluation(r.paper)]
    return [*offered, *extra], len(extra)


def names_evaluation(paper: Paper) -> bool:
    """Whether a paper's title or abstract names a benchmark, data set, evaluation or test bed at all."""
    return any(kind_of_word(t) in _EVALUATING_KINDS for t in text_tokens(f"{paper.title} {paper.abstract}"))


_EVALUATING_KINDS = ("benchmark", "dataset")


def evaluating_note(count: int, topic: str) -> str:
    """What the last `count` papers offered for a benchmark question are."""
    papers = "paper" if count == 1 else "papers"
    return (
        f"The last {count} {papers} offered with /more {'is' if count == 1 else 'are'} about {topic} and "
        "name an evaluation, benchmark or data set without making one their stated contribution."
    )


def _words_first(
    found: list[Retrieved], offered: list[Retrieved], meaning: Sequence[str]
) -> tuple[list[Retrieved], list[Retrieved]]:
    """A narrowing's papers with those the answer it narrows listed only for their meaning (`meaning`) moved after
    the ones that carried its words: shown only when no other meets the constraint, else offered first among the
    rest (nothing dropped)."""
    if not meaning:
        return found, offered
    close = set(meaning)
    words = [r for r in found if r.paper.id not in close]
    if not words:
        return found, offered
    moved = [r for r in found if r.paper.id in close]
    return words, [
        *(r for r in offered if r.paper.id not in close),
        *moved,
        *(r for r in offered if r.paper.id in close),
    ]


def _theory_first(found: list[Retrieved], offered: list[Retrieved]) -> tuple[list[Retrieved], list[Retrieved]]:
    """A narrowing to theoretical papers with those writing what theory papers write at least ABOUT_MENTIONS times
    (`theory_mentions`: a proof, a theorem, a bound, in any mix) shown and the others offered first among the rest,
    when some do: one "theoretical" in passing, or only the guarantees any method claims, makes no theory paper."""
    listed = [*found, *offered]
    firm = [r for r in listed if theory_mentions(r.paper.title, r.paper.abstract) >= ABOUT_MENTIONS]
    if not firm:
        return found, offered
    # of those, the ones about it as any narrowing reads it (a cue in the title, or one named twice) when any is
    firm = [r for r in firm if r.about] or firm
    return firm, [r for r in listed if r not in firm]


def _kind_first(found: list[Retrieved], offered: list[Retrieved], kind: str) -> tuple[list[Retrieved], list[Retrieved]]:
    """A narrowing to a kind of paper ("surveys") with the papers of that kind (`paper_kinds`: by their title or
    their statement of contribution) shown and the others, which only write one of its words, offered."""
    listed = [*found, *offered]
    of_kind = [r for r in listed if kind in paper_kinds(r.paper.title, r.paper.abstract)]
    return of_kind, [r for r in listed if r not in of_kind]


def _on_topic_first(
    found: list[Retrieved], offered: list[Retrieved], on_topic: Collection[str]
) -> tuple[list[Retrieved], list[Retrieved]]:
    """A narrowing's papers with those about the previous answer's topic as a whole (`on_topic`) shown and the others
    offered first among the rest, when some are: a paper the previous answer listed for a passing mention of its
    topic, or for its meaning, does not make the first page of "which of those are X?" beside the papers about the
    topic and X (nothing dropped)."""
    both = [r for r in found if r.paper.id in on_topic]
    if not both or len(both) == len(found):
        return found, offered
    return both, [*(r for r in found if r.paper.id not in on_topic), *offered]


def _written_by(paper: Paper, authors: Sequence[str], any_author: bool = False) -> bool:
    """Whether every one of `authors` (with `any_author`, one of them) is one of the paper's authors (one person
    each, `same_person`)."""
    each = (any(same_person(a, name) for name in paper.authors) for a in authors)
    return any(each) if any_author else all(each)


async def ask(
    core: Core,
    question: str,
    *,
    today: dt.date | None = None,
    conversation_id: str | None = None,
    profile: Profile | None = None,
    asker: str = "",
    day_order: DayOrder | None = None,
) -> Answer:
    """Answer `question` from stored papers; with `conversation_id`, follow-ups can refer to the previous turn.

    `asker` is the user key of whoever asked: the turn is stored under it (so /forget finds it) and the LLM cost
    is recorded against it. A turn older than `settings.followup_minutes` is not followed up. A question asking for
    a day's or a period's papers and nothing else ("summarize Monday") lists all of them, ranked by `day_order`
    (the asker's digest ranking) or in the store's order (`bot.questions.listing`).
    """
    today = today or dt.date.today()
    question = straight_quotes(question)  # "who’s working on X" as "who's working on X"
    ttl = dt.timedelta(minutes=core.settings.followup_minutes)
    if not ttl:
        conversation_id = None
    previous = None
    if conversation_id:
        stored = await core.repo.conversation_state(conversation_id, max_age=ttl)
        previous = Turn.from_json(stored) if stored else None
    group, group_note = await find_author_group(core, question, _NOT_NAMES), ""
    if group:  # never guessed from names, and not a topic: said, and the conversation's context kept
        question = re.sub(rf"(?:\b(?:by|from)\s+(?:the\s+)?)?{re.escape(group)}", " ", question, count=1)
        asked = question.strip()[:MAX_QUESTION]
        named = await _named_authors(core, asked, today)  # looked up once for both readings below
        filters = _parsed(asked, today, previous, named)
        alone = filters if previous is None else _parsed(asked, today, None, named)  # the question on its own
        if not alone.topic:  # nothing asked but who wrote them
            window = await effective_window(core, filters, today)
            return Answer(text=AUTHOR_GROUP_UNKNOWN.format(group=group), citations=(), window=window, filters=filters)
        # a topic of its own ("diffusion papers by Chinese authors"): answered whoever wrote them, and said so
        group_note = AUTHOR_GROUP_IGNORED.format(group=group)
    else:
        filters = await understand(core, question, today, previous)
    if core.llm is not None and core.settings.llm_parse_questions and previous is None and has_words(question):
        parsed = await parse_with_llm(core, question, today)
        if parsed is not None:
            filters = replace(
                filters, topic=parsed.topic, window=parsed.window, authors=parsed.authors, categories=parsed.categories
            )
    likeness_note, example = "", ""
    if filters.likened_to:  # "papers in the same area as KVzip": the area KVzip's title names, KVzip itself aside
        filters, likeness_note, example = await _area_of_named_paper(core, filters)
    if filters.topic and not likeness_note:
        filters = replace(filters, topic=await corrected(core, filters.topic, question))
    lists = lists_window(filters) and has_words(question)
    if lists and filters.window is None and not asks_for_papers(question, filters):
        lists = False  # "hello", "why?": no day and no papers asked for, no day's list either
    if lists and filters.window is None:  # "what's new?": the latest stored day, said (not everything stored)
        latest = await core.repo.latest_day(until=today) or today
        said = f"No day was named: the papers of the latest stored day, {name_days((latest,))}."
        filters = replace(filters, window=TimeWindow(latest, latest, "", assumed=said))
    window = await effective_window(core, filters, today)
    if filters.window is None:
        filters = replace(filters, window=TimeWindow(window[0], window[1], ""))
    if not has_words(question):
        # emoji or punctuation only: say so, and keep the conversation's context for the next real question
        return Answer(text=NOTHING_ASKED, citations=(), window=window, filters=filters)
    if lists:
        return await _window_answer(core, question, filters, window, day_order, conversation_id, asker)
    if lists_contributions(filters):  # every one of them is listed: a window too big to load is said, as a day's
        refused = await too_many_to_list(core, filters, window)
        if refused:
            return Answer(refused, (), window, filters)
    if subject_of(filters) == NOTHING_NAMED and not filters.restrict_to:
        # only a remark on the answer ("Short list please"): no window to widen, nothing to look for
        return Answer(text=NOTHING_ASKED, citations=(), window=window, filters=filters)
    asked_over = filters.window
    filters, found, offered, note = await narrowed(core, filters, profile=profile)
    if example:  # the paper named is the example: the others in its area, the closest first when none is left
        found, offered = ([r for r in rs if r.paper.id != example] for rs in (found, offered))
        found, offered = (found, offered) if found else (offered[:MEANING_PAGE], offered[MEANING_PAGE:])
    if filters.window is not asked_over:  # a narrowing's topic asked anew over the request's window
        window = await effective_window(core, filters, today)
    if not found and not offered and len(filters.authors) > 1 and not filters.any_author and not filters.restrict_to:
        # "papers from X and Y" where they wrote nothing together: each one's papers, and the answer says so
        either = replace(filters, any_author=True)
        either, found, offered, note = await narrowed(core, either, profile=profile)
        if found or offered:
            filters = either
            note = f"None of these papers is by all of {' and '.join(filters.authors)}; those by any of them:"
    offered, evaluating = await with_evaluations(core, filters, found, offered, profile=profile)
    if evaluating:
        note = " ".join(x for x in (note, evaluating_note(evaluating, filters.topic)) if x)
    # retrieval already filters by the window; this keeps "never cite outside it" true whatever changes upstream
    searched = filters.window or TimeWindow(window[0], window[1], "")
    papers = [r.paper for r in found if searched.contains(r.paper.announced)]
    more = tuple(r.paper for r in offered if searched.contains(r.paper.announced))
    # an acronym standing for several things among them ("TTA"): each meaning's papers together, the most used first
    senses = meanings(filters.topic, [*papers, *more]) if filters.topic else []
    papers, more = grouped(papers, senses), tuple(grouped(more, senses))
    papers, more = first_asked(question, papers, more)
    tldrs = await shown_tldrs(core, papers)
    # of a list of days, those with nothing stored are named ("and Monday and Tuesday?" when no Tuesday is stored)
    empty = [d for d in searched.days if not await window_holds_papers(core, TimeWindow(d, d, ""))]
    if searched.days:  # each day was just looked up: no second look through `window_holds_papers`
        stored = bool(papers) or len(empty) < len(searched.days)
    else:
        stored = bool(papers) or await window_holds_papers(core, searched)
    empty = empty if stored else []
    # a paper without the topic's words is counted apart: "12 papers match, and 13 more close in meaning"
    listed = {r.paper.id for r in (*found, *offered)}
    by_meaning = frozenset(
        r.paper.id for r in (*found, *offered) if filters.topic and not (r.in_title or r.in_abstract)
    ) | listed.intersection(filters.previous_meaning)  # a narrowing keeps what its papers were listed for
    meaning = sum(1 for p in (*papers, *more) if p.id in by_meaning)
    more_meaning = sum(1 for p in more if p.id in by_meaning)
    cut = cut_at_most(len(more)) and not lists_contributions(filters)  # a contribution's listing holds all of them
    text = extractive_answer(
        filters,
        papers,
        tldrs,
        window,
        more=len(more),
        stored=stored,
        meaning=meaning,
        more_meaning=more_meaning,
        cut=cut,
        days=searched.days,
        order="as your profile ranks them" if profile is not None else "",
    )
    # what the reader is told before the answer; kept whoever writes the answer (the extractive one or the LLM)
    notes = [filters.window.assumed] if filters.window and filters.window.assumed else []  # which day "the day before"
    notes.append(f"No papers are stored for {name_days(empty)}." if empty else "")
    # nothing found where papers are stored, or found by their words alone: the vector store may be what is wrong
    # (an empty window needs no look at it: opening Chroma costs a cold command a second)
    unembedded = not all(r.embedded for r in (*found, *offered))
    if unembedded or (not found and stored):
        notes.append(await vector_gap_note(core))
    notes.extend((filters.note, likeness_note, note, group_note))
    cited, usage = tuple(papers), {}
    if core.llm is not None and papers:
        written, problem, usage = await counted_answer(core, question, papers, tldrs, asker or conversation_id)
        if written is not None:
            text, cited = written.text, written.citations
        else:
            text += f"\n(No LLM answer: {problem}; these are the matching papers.)"
    if more and cited != tuple(papers):
        text += "\n" + more_offer(len(more) - more_meaning, more_meaning, cut=cut)
    notes.append(meanings_note(senses, in_order=cited == tuple(papers)))
    if filters.people and cited:  # "who is working on X?": the authors of the papers cited, each citing theirs
        notes.append(people_lines(cited))
    text = "\n".join([*(n for n in notes if n), text])
    answer = Answer(
        text=text, citations=cited, window=window, filters=filters, usage=usage, more=more, by_meaning=by_meaning
    )
    if conversation_id:
        await remember_list(core, conversation_id, asker, filters, cited, more, by_meaning)
    return answer


async def counted_answer(
    core: Core, question: str, papers: Sequence[Paper], tldrs: dict[str, str], asker: str | None
) -> tuple[WrittenAnswer | None, str, dict[str, float]]:
    """The LLM's answer citing `papers` (`write_answer`: None and why when none came back), with the tokens it took,
    counted for `asker` ('cli' when nobody asked in a chat)."""
    with usage_run(target=f"ask:{asker or 'cli'}") as run:
        written, problem = await write_answer(core, question, papers, tldrs)
    return written, problem, await run_usage(core.repo, run.run_id)


async def too_many_to_list(core: Core, filters: Filters, window: tuple[dt.date, dt.date]) -> str:
    """What a listing of the window of `filters` says instead of its papers when the window holds more than
    `listing.MAX_LISTED` (a listing loads every one of them), with the day it assumed; '' when it holds no more."""
    searched = filters.window or TimeWindow(window[0], window[1], "")
    stored = 0 if searched.days else await listing.stored_in_window(core, filters)  # a list of days is a few days
    if stored <= listing.MAX_LISTED:
        return ""
    which = f" in {', '.join(filters.categories)}" if filters.categories else ""
    text = (
        f"{stored} papers{which} were announced {describe_window(window)}: more than the {listing.MAX_LISTED} I"
        " list at once. Name a shorter period (a day or a week), or a topic to search them for."
    )
    return "\n".join(n for n in (searched.assumed, text) if n)


def first_asked(question: str, papers: Sequence[Paper], more: Sequence[Paper]) -> tuple[list[Paper], tuple[Paper, ...]]:
    """The first page bounded by the number of papers the question asks for ("give me three papers on X": the best
    three shown, the others offered as the rest), and the rest after it; unchanged when it asks for no number."""
    asked = papers_asked_for(question)
    if asked is None or len(papers) <= asked:
        return list(papers), tuple(more)
    return list(papers[:asked]), (*papers[asked:], *more)


async def _window_answer(
    core: Core,
    question: str,
    filters: Filters,
    window: tuple[dt.date, dt.date],
    order: DayOrder | None,
    conversation_id: str | None,
    asker: str,
) -> Answer:
    """The answer to a question asking for a window's papers and nothing else: how many there are, the first
    MAX_CITATIONS in the asker's ranking (or the store's order, said), and all the others offered (/more); for a
    window holding more than `listing.MAX_LISTED`, only how many there are, and what to ask instead."""
    searched = filters.window or TimeWindow(window[0], window[1], "")
    refused = await too_many_to_list(core, filters, window)
    if refused:
        return Answer(refused, (), window, filters)
    papers, how = await window_papers(core, filters, order)
    shown, more = first_asked(question, papers[:MAX_CITATIONS], tuple(papers[MAX_CITATIONS:]))
    tldrs = await shown_tldrs(core, shown)
    empty = [d for d in searched.days if not await window_holds_papers(core, TimeWindow(d, d, ""))]
    if papers:
        one_day = window[0] == window[1] and not searched.days
        when = f"on {name_days((window[0],))}" if one_day else describe_window(window, searched.days)
        lines = [listing_head(filters, len(papers), len(shown), when, how)]
        lines += numbered(shown, tldrs, several_days=window[0] != window[1])
        text = "\n".join([*lines, *([more_offer(len(more))] if more else [])])
    elif not await window_holds_papers(core, searched):
        text, empty = f"No papers are stored {describe_days(window, searched.days)}.", []
    else:  # the categories or exclusions asked for leave none
        text = f"No stored papers {subject_of(filters)} announced {describe_window(window, searched.days)}."
    notes = [searched.assumed, f"No papers are stored for {name_days(empty)}." if empty else ""]
    cited, usage = tuple(shown), {}
    if core.llm is not None and shown:
        written, problem, usage = await counted_answer(core, question, shown, tldrs, asker or conversation_id)
        if written is not None:
            text, cited = written.text, written.citations
            text += "\n" + more_offer(len(more)) if more else ""
        else:
            text += f"\n(No LLM answer: {problem}; these are the papers.)"
    text = "\n".join([*(n for n in notes if n), text])
    if conversation_id:
        await remember_list(core, conversation_id, asker, filters, cited, more)
    return Answer(text, cited, window, filters, usage=usage, more=more, complete=True)


async def remember_list(
    core: Core,
    conversation_id: str,
    asker: str,
    filters: Filters,
    shown: Sequence[Paper],
    more: Sequence[Paper],
    meaning: Collection[str] = (),
) -> None:
    """Keep what was asked and listed as the conversation's last turn: a follow-up refers to the papers (`shown`
    and `more`; `meaning`: the ids of those listed only for their meaning) and keeps the topic. Nothing is kept when
    follow-ups are turned off."""
    ttl = dt.timedelta(minutes=core.settings.followup_minutes)
    if not ttl:
        return
    window = filters.window
    turn = Turn(
        topic=filters.topic,
        window=(window.start.isoformat(), window.end.isoformat()) if window else None,  # the window it used
        authors=list(filters.authors),
        categories=list(filters.categories),
        paper_ids=[p.id for p in shown],
        more_ids=[p.id for p in more],
        constraints=[*filters.narrowed_by, *filters.constraints],
        excluded=list(filters.excluded),
        contribution=filters.contribution,
        verb_led=list(filters.verb_led),
        meaning_ids=[p.id for p in (*shown, *more) if p.id in meaning],
        days=[day.isoformat() for day in window.days] if window else [],
        any_author=filters.any_author,
        asked_window=[filters.asked_window.start.isoformat(), filters.asked_window.end.isoformat()]
        if filters.asked_window
        else [],
        asked_days=[day.isoformat() for day in filters.asked_window.days] if filters.asked_window else [],
    )
    await core.repo.save_conversation_state(conversation_id, turn.to_json(), asker, max_age=ttl)
