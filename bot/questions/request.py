"""What a question asks besides its topic, read from the role its words play rather than from a list of questions.

- exclusions: "X papers that are not about Y", "X other than Y", "X, but not the Y ones", "skip anything built on
  Y", "except Y": Y is a topic the listed papers must not be about (`Request.excluded`);
- a contribution type: "new benchmarks for X", "which papers introduce a dataset for X": the papers must introduce
  a benchmark or data set (`Request.contribution`, tested by `bot.text.introduces.introduces_benchmark`) and be about X;
- clarifications: "X, i.e. A or B", "X (A, B, ...)", "X — A, B", "X? A, B": the parenthesised or explained words
  (or a sentence after the question) are further alternatives of the same need, written as examples (`as_examples`)
  for `bot.questions.topics.topic_alternatives`;
- refinements: a sentence whose subject is a pronoun or quantifier for the papers asked about ("diffusion papers? any
  on video?", "... which of them use RL?") narrows them by what follows (`Request.refinements`); the same reading
  tells a follow-up's constraint (`without_reference`);
- how the papers came out ("were announced", "posted", "based on") is no topic (`without_publication`);
- markup typed into a question (`<b>`, `&amp;`) is no topic.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.questions.topics import (
    FILLER,
    META,
    PREPOSITIONS,
    is_term_spelling,
    split_units,
    topic_alternatives,
    topic_key,
    topic_of,
)
from bot.ranking.contribution_words import CUE_IDIOMS, KINDS, THEORY_CUES, asked_kind
from bot.text.terms import EVERYDAY_COUNT, WORD, english_count, is_english_word, same_word, text_tokens

# A cue that what follows is excluded, and the relation words that may follow it ("not about", "built on"). Three
# kinds: a negation or a preposition of exclusion anywhere after the topic ("not", "isn't", "other than", "minus",
# "besides"); a determiner or verb of exclusion opening a clause of its own, after punctuation or "but"/"and" ("..., no
# medical ones", "but nothing on forecasting", "..., drop the LLM ones"), where mid-phrase it would be part of a topic
# ("no-regret learning", "token dropping"); and "without" after the papers asked for ("RL papers without LLMs"), where
# after a topic word it is part of the topic ("planning without search").
# A new sentence opens such a clause only when it holds nothing else: "No worries, anything on RL?" and "No idea where
# to start: anything on X?" open with an interjection, not an exclusion
_OPENS_CLAUSE = (
    r"(?:(?:[,;:\u2014\u2013]\s*|(?<=[?!.])\s+(?=[^,;:\u2014\u2013.?!]*(?:[.?!]|$))|\s+-+\s+)(?:but\s+|and\s+)?|"
    r"\b(?:but|and)\s+)"
)
_EXCLUDE = re.compile(
    r"(?:[,;:\u2014\u2013]\s*|\s+-+\s+|\b)(?:but\s+|and\s+|(?:al)?though\s+)?(?:(?:that|which|who)(?:['\u2019]s\s+|\s+(?:are|is|do|does)\s+))?"
    # "whether or not" excludes nothing
    r"(?:(?<!\bwhether or )\bnot\b|(?<!\bor )\bnon-(?=\w)|\bother\s+than\b|\bexcept(?:\s+for)?\b|\bexcluding\b|"
    r"\bapart\s+from\b|"
    r"\bskip(?:ping)?\b|\bignor(?:e|ing)\b|\bleave\s+out\b|\bleaving\s+out\b|\bno\s+more\b|"
    r"\b(?:is|are|do|does|did|was|were)n['\u2019]?t\b|\bminus\b|\bbesides\b|\bexclud(?:e|es)\b|\bfilter(?:ing)?\s+out\b)"
    rf"|{_OPENS_CLAUSE}(?:\bno\b(?!-)|\bnothing\b|\bavoid(?:ing)?\b|\bdrop(?:ping)?\b|\bomit(?:ting)?\b|\bwithout\b|"
    r"\bleave\b(?=.*\b(?:aside|out)\b)|"
    r"\boutside(?:\s+of)?\b)"
    r"|\b(?:papers?|works?|ones|studies|research|preprints?|articles?)\s+(?:without|outside(?:\s+of)?)\b",
    re.IGNORECASE,
)
_RELATION = re.compile(
    r"^\s*(?:(?:anything|any|those|the\s+ones|ones|the|papers?|work|that|which|are|is|ones)\s+)*"
    # whole words: "involve" and "forecasting" hold no "in" or "for"
    r"(?:(?:(?:built|based|relying|focused|centred|centered|done)\s+(?:on|around|with)|using|involving|about|on|"
    r"regarding|related\s+to|with|for|in)\b)?\s*",
    re.IGNORECASE,
)
# the verb of a negated clause ("that don't use LLMs", "which do not deal with images"): what is excluded follows it
_NEGATED_VERB = re.compile(
    r"^\s*(?:use|uses|involve|involves|rely\s+on|relies\s+on|deal\s+with|deals\s+with|focus\s+on|focuses\s+on|"
    r"mention|mentions|target|targets|touch|touches|apply|applies|need|needs|require|requires)\b\s*",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"(?:\s+(?:ones?|papers?|works?|stuff|ones|related|based|aside|out))+\s*$", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.?!;]|\s+(?:and|but)\s+(?:also\s+)?(?:only|just|show|list)\b", re.IGNORECASE)

# "new benchmark(s)/dataset(s)", "introduce a benchmark", "benchmarks for evaluating": the contribution asked for.
_CONTRIBUTION_WORD = (
    # what the contribution is for may come first: "evaluation benchmarks", "eval sets", "test suites"
    r"(?<![\w-])(?:(?:eval(?:uation)?|test(?:ing)?)\s+)?"
    # the kind nouns a paper's reader knows (`bot.text.introduces`): a gym or an arena is a benchmark too
    r"(?:benchmarks?|datasets?|data\s+sets?|corpus|corpora|test\s*beds?|suites?|gyms?|arenas?|"
    r"(?:eval(?:uation)?|test)\s+sets?)(?![\w-])"
)
# what a benchmark does, right after it ("a benchmark testing negation in VLMs"): "for testing", said as a participle
_EVALUATION = r"(?:evaluat\w*|test\w*|measur\w*|assess\w*|benchmark\w*|prob(?:e|es|ing))"
_DOES = r"(?:evaluating|testing|measuring|assessing|probing)"
_CONTRIBUTION = re.compile(
    rf"(?:\b(?:introduc\w*|propos\w*|present\w*|releas\w*|new(?:ly)?|contribut\w*|creat\w*|build\w*|offer\w*)\s+)*"
    rf"(?:\b(?:a|an|any|the|some)\s+)?(?:\b(?:new(?:ly)?|released|public|open)\s+)*"
    rf"{_CONTRIBUTION_WORD}(?:(?:\s*(?:/|,|\bor\b|\band\b)\s*|\s+){_CONTRIBUTION_WORD})*"
    # the head of its phrase, not a word naming a topic ("dataset distillation", "benchmark contamination")
    r"(?=\s*(?:$|[^\w\s-]|\b(?:for|on|of|to|that|in|with|about|from|papers?|works?|which|where|this|last|today)\b|"
    rf"{_DOES}\s+\w))"
    rf"(?:\s+(?:(?:\bfor\b|\bon\b|\bof\b|\bto\b|\bthat\b)(?:\s+{_EVALUATION})?|{_DOES}\b))?",
    re.IGNORECASE,
)
# an excluded topic that is only contribution words ("excluding benchmarks"): the papers whose main contribution is one
_CONTRIBUTION_ONLY = re.compile(
    rf"^\W*{_CONTRIBUTION_WORD}(?:(?:\s*(?:/|,|\bor\b|\band\b)\s*|\s+){_CONTRIBUTION_WORD})*\W*$", re.IGNORECASE
)
# A verb of making (with its article and "new") whose object's kind noun the contribution read, a few modifiers later
_MADE_BEFORE = re.compile(
    r"\b(?:introduc\w*|propos\w*|present(?:s|ed|ing)?|releas\w*|contribut\w*|creat\w*|build\w*|offer\w*)\s+"
    r"(?:(?:a|an|any|the|some)\s+)?(?:(?:new(?:ly)?|released|public|open)\s+)*(?=(?:[^\W\d_][\w\-']*\s+){1,4}$)",
    re.IGNORECASE,
)
# An excluded "new X" beside a contribution asked for contrasts kinds of contribution ("new environments, not new
# algorithms"), not topics: the papers asked for make the contribution; X is no topic they must not mention
_MADE_ANEW = re.compile(r"^\W*(?:new(?:ly)?|novel)\b", re.IGNORECASE)
# Whether a paper made one is `bot.text.introduces`.
# "benchmarks for evaluating <what is evaluated> on <the task>": the task is the topic ("in" often names a setting
# instead: "robots in the wild"). The verbs are what a benchmark is for (evaluate, test, measure, assess): a gerund of
# a task reads the same way ("benchmarks for coding agents on ..."), and the archive cannot tell them apart (as many
# papers naming "coding" as naming "evaluating" also name a benchmark, 0.41 and 0.42 on the shared days).
_EVALUATING = re.compile(r"\b(?:evaluat|test|measur|assess|benchmark)\w*\s*$", re.IGNORECASE)
_EVALUATED = re.compile(r"\s*(?:[\w\-]+\s+){1,3}?on\s+(?=\S)", re.IGNORECASE)
# Clarification markers: what follows explains the need by examples or in other words.
# a sentence after the question that asks or requests something of its own is no clarification of it
_ASKING = r"(?:what|which|who|whom|whose|how|why|when|where|is|are|was|were|do|does|did|can|could|would|should|will|"
_ASKING += r"please|show|list|give|tell|find|also|and|but|thanks|thank|i|i'm|we|they|any|anything)\b"
_ASKS = re.compile(rf"\W*{_ASKING}", re.IGNORECASE)
_TOPIC_WORD = re.compile(r"[^\W\d_][\w\-']*")
# A verb asking to narrow what was listed: "narrow it down to X", "restrict them to X", "limit the list to X", its
# object left out ("restrict to Thursday", "filter to Monday's")
_NARROW_VERB = (
    r"(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:narrow|filter|restrict|limit|cut)\s+"
    r"(?:(?:it|them|those|these|this|that|the\s+(?:list|results?|answer))\s+)?(?:down\s+)?(?:to|by)\b"
)
# A subject standing for papers already named: a pronoun or demonstrative ("those", "them", "the ones"), or a
# determiner, quantifier or "which" with its noun left out ("any on video", "which use RL", "only the theoretical
# ones", "what about video"), or the indefinite pronoun of one ("anything by Kai Chen" as "any by Kai Chen"): what
# follows it says which of them are meant ("which papers ..." asks anew). A subject
# that can be the doer (`doer`: "which", "those", "any of them") may be followed by the verb it does ("use RL").
_NOUN = r"(?!\s+(?:papers?|preprints?|works?|articles?|research|studies)\b)"
_SELECTOR = re.compile(
    r"^\W*(?:(?:and|but|also|so|or|then|now|ok|okay)\b\W*)*(?:(?:do|does|did|are|is|were|was|can)\s+)?"
    r"(?P<subject>(?:(?:only|just)\b\s*)?"
    r"(?:(?P<doer>(?:which|any|some|none|few|all|many|most)\s+(?:of|among)\s+(?:them|those|these|the\s+above)\b|"
    rf"those\b|these\b|the\s+ones\b|ones\b|which\b{_NOUN}(?:\s+ones\b)?)|"
    rf"(?:what|how)\s+about\b(?:\s+(?:the\s+)?ones\b)?|them\b|(?:any(?:thing)?|some(?:thing)?|none)\b{_NOUN}(?:\s+(?:ones|others)\b)?)|"
    r"(?:only|just)\b)?",
    re.IGNORECASE,
)
# A continuation naming where or for what the same topic is wanted ("and for diffusion models?", "but in speech?",
# "and what about with RL?"): the previous papers for that, not a new topic ("and diffusion?" is one)
_NARROWING = re.compile(rf"^\W*(?:(?:and|but|so|then|now|ok|okay)\b\W*)*{_NARROW_VERB}", re.IGNORECASE)
_APPLIED = re.compile(
    r"^\W*(?:and|but|also|or|then|now)\s+(?:(?:what|how)\s+about\s+)?(?:for|in|within|with)\s+(?=\S)", re.IGNORECASE
)
_CONTINUATION = re.compile(r"^\W*(?:(?:and|but|also|or|then|now|so)\b|(?:what|how)\s+about\b)", re.IGNORECASE)
# between a subject and what it does: a relative pronoun ("any that use RL"), an auxiliary, or a copula (after which
# an adjective or a relation follows, not a verb: "which are theoretical", "those that are about video")
_LINK = re.compile(r"^\s*(?:(?:are|is|were|was|do|does|did|that|which|who)\s+)+", re.IGNORECASE)
_COPULA = re.compile(r"\b(?:are|is|were|was)\b", re.IGNORECASE)
_VERB = re.compile(r"^\s*([a-z]+)\s+(?=\S)")
_REFERENCE = re.compile(r"\b(?:those|these|them|ones|of\s+the\s+above|among\s+them|that\s+list)\b", re.IGNORECASE)
_DOCUMENT = re.compile(r"\b(?:papers?|preprints?|works?|articles?|research|studies|publications?)\b", re.IGNORECASE)
_CLARIFY = re.compile(
    rf"\s*(?:,\s*)?(?:\bi\.\s?e\.?,?|\bie\.?,|\bnamely\b|(?:\bby\s+which\s+)?\bi\s+mean\b,?|"
    # "meaning" and "that is" clarify only after a comma ("X, meaning Y"; "word meaning" is a topic)
    rf"(?:(?<=,)|(?<=,\s))(?:meaning\b|that\s+is\b,?)|\bin\s+other\s+words\b|\bin\s+particular\b|\bfor\s+example\b|"
    rf"\bfor\s+instance\b|\bspecifically\b|\bespecially\b|\u2014|\u2013|\s-{{1,2}}\s|:|[?!]+(?=\s+(?!{_ASKING})\S)|"
    # shorthand researchers type for the same ("esp.", "incl.", "aka"), and "particularly", "notably"
    rf"\besp\b\.?,?|\bincl\b\.?,?|\ba\.?k\.?a\b\.?,?|\bparticularly\b|\bnotably\b)\s*",
    re.IGNORECASE,
)
# a word that only introduces an example ("(say, forecasting)", "— think o1-style RL", "e.g. diffusion")
_EXAMPLE_LEAD = re.compile(r"^\s*(?:say\b,?|think\b|e\.\s?g\.?,?|eg\b,?|like\b|such\s+as\b|including\b)\s*", re.I)
# Shorthand for "with", "without" and coordination, read as the words: "w/ human feedback", "w/o labels", "diffusion
# vs autoregressive", "RL + robotics", "agents & tool use" ("C++", "Q&A" and "mahalanobis++" stay names)
_SHORTHAND = (
    (re.compile(r"(?<![\w/])w/o(?![\w/])", re.IGNORECASE), "without"),
    (re.compile(r"(?<![\w/])w/(?=\s|\w)", re.IGNORECASE), "with "),
    (re.compile(r"\s+(?:vs\.?|versus)\s+", re.IGNORECASE), " or "),
    # "tactile sensing + language models" is the two together, as "with" says ("&" is "and")
    (re.compile(r"\s+\+\s+"), " with "),
    (re.compile(r"\s+&\s+"), " and "),
)
# "A and B" asked together is one topic needing both, as "A with B" (and "+") reads it: "both A and B", "A and B
# together / jointly / combined / at once", "combining / integrating A and B", "the intersection of A and B"; a plain
# "A and B" names either (`bot.questions.topics.conjuncts`)
_TOGETHER_WITH = re.compile(r"\b(?:together|combined|coupled|jointly)\s+with\b", re.IGNORECASE)
# ("for / in / across both A and B" names where something applies, each: "works for both images and video")
_BOTH = re.compile(r"(?<!\bfor )(?<!\bin )(?<!\bacross )\bboth\s+(?=[^,;:.?!]*?\s+and\s+\S)", re.IGNORECASE)
_JOINT_VERB = re.compile(
    r"\b(?:combin(?:e|es|ed|ing)|integrat(?:e|es|ed|ing)|fus(?:e|es|ed|ing)|unif(?:y|ies|ied|ying)|"
    r"(?:the\s+)?(?:combination|integration|intersection|fusion|interplay)\s+(?:of|between))\s+"
    r"(?=[^,;:.?!]*?\s+and\s+\S)",
    re.IGNORECASE,
)
_JOINTLY = re.compile(
    r"\s+(?:together|jointly|combined|in\s+combination|in\s+tandem|at\s+once|at\s+the\s+same\s+time|"
    r"simultaneously)\b(?!\s+(?:with|to)\b)",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"[,;:.?!]")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_LAST_AND = re.compile(r"\s+and\s+(?!.*\s+and\s)", re.IGNORECASE)
_PARENTHESES = re.compile(r"\(([^()]*)\)")
# A question asking what was said or done about a topic: "what did Friday bring on LoRA?", "what does the literature
# say about X?": after a wh-word and "do" the subject and a bare verb come, then the relation naming the topic
_FRAMED = re.compile(
    r"^\W*(?:(?:what|anything)\s+(?:did|does|do|has|have|will)\s+(?:[\w\-']+\s+){0,3}?[a-z]+\s+|"
    # or what came out asked with "has" or "did": "has anything (new) come out on X", "did anything come out about X"
    r"(?:(?:has|have|did|does|will)\s+)?any(?:thing)?\s+(?:new\s+)?(?:papers?\s+)?(?:come|came|comes)\s+out\s+|"
    # or a progressive verb of what goes on, right before the relation: "what's happening in X", "what is going on
    # with X" (a verb with an object of its own, "what is causing hallucination in LLMs", is no such frame)
    r"what(?:['\u2019]s|\s+is|\s+was|\s+has\s+been)\s+[a-z]{2,}ing\s+(?:on\s+)?|"
    # or a past verb with "what" as its subject and no object ("what happened in X", "what changed in X"); a word
    # ending in "eed" is a noun or a present verb ("what speed on GPU ...", "what seed"), not such a past
    r"what\s+[a-z]{2,}[a-df-z]ed\s+)"
    r"(?:on|about|regarding|concerning|for|in|with)\s+(?=\S)",
    re.IGNORECASE,
)
# A request whose object is the form of the answer: "give me a (quick) rundown of X", "show me a list of X": the verb
# has the asker as its indirect object and its direct object's noun takes "of" the papers wanted; only X is the topic
_ANSWER_FORM = re.compile(
    r"^\W*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:(?:give|show|send|get|write|make)\s+(?:me|us)\s+"
    r"(?:a|an|the|some|one)\s+(?:[^\W\d_][\w\-]*\s+){1,3}?of\s+(?=\S)|"
    # a phrasal verb of summing up or briefing ("sum up", "brief me on", "catch me up on"), or "tl;dr of"
    r"(?:sum\s+up|brief\s+(?:me|us)\s+on|catch\s+(?:me|us)\s+up\s+on|fill\s+(?:me|us)\s+in\s+on|"
    r"(?:run|walk)\s+(?:me|us)\s+through|tl\s*;?\s*dr(?:\s+(?:of|on|for))?)\b|"
    # the form's noun alone, the request understood ("quick summary of the federated learning papers")
    # ("abstractive summary of meeting transcripts" asks for papers on summarising: the form is of papers it names)
    r"(?:(?:a|an|the)\s+)?(?:[^\W\d_][\w\-]*\s+){0,2}?(?:summary|summaries|overview|rundown|recap|roundup)\s+of\s+"
    r"(?=(?:the|these|those|this|that|today'?s|yesterday'?s|all|recent|new|latest|last|my|our)\b))",
    re.IGNORECASE,
)
# a closing clause that only asks for the answer's form ("..., summarized please", "... - briefly"): no topic
_CLOSING_REQUEST = re.compile(
    r"(?:\s*[,;:]|\s+[\u2013\u2014-])\s*(?:(?:please|pls|thanks?|summar(?:y|ies|i[sz]e\w*)|overview|tl\s*;?\s*dr|briefly|"
    r"in\s+short|quickly)\b[\s,.!?]*)+$",
    re.IGNORECASE,
)
# A remark on the answer's length, wherever it stands, when it ends a clause: "in a few sentences", "in two lines",
# "in brief", "in a nutshell", "keep it short": what the reader wants of the answer, no topic
_ANSWER_LENGTH = re.compile(
    r"(?:\b(?:in|within|using)\s+(?:(?:a|one|two|three|four|five|\d+|a\s+few|a\s+couple(?:\s+of)?|few|some|short|"
    r"brief|max(?:imum)?|at\s+most)\s+)*(?:short\s+|brief\s+)?(?:sentences?|lines?|words?|bullets?|bullet\s+points?|"
    r"paragraphs?|points?)|\bin\s+(?:brief|short|a\s+nutshell|a\s+word)|\bkeep\s+it\s+(?:short|brief|concise|tight)|"
    r"\b(?:briefly|concisely|quickly))(?:\s+(?:please|pls))?\s*(?=[,;:.?!\u2014\u2013]|\s-|$)",
    re.IGNORECASE,
)
# A closing sentence or clause on how many papers will do ("? just a few highlights is fine", ". Short list please.",
# "? a handful is enough", "- top 5 would do"), read by its role: a quantity (a few, a handful, a couple, short,
# top N, a number), at most two more words naming no topic ("5 diffusion papers please" is the request), then a word
# saying it suffices or "please". No topic
_ANSWER_SIZE = re.compile(
    r"(?:[.?!;,]|\s[\u2014\u2013-]+|^)\s*(?:(?:just|only|even)\s+)?(?:(?:a|an|the|some)\s+)?"
    r"(?:few|handful|couple|short|brief|small|quick|top(?:\s+\d+|\s+few)?|\d+|one|two|three|four|five|ten)"
    r"(?=\s)(?P<what>(?:\s+(?:of\s+)?[a-z]+){0,2}?)\s+(?:(?:is|are|would\s+be|will\s+be|would|will|should\s+be)\s+)?"
    r"(?:fine|enough|ok|okay|plenty|great|good|sufficient|perfect|do|suffices?|please|pls)"
    r"(?:\s+(?:please|pls|thanks?))?[\s.!?]*$",
    re.IGNORECASE,
)
# How many papers are asked for, before the papers or their topic ("a couple of GAN papers", "a few recent papers on
# X", "several papers on X", "three papers about X", "top 5 papers on X"): no topic. "few" takes its article ("few
# shot learning" is a topic), a number word names papers right after it ("one step diffusion" is a topic), "top" and
# a number name them a few words on ("top ten RAG papers"; "top 5 accuracy" is a topic). "how many" / "how much"
# asks for a count, whatever follows ("how many RLHF papers were there?"), and a count is no topic either; joined
# by a hyphen it is a word of the topic's own ("many-shot")
_COUNT_WORDS = {w: n for n, w in enumerate("one two three four five six seven eight nine ten".split(), 1)}
_COUNT = r"(?:" + "|".join(_COUNT_WORDS) + r"|\d+)"
_PAPERS = r"(?:papers?|works?|articles?|preprints?)\b"
_QUANTITY = re.compile(
    r"(?:^|(?<=[\s.?!,;:\u2014\u2013]))(?:(?:just|only)\s+)?(?:(?:a|an)\s+(?:few|couple|handful|dozen|number)(?:\s+of)?|"
    rf"how\s+(?:many|much)|several|top\s+(?:{_COUNT}|few)(?=(?:\s+\S+){{0,3}}?\s+{_PAPERS})|{_COUNT}"
    rf"(?=\s+(?:(?:good|recent|new|key|relevant|interesting|notable|more)\s+)?{_PAPERS}))(?=\s)",
    re.IGNORECASE,
)
_COUNTED = re.compile(rf"(?:top\s+)?(?P<n>{_COUNT})$", re.IGNORECASE)
_NAMED_BEFORE = re.compile(r"\b(?:the|these|those|both|all|first|last|other)\s+$", re.IGNORECASE)


def papers_asked_for(text: str) -> int | None:
    """How many papers a question asks for when it says a number ("give me three papers on X", "top 5 papers on
    X", "... 3 would do"), read where `read_request` reads a quantity as no topic; None when it says none, or only a
    vague one ("a few", "several") or a count of papers it names ("the two papers on X")."""
    for pattern in (_QUANTITY, _ANSWER_SIZE):
        for found in pattern.finditer(text):
            words = found.group(0).split()
            start = next((i for i, w in enumerate(words) if _COUNTED.match(w) or w.lower() == "top"), None)
            if start is None:
                continue
            counted = _COUNTED.match(" ".join(words[start : start + 2])) or _COUNTED.match(words[start])
            # "the two papers on X" counts papers it names; "the top ten papers" asks for the best ten
            named = words[start].lower() != "top" and _NAMED_BEFORE.search(
                text[: found.start() + found.group(0).find(words[start])]
            )
            if counted is None or named:
                continue
            n = counted.group("n").lower()
            number = int(n) if n.isdigit() else _COUNT_WORDS[n]
            if number > 0:
                return number
    return None


# a closing remark on how welcome the answer is ("..., so anything on grasping would help"): no topic
_WELCOME = re.compile(
    r"\s+(?:would|will|'d)\s+(?:help|be\s+(?:great|nice|helpful|useful|appreciated|welcome|ideal))\b[\s.!?]*$",
    re.IGNORECASE,
)
_SENTENCE_START = re.compile(r"(?:^|[.?!;]\s+)\W*(?=[^\W\d_])", re.IGNORECASE)


def without_welcome(text: str) -> str:
    """`text` without a closing remark on how welcome the answer is ("..., so anything on grasping would help"); a
    sentence opening with a wh-word asks its own question, whose verb the remark's words are ("Which methods would
    help?")."""
    found = _WELCOME.search(text)
    if found is None:
        return text
    opened = [m.end() for m in _SENTENCE_START.finditer(text, 0, found.start())]
    first = text[opened[-1] :].split(None, 1) if opened else []
    if first and re.sub(r"\W+$", "", first[0].lower().split("'")[0]) in _WH:
        return text
    return text[: found.start()] + text[found.end() :]


# a later sentence with a word of request ("Short summary please.", "Thanks!") asks for something of its own
_REQUESTS = re.compile(r"\b(?:please|pls|thanks?|summar(?:y|ies|i[sz]e\w*)|overview|tl;?dr)\b", re.IGNORECASE)
# A participle right after the papers asked for says how they came out ("robotics papers were announced on
# Thursday", "papers posted today", "work based on X"), not what they are about (an active verb does: "papers that
# use RL"); it is dropped when a preposition, a time word or the end follows it.
_PUBLICATION = re.compile(
    r"\b(papers?|preprints?|articles?|works?|research|studies|benchmarks?|datasets?|corpora|suites?|sets)\s+"
    r"(?:(?:that|which)\s+)?(?:(?:were|was|are|is|have\s+been|has\s+been|had\s+been|got|get|been|being)\s+)?"
    r"(?:[a-z]+(?:ed|en)|came\s+out|come\s+out|showed\s+up|out)\b"
    r"(?=\s*(?:$|[?.!,;:]|\b(?:on|in|about|since|during|this|last|today|yesterday|recently|lately|so|by|from|to|at|"
    r"for|with|around)\b))",
    re.IGNORECASE,
)
# What someone has been doing asks for their papers, not about a topic: "what has X been up to?", "what is X working
# on these days?" (the name already taken out); and "I'm after X" is "I want X"
_ACTIVITY = re.compile(
    r"\b(?:(?:been\s+)?up\s+to|(?:been\s+)?working\s+on|(?:been\s+)?doing|(?:has\s+|have\s+)?worked\s+on)(?=\s*(?:$|[?.!,;]|\b(?:lately|recently|"
    r"these\s+days|this|today|yesterday|since|on|in|from)\b))|\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+after\b",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"<[^<>]{0,40}>")
# the words ending an open list ("A, B and so on", "A, B, etc.", "and the like") name no further item of it
_OPEN_LIST_END = re.compile(r"\s*,?\s*(?:\b(?:and|or)\s+(?:so\s+(?:on|forth)|the\s+like)\b|\betc\b\.?)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Request:
    """A question's topic text with what it asks besides the topic: topics to exclude and a contribution type."""

    text: str
    excluded: tuple[str, ...] = ()
    contribution: str = ""  # "benchmark" when the papers must introduce a benchmark or data set
    refinements: tuple[str, ...] = ()  # later sentences narrowing the papers asked for ("... any on video?")


def without_markup(text: str) -> str:
    """The question without HTML-like tags and entities a person pasted or typed (`<b>MoE</b>` -> `MoE`)."""
    return html.unescape(_MARKUP.sub(" ", text))


def split_exclusions(text: str, *, follow_up: bool = False) -> tuple[str, tuple[str, ...]]:
    """The question without its exclusions, and each excluded topic ("not about LLMs" -> "LLMs"). A question opening
    with the cue excludes nothing ("non-convex optimization"), unless it is a follow-up naming the papers listed by a
    pronoun ("excluding the image ones", "but not those about LLMs")."""
    excluded: list[str] = []
    kept, at = text, 0
    while True:
        cue = _EXCLUDE.search(kept, at)
        if cue is None:
            break
        tail = kept[cue.end() :]
        end = _CLAUSE_END.search(tail)
        phrase = tail[: end.start()] if end else tail
        opening = not kept[: cue.start()].strip(" ,;:-\u2014\u2013")
        if opening and not (follow_up and _REFERENCE.search(phrase) and "non-" not in cue.group(0).lower()):
            break  # "non-convex ones?" picks the non-convex ones
        rest = tail[end.start() :] if end else ""
        phrase = _RELATION.sub("", _NEGATED_VERB.sub("", phrase, count=1), count=1)
        phrase = _TRAILING.sub("", phrase).strip(" ,;:-\u2014\u2013?!.")
        named = any(w.lower() not in FILLER | META for w in _TOPIC_WORD.findall(phrase))
        if phrase and not named and not _REFERENCE.search(phrase) and phrase.lower() not in ("that", "this", "it"):
            at = cue.end()  # a negation of nothing a paper could be about ("objects that are not there") stays
            continue
        if phrase:
            excluded.append(phrase)
        kept = kept[: cue.start()] + rest
    return kept, tuple(excluded)


def split_contribution(text: str) -> tuple[str, str]:
    """The question without the contribution it asks for, and that contribution ("benchmark" or ""). A kind of
    contribution named inside a clarification ("tabular ML (classification, regression, benchmarks)", "X, e.g. new
    datasets") is one example of the need among others, not what every paper must make: it stays in the text."""
    found = next((m for m in _CONTRIBUTION.finditer(text) if m.start() < _clarified_from(text)), None)
    if found is None:
        return text, ""
    after = text[found.end() :]
    # the request's own verb of making before the topic's words ("which papers introduce new math benchmarks"):
    # what the papers do, said by the contribution; the words between it and the kind noun are the topic
    before = _MADE_BEFORE.sub(" ", text[: found.start()])
    evaluated = _EVALUATED.match(after) if _EVALUATING.search(found.group(0)) else None
    if evaluated:  # "benchmarks for evaluating LLMs on coding": what is evaluated is any model, the topic is coding
        after = after[evaluated.end() :]
    # alone ("benchmarks?", "new datasets this week?"), the papers introducing one, whatever about
    return (before + " " + after).strip(), "benchmark"


def _clarified_from(text: str) -> int:
    """Where `text`'s first clarification begins: its first parenthesis or clarifying marker (`_CLARIFY`), or its
    end."""
    marker = _CLARIFY.search(text)
    opened = text.find("(")
    return min(marker.start() if marker else len(text), opened if opened >= 0 else len(text))


def names_contribution(text: str) -> bool:
    """Whether `text` names only a kind of contribution ("benchmarks", "datasets or benchmarks"): excluded, it is read
    as that contribution (`bot.text.introduces`), not as the words ("excluding benchmarks" keeps a method paper
    that also releases its benchmark data)."""
    return bool(_CONTRIBUTION_ONLY.match(text))


def as_examples(text: str) -> str:
    """Clarifications written as the examples `topic_alternatives` reads: "X, i.e. A or B" and "X (A, B)" become
    "X like A or B" and "X like A, B" (parentheses anywhere add their words as further examples, each clarification
    after a semicolon: "X (A, B), i.e. C" is "X like C; A, B")."""
    # a parenthesis may explain in turn ("(neural operators, or physics-informed nets i.e. PINNs)"): each part; one
    # inside a phrase glosses the word before it ("phone-app (mobile) agents"): with the rest of the phrase
    inside = [
        f"{part} {_phrase_rest(text[m.end() :])}".strip() if _GLOSS.fullmatch(m.group(1)) else part
        for m in _PARENTHESES.finditer(text)
        for part in _CLARIFY.split(m.group(1))
    ]
    text = _PARENTHESES.sub(" ", text)
    head, *explained = _CLARIFY.split(text)
    examples = [_EXAMPLE_LEAD.sub("", e).strip(" ,") for e in [*explained, *inside]]
    examples = [e for e in examples if e.strip(" ,.")]
    if not examples:
        return head
    # each clarification a list of its own: "(joint A + B: C, D)" gives no "joint A with C"
    return f"{head.strip(' ,')} like " + "; ".join(examples)


_GLOSS = re.compile(r"\s*[\w\-]+(?:\s+[\w\-]+)?\s*")  # a word or two, no list
_PHRASE_REST = re.compile(r"^\s*([^\W\d_][\w\-]*(?:\s+[^\W\d_][\w\-]*)*)")


def _phrase_rest(after: str) -> str:
    """The words right after a parenthesis up to the phrase's end (punctuation, a slash, a conjunction), "" when the
    parenthesis ends the phrase."""
    found = _PHRASE_REST.match(after)
    words = found.group(1).split() if found else []
    rest = []
    for word in words:
        if word.lower() in ("or", "and", "like", "such", "including"):
            break
        rest.append(word)
    return " ".join(rest)


def without_open_list_end(text: str) -> str:
    """The question without the words ending an open list: "A, B and so on" -> "A, B" (no item "so")."""
    return _OPEN_LIST_END.sub("", text)


# how the papers asked for are named or what they mention: "a paper called PEAR", "the paper titled X", "papers
# mentioning GRPO", "papers that mention X": the name or the topic, not the verb
_NAMED_AS = re.compile(
    r"\b(papers?|preprints?|articles?|works?|studies|publications?)\s+(?:(?:that|which)\s+(?:is|was|are|were)\s+)?"
    r"(?:called|named|titled|entitled)\b",
    re.IGNORECASE,
)
# "something called Aurora", "a method named X", "any model known as X": a thing introduced by its name asks for the
# name, whatever the thing ("something", "a method") is; one "named after" someone is not named so
_CALLED = re.compile(
    r"\b(?:something|anything|(?:an?|the|any|some)\s+[^\W\d_][\w\-]*)\s+(?:(?:that|which)\s+(?:is|was|are|were)\s+)?"
    r"(?:called|named|dubbed|known\s+as)\s+(?!after\b)(?=\S)",
    re.IGNORECASE,
)
_MENTIONING = re.compile(
    r"\b(papers?|preprints?|articles?|works?|studies|publications?)\s+(?:(?:that|which)\s+mentions?|mentioning)\b",
    re.IGNORECASE,
)


def without_publication(text: str) -> str:
    """The question without the words saying how the papers came out ("papers were announced on" -> "papers on"),
    how they are named ("a paper called PEAR" -> "a paper PEAR") or that they mention the topic ("papers mentioning
    GRPO" -> "papers about GRPO")."""
    text = _MENTIONING.sub(r"\1 about", _CALLED.sub(" ", _NAMED_AS.sub(r"\1", text)))
    return _PUBLICATION.sub(r"\1", text)


# A follow-up may open by reacting to the answer before asking ("not really, what about speech?", "hmm any on
# video?", "ok and from Thursday?"): response particles, interjections and hedges (closed classes, like prepositions),
# "not" only before one of them ("not really", "not quite"; "not the image ones" excludes), "I mean" only as a
# hedge before a comma ("I mean speech" corrects the request, `_CORRECTION`). Such an opening is never
# part of the request; without a comma it is taken only before what opens a request itself ("hmm any on video?"),
# so "no regret learning?" stays a topic.
_REACTION_WORD = (
    r"(?:yes|yeah|yep|yup|no|nope|nah|ok|okay|k|sure|right|alright|fine|cool|great|nice|good|interesting|thanks|"
    r"thank\s+you|thx|ty|hm+|mm+|um+|uh+|erm|oh+|ah+|aha|wow|well|actually|anyway|really|quite|exactly|"
    r"though|meh|ugh|huh|hey|alas|perfect|got\s+it|i\s+see|i\s+mean(?=\s*[,;:\u2014\u2013])|sorry|oops)"
)
_REACTION = re.compile(
    rf"^\W*(?:(?:not\s+)?{_REACTION_WORD}(?![\w\-'])(?P<stop>\s*(?:[,;:!.\u2014\u2013]+|\s-+)\s*)?\s*)+",
    re.IGNORECASE,
)
_REQUEST_OPENING = re.compile(
    r"^\W*(?:and|but|also|or|then|now|so|what|which|how|any|anything|some|none|only|just|those|these|them|the\s+ones|"
    r"show|list|give|find|can|could|would|do|does|are|is|filter|narrow|restrict|limit|same|i\s+meant?)\b",
    re.IGNORECASE,
)
# "same question for Thursday", "the same search but from Monday", "the same topic on Friday": the request asked
# before, again (a noun naming the request or what it was about, never a topic word: "topic" had become the topic)
_SAME_REQUEST = re.compile(
    r"\b(?:the\s+)?same\s+(?:question|request|query|search|thing|one|list|topic|subject|area|field|papers?|again)s?"
    r"\b(?!\s+answer)",
    re.IGNORECASE,
)


def names_same_request(text: str) -> bool:
    """Whether `text` names the request asked before ("same field, but only theory papers", "the same topic on
    Friday")."""
    return bool(_SAME_REQUEST.search(text))


def without_reaction(text: str) -> str:
    """A follow-up without its opening reaction to the answer ("not really, what about speech?" -> "what about
    speech?", "hmm any on video?" -> "any on video?") and with "the same question" as the request asked before."""
    text = _SAME_REQUEST.sub(" ", text)
    opening = _REACTION.match(text)
    if opening:
        rest = text[opening.end() :]
        if opening.group("stop") or _REQUEST_OPENING.match(rest):
            text = rest
    return re.sub(r"\s+", " ", text).strip()


# "instead" ("what about speech instead?", "Thursday instead", "RL instead of diffusion?"): what the sentence names
# replaces the same part of what was asked before; what follows "of" is the part replaced, not a topic
_INSTEAD = re.compile(r"\binstead\b(?:\s+of\b[^?!.;,]*)?", re.IGNORECASE)
# a correction ("I meant speech", "no, I mean speech papers", "meant speech", "I meant to ask about speech"): the
# speaker's own "mean" opening what is said, its object what was meant in place of what was asked ("I mean," with a
# comma is a filler before a request of its own); the present "mean" only after its speaker, for bare it is a word of
# the topic ("mean-field games", "mean teacher models")
_CORRECTION = re.compile(
    r"^\W*(?:(?:i|we)\s+(?:(?:actually|really|just|only)\s+)?(?:meant|mean(?!\s*,))|"
    r"(?:(?:actually|really|just|only)\s+)?meant)(?![\w\-'])"
    r"(?:\s+to\s+(?:say|ask|write|type)\b(?:\s+(?:about|for)\b)?)?",
    re.IGNORECASE,
)


def without_replacement(text: str) -> tuple[str, bool]:
    """`text` without its "instead" ("instead of X" whole) or the "I meant" of a correction, and whether it had
    either: it then replaces what it names in the request asked before and keeps the rest ("what about speech
    instead?" or "I meant speech" after "diffusion papers from Monday": speech papers from Monday), rather than
    picking among the papers listed."""
    corrected = _CORRECTION.match(text)
    rest = text[corrected.end() :] if corrected else text
    stripped = _INSTEAD.sub(" ", rest)
    return re.sub(r"\s+", " ", stripped).strip(), stripped != text


def restates(excluded: str, topic: str, now: str = "") -> bool:
    """Whether an exclusion names nothing but what `topic` names (each of its words, in any inflection) while the
    topic asked `now` names none of them: "X, not Y" said after a question about Y corrects it ("sorry, speech not
    agents"), for a topic's own papers excluded would leave none; "agents, not LLM agents" after LLM agents asks for
    the others (the exclusion read by then as "LLM")."""
    words = [t for t in text_tokens(excluded) if t not in FILLER]
    asked = [t for t in text_tokens(topic) if t not in FILLER]
    new = [t for t in text_tokens(now) if t not in FILLER]
    return (
        bool(words)
        and all(any(same_word(w, t) for t in asked) for w in words)
        and not any(same_word(w, t) for w in asked for t in new)
    )


def selects(text: str) -> bool:
    """Whether `text` picks among papers already named: its subject is a pronoun ("those", "them", "the ones") or a
    determiner whose noun is left out ("any on video?", "which use RL?", "only the theoretical ones", "what about
    video?"), or it asks to narrow them ("narrow it down to X"); "which papers ..." and "any papers ..." ask anew."""
    found = _SELECTOR.match(text)
    return bool(found and found.group("subject")) or bool(_NARROWING.match(text))


def applies_to(text: str) -> bool:
    """Whether `text` asks for the same topic somewhere or for something else ("and for diffusion models?", "but in
    speech?"): the previous papers for that, as a selection of them."""
    return bool(_APPLIED.match(text))


def continues(text: str) -> bool:
    """Whether `text` opens as a continuation of what was asked before: a coordinating conjunction ("and diffusion?",
    "but for speech?", "also RL") or "what/how about" ("how about speech papers?")."""
    return bool(_CONTINUATION.match(text))


def refers_back(text: str) -> bool:
    """Whether `text` names papers already listed by a pronoun ("those", "them", "the ones", "of the above") or asks
    to narrow them ("narrow it down to X"). A pronoun whose noun the question itself names before it refers to that
    noun (`_own_antecedent`: "papers on X, but not the LLM-based ones")."""
    if _NARROWING.match(text):
        return True
    return any(not _own_antecedent(text, found) for found in _REFERENCE.finditer(text))


# a noun phrase's head standing for a noun named before it ("the LLM-based ones", "those about robotics"), unlike
# "them" or "of the above", which only point
_HEAD_PRONOUN = frozenset("ones those these".split())
# the word before a pronoun that makes it an object pointing elsewhere ("papers like those", "any among these")
_POINTING = re.compile(r"\b(?:like|to|of|among|as|from|besides|beyond|unlike)\s*$", re.IGNORECASE)
_REFERENCE_DETERMINER = re.compile(r"\b(?:those|these|the\s+above|such)\s*$", re.IGNORECASE)
# "the papers" or "your papers" alone is definite, the answer's ("of the papers you listed, which ones ..."), unless a
# topic of their own follows ("the papers on RL, except the ones about robotics")
_DEFINITE = re.compile(r"\b(?:the|your)\s*$", re.IGNORECASE)
_OWN_TOPIC_AFTER = re.compile(r"\s+(?:on|about|regarding|concerning|in|for|with)\b", re.IGNORECASE)


def _own_antecedent(text: str, pronoun: re.Match[str]) -> bool:
    """Whether `pronoun` (a `_REFERENCE` match) stands for papers the question itself names before it: a head pronoun
    ("ones", "those", "these") after a document noun of the question's own ("I need papers on X, but not LLM-based
    ones", "papers on RL except those about robots": a new question, which had narrowed the previous answer), not
    after a preposition ("papers like those") and not after a noun the pronoun's own determiner points back with
    ("those papers ... the ones about X"), nor after the answer's papers named definite alone ("of the papers you
    listed, which ones ...")."""
    if pronoun.group(0).lower() not in _HEAD_PRONOUN or _POINTING.search(text[: pronoun.start()]):
        return False

    def own(noun: re.Match[str]) -> bool:
        before = text[: noun.start()]
        if _REFERENCE_DETERMINER.search(before):
            return False
        return not _DEFINITE.search(before) or bool(_OWN_TOPIC_AFTER.match(text, noun.end()))

    return any(own(noun) for noun in _DOCUMENT.finditer(text[: pronoun.start()]))


def names_documents(text: str) -> bool:
    """Whether `text` says what it asks for ("papers", "work", "preprints"): a question with a subject of its own."""
    return bool(_DOCUMENT.search(text))


# A selecting sentence asking for the papers that make a method ("which of those actually propose a method?", "only
# the ones proposing new approaches"): a kind of contribution, not a topic (every abstract proposes something): the
# papers that are no survey, position paper or evaluation study (`bot.ranking.contribution.paper_kinds`)
_METHOD = re.compile(
    r"^\W*(?:[a-z]+ly\s+)?(?:propos|introduc|present|develop|contribut|design|offer)\w*\s+"
    r"(?:(?:a|an|any|some|their|own|new|novel|actual)\s+)*(?:methods?|approach(?:es)?|techniques?|algorithms?)\W*$",
    re.IGNORECASE,
)
NOT_METHODS = "surveys, position papers or evaluations"


def names_method(text: str) -> bool:
    """Whether a constraint asks only for papers making a method ("actually propose a method", "introduce new
    approaches"): they are the papers that are none of `NOT_METHODS`."""
    return bool(_METHOD.match(text))


# A selecting sentence asking for the theoretical papers ("which of those are theoretical?", "any theory papers?",
# "only the ones with proofs"): a kind of contribution, like a benchmark's, not a topic: a paper proving a bound may
# never write "theoretical", and one writing "theoretical foundations" in passing proves nothing. Read through the
# words theory papers write (THEORY_CUES, the ranker's), all but "we show that" (said by papers of any kind)
_THEORY_WORD = re.compile(r"^(?:theor(?:y|ies|etical(?:ly)?|etic)|proofs?|provabl[ey]|theorems?)$", re.IGNORECASE)
_THEORY_KIND_ONLY = frozenset("results analysis analyses contribution contributions side pure purely heavy".split())
THEORY_READING = " / ".join(cue for cue in THEORY_CUES if cue != "we show that")


def names_theory(text: str) -> bool:
    """Whether a constraint asks only for theoretical papers ("theoretical", "theory papers", "proofs", "theory-heavy
    ones"), not for a topic that theory is part of ("learning theory", "theory of mind")."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", text)]
    rest = [w for w in words if not _THEORY_WORD.match(w) and w not in FILLER | META | _THEORY_KIND_ONLY]
    return any(_THEORY_WORD.match(w) for w in words) and not rest


# "the theory of X", "theoretical results on X": theoretical papers about X (a paper proving what transformers can
# learn seldom writes "theory of transformers"); a set phrase the ranker knows names no theory ("theory of mind")
_THEORY_OF = re.compile(
    r"^\W*(?:the\s+)?(?:theory|theories|theoretical(?:\s+(?:analysis|analyses|results?|work|understanding|"
    r"foundations?|aspects?|stud(?:y|ies)|side|papers?))?)\s+(?:of|on|about|behind)\s+(?:the\s+)?(?P<about>\S.*)$",
    re.IGNORECASE,
)
THEORY = "theory"  # the constraint a topic asking for theoretical papers about something leaves (`theory_of`)


def theory_of(topic: str) -> str:
    """What a topic asking for the theoretical papers about something asks them to be about ("theory of transformers"
    -> "transformers", "theoretical results on diffusion models" -> "diffusion models"), or "" for any other topic
    ("learning theory", "theory of mind": CUE_IDIOMS)."""
    found = _THEORY_OF.match(topic)
    if found is None or any(topic.lower().startswith(i) for i in CUE_IDIOMS["theory"]):
        return ""
    return found.group("about").strip()


# the constraint a kind of paper asked for leaves ("is there a survey on agents?": agents, narrowed to surveys)
KIND_CONSTRAINTS = {"survey": "surveys", "position": "position papers"}


def split_kind(topic: str, said: str = "") -> tuple[str, str]:
    """A topic led by a kind of paper (`asked_kind`: "survey on agents", "survey papers about RLHF") as the kind's
    constraint (`KIND_CONSTRAINTS`) and the topic it covers; ("", topic) when it names no kind or nothing else
    ("surveys" alone, "survey sampling"). `said`, the request's words before the topic was read from them, names the
    papers a kind is asked for by when the topic dropped them ("position papers on X", not "position on X")."""
    kind, about = asked_kind(topic, FILLER | META)
    if not kind and said:
        kind, about = asked_kind(said, FILLER | META)
    rest = topic_of(about) if kind else ""
    return (KIND_CONSTRAINTS[kind], rest) if rest and kind in KIND_CONSTRAINTS else ("", topic)


def paper_kind_of(constraint: str) -> str:
    """The kind of paper a constraint asks for ("surveys" -> "survey"), or ""."""
    return next((k for k, c in KIND_CONSTRAINTS.items() if c == constraint), "")


def kinds_asked(constraints: Sequence[str]) -> tuple[str, ...]:
    """The constraints of `constraints` that ask for a kind of paper (`paper_kind_of`: "surveys") or for theoretical
    papers (`names_theory`), not for a topic."""
    return tuple(c for c in constraints if paper_kind_of(c) or names_theory(c))


def kind_reading(constraint: str) -> str:
    """The topic a narrowing by `constraint` looks for: the words theory papers write for one asking for theoretical
    papers (`names_theory`), the words naming a kind of paper for one asking for it ("surveys": survey, review,
    overview or tutorial), else the constraint itself."""
    if kind := paper_kind_of(constraint):
        return " or ".join(KINDS[kind])
    return THEORY_READING if names_theory(constraint) else constraint


def without_reference(text: str) -> str:
    """What a selecting sentence says of the papers it picks: its subject and the relation after it removed ("which of
    them use RL?" -> "RL?", "only the theoretical ones" -> "theoretical", "any on video" -> "video")."""
    narrowing = _NARROWING.match(text)
    subject = None if narrowing else _SELECTOR.match(text)
    rest = text[narrowing.end() :] if narrowing else text[subject.end() :] if subject else text
    inner = _REFERENCE.search(rest)
    after = [w for w in _TOPIC_WORD.findall(rest[inner.end() :]) if w.lower() not in FILLER | META] if inner else []
    if subject and not subject.group("subject") and after:  # not "the theoretical ones only"
        rest = rest[inner.end() :]  # the pronoun inside: "filter to those about audio" -> "about audio"
    rest = re.sub(r"^\s*(?:(?:are|is|were|was|do|does|did|that|which|who)\s+)+", " ", rest, flags=re.IGNORECASE)
    return _TRAILING.sub("", _RELATION.sub("", rest, count=1).rstrip(" ?!.")).strip()


def verb_of(text: str) -> str:
    """The verb a selecting sentence's subject does, when what it says of the papers starts with one ("which of
    those use RL?" -> "use"), or "": an adjective, relation or noun there is no verb ("which are theoretical",
    "any on video", "any video diffusion"). The answer names the constraint without it."""
    subject = _SELECTOR.match(text)
    rest = text[subject.end() :] if subject else text
    link = _LINK.match(rest)
    linked = link.group(0) if link else ""
    rest = rest[len(linked) :]
    doer = bool(subject and subject.group("doer")) or bool(re.search(r"\b(?:that|which|who)\b", linked, re.I))
    related = _RELATION.match(rest)
    verb = _VERB.match(rest)
    if not doer or _COPULA.search(linked) or (related and related.group(0).strip()) or verb is None:
        return ""
    # a noun after the subject ("any of them diffusion or flow-matching based?") is no verb: a verb has inflected
    # forms in English ("use": "used", "mention": "mentioned"; never "diffusioned")
    return verb.group(1) if inflects(verb.group(1).lower()) else ""


# The papers asked for as the subject of a verb of their own ("which papers study grokking?", "what papers align
# language models?", "any papers that reduce the KV cache?"): the verb relates them to what follows it
_DOING = re.compile(
    r"^\W*(?:(?:which|what|any|are\s+there|is\s+there)\s+)?(?:(?:new|recent|latest)\s+)?"
    r"(?:papers|preprints|works|articles|studies)\s+(?:(?:that|which)\s+)?(?P<verb>[a-z]+)\s+(?=\S)",
    re.IGNORECASE,
)


def verb_done(text: str) -> str:
    """The verb the papers asked for do, when the question makes them its subject and the verb an everyday one
    ("which papers study grokking?" -> "study", "which papers align language models?" -> "align"), else "": a word
    of asking ("which papers are about X") or a rarer word, as a topic's own is, is none. The verb may carry the
    topic ("align") or only relate the papers to it ("study"): a topic led by it is read with the verb kept for the
    order of the papers and not needed of each (`Filters.verb_led`)."""
    found = _DOING.match(text)
    if found is None:
        return ""
    verb = found.group("verb").lower()
    return "" if verb in FILLER | META or not _verb_form(verb) else verb


# A question whose subject is the people asked for ("who is working on X?", "who works on X", "which researchers
# study X?", "anyone working on X?"): the answer names the authors of the papers found ("whose", "whom" ask
# otherwise)
_PEOPLE = re.compile(
    r"^\W*(?:(?:and|so|but|then)\s+)?(?:who(?!['\u2019]s\s+(?:papers?|work)\b)(?!se\b|m\b)\b|"
    r"which\s+(?:authors|researchers|people|groups|labs|teams)\b|"
    r"(?:is\s+)?(?:anyone|anybody|someone|somebody)\s+(?=[a-z]+ing\b))",
    re.IGNORECASE,
)
# what the people do, before the topic it relates them to: "working on", "doing research on", "publishing about"
# (and "the authors of X", "the author of X", "the team behind X": what they made is the topic)
_PEOPLE_NOUN = re.compile(
    r"^(?:(?:authors?|teams?|groups?|labs?)\s+(?:of|behind)|authors|researchers|people|groups|labs|teams)\s+(?=\S)",
    re.IGNORECASE,
)
_PEOPLE_DO = re.compile(
    # the auxiliary of a progressive or perfect before it ("which labs are working on X", "who has been publishing on")
    r"^(?:(?:is|are|was|were|has|have)\s+(?:been\s+)?)?"
    r"(?P<verb>[^\W\d_]+)\s+(?:(?:research|work|papers?|stuff)\s+)?(?:on|about|in|into|with|at|towards?)\s+(?=\S)",
    re.IGNORECASE,
)


def asks_for_people(text: str) -> bool:
    """Whether the question asks who, not which papers: its subject is "who", "which researchers" or "anyone"
    doing something ("who is working on federated learning?")."""
    return bool(_PEOPLE.match(text))


def people_topic(topic: str, asked: str = "") -> str:
    """A people question's topic without what the people do before it ("working on federated learning" ->
    "federated learning", "doing research on X" -> "X"), when that is an everyday verb and a preposition follows;
    "" when the question (`asked`) gives what they do a word pointing back as its object ("who is working on these?":
    the topic read "working"); else the topic as read."""
    topic = _PEOPLE_NOUN.sub("", topic)  # "which researchers study X" read "researchers study X"
    if topic and " " not in topic and re.search(rf"\b{re.escape(topic)}\s+{_POINTED_AT}", asked, re.IGNORECASE):
        return ""
    found = _PEOPLE_DO.match(topic)
    verb = found.group("verb").lower() if found else ""
    if not verb or not (_verb_form(verb) or verb in FILLER or (verb.endswith("ing") and is_english_word(verb))):
        return topic
    return topic[found.end() :].strip() or topic


# what the people do pointed at the previous papers ("working on these", "publishing about them")
_POINTED_AT = r"(?:on|about|in|into|with)\s+(?:this|these|those|them|that|it)\b"


# Papers asked for by their likeness to one thing named ("papers in the same area as KVzip", "papers similar to
# KVzip", "work related to LoRA"): when the thing is a stored paper, its area is the topic (`bot.questions.rag`)
_LIKENESS = re.compile(
    r"(?:\bsame\s+(?:area|field|topic|subject|direction|space|line\s+of\s+work)\s+as|"
    r"\b(?:papers?|works?|preprints?|articles?|ones|anything|something)\s+(?:(?:like|similar\s+to|related\s+to|"
    r"close\s+to)\b))\s+(?!(?:those|these|them|the\s+ones|the\s+above)\b)(?P<named>[^,;:?!]{1,80}?)\W*$",
    re.IGNORECASE,
)


def likened_to(text: str) -> str:
    """What a question asks papers to be like, when it names one thing at its end ("papers in the same area as
    KVzip" -> "KVzip"), else ""."""
    found = _LIKENESS.search(text)
    return topic_of(found.group("named")) if found else ""


# a paper of the previous answer named by its place in it ("the first one", "the 2nd paper", "the last one", "[3]",
# "paper 3", "#3"): English ordinals are a closed class
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_PLACE = re.compile(
    r"^(?:the\s+)?(?:(?P<word>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last)|"
    r"(?P<number>\d{1,2})(?:st|nd|rd|th))(?:\s+(?:one|paper|preprint|article|result|item|entry))?$|"
    r"^(?:(?:the\s+)?(?:paper|preprint|article|result|item|entry|number|no\.?)\s*|#)?\s*\[?(?P<cited>\d{1,2})\]?$",
    re.IGNORECASE,
)


def likened_place(text: str) -> int | None:
    """The place in the previous answer of the paper a question asks papers to be like, when it names it by its place
    ("papers in the same area as the first one" -> 0, "papers similar to [3]" -> 2, "... the last one" -> -1), else
    None."""
    found = _LIKENESS.search(text)
    place = _PLACE.match(found.group("named").strip()) if found else None
    if place is None:
        return None
    if place.group("word"):
        word = place.group("word").lower()
        return -1 if word == "last" else _ORDINALS.index(word)
    number = int(place.group("number") or place.group("cited"))
    return number - 1 if number else None


def inflects(word: str) -> bool:
    """Whether `word` has a past or "-ing" form in the English word list, as a verb has ("use" -> "used", "rely" ->
    "relied", "run" -> "running"): a noun such as "diffusion" has none. Nouns the list holds used as verbs pass
    ("video": "videoed")."""
    stem = word[:-1] if word.endswith("e") else word
    forms = {f"{stem}ed", f"{stem}ing", f"{word}{word[-1:]}ed", f"{word}{word[-1:]}ing"}
    if word.endswith("y"):
        forms.add(f"{word[:-1]}ied")
    return any(is_english_word(form) for form in forms)


def split_refinements(text: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The question without later sentences that ask or request something of their own ("MoE papers? Show me the
    newest."), when the first sentence holds a topic, the refinements among them and the topics they add: a sentence
    picking among the papers asked for ("diffusion papers? any on video?") narrows them, one asking for papers on a
    topic of its own ("A few on diffusion please") adds that topic (`with_topics`). A later sentence that only names
    things stays (it clarifies)."""
    sentences = re.split(r"(?<=[?!.])\s+(?=\S)", text.strip())
    if len(sentences) < 2 or not any(w.lower() not in FILLER | META for w in _TOPIC_WORD.findall(sentences[0])):
        return text, (), ()
    kept, refinements, added = [sentences[0]], [], []
    for sentence in sentences[1:]:
        picked = without_reference(sentence) if selects(sentence) and not names_documents(sentence) else ""
        if picked and any(w.lower() not in FILLER | META for w in _TOPIC_WORD.findall(picked)):
            refinements.append(picked)
        elif _ASKS.match(sentence):
            continue
        elif not _REQUESTS.search(sentence) or _adds_exclusion(kept, sentence):
            kept.append(sentence)
        elif topic := _added_topic(sentence):
            added.append(topic)
    return " ".join(kept), tuple(refinements), tuple(added)


def with_topics(text: str, added: tuple[str, ...]) -> str:
    """The question's topic text (its exclusions split off) with the topics later sentences add as alternatives to
    its own ("Papers on GANs." and "diffusion": "Papers on GANs or diffusion."), not examples of it ("GANs like
    diffusion") nor words every paper must hold ("GANs. diffusion")."""
    head = text.rstrip(" .?!")
    return " or ".join([head, *added]) + text[len(head) :] if added else text


# a later sentence opening with the relation that takes a topic ("A few on diffusion please", its quantity gone)
_RELATED = re.compile(r"^\W*(?:also\s+)?(?:on|about|regarding|concerning)\s+(?=\S)", re.IGNORECASE)


def _adds_exclusion(kept: list[str], sentence: str) -> bool:
    """Whether a later sentence with a word of request ("please") excludes something ("Papers on LLM agents. No
    surveys please.")."""
    return len(split_exclusions(" ".join([*kept, sentence]))[1]) > len(split_exclusions(" ".join(kept))[1])


def _added_topic(sentence: str) -> str:
    """The topic a later sentence with a word of request names after the relation taking one ("A few on diffusion
    please": "diffusion"), its words of request left out; "" for one that only asks for a form ("Short summary
    please.")."""
    related = _RELATED.match(sentence)
    topic = " ".join(_REQUESTS.sub(" ", sentence[related.end() :]).split()).strip(" ,.!?") if related else ""
    return topic if _names_topic(topic) else ""


def without_shorthand(text: str) -> str:
    """`text` with "w/", "w/o", "vs", a spaced "+" or "&" written as the words they stand for."""
    for pattern, words in _SHORTHAND:
        text = pattern.sub(words, text)
    return text


# one or two words in small letters in parentheses, the phrase going on right after them with a word of its own
_OPTIONAL_WORDS = re.compile(r"(?:^|(?<=\s))\(\s*([a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s*\)(?=\s+([^\W\d_][\w'-]*))")
_WORD_BEFORE = re.compile(r"([^\W\d_][\w'-]*)\W*$")


def optional_words(text: str) -> str:
    """`text` with the words it puts in parentheses as optional read in place: "(new) benchmarks for X" -> "new
    benchmarks for X", "papers on (large) language models" -> "papers on large language models". A parenthesis
    clarifies the word before it ("egocentric (first-person) vision", "LLMs (GPT, Llama) for code"); with nothing
    before it, or only a word of asking ("on", "papers"), it clarifies nothing: its words are the phrase's own."""

    def in_place(found: re.Match[str]) -> str:
        before = _WORD_BEFORE.search(text[: found.start()])
        following = found.group(2).lower()
        if following in FILLER | META | PREPOSITIONS:
            return found.group(0)
        if before is None or before.group(1).lower() in FILLER | META | PREPOSITIONS:
            return found.group(1)
        return found.group(0)

    return _OPTIONAL_WORDS.sub(in_place, text)


def _without_answer_size(found: re.Match[str]) -> str:
    """What replaces a closing remark on how many papers will do (`_ANSWER_SIZE`): the sentence's end it follows; a
    remark whose words name a topic is the request itself and stays."""
    if _names_topic(found.group("what")):
        return found.group(0)
    return found.group(0)[:1] if found.group(0)[:1] in ".?!" else ""


def jointly(text: str) -> str:
    """`text` with an "and" that joins two things asked together written "with": "both A and B", "A and B together",
    "combining A and B", "the intersection of A and B" -> "A with B" (the papers need both); another "and" stays."""
    text = _TOGETHER_WITH.sub("with", text)
    for cue in (_BOTH, _JOINT_VERB):  # the cue, then the first "and" of its clause
        while found := cue.search(text):
            after = text[found.end() :]
            clause = _CLAUSE.split(after, maxsplit=1)[0]
            text = text[: found.start()] + _AND.sub(" with ", clause, count=1) + after[len(clause) :]
    while found := _JOINTLY.search(text):  # the last "and" of the clause before the cue, then the cue
        before = text[: found.start()]
        clause = _CLAUSE.split(before)[-1]
        head = before[: len(before) - len(clause)]
        text = head + _LAST_AND.sub(" with ", clause, count=1) + text[found.end() :]
    return text


# A dash or colon before a question of its own ("Reasoning models - anything on RL training?", "GANs: any
# surveys?"): the topic before it, then a question picking among its papers, as after a question mark ("diffusion
# papers? any on video?"), not a clarification of it
_ASKED_OF_IT = re.compile(
    r"\s*(?:\s-{1,2}|[:\u2014\u2013])\s+(?=(?:any(?:thing)?|is\s+there|are\s+there|which)\b[^.?!]*\?\s*$)",
    re.IGNORECASE,
)


_REMARK = re.compile(r"^\W*(?:no|not|nothing|never|ok|okay|sorry|thanks?)\b", re.IGNORECASE)
# the asker speaking to the reader before the question: a greeting, or the question announced as one
_ADDRESS = re.compile(
    r"^\W*(?:hey|hi|hello|dear|(?:a\s+)?(?:quick\s+)?question|one\s+more|another\s+(?:one|thing)|also|btw)\b",
    re.IGNORECASE,
)


# an address to the reader opening the question, up to the mark that ends it ("Hi! ", "Hey team, ", "Quick question: ")
# a greeting and whom it greets ("Hey team,"), or the question announced as one ("Quick question:"), set off by its
# mark; "Question answering papers, anything new?" names a topic
_OPENING_ADDRESS = re.compile(
    r"^\W*(?:(?:hey|hi|hello|dear)\b[^.?!:,;]{0,30}|(?:a\s+)?(?:quick\s+)?question|one\s+more(?:\s+question)?|also|btw)"
    r"\s*[.?!:,;]\s+",
    re.IGNORECASE,
)


def without_address(text: str) -> str:
    """`text` without an address to the reader opening it ("Hey team, anything on X?" -> "anything on X?", "Quick
    question: who is working on X?" -> "who is working on X?"); the address had been read as the topic's first words
    ("team, on X")."""
    found = _OPENING_ADDRESS.match(text)
    return text[found.end() :] if found and text[found.end() :].strip() else text


def asking_clause(text: str) -> str:
    """The clause of a question that asks, where the readings of what it asks for look (`verb_done`,
    `asks_for_people`, `likened_to`): `text` without the asker's context before it (`without_context`: "I'm a PhD
    student in NLP. Who is working on X?") and without an address to the reader opening it ("Hi! which papers ...")."""
    return without_address(without_context(without_address(text)))


def _asked_of_it(text: str) -> str:
    """`text` with a dash or colon before a question of its own written as a question mark (`_ASKED_OF_IT`), when
    the sentence before it names a topic and is no remark ("No idea where to start: anything on X?"); without the
    sentence before it when that is the asker's address to the reader ("Hey team: anything on X?")."""
    found = _ASKED_OF_IT.search(text)
    if found is None:
        return text
    before = re.split(r"(?<=[.?!])\s+", text[: found.start()])[-1]
    if _ADDRESS.match(before):
        return text[: found.start() - len(before)] + text[found.end() :]
    if _REMARK.match(before) or not _names_topic(before):
        return text
    return f"{text[: found.start()]}? {text[found.end() :]}"


# A request opening with the verb of what the answer should do, its object the papers or their topic ("explain the
# main ideas of X", "describe the X papers", "compare these methods for X"): an imperative, a verb's base form right
# before a determiner; what the answer gives of the papers ("the main ideas of", "the key findings in") goes with it
_IMPERATIVE = re.compile(
    r"^\W*(?:please\s+)?(?P<verb>[a-z]+)\s+(?=(?:the|these|those|this|me|us|all)\b)", re.IGNORECASE
)
_ANSWER_CONTENT = re.compile(
    r"^\s*(?:(?:me|us)\s+)?(?:the\s+)?(?:(?:main|key|core|central|big)\s+)?"
    r"(?:ideas?|gist|points?|contributions?|findings|takeaways?|highlights)\s+(?:of|in|from|behind)\s+(?=\S)",
    re.IGNORECASE,
)


# "what are the main ideas of X", "what's the gist of X": a question of asking whose object is what the answer gives
_ASKING_CONTENT = re.compile(r"^\W*(?:what\s+(?:are|were|is)|what['\u2019]s)\s+(?=\S)", re.IGNORECASE)


def without_imperative(text: str) -> str:
    """`text` without an opening imperative saying what the answer should do (`_IMPERATIVE`: "explain the main ideas
    of X" -> "X", "describe the X papers" -> "the X papers"): the verb had been read as the topic's first word, which
    few papers write ("No paper about explain the main ideas of speculative decoding carries its words", nine do).
    Only an everyday verb in its base form that opens no exclusion; a word of asking or meta word is left to
    `topic_of`, and what the answer gives of the papers goes after it as after "what are" ("summarize the key
    findings of X", "tell me the gist of X", "what are the main ideas of X" -> "X")."""
    asking = _ASKING_CONTENT.match(text)
    if asking is not None:
        return text[: asking.end()] + _ANSWER_CONTENT.sub("", text[asking.end() :], count=1)
    found = _IMPERATIVE.match(text)
    if found is None:
        return text
    verb = found.group("verb").lower()
    inflected = verb.endswith(("ing", "ed")) or (verb.endswith("s") and not verb.endswith("ss"))
    if verb in _ARTICLES or inflected:
        return text
    if verb in FILLER | META:
        return text[: found.end()] + _ANSWER_CONTENT.sub("", text[found.end() :], count=1)
    if not _verb_form(verb):
        return text
    if _EXCLUDE.match(text, found.start("verb")):
        return text  # "not the image ones", "skip the surveys": an exclusion, read by `split_exclusions`
    return _ANSWER_CONTENT.sub("", text[found.end() :], count=1)


def read_request(text: str, *, follow_up: bool = False) -> Request:
    """The topic text of a question (time words and authors already removed) with its exclusions, contribution and
    refinements (`follow_up`: asked after an answer, whose papers it may exclude some of, `split_exclusions`)."""
    text = jointly(without_shorthand(optional_words(_asked_of_it(text))))
    text = _QUANTITY.sub(" ", _ANSWER_SIZE.sub(_without_answer_size, text))
    text = without_welcome(_CLOSING_REQUEST.sub("", _ANSWER_LENGTH.sub("", text)))
    framed = without_open_list_end(without_context(without_markup(text)))
    framed = without_imperative(_FRAMED.sub("", _ANSWER_FORM.sub("", framed, count=1), count=1))
    framed = without_asker(_ACTIVITY.sub(" ", framed))
    kept, refinements, added = split_refinements(without_publication(framed))
    kept, excluded = split_exclusions(kept, follow_up=follow_up)
    kept = with_topics(kept, added)
    kept, contribution = split_contribution(kept)
    if contribution:  # "new environments, not new algorithms": what the papers make, which the contribution reads
        excluded = tuple(e for e in excluded if not _MADE_ANEW.match(e))
    return Request(as_examples(kept), excluded, contribution, refinements)


# the asker named as the subject or object of the request's own clause ("I'd like", "my team wants", "help me find")
ASKER = frozenset("i i'm im i'd i've i'll me my we we're we'd we've we'll our us".split())
# the prepositions taking what the request is about ("papers on X", "interested in X", "help me with X")
_TAKING = frozenset("on about in into regarding concerning around for with".split())
# the small words a request's clause holds besides its verbs and the words of FILLER
_FUNCTION = frozenset("to a an the some any up me us you it am be been being do get got".split())
_WH = frozenset("what which how why where when who whether".split())  # opening a clause that is the topic
_CLAUSE_WORD = re.compile(r"[^\W\d_][\w']*|[^\w\s]")


# Where one clause of a question ends and another, with a subject of its own, begins: a sentence's end (after a
# word or a closing parenthesis: "... (loss balancing, slow convergence). Anything on PINNs?"), a semicolon,
# and "so", "and", a dash or a colon before a first-person subject ("..., so I'm after", "... and I'd like"), a
# wh-word ("... - what's new on X?") or, after "and", a verb of wanting whose subject is left out ("I work in X and
# want to ...")
_ASKER_SUBJECT = r"(?:i(?!\.)|i'm|im|i'd|i've|we|we're|we'd|we've|my|our)\b"
# the verbs of wanting or trying whose subject "and" may leave out ("... and trying to keep up with X")
_INTENT = r"want|wants|need|needs|like|love|hope|hoping|wish|try|tries|trying|looking"
_ASKING_OPENER = r"(?:what\b|what's|which\b|(?:(?:has|have|is|was)\s+)?any(?:thing)?\b|are\s+there\b)"
# papers asked for by what they are on ("papers on X", "work about X")
_DOCUMENT_ON = r"(?:papers?|preprints?|works?|research|studies)\s+(?:on|about)\b"
_CLAUSE_BREAK = re.compile(
    r"(?:(?<=[?!])|(?<=[^\W\d_]{3}\.)|(?<=(?-i:[A-Z]{2})\.)|(?<=\)\.))\s+(?=\S)|\s*;\s*|"
    rf",?\s+(?:so|and)\s+(?={_ASKER_SUBJECT})|"
    # "..., so anything on grasping?": a request opening after "so" as after a dash
    rf",\s*so\s+(?={_ASKING_OPENER})|"
    # "As a PhD student in speech, I'd love ...": the asker as the subject after a comma
    rf",\s+(?=(?:i|i'm|i'd|i've|we|we're|we'd|we've)\s)|"
    rf"(?:\s+-{{1,2}}\s+|\s*[\u2014\u2013]\s*)(?=(?:{_ASKER_SUBJECT}|{_ASKING_OPENER}))|"
    # "... wondering whether learned solvers are worth it: papers on routing?": a colon before the request, as a dash
    rf"\s*:\s+(?=(?:{_ASKER_SUBJECT}|{_ASKING_OPENER}|{_DOCUMENT_ON}))|"
    rf"\s+and\s+(?=(?:would\s+)?(?:{_INTENT})\s+to\b|(?:want|wants|would\s+like)\s)",
    re.IGNORECASE,
)
# a clause about the asker: its subject, or "as a(n) ..." naming what they are ("As a PhD student in X, I ...")
_ASKER_START = re.compile(rf"^\W*(?:{_ASKER_SUBJECT}|as\s+an?\s)", re.IGNORECASE)
_ELIDED = re.compile(rf"^\W*(?:would\s+)?(?:{_INTENT})\s+to\b", re.IGNORECASE)
# a clause asking for papers on a topic it names ("anything new on X", "papers about X"), not "anything so far?"
_ASKS_ON = re.compile(
    # "papers on X" holds its preposition already ("papers about X" had to name a second "about" after it)
    rf"^\W*(?:{_ASKING_OPENER}[^,;:.?!]*?\b(?:on|about|regarding|concerning)|{_DOCUMENT_ON})\s+[^\W\d_]",
    re.IGNORECASE,
)


def without_context(text: str) -> str:
    """`text` without the asker's own context before their request: a clause whose subject is the asker ("I'm building
    a service robot that ...", "My group does video-language research.", "Our lab works on affective computing")
    followed by a clause that names a topic of its own ("..., so I'm after anything on robot navigation", "I'd like
    to catch up on video understanding", "- what's new on test-time scaling?"): what they do says why they ask, the
    later clause says what. A request whose subject is left out takes the asker back ("I work in oncology imaging and
    want to keep up with ML for cancer" -> "I want to keep up with ML for cancer"), unless the next clause asks for
    papers on a topic of its own ("... and want to automate it: anything on KG construction?"). A later clause naming
    nothing ("Anything this week?") leaves the context as the request."""
    pieces, begun, depth = [], 0, 0
    for found in _CLAUSE_BREAK.finditer(text):  # a clause break inside parentheses is the clarification's own
        depth = text.count("(", 0, found.start()) - text.count(")", 0, found.start())
        if depth <= 0:
            pieces.append(text[begun : found.start()])
            begun = found.end()
    pieces.append(text[begun:])
    if len(pieces) < 2:
        return text
    named = named_all = [_names_topic(p) for p in pieces]
    start = 0
    while start < len(pieces) - 1 and not named[start]:  # a greeting first ("Hi! I do climate science and ...")
        start += 1
    greeted = start
    for n in range(start, len(pieces) - 1):
        # after the asker's context, a clause whose subject "and" left out ("... for our lab and want to automate
        # it: anything on X?") is theirs too when the next clause asks for papers on a topic of its own
        elided = n > greeted and bool(_ELIDED.match(pieces[n]) and _ASKS_ON.match(pieces[n + 1]))
        if n == start and (_about_asker(pieces[n]) or elided) and any(named[n + 1 :]):
            start = n + 1
    while len(pieces) > start + 1 and not named[-1]:
        # a later clause naming nothing ("- what's out this week?") after the one naming the topic asks for it
        pieces, named = pieces[:-1], named[:-1]
    if start == greeted and len(pieces) == len(named_all):
        return text
    rest = pieces[start:]
    if elided := _ELIDED.match(rest[0]):
        rest[0] = ("I'm " if elided.group(0).lower().endswith("ing to") else "I ") + rest[0].lstrip()
    return " ".join(rest)


def _about_asker(clause: str) -> bool:
    """Whether `clause` is about the asker: its subject is ("I work on X", "As a PhD student ..."), or it opens with
    an everyday verb's "-ing" form whose subject, the asker, is left out, a small word right after it ("Working on a
    project about X - has anything come out on Y?", "Building a RAG system - ..."); an "-ing" word before a noun
    names the topic ("Reasoning models - anything on RL?")."""
    if _ASKER_START.match(clause):
        return True
    first = re.match(r"\W*([^\W\d_]+)\s+([^\W\d_]+)", clause)
    if not first or not first.group(1).lower().endswith("ing") or not _verb_form(first.group(1).lower()):
        return False
    return first.group(2).lower() in _FUNCTION | _TAKING | PREPOSITIONS | _ROLE_DETERMINERS


_INDEFINITE = frozenset("anything something everything nothing".split())


def _names_topic(clause: str) -> bool:
    """Whether `clause` names a topic: a word neither filler nor meta, other than an adjective right after "anything"
    ("anything relevant", "anything exciting": English writes its adverb, "relevantly"), which says what the papers
    should be like, and the verb right after the asker as subject ("where do I start?"), which says what they do."""
    words = [w.lower() for w in _TOPIC_WORD.findall(clause)]
    return any(
        w not in FILLER | META | ASKER
        and not (n and words[n - 1] in _INDEFINITE and is_english_word(f"{w}ly"))
        and not (n and words[n - 1] in ("i", "we") and _verb_form(w))
        for n, w in enumerate(words)
    )


def without_asker(text: str) -> str:
    """`text` without a leading clause whose subject or object is the asker and that says what they want done, up to
    the preposition taking the topic: "I'd like papers on X", "my team wants work on X", "help me find papers on X",
    "I'm writing a survey on X", "our lab works on X" -> "X". Read by role, not by phrase: the clause names the asker
    (a first-person pronoun, or "my"/"our" and one noun), and every other word before the preposition is a verb (a
    word the English word list inflects), a filler word of questions or a function word; a kind of contribution
    after such words ends the clause ("I'd like new benchmarks for X" -> "new benchmarks for X"); a named term, a
    contribution word inside the clause or any other word there leaves the text as it is, and so do a verb
    with its object ("I want to cluster points in high dimensions") and a verb right before "with" or "for" ("I'd
    like to plan with LLMs"): the topic's own act, not the asker's; after "my"/"our" and a noun, only a word of
    asking ("wants", "works") is the asker's ("my model fails on long documents" is left as it is)."""
    words = list(_CLAUSE_WORD.finditer(text))
    asker = next((n for n, w in enumerate(words) if w.group(0).lower() in ASKER), None)
    if asker is None:
        return text
    made = next((m for m in _CONTRIBUTION.finditer(text) if m.start() > words[asker].end()), None)
    taking = next((n for n in range(asker + 1, len(words)) if words[n].group(0).lower() in _TAKING), None)
    opens = next((n for n in range(asker + 1, len(words)) if words[n].group(0).lower() in _COMPLEMENT), None)
    # the last word opening the question: "whether or not" opens it as "whether" does (its "not" excludes nothing)
    last = opens
    if opens is not None and [w.group(0).lower() for w in words[opens + 1 : opens + 3]] == ["or", "not"]:
        last = opens + 2
    embeds = opens is not None and last is not None and (taking is None or opens < taking) and last + 1 < len(words)
    if embeds and (made is None or words[last].end() < made.start()) and _askers(words, asker, opens) is not None:
        # "I'd love to know if any papers touch X", "I wonder whether ...": the question the asker's clause embeds
        return text[words[last].end() :]
    if made is not None and (taking is None or made.start() < words[taking].start()):
        # the kind of contribution asked for ends the asker's clause ("I'd like new benchmarks for X"): the papers
        # make one, about X (`split_contribution`), when the words before it are the asker's as below
        kind = next(n for n, w in enumerate(words) if w.start() >= made.start())
        return text[made.start() :] if _askers(words, asker, kind) is not None else text
    if taking is None or taking + 1 >= len(words):
        return text
    after = next((w.group(0) for w in words[taking + 1 :] if w.group(0).lower() not in _ARTICLES), "")
    if after.lower() in FILLER and not (after.lower() in META or _DOCUMENT.fullmatch(after) or after.lower() in _WH):
        return text  # a filler word next may be the topic's own ("on reading comprehension"): left as it is
    verb = _askers(words, asker, taking)
    if verb is None:
        return text
    if verb and words[taking].group(0).lower() in ("with", "for"):
        return text  # what a verb does a thing with or for is its own act's ("I'd like to plan with LLMs")
    return text[words[taking].end() :]


def _askers(words: list[re.Match[str]], asker: int, end: int) -> bool | None:
    """Whether the words before `end` are the asker's clause (`without_asker`): None when one is not, else whether
    the last of them is a verb of the clause's own."""
    owner = asker + 1 if words[asker].group(0).lower() in ("my", "our") else None
    described = _described(words, asker, end)
    # a phrase before the asker saying what for or as whom they ask ("For a reading group next week I need papers on
    # X", "As a reviewer I want ..."): why they ask, not what. Its noun has an article or the asker's possessive: "For
    # LLM agents, I need papers on memory" and "As for diffusion models, ..." name the topic's field
    leading = [w.group(0).lower() for w in words[:2]]
    lead = asker if asker and leading[0] in _LEADING and leading[1] in _ROLE_DETERMINERS else 0
    verb = False  # the word before is a verb of the clause's own, neither filler nor function word
    for n in range(lead, end):
        word = words[n].group(0)
        lower = word.lower()
        if n in described:
            verb = False
            continue  # who the asker is ("I'm a theorist interested in X") says nothing of the topic
        if n in (asker, owner) and not is_term_spelling(word):
            verb = False
            continue
        # a word whose object is the asker is a verb by its role ("help me", "let us"), however often it is a noun
        doing = n + 1 == asker and words[asker].group(0).lower() in ("me", "us") and is_english_word(lower)
        asking = lower in FILLER or lower in META or lower in _FUNCTION  # "I want to know what's new on X"
        if not (word[0].isalpha() and (asking or doing or _verb_form(lower))):
            return None
        if re.fullmatch(_CONTRIBUTION_WORD, lower) or is_term_spelling(word):
            return None
        own = not asking
        if own and owner is not None and n > owner and lower.removesuffix("s") not in FILLER:
            return None  # what "my model" or "our robot" does is the topic ("my model fails on long documents")
        if own and verb:
            return None  # a verb and its object ("I want to rank documents for search"): the topic's own act
        verb = own
    return verb


_ARTICLES = frozenset("a an the".split())  # before the topic's first word, which they say nothing of
_COMPLEMENT = frozenset("if whether".split())  # opening the question a clause of knowing or wondering embeds
_LEADING = frozenset("for as".split())  # prepositions opening a phrase on the asker's purpose or role
_ROLE_DETERMINERS = frozenset("a an my our".split())  # opening the noun of that purpose or role


def _described(words: list[re.Match[str]], asker: int, taking: int) -> set[int]:
    """The words describing the asker as a predicate noun after "I'm" / "we are" and an article ("I'm a theorist",
    "we're an NLP group"), up to DESCRIPTION words and only when a filler word of asking ("interested", "looking")
    follows them before the preposition taking the topic; empty otherwise."""
    lower = [w.group(0).lower() for w in words]
    n = asker + 1
    if lower[asker] in ("i", "we") and n < taking and lower[n] in ("am", "are"):
        n += 1
    elif lower[asker] not in ("i'm", "im", "we're"):
        return set()
    if n >= taking or lower[n] not in ("a", "an"):
        return set()
    end = next((m for m in range(n + 1, taking) if lower[m] in FILLER), None)
    if end is None or not 1 <= end - n - 1 <= DESCRIPTION:
        return set()
    return set(range(n, end))


DESCRIPTION = 3  # words a description of the asker holds ("a theorist", "an NLP researcher")


def _verb_form(word: str) -> bool:
    """Whether `word` is an everyday English verb as written or inflected ("want", "wants", "trying", "remembered");
    a rarer one is a topic's as often ("grokking" in "papers where we see grokking in transformers")."""
    if english_count(word) < EVERYDAY_COUNT:
        return False
    bases = [word]
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            bases += [word[: -len(ending)], word[: -len(ending)] + "e"]
    if word.endswith(("ies", "ied")) and len(word) > 4:  # "studies", "applied": "study", "apply"
        bases.append(word[:-3] + "y")
    return any(is_english_word(b) and inflects(b) for b in bases)


def _contrasted(excluded: str, head: str) -> bool:
    # an exclusion naming another kind of an everyday head ("world models, not reward models"): the head names
    # nothing alone (one of the English word list's most common words, as "model", "network", "system" are), so the
    # exclusion is that other kind, whole; a head naming a field alone ("unlearning", "quantization") makes every
    # candidate one of it, and what the exclusion adds is the rest. A named term beside the head is a kind by itself.
    if english_count(head) < EVERYDAY_COUNT:
        return False
    return not any(part.term is not None for part in split_units(topic_key(excluded)))


def beyond(topic: str, excluded: str) -> str:
    """What an exclusion adds to the topic: "quantization other than LLM quantization" excludes LLM papers, not the
    quantization ones (the excluded words the topic has in any inflection are dropped, unless that leaves none). Only
    an exclusion holding the whole of the topic (of one of its alternatives), or ending in its head, the last word, is
    a kind of it ("machine unlearning other than LLM unlearning" excludes LLM papers: every candidate is an unlearning
    paper), unless that head is an everyday word naming nothing alone ("world models, not reward models" excludes
    reward models, not every paper saying "reward"); one sharing another word with it names something beside it
    ("counterfactual reasoning, not counterfactual explanations" excludes counterfactual explanations, not every
    paper explaining anything) and stays whole, as does one whose shared words are part of a named term in it
    ("diffusion models, not language models")."""
    words = [t for t in text_tokens(excluded) if t not in FILLER]
    kinds = [[t for t in text_tokens(a.text) if t not in FILLER] for a in topic_alternatives(topic)]
    # the exclusion holds the whole topic, or its own head is the topic's ("LLM unlearning" for "machine
    # unlearning"); the topic's head inside it elsewhere is not ("multi-agent systems" for "LLM agents")
    whole = [
        a
        for a in kinds
        if a
        and (
            all(any(same_word(t, w) for w in words) for t in a)
            or (words and same_word(a[-1], words[-1]) and not _contrasted(excluded, a[-1]))
        )
    ]
    if not whole:
        return excluded
    asked = [t for a in whole for t in a]
    # a named term is one thing, left whole or taken out whole: "language models" excluded from diffusion models
    # excludes language models, not every paper on language
    for part in split_units(topic_key(excluded)):
        shared = [any(same_word(t, w) for t in asked) for w in part.tokens]
        if part.term is not None and any(shared) and not all(shared):
            return excluded

    def kept(word: re.Match[str]) -> str:
        return "" if any(same_word(t, "".join(text_tokens(word.group(0)))) for t in asked) else word.group(0)

    left = WORD.sub(kept, excluded)
    return " ".join(left.split()) if WORD.search(left) else excluded
