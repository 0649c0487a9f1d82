"""Acronyms and their expansions as the archive's own abstracts define them ("graph neural networks (GNNs)",
"test-time adaptation (TTA)"), so that a question typing one finds the papers writing the other.

A definition is a parenthesised acronym right after the words whose initials spell it (hyphenated parts count as
words, small function words may be skipped), in the manner of Schwartz and Hearst (2003). Only an acronym defined the
same way by at least two stored papers is read as a field's shared term: one paper's method name ("we propose Foo
Bar Reasoning (FBR)") stays a name the question is looking for as written. The pairs found become named terms of
the question's reading (`bot.questions.topics.corpus_terms`), beside the fixed table of `bot.text.terms`, when the
question types the acronym ("TTA papers?" also finds "Test-Time Adaptation for ..." without "TTA").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from bot.core import Core
from bot.questions.topics import is_term_spelling
from bot.text.terms import phrase_key, text_tokens

MIN_DEFINING_PAPERS = 2  # papers that must define an acronym the same way before it is a field's term
DEFINING_SAMPLE = 40  # papers read for definitions, per acronym or phrase
_SKIPPED = frozenset("of and the for to in a an on with by via from".split())
# an acronym as typed in a question or defined in parentheses: two or more capitals, maybe a plural "s"
_TYPED = re.compile(r"(?<![\w-])([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*?)s?(?![\w-])")
_DEFINED = re.compile(r"((?:[\w][\w\-']*\s+){1,9})\(\s*([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*?)s?\s*\)")
_MAX_LENGTH = 8


def _initials(words: list[str], split_hyphens: bool) -> str:
    parts = [p for w in words for p in (w.split("-") if split_hyphens else [w]) if p]
    return "".join(p[0] for p in parts if p.lower() not in _SKIPPED).lower()


def expansion_of(words_before: str, acronym: str) -> str:
    """The shortest run of the words before a parenthesised `acronym` whose initials spell it, as a normalised
    phrase ("... on graph neural networks" + "GNN" -> "graph neural network"), or ""."""
    letters = "".join(c for c in acronym if c.isupper() or c.isdigit()).lower()
    words = [w.strip("-'") for w in words_before.split()]
    if not 2 <= len(letters) <= _MAX_LENGTH:
        return ""
    for k in range(1, min(len(words), len(letters) + 3) + 1):
        run = words[-k:]
        if run[0].lower() in _SKIPPED:
            continue
        if letters in (_initials(run, False), _initials(run, True)):
            return phrase_key(" ".join(run))
    return ""


def definitions(texts: Iterable[str]) -> Counter[tuple[str, str]]:
    """(acronym, expansion) pairs defined in `texts`, counted once per text."""
    found: Counter[tuple[str, str]] = Counter()
    for text in texts:
        pairs = set()
        for match in _DEFINED.finditer(text):
            expansion = expansion_of(match.group(1), match.group(2))
            if expansion:
                pairs.add((match.group(2), expansion))
        found.update(pairs)
    return found


async def defined_acronyms(core: Core, topic: str) -> list[tuple[str, str]]:
    """Named-term rows (expansion, acronym) for the acronyms a topic types, as the stored abstracts define them;
    terms the fixed table already knows are left to it. A phrase typed out is not turned into a term: its words
    already find the papers defining the acronym, and as one term it would lose the parts that stand for it
    ("conformal" for "conformal prediction") and gain names merely ending in the acronym ("EarthSE")."""
    rows: list[tuple[str, str]] = []
    for acronym in dict.fromkeys(m.group(1) for m in _TYPED.finditer(topic)):
        if not is_term_spelling(acronym) and len(acronym) <= _MAX_LENGTH:
            expansion = await _dominant_expansion(core, acronym)
            if expansion:
                rows.append((expansion, acronym))
    return [(e, a) for e, a in dict.fromkeys(rows) if text_tokens(e) != text_tokens(a)]


async def _dominant_expansion(core: Core, acronym: str) -> str:
    """What the stored papers defining `acronym` mostly spell it out as (at least two of them, at least half of its
    definitions), or ""."""
    ids = [i for i, _ in await core.repo.lexical_search([[acronym.lower()]], None, None, DEFINING_SAMPLE)]
    found = definitions(f"{p.title}. {p.abstract}" for p in await core.repo.get_papers(ids))
    typed = acronym.lower()
    spelled = Counter({e: n for (a, e), n in found.items() if a.lower() == typed})
    if not spelled:
        return ""
    expansion, n = spelled.most_common(1)[0]
    return expansion if n >= MIN_DEFINING_PAPERS and 2 * n >= spelled.total() else ""
