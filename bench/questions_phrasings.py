"""A question set written before the code that answers it (issue 14): intents over the shared week, 4 phrasings each.

Every intent is one thing a person wants, typed four ways: `plain` (a tidy request), `conversational` (a chat
message), `terse` (a few words) and `typo` (a misspelling or an acronym). Expected papers are defined as in
`bench/qa.py`: titles matching `pattern` inside the window the answer searched, or for author intents papers
whose author list matches every regex in `authors`. `search` holds the topic as someone would type it into
/search (no time words). `INTERESTS` are one-line member interests with the title pattern of the papers they mean.
"""

from __future__ import annotations

from dataclasses import dataclass

STYLES = ("plain", "conversational", "terse", "typo")


@dataclass(frozen=True)
class Intent:
    """One information need in four phrasings; `authors` (regexes, all must match) makes it an author intent."""

    name: str
    pattern: str
    phrasings: tuple[str, str, str, str]  # in STYLES order
    authors: tuple[str, ...] = ()
    search: tuple[str, ...] = ()
    compound: bool = False


AUTHOR_INTENTS = [
    Intent(
        "Griffiths",
        "",
        (
            "papers by Thomas Griffiths this week",
            "What did Thomas Griffiths post this week?",
            "Griffiths et al. this week",
            "papers by Grifiths this week",
        ),
        authors=(r"Griffiths",),
    ),
    Intent(
        "Schütze",
        "",
        (
            "papers by Hinrich Schütze this week",
            "anything from Hinrich Schutze this week?",
            "Schütze's new papers",
            "Schuetze papers this week",
        ),
        authors=(r"Hinrich Sch",),
    ),
    Intent(
        "Lichao Sun",
        "",
        (
            "papers by Lichao Sun this week",
            "hey, did Lichao Sun put out anything new this week?",
            "Lichao Sun this week",
            "papers by Lichao Sunn this week",
        ),
        authors=(r"^Lichao Sun$",),
    ),
    Intent(
        "Kai-Wei Chang",
        "",
        (
            "papers by Kai-Wei Chang this week",
            "what has Kai-Wei Chang published this week?",
            "Kai-Wei Chang's new papers",
            "papers by Kaiwei Chang this week",
        ),
        authors=(r"^Kai-Wei Chang$",),
    ),
    Intent(
        "Lei Bai and Fenghua Ling",
        "",
        (
            "papers by Lei Bai and Fenghua Ling this week",
            "what did Lei Bai and Fenghua Ling write together this week?",
            "Lei Bai & Fenghua Ling this week",
            "papers by Lei Bai and Fengua Ling this week",
        ),
        authors=(r"^Lei Bai$", r"^Fenghua Ling$"),
    ),
    Intent(
        "Sergey Levine",
        "",
        (
            "papers by Sergey Levine this week",
            "did Sergey Levine post anything this week?",
            "Levine et al. this week",
            "papers by Sergei Levine this week",
        ),
        authors=(r"^Sergey Levine$",),
    ),
    Intent(
        "Edward Choi",
        "",
        (
            "papers by Edward Choi since Monday",
            "anything from Edward Choi this week?",
            "E. Choi this week",
            "Edward Choy papers this week",
        ),
        authors=(r"^Edward Choi$",),
    ),
    Intent(
        "Zdeborová",
        "",
        (
            "papers by Lenka Zdeborová this week",
            "what did Zdeborova post this week?",
            "Zdeborová this week",
            "papers by Lenka Zdeborva this week",
        ),
        authors=(r"Zdeborov",),
    ),
    Intent(
        "Tsuyoshi Okita",
        "",
        (
            "papers by Tsuyoshi Okita on Thursday",
            "what did Tsuyoshi Okita put out on Thursday?",
            "T. Okita Thursday",
            "papers by Tsuyoshi Okitta on Thursday",
        ),
        authors=(r"^Tsuyoshi Okita$",),
    ),
]

