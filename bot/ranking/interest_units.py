"""How the ranker reads a member's one-line interest ("I'm into sparse MoE papers") as weighted units.

The ranker's reading of the topic vocabulary in `bot.text.terms` (the questions' reading is `bot.questions.topics`):
framing words are dropped (`interest_core`), the rest is split with the ranker's table (`bot.text.terms.RANKER`:
"language model" is not "LLM") into named terms and content words, weighted by how much each says about the topic;
`bot.ranking.rank` scores a paper by the weighted share of them in its title and abstract.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from itertools import pairwise

from bot.text.terms import (
    NAMED_TERMS,
    RANKER,
    WORD,
    Unit,
    joined_abbreviations,
    phrase_key,
    split_units,
    text_tokens,
)

# Words that say little alone: a unit made of one of them weighs less than a content word.
GENERIC_WORDS = frozenset(
    phrase_key(w)
    for w in """model network method approach system framework learning data task problem analysis technique
    algorithm based using deep""".split()
)
GENERIC_WEIGHT = 0.3
# A named term says more than a plain word: "sparse MoE" is mostly about MoE, "LLM hallucination" about
# hallucination, since LLMs (like the other broad terms below) are in a good share of all papers.
NAMED_WEIGHT = 3.0
BROAD_TERMS = frozenset(
    phrase_key(t)
    for t in (
        "large language model",
        "language model",
        "small language model",
        "vision language model",
        "multimodal large language model",
        "reinforcement learning",
        "natural language processing",
        "convolutional neural network",
        "partial differential equation",
    )
)
# Function words inside a phrase, never units.
STOP_WORDS = frozenset(
    """a an the of for in on to and or with by from via at as into over under about its their using what how which
    why when where who that this these those is are vs versus""".split()
)
# Words that frame an interest rather than name it ("I'm interested in ...", "... papers"), as typed: a framing
# word is matched as written, not plural-folded, since "news" (of "news recommendation") is no plural of "new".
_LEAD_WORDS = frozenset(
    """i m d ve ll am we me my our really very also mostly mainly especially interested interest interests into like
    love want to read about in on regarding around anything something everything papers paper work works research new
    recent latest stuff things topic topics please the would be keen looking for show send give all any some more
    of related""".split()
)
_TRAIL_WORDS = frozenset("papers paper work works research stuff things topics in general please etc".split())
_LEAD = frozenset(phrase_key(w) for w in _LEAD_WORDS)
_TRAIL = frozenset(phrase_key(w) for w in _TRAIL_WORDS)


# The shorthand researchers type: "w/" is "with", "w/o" drops what follows it (a paper need not name what the
# member wants left out); "vs" and "+" coordinate like "and" (`_CONJUNCTION`); "esp.", "incl.", "e.g." introduce
# details (`_DETAILS`).
_WITH = re.compile(r"\bw/(?!o\b)\s*", re.IGNORECASE)
_WITHOUT = re.compile(r"\s*\bw/o\b([^,;()]*)", re.IGNORECASE)


def written_out(text: str) -> str:
    """`text` with "w/" written "with " and a "w/o ..." clause dropped (to the next comma, semicolon or bracket),
    and an abbreviation written with "&" one word ("Q&A" -> "QA": no conjunction, `joined_abbreviations`). A plain
    "without" stays: it is part of a topic's name ("learning without labels")."""
    text = joined_abbreviations(text)
    if "/" not in text:
        return text
    return _WITHOUT.sub(" ", _WITH.sub("with ", text))


def left_out(text: str) -> list[str]:
    """What the "w/o ..." clauses of `text` name ("theory papers w/o experiments" -> ["experiments"]): dropped
    from an interest by `written_out`, but to an avoid phrase a condition, the papers it spares."""
    return [m.group(1).strip() for m in _WITHOUT.finditer(_WITH.sub("with ", text)) if m.group(1).strip()]


