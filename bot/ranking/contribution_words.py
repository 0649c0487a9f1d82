"""The words that name each kind of contribution (a benchmark, a dataset, a survey, a position), and the kinds a
member's avoid phrase names ("benchmark-only papers", "surveys and position papers"). Reading a paper's own kinds is
`bot.ranking.contribution`'s, which needs the reading of a paper's statements (`bot.text.introduces`); an avoid
phrase needs only these words, so a profile's interests are read without it.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from bot.text.terms import is_english_word, same_word, text_tokens

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


# Words a paper making new theory writes (a theorem, a proof, a bound), whatever its topic: the ranker's cue of the
# "theory" end of the novelty axis (`bot.ranking.rank`), and what a question asking for theoretical papers looks for
# (`bot.questions.request.kind_reading`)
THEORY_CUES: tuple[str, ...] = (
    "theorem",
    "prove",
    "proved",
    "proof",
    "provably",
    "provable",
    "theoretical",
    "theoretically",
    "theory",
    "guarantee",
    "convergence",
    "upper bound",
    "lower bound",
    "asymptotic",
    "closed form",
    "we show that",
)

# Set phrases in which a cue word does not mean what the cue stands for: a "proof-of-concept kernel" proves nothing.
# A paper whose every use of the cue is one of these does not hold the cue (neither in its score nor its reasons).
CUE_IDIOMS: dict[str, tuple[str, ...]] = {
    "proof": ("proof of concept", "proofs of concept", "proof of work", "proof of stake"),
    "theory": ("theory of mind",),
    "theoretical": ("theoretical physics",),
}

# each cue and its set phrases as a paper's text is matched (`text_tokens`, joined by spaces, each padded with one)
_CUE_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    cue: (f" {' '.join(text_tokens(cue))} ", tuple(f" {' '.join(text_tokens(i))} " for i in CUE_IDIOMS.get(cue, ())))
    for cue in (*THEORY_CUES, *CUE_IDIOMS)
}


# The cues English also writes as a verb of outcome, a copula: "proves effective", "proved useful", "proves to be" say
# what turned out, not what was proved. Read by what follows (`_outcome`): a proof has an object or a claim.
VERB_CUES = frozenset({"prove", "proved"})
# where a clause ends (`clause_joined`'s mark of punctuation), and the closed classes of English that end a
# predicate's adjective phrase: prepositions, conjunctions, the pronouns opening the next clause
CLAUSE_BREAK = "|"
_ENDS_PHRASE = frozenset(
    f"""{CLAUSE_BREAK} in for across at on of with by from to under over than as into within without via among
    between against toward towards beyond compared and or but nor yet so while whereas when once if because since
    although though unless until where which we it they this these our""".split()
)
# words grading an adjective ("proves most effective", "proved so useful"); an adverb in -ly is read by its ending
_DEGREE = frozenset("so very too quite most more less least rather fairly even equally all".split())
_CLAUSE_PUNCTUATION = re.compile(r"[.;:!?,](?:\s|$)")
# the forms of "be" making a passive ("is proved to be NP-hard", "are proved optimal"): a proof, whatever follows
_BE = frozenset("is are was were be been being".split())


def _is_adjective(word: str) -> bool:
    """Whether `word` makes an English adverb or an abstract noun as adjectives do ("effective" -> "effectively",
    "tricky" -> "trickily", "scalable" -> "scalability"); nouns ("convergence", "bound", "hardness") make neither."""
    if len(word) < 3:
        return False
    made = [f"{word}ly", f"{word}ally", f"{word}ness"]
    if word.endswith("y"):
        made += [f"{word[:-1]}ily", f"{word[:-1]}iness"]
    if word.endswith("le"):
        made += [f"{word[:-1]}y", f"{word[:-2]}ility"]
    return any(is_english_word(w) for w in made)


def _is_adverb(word: str) -> bool:
    """Whether `word` is an English adverb in -ly ("highly", "rigorously")."""
    return word.endswith("ly") and is_english_word(word)


def _passive(before: list[str]) -> bool:
    """Whether a verb cue after the tokens `before` is a passive, a form of "be" before it (adverbs between): "the
    estimator is proved to be consistent", "is rigorously proved optimal in" state what was proved."""
    k = len(before)
    while k > 0 and _is_adverb(before[k - 1]):
        k -= 1
    return k > 0 and before[k - 1] in _BE


def _outcome(after: list[str]) -> bool:
    """Whether a verb cue followed by the tokens `after` is a verb of outcome: "to" ("proves to be"), or an adjective
    (after words grading it) whose phrase ends there ("proves highly effective in", "proved crucial."). An object
    ("its consistency", "convergence"), an adjective before its noun ("optimal rates") or a "that" clause is a proof."""
    k = 0
    while k < len(after) and (after[k] in _DEGREE or _is_adverb(after[k])):
        k += 1
    if k == len(after):
        return False
    if after[k] == "to":
        return True
    return _is_adjective(after[k]) and (k + 1 == len(after) or after[k + 1] in _ENDS_PHRASE)


