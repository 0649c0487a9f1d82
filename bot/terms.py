"""Named terms of the field and how a short topic phrase breaks into units.

A named term is one thing however it is written: "mixture of experts", "MoE", "Mixture-of-Experts";
"state space model", "SSM", "Mamba". A topic phrase ("sparse mixture-of-experts", "LLM hallucination") is read as
units: each named term it contains is one unit, every other content word another. A text is about the phrase
when it holds every unit; a named term only counts whole (the "mixture" of "Linear Mixture MDPs" is not part of
"mixture of experts"). Everything here works on `phrase_key` tokens (lowercase, hyphens split, plurals folded).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache

import numpy as np


def _fold(token: str) -> str:
    # Crude plural folding, applied identically to texts and keywords, so "experts" ~ "expert", "MoEs" ~ "MoE".
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("ses", "xes", "zes", "ches", "shes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def _ascii_lower(text: str) -> str:
    if text.isascii():  # most titles and abstracts: NFKD leaves ASCII as it is and no character combines
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


_WORD = re.compile(r"[^\W_]+")


def text_tokens(text: str) -> list[str]:
    """Lowercase, diacritic-free, plural-folded word tokens; hyphens and punctuation separate words."""
    return [_fold(t) for t in _WORD.findall(_ascii_lower(text))]


def phrase_key(phrase: str) -> str:
    """The normalised form a keyword is matched by ("Mixture-of-Experts" -> "mixture of expert")."""
    return " ".join(text_tokens(phrase))


# Each entry: the forms of one term, the spelled-out one first. A form with a capital letter is written so
# in papers, and also counts at the end of a longer name ("GraphRAG", "OpenVLA", "RiverMamba").
NAMED_TERMS: tuple[tuple[str, ...], ...] = (
    ("mixture of experts", "MoE"),
    ("large language model", "LLM"),
    ("language model", "LM"),
    ("small language model", "SLM"),
    ("vision language model", "VLM"),
    ("multimodal large language model", "MLLM"),
    ("vision language action model", "VLA", "vision language action"),
    ("reinforcement learning", "RL"),
    ("reinforcement learning from human feedback", "RLHF"),
    ("multi agent reinforcement learning", "MARL"),
    ("direct preference optimization", "DPO"),
    ("proximal policy optimization", "PPO"),
    ("group relative policy optimization", "GRPO"),
    ("graph neural network", "GNN"),
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
BROAD_TERMS = (
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
# Function words inside a phrase, never units.
STOP_WORDS = frozenset(
    "a an the of for in on to and or with by from via at as into over under about its their using".split()
)
# Words that frame an interest rather than name it ("I'm interested in ...", "... papers").
_LEAD = frozenset(
    phrase_key(w)
    for w in """i m d ve ll am we me my our really very also mostly mainly especially interested interest into like love
    want to read about in on regarding around anything something everything papers paper work works research new
    recent latest stuff things topic topics please the would be keen looking for show send give all any some more
    of related""".split()
)
_TRAIL = frozenset(phrase_key(w) for w in "papers work research stuff things topics in general please etc".split())


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit of a topic phrase: a named term (all its forms) or a single content word."""

    key: str  # the spelled-out form or the word, as `phrase_key` writes it
    forms: tuple[str, ...]  # phrase keys any of which stands for the unit
    suffixes: tuple[str, ...] = ()  # case-sensitive forms that may end a longer name ("GraphRAG")
    weight: float = 1.0
    named: bool = False
    cache_key: str = field(init=False, repr=False, compare=False)  # identifies how the unit matches

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "cache_key", "\x00".join((self.key, str(self.named), *self.forms, "|", *self.suffixes))
        )


@dataclass(frozen=True, slots=True)
class _Term:
    key: str
    forms: tuple[str, ...]
    suffixes: tuple[str, ...]


_BROAD = frozenset(phrase_key(t) for t in BROAD_TERMS)