def interest_core(text: str) -> str:
    """A one-line interest without the words that frame it, as written ("I'm into sparse MoE papers" ->
    "sparse MoE"); the text itself when nothing would be left."""
    words = [(m.start(), m.end(), (text_tokens(m.group()) or [""])[0]) for m in WORD.finditer(text)]
    tokens = [w[2] for w in words]
    typed = [text[a:b].lower() for a, b, _ in words]
    start, end = 0, len(words)
    while start < end and typed[start] in _LEAD_WORDS and RANKER.find(tokens, start) is None:  # "in context learning"
        start += 1
    while end > start and typed[end - 1] in _TRAIL_WORDS:
        end -= 1
    if start >= end:
        return text.strip()
    return text[words[start][0] : words[end - 1][1]]


def _not_a_unit(word: str) -> bool:
    return word in STOP_WORDS or len(word) < 2 or word.isdigit()


@functools.lru_cache(maxsize=4096)
def phrase_units(text: str) -> tuple[Unit, ...]:
    """The units of a member's short interest: its named terms and its other content words, in order, weighted
    (a named term 3, a broad one such as LLM 1, a generic word 0.3)."""
    units: dict[str, Unit] = {}
    for part in split_units(RANKER.key(interest_core(written_out(text))), RANKER, _not_a_unit):
        if part.term is not None:
            weight = 1.0 if part.term.name in BROAD_TERMS else NAMED_WEIGHT
        else:
            weight = GENERIC_WEIGHT if part.tokens[0] in GENERIC_WORDS else 1.0
        unit = Unit.of(part, weight)
        units.setdefault(unit.key, unit)
    return tuple(units.values())


def named_terms_text(text: str) -> str:
    """`text` with the named terms it holds only as acronyms or names spelled out ("MoE routing" -> "MoE routing
    (mixture of experts)"), for an embedding model that knows the spelled-out words better than an acronym."""
    key = f" {phrase_key(text)} "
    extra: list[str] = []
    for unit in phrase_units(text):
        if unit.named and f" {unit.key} " not in key:
            extra.append(_spelled()[unit.key])
    return f"{text} ({', '.join(extra)})" if extra else text


@functools.cache
def _spelled() -> dict[str, str]:
    return {phrase_key(forms[0]): forms[0] for forms in NAMED_TERMS}


# What follows ":" or stands in brackets details an interest ("deep RL algorithms: actor-critic, policy gradients";
# "LLM reasoning (chain-of-thought, math)"): examples or qualifiers, evidence for the interest but not all needed.
# "LLM agents, esp. tool use", "graph learning incl. GNNs", "RAG aka retrieval-augmented generation", "graph ML —
# GNNs, graph transformers": what follows such a mark, or a dash between spaces, details the interest too.
_DETAILS = re.compile(
    r":(.*)$|(?:,\s*|\s+)(?:esp|incl|e\.\s?g|eg|i\.\s?e|especially|including|particularly|notably|in particular"
    r"|such as|aka|a\.k\.a)\b\.?,?(.*)$|\s+(?:—|–|--?)\s+(.*)$",
    re.IGNORECASE,
)


def _split_details(text: str) -> tuple[str, list[str]]:
    """(the head: `text` without its details, the details in order). What stands in brackets is a detail, nested
    brackets included, and an unclosed bracket runs to the end ("LLM reasoning (CoT (chain-of-thought), math");
    then what follows a colon, a detail mark or a spaced dash."""
    head: list[str] = []
    parts: list[tuple[int, list[str]]] = []
    depth = 0
    for i, char in enumerate(text):
        if char == "(":
            if depth == 0:
                parts.append((i, []))
                head.append(" ")
            else:
                parts[-1][1].append(" ")
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
            if depth:
                parts[-1][1].append(" ")
        elif char == ")":
            head.append(" ")
        elif depth:
            parts[-1][1].append(char)
        else:
            head.append(char)
    outside = "".join(head)
    found = _DETAILS.search(outside)
    if found is not None:
        parts.append((found.start(), [next(g for g in found.groups() if g is not None)]))
        parts.sort(key=lambda part: part[0])
        outside = outside[: found.start()] + " "
    return outside, [t for t in ("".join(chars) for _, chars in parts) if t]


