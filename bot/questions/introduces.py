"""Whether a paper's own contribution is a benchmark or a data set, read from its title and abstract.

The paper must say it made one: its title names it as the thing the paper is ("OrbitBench: ...", "X: A Benchmark for
Y", "A Multi-Speaker Dataset for Z"), or a sentence of its abstract has the authors as the subject of a verb of making
whose object is a benchmark or data set ("we introduce Foo, a benchmark of ...", "in this work we also release a
dataset of ..."). A benchmark or data set a method is only evaluated on, trained on or transformed ("we evaluate
on three benchmarks", "with the PlantVillage dataset", "dataset distillation", "a framework that transforms existing
datasets") is no such contribution. The reading is by the role of the words (subject, verb, object, the preposition
a noun hangs on), the same for every topic.
"""

from __future__ import annotations

import re

_KIND = r"(?:benchmarks?|datasets?|data\s+sets?|corpus|corpora|test\s*beds?|test\s+suites?|suites?|arenas?|gyms?)"
# a name ending in "bench" ("SWE-bench", "VSCBench", "OmniEarth-Bench") names a benchmark
_BENCH_NAME = re.compile(r"(?<![\w])[A-Za-z0-9][\w\-]*?-?[bB]ench(?:mark)?\b(?![\w\-])")
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
# words that end the object before a kind noun is reached: it is then used, compared or transformed, not made
_GAP_WORD = (
    r"(?:(?!(?:on|across|over|against|using|with|via|from|for|these|those|existing|established|standard|several|"
    r"multiple|various|popular|widely|commonly|current|previous|prior|other|diverse|many|that|which|to|by)\b)[\w\-\u2019'()]+,?\s+)"
)
_INTRODUCES = re.compile(
    rf"{_AUTHORS}(?<![\w-])(?P<verb>{_MAKING})(?:[:\s]+(?:\d\)\s*)?{_GAP_WORD}{{0,8}}?)"
    rf"(?P<kind>[\w\-]*bench(?:mark)?s?\b|{_KIND}\b)(?P<after>\s*\S*)",
    re.IGNORECASE,
)
# a word before the verb that makes it a participle describing a noun ("the recently released X data set", "a
# pre-collected dataset", "the open-source dataset"): something used, not made
_DESCRIBES = re.compile(r"(?:\b(?:the|a|an|recently|newly|previously|widely|already)|-)\s*$", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _title_names_one(title: str) -> bool:
    """The title names a benchmark or data set as what the paper is: a name ending in "bench", a title part opening
    with "Benchmarking", or a kind noun heading a phrase that hangs on no preposition and modifies no further noun."""
    for part in _TITLE_PARTS.split(title):
        words = re.findall(r"[\w][\w\-']*", part)
        if words and words[0].lower() == "benchmarking":
            return True
        for found in _TITLE_KIND.finditer(part):
            after = part[found.end() :]
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
                return True
    return bool(_BENCH_NAME.search(title.split(":")[0]))


def introduces_benchmark(title: str, abstract: str) -> bool:
    """Whether the paper's own contribution is a benchmark or data set: its title names one as what the paper is, or
    its abstract says the authors made one."""
    if _title_names_one(title):
        return True
    return any(_states_one(sentence) for sentence in _SENTENCE.split(abstract))


def _states_one(sentence: str) -> bool:
    """The sentence has the authors make a benchmark or data set (see `_INTRODUCES`)."""
    for found in _INTRODUCES.finditer(sentence):
        if _DESCRIBES.search(sentence[: found.start("verb")]):
            continue
        kind, after = found.group("kind"), found.group("after").strip()
        if kind[:1].isupper() and after[:1].isupper():
            continue  # "Multi-Domain Dataset Condensation": a kind noun inside the name of something else
        return True
    return False
