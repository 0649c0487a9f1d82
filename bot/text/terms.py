"""The topic vocabulary: words, named terms, and how a short phrase breaks into units found in a text.

One place for what the ranker (one-line interests: `bot.ranking.interest_units`, `bot.ranking.rank`) and the questions
and /search (`bot.questions.topics`) need to tell whether a text is about a short phrase:

- words: `text_tokens` (lowercase, no diacritics, hyphens split, plurals folded) and `same_word` (one word in any
  inflection: "modeling" ~ "model", "quantized" ~ "quantization");
- named terms: one thing however it is written ("mixture of experts", "MoE", "Mixture-of-Experts"; "state space
  model", "SSM", "Mamba"), looked up in a `TermTable`;
- units: a phrase ("sparse mixture-of-experts", "LLM hallucination") is read as units, each named term it contains
  one unit and every other content word another (`split_units`). A text is about the phrase when it holds every
  unit; a named term only counts whole (the "mixture" of "Linear Mixture MDPs" is not part of "mixture of
  experts"). A unit is found in a text (`Unit.where`, `UnitIndex` for a whole day) in any inflection of its words,
  with up to two words inside a name ("Mixture of Low-Rank Experts"), a word joined in front of it ("Hypergraph
  Neural Networks") and an acronym ending a longer name ("CoMoE", "GraphRAG", "RiverMamba").

The two readers share all of it except, on purpose, one row of named terms (`QUESTION_SYNONYMS`: for a question
"language model" = LLM, for a member's interest not; tables `RANKER` and `QUESTIONS`), the words that are never
units (a member's framing words, `bot.ranking.interest_units`; a question's filler, `bot.questions.topics.FILLER`) and
how units are weighed (by what they say of a topic; by their rarity in the archive).
"""

from __future__ import annotations

import functools
import importlib.util
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import snowballstemmer

# ---------------------------------------------------------------- words


# Singulars ending in "s" whose folding would meet no plural of theirs: "bias" -> "bia" is no "biases" -> "bias"
# (and too short to be matched inflected, `same_word`), "news" -> "new" another, common, word. Longer ones fold
# harmlessly, the same in texts and keywords ("series" -> "sery", "species" -> "specy").
_SINGULAR_IN_S = frozenset({"bias", "lens", "news"})


