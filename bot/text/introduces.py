"""Whether a paper's own contribution is a benchmark or a data set, read from its title and abstract: the one reader
of it, for questions ("which papers introduce a benchmark for X") and for the ranker's avoids ("no benchmark papers").

The paper must say it made one: its title names it as the thing the paper is ("OrbitBench: ...", "X: A Benchmark for
Y", "A Multi-Speaker Dataset for Z"), or a sentence of its abstract has the authors as the subject of a verb of making
whose object is a benchmark or data set ("we introduce Foo, a benchmark of ...", "in this work we also release a
dataset of ..."). A benchmark or data set a method is only evaluated on, trained on or transformed ("we evaluate
on three benchmarks", "with the PlantVillage dataset", "dataset distillation", "a framework that transforms existing
datasets") is no such contribution. The reading is by the role of the words (subject, verb, object, the preposition
a noun hangs on), the same for every topic.
"""

from __future__ import annotations

import functools
import re

from bot.text.latex import latex_to_text

_KIND = r"(?:benchmarks?|datasets?|data\s+sets?|corpus|corpora|test\s*beds?|test\s+suites?|suites?|arenas?|gyms?)"
# the kind nouns naming data (the rest name a benchmark: a test bed, a suite, an arena, a gym)
_DATA = re.compile(r"^(?:datasets?|data\s+sets?|corpus|corpora)$", re.IGNORECASE)
BENCHMARK, DATASET = "benchmark", "dataset"
# a name ending in "bench" ("SWE-bench", "VSCBench", "OmniEarth-Bench"), "gym" or "arena" ("HDDLGym") names a benchmark
_BENCH_NAME = re.compile(r"(?<![\w])[A-Za-z0-9][\w\-]*?-?(?:[bB]ench(?:mark)?|[gG]ym|[aA]rena)\b(?![\w\-])")
_TITLE_PARTS = re.compile(r":|\s[-\u2013\u2014]+\s|\?")
_TITLE_KIND = re.compile(rf"\b{_KIND}\b", re.IGNORECASE)
# A kind noun hanging on one of these is something used, not made ("with the X dataset", "on multiple datasets")
_USED_AFTER = frozenset(
    """with on using across over from of in to via through under against by into for without between among""".split()
)
_STARTS_PHRASE = frozenset("a an the new novel first our".split())
_REACH = 8  # words back from the kind noun to where its noun phrase starts

