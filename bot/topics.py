"""What a topic is made of and when a text is about it: named terms, compounds, and their evidence in a text.

A topic ("sparse mixture-of-experts", "KV cache compression", "diffusion language models") is split into units:
named terms from `TERMS` (the ranker's `bot.terms.NAMED_TERMS` plus the synonyms questions add, each with its
acronym and other spellings: "SSM", "state space model", "Mamba") and the remaining content words. A text is
about the topic when every unit it needs appears close together (a compound is about the whole thing, not any one
of its words), allowing inflections ("modeling" ~ "model", "quantized" ~ "quantization"), a word or two inside
("Mixture of Low-Rank Experts"), and a prefix joined to the first word ("Hypergraph Neural Networks").
Some parts may stand for the whole:

- a rare named term with at most one other unit ("sparse MoE" -> MoE papers);
- a sub-phrase the archive seldom uses outside the whole phrase (measured, not listed: "unlearning" for "machine
  unlearning", "speculative" for "speculative decoding"; not "Bayesian" for "Bayesian optimization");
- words almost every paper uses ("model", "learning") may be left out, and so may a common unit that only says
  where a rarer one lives ("LLM hallucinations", "knowledge distillation"; see `_optional`).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.rank import phrase_key, text_tokens
from bot.terms import NAMED_TERMS

# Spellings a question reads as one thing beyond the named terms the ranker knows (`bot.terms.NAMED_TERMS`):
# synonyms and near forms. A row sharing a spelling with a row there joins it ("language model" joins "LLM": a
# question about LLMs takes "Diffusion Language Models", one about language models takes "LLM" titles).
QUESTION_TERMS: tuple[tuple[str, ...], ...] = (
    ("large language model", "language model", "LM"),
    ("multimodal large language model", "multimodal LLM"),
    ("graph neural network", "graph neural"),
    ("large reasoning model", "LRM"),
    ("spiking neural network", "SNN"),
    ("multilayer perceptron", "MLP"),
    ("kolmogorov arnold network", "KAN"),
    ("optimal transport", "OT", "Wasserstein"),
    ("continual learning", "lifelong learning"),
    ("differential privacy", "differentially private"),
    ("speculative decoding", "speculative sampling"),
    ("test time scaling", "test time compute", "inference time scaling"),
)


def _merged(rows: Sequence[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """Rows that share a spelling (by `phrase_key`) made one, in first-seen order; the first spelling leads."""
    groups: list[list[str]] = []
    for row in rows:
        keys = {phrase_key(s) for s in row}
        joined = [g for g in groups if keys & {phrase_key(s) for s in g}]
        target = joined[0] if joined else []
        for other in joined[1:]:
            target += other
            groups.remove(other)
        target += row
        if not joined:
            groups.append(target)
    return tuple(tuple(dict.fromkeys(g)) for g in groups)


TERMS: tuple[tuple[str, ...], ...] = _merged([*NAMED_TERMS, *QUESTION_TERMS])

MAX_GAP = 2  # words a text may put inside a phrase ("mixture of [low-rank] experts")
SPAN_SLACK = 2  # extra words a compound's units may be spread over ("scaling test-time compute")
TERM_SHARE = 0.05  # a named term in fewer papers than this share is specific enough to stand for a topic
VERY_GENERIC = 0.4  # a word in more papers than this share ("model", "learning") may be left out of a compound
GENERIC_SHARE = 0.1  # a unit this common ("LLM", "knowledge") may only say where a rarer one lives
SPECIFIC_SHARE = 0.01  # a unit this rare ("jailbreaking", "unlearning") is the topic wherever it lives
PART_RATIO = 2.0  # a sub-phrase used at most this many times as often as the whole phrase stands for it
PARTIAL = 0.4  # what part of a compound's units count for (always below COVERED)
COVERED = 0.5  # coverage at which a text is about the topic

# Words that never belong to a topic, wherever they stand.
META = frozenset(
    """papers paper preprint preprints article articles works arxiv please anything something everything what's
    whats there's theres tell show list give find""".split()
)
FILLER = frozenset(
    """what which who whose where when how why is are was were any some there here do does did can could would should
    papers paper work works research article articles preprint preprints show me tell list give find get about on
    regarding related to new recent latest published appeared came out arxiv and or the a an of in for with from
    please i we you it this that those these them among also else other more again only just week today
    yesterday month year since day days last past anything something everything interesting good notable cool
    important worth reading read hi hey publish published released submitted out wrote write written did like such as
    e.g eg etc especially mainly mostly post posts posted posting put putting stuff things thing hey hello anyone
    someone somebody has have had been lately recently together novel""".split()
)