def _fold(token: str) -> str:
    # Crude plural folding, applied identically to texts and keywords, so "experts" ~ "expert", "MoEs" ~ "MoE".
    if token in _SINGULAR_IN_S:
        return token
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("ses", "xes", "zes", "ches", "shes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def _plain(text: str) -> str:
    if text.isascii():  # most titles and abstracts: NFKD leaves ASCII as it is and no character combines
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


WORD = re.compile(r"[^\W_]+")  # a word, as `text_tokens` splits a text
# An "&" between short pieces with no space is part of an abbreviation ("Q&A", "R&D", "AT&T"), not a conjunction.
_AMPERSAND_INSIDE = re.compile(r"(?<![^\W_])([^\W_]{1,3})&(?=[^\W_]{1,3}(?![^\W_]))")
# So is a "/" between two single letters ("A/B testing", "I/O"): no alternative is a letter alone. Not "w/o"
# ("without", read by the interests' shorthand) nor a slash between words ("CPU/GPU": either).
_SLASH_INSIDE = re.compile(r"(?<![^\W_])(?!w/o(?![^\W_]))([^\W\d_])/(?=[^\W\d_](?![^\W_]))", re.IGNORECASE)


def joined_abbreviations(text: str) -> str:
    """`text` with each abbreviation written with "&" or "/" written as one word ("Q&A" -> "QA", "R&D" -> "RD",
    "A/B" -> "AB"), as `text_tokens` reads it; an "&" or "/" between words or spaces stays ("RL & planning",
    "vision&language", "CPU/GPU"), and so does "w/o"."""
    if "&" in text:
        text = _AMPERSAND_INSIDE.sub(r"\1", text)
    return _SLASH_INSIDE.sub(r"\1", text) if "/" in text else text


def plain_lower(text: str) -> str:
    """`text` lowercase and diacritic-free, as `text_tokens` reads it before folding plurals."""
    return joined_abbreviations(_plain(text).lower())


# the full-text index's stemmer (its tokenizer is 'porter unicode61'): a word's index term is INDEX_STEMMER.stemWord(w)
INDEX_STEMMER = snowballstemmer.stemmer("porter")


def text_tokens(text: str) -> list[str]:
    """Lowercase, diacritic-free, plural-folded word tokens; hyphens and punctuation separate words, and an
    abbreviation written with "&" or "/" is one word (`joined_abbreviations`)."""
    return [_fold(t) for t in WORD.findall(joined_abbreviations(_plain(text).lower()))]


def title_words(title: str) -> tuple[set[str], set[str]]:
    """A title's words, each once: as `text_tokens` reads them (plural-folded) and as written (lower case,
    diacritic-free, not folded: "robotics", "series")."""
    written = set(WORD.findall(plain_lower(title)))
    return {_fold(t) for t in written}, written


def titles_words(titles: Sequence[str]) -> list[tuple[set[str], set[str]]]:
    """`title_words` of each title, each distinct word folded once: an archive's titles repeat most of their words
    (48,000 titles write 600,000 words, a tenth of them distinct), so counting every stored title costs less."""
    written = [set(WORD.findall(plain_lower(title))) for title in titles]
    folds = {word: _fold(word) for word in set().union(*written)}
    return [(set(map(folds.__getitem__, words)), words) for words in written]


def phrase_key(phrase: str) -> str:
    """The normalised form a keyword is matched by ("Mixture-of-Experts" -> "mixture of expert")."""
    return " ".join(text_tokens(phrase))


INFLECTIONS = frozenset({"", "e", "s", "es", "ed", "d", "ing", "er", "ers", "ling", "led"})
DERIVATIONS = INFLECTIONS | frozenset(
    """ation ations ization izations ize izes ized izing izer izers al ally ly ity ic ical ive ion ions ment ments
    ness y or ors atory""".split()
)
# a word's last "e" or "y" gives way to "-ial" ("finance" ~ "financial", "industry" ~ "industrial"); after other
# letters "-ial" makes another word ("different" / "differential", "exponent" / "exponential")
_IAL = (frozenset({"e", "y"}), frozenset({"ial", "ially"}))
MIN_STEM = 6  # letters a derivation's stem has: "optim" of "optimal" and "optimization" is too short to be one word
_VOWELS = frozenset("aeiou")
_NEGATIONS = ("un", "non", "in", "im", "il", "ir", "dis", "de", "anti", "a")


def _british(word: str) -> str:
    return re.sub(r"is(ation|ations|e|es|ed|ing|er|ers)$", r"iz\1", word)


# The endings of an agent noun: "optimizer", "transformer", "generator" name a thing, not the act or field
# ("optimization", "transforming", "generation") nor the verb's forms; the act's words may still name the thing
# ("routing" ~ "router")
AGENT_ENDINGS = frozenset({"er", "ers", "or", "ors"})


def agent_noun(word: str, base: str) -> bool:
    """Whether `word` names the doer of `base` ("adapter" of "adapt", "recommender" of "recommend", "optimizer" of
    "optimization"): past the letters they share, `word` ends as an agent noun and `base` does not."""
    n = common_prefix(word, base)
    return word[n:] in AGENT_ENDINGS and base[n:] not in AGENT_ENDINGS


def same_word(word: str, token: str, exact: bool = False, related: bool = False) -> bool:
    """`token` is `word` or an inflection of it: "model" ~ "modeling", "sparse" ~ "sparsely", "quantization" ~
    "quantized"; never "continual" ~ "continuous" or "optimization" ~ "optimal", and an agent noun only as itself
    ("optimizer" is no "optimization"). With `exact`, inflections only, no derivation; with `related`, an agent noun
    also matches the act's words ("optimizer" ~ "optimization": a paper on SGD may say only that). Words under four
    letters (acronyms) match exactly."""
    if word == token:
        return True
    if len(word) < 4 or len(token) < 4 or word[:2] != token[:2]:
        return False
    return _inflected(word, token, exact, related)


@functools.lru_cache(maxsize=1 << 16)
def _inflected(word: str, token: str, exact: bool = False, related: bool = False) -> bool:
    # the same few words meet the same tokens across a question's candidates: worth remembering
    word, token = _british(word), _british(token)
    n = common_prefix(word, token)
    a, b = word[n:], token[n:]
    if not related and agent_noun(word, token):
        return False
    if n >= 4 and a in INFLECTIONS and b in INFLECTIONS:
        return True
    if exact:
        return False
    if _derived(word, token, n, related) or _derived(*_reduced(word, token, n), related):
        return True
    if (family := _adjective_noun(word)) is not None and family == _adjective_noun(token):
        return True  # "reproducible" ~ "reproducibility", "scalable" ~ "scalability": an adjective and its own noun
    # an "-able" adjective and its "-ability" noun are derived from the verb ("explainable", "explainability" from
    # "explain", as "explanation" is): compared by that verb, but not with the verb itself or its inflections, whose
    # sense an "-able" word often leaves ("reasonable" is no "reasoning", "comparable" no "comparing")
    stem, token_stem = _ABLE.sub("", word), _ABLE.sub("", token)
    if stem != word and token_stem != token and len(stem) >= MIN_STEM and stem == token_stem:
        return True  # one "-able" family ("identifiable", "identifiability"), whatever its verb
    verb, other = _able_verb(word), _able_verb(token)
    if verb == word and other == token:
        return False
    if (verb == word) != (other == token) and _inflected(verb, other, exact=True):
        return False
    return verb == other or _inflected(verb, other, exact, related)


def _derived(word: str, token: str, n: int, related: bool) -> bool:
    if n < MIN_STEM:
        return False
    a, b = word[n:], token[n:]
    if word[n - 1] == "i" and "al" in (a[:2], b[:2]):
        # "-ial" is one ending: "differenti-al" is "different" + "ial" (`_IAL`), no derivation of "differenti-able"
        # ("differentiate" with its "-ate" left out)
        n -= 1
        a, b = word[n:], token[n:]
    if a in AGENT_ENDINGS and b not in AGENT_ENDINGS and not related:
        return False  # as in `_inflected`, also where a vowel left out moved the stem's end ("explainer")
    return (a in DERIVATIONS and b in DERIVATIONS) or any(a in x and b in y for x, y in (_IAL, _IAL[::-1]))


def _reduced(word: str, token: str, n: int) -> tuple[str, str, int]:
    # a vowel pair of the stem is written as its first vowel before some endings ("explain" -> "explanation",
    # "behaviour" -> "behavior"): the two compared with that vowel left out
    if 0 < n < min(len(word), len(token)) and word[n - 1] in _VOWELS:
        if word[n] in _VOWELS and token[n] not in _VOWELS:
            word = word[:n] + word[n + 1 :]
        elif token[n] in _VOWELS and word[n] not in _VOWELS:
            token = token[:n] + token[n + 1 :]
    return word, token, common_prefix(word, token)


# an "-able" or "-ible" adjective, its "-ability" / "-ibility" noun and its "-ably" / "-ibly" adverb: one word's forms
# whatever the stem's length ("scalable", "scalability"; "reproducible", "reproducibility"), unlike its verb
# (`_able_verb`); not an everyday adjective (EVERYDAY_COUNT), whose noun often names something else ("available" of
# anything is no "availability", "stable" no "stability", "variable" no "variability")
_ADJECTIVE_NOUN = re.compile(r"^(\w{2,}?)(a|i)(?:bility|ble|bly)s?$")


def _adjective_noun(word: str) -> tuple[str, str] | None:
    """The stem and vowel of an "-able" / "-ible" word's family ("reproduc", "i"), None for another word or an
    everyday adjective's or adverb's."""
    found = _ADJECTIVE_NOUN.match(word)
    # the family is everyday when its adjective or its adverb is: "probable" is rare, "probably" is not, and says
    # nothing of a probability
    stem = f"{found.group(1)}{found.group(2)}" if found else ""
    if not found or max(english_count(f"{stem}ble"), english_count(f"{stem}bly")) >= EVERYDAY_COUNT:
        return None
    return found.group(1), found.group(2)


_ABLE = re.compile(r"(?:ability|able|ably)$")  # "-ible" words are seldom their stem's ("possible", "responsible")
# An "-able" word this common in English (its list's 9,000 most common words) is a word of everyday use with a sense
# of its own ("considerable", "reasonable", "comparable", "valuable"); the rarer ones keep their verb's
# ("explainable", "generalizable", "detectable", "scalable").
EVERYDAY_COUNT = 5_000_000


def _able_verb(word: str) -> str:
    # the verb an "-able" / "-ability" / "-ably" word is read by: an English word, as left or with what "-able" took
    # off it ("scal-e", "integr-ate", "control-l"); else the word itself
    stem = _ABLE.sub("", word)
    if stem == word or len(stem) < MIN_STEM or english_count(stem + "able") >= EVERYDAY_COUNT:
        return word
    if stem.endswith(("iz", "is")):
        return stem + "e"  # "-ize" makes verbs at will ("reparameterize"), more than any word list holds
    undoubled = stem[:-1] if stem[-1] == stem[-2] and stem[-1] not in _VOWELS else stem
    return next((v for v in (stem, stem + "e", stem + "ate", undoubled) if is_english_word(v)), word)


def common_prefix(a: str, b: str) -> int:
    """How many letters `a` and `b` share from their start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


ENGLISH_LIST = "frequency_dictionary_en_82_765.txt"  # bundled with symspellpy, a dependency of paperscout


def english_list_path() -> Path | None:
    """Where symspellpy's English frequency list is (a word and its count a line), found without importing symspellpy;
    None when symspellpy or its list is missing (every word would then pass as a compound of papers and as a typo to
    correct: `open_core` refuses to start)."""
    spec = importlib.util.find_spec("symspellpy")
    path = Path(spec.origin).parent / ENGLISH_LIST if spec is not None and spec.origin else None
    return path if path is not None and path.is_file() else None


@functools.cache
def _english_text() -> str:
    path = english_list_path()
    if path is None:
        raise FileNotFoundError(f"symspellpy's English word list {ENGLISH_LIST} is missing")
    return "\n" + path.read_text(encoding="utf-8").rstrip("\n") + "\n"  # every line ends, the last one too


@functools.cache
def _english_counts() -> dict[str, str]:
    """symspellpy's English list as a dict from each word to its count as written."""
    fields = iter(_english_text().split())
    return dict(zip(fields, fields, strict=True))


def _searched_count(word: str) -> int:
    """`word`'s count found by one search of the list's text (no dict built)."""
    text = _english_text()
    start = text.find(f"\n{word} ")
    if start < 0:
        return 0
    start += len(word) + 2
    return int(text[start : text.find("\n", start)])


# Distinct words looked up by searching the list's text before its dict is built. A search costs ~1 ms, the dict
# ~0.05-0.2 s (with the machine's load): a question looks up a dozen words, a day's index or an ingest thousands.
SEARCHED_WORDS = 64


@functools.lru_cache(maxsize=1 << 14)
def english_count(word: str) -> int:
    """How often `word` occurs in the corpus of symspellpy's English word list (0 when it is no word of the list): a
    search of the list's text for a command's first SEARCHED_WORDS words, a dict of its counts built once after."""
    if english_count.cache_info().currsize < SEARCHED_WORDS:
        return _searched_count(word)
    return int(_english_counts().get(word, 0))


def english_words() -> Iterable[str]:
    """Every word of symspellpy's English word list."""
    return _english_counts().keys()


def is_english_word(word: str) -> bool:
    """Whether `word` is in symspellpy's English word list (a real word is never a typo to correct, nor a compound)."""
    return english_count(word) > 0


# What English joins in front of a word to make a part, a kind or a combination of it ("sub" + "space", "multi" +
# "layer", "inter" + "agent") or to place it in a field ("bio" + "medical", "spatio" + "temporal"): its prefixes of
# number, part and relation and its neoclassical stems of a field. A linguistic, closed class, no word in it for one
# topic. Prefixes of size and degree are not in it: in the English words they make they grade the word or name another
# thing ("microphone", "ultrasound", "supervision", "hypertension", "ecosystem").
_PREFIXES = frozenset(
    """multi poly mono bi tri uni omni semi sub intra meta pseudo bio geo neuro spatio electro hydro thermo astro
    psycho socio cyber cardio immuno opto aero agro techno physico""".split()
)
# "sub" before an adjective grades it: "suboptimal" is below optimal, not a kind of it (as "subspace" is of space)
_GRADED = re.compile(r"(?:al|ic|ive|ous|ar|ent|ant|able|ible)$")
# Prefixes of relation, time and self are left out too: the English words they make are mostly words of their own,
# however rare ("intersection", "interchange", "transformer", "transplant", "automobile", "preposition",
# "photosynthesis").


# A compound in the English word list keeps the word's sense when it is much rarer than the word alone, a
# specialisation of it ("biomedical" 0.03 of "medical", "subspace" 0.006 of "space"); a word of its own that merely
# begins with a prefix is about as common as the word ("supervision" 0.23 of "vision", "preserving" 0.12 of "serving",
# "interaction" 0.12 of "action", "covariance" 0.17 of "variance").
JOINED_SHARE = 0.1


JOINED_MIN = 5  # letters a word has for another joined in front of it to leave it standing (`joined_to`)


def joined_to(word: str, token: str) -> bool:
    """`token` is `word` with another word joined in front ("hypergraph" for "graph"), not a negation of it nor an
    English word of its own that merely ends in the same letters ("transport" is no "sport", "supervision" no
    "vision"): the compounds papers coin ("hypergraph", "pretraining", "multimodal") are in no English word list, and
    those it holds are a prefix joined to the word and far rarer than it ("biomedical", "multilayer", "subspace")."""
    if len(word) < JOINED_MIN or len(token) < len(word) + 2 or not token.endswith(word):
        return False
    front = token[: -len(word)]
    if front in _NEGATIONS:
        return False
    count = english_count(token)
    if not count:
        return True
    if front not in _PREFIXES or (front == "sub" and _GRADED.search(word)):
        return False
    return count < JOINED_SHARE * english_count(word)


def taken_as(tokens: Sequence[str], i: int) -> bool:
    """Whether `tokens[i]`, standing for a word naming an activity ("serving", "modeling"), is its verb saying what
    something is taken as ("serves as a benchmark", "is modeled as an MDP"): no mention of the activity. The "-ing"
    form before "as" is that verb's participle where no noun phrase can end before it: first, or after a form of
    "be", a conjunction or an adverb ("is serving as", "and serving as", "generally serving as"); after a modifier,
    a verb or a preposition it names the activity ("LLM serving as a queue", "cast decoding as", "of training as")."""
    if i + 1 >= len(tokens) or tokens[i + 1] != "as":
        return False
    if not tokens[i].endswith("ing"):
        return True
    before = tokens[i - 1] if i else ""
    return not before or before in _OPENS_PARTICIPLE or (before.endswith("ly") and is_english_word(before[:-2]))


# Words after which an "-ing" form opens a participle phrase, not a noun phrase: the forms of "be", the conjunctions
# and the adverbs of sequence and frequency not ending in "-ly" (closed classes of English)
_OPENS_PARTICIPLE = frozenset(
    "is are was were be been being am and or but nor yet also thus hence thereby while whilst often still".split()
)


def starts_as(word: str, token: str, exact: bool = False, related: bool = False) -> bool:
    """`token` may be the first word of a name whose first word is `word`: the word inflected (`same_word`), or
    (unless `exact`) with another word joined in front."""
    return same_word(word, token, exact, related) or (not exact and joined_to(word, token))


@functools.cache
def ending_pattern(acronyms: tuple[str, ...]) -> re.Pattern[str] | None:
    """Where an acronym, case as written, ends a longer name ("GraphRAG", "VRAG-RL", "CoMoE") or is written as a
    plural ("GPs"): a pattern to search a text or one word of it with."""
    if not acronyms:
        return None
    alternatives = "|".join(re.escape(a) for a in sorted(acronyms, key=len, reverse=True))
    return re.compile(rf"(?:[^\W_](?:{alternatives})s?|(?<![^\W_])(?:{alternatives})s)(?![^\W_])")


def _holds(pattern: re.Pattern[str], acronyms: tuple[str, ...], text: str) -> bool:
    # a substring test first: most texts hold none of the acronyms, and the pattern has no literal to start from
    return any(a in text for a in acronyms) and pattern.search(text) is not None


@dataclass(frozen=True, slots=True)
class Text:
    """A text as folded tokens, with the words as written (for acronyms inside method names)."""

    tokens: tuple[str, ...]
    raw: tuple[str, ...]
    joined: str  # the tokens, then the raw words, as one string: most forms are ruled out by a substring test

    @staticmethod
    def of(text: str) -> Text:
        """Tokenise `text` (lower case, no diacritics, plurals folded) keeping each word as written."""
        return _text_of(text)


# A question's alternatives read the same paper's text one after another (fifteen for "any theory papers?"): the
# few texts read last are tokenised once. Texts are immutable, so sharing them is safe.
@functools.lru_cache(maxsize=64)
def _text_of(text: str) -> Text:
    plain = _plain(text)
    tokens = tuple(text_tokens(plain))
    raw = tuple(WORD.findall(plain))
    raw = raw if len(raw) == len(tokens) else tokens
    return Text(tokens, raw, " ".join(tokens) + "\n" + " ".join(raw))


MAX_GAP = 2  # words a text may put inside a name ("mixture of [low-rank] experts")


def form_spans(
    form: Sequence[Callable[[str], bool]], tokens: Sequence[str], starts: Iterable[int], gap: int = MAX_GAP
) -> list[tuple[int, int]]:
    """(first, last) positions where a name's words follow each other in `tokens` with at most `gap` words
    between them, starting at `starts` (the positions where its first word is); `form[k]` tells a token standing
    for word k."""
    found: list[tuple[int, int]] = []
    for i in starts:
        position = i
        for stands_for in form[1:]:
            limit = min(len(tokens), position + 2 + gap)
            position = next((j for j in range(position + 1, limit) if stands_for(tokens[j])), -1)
            if position < 0:
                break
        if position >= 0:
            found.append((i, position))
    return found


# ---------------------------------------------------------------- named terms

# Each entry: the forms of one term, the spelled-out one first. A form with a capital letter and no space is an
# acronym or a name: written so in papers, it also counts at the end of a longer name ("GraphRAG", "RiverMamba").
NAMED_TERMS: tuple[tuple[str, ...], ...] = (
    ("mixture of experts", "MoE"),
    ("large language model", "LLM"),
    ("language model", "LM"),
    ("small language model", "SLM"),
    ("vision language model", "VLM"),
    ("multimodal large language model", "MLLM", "multimodal LLM"),
    ("vision language action model", "VLA", "vision language action"),
    ("reinforcement learning", "RL"),
    ("reinforcement learning from human feedback", "RLHF"),
    ("multi agent reinforcement learning", "MARL"),
    ("direct preference optimization", "DPO"),
    ("proximal policy optimization", "PPO"),
    ("group relative policy optimization", "GRPO"),
    ("graph neural network", "GNN", "graph neural"),
    ("graph convolutional network", "GCN"),
    ("convolutional neural network", "CNN"),
    ("recurrent neural network", "RNN"),
    ("long short term memory", "LSTM"),
    ("key value cache", "KV cache"),
    ("low rank adaptation", "LoRA"),
    ("parameter efficient fine tuning", "PEFT"),
    ("in context learning", "ICL"),
    ("chain of thought", "CoT"),
    ("sparse autoencoder", "SAE"),
    ("variational autoencoder", "VAE"),
    ("generative adversarial network", "GAN"),
    ("retrieval augmented generation", "RAG", "retrieval augmented"),
    ("state space model", "SSM", "Mamba", "state space"),
    ("vision transformer", "ViT"),
    ("diffusion transformer", "DiT"),
    ("neural radiance field", "NeRF"),
    ("gaussian splatting", "3DGS"),
    ("physics informed neural network", "PINN", "physics informed"),
    ("neural architecture search", "NAS"),
    ("out of distribution", "OOD"),
    ("natural language processing", "NLP"),
    ("automatic speech recognition", "ASR"),
    ("text to speech", "TTS"),
    ("knowledge graph", "KG"),
    ("optical character recognition", "OCR"),
    ("stochastic gradient descent", "SGD"),
    ("bayesian optimization", "BO"),
    ("gaussian process", "GP"),
    ("neural tangent kernel", "NTK"),
    ("markov decision process", "MDP"),
    ("partially observable markov decision process", "POMDP"),
    ("monte carlo tree search", "MCTS"),
    ("supervised fine tuning", "SFT"),
    ("reinforcement learning with verifiable reward", "RLVR"),
    ("process reward model", "PRM"),
    ("contrastive language image pretraining", "CLIP"),
    ("fourier neural operator", "FNO"),
    ("neural ordinary differential equation", "neural ODE"),
    ("partial differential equation", "PDE"),
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

# What a question reads as one thing and a member's interest does not: a question about language models asks
# about LLMs too ("Diffusion Language Models" for a question about LLMs, "LLM" titles for one about language
# models), while a member interested in language models is not asking for every LLM paper. A row sharing a
# spelling with a row of NAMED_TERMS joins it.
QUESTION_SYNONYMS: tuple[tuple[str, ...], ...] = (("large language model", "language model", "LM"),)


@dataclass(frozen=True, slots=True)
class Term:
    """A named term: its canonical spelling, every spelling as tokens, and its acronyms and names as written."""

    name: str
    spellings: tuple[tuple[str, ...], ...]
    acronyms: tuple[str, ...]


def _is_acronym(form: str) -> bool:
    return " " not in form and any(c.isupper() for c in form)


def merged(rows: Sequence[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
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


class TermTable:
    """Named terms by spelling: which term a run of tokens spells, the longest spelling first."""

    def __init__(self, rows: Sequence[tuple[str, ...]]) -> None:
        """`rows` as in NAMED_TERMS. A term is also written in the spellings of the terms that name it inside theirs
        ("reinforcement learning" is also written "RLHF" or "MARL"), while a phrase reads a spelling as the term of
        its own row ("RLHF" is reinforcement learning from human feedback)."""
        terms = [
            Term(
                phrase_key(row[0]),
                tuple(dict.fromkeys(tuple(text_tokens(s)) for s in row)),
                tuple(s for s in row if _is_acronym(s)),
            )
            for row in rows
        ]
        owners: dict[tuple[str, ...], str] = {}
        for term in terms:  # the first row naming a spelling owns it
            for spelling in term.spellings:
                owners.setdefault(spelling, term.name)
        by_name = {t.name: self._with_narrower(t, terms) for t in terms}
        self.by_spelling = {spelling: by_name[name] for spelling, name in owners.items()}
        self.longest = max(len(s) for s in self.by_spelling)

    @staticmethod
    def _with_narrower(term: Term, terms: Sequence[Term]) -> Term:
        spellings, acronyms = list(term.spellings), list(term.acronyms)
        for other in terms:
            if other.name != term.name and f" {term.name} " in f" {other.name} ":
                spellings += other.spellings
                acronyms += other.acronyms
        return Term(term.name, tuple(dict.fromkeys(spellings)), tuple(dict.fromkeys(acronyms)))

    def find(self, tokens: Sequence[str], start: int) -> tuple[Term, int] | None:
        """The named term spelled at `tokens[start:]` by its longest spelling there, and how many tokens it spans."""
        for n in range(min(self.longest, len(tokens) - start), 0, -1):
            term = self.by_spelling.get(tuple(tokens[start : start + n]))
            if term is not None:
                return term, n
        return None

    def spells(self, tokens: Sequence[str]) -> bool:
        """True when `tokens` are a whole spelling of a named term ("ssm", "rag")."""
        return tuple(tokens) in self.by_spelling

    def key(self, phrase: str) -> str:
        """`phrase_key` with plural acronyms made singular ("LMs" -> "lm", "GPs" -> "gp", as "models" -> "model")."""
        words = phrase_key(phrase).split()
        return " ".join(w[:-1] if w.endswith("s") and (w[:-1],) in self.by_spelling else w for w in words)


RANKER = TermTable(NAMED_TERMS)  # a member's interest (`bot.ranking.interest_units`)
QUESTIONS = TermTable(merged([*NAMED_TERMS, *QUESTION_SYNONYMS]))  # a question's or a search's topic


# ---------------------------------------------------------------- units


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a phrase as typed (normalised): a named term's spelling, or one content word."""

    tokens: tuple[str, ...]
    term: Term | None


def split_units(key: str, table: TermTable, skip: Callable[[str], bool]) -> list[Part]:
    """A normalised phrase split into named terms (longest spelling first) and the content words `skip` keeps."""
    tokens = key.split()
    parts: list[Part] = []
    i = 0
    while i < len(tokens):
        found = table.find(tokens, i)
        if found is not None:
            term, span = found
            parts.append(Part(tuple(tokens[i : i + span]), term))
            i += span
            continue
        if not skip(tokens[i]):
            parts.append(Part((tokens[i],), None))
        i += 1
    return parts


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit of a phrase: a named term (all its spellings) or a content word, with its weight."""

    key: str  # the term's canonical spelling or the word, as `phrase_key` writes it
    forms: tuple[tuple[str, ...], ...]  # spellings as tokens, any of which stands for the unit
    acronyms: tuple[str, ...] = ()  # as written: also found ending a longer name ("GraphRAG") or as plurals
    weight: float = 1.0
    named: bool = False
    optional: bool = False  # a text about the phrase may lack it
    adjacent: bool = False  # its words only side by side, never with words between ("model-based")
    cache_key: str = field(init=False, repr=False, compare=False)  # identifies how the unit matches

    @property
    def activity(self) -> bool:
        """Whether the unit is a word naming an activity ("serving", "routing"), which its verb may not mention
        (`taken_as`)."""
        return not self.named and self.key.endswith("ing")

    def __post_init__(self) -> None:
        forms = (" ".join(f) for f in self.forms)
        parts = (self.key, str(self.named), *forms, "|", *self.acronyms)
        object.__setattr__(self, "cache_key", "\x00".join((*parts, "adjacent") if self.adjacent else parts))

    @property
    def gap(self) -> int:
        """How many words a text may put between the unit's words."""
        return 0 if self.adjacent else MAX_GAP

    @staticmethod
    def of(part: Part, weight: float = 1.0) -> Unit:
        """The unit a part of a phrase stands for: a named term in all its spellings, or the word."""
        if part.term is None:
            return Unit(part.tokens[0], (part.tokens,), (), weight)
        return Unit(part.term.name, part.term.spellings, part.term.acronyms, weight, named=True)

    def where(self, text: Text, exact: bool = False, related: bool = False) -> list[tuple[int, int]]:
        """Every (first, last) token position of this unit in `text`; with `exact`, words only inflected; with
        `related`, agent nouns also as the act's words (`same_word`)."""
        tokens = text.tokens
        spots: list[tuple[int, int]] = []
        for form in self.forms:
            if form[0][:4] not in text.joined:
                continue  # every match shares its first four letters with the form
            first = form[0]
            # what `starts_as` needs of a token, tested first: its first two letters, or (joined) its end
            two, joined = first[:2], not exact and len(first) >= JOINED_MIN and first in text.joined
            starts = [
                i
                for i, t in enumerate(tokens)
                if (t[:2] == two or (joined and t.endswith(first)))
                and starts_as(first, t, exact, related)
                and not (self.activity and taken_as(tokens, i))
            ]
            if starts:
                spots += form_spans(_standing_for(form, exact, related), tokens, starts, self.gap)
        pattern = ending_pattern(self.acronyms)
        if pattern is not None and any(a in text.joined for a in self.acronyms):
            spots += [(i, i) for i, raw in enumerate(text.raw) if _holds(pattern, self.acronyms, raw)]
        return sorted(set(spots))


def _standing_for(form: tuple[str, ...], exact: bool, related: bool = False) -> list[Callable[[str], bool]]:
    return [functools.partial(same_word, word, exact=exact, related=related) for word in form]


class UnitIndex:
    """One day's titles and abstracts, indexed to tell which papers hold a unit in the title or anywhere."""

    def __init__(self, titles: list[str], texts: list[str], text_tokens_of: list[list[str]] | None = None) -> None:
        self.raw_titles = titles
        self.raw_texts = texts
        self.title_words = [text_tokens(t) for t in titles]
        self.text_words = text_tokens_of if text_tokens_of is not None else [text_tokens(t) for t in texts]
        self.title_postings = self._postings(self.title_words)
        self.text_postings = self._postings(self.text_words)
        self._by_prefix: dict[str, list[str]] = {}  # the day's tokens by their first two letters
        self._by_suffix: dict[str, list[str]] = {}  # and by their last five
        self._words: dict[tuple[str, bool], frozenset[str]] = {}
        self._cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.raw_titles)

    @staticmethod
    def _postings(token_lists: list[list[str]]) -> dict[str, np.ndarray]:
        lists: dict[str, list[int]] = {}
        for i, tokens in enumerate(token_lists):
            for token in set(tokens):
                lists.setdefault(token, []).append(i)
        return {t: np.array(ix, dtype=np.int64) for t, ix in lists.items()}

    def _tokens(self, word: str, first: bool) -> frozenset[str]:
        """The day's tokens standing for `word` (as the first word of a name when `first`, see `starts_as`)."""
        cached = self._words.get((word, first))
        if cached is not None:
            return cached
        if not self._by_prefix:
            for token in self.text_postings:
                self._by_prefix.setdefault(token[:2], []).append(token)
                self._by_suffix.setdefault(token[-5:], []).append(token)
        # the ranker reads an agent noun as its act too ("optimizer" ~ "optimization"): questions do not (`same_word`),
        # but one-line interests ranked so lost on the development profiles (mean 0.818 -> 0.817, min 0.668 -> 0.651)
        found = {t for t in self._by_prefix.get(word[:2], ()) if same_word(word, t, related=True)}
        if first:  # every token `word` is joined to ends with its last five letters
            found |= {t for t in self._by_suffix.get(word[-5:], ()) if joined_to(word, t)}
        self._words[word, first] = out = frozenset(found | {word})
        return out

    def _form(
        self,
        form: tuple[str, ...],
        token_lists: list[list[str]],
        postings: dict[str, np.ndarray],
        activity: bool = False,
        gap: int = MAX_GAP,
    ) -> np.ndarray:
        out = np.zeros(len(self), dtype=bool)
        words = [self._tokens(w, k == 0) for k, w in enumerate(form)]
        having: list[np.ndarray] = []  # for each word, the papers holding a token standing for it
        for allowed in words:
            found = [postings[t] for t in allowed if t in postings]
            if not found:
                return out
            having.append(np.unique(np.concatenate(found)))
        papers = functools.reduce(lambda a, b: np.intersect1d(a, b, assume_unique=True), having)
        # a form of an activity's word may only say what something is taken as (`taken_as`): read where it stands
        if len(form) == 1 and not activity:
            out[papers] = True
            return out
        tests = [allowed.__contains__ for allowed in words]
        for i in papers:
            tokens = token_lists[i]
            starts = (j for j, t in enumerate(tokens) if t in words[0] and not (activity and taken_as(tokens, j)))
            if form_spans(tests, tokens, starts, gap):
                out[i] = True
        return out

    def hits(self, unit: Unit) -> tuple[np.ndarray, np.ndarray]:
        """(in the title, in the title or abstract): boolean vectors over the day's papers."""
        key = unit.cache_key
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        n = len(self)
        title, text = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for form in unit.forms:
            title |= self._form(form, self.title_words, self.title_postings, unit.activity, unit.gap)
            text |= self._form(form, self.text_words, self.text_postings, unit.activity, unit.gap)
        pattern = ending_pattern(unit.acronyms)
        if pattern is not None:
            for i in range(n):
                if _holds(pattern, unit.acronyms, self.raw_titles[i]):
                    title[i] = True
                    text[i] = True
                elif not text[i] and _holds(pattern, unit.acronyms, self.raw_texts[i]):
                    text[i] = True
        text |= title
        self._cache[key] = (title, text)
        return title, text
