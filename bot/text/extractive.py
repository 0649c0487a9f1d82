"""Extractive TL;DRs: an abstract split into sentences, the one that best states the contribution picked, and a
sentence made readable and cut at a clause boundary (how every TL;DR is shown)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.models import Paper
from bot.text.latex import latex_to_text
from bot.text.terms import is_english_word

TLDR_MAX = 280
_MIN_CLAUSE = 60  # a clause-boundary cut keeps at least this much, else a shorter sentence is chosen

# A sentence ends at . ! or ? (a closing quote or bracket may follow) before whitespace and a capital, digit,
# bracket or quote; or at a period glued to a capitalised word ("results.We").
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[a-z)][.])(?=[A-Z][a-z])")
_ABBREVIATION = re.compile(
    r"(\b(e\.g|i\.e|et al|vs|cf|fig|figs|eq|eqs|sec|approx|resp|no|ref|vol|pp|etc|al)\.|(^|\s)[A-Z]\.)$", re.I
)
_WORD = re.compile(r"[a-z][a-z0-9\-]+")
_STOP = frozenset(
    "the of and a an to in for on with by from is are we our this that as at be via using based its their".split()
)

# Who states a contribution, and the verbs that state it: what this paper builds, finds or studies.
_SUBJECT = (
    r"(we|here|this (paper|work|study|article|letter|thesis|dissertation|chapter|survey|review|note|report|tutorial)|"
    r"our (work|paper|study|method|approach|framework))"
)
_BUILD = re.compile(
    rf"\b{_SUBJECT}\b.{{0,30}}?\b(propose|introduce|present|describe|develop|design|build|construct|release|formulate|"
    r"devise|create|contribute|put forward|offer|provide)",
    re.I,
)
_FIND = re.compile(
    rf"\b{_SUBJECT}\b.{{0,30}}?\b(show|prove|find|demonstrate|establish|derive|reveal|identify|uncover|obtain|"
    r"characteri[sz]e|argue|report)",
    re.I,
)
_STUDY = re.compile(
    rf"\b{_SUBJECT}\b.{{0,30}}?\b(study|investigate|explore|analy[sz]e|examine|address|tackle|consider|revisit|"
    r"extend|focus|delve|aim|seek)",
    re.I,
)
# The state of the field, a problem or a gap: what comes before the contribution.
_BACKGROUND = re.compile(
    r"^(however|recently|despite|while|although|whereas|in recent years|existing|current|traditional|conventional|"
    r"prior|previous|most|many|recent|the (success|rise|growing)|as |with the|due to|yet)\b|\b(has|have) (been|become|"
    r"emerged|shown|achieved|gained|attracted|led|seen|made)\b|\b(remains?|remained) (a |an |largely |unclear|"
    r"challenging|open|limited|underexplored)|\b(little|less) (attention|is known|work)\b",
    re.I,
)
# How it works and how well: setup, experiments, numbers, code.
_DETAIL = re.compile(
    r"\b(experiments?|experimental|empirical(ly)?|results (show|demonstrate|indicate)|outperform\w*|ablations?|"
    r"state-of-the-art|baselines?|benchmarks show|code|github|available at|https?://|datasets? (show|demonstrate)|"
    r"we (believe|hope|envision|evaluate|validate|apply|use|employ|conduct|test))\b"
    r"|\d+(\.\d+)?\s?(%|x|×)",
    re.I,
)
# How an abstract marks its main contribution after the gap, and its secondary points after the main one.
# The verbs an abstract answers its stated problem or gap with ("To address this, ...", "We fill this gap and ...")
_ANSWER_VERB = r"(address|tackle|overcome|solve|fill|bridge|close|remedy|mitigate|alleviate)"
_MAIN_OPENER = re.compile(
    rf"^(to ({_ANSWER_VERB[1:-1]}|this end)|in this (paper|work|"
    r"study|article|letter|thesis|dissertation|chapter)|here\b|this (paper|work|study|article|thesis|dissertation|"
    r"chapter|survey))",
    re.I,
)
_SECONDARY_OPENER = re.compile(
    r"^(additionally|furthermore|moreover|finally|specifically|in addition|also|further|besides|lastly|then|next|"
    r"in particular|notably|as a (result|byproduct)|we also|we further|we additionally|we finally)\b",
    re.I,
)
# A sentence leaning on an earlier one ("This approach...", "These results...") does not stand alone.
_ANAPHORA = re.compile(
    r"^(this|these|those|such|it|they|its|their|the (proposed|resulting|method|approach|model|framework))\b"
    r"(?! (paper|work|study|article|letter|thesis|note)\b)",
    re.I,
)

# Openers that link to a sentence the reader of a TL;DR has not seen: discourse connectives and framing phrases,
# then a comma. A short purpose or motivation clause ("To address this gap,", "Motivated by these findings,")
# before the subject goes too: the sentence is read on its own.
_CONNECTIVE = re.compile(
    r"^(however|moreover|furthermore|additionally|in addition|in contrast|by contrast|conversely|instead|meanwhile|"
    r"notably|importantly|specifically|in particular|therefore|thus|hence|consequently|accordingly|as a result|"
    r"finally|first(ly)?|second(ly)?|third(ly)?|then|next|also|still|nevertheless|nonetheless|on the other hand|"
    r"to this end|to that end|to do so|to this aim|for this purpose|in this (paper|work|study|article|letter|"
    r"thesis|note|context|setting|regard)|here|overall|in summary|in short|in practice|in turn|to (the best of )?"
    r"our knowledge|crucially|critically|surprisingly|interestingly|ultimately|concretely|technically|formally|"
    r"intuitively|empirically|theoretically|practically|together|altogether|as such|in doing so|by doing so|so)"
    r"\s*(,|(?=\s+(we|our|this|these)\b))\s*"
    # any sentence adverb set off by a comma ("Subsequently,", "Currently,", "Remarkably,"; `_adverb`)
    r"|^(?P<ly>[a-z]{4,}ly)\s*,\s*",
    re.I,
)
# A connective adverb between the subject and its verb ("We then propose", "We also introduce", "This study therefore
# explores"): it points to a step the reader of a TL;DR has not seen, as a leading connective does.
_SUBJECT_ADVERB = re.compile(
    r"^((we|i|this (paper|work|study|article|letter|thesis|note|survey|review)|our (work|paper|study|method|approach|"
    r"framework))\s+)(then|also|further|additionally|next|finally|lastly|subsequently|therefore|thus|hence|"
    r"consequently|accordingly|instead|furthermore|moreover|in turn|in addition)\s+"
    r"(?=[a-z])(?!(the|a|an|this|these|that|those|our|its|their|his|her|such)\b)",  # "We further the field" is a verb
    re.I,
)
# a demonstrative naming what an earlier sentence said ("this problem", "these challenges")
_POINTER = r"(this|these|those|such|the above|the aforementioned)"
# A purpose or relative clause ending the sentence whose object is named by a demonstrative ("..., to address these
# challenges.", "... that solves this problem."): the clause leans on a sentence the reader has not seen, and what
# comes before it states the contribution whole.
_POINTING_CLAUSE = re.compile(
    r"(,\s*|\s+)((which|that)\s+(\w+ly\s+)?\w+|((\w+ly\s+)?(designed|aiming|intended|aimed|meant|in order)\s+)?"
    rf"to\s+(\w+ly\s+)?\w+)\s+{_POINTER}\s+"
    r"(?P<named>(?:[\w-]+\s+){0,2}?[\w-]+)(\s+(in|for|of|on|with|across)(\s+[\w-]+){1,3})?\s*[.!]?$",
    re.I,
)
_MIN_HEAD = 40  # what is left when such a clause goes: a statement, not a fragment
# A list number before the sentence ("(3) Finally, we propose ..."): it points into a list the reader has not seen.
_ENUMERATOR = re.compile(r"^(\(\s*(\d{1,2}|[ivx]{1,4}|[a-h])\s*\)|(\d{1,2}|[ivx]{1,4})[.)])\s+(?=\S)", re.I)
_LEAD_CLAUSE = re.compile(
    r"^(((in order )?to|motivated by|inspired by|building (on|upon)|based on|given|guided by|drawing on|toward(s)?|"
    r"with|against|in light of|in response to|in contrast to|unlike|beyond|compared (to|with)|under|for)\b"
    # a demonstrative's clause ("For this reason,"), never the main one ("This work shows that X, ...")
    # (a comma inside it may join a list: "guided by X of abduction, deduction, and induction, this survey ...")
    rf"([^;:()]|\([^()]*\)){{0,140}}?|(?!{_SUBJECT}\b)[^,;:()]{{0,40}}\b(this|these|those|such|that)\b[^,;:()]{{0,30}}?)"
    # then what opens a main clause: a subject, a further lead, or a capitalised name (not a listed word)
    r",\s*(?=(we|our|this|the|here|in|first|then|motivated|inspired|building|based|guided|(?-i:[A-Z])\w*)\b)",
    re.I,
)
# Places a sentence may end early and still read whole: before a clause set off by a comma or semicolon (a
# relative or participle clause, a means, an example, a second coordinated clause) or before a parenthesis. A bare
# comma is not one (it may sit inside a list), nor a restrictive 'that'/'where' (the noun before it needs it).
_CLAUSE_BREAK = re.compile(
    r"(;|:|\s+--?\s+|\s+[–—]\s+|,\s+(and|but)\s+(?=(we|it|this|they|our|thus|thereby)\b)|"
    r",\s+(which|where|whereby|while|whereas|thereby|thus|enabling|allowing|"
    r"achieving|using|leveraging|yielding|resulting|making|providing|offering|requiring|including|such as|as well as|"
    r"by|with|without|via|through|in which|for which|so that|e\.g\.|i\.e\.|namely|especially|particularly)\b|"
    r"\s+(through|via|using|leveraging)\s|\s+\()"
)
_DANGLING = re.compile(
    r"\b(the|a|an|of|to|and|or|but|for|with|in|on|at|by|from|that|which|as|its|their|our|is|are|i\.e|e\.g|such)$",
    re.I,
)


def states_contribution(sentence: str) -> bool:
    """Whether an abstract sentence states what the paper builds, finds or studies (and is not background)."""
    stating = _BUILD.search(sentence) or _FIND.search(sentence) or _STUDY.search(sentence)
    return bool(stating) and not _BACKGROUND.search(sentence)


def split_sentences(text: str) -> list[str]:
    """Split an abstract into sentences (scientific prose: abbreviations and initials do not end one)."""
    text = " ".join(text.split())
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        head = text[start : match.start()].rstrip()
        if _ABBREVIATION.search(head):
            continue
        sentences.append(text[start : match.end()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


def _adverb(word: str) -> bool:
    """Whether a word ending in "ly" is an adverb made from a word by English's -ly endings ("current" + "ly",
    "lucky" -> "luckily", "notable" -> "notably", "specific" -> "specifically"), not a noun ("Family", "Anomaly")."""
    w = word.lower()
    return (
        is_english_word(w[:-2])
        or (w.endswith("ily") and is_english_word(w[:-3] + "y"))
        or (w.endswith("bly") and is_english_word(w[:-3] + "ble"))
        or (w.endswith("ally") and is_english_word(w[:-4]))
    )


def _connective_dropped(text: str) -> str:
    """`text` without its leading connective (`_CONNECTIVE`); a noun ending in "ly" opening it ("Family, school and
    peers ...") stays."""
    return _CONNECTIVE.sub(lambda m: m.group(0) if m.group("ly") and not _adverb(m.group("ly")) else "", text, count=1)


def drop_connective(sentence: str) -> str:
    """The sentence without leading connectives or a leading purpose clause, and without a connective adverb right
    after its subject ("We then propose" -> "We propose"), capitalised again."""
    out = sentence.strip()
    dropped = False
    while True:
        stripped = _LEAD_CLAUSE.sub("", _connective_dropped(_ENUMERATOR.sub("", out, count=1)), count=1)
        if stripped == out or len(stripped.split()) < 3:
            break
        out, dropped = stripped, True
    adverb_dropped = _SUBJECT_ADVERB.sub(r"\1", out, count=1)
    if adverb_dropped != out:
        out, dropped = adverb_dropped, True
    # 'we' -> 'We', 'low-batch' -> 'Low-batch'; a symbol or a name written in mixed case ('α-Routing', 'kNN') stays
    if dropped and re.match(r"[a-z][a-z]+(?:-[a-z]+)*(?![\w-])", out):
        return out[:1].upper() + out[1:]
    return out


def drop_pointing_clause(sentence: str) -> str:
    """The sentence without a closing purpose or relative clause whose object points to an earlier sentence ("We
    propose ST-PINNs to address such problems." -> "We propose ST-PINNs."); unchanged when the clause's noun occurs
    earlier in the sentence (it points inside it) or too little would be left."""
    match = _POINTING_CLAUSE.search(sentence)
    if not match or match.start() < _MIN_HEAD or len(sentence[: match.start()].split()) < 5:
        return sentence
    before = {w.rstrip("s") for w in _WORD.findall(sentence[: match.start()].lower())}
    if any(w.rstrip("s") in before for w in _WORD.findall(match.group("named").lower())):
        return sentence
    head = sentence[: match.start()].rstrip(" ,;:")
    return head if _depth_ok(head, len(head)) and not _DANGLING.search(head) else sentence


# A demonstrative object framing the means that states the contribution: "We tackle this problem by proposing X",
# "a framework that addresses these challenges by combining X", "a benchmark designed to address this gap by
# incorporating X", "a method for investigating this phenomenon by measuring X". The verb and its object answer a
# sentence the reader has not seen; the means after "by" is what the paper does.
_POINTING_FRAME = re.compile(
    rf"\b(?P<to>to\s+)?(?:\w+ly\s+)?(?P<verb>[a-z]+)\s+{_POINTER}\b"
    r"(?P<named>(?:\s+[\w-]+){0,3}?)\s+by\s+(?P<means>[a-z]{3,}ing)\b",
    re.I,
)
# The same answer to an unseen problem coordinated with what the paper does: "We fill this gap and provide X", "a
# method that addresses this limitation and estimates X"
_ANSWERED_AND = re.compile(
    rf"\b(?:\w+ly\s+)?{_ANSWER_VERB}(?P<s>e?s)?\s+{_POINTER}\b"
    r"(?P<named>(?:\s+[\w-]+){0,3}?)\s*,?\s+and\s+(?=[a-z])",
    re.I,
)
_PERSON = re.compile(r"\b(we|i|they)\s+$", re.I)
_AND_GERUND = re.compile(r"(?<![a-z]ing)(\s+(?:and|or)\s+)([a-z]{3,}ing)\b", re.I)


def _verb_of(gerund: str) -> str:
    """The base form of a gerund ("proposing" -> "propose", "mapping" -> "map", "analyzing" -> "analyze"), or ''
    when no English verb makes it."""
    stem = gerund.lower()[:-3]
    doubled = len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiou"
    # a consonant doubled before "-ing" is the verb's single one ("setting": set), but ss, ll, ff, zz end verbs as
    # written ("passing": pass, "filling": fill; "controlling": control when no verb is so written); no verb ends in
    # a doubled consonant and an "e" ("passe", "sette")
    if doubled:
        bases: tuple[str, ...] = (stem, stem[:-1]) if stem[-1] in "slfz" else (stem[:-1], stem)
    else:
        bases = (stem + "e", stem)
    for base in bases:
        british = base.replace("yz", "ys").replace("iz", "is")
        if len(base) > 2 and (is_english_word(base) or is_english_word(british)):
            return base
    return ""


def _third_person(verb: str) -> str:
    """ "propose" -> "proposes", "focus" -> "focuses", "apply" -> "applies"."""
    if re.search(r"(s|x|z|ch|sh|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def drop_pointing_frame(sentence: str) -> str:
    """The sentence with a verb whose demonstrative object points to an earlier sentence replaced by the means it
    names ("We tackle this problem by proposing X" -> "We propose X"; "a model that addresses these challenges by
    combining X and adding Y" -> "a model that combines X and adds Y"; "designed to bridge this gap by offering X" ->
    "designed to offer X"); unchanged when the object's noun occurs earlier in the sentence (it points inside it)
    or the verbs' forms cannot be told."""
    match = _POINTING_FRAME.search(sentence)
    if not match:
        return _answer_dropped(sentence)
    before = {w.rstrip("s") for w in _WORD.findall(sentence[: match.start()].lower())}
    if any(w.rstrip("s") in before for w in _WORD.findall(match.group("named").lower())):
        return sentence
    verb, means = match.group("verb").lower(), match.group("means")
    head, rest = sentence[: match.start()] + (match.group("to") or ""), sentence[match.end() :]
    if match.group("to") or _PERSON.search(sentence[: match.start()]):
        form = str  # "to bridge this gap by offering" -> "to offer"; "we address this by analyzing" -> "we analyze"
    elif verb.endswith("s") and not verb.endswith("ss"):
        form = _third_person  # "that addresses these challenges by combining" -> "that combines"
    else:
        # a past or passive frame ("This issue is addressed ... by proposing"), or a gerund's ("methods for curating
        # such datasets by focusing on X": the means may not be what the methods do): left as written
        return sentence
    base = _verb_of(means)
    if not base:
        return sentence

    def coordinated(m: re.Match[str]) -> str:
        other = _verb_of(m.group(2))
        return m.group(1) + form(other) if other else m.group(0)

    return head + form(base) + _AND_GERUND.sub(coordinated, rest, count=1)


def _answer_dropped(sentence: str) -> str:
    """The sentence without an answer to an unseen problem coordinated with what the paper does ("We fill this gap
    and provide X" -> "We provide X"; "a method that addresses this limitation and estimates X" -> "a method that
    estimates X"): only after "we" or "to", or in the third person before a verb of the same form."""
    match = _ANSWERED_AND.search(sentence)
    if not match:
        return sentence
    before = {w.rstrip("s") for w in _WORD.findall(sentence[: match.start()].lower())}
    if any(w.rstrip("s") in before for w in _WORD.findall(match.group("named").lower())):
        return sentence
    head, rest = sentence[: match.start()], sentence[match.end() :]
    following = re.match(r"[a-z]+", rest)
    verb = following.group(0) if following else ""
    if not verb or verb in _STOP:  # "... and the ...", "... and their ...": no verb coordinated
        return sentence
    if match.group("s"):  # "that addresses ... and estimates": the next verb in the third person too
        if not any(verb.endswith(end) and is_english_word(verb[: -len(end)]) for end in ("s", "es")):
            return sentence
    elif not (re.search(r"\b(we|i|they|to)\s+$", head, re.I) and is_english_word(verb)):
        return sentence
    return head + rest


def _close(text: str) -> str:
    text = text.rstrip(" ,;:-–—")
    return text if text[-1:] in ".!?" else text + "."


def _depth_ok(text: str, end: int) -> bool:
    """No bracket left open before `end` (a cut there would leave '(' unclosed)."""
    return text.count("(", 0, end) == text.count(")", 0, end) and text.count("[", 0, end) == text.count("]", 0, end)


def fit_sentence(sentence: str, limit: int = TLDR_MAX) -> str:
    """The sentence whole when it fits `limit`, else cut at the last clause boundary that fits and reads whole
    ('' when there is none: take another sentence). Ends with closing punctuation, never an ellipsis."""
    if len(sentence) <= limit:
        return _close(sentence) if sentence else ""
    best = ""
    for match in _CLAUSE_BREAK.finditer(sentence):
        end = match.start()
        if end > limit - 1:
            break
        head = sentence[:end].rstrip()
        if len(head) >= _MIN_CLAUSE and _depth_ok(sentence, end) and not _DANGLING.search(head):
            best = head
    return _close(best) if best else ""


def readable(text: str, limit: int = TLDR_MAX) -> str:
    """A TL;DR as shown everywhere: LaTeX made text, no leading connective, no closing clause pointing to an earlier
    sentence, no cut inside a clause."""
    sentence = drop_pointing_frame(drop_pointing_clause(drop_connective(latex_to_text(text))))
    fitted = fit_sentence(sentence, limit)
    if fitted:
        return fitted
    # no clean clause boundary fits: the first sentence of it, or at worst a cut at a word
    first = split_sentences(sentence)[0] if sentence else ""
    if first and len(first) <= limit:
        return _close(first)
    cut = sentence[: limit - 1]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(",;:") + "…"


def _score(original: str, sentence: str, position: int, count: int, title_words: set[str]) -> float:
    """How well `sentence` (`original` with its connective dropped) states the contribution on its own."""
    words = {w for w in _WORD.findall(sentence.lower()) if w not in _STOP}
    score = 2.0 * len(words & title_words) / (1 + len(title_words))
    head = sentence[:120]
    if _BUILD.search(head):
        score += 1.6
    elif _FIND.search(head):
        score += 1.1
    elif _STUDY.search(head):
        score += 0.7
    if _MAIN_OPENER.search(original):
        score += 0.3
    elif _SECONDARY_OPENER.search(original):
        score -= 0.4
    if _BACKGROUND.search(sentence) or sentence.endswith("?"):
        score -= 1.0
    if _DETAIL.search(sentence):
        score -= 0.5
    if _ANAPHORA.search(sentence):
        score -= 0.6
    if position == 0 and count > 2:
        score -= 0.4  # an abstract opens with its field far more often than with its contribution
    score -= 0.06 * position  # contributions come early; later sentences are usually results
    if len(sentence) < 50:
        score -= 1.0
    elif len(sentence) > TLDR_MAX:
        score -= 0.15  # a sentence that needs a cut: a shorter one of nearly the same worth reads better
    return score


def _candidates(paper: Paper) -> tuple[list[str], list[str]]:
    """The abstract's sentences with LaTeX made text, as written and with their leading connectives dropped."""
    originals = split_sentences(latex_to_text(paper.abstract))
    return originals, [drop_pointing_clause(drop_connective(s)) for s in originals]


def _ranked(paper: Paper, originals: Sequence[str], sentences: Sequence[str]) -> list[int]:
    """Sentence indices, the best statement of the contribution first."""
    title_words = {w for w in _WORD.findall(latex_to_text(paper.title).lower()) if w not in _STOP}
    count = len(sentences)
    scores = [_score(originals[i], s, i, count, title_words) for i, s in enumerate(sentences)]
    return sorted(range(count), key=lambda i: -scores[i])


def extractive_tldr(paper: Paper, limit: int = TLDR_MAX) -> str:
    """The sentence of the abstract that best states the contribution, readable and at most `limit` characters:
    whole, or cut at a clause boundary; when the best one cannot be cut cleanly, the next best that can."""
    originals, sentences = _candidates(paper)
    if not sentences:
        return readable(paper.title, limit)
    order = _ranked(paper, originals, sentences)
    for i in order[:3]:
        fitted = fit_sentence(drop_pointing_frame(sentences[i]), limit)
        if fitted:
            return fitted
    return readable(sentences[order[0]], limit)  # readable drops the pointing frame too


def key_passage(paper: Paper, limit: int) -> str:
    """The contribution sentence and what follows it, shortened to `limit` characters: what a TL;DR needs."""
    originals, sentences = _candidates(paper)
    if not sentences:
        return ""
    passage = " ".join(sentences[_ranked(paper, originals, sentences)[0] :])
    if len(passage) <= limit:
        return passage
    cut = passage[: limit - 1]
    return (cut[: cut.rfind(" ")] if " " in cut else cut).rstrip(",;:") + "…"