def _is_cased(form: str) -> bool:
    return any(c.isupper() for c in form) and " " not in form.strip() and len(form) >= 3


@cache
def _terms() -> tuple[_Term, ...]:
    """The named terms with every form a text may use; a broader term also takes its narrower terms' forms
    ("language model" is also written "LLM" or "large language model")."""
    base = []
    for forms in NAMED_TERMS:
        keys = [phrase_key(f) for f in forms]
        # plural folding leaves short words alone: "GPs" and "LMs" are written out here
        keys += [k + "s" for k in keys if " " not in k and len(k) <= 3]
        base.append((keys[0], list(dict.fromkeys(keys)), [f for f in forms if _is_cased(f)]))
    out = []
    for key, forms, suffixes in base:
        all_forms, all_suffixes = list(forms), list(suffixes)
        for other_key, other_forms, other_suffixes in base:
            if other_key != key and f" {key} " in f" {other_key} ":
                all_forms += other_forms
                all_suffixes += other_suffixes
        out.append(_Term(key, tuple(dict.fromkeys(all_forms)), tuple(dict.fromkeys(all_suffixes))))
    # longest first, so "large language model" wins over "language model" inside a phrase
    return tuple(sorted(out, key=lambda t: -len(t.key.split())))


@cache
def _by_first_token() -> dict[str, tuple[tuple[tuple[str, ...], _Term], ...]]:
    """Every form of every named term, by its first token, longest first."""
    index: dict[str, list[tuple[tuple[str, ...], _Term]]] = {}
    for term in _terms():
        for form in term.forms:
            words = tuple(form.split())
            index.setdefault(words[0], []).append((words, term))
    return {first: tuple(sorted(forms, key=lambda f: -len(f[0]))) for first, forms in index.items()}


def _find_term(tokens: list[str], start: int) -> tuple[_Term, int] | None:
    """The longest named term written at `tokens[start:]` in any of its forms, and how many tokens it spans."""
    for words, term in _by_first_token().get(tokens[start], ()) if start < len(tokens) else ():
        if tuple(tokens[start : start + len(words)]) == words:
            return term, len(words)
    return None


def interest_core(text: str) -> str:
    """A one-line interest without the words that frame it, as written ("I'm into sparse MoE papers" ->
    "sparse MoE"); the text itself when nothing would be left."""
    words = [(m.start(), m.end(), (text_tokens(m.group()) or [""])[0]) for m in _WORD.finditer(text)]
    tokens = [w[2] for w in words]
    start, end = 0, len(words)
    while start < end and tokens[start] in _LEAD and _find_term(tokens, start) is None:  # "in context learning"
        start += 1
    while end > start and tokens[end - 1] in _TRAIL:
        end -= 1
    if start >= end:
        return text.strip()
    return text[words[start][0] : words[end - 1][1]]


@lru_cache(maxsize=4096)
def phrase_units(text: str) -> tuple[Unit, ...]:
    """The units of a short topic phrase: its named terms and its other content words, in order."""
    tokens = phrase_key(interest_core(text)).split()
    units: dict[str, Unit] = {}
    i = 0
    while i < len(tokens):
        found = _find_term(tokens, i)
        if found is not None:
            term, span = found
            weight = 1.0 if term.key in _BROAD else NAMED_WEIGHT
            units.setdefault(term.key, Unit(term.key, term.forms, term.suffixes, weight, named=True))
            i += span
            continue
        word = tokens[i]
        i += 1
        if word in STOP_WORDS or len(word) < 2 or word.isdigit():
            continue
        weight = GENERIC_WEIGHT if word in GENERIC_WORDS else 1.0
        units.setdefault(word, Unit(word, (word,), (), weight))
    return tuple(units.values())


@cache
def _spelled() -> dict[str, str]:
    return {phrase_key(forms[0]): forms[0] for forms in NAMED_TERMS}