_DETAIL_WORDS = frozenset(
    phrase_key(w) for w in "incl including e g eg i e ie esp such as etc like especially particularly notably".split()
)
# Words that frame an interest or mark its details, which the corrector keeps as typed
# (`bot.ranking.interest_spelling`).
MARKS = _LEAD | _TRAIL | _DETAIL_WORDS
# A one-line interest is often a coordination: "jailbreak attacks and defenses for LLMs", "text-to-image generation
# and image/video editing", "test-time scaling / efficient reasoning". Each conjunct is a thing the member wants, so
# a paper about one of them is about the interest; what a preposition attaches ("for LLMs") goes with every one.
# The prepositions that put a topic in a setting ("jailbreaks for LLMs", "security of agents": `setting_units`), and
# the others, whose object is topic ("attacks on LLMs"); a head is split at any of them.
SCOPE_PREPOSITIONS = ("for", "in", "of")
TOPIC_PREPOSITIONS = ("on", "with", "via", "under", "to")
PREPOSITIONS = SCOPE_PREPOSITIONS + TOPIC_PREPOSITIONS
_PREPOSITION = re.compile(rf"\s+(?:{'|'.join(PREPOSITIONS)})\s+", re.IGNORECASE)
# the same split, a scope preposition captured (`re.split` gives None in its place for the others)
_SCOPE_PREPOSITION = re.compile(
    rf"\s+({'|'.join(SCOPE_PREPOSITIONS)})\s+|\s+(?:{'|'.join(TOPIC_PREPOSITIONS)})\s+", re.IGNORECASE
)
_CONJUNCTION = re.compile(r"\s*(?:,|&|/|(?<!\+)\+(?!\+)|\band\b|\bor\b|\bvs\b\.?|\bversus\b)\s*", re.IGNORECASE)
MAX_READINGS = 16  # more conjuncts than this make the interest a list, read whole


@dataclass(frozen=True, slots=True)
class InterestQuery:
    """A one-line interest as the lexical evidence to look for: its head (one or more alternatives, each a set of
    units a paper about the interest holds) and the units of its details (examples, qualifiers)."""

    alternatives: tuple[tuple[Unit, ...], ...]
    details: tuple[Unit, ...]
    # Two coordinated lone words ("vision and language") may be one concept or two interests: the day's papers
    # decide (`bot.ranking.one_line.written_as_compound`). `compounds` are those pairs, `joint` the alternatives
    # when every pair is one concept (the pair then one unit, its words written together).
    compounds: tuple[tuple[Unit, Unit], ...] = ()
    joint: tuple[tuple[Unit, ...], ...] = ()
    # Two plain words the member typed side by side in the head ("reward models", "domain adaptation"): a paper
    # holding both apart ("a reward ... the model") is less about the interest than one saying them together
    # (`bot.ranking.one_line.coverage`).
    together: tuple[tuple[Unit, Unit], ...] = ()
    # The setting a preposition gives the interest ("quantization of LLMs", "self-correction in LLMs / VLMs"): the
    # broad named terms of a segment after "for", "in" or "of" that the first segment does not name. The papers are
    # to be in that setting, which is no topic of its own: a paper on quantization of another model is more about
    # the interest than an LLM paper on something else (`bot.ranking.one_line.coverage`).
    scope: tuple[Unit, ...] = ()
    # Of `together`, the pairs the member joined with a hyphen ("memory-efficient", "simulation-based"): one word as
    # typed, so a paper holding the two apart holds less of the interest even on a day no paper writes them joined.
    hyphenated: tuple[tuple[Unit, Unit], ...] = ()


def is_coordination(text: str) -> bool:
    """The interest's head names several things ("X and Y", "X / Y", "X, Y"), each matched on its own."""
    return _CONJUNCTION.search(_split_details(written_out(text))[0]) is not None


def _lone_word(text: str, units: tuple[Unit, ...]) -> bool:
    """A conjunct that is one plain word ("video" of "image and video generation") shares the words around it;
    a named term, a hyphenated compound ("text-to-speech") or an acronym ("SLAM" of "NeRF / SLAM") is a whole thing."""
    word = text.strip()
    return len(units) == 1 and not units[0].named and "-" not in text and not (len(word) > 1 and word.isupper())


def _one_word(text: str) -> bool:
    """A conjunct typed as one word, hyphenated or not ("fact-checking"): a whole thing whose pieces are not lent."""
    return len(text.split()) == 1


