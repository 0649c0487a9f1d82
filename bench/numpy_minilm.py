"""MiniLM in NumPy (`bot.embeddings.minilm_numpy`) against torch (`bot.embeddings.minilm`): agreement and cost.

The one-shot commands embed their question with NumPy while every stored vector comes from torch, so the two must
agree. This prints, over the held-out questions and search queries of the open sets (as typed: the question
itself, not the topic the bot extracts from it), the bundled day's titles and the longest of its abstracts (cut to
256 word pieces) and a few non-ASCII texts: the smallest cosine and the largest absolute difference between the
two vectors of a text, and whether the nearest papers of each question (by the bundled day's title vectors, from
torch) come in the same order. Then the CPU time of each step of the NumPy path, in this process.

    PYTHONPATH=$PWD .venv/bin/python bench/numpy_minilm.py [--abstracts 40]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.embeddings.embedder import LocalEmbedder, model_dir  # noqa: E402
from bot.embeddings.minilm import load_tokenizer, read_config  # noqa: E402
from bot.embeddings.minilm_numpy import NumpyMiniLM  # noqa: E402
from bot.ingest.bundled import DEMO_DAY_FILE, bundled_file  # noqa: E402
from bot.ingest.jsonl import read_jsonl  # noqa: E402

OPEN_SETS = ("heldout", "heldout/sealed", "heldout/sealed2")  # never sealed3: the lead's own measure
ODD = [
    "Ünïcödé — 数学 and emoji 🤔",
    "Schrödinger-Brücken für Diffusionsmodelle",
    "模型压缩与量化的最新进展",
    "Обучение с подкреплением для больших языковых моделей",
    r"An $\mathcal{O}(n \log n)$ attention with $\alpha$-entmax",
    "",
]


def asked_texts() -> list[str]:
    """Every question and search query of the open held-out sets, as typed."""
    texts: list[str] = []
    for name in OPEN_SETS:
        for file, field in (("questions.jsonl", "question"), ("search.jsonl", "query")):
            path = ROOT / "bench" / name / file
            if path.exists():
                texts += [json.loads(line)[field] for line in path.read_text().splitlines() if line.strip()]
    return texts


def agreement(label: str, ours: np.ndarray, torchs: np.ndarray) -> None:
    cosine = (ours * torchs).sum(axis=1)
    print(
        f"{label:<34} {len(ours):5d} texts  min cosine {cosine.min():.8f}  1-min {1 - cosine.min():.1e}"
        f"  max |diff| {np.abs(ours - torchs).max():.1e}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--abstracts", type=int, default=40, help="the longest abstracts of the day to compare")
    args = parser.parse_args()
    papers = read_jsonl([bundled_file(DEMO_DAY_FILE)])
    numpy_minilm = NumpyMiniLM(model_dir())
    torch_minilm = LocalEmbedder()  # one text per call below is a batch of one, as a question is embedded

    asked = asked_texts()
    ours = numpy_minilm.encode(asked)
    torchs = np.concatenate([torch_minilm.embed([text]) for text in asked])
    agreement("held-out questions and queries", ours, torchs)
    titles = torch_minilm.embed([p.title for p in papers])
    same = 0
    for text, a, b in zip(asked, ours, torchs, strict=True):
        first, second = np.argsort(-(titles @ a))[:20], np.argsort(-(titles @ b))[:20]
        same += np.array_equal(first, second)
        for rank in np.flatnonzero(first != second)[:1]:
            gap = abs(float(titles[first[rank]] @ b - titles[second[rank]] @ b))
            print(f"  {text[:60]!r}: rank {rank + 1} swapped, the two similarities {gap:.1e} apart (torch)")
    print(f"{'':<34} same 20 nearest titles in the same order for {same} of {len(asked)}")
    ordered = sorted(papers, key=lambda p: len(p.text), reverse=True)[: args.abstracts]
    for label, texts in (
        ("bundled day's titles", [p.title for p in papers]),
        (f"the {args.abstracts} longest abstracts", [p.text for p in ordered]),
        ("non-ASCII and odd texts", ODD),
    ):
        agreement(label, numpy_minilm.encode(texts), torch_minilm.embed(texts))

    started = time.process_time()
    path = model_dir()
    tokenizer = load_tokenizer(path, read_config(path), padding=False)
    tokenized = time.process_time()
    fresh = NumpyMiniLM(path, tokenizer)
    loaded = time.process_time()
    question = ["what MoE papers today?"]
    fresh.encode(question)
    one = time.process_time()
    fresh.encode([ordered[0].text])
    full = time.process_time()
    print(
        f"CPU: tokenizer {tokenized - started:.3f} s, weights {loaded - tokenized:.3f} s, "
        f"a {len(fresh.word_pieces(question)[0])}-piece question {one - loaded:.3f} s, "
        f"a {len(fresh.word_pieces([ordered[0].text])[0])}-piece text {full - one:.3f} s"
    )


if __name__ == "__main__":
    main()
