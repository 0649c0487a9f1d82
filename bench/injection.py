"""The injection corpus of issue 17 through the real pipeline, against a model that obeys injected instructions.

    .venv/bin/python bench/injection.py            # tests/fixtures/injection/corpus.jsonl, 60 bundled papers

Stores the first 60 papers of the bundled day next to the corpus's hostile papers, asks the questions, builds the
digests for the hostile profiles, renders everything for Markdown, Discord, Telegram HTML, the terminal and the web
archive, and prints: inputs tried, how many reached the model and how often it obeyed, and the counts that must be
0 (instructions followed that reach output, prompt text, raw mentions, active markup, profile text in a system
message). tests/test_injection.py asserts the same on every `make test`.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import SecretStr

from bot.config import Settings
from bot.core import open_core
from bot.embeddings.embedder import LocalEmbedder
from bot.ingest.bundled import DEMO_DAY_FILE, bundled_file
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from tests.fakes.obedient_llm import ObedientResponder
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI
from tests.injection_harness import run_corpus


async def run(home: Path) -> int:
    responder = ObedientResponder()
    with FakeOpenAI(responder=responder, api_key=TEST_API_KEY) as fake:
        settings = Settings(home=home, llm_base_url=fake.base_url, llm_api_key=SecretStr(TEST_API_KEY))
        async with open_core(settings, LocalEmbedder()) as core:
            await store_papers(core, read_jsonl([bundled_file(DEMO_DAY_FILE)])[:60])
            figures = await run_corpus(core, responder, lambda: [r.body or {} for r in fake.chat_requests()])
    print("\n".join(figures.lines()))
    for finding in figures.findings:
        print("  " + finding)
    return 1 if figures.findings else 0


def main() -> int:
    """Run the corpus in a temporary state directory and print the figures."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        code = asyncio.run(run(Path(tmp) / "home"))
    print(f"took {time.monotonic() - started:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())
