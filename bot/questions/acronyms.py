"""Acronyms and their expansions as the archive's own abstracts define them ("graph neural networks (GNNs)",
"test-time adaptation (TTA)"), so that a question typing one finds the papers writing the other.

A definition is a parenthesised acronym right after the words whose initials spell it (hyphenated parts count as
words, small function words may be skipped), in the manner of Schwartz and Hearst (2003). Only an acronym defined the
same way by at least two stored papers, or by one while other papers write the same words out ("knowledge distillation
(KD)"), is read as a field's shared term: one paper's method name ("we propose Foo Bar Reasoning (FBR)") stays a name
the question is looking for as written. The pairs found become named terms of
the question's reading (`bot.questions.topics.corpus_terms`), beside the fixed table of `bot.text.terms`, when the
question types the acronym ("TTA papers?" also finds "Test-Time Adaptation for ..." without "TTA").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from symspellpy.editdistance import DistanceAlgorithm, EditDistance

from bot.core import Core
from bot.models import Paper
from bot.questions.expansion import index_terms
from bot.questions.topics import FILLER, is_term_spelling
from bot.text.terms import phrase_key, same_word, text_tokens

MIN_DEFINING_PAPERS = 2  # papers that must define an acronym the same way before it is a field's term
# or the papers writing the expansion out, when only one paper defines the acronym: "knowledge distillation" is
# written by 49 of the shared days' papers and defined as "KD" by one, "average treatment effect" by 3 and 1
FIELD_PAPERS = 3
DEFINING_SAMPLE = 40  # papers read for definitions, per acronym or phrase
_SKIPPED = frozenset("of and the for to in a an on with by via from".split())
# an acronym as typed in a question or defined in parentheses: two or more capitals, maybe a plural "s"
_TYPED = re.compile(r"(?<![\w-])([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*?)s?(?![\w-])")
_DEFINED = re.compile(r"((?:[\w][\w\-']*\s+){1,9})\(\s*([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*?)s?\s*\)")
_MAX_LENGTH = 8
_SAME_START = 0.5  # two words of meanings starting alike over half the shorter are one word spelled two ways
_EDITS = EditDistance(DistanceAlgorithm.DAMERAU_OSA)


def _initials(words: list[str], split_hyphens: bool) -> str:
    parts = [p for w in words for p in (w.split("-") if split_hyphens else [w]) if p]
    return "".join(p[0] for p in parts if p.lower() not in _SKIPPED).lower()


def expansion_of(words_before: str, acronym: str) -> str:
    """The shortest run of the words before a parenthesised `acronym` whose initials spell it, as a normalised
    phrase ("... on graph neural networks" + "GNN" -> "graph neural network"), or ""."""
    return phrase_key(_spelled_out(words_before, acronym))


def _spelled_out(words_before: str, acronym: str) -> str:
    """That run as written ("Graph Neural Networks"), or ""."""
    letters = "".join(c for c in acronym if c.isupper() or c.isdigit()).lower()
    words = [w.strip("-'") for w in words_before.split()]
    if not 2 <= len(letters) <= _MAX_LENGTH:
        return ""
    for k in range(1, min(len(words), len(letters) + 3) + 1):
        run = words[-k:]
        if run[0].lower() in _SKIPPED:
            continue
        if letters in (_initials(run, False), _initials(run, True)):
            return " ".join(run)
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


def title_spelled_out(title: str, abstract: str) -> str:
    """`title` with each acronym its own `abstract` defines written as the words it stands for ("Attack Detection in
    IoV Networks", the abstract defining "Internet of Vehicles (IoV)" -> "Attack Detection in Internet of Vehicles
    Networks"); unchanged when the abstract defines none that the title uses. Only the words just before a title
    acronym's own parenthesis are read (reading every definition of an abstract took 8 ms a paper)."""
    for acronym in dict.fromkeys(m.group(1) for m in _TYPED.finditer(title)):
        for found in re.finditer(rf"\(\s*{re.escape(acronym)}s?\s*\)", abstract):
            window = abstract[max(0, found.start() - _WINDOW) : found.end()]
            defined = [m for m in _DEFINED.finditer(window) if m.end() == len(window) and m.group(2) == acronym]
            spelled = _spelled_out(defined[0].group(1), acronym) if defined else ""
            if spelled:
                title = re.sub(rf"(?<![\w-]){re.escape(acronym)}s?(?![\w-])", spelled, title)
                break
    return title


_WINDOW = 160  # characters before an acronym's parenthesis its definition is looked for in (nine words or fewer)


async def defined_acronyms(core: Core, topic: str) -> list[tuple[str, str]]:
    """Named-term rows (expansion, acronym) for the acronyms a topic types, as the stored abstracts define them;
    terms the fixed table already knows are left to it. A phrase typed out is not turned into a term: its words
    already find the papers defining the acronym, and as one term it would lose the parts that stand for it
    ("conformal" for "conformal prediction") and gain names merely ending in the acronym ("EarthSE")."""
    rows: list[tuple[str, str]] = []
    for acronym in dict.fromkeys(m.group(1) for m in _TYPED.finditer(topic)):
        if not is_term_spelling(acronym) and len(acronym) <= _MAX_LENGTH:
            expansion = await _dominant_expansion(core, acronym, context_words(topic, acronym))
            if expansion:
                rows.append((expansion, acronym))
    return [(e, a) for e, a in dict.fromkeys(rows) if text_tokens(e) != text_tokens(a)]


def context_words(topic: str, acronym: str) -> frozenset[str]:
    """The topic's words other than `acronym` (and its plural) and the question's filler, stemmed as the full-text
    index stems them ("DP algorithms with transformers" -> {"algorithm", "transform"})."""
    typed = acronym.lower()
    words = [w for w in re.findall(r"[\w-]+", topic) if w.lower() not in FILLER and w.lower().rstrip("s") != typed]
    return frozenset(index_terms(" ".join(words))) - frozenset(index_terms(acronym))


def in_context(spelled: Counter[str], defining: dict[str, list[str]], context: frozenset[str]) -> Counter[str]:
    """The meanings of an acronym defined several ways whose defining texts (`defining`, by meaning) hold the most
    of the question's other words (`context`, index stems): "DP algorithms with transformers" is dynamic
    programming in a paper on transformers, not the differential privacy more papers define. All of `spelled` when
    the words tell no meaning from another (none held, or as many by each)."""
    if not context or len(spelled) < 2:
        return spelled
    held = {e: len(context.intersection(index_terms(" ".join(defining.get(e, []))))) for e in spelled}
    best = max(held.values())
    if not best or all(n == best for n in held.values()):
        return spelled
    return Counter({e: n for e, n in spelled.items() if held[e] == best})


async def _dominant_expansion(core: Core, acronym: str, context: frozenset[str] = frozenset()) -> str:
    """What the stored papers defining `acronym` mostly spell it out as (at least two of them, at least half of its
    definitions), or "". Defined several ways, only the meanings whose defining papers hold the most of the
    question's other words (`context`, `in_context`) count."""
    ids = [i for i, _ in await core.repo.lexical_search([[acronym.lower()]], None, None, DEFINING_SAMPLE)]
    texts = [f"{p.title}. {p.abstract}" for p in await core.repo.get_papers(ids)]
    typed = acronym.lower()
    defining: dict[str, list[str]] = {}
    for text in texts:
        for a, e in definitions([text]):
            if a.lower() == typed:
                defining.setdefault(e, []).append(text)
    spelled = in_context(Counter({e: len(t) for e, t in defining.items()}), defining, context)
    if not spelled:
        return ""
    expansion, n = spelled.most_common(1)[0]
    if n >= MIN_DEFINING_PAPERS:
        return expansion if 2 * n >= spelled.total() else ""
    if spelled.total() > 1:
        return ""  # two meanings, one paper each ("text-to-audio (TTA)", "test-time augmentation (TTA)")
    # one paper defines it: a field's term when other papers write the same words out ("knowledge distillation (KD)"),
    # one paper's name for its method when no other paper does ("Yet Another Quantization Algorithm (YAQA)")
    written = (await core.repo.document_frequencies([expansion])).get(expansion, 0)
    return expansion if written >= FIELD_PAPERS else ""


@dataclass(frozen=True, slots=True)
class Meaning:
    """One thing an acronym stands for among some papers: as first written out, and the papers using it."""

    acronym: str
    spelled: str  # "test-time adaptation"
    paper_ids: tuple[str, ...]


def meanings(topic: str, papers: Sequence[Paper]) -> list[Meaning]:
    """What the first acronym `topic` types that stands for several things among `papers` stands for, the meaning
    most of them use first (ties: the one met first), as the papers themselves define it ("test-time adaptation
    (TTA)", "test-time augmentation (TTA)"); [] when every acronym it types has one meaning there. A paper uses a
    meaning when it defines the acronym so, or writes the meaning out while another paper defines it. Spellings
    differing only by inflection ("networks"/"network", hyphens) are one meaning."""
    texts = {p.id: f"{p.title}. {p.abstract}" for p in papers}
    for acronym in dict.fromkeys(m.group(1) for m in _TYPED.finditer(topic)):
        if len(acronym) > _MAX_LENGTH:
            continue
        spelled: dict[str, str] = {}  # key -> as first written
        defined: dict[str, str] = {}  # paper id -> the key of its definition
        for paper_id, text in texts.items():
            for match in _DEFINED.finditer(text):
                if match.group(2).lower() != acronym.lower():
                    continue
                written = _spelled_out(match.group(1), match.group(2))
                if written:
                    key = _same_meaning(phrase_key(written), spelled)
                    spelled.setdefault(key, _as_in_prose(written))
                    defined.setdefault(paper_id, key)
        if len(spelled) < 2:
            continue
        users: dict[str, list[str]] = {key: [] for key in spelled}
        for paper_id, text in texts.items():
            key = defined.get(paper_id) or next((k for k in spelled if f" {k} " in f" {phrase_key(text)} "), "")
            if key:
                users[key].append(paper_id)
        order = sorted(users, key=lambda k: -len(users[k]))  # stable: ties keep the order met
        return [Meaning(acronym, spelled[k], tuple(users[k])) for k in order]
    return []


def _same_meaning(key: str, known: Iterable[str]) -> str:
    """`key`, or the known meaning it is another spelling of: hyphens and spaces aside ("multi-modal"/"multimodal"),
    one the start of the other (an expansion read one word too long, "normalizing flow-based"), or word by word the
    same words (`_same_spelling`: "networks", "behavioural", "langage")."""
    words = key.split()
    for other in known:
        others = other.split()
        if "".join(words) == "".join(others) or words[: len(others)] == others or others[: len(words)] == words:
            return other
        if len(others) == len(words) and all(_same_spelling(a, b) for a, b in zip(words, others, strict=True)):
            return other
    return key


def _same_spelling(a: str, b: str) -> bool:
    """Whether two words of a meaning are one word: inflected ("network"/"networks"), spelled another way (half the
    shorter one or more their common start: "vision"/"visual", "behavioral"/"behavioural"), or a typo (one edit
    apart, five letters or more); never two words sharing a start ("continual"/"contrastive", "pretrained"/"protein").
    """
    if same_word(a, b) or same_word(b, a):
        return True
    shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    if shared >= 3 and shared >= _SAME_START * min(len(a), len(b)):
        return True
    return min(len(a), len(b)) >= 5 and _EDITS.compare(a, b, 1) == 1


def _as_in_prose(written: str) -> str:
    """A meaning as a sentence writes it: title case lowered ("Test-Time Adaptation" -> "test-time adaptation"),
    words written with several capitals kept ("LoRA")."""
    return re.sub(r"[^\W_]+", lambda m: m[0] if sum(c.isupper() for c in m[0]) > 1 else m[0].lower(), written)


def grouped(papers: Sequence[Paper], found: Sequence[Meaning]) -> list[Paper]:
    """`papers` grouped by the meaning they use, in the order of `found` (each group in its given order), the papers
    using none of them last."""
    group = {paper_id: n for n, meaning in enumerate(found) for paper_id in meaning.paper_ids}
    return sorted(papers, key=lambda p: group.get(p.id, len(found)))