COMPOUND_INTENTS = [
    Intent(
        "diffusion language models",
        r"diffusion (large )?language models?|diffusion LLMs?|\bdLLMs?\b",
        (
            "diffusion language models this week",
            "hey, anything new on diffusion language models this week?",
            "diffusion LMs this week",
            "difusion language models this week",
        ),
        search=("diffusion language models", "diffusion LLMs"),
    ),
    Intent(
        "state space models",
        r"state[- ]space|\bmamba",
        (
            "state space model papers this week",
            "what's been posted on state-space models this week?",
            "SSMs this week",
            "state space modles this week",
        ),
        search=("state space models", "SSM"),
    ),
    Intent(
        "mixture of experts",
        r"mixture[- ]of[- ](low[- ]rank )?experts|MoEs?\b",
        (
            "sparse mixture-of-experts papers this week",
            "anything about mixture of experts models this week?",
            "MoE this week",
            "mixture of experst this week",
        ),
        search=("sparse mixture-of-experts", "mixture of experts"),
    ),
    Intent(
        "KV cache",
        r"KV[- ]cache|key-value cache",
        (
            "KV cache compression papers this week",
            "has anyone posted about compressing the KV cache this week?",
            "kv cache this week",
            "key-value cache this week",
        ),
        search=("KV cache compression", "key-value cache"),
    ),
    Intent(
        "speculative decoding",
        r"speculative",
        (
            "speculative decoding papers this week",
            "anything new on speculative decoding this week?",
            "spec decoding this week",
            "speculativ decoding this week",
        ),
        search=("speculative decoding", "speculative decoding for LLMs"),
    ),
    Intent(
        "retrieval-augmented generation",
        r"retrieval[- ]augment|\b(\w+-)?RAG\b|UniRAG|VRAG",
        (
            "retrieval-augmented generation papers since Wednesday",
            "what's new in retrieval augmented generation since Wednesday?",
            "RAG since Wednesday",
            "retreival augmented generation since Wednesday",
        ),
        search=("retrieval-augmented generation", "RAG"),
    ),
    Intent(
        "test-time scaling",
        r"test[- ]time (scaling|compute|computation)",
        (
            "test-time scaling papers this week",
            "anything on scaling test-time compute this week?",
            "test-time scaling this week",
            "test time scalling this week",
        ),
        search=("test-time scaling", "test-time compute"),
    ),
    Intent(
        "flow matching",
        r"flow matching",
        (
            "flow matching papers this week",
            "did anyone post flow matching stuff this week?",
            "flow matching this week",
            "flow-matching papers this week",
        ),
        search=("flow matching", "flow-matching generative models"),
    ),
    Intent(
        "physics-informed neural networks",
        r"physics[- ]informed|PINNs?\b",
        (
            "physics-informed neural network papers this week",
            "what's new on physics informed neural networks this week?",
            "PINNs this week",
            "physics-infromed neural networks this week",
        ),
        search=("physics-informed neural networks", "PINN"),
    ),
    Intent(
        "continual learning",
        r"continual|lifelong",
        (
            "continual learning papers this week",
            "anything about continual learning this week?",
            "continual learning this week",
            "continual lerning this week",
        ),
        search=("continual learning", "lifelong learning"),
    ),
    Intent(
        "chain-of-thought",
        r"chain[- ]of[- ]thought|\bCoT\b",
        (
            "chain-of-thought papers since Thursday",
            "what's out on chain of thought reasoning since Thursday?",
            "CoT since Thursday",
            "chain of thougth since Thursday",
        ),
        search=("chain-of-thought reasoning", "CoT"),
    ),
    Intent(
        "sparse autoencoders",
        r"sparse autoencoder",
        (
            "sparse autoencoder papers this week",
            "anything on sparse autoencoders this week?",
            "SAEs this week",
            "sparse auto-encoders this week",
        ),
        search=("sparse autoencoders", "SAE"),
    ),
    Intent(
        "neural operators",
        r"neural operator",
        (
            "neural operator papers this week",
            "what's new with neural operators this week?",
            "neural operators this week",
            "nueral operators this week",
        ),
        search=("neural operators", "neural operator for PDEs"),
    ),
    Intent(
        "Bayesian optimization",
        r"bayesian optimi|\bBO\b",
        (
            "Bayesian optimization papers this week",
            "anything new in bayesian optimisation this week?",
            "Bayesian optimization this week",
            "bayesian optimzation this week",
        ),
        search=("Bayesian optimization", "bayesian optimisation"),
    ),
    Intent(
        "vision-language-action models",
        r"vision[- ]language[- ]action|VLA\b",
        (
            "vision-language-action model papers this week",
            "anything on vision language action models this week?",
            "VLA models this week",
            "vision-langauge-action models this week",
        ),
        search=("vision-language-action models", "VLA"),
    ),
    Intent(
        "differential privacy",
        r"differential(ly)? priva",
        (
            "differential privacy papers this week",
            "what's new on differentially private learning this week?",
            "differential privacy this week",
            "diferential privacy this week",
        ),
        search=("differential privacy", "differentially private"),
    ),
]