def _key(spelling: str) -> tuple[str, ...]:
    return tuple(text_tokens(spelling))


@dataclass(frozen=True, slots=True)
class Term:
    """A named term: its canonical spelling, every spelling as tokens, and its acronyms as written."""

    name: str
    spellings: tuple[tuple[str, ...], ...]
    acronyms: tuple[str, ...]


_TERMS: tuple[Term, ...] = tuple(
    Term(
        phrase_key(row[0]),
        tuple(dict.fromkeys(_key(s) for s in row)),
        tuple(s for s in row if " " not in s and any(c.isupper() for c in s)),
    )
    for row in TERMS
)
# spelling -> term; the first row naming a spelling owns it
_BY_SPELLING: dict[tuple[str, ...], Term] = {}
for _term in _TERMS:
    for _spelling in _term.spellings:
        _BY_SPELLING.setdefault(_spelling, _term)
_LONGEST = max(len(s) for s in _BY_SPELLING)


# ---------------------------------------------------------------- words


INFLECTIONS = frozenset({"", "e", "s", "es", "ed", "d", "ing", "er", "ers", "ling", "led"})
DERIVATIONS = INFLECTIONS | frozenset(
    """ation ations ization izations ize izes ized izing izer izers al ally ly ity ic ical ive ion ions ment ments
    ness y or ors""".split()
)
_NEGATIONS = ("un", "non", "in", "im", "il", "ir", "dis", "de", "anti", "a")


def _british(word: str) -> str:
    return re.sub(r"is(ation|ations|e|es|ed|ing|er|ers)$", r"iz\1", word)


def same_word(word: str, token: str, exact: bool = False) -> bool:
    """`token` is `word` or an inflection of it: "model" ~ "modeling", "quantization" ~ "quantized"; never
    "continual" ~ "continuous" or "optimization" ~ "optimal". Words under four letters (acronyms) match exactly."""
    if word == token:
        return True
    if exact or len(word) < 4 or len(token) < 4 or word[:2] != token[:2]:
        return False
    return _inflected(word, token)


@functools.lru_cache(maxsize=1 << 16)
def _inflected(word: str, token: str) -> bool:
    # the same few words meet the same tokens across a question's candidates: worth remembering
    word, token = _british(word), _british(token)
    n = _common(word, token)
    a, b = word[n:], token[n:]
    return (n >= 4 and a in INFLECTIONS and b in INFLECTIONS) or (n >= 6 and a in DERIVATIONS and b in DERIVATIONS)


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _joined_to(word: str, token: str) -> bool:
    """`token` is `word` with another word joined in front ("hypergraph" for "graph"), not a negation of it."""
    if len(word) < 5 or len(token) < len(word) + 2 or not token.endswith(word):
        return False
    return token[: -len(word)] not in _NEGATIONS


@dataclass(frozen=True, slots=True)
class Text:
    """A text as folded tokens, with the words as written (for acronyms inside method names)."""

    tokens: tuple[str, ...]
    raw: tuple[str, ...]
    joined: str  # the tokens, then the raw words, as one string: most forms are ruled out by a substring test

    @staticmethod
    def of(text: str) -> Text:
        """Tokenise `text` (lower case, no diacritics, plurals folded) keeping each word as written."""
        plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
        tokens = tuple(text_tokens(plain))
        raw = tuple(re.findall(r"[^\W_]+", plain))
        raw = raw if len(raw) == len(tokens) else tokens
        return Text(tokens, raw, " ".join(tokens) + "\n" + " ".join(raw))


def _occurrences(form: tuple[str, ...], text: Text, exact: bool, acronym: str = "") -> list[tuple[int, int]]:
    """Where `form` appears in `text` as (first, last) token positions, with inflections and small gaps."""
    if form[0][:4] not in text.joined and not (acronym and acronym in text.joined):
        return []  # every match shares its first four letters with the form (or holds the acronym)
    tokens = text.tokens
    found: list[tuple[int, int]] = []
    for i, token in enumerate(tokens):
        first = same_word(form[0], token, exact) or (not exact and _joined_to(form[0], token))
        if not first and acronym:
            raw = text.raw[i]
            first = len(raw) > len(acronym) and (raw.endswith(acronym) or raw.endswith(acronym + "s"))
        if not first:
            continue
        position, ok = i, True
        for word in form[1:]:
            limit = min(len(tokens), position + 2 + MAX_GAP)
            nxt = next((j for j in range(position + 1, limit) if same_word(word, tokens[j], exact)), None)
            if nxt is None:
                ok = False
                break
            position = nxt
        if ok:
            found.append((i, position))
    return found


# ---------------------------------------------------------------- topics