def _spans_a_name(parts: list[tuple[str, tuple[Unit, ...]]]) -> tuple[Unit, ...] | None:
    """The units of the conjuncts read without their conjunctions when a named term runs across two of them
    ("vision and language models" -> vision-language model): the coordination is inside the name."""
    keys = [RANKER.key(interest_core(text)).split() for text, _ in parts]
    tokens = [t for k in keys for t in k]
    bounds = {sum(len(k) for k in keys[: i + 1]) for i in range(len(keys) - 1)}
    i = 0
    while i < len(tokens):
        found = RANKER.find(tokens, i)
        span = found[1] if found is not None else 1
        if found is not None and any(i < b < i + span for b in bounds):
            return phrase_units(" ".join(text for text, _ in parts))
        i += span
    return None


def compound_unit(first: Unit, second: Unit) -> Unit:
    """Two words as one unit, found where a text writes them together ("vision-language", "vision language"), next
    to each other: "a reward for large models" names no reward model (a name's words may stand apart, these not)."""
    words = (first.key, second.key)
    return Unit(" ".join(words), (words, ("".join(words),)), (), first.weight + second.weight, adjacent=True)


@dataclass(frozen=True, slots=True)
class _Segment:
    conjuncts: list[tuple[Unit, ...]]
    pair: tuple[Unit, Unit] | None = None  # a lone word and the first word of the next conjunct: one concept?
    rest: tuple[Unit, ...] = ()  # what follows the pair in the last conjunct ("navigation")


def _conjuncts(segment: str) -> _Segment:
    """The things a segment coordinates, each as units; a lone word borrows the head word of the last conjunct
    ("image and video generation" -> image generation, video generation) or else the first word of the first
    ("jailbreak attacks and defenses" -> jailbreak attacks, jailbreak defenses) when that has a word to lend (the
    one unit of "RL" in "RL and planning" is the whole conjunct, not a modifier). Two lone words alone ("vision
    and language", "vision and language navigation") are also returned as a pair: whether the two words name one
    thing (vision-language) or two is the corpus's to say."""
    parts = [(text, phrase_units(text)) for text in _CONJUNCTION.split(segment) if text.strip()]
    parts = [(text, units) for text, units in parts if units]
    if len(parts) < 2:
        return _Segment([units for _, units in parts])
    named = _spans_a_name(parts)
    if named:
        return _Segment([named])
    first, last = parts[0], parts[-1]
    out = []
    for k, (text, units) in enumerate(parts):
        if _lone_word(text, units):
            if k < len(parts) - 1 and not _lone_word(*last) and not _one_word(last[0]):
                units = units + last[1][-1:]
            elif k > 0 and len(first[1]) > 1 and not _lone_word(*first) and not _one_word(first[0]):
                # "RL and planning": RL lends nothing; nor does a hyphenated word ("fact-checking and
                # misinformation" is no "fact misinformation")
                units = first[1][:1] + units
        out.append(tuple(dict((u.key, u) for u in units).values()))
    if len(parts) == 2 and _lone_word(*first):  # "vision and language (navigation)": vision-language?
        lead = last[1][0]
        if not lead.named:
            return _Segment(out, (first[1][0], lead), last[1][1:])
        word = RANKER.key(interest_core(last[0])).split()[0]  # "speech and language models": speech-language?
        return _Segment(out, (first[1][0], Unit(word, ((word,),))), last[1])
    return _Segment(out)


def _product(segments: list[list[tuple[Unit, ...]]], head: str) -> list[tuple[Unit, ...]]:
    readings: list[tuple[Unit, ...]] = [()]
    for conjuncts in segments:
        readings = [r + c for r in readings for c in conjuncts]
        if len(readings) > MAX_READINGS:
            whole = phrase_units(head)
            return [whole] if whole else []
    return [tuple(dict((u.key, u) for u in r).values()) for r in readings if r]


def _readings(head: str) -> list[tuple[Unit, ...]]:
    """Every thing a coordinated head names, each as the units a paper about it holds: one conjunct of each
    segment between prepositions ("KV cache compression and efficient attention kernels for inference" ->
    [KV cache, compression, inference], [efficient, attention, kernel, inference])."""
    return _read(head)[0]


