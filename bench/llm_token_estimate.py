"""How far the budget pre-check's prompt-token estimate is from what an endpoint counts, on the bot's shapes.

Prints, per shape, the server-shaped count (tests/fakes/openai_server.tokenizer_shaped_count: word pieces plus
OpenAI's chat framing), our estimate with and without the per-message framing, and the gaps.

    PYTHONPATH=$PWD python bench/llm_token_estimate.py
"""

from __future__ import annotations

import json
from pathlib import Path

from bot.llm.client import count_tokens_estimate, estimate_message_tokens
from tests.fakes.openai_server import tokenizer_shaped_count

DATA = Path("/work/shared/data/arxiv")


def main() -> None:
    """Print the table."""
    path = sorted(DATA.glob("*.jsonl"))[0]
    papers = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:40]]
    system = {"role": "system", "content": "You score arXiv papers for a reader."}
    shapes: dict[str, list[dict[str, str]]] = {}
    for turns in (1, 3, 6):
        messages = [system]
        for paper in papers[:turns]:
            messages += [
                {"role": "user", "content": f"Paper: {paper['abstract'][:300]}"},
                {"role": "assistant", "content": '{"score": 7}'},
            ]
        shapes[f"chat, {turns} turn(s)"] = [*messages, {"role": "user", "content": "Why?"}]
    batch = "\n\n".join(f"[{i}] {p['title']}\n{p['abstract']}" for i, p in enumerate(papers[:20], 1))
    shapes["score batch, 20 abstracts"] = [system, {"role": "user", "content": batch}]
    print(f"{'shape':28} {'server':>7} {'estimate':>9} {'gap':>7} {'old est.':>9} {'old gap':>8}")
    for name, messages in shapes.items():
        server = tokenizer_shaped_count(messages)
        new = estimate_message_tokens(messages)
        old = sum(count_tokens_estimate(m["content"]) for m in messages)
        print(
            f"{name:28} {server:7d} {new:9d} {100 * (new - server) / server:+6.1f}% {old:9d}"
            f" {100 * (old - server) / server:+7.1f}%"
        )


if __name__ == "__main__":
    main()
