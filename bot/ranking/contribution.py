"""What kind of contribution a paper makes (a benchmark, a dataset, a survey, a position), and which kinds an
avoid phrase names ("benchmark-only papers", "surveys and position papers"; the words of each kind and the
reading of an avoid phrase are `bot.ranking.contribution_words`).

An avoid is read as a topic plus contribution kinds: "benchmark, dataset or evaluation-only papers" names three
kinds and no topic, so it removes the papers whose contribution is one of them, whatever they are about; a paper
that only evaluates its new method on benchmarks is not a benchmark paper. Whether a paper makes a benchmark or a
data set is read by `bot.text.introduces`, as questions read it ("GeoGramBench: ...", "we introduce X, a benchmark of
..."); an evaluation study is read from its title ("Evaluating ...", "Benchmarking ..."); a survey or position paper
from its title ("A Survey of ...", "Position: ...") and from the first sentence where the authors say what they
contribute ("in this survey, we ...").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.ranking.contribution_words import KINDS, kind_of_word
from bot.text.introduces import introduced_kinds
from bot.text.terms import same_word, text_tokens

# A title or title part that starts so reports an evaluation ("Evaluating LLMs on ...", "Benchmarking ...").
_EVALUATION_OPENERS = ("evaluating", "assessing", "benchmarking", "measuring")
# Verbs that state a contribution, and the words after them that say the kind word is not its object
# ("we propose X and test it on benchmarks").
_CONTRIBUTE = frozenset(
    """introduce present propose release construct curate build develop create establish contribute provide
    offer design""".split()
)
_NOT_OBJECT = frozenset("on across using with over against from via through under".split())
_OBJECT_REACH = 8  # tokens after the verb in which the kind word may stand
_WHOLE_WORK = frozenset("this our".split())  # "this survey", "our position paper"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_TITLE_PARTS = re.compile(r":|\s[-–—]\s")
_TITLE_LEAD = 4  # a kind word among the first words of a title part
# the kinds read here (a benchmark or data set is read by `introduced_kinds`); "position" in a title is usually
# positional ("Position: ..." aside), in an abstract it is "our position paper"
_STATED_HERE = frozenset({"survey", "position"})
# A survey of a counted sample ("our survey of 53 specialists", "an online survey with over 1300 participants") is a
# questionnaire study, not a review of a field: its respondents are counted, a review's topic is named ("a review of
# 120 studies" is a systematic review: only "survey" has the two senses). A review may count what it covers, the
# papers or the years ("a survey of over 200 papers", "of 150 recent works", "of 30 years of research"): no sample.
_QUESTIONNAIRE = re.compile(
    r"\bsurveys?\s+(?:of|with|among|across)\s+"
    r"(?:(?:over|more|than|nearly|about|around|approximately|roughly|almost|some|n\s*=)\s*)*\d(?:[\d,.]*\d)?(?![\d,]|\.\d)\+?"
    r"(?!\s+(?:[\w-]+\s+){0,2}?(?:papers?|works?|articles?|studies|publications?|preprints?|methods|approaches|"
    r"years?|decades?)\b)",
    re.IGNORECASE,
)


def paper_kinds(title: str, abstract: str) -> frozenset[str]:
    """The contribution kinds a paper states: a benchmark or data set it makes as its main contribution
    (`introduced_kinds`), an evaluation study by its title or a title part (a benchmark paper to an avoid), a survey
    or position by its title or the first sentence saying what it contributes; a survey of a counted sample of
    respondents is a questionnaire study, no survey."""
    kinds: set[str] = set(introduced_kinds(title, abstract, main=True))
    if any(text_tokens(part)[:1] in ([o] for o in _EVALUATION_OPENERS) for part in _TITLE_PARTS.split(title)):
        kinds.add("benchmark")  # "Evaluating ...", "Beyond X: Evaluating Y"
    if title.lower().startswith("position:"):
        kinds.add("position")
    for segment in _TITLE_PARTS.split(title):  # "X: A Survey", "Systematic Evaluation of Y": the kind leads a part
        for token in text_tokens(segment)[:_TITLE_LEAD]:
            # the noun, plural folded ("Surveys", "A Review"): a verb's form names what the paper's method does
            # ("Self-Reviewing LLM Agents" is no survey)
            if token in KINDS["survey"]:
                kinds.add("survey")
            elif same_word("evaluation", token):  # "Systematic Evaluation of ...": an evaluation study
                kinds.add("benchmark")
    for sentence in _SENTENCE.split(abstract):
        tokens = text_tokens(sentence)
        if _states_contribution(tokens):
            kinds |= _stated_kinds(tokens) & _STATED_HERE
            break
    if "survey" in kinds and _QUESTIONNAIRE.search(f"{title} {abstract}"):
        kinds.discard("survey")  # "Expert Survey: ..." whose survey is "of 53 specialists"
    return frozenset(kinds)


def contribution_sentence(abstract: str, *, work: bool = False) -> str:
    """The first sentence of `abstract` saying what the paper contributes ("we propose ...", "in this paper, we
    ..."), or "" when none does; with `work`, also one whose subject is the paper itself ("This paper proposes a
    hybrid framework ... for stock price prediction", "Our work introduces ...")."""
    return next(
        (
            s
            for s in _SENTENCE.split(abstract)
            if _states_contribution(tokens := text_tokens(s)) or (work and _work_does(tokens))
        ),
        "",
    )


_WORK = frozenset("paper work study article letter thesis".split())  # the paper itself, as a subject


def _work_does(tokens: Sequence[str]) -> bool:
    """The sentence has the paper itself do what contributes ("this paper proposes", "our work introduces", "this
    study presents"): a verb of contributing right after "this"/"our" and a word naming the paper (an adverb
    between)."""
    return any(
        token in _WHOLE_WORK
        and tokens[i + 1] in _WORK
        and any(same_word(v, t) for v in _CONTRIBUTE for t in tokens[i + 2 : i + 4])
        for i, token in enumerate(tokens[:-2])
    )


def _states_contribution(tokens: Sequence[str]) -> bool:
    """The sentence says what the paper contributes: "we propose ...", "this survey ...", "in this paper, we ..."."""
    for i, token in enumerate(tokens[:-1]):
        if token == "we" and any(same_word(v, tokens[i + 1]) for v in (*_CONTRIBUTE, "survey", "review", "argue")):
            return True
        if token in _WHOLE_WORK and kind_of_word(tokens[i + 1]) is not None:
            return True
    return False


def _stated_kinds(tokens: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for i, token in enumerate(tokens):
        # "an extensive evaluation" of a new method is no evaluation paper: in an abstract only the nouns count
        kind = None if same_word("evaluation", token) else kind_of_word(token)
        if kind is None:
            continue
        if kind == "survey" and i and tokens[i - 1] == "we":  # "we survey", "we review"
            found.add(kind)
            continue
        if i and tokens[i - 1] in _WHOLE_WORK:  # "this survey", "our benchmark"
            if kind != "position" or (i + 1 < len(tokens) and tokens[i + 1] == "paper"):
                found.add(kind)
            continue
        for j in range(i - 1, max(-1, i - 1 - _OBJECT_REACH), -1):
            if tokens[j] in _NOT_OBJECT:
                break
            if any(same_word(verb, tokens[j]) for verb in _CONTRIBUTE):
                if kind != "position" or (i + 1 < len(tokens) and tokens[i + 1] == "paper"):
                    found.add(kind)
                break
    return found
