"""How a profile's one-line interests and avoid phrases are found in a day's papers (the lexical terms of the
cold-start score, `bot.ranking.rank`): a topic that is one short phrase, the coverage of a one-line interest (its
readings and details, each unit by its weight and rarity that day), and what the avoid phrases name (contribution
kinds, a topic the interests lack).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from bot.models import Topic
from bot.ranking.contribution_words import avoid_kinds
from bot.ranking.interest_units import (
    InterestQuery,
    compound_unit,
    examples,
    interest_query,
    is_coordination,
    left_out,
    phrase_units,
    written_out,
)
from bot.text.terms import Unit, same_word

if TYPE_CHECKING:
    from bot.ranking.rank import PaperFeatures, ProfileModel, RankWeights


MAX_PHRASE_UNITS = 4  # a longer topic is a description, matched by meaning only


@dataclass(frozen=True, slots=True)
class TopicPhrase:
    """A topic whose whole text is one short phrase ("sparse mixture-of-experts"), as units."""

    topic: int
    text: str
    units: tuple[Unit, ...]


def topic_phrase(want: str, topic: int = 0) -> TopicPhrase | None:
    """The topic as a phrase to find in papers, or None when its text is a description, a list or a
    coordination: an item of a list ("sparsity, pruning, KV cache") or a conjunct ("jailbreak attacks and
    defenses") is one of several things, and matching it as if it were the whole topic lifted list-matching
    papers over what the embedding and the keywords rank (a one-line interest's conjuncts are read in
    `interest_query`)."""
    if any(mark in want for mark in ",;\n") or is_coordination(want):
        return None
    units = phrase_units(want)
    return TopicPhrase(topic, want.strip(), units) if 0 < len(units) <= MAX_PHRASE_UNITS else None


def is_one_line(topic: Topic) -> bool:
    """The topic is a line a member typed (onboarding and /setup store it as its own name, maybe cut), not a name
    with a description (a profile file's `name` and `want`): only such a line is matched word by word as a whole."""
    name = topic.name.rstrip("…").strip()
    return bool(name) and "\n" not in topic.want and topic.want.strip().startswith(name)


@dataclass(frozen=True, slots=True)
class AvoidPhrase:
    """One avoid phrase: the contribution kinds it names ("surveys") and the units of the topic it names that no
    interest of the profile shares ("medical" of "medical imaging" for a member who wants image generation)."""

    text: str
    kinds: frozenset[str]
    topic: InterestQuery
    # what its "w/o ..." clauses name ("theory papers w/o experiments"): a paper holding every unit of one of these
    # readings is spared; the clause is a condition of what is avoided, never dropped (that would avoid all theory)
    unless: tuple[tuple[Unit, ...], ...] = ()


def _shared(unit: Unit, wanted: Sequence[Unit]) -> bool:
    return any(unit.key == w.key or (not unit.named and not w.named and same_word(unit.key, w.key)) for w in wanted)


def avoid_phrase(text: str, interests: Sequence[InterestQuery]) -> AvoidPhrase:
    """Read an avoid phrase as contribution kinds plus a topic; the topic keeps only what the interests lack."""
    kinds, rest = avoid_kinds(written_out(text))  # a kind a "w/o" clause names is spared, not avoided
    wanted = [u for q in interests for units in (*q.alternatives, *q.joint, q.details) for u in units]
    query = interest_query(text)
    alternatives: list[tuple[Unit, ...]] = []
    for units in (*query.alternatives, *examples(text)):  # "RL for LLMs (RLHF, GRPO)": RLHF is avoided too
        kept = tuple(u for u in units if not _shared(u, wanted) and (u.named or u.key in rest) and u.key != "only")
        if kept:
            alternatives.append(kept)
    details = tuple(u for u in query.details if not _shared(u, wanted) and (u.named or u.key in rest))
    unless = tuple(units for clause in left_out(text) for units in interest_query(clause).alternatives if units)
    return AvoidPhrase(text, kinds, InterestQuery(tuple(alternatives), details if alternatives else ()), unless)


def phrase_scores(features: PaperFeatures, profiles: Sequence[ProfileModel], weights: RankWeights) -> np.ndarray:
    """(profiles, papers): the best phrase score over each profile's topic phrases (0 without phrases).

    A phrase's score is w_text * s_text^2 + w_title * s_title^2, s being the weighted share of its units found in
    the title and abstract, or in the title: full when a paper holds every unit, little for some of them
    ("mixture" is not a unit of "sparse mixture-of-experts"; the named term "mixture of experts" is). Each
    distinct unit is matched once; the shares are sparse products of phrase weights with unit hits.
    """
    import scipy.sparse as sp

    out = np.zeros((len(profiles), len(features)), dtype=np.float32)
    if not (weights.phrase_title or weights.phrase_text):
        return out
    unit_of: dict[str, int] = {}
    units: list[Unit] = []
    # the k-th phrase of every profile that has one: profile rows, and (row, unit column, share) entries
    slots: list[tuple[list[int], list[int], list[int], list[float]]] = []
    for p, model in enumerate(profiles):
        for k, phrase in enumerate(model.phrases):
            if len(slots) <= k:
                slots.append(([], [], [], []))
            profile_rows, rows, cols, shares = slots[k]
            total = sum(u.weight for u in phrase.units)
            for unit in phrase.units:
                col = unit_of.setdefault(unit.cache_key, len(units))
                if col == len(units):
                    units.append(unit)
                rows.append(len(profile_rows))
                cols.append(col)
                shares.append(unit.weight / total)
            profile_rows.append(p)
    if not units:
        return out
    hits = [features.units.hits(u) for u in units]
    in_title = np.stack([h[0] for h in hits]).astype(np.float32)  # (units, papers)
    in_text = np.stack([h[1] for h in hits]).astype(np.float32)
    for profile_rows, rows, cols, shares in slots:
        share = sp.csr_matrix(
            (np.array(shares, dtype=np.float32), (rows, cols)), shape=(len(profile_rows), len(units)), dtype=np.float32
        )
        title = np.asarray(share @ in_title)
        text = np.asarray(share @ in_text)
        score = np.float32(weights.phrase_text) * text * text + np.float32(weights.phrase_title) * title * title
        out[profile_rows] = np.maximum(out[profile_rows], score)
    return out


# Two coordinated words are one concept ("vision and language": vision-language) when the papers holding both
# mostly write them together; apart ("image and video", "reasoning and planning") they are two interests.
COMPOUND_SHARE = 0.5
MIN_COMPOUND_PAPERS = 3


def written_as_compound(features: PaperFeatures, first: Unit, second: Unit) -> bool:
    """Whether the day's papers write `first` and `second` as one compound ("vision-language", "vision language
    model"): at least MIN_COMPOUND_PAPERS papers do, and at least COMPOUND_SHARE of the papers holding both."""
    key = ("compound", first.cache_key, second.cache_key)
    cached = features.stats.get(key)
    if cached is None:
        both = np.flatnonzero(features.units.hits(first)[1] & features.units.hits(second)[1])
        together = 0
        for i in both:
            tokens = features.units.text_words[int(i)]
            if any(same_word(first.key, a) and same_word(second.key, b) for a, b in pairwise(tokens)):
                together += 1
        cached = together >= MIN_COMPOUND_PAPERS and together >= COMPOUND_SHARE * len(both)
        features.stats[key] = cached
    return bool(cached)


# A reading held whole by more than this share of the day's papers ("LMs" of "LMs and linguistics") selects nothing.
BROAD_READING = 0.25


def _held_share(features: PaperFeatures, units: tuple[Unit, ...]) -> float:
    """The share of the day's papers whose title or abstract holds every unit of a reading."""
    key = ("held", *(u.cache_key for u in units))
    cached = features.stats.get(key)
    if cached is None:
        every = np.ones(len(features), dtype=bool)
        for unit in units:
            every &= features.units.hits(unit)[1]
        cached = float(every.mean()) if len(features) else 0.0
        features.stats[key] = cached
    return float(cached)  # type: ignore[arg-type]


def readings(features: PaperFeatures, query: InterestQuery, broad: bool = True) -> tuple[tuple[Unit, ...], ...]:
    """The interest's alternatives as the day's papers read its coordinated words: one concept or several. A
    conjunct that a large share of the day holds ("LMs and linguistics": a language model is in half the papers)
    is no interest of its own there but what the other conjuncts are about: it joins each of them (with `broad`;
    an avoid phrase's topic is read as typed)."""
    out = query.alternatives
    if query.joint and all(written_as_compound(features, a, b) for a, b in query.compounds):
        out = query.joint
    if not broad or len(out) < 2:
        return out
    held = [r for r in out if _held_share(features, r) > BROAD_READING]
    if not held or len(held) == len(out):
        return out
    shared = tuple(u for r in held for u in r)
    return tuple(tuple(dict((u.key, u) for u in (*r, *shared)).values()) for r in out if r not in held)


def _part_factor(held: np.ndarray, total: np.float32, parts: float) -> np.ndarray:
    """(share of a head's units held, by weight)^parts; exactly 1 for the whole head (no rounding below 1)."""
    share = held / total
    return np.where(share >= np.float32(1.0 - 1e-5), np.float32(1.0), share ** np.float32(parts)).astype(np.float32)


# A paper holding two words the member typed side by side only apart keeps this share of the head's evidence.
APART = 0.7


def _apart_factor(
    features: PaperFeatures, query: InterestQuery, units: tuple[Unit, ...], apart: float
) -> tuple[np.ndarray, np.ndarray]:
    """(title, title and abstract): `apart` for each typed pair of the reading a paper holds both words of but
    never side by side (next to each other: "a reward for large models" holds them apart), multiplied over the
    pairs; 1 elsewhere. A pair no paper of the day writes side by side ("generative design") tells nothing apart and
    counts as said, unless the member joined it with a hyphen ("memory-efficient": one word as typed)."""
    n = len(features)
    title_factor, text_factor = np.ones(n, dtype=np.float32), np.ones(n, dtype=np.float32)
    keys = {u.key for u in units}
    for first, second in query.together:
        if first.key not in keys or second.key not in keys:
            continue
        said_title, said_text = features.units.hits(compound_unit(first, second))
        if not said_text.any() and (first, second) not in query.hyphenated:
            continue
        for factor, said, index in ((title_factor, said_title, 0), (text_factor, said_text, 1)):
            both = features.units.hits(first)[index] & features.units.hits(second)[index]
            factor[both & ~said] *= np.float32(apart)
    return title_factor, text_factor


def coverage(
    features: PaperFeatures,
    query: InterestQuery,
    detail_share: float,
    parts: float = 0.0,
    meant: np.ndarray | None = None,
    apart: float = APART,
    broad: bool = True,
    setting: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """(in the title, in the title and abstract): how much of the interest a paper holds, 0-1 per paper.

    Each unit counts by its weight times its rarity that day (a paper about "quantization of LLMs" is told by
    "quantization", not by "LLM"); the best alternative of the head counts, and the details may stand for up to
    `detail_share` of it. A compound needs its parts: the head's evidence is also scaled by the share of its units
    held counted without their rarity, to the power `parts`, so that the rarer word of "dataset distillation" alone
    (knowledge distillation) is not most of the interest; the whole head is full evidence whatever `parts` is,
    and so is a part in the papers `meant`, where the part is taken to be what it says. `meant` is whatever the
    caller marks: the ranker (`interest_coverage`) passes the papers closest in meaning to the whole profile (its
    soft maximum over every interest, `nearest_share`), not to this interest, so a compound's part counts in full
    in a paper near any of the member's interests.
    Two words the member typed side by side ("reward models", "domain adaptation") held only apart keep `apart` of
    the reading's evidence, details included: "a reward ... the model" is not a reward model. With `setting`,
    the setting a preposition gives the interest ("quantization of LLMs": LLMs, `InterestQuery.scope`) is no part of
    a reading: a paper holding only the setting holds nothing of the interest, one holding the rest but not the
    setting keeps the share the setting's rarity left it as a word of the reading (the part it is about is whole);
    without, the setting is read as typed (an avoid phrase: "bias in LLMs" avoids no other bias).
    """
    n = len(features)
    best_title, best_text = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
    if not query.alternatives:
        return best_title, best_text
    detail_title, detail_text = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
    for unit in query.details:
        title, text = features.units.hits(unit)
        weight = np.float32(unit.weight * features.idf(unit))
        detail_title += weight * title
        detail_text += weight * text
    scope = {u.key for u in query.scope} if setting else set()
    held = np.zeros(n, dtype=bool)
    for unit in query.scope if scope else ():
        held |= features.units.hits(unit)[1]
    scope_weight = max((u.weight * features.idf(u) for u in query.scope), default=0.0)
    for units in readings(features, query, broad):
        if scope:
            units = tuple(u for u in units if u.key not in scope) or units
        total = sum(u.weight * features.idf(u) for u in units)
        if total <= 0:
            continue
        head_title, head_text = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
        plain_title, plain_text = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
        plain_total = np.float32(sum(u.weight for u in units))
        for unit in units:
            title, text = features.units.hits(unit)
            weight = np.float32(unit.weight * features.idf(unit))
            head_title += weight * title
            head_text += weight * text
            plain_title += np.float32(unit.weight) * title
            plain_text += np.float32(unit.weight) * text
        if parts and len(units) > 1:
            kept = np.float32(0.0) if meant is None else meant.astype(np.float32)
            head_title *= np.maximum(kept, _part_factor(plain_title, plain_total, parts))
            head_text *= np.maximum(kept, _part_factor(plain_text, plain_total, parts))
        cap = np.float32(detail_share * total)
        title = np.minimum(1.0, (head_title + np.minimum(detail_title, cap)) / total)
        text = np.minimum(1.0, (head_text + np.minimum(detail_text, cap)) / total)
        if query.together and apart < 1.0:  # after the details: they do not make up for a head said apart
            apart_title, apart_text = _apart_factor(features, query, units, apart)
            title, text = title * apart_title, text * apart_text
        if scope:
            outside = np.where(held, np.float32(1.0), np.float32(total / (total + scope_weight)))
            title, text = title * outside, text * outside
        best_title = np.maximum(best_title, title)
        best_text = np.maximum(best_text, text)
    return best_title, best_text


def interest_coverage(
    features: PaperFeatures, profiles: Sequence[ProfileModel], weights: RankWeights, near: np.ndarray | None = None
) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """Per profile, per topic: (title, title-and-abstract) coverage of the interest, see `coverage`; `near`
    (profiles, papers) marks the papers closest in meaning to each profile as a whole (its soft maximum over every
    interest, not each interest apart), in which a compound's part counts as the whole for every interest."""
    return [
        [
            coverage(features, q, weights.detail_share, weights.compound_parts, None if near is None else near[p])
            for q in model.interests
        ]
        for p, model in enumerate(profiles)
    ]


def interest_scores(coverage: list[list[tuple[np.ndarray, np.ndarray]]], n: int, weights: RankWeights) -> np.ndarray:
    """(profiles, papers): the best interest's lexical evidence, w_title * title^2 + w_text * text^2."""
    out = np.zeros((len(coverage), n), dtype=np.float32)
    if not (weights.interest_title or weights.interest_text):
        return out
    for p, topics in enumerate(coverage):
        for title, text in topics:
            score = np.float32(weights.interest_title) * title * title + np.float32(weights.interest_text) * text * text
            np.maximum(out[p], score, out=out[p])
    return out


def _holds_any(features: PaperFeatures, readings: Sequence[tuple[Unit, ...]]) -> np.ndarray:
    """1 for each paper whose title or abstract holds every unit of one of `readings`, else 0."""
    held = np.zeros(len(features), dtype=np.float32)
    for units in readings:
        every = np.ones(len(features), dtype=bool)
        for unit in units:
            every &= features.units.hits(unit)[1] > 0
        np.maximum(held, every.astype(np.float32), out=held)
    return held


def avoided_scores(features: PaperFeatures, profiles: Sequence[ProfileModel], weights: RankWeights) -> np.ndarray:
    """(profiles, papers): how much of what the profile's avoid phrases name each paper is (weights applied).

    A phrase naming only kinds ("surveys") hits the papers of those kinds; one naming only a topic hits the papers
    about it (its units in the title count most); one naming both hits papers of those kinds about that topic. A
    paper holding what a "w/o ..." clause names is spared ("theory papers w/o experiments").
    """
    out = np.zeros((len(profiles), len(features)), dtype=np.float32)
    for p, model in enumerate(profiles):
        for avoid in model.avoids:
            kinds = np.zeros(len(features), dtype=np.float32)
            if avoid.kinds:
                kinds = np.fromiter((bool(k & avoid.kinds) for k in features.kinds()), dtype=np.float32)
            if avoid.topic.alternatives:
                title, text = coverage(features, avoid.topic, weights.detail_share, broad=False, setting=False)
                topic = np.float32(weights.avoid_title) * title * title + np.float32(weights.avoid_text) * text * text
                score = np.float32(weights.avoid_kind) * kinds * text if avoid.kinds else topic
            else:
                score = np.float32(weights.avoid_kind) * kinds
            if avoid.unless:
                score = score * (1 - _holds_any(features, avoid.unless))
            np.maximum(out[p], score, out=out[p])
    return out
