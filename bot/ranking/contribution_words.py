"""The words that name each kind of contribution (a benchmark, a dataset, a survey, a position), and the kinds a
member's avoid phrase names ("benchmark-only papers", "surveys and position papers"). Reading a paper's own kinds is
`bot.ranking.contribution`'s, which needs the reading of a paper's statements (`bot.text.introduces`); an avoid
phrase needs only these words, so a profile's interests are read without it.
"""

from __future__ import annotations

from bot.text.terms import same_word, text_tokens

# Each kind, and the words that name it, in a member's avoid phrase or in a paper's statement of contribution.
KINDS: dict[str, tuple[str, ...]] = {
    "benchmark": ("benchmark", "bench", "evaluation", "leaderboard", "testbed"),
    "dataset": ("dataset", "corpus"),
    "survey": ("survey", "review", "overview", "tutorial"),
    "position": ("position", "perspective"),
}


def kind_of_word(token: str) -> str | None:
    """The contribution kind a word names ('surveys' -> 'survey'), or None."""
    for kind, words in KINDS.items():
        if any(same_word(word, token) for word in words):
            return kind
    return None


def avoid_kinds(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The contribution kinds an avoid phrase names, and its other words (its topic, as tokens)."""
    kinds: set[str] = set()
    rest: list[str] = []
    for token in text_tokens(text):
        kind = kind_of_word(token)
        if kind is None:
            rest.append(token)
        else:
            kinds.add(kind)
    return frozenset(kinds), tuple(rest)