def named_terms_text(text: str) -> str:
    """`text` with the named terms it holds only as acronyms or names spelled out ("MoE routing" -> "MoE routing
    (mixture of experts)"), for an embedding model that knows the spelled-out words better than an acronym."""
    key = f" {phrase_key(text)} "
    extra: list[str] = []
    for unit in phrase_units(text):
        if not unit.named:
            continue
        extra += [_spelled()[unit.key]] if f" {unit.key} " not in key else []
    return f"{text} ({', '.join(extra)})" if extra else text


@cache
def suffix_pattern(suffixes: tuple[str, ...]) -> re.Pattern[str] | None:
    """A case-sensitive pattern for forms that end a longer name ("GraphRAG", "VRAG-RL", "RiverMamba")."""
    if not suffixes:
        return None
    alternatives = "|".join(re.escape(s) for s in sorted(suffixes, key=len, reverse=True))
    return re.compile(rf"[A-Za-z0-9](?:{alternatives})s?(?![A-Za-z])")


_SUFFIXES = ("ations", "ation", "ating", "ated", "ate", "ings", "ing", "ers", "er", "ed", "es", "e", "y")


def word_stem(word: str) -> str:
    """A crude stem for matching a topic word in any inflection ("forecasting" ~ "forecast", "hallucinate" ~
    "hallucination"); applied identically to both sides, never leaving fewer than four letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


class UnitIndex:
    """One day's titles and abstracts, indexed to tell which papers hold a unit in the title or anywhere."""

    def __init__(self, titles: list[str], texts: list[str], text_tokens_of: list[list[str]] | None = None) -> None:
        self.raw_titles = titles
        self.raw_texts = texts
        title_tokens = [text_tokens(t) for t in titles]
        body_tokens = text_tokens_of if text_tokens_of is not None else [text_tokens(t) for t in texts]
        self.title_joined = [" " + " ".join(t) + " " for t in title_tokens]
        self.text_joined = [" " + " ".join(t) + " " for t in body_tokens]
        self.title_postings = self._postings(title_tokens)
        self.text_postings = self._postings(body_tokens)
        self._stems: dict[str, list[str]] | None = None
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

    def _inflections(self, word: str) -> list[str]:
        if self._stems is None:
            self._stems = {}
            for token in self.text_postings:
                self._stems.setdefault(word_stem(token), []).append(token)
        return self._stems.get(word_stem(word), [word])

    def _phrase(self, words: list[str], joined: list[str], postings: dict[str, np.ndarray], out: np.ndarray) -> None:
        lists = [postings.get(w) for w in words]
        if any(p is None for p in lists):
            return
        # a long name may have a word or two inside ("mixture of low-rank experts")
        gap = r"(?: \S+){0,2}" if len(words) >= 3 else ""
        pattern = re.compile(" " + (gap + " ").join(re.escape(w) for w in words) + " ")
        for i in min(lists, key=len):  # type: ignore[arg-type,return-value]
            if pattern.search(joined[i]):
                out[i] = True

    def hits(self, unit: Unit) -> tuple[np.ndarray, np.ndarray]:
        """(in the title, in the title or abstract): boolean vectors over the day's papers."""
        key = unit.cache_key
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        n = len(self)
        title, text = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for form in unit.forms:
            words = form.split()
            if len(words) == 1:
                for token in [form] if unit.named else self._inflections(form):
                    for postings, out in ((self.title_postings, title), (self.text_postings, text)):
                        found = postings.get(token)
                        if found is not None:
                            out[found] = True
            else:
                self._phrase(words, self.title_joined, self.title_postings, title)
                self._phrase(words, self.text_joined, self.text_postings, text)
        pattern = suffix_pattern(unit.suffixes)
        if pattern is not None:
            for i in range(n):
                if pattern.search(self.raw_titles[i]):
                    title[i] = True
                    text[i] = True
                elif not text[i] and pattern.search(self.raw_texts[i]):
                    text[i] = True
        text |= title
        self._cache[key] = (title, text)
        return title, text