TOPIC_INTENTS = [
    Intent(
        "jailbreaks",
        r"jailbreak",
        (
            "jailbreak papers this week",
            "any new jailbreak attacks this week?",
            "jailbreaks this week",
            "jailbrake attacks this week",
        ),
        search=("jailbreak attacks", "jailbreaking LLMs"),
    ),
    Intent(
        "unlearning",
        r"unlearn",
        (
            "machine unlearning papers this week",
            "what's been posted on unlearning this week?",
            "unlearning this week",
            "machine unlerning this week",
        ),
        search=("machine unlearning", "unlearning"),
    ),
    Intent(
        "hallucination",
        r"hallucinat",
        (
            "hallucination papers since Thursday",
            "anything about LLM hallucinations since Thursday?",
            "hallucination since Thursday",
            "halucination since Thursday",
        ),
        search=("hallucination", "hallucinations in language models"),
    ),
    Intent(
        "proteins",
        r"protein",
        (
            "protein papers this week",
            "anything new on protein modelling this week?",
            "proteins this week",
            "protien papers this week",
        ),
        search=("protein design", "proteins"),
    ),
    Intent(
        "tokenization",
        r"tokeni[sz]",
        (
            "tokenization papers this week",
            "anything about tokenizers this week?",
            "tokenizers this week",
            "tokenisation this week",
        ),
        search=("tokenization", "tokenizers"),
    ),
    Intent(
        "graph neural networks",
        r"graph neural|\bGNNs?\b",
        (
            "graph neural network papers this week",
            "anything new on graph neural networks this week?",
            "GNNs this week",
            "graph nueral networks this week",
        ),
        search=("graph neural networks", "GNN"),
    ),
    Intent(
        "quantization",
        r"quanti[sz]",
        (
            "quantization papers since Thursday",
            "anything on quantizing models since Thursday?",
            "quantization since Thursday",
            "quantisation since Thursday",
        ),
        search=("quantization", "model quantisation"),
    ),
    Intent(
        "optimal transport",
        r"optimal transport|wasserstein",
        (
            "optimal transport papers this week",
            "anything on optimal transport this week?",
            "optimal transport this week",
            "OT papers this week",
        ),
        search=("optimal transport", "Wasserstein"),
    ),
    Intent(
        "watermarking",
        r"watermark",
        (
            "watermarking papers this week",
            "did anyone post on watermarking this week?",
            "watermarks this week",
            "watermarkng this week",
        ),
        search=("watermarking", "watermarks"),
    ),
]

INTENTS = (
    AUTHOR_INTENTS
    + [Intent(i.name, i.pattern, i.phrasings, i.authors, i.search, compound=True) for i in COMPOUND_INTENTS]
    + TOPIC_INTENTS
)


@dataclass(frozen=True)
class Interest:
    """A member's whole interest in one line, and the titles that show a paper is about it."""

    text: str
    pattern: str


INTERESTS = [
    Interest("sparse mixture-of-experts", r"mixture[- ]of[- ](low[- ]rank )?experts|MoEs?\b"),
    Interest("KV cache compression", r"KV[- ]cache|key-value cache"),
    Interest("grokking", r"grokk"),
    Interest("speculative decoding", r"speculative"),
    Interest("diffusion language models", r"diffusion (large )?language models?|diffusion LLMs?|\bdLLMs?\b"),
    Interest("state space models", r"state[- ]space|\bmamba"),
    Interest("retrieval-augmented generation", r"retrieval[- ]augment|\b(\w+-)?RAG\b|UniRAG|VRAG"),
    Interest("test-time scaling", r"test[- ]time (scaling|compute|computation)"),
    Interest("flow matching", r"flow matching"),
    Interest("physics-informed neural networks", r"physics[- ]informed|PINNs?\b"),
    Interest("continual learning", r"continual|lifelong"),
    Interest("jailbreak attacks", r"jailbreak"),
    Interest("machine unlearning", r"unlearn"),
    Interest("protein design", r"protein"),
    Interest("graph neural networks", r"graph neural|\bGNNs?\b"),
    Interest("time series forecasting", r"time[- ]series|forecast"),
    Interest("federated learning", r"federated"),
    Interest("Bayesian optimization", r"bayesian optimi|\bBO\b"),
    Interest("Gaussian processes", r"gaussian process"),
    Interest("optimal transport", r"optimal transport|wasserstein"),
    Interest("neural operators", r"neural operator"),
    Interest("chain-of-thought reasoning", r"chain[- ]of[- ]thought|\bCoT\b"),
    Interest("LLM hallucination", r"hallucinat"),
    Interest("sparse autoencoders", r"sparse autoencoder"),
    Interest("vision-language-action models", r"vision[- ]language[- ]action|VLA\b"),
]