def clause_joined(text: str) -> str:
    """`text`'s `text_tokens` joined by single spaces, one space before and after, with CLAUSE_BREAK where
    punctuation ends a clause: what `cue_uses` reads best (a verb cue's phrase ends there)."""
    pieces = (" ".join(text_tokens(piece)) for piece in _CLAUSE_PUNCTUATION.split(text))
    return f" {f' {CLAUSE_BREAK} '.join(p for p in pieces if p)} "


def cue_uses(joined: str, cue: str) -> int:
    """How often a paper's text uses `cue` as the cue: its uses less those inside a set phrase of CUE_IDIOMS, and for
    a verb cue (VERB_CUES) less its uses as a verb of outcome ("proves effective"). `joined`: the text's
    `text_tokens` joined by single spaces, with one space before and after (`clause_joined` reads clause ends too)."""
    needle, idioms = _CUE_KEYS.get(cue) or (f" {' '.join(text_tokens(cue))} ", ())
    uses = joined.count(needle) - sum(joined.count(idiom) for idiom in idioms)
    if cue in VERB_CUES and uses > 0:
        start = joined.find(needle)
        while start >= 0:
            end = start + len(needle)
            passive = _passive(joined[:start].rsplit(maxsplit=4)[-4:])
            uses -= not passive and _outcome(joined[end : end + 200].split()[:6])
            start = joined.find(needle, end - 1)
    return max(0, uses)


# the cues a method paper writes as readily ("faster convergence", "privacy guarantees", "we show that X helps"): a
# paper writing only these makes no theory
CLAIMED_BY_ANY = frozenset({"we show that", "guarantee", "convergence"})


def theory_mentions(title: str, abstract: str) -> int:
    """How often a paper writes what theory papers write (THEORY_CUES less CLAIMED_BY_ANY, a set phrase of CUE_IDIOMS
    not counted: "theory of mind"), title and abstract together."""
    joined = clause_joined(f"{title}. {abstract}")
    return sum(cue_uses(joined, cue) for cue in THEORY_CUES if cue not in CLAIMED_BY_ANY)


# the kinds a search may ask for by name ("survey papers", "position papers", "surveys on X"): those a paper states in
# its title or its statement of contribution (`bot.ranking.contribution.paper_kinds`); a benchmark or data set asked
# for is a question's contribution type (`bot.questions.request`)
ASKED_KINDS = frozenset({"survey", "position"})
_DOCUMENT = frozenset("paper papers article articles".split())  # "survey papers": the kind is what the papers are
_KIND_WORD = re.compile(r"[\w'-]+")
_RELATING = frozenset("on of about regarding concerning".split())  # the prepositions that name what a survey covers
# the kinds whose word alone names a document ("a survey on X", "a review of X"); a position or a perspective is the
# stance a document takes ("the model's position on X"): asked for as papers only by name ("position papers on X")
_DOCUMENT_KINDS = frozenset({"survey"})


def asked_kind(text: str, filler: Collection[str] = frozenset()) -> tuple[str, str]:
    """The kind of paper a search asks for and the rest of its words: a kind word of ASKED_KINDS naming papers
    ("position papers arguing X" -> ("position", "arguing X"), "survey papers" -> ("survey", "")) or leading the
    query in the plural or before what it covers, for a kind whose word alone names a document ("surveys on LLM
    agents", "survey of RLHF" -> ("survey", "of RLHF"); "position on X" asks for no position papers); ("", text)
    otherwise. A kind word
    that modifies a topic ("survey sampling", "positional encoding", "review generation") asks for no kind, nor
    does one after a noun, whose compound is a topic ("code review papers", "user survey papers"): a word before
    it is one of `filler` (the words of asking: "any recent survey papers") or an adjective ("systematic")."""
    words = list(_KIND_WORD.finditer(text))
    for n, word in enumerate(words):
        kind = kind_of_word(word.group(0).lower())
        if kind not in ASKED_KINDS:
            continue
        before = words[n - 1].group(0).lower() if n else ""
        if before and before not in filler and not any(is_english_word(f"{before}{e}") for e in ("ly", "ally")):
            continue  # "code review", "peer review": what is reviewed names the topic
        naming = n + 1 < len(words) and words[n + 1].group(0).lower() in _DOCUMENT
        plural = word.group(0).lower().endswith("s") and kind_of_word(word.group(0).lower()[:-1]) == kind
        # "survey on agents" (from "is there a survey on agents?"): the kind leading a phrase whose topic a
        # preposition introduces is the head noun, what the papers are, in the singular too
        relating = n + 1 < len(words) and words[n + 1].group(0).lower() in _RELATING
        leading = n == 0 and (plural or relating) and kind in _DOCUMENT_KINDS
        if naming or leading:
            end = words[n + 1].end() if naming else word.end()
            return kind, " ".join(f"{text[: word.start()]} {text[end:]}".split())
    return "", text


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
