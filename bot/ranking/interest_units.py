"""How the ranker reads a member's one-line interest ("I'm into sparse MoE papers") as weighted units.

The ranker's reading of the topic vocabulary in `bot.text.terms` (the questions' reading is `bot.questions.topics`):
framing words are dropped (`interest_core`), the rest is split with the ranker's table (`bot.text.terms.RANKER`:
"language model" is not "LLM") into named terms and content words, weighted by how much each says about the topic;
`bot.ranking.rank` scores a paper by the weighted share of them in its title and abstract.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from bot.text.terms import NAMED_TERMS, RANKER, WORD, Unit, phrase_key, split_units, text_tokens

# Words that say little alone: a unit made of one of them weighs less than a content word.
GENERIC_WORDS = frozenset(
    phrase_key(w)
    for w in """model network method approach system framework learning data task problem analysis technique
    algorithm based using deep""".split()
)
GENERIC_WEIGHT = 0.3
# A named term says more than a plain word: "sparse MoE" is mostly about MoE, "LLM hallucination" about
# hallucination, since LLMs (like the other broad terms below) are in a good share of all papers.
NAMED_WEIGHT = 3.0
BROAD_TERMS = frozenset(
    phrase_key(t)
    for t in (
        "large language model",
        "language model",
        "small language model",
        "vision language model",
        "multimodal large language model",
        "reinforcement learning",
        "natural language processing",
        "convolutional neural network",
        "partial differential equation",
    )
)
# Function words inside a phrase, never units.
STOP_WORDS = frozenset(
    "a an the of for in on to and or with by from via at as into over under about its their using".split()
)
# Words that frame an interest rather than name it ("I'm interested in ...", "... papers").
_LEAD = frozenset(
    phrase_key(w)
    for w in """i m d ve ll am we me my our really very also mostly mainly especially interested interest into like love
    want to read about in on regarding around anything something everything papers paper work works research new
    recent latest stuff things topic topics please the would be keen looking for show send give all any some more
    of related""".split()
)
_TRAIL = frozenset(phrase_key(w) for w in "papers work research stuff things topics in general please etc".split())


def interest_core(text: str) -> str:
    """A one-line interest without the words that frame it, as written ("I'm into sparse MoE papers" ->
    "sparse MoE"); the text itself when nothing would be left."""
    words = [(m.start(), m.end(), (text_tokens(m.group()) or [""])[0]) for m in WORD.finditer(text)]
    tokens = [w[2] for w in words]
    start, end = 0, len(words)
    while start < end and tokens[start] in _LEAD and RANKER.find(tokens, start) is None:  # "in context learning"
        start += 1
    while end > start and tokens[end - 1] in _TRAIL:
        end -= 1
    if start >= end:
        return text.strip()
    return text[words[start][0] : words[end - 1][1]]


def _not_a_unit(word: str) -> bool:
    return word in STOP_WORDS or len(word) < 2 or word.isdigit()


@functools.lru_cache(maxsize=4096)
def phrase_units(text: str) -> tuple[Unit, ...]:
    """The units of a member's short interest: its named terms and its other content words, in order, weighted
    (a named term 3, a broad one such as LLM 1, a generic word 0.3)."""
    units: dict[str, Unit] = {}
    for part in split_units(RANKER.key(interest_core(text)), RANKER, _not_a_unit):
        if part.term is not None:
            weight = 1.0 if part.term.name in BROAD_TERMS else NAMED_WEIGHT
        else:
            weight = GENERIC_WEIGHT if part.tokens[0] in GENERIC_WORDS else 1.0
        unit = Unit.of(part, weight)
        units.setdefault(unit.key, unit)
    return tuple(units.values())


def named_terms_text(text: str) -> str:
    """`text` with the named terms it holds only as acronyms or names spelled out ("MoE routing" -> "MoE routing
    (mixture of experts)"), for an embedding model that knows the spelled-out words better than an acronym."""
    key = f" {phrase_key(text)} "
    extra: list[str] = []
    for unit in phrase_units(text):
        if unit.named and f" {unit.key} " not in key:
            extra.append(_spelled()[unit.key])
    return f"{text} ({', '.join(extra)})" if extra else text


@functools.cache
def _spelled() -> dict[str, str]:
    return {phrase_key(forms[0]): forms[0] for forms in NAMED_TERMS}


# What follows ":" or stands in brackets details an interest ("deep RL algorithms: actor-critic, policy gradients";
# "LLM reasoning (chain-of-thought, math)"): examples or qualifiers, evidence for the interest but not all needed.
_DETAILS = re.compile(r"\(([^()]*)\)|:(.*)$")
_ALTERNATIVES = re.compile(r"\s/\s")  # "test-time scaling / efficient reasoning": either is the interest
_DETAIL_WORDS = frozenset(phrase_key(w) for w in "incl including e g eg such as etc like especially".split())


@dataclass(frozen=True, slots=True)
class InterestQuery:
    """A one-line interest as the lexical evidence to look for: its head (one or more alternatives, each a set of
    units a paper about the interest holds) and the units of its details (examples, qualifiers)."""

    alternatives: tuple[tuple[Unit, ...], ...]
    details: tuple[Unit, ...]


@functools.lru_cache(maxsize=4096)
def interest_query(text: str) -> InterestQuery:
    """Read a one-line interest as a head and details ("LLM pruning / compression (low-bit)" -> alternatives
    [LLM, pruning] and [compression], details [low, bit])."""
    details_text = " ".join(part for match in _DETAILS.finditer(text) for part in match.groups() if part)
    head_text = _DETAILS.sub(" ", text)
    alternatives = []
    for alternative in _ALTERNATIVES.split(head_text):
        units = phrase_units(alternative) if alternative.strip() else ()
        if units:
            alternatives.append(units)
    head_keys = {u.key for units in alternatives for u in units}
    details = (
        tuple(u for u in phrase_units(details_text) if u.key not in head_keys and u.key not in _DETAIL_WORDS)
        if details_text.strip()
        else ()
    )
    return InterestQuery(tuple(alternatives), details)