@dataclass(frozen=True, slots=True)
class Unit:
    """One part of a topic: a named term (all its spellings) or a content word, weighted by its rarity."""

    name: str
    forms: tuple[tuple[str, ...], ...]
    acronyms: tuple[str, ...]
    weight: float
    optional: bool = False
    term: bool = False

    def where(self, text: Text, exact: bool) -> list[tuple[int, int]]:
        """Every (first, last) token position of this unit in `text`."""
        spots: list[tuple[int, int]] = []
        for form in self.forms:
            spots += _occurrences(form, text, exact)
        for acronym in self.acronyms:
            spots += _occurrences(_key(acronym), text, exact, acronym)
        return sorted(set(spots))


@dataclass(frozen=True, slots=True)
class TopicEvidence:
    """How to recognise one topic in a text: its units, and the parts that alone stand for the whole."""

    units: tuple[Unit, ...]
    standalone: tuple[Unit, ...] = ()
    exact: bool = False  # words match as written (plurals aside), without inflections

    @property
    def span(self) -> int:
        """How many tokens the needed units may be spread over."""
        return sum(len(u.forms[0]) for u in self.units if not u.optional) + SPAN_SLACK

    def _whole(self, text: Text) -> bool:
        if any(u.where(text, self.exact) for u in self.standalone):
            return True
        needed = [u.where(text, self.exact) for u in self.units if not u.optional]
        if not needed or not all(needed):
            return False
        for choice in itertools.product(*(spots[:8] for spots in needed)):
            if max(e for _, e in choice) - min(s for s, _ in choice) + 1 <= self.span:
                return True
        return False

    def coverage(self, text: str, context: str = "") -> float:
        """1.0 when `text` is about the whole topic; otherwise a share below COVERED of the units it holds.

        With `context` (the abstract, for a title): a title holding the topic's rarest unit is about the topic
        when the context holds the whole of it ("Jailbreaking" in the title, "jailbreak attacks" in the abstract).
        """
        tokens = Text.of(text)
        if self._whole(tokens):
            return 1.0
        total = sum(u.weight for u in self.units)
        if not total:
            return 0.0
        present = [bool(u.where(tokens, self.exact)) for u in self.units]
        share = sum(u.weight for u, hit in zip(self.units, present, strict=True) if hit) / total
        if len(self.units) == 1:
            return share
        if context:
            rarest = max(range(len(self.units)), key=lambda i: self.units[i].weight)
            if present[rarest] and self._whole(Text.of(context)):
                return 1.0
        return PARTIAL * share


@dataclass(frozen=True, slots=True)
class QuestionTopic:
    """A question's topic as alternatives, any of which a paper may be about."""

    alternatives: tuple[TopicEvidence, ...]

    def coverage(self, text: str, context: str = "") -> float:
        """How much of the best-covered alternative `text` contains (see `TopicEvidence.coverage`)."""
        return max((a.coverage(text, context) for a in self.alternatives), default=0.0)


@dataclass(frozen=True, slots=True)
class _Part:
    tokens: tuple[str, ...]  # as typed (normalised)
    term: Term | None


def split_units(key: str) -> list[_Part]:
    """A normalised topic split into named terms (longest spelling first) and content words."""
    tokens = tuple(key.split())
    parts: list[_Part] = []
    i = 0
    while i < len(tokens):
        for n in range(min(_LONGEST, len(tokens) - i), 0, -1):
            term = _BY_SPELLING.get(tokens[i : i + n])
            if term is not None:
                parts.append(_Part(tokens[i : i + n], term))
                i += n
                break
        else:
            if tokens[i] not in FILLER and len(tokens[i]) > 1:
                parts.append(_Part(tokens[i : i + 1], None))
            i += 1
    return parts


def is_term_spelling(word: str) -> bool:
    """True when `word` alone is a spelling of a named term ("SSM", "RAG")."""
    return tuple(text_tokens(word)) in _BY_SPELLING


def topic_key(topic: str) -> str:
    """`phrase_key` with plural acronyms made singular ("LMs" -> "lm", "SSMs" -> "ssm", as "models" -> "model")."""
    words = phrase_key(topic).split()
    return " ".join(w[:-1] if w.endswith("s") and (w[:-1],) in _BY_SPELLING else w for w in words)


def _words(tokens: Sequence[str]) -> str:
    return " ".join(tokens)


def _idf(total: int, frequency: int) -> float:
    return math.log((total + 1) / (frequency + 1)) + 0.1


