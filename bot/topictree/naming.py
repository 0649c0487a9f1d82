"""Headings from the papers' own words: for each group, the phrase that is most common in the group and rarest in
the rest (the other groups and the background corpus), a class-based TF-IDF over title and abstract phrases.

A phrase in a title counts fully, one only in the abstract half: a heading should name what the papers say they are
about. Longer phrases win ties ("Graph neural networks" over "Networks"), and sibling groups never share a heading.
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
    total = rest_size + counts.background_size + 1
    ranked = []
    for key, found in anywhere.items():
        if found < need:
            continue
        cover = (in_title[key] + ABSTRACT_SHARE * (found - in_title[key])) / len(members)
        outside = in_scope[key] - found
        rarity = math.log(total / (outside + counts.background.get(key, 0) + 1))
        words = key.count(" ") + 1
        plain = MODIFIER_SHARE if key.rsplit(" ", 1)[-1] in counts.modifiers else 1.0  # not ending in its noun
        ranked.append((cover * rarity * plain * (1 + LONGER_BONUS * (words - 1)), key))
    ranked.sort(key=lambda sk: (-sk[0], sk[1]))
    return ranked


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