def _read(head: str) -> tuple[list[tuple[Unit, ...]], list[tuple[Unit, Unit]], list[tuple[Unit, ...]]]:
    """(readings, the pairs of lone words, the readings when every pair is one concept)."""
    segments = [s for s in (_conjuncts(part) for part in _PREPOSITION.split(head)) if s.conjuncts]
    readings = _product([s.conjuncts for s in segments], head)
    pairs = [s.pair for s in segments if s.pair is not None]
    if not pairs:
        return readings, [], []
    joint = [[(compound_unit(*s.pair), *s.rest)] if s.pair else s.conjuncts for s in segments]
    return readings, pairs, _product(joint, head)


def typed_pairs(head: str) -> tuple[tuple[Unit, Unit], ...]:
    """The pairs of plain words typed side by side in a head, within one conjunct (nothing between them, not even
    a function word): "domain adaptation / domain generalization" -> (domain, adaptation), (domain,
    generalization); a named term is whole already, "learning from demonstrations" holds no pair, and neither does a
    generic first word ("learning-based control", "model merging"), which says little of what follows it."""
    out: dict[tuple[str, str], tuple[Unit, Unit]] = {}
    for segment in _PREPOSITION.split(head):
        for piece in _CONJUNCTION.split(segment):
            parts = split_units(RANKER.key(interest_core(piece)), RANKER, lambda word: False)
            for first, second in pairwise(parts):
                plain = first.term is None and second.term is None and first.tokens[0] not in GENERIC_WORDS
                if plain and not _not_a_unit(first.tokens[0]) and not _not_a_unit(second.tokens[0]):
                    a, b = Unit.of(first), Unit.of(second)
                    out.setdefault((a.key, b.key), (a, b))
    return tuple(out.values())


def _ends_broad(units: tuple[Unit, ...]) -> bool:
    """Whether a broad term is the head of these units (the last but generic words: "aligning LLMs", "LLM-based
    systems"), not a word naming the kind of the head ("LLM agents")."""
    content = [u for u in units if u.weight != GENERIC_WEIGHT]
    return bool(content) and content[-1].named and content[-1].key in BROAD_TERMS


def setting_units(head: str) -> tuple[Unit, ...]:
    """The broad named terms (LLM, VLM, RL, ...) a head puts its topic in with "for", "in" or "of" ("jailbreak
    attacks for LLMs", "bias in LLM-based systems"), when every conjunct of that segment ends in one (beside generic
    words) and the first segment names none of them ("LLMs for RL": the LLM is the topic). A broad term naming the
    kind of a thing is no setting: "memory for LLM agents" is about agents' memory, "LLM agents" the thing, not
    memory for agents in LLMs. Nothing when no other word would be left."""
    pieces = _SCOPE_PREPOSITION.split(head)
    first = {u.key for u in phrase_units(pieces[0])}
    out: dict[str, Unit] = {}
    for k in range(1, len(pieces) - 1, 2):
        if pieces[k] is None:  # another preposition ("on", "with"): what it attaches is topic
            continue
        conjuncts = [phrase_units(text) for text in _CONJUNCTION.split(pieces[k + 1]) if text.strip()]
        conjuncts = [units for units in conjuncts if units]
        broad = [[u for u in units if u.named and u.key in BROAD_TERMS] for units in conjuncts]
        if conjuncts and all(broad) and all(map(_ends_broad, conjuncts)):
            out.update((u.key, u) for units in broad for u in units if u.key not in first)
    if not out:
        return ()
    rest = {u.key for u in phrase_units(head)} - set(out)
    return tuple(out.values()) if rest else ()


_DANGLING = re.compile(
    r"\s*\b(?:for|in|of)\b(?:\s*(?:/|,|&|\band\b|\bor\b))*\s*(?=$|[():;,]|\s[-–—]\s|\s*\b(?:for|in|of)\b)"
    r"|\s*(?:/|&|,)\s*(?=$|[():;]|\s[-–—]\s)",
    re.IGNORECASE,
)


