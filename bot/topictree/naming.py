"""Headings from the papers' own words: for each group, the phrase that covers most of its papers and is most
over-represented in them against the rest (the sibling groups and the background corpus), over title and abstract
phrases.

A phrase's score is its coverage of the group times the log of its lift, its share of the group's papers over its
share of the rest (the term a phrase adds to the KL divergence of the group from the rest, as keyphrase extraction
weighs informativeness). A phrase the whole field writes ("machine learning", "state of the art", "model") is about as
common in any group as elsewhere, so its lift is near 1 and it scores near 0 however many papers use it: measured,
not listed. A small group's share is shrunk towards the rest's (PRIOR_PAPERS), so two papers sharing a common phrase
do not make it theirs. A phrase in a title counts fully
towards coverage, one only in the abstract half: a heading should name what the papers say they are about. Longer
phrases win ties ("Graph neural networks" over "Networks"), and sibling groups never share a heading.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

ABSTRACT_SHARE = 0.5  # a phrase found only in a paper's abstract counts this much towards covering that paper
LONGER_BONUS = 0.4  # per extra word of a phrase
MIN_COVER = 0.1  # a heading is in at least this share of its group's papers (two of forty with a rare phrase is not)
MODIFIER_SHARE = 0.3  # a phrase ending in a modifier ("sparse", "physics-informed neural") heads a group only when
# nothing else names it
MAX_HEADING = 48  # characters
PRIOR_PAPERS = 10  # a group's share of a phrase is shrunk towards the rest's as if this many more papers had it at
# that rate: two papers that both say "machine learning" are no evidence that it sets them apart


@dataclass(frozen=True, slots=True)
class PhraseCounts:
    """The phrase keys of every paper to name (title, abstract) and the background's document frequencies."""

    papers: Sequence[tuple[set[str], set[str]]]
    background: Counter[str]
    background_size: int
    modifiers: frozenset[str] = frozenset()  # single words that are not headings on their own


def _group_counts(counts: PhraseCounts, members: Sequence[int]) -> tuple[Counter[str], Counter[str]]:
    in_title: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    for i in members:
        title, abstract = counts.papers[i]
        in_title.update(title)
        anywhere.update(title | abstract)
    return in_title, anywhere


def ranked_phrases(
    counts: PhraseCounts,
    members: Sequence[int],
    scope: Sequence[int],
    need: int = 2,
    in_scope: Counter[str] | None = None,
) -> list[tuple[float, str]]:
    """Candidate heading keys of the group `members`, best first, judged against the other papers of `scope` and
    the background. A phrase must be in `need` of the group's papers (all of them, for a smaller group).
    `in_scope`: the phrase counts of all of `scope`, when the caller has them."""
    rest_size = len(scope) - len(members)
    in_title, anywhere = _group_counts(counts, members)
    if in_scope is None:
        in_scope = _group_counts(counts, scope)[1]
    need = min(max(need, math.ceil(MIN_COVER * len(members))) if need > 1 else 1, len(members))
    rest_total = rest_size + counts.background_size + 2  # add-one smoothing: a phrase seen nowhere else is not infinite
    ranked = []
    for key, found in anywhere.items():
        if found < need:
            continue
        elsewhere = (in_scope[key] - found + counts.background.get(key, 0) + 1) / rest_total
        lift = (found + PRIOR_PAPERS * elsewhere) / (len(members) + PRIOR_PAPERS) / elsewhere
        if lift <= 1.0:  # no more common here than anywhere: it says nothing about this group
            continue
        cover = (in_title[key] + ABSTRACT_SHARE * (found - in_title[key])) / len(members)
        words = key.count(" ") + 1
        plain = MODIFIER_SHARE if key.rsplit(" ", 1)[-1] in counts.modifiers else 1.0  # not ending in its noun
        ranked.append((cover * math.log(lift) * plain * (1 + LONGER_BONUS * (words - 1)), key))
    # of phrases that score the same (one paper's title), the one made of the field's common words reads as a heading
    # ("Time series foundation model", not "Family of highly capable")
    ranked.sort(key=lambda sk: (-sk[0], -_familiarity(counts, sk[1]), sk[1]))
    return ranked


def _familiarity(counts: PhraseCounts, key: str) -> float:
    words = key.split()
    return sum(counts.background.get(w, 0) for w in words) / len(words)


def choose_headings(
    counts: PhraseCounts, groups: Sequence[Sequence[int]], scope: Sequence[int], taken: frozenset[str] = frozenset()
) -> list[str | None]:
    """One heading key per group (None when no phrase qualifies), distinct among the groups and from `taken` (the
    parent's heading); groups are served largest first."""
    chosen: list[str | None] = [None] * len(groups)
    used = set(taken)
    in_scope = _group_counts(counts, scope)[1]
    for need in (2, 1):  # a phrase two papers share; failing that, the best phrase of any one paper
        for g in sorted(range(len(groups)), key=lambda g: -len(groups[g])):
            if chosen[g] is not None:
                continue
            for _, key in ranked_phrases(counts, groups[g], scope, need, in_scope):
                if key in used or any(_overlaps(key, t) for t in taken):
                    continue
                chosen[g] = key
                used.add(key)
                break
    return chosen


def _overlaps(key: str, parent: str) -> bool:
    # A subtopic named by a part of its parent's heading, or by it with a word added, says nothing new.
    return f" {key} " in f" {parent} " or f" {parent} " in f" {key} "


def shorten(heading: str) -> str:
    """A heading bounded to MAX_HEADING characters, cut at a word."""
    if len(heading) <= MAX_HEADING:
        return heading
    cut = heading[: MAX_HEADING - 1]
    return (cut[: cut.rfind(" ")] if " " in cut else cut) + "…"