async def evidence(core: Core, text: str, exact: bool = False) -> TopicEvidence:
    """The units of one topic alternative, weighted by rarity in the archive, and the parts standing for it."""
    key = topic_key(text)
    parts = split_units(key)
    if not parts:
        return TopicEvidence((), (), exact)
    total = max(await core.repo.count_papers(), 1)
    asked: list[str] = []
    for part in parts:
        spellings = part.term.spellings if part.term else (part.tokens,)
        asked.append(_words(spellings[0]))
    runs = [(i, j) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1) if (i, j) != (0, len(parts))]
    typed = [_words(t for p in parts[i:j] for t in p.tokens) for i, j in runs]
    whole = key
    frequencies = await core.repo.document_frequencies(list(dict.fromkeys([*asked, *typed, whole])))
    units: list[Unit] = []
    shares: list[float] = []  # the share of stored papers using each unit
    for part in parts:
        if part.term:
            spellings = part.term.spellings
            frequency = frequencies.get(_words(spellings[0]), 0)  # the canonical spelling: "CoMoE" is no "MoE"
            acronyms = {a.lower() for a in part.term.acronyms}
            forms = tuple(s for s in spellings if _words(s) not in acronyms) or spellings
            units.append(Unit(part.term.name, forms, part.term.acronyms, _idf(total, frequency), term=True))
        else:
            frequency = frequencies.get(part.tokens[0], 0)
            units.append(Unit(part.tokens[0], (part.tokens,), (), _idf(total, frequency)))
        shares.append(frequency / total)
    optional = [_optional(shares, [u.term for u in units], i) for i in range(len(units))]
    if all(optional):
        optional = [False] * len(units)
    units = [Unit(u.name, u.forms, u.acronyms, u.weight, o, u.term) for u, o in zip(units, optional, strict=True)]
    standalone: list[Unit] = []
    needed = [u for u in units if not u.optional]
    for u, s in zip(units, shares, strict=True):
        # a rare named term with at most one other unit is the topic ("sparse MoE", "KV cache compression")
        if u.term and not u.optional and s < TERM_SHARE and len(needed) <= 2:
            standalone.append(u)
    whole_frequency = frequencies.get(whole, 0)  # a phrase no paper uses has no part that stands for it
    for (i, j), phrase in zip(runs, typed, strict=True):
        run = parts[i:j]
        if all(units[k].optional for k in range(i, j)) or any(p.term for p in run):
            continue
        if frequencies.get(phrase, 0) <= PART_RATIO * whole_frequency and frequencies.get(phrase, 0) > 0:
            tokens = tuple(phrase.split())
            standalone.append(Unit(phrase, (tokens,), (), _idf(total, frequencies.get(phrase, 0))))
    return TopicEvidence(tuple(units), tuple(standalone), exact)


def _optional(shares: Sequence[float], terms: Sequence[bool], i: int) -> bool:
    """Whether unit `i` of a compound may be missing from a text about it, by how common each unit is.

    Almost every paper says "model" or "learning": such a word may be missing next to a named term or a rare word
    ("MoE models", "protein modelling", "federated learning"), not next to a common one ("world models",
    "diffusion models"); a named term is never filler. A common unit before a rare last one only says where the
    topic lives ("knowledge distillation", "LLM hallucinations"), and so does a common one after a specific one
    ("jailbreaking LLMs"); not when both are common enough to make the compound ("Bayesian optimization",
    "diffusion language models", "neural operators").
    """
    share = shares[i]
    others = [j for j in range(len(shares)) if j != i]
    if share >= VERY_GENERIC and not terms[i]:
        return any(terms[j] or shares[j] < TERM_SHARE for j in others)
    if share < GENERIC_SHARE or not others:
        return False
    last = shares[-1]
    if i < len(shares) - 1 and last < TERM_SHARE:
        return True
    return any(other < SPECIFIC_SHARE for j, other in enumerate(shares) if j < i)


def spellings_of(topic: str) -> list[str]:
    """The topic's normalised phrase plus the same phrase with each named term in its other spellings."""
    key = topic_key(topic)
    phrases = [key] if key else []
    for part in split_units(key):
        if part.term is None:
            continue
        typed = _words(part.tokens)
        for spelling in part.term.spellings[:2]:
            phrases.append(f" {key} ".replace(f" {typed} ", f" {_words(spelling)} ").strip())
    return list(dict.fromkeys(p for p in phrases if p))


def full_text_groups(topic: str) -> list[list[str]]:
    """Full-text alternatives for one topic: its content words together, or with a named term spelled any way."""
    key = topic_key(topic)
    parts = split_units(key)
    words = [t for p in parts for t in p.tokens]
    groups = [words] if words else []
    for n, part in enumerate(parts):
        if part.term is None:
            continue
        others = [t for m, p in enumerate(parts) if m != n for t in p.tokens]
        for spelling in part.term.spellings:
            groups.append([*others, _words(spelling)])
    return groups