_MAKING = (
    r"(?:introduc(?:e|es|ed|ing)|present(?:s|ed|ing)?|propos(?:e|es|ed|ing)|releas(?:e|es|ed|ing)|"
    r"construct(?:s|ed|ing)?|build(?:s|ing)?|built|curat(?:e|es|ed|ing)|creat(?:e|es|ed|ing)|develop(?:s|ed|ing)?|"
    r"contribut(?:e|es|ed|ing)|collect(?:s|ed|ing)?|design(?:s|ed|ing)?|establish(?:es|ed|ing)?|offer(?:s|ed|ing)?|"
    r"open-sourc(?:e|es|ed|ing)|assembl(?:e|es|ed|ing)|compil(?:e|es|ed|ing)|annotat(?:e|es|ed|ing))"
)
# the authors as the subject: "we", "this paper/work/study", "our work", earlier in the same clause ("we investigate
# ... and contribute a new benchmark", "we then spend 500 hours constructing X-Bench")
_AUTHORS = r"\b(?:we|this\s+(?:paper|work|study|article)|our\s+(?:paper|work|study))\b[^.;]*?\b"
# What ends the object before a kind noun is reached (it is then used, compared or transformed, not made), all closed
# classes of English: a preposition the noun would hang on ("evaluate ... on standard benchmarks"; not "of": "a
# collection of datasets" is made), a demonstrative or quantifier picking things that exist ("these", "several",
# "other datasets") and a relative pronoun opening a clause about something else ("a method that beats benchmarks").
_GAP_STOPS = sorted(
    (_USED_AFTER - {"of"}) | frozenset("these those several multiple various many other that which".split())
)
_GAP_WORD = rf"(?:(?!(?:{'|'.join(_GAP_STOPS)})\b)[\w\-\u2019'()]+,?\s+)"
# An environment agents are put in is a benchmark when the authors say they made one ("we propose KnotGym, an
# interactive environment for ..."); only so: in a title it is as often where something happens ("Development
# Environments", "Representing Local Protein Environments")
_MADE_KIND = rf"(?:{_KIND}|environments?)"
_INTRODUCES = re.compile(
    rf"{_AUTHORS}(?<![\w-])(?P<verb>{_MAKING})(?:[:\s]+(?:\d\)\s*)?{_GAP_WORD}{{0,8}}?)"
    rf"(?P<kind>[\w\-]*bench(?:mark)?s?\b|{_MADE_KIND}\b)(?P<after>\s*\S*)",
    re.IGNORECASE,
)
_MAKES = re.compile(rf"{_AUTHORS}(?<![\w-]){_MAKING}\b", re.IGNORECASE)
# a word before the verb that makes it a participle describing a noun ("the recently released X data set", "a
# pre-collected dataset", "the open-source dataset"): something used, not made
_DESCRIBES = re.compile(r"(?:\b(?:the|a|an|recently|newly|previously|widely|already)|-)\s*$", re.IGNORECASE)
_ANY_KIND = re.compile(rf"bench|{_MADE_KIND}", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _kind(noun: str) -> str:
    return DATASET if _DATA.match(" ".join(noun.split())) else BENCHMARK


def _title_kinds(title: str) -> set[str]:
    """What the title names as the thing the paper is: a name ending in "bench", a title part opening with
    "Benchmarking", or a kind noun heading a phrase that hangs on no preposition and modifies no further noun."""
    kinds: set[str] = set()
    for part in _TITLE_PARTS.split(title):
        words = re.findall(r"[\w][\w\-']*", part)
        if words and words[0].lower() == "benchmarking":
            kinds.add(BENCHMARK)
        for found in _TITLE_KIND.finditer(part):
            after = part[found.end() :]
            if _TITLE_KIND.match(after.lstrip()):
                kinds.add(_kind(found.group(0)))  # "A Benchmark Dataset for X": both, the dataset is read next
                continue
            if re.match(r"\s*(?:-|[A-Za-z])", after) and not re.match(
                r"\s+(?:for|of|on|to|in|with|and|from|that|towards?|via|across|covering|spanning)\b", after
            ):
                continue  # "Dataset Pruning", "Benchmark-Topping", "Dataset Networking": a modifier of a noun
            before = re.findall(r"[\w][\w\-']*", part[: found.start()])
            if before and before[-1].endswith("-"):
                continue
            if part[: found.start()].rstrip().endswith("-"):
                continue  # "Cross-Dataset"
            used = False
            for word in reversed(before[-_REACH:]):
                lower = word.lower()
                if lower in _USED_AFTER:
                    used = True
                    break
                if lower in _STARTS_PHRASE:
                    continue  # "in a Dataset": the article does not end the search for the preposition
            if not used:
                kinds.add(_kind(found.group(0)))
    if _BENCH_NAME.search(title.split(":")[0]):
        kinds.add(BENCHMARK)
    return kinds


@functools.lru_cache(maxsize=8192)
def introduced_kinds(title: str, abstract: str, *, main: bool = False) -> frozenset[str]:
    """What the paper makes, of a benchmark and a data set ("benchmark", "dataset"): what its title names as the
    paper, and what its abstract says the authors made. With `main`, only what it makes as its main contribution:
    the title's, or the first sentence where the authors say they made something ("we propose a router ... . We also
    build a dataset" makes a router). Read as the words an author's LaTeX prints ("we introduce the
    \\textbf{PredictiQ} benchmark" is "we introduce the PredictiQ benchmark")."""
    kinds = _title_kinds(_printed(title))
    for sentence in map(_printed, _SENTENCE.split(abstract)):
        if main and not _MAKES.search(sentence):
            continue
        kinds |= _stated_kinds(sentence)
        if main:
            break
    return frozenset(kinds)


@functools.lru_cache(maxsize=8192)
def stating_sentences(abstract: str) -> tuple[str, ...]:
    """The sentences of `abstract` in which the authors say they made a benchmark or data set ("we introduce X, a
    benchmark of math word problems"): where a paper says what its benchmark is about."""
    return tuple(s for s in map(_printed, _SENTENCE.split(abstract)) if _stated_kinds(s))


def _printed(text: str) -> str:
    """`text` as its LaTeX prints when a macro is written in it and it could say the authors made a benchmark or data
    set (pylatexenc takes milliseconds a sentence: only those, a few dozen of 1,600 abstracts)."""
    if "\\" in text and _MAKES.search(text) and _ANY_KIND.search(text):
        return latex_to_text(text)
    return text


def introduces_benchmark(title: str, abstract: str) -> bool:
    """Whether the paper's own contribution is a benchmark or data set: its title names one as what the paper is, or
    its abstract says the authors made one."""
    return bool(introduced_kinds(title, abstract))


def _stated_kinds(sentence: str) -> set[str]:
    """The kinds the sentence has the authors make (see `_INTRODUCES`)."""
    kinds: set[str] = set()
    for found in _INTRODUCES.finditer(sentence):
        if _DESCRIBES.search(sentence[: found.start("verb")]):
            continue
        kind, after = found.group("kind"), found.group("after").strip()
        if kind[:1].isupper() and after[:1].isupper():
            continue  # "Multi-Domain Dataset Condensation": a kind noun inside the name of something else
        kinds.add(_kind(kind))
        if _TITLE_KIND.fullmatch(after.rstrip(".,;:")):  # "a benchmark dataset": both
            kinds.add(_kind(after.rstrip(".,;:")))
    return kinds