def without_setting(text: str) -> str:
    """`text` without the setting its interest names (`InterestQuery.scope`) and the preposition left dangling
    ("quantization of LLMs (low-bit)" -> "quantization (low-bit)"): what the interest is about, for meaning."""
    scope = interest_query(text).scope
    if not scope:
        return text
    forms = sorted({form for unit in scope for form in unit.forms}, key=len, reverse=True)
    words = [(m.start(), m.end(), (text_tokens(m.group()) or [""])[0]) for m in WORD.finditer(text)]
    cuts: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        form = next((f for f in forms if tuple(w[2] for w in words[i : i + len(f)]) == f), None)
        if form is None:
            i += 1
            continue
        cuts.append((words[i][0], words[i + len(form) - 1][1]))
        i += len(form)
    out, last = [], 0
    for start, end in cuts:
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    previous, left = None, "".join(out)
    while previous != left:
        previous, left = left, _DANGLING.sub(" ", left)
    left = re.sub(r"\s+([),:;])", r"\1", re.sub(r"\(\s+", "(", re.sub(r"\s+", " ", left))).strip()
    return left if WORD.search(left) else text


def examples(text: str) -> list[tuple[Unit, ...]]:
    """The things an interest's details name, each read as a head ("post-hoc XAI (SHAP, saliency maps)" ->
    [shap], [saliency, map]): what an avoid phrase lists as examples is avoided too."""
    out: list[tuple[Unit, ...]] = []
    for part in _split_details(written_out(text))[1]:
        for item in re.split(r"[,;]", part):
            readings = (tuple(u for u in r if u.key not in _DETAIL_WORDS) for r in _readings(item))
            out += [r for r in readings if r]
    return out


@functools.lru_cache(maxsize=4096)
def interest_query(text: str) -> InterestQuery:
    """Read a one-line interest as a head and details: the head's alternatives are the things it coordinates
    ("LLM pruning / compression (low-bit)" -> alternatives [LLM, pruning] and [LLM, compression], details
    [low, bit]); shorthand is read as written out (`written_out`)."""
    text = written_out(text)
    head_text, parts = _split_details(text)
    details_text = " ".join(parts)
    alternatives, pairs, joint = _read(interest_core(head_text)) if head_text.strip() else ([], [], [])
    head_keys = {u.key for units in alternatives for u in units}
    details = (
        tuple(u for u in phrase_units(details_text) if u.key not in head_keys and u.key not in _DETAIL_WORDS)
        if details_text.strip()
        else ()
    )
    together = typed_pairs(interest_core(head_text)) if head_text.strip() else ()
    joined = _joined_forms(together)
    if joined:
        alternatives = [tuple(_with_forms(u, joined) for u in units) for units in alternatives]
        joint = [tuple(_with_forms(u, joined) for u in units) for units in joint]
        together = tuple((_with_forms(a, joined), _with_forms(b, joined)) for a, b in together)
    scope = setting_units(interest_core(head_text)) if head_text.strip() else ()
    typed = {(phrase_key(a), phrase_key(b)) for a, b in _HYPHENATED.findall(head_text)}
    hyphenated = tuple((a, b) for a, b in together if (a.key, b.key) in typed)
    return InterestQuery(tuple(alternatives), details, tuple(pairs), tuple(joint), together, scope, hyphenated)


_HYPHENATED = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z']*)-([A-Za-z][A-Za-z']*)(?![\w-])")


def _joined_forms(pairs: tuple[tuple[Unit, Unit], ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """By word, the one word a paper may write a pair it is typed in as ("multi task": "multitask"; "time series":
    "timeseries"): a paper writing that holds both words, side by side."""
    out: dict[str, tuple[tuple[str, ...], ...]] = {}
    for first, second in pairs:
        word = first.key + second.key
        for unit in (first, second):
            out[unit.key] = (*out.get(unit.key, ()), (word,))
    return out


def _with_forms(unit: Unit, joined: dict[str, tuple[tuple[str, ...], ...]]) -> Unit:
    extra = tuple(form for form in joined.get(unit.key, ()) if form not in unit.forms)
    return dataclasses.replace(unit, forms=(*unit.forms, *extra)) if extra and not unit.named else unit
