"""Shared pytest fixtures. Several helpers add fixtures here: append yours, keep the others."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.cli import bundled_file
from bot.config import Settings
from bot.core import Core, open_core
from bot.embed import LocalEmbedder
from bot.ingest.jsonl import read_jsonl
from bot.models import Paper
from tests.fakes.arxiv_server import FakeArxiv
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A fresh OpenAI-compatible fake on 127.0.0.1 that requires ``TEST_API_KEY`` as bearer key."""
    with FakeOpenAI(api_key=TEST_API_KEY) as fake:
        yield fake


@pytest.fixture
def fake_arxiv() -> Iterator[FakeArxiv]:
    """A fresh fake of arXiv's RSS feeds and Atom API on 127.0.0.1, without records (add them with `add`)."""
    with FakeArxiv() as fake:
        yield fake


@pytest.fixture
def arxiv_settings(fake_arxiv: FakeArxiv, tmp_path: Path) -> Settings:
    """Settings pointing at `fake_arxiv`, with no delay between arXiv requests and state under `tmp_path`."""
    return Settings(home=tmp_path / "home", **fake_arxiv.settings_overrides())


# --- core fixtures: the real local embedding model, loaded once per test session ---

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """The real MiniLM embedder (hash-checked, offline), shared by every test that needs vectors."""
    return LocalEmbedder(batch_size=32)


@pytest.fixture(scope="session")
def demo_papers() -> list[Paper]:
    """The bundled real arXiv day (444 papers announced 2025-05-26)."""
    return read_jsonl([bundled_file("arxiv-2025-05-26.jsonl")])


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings with state under a fresh temporary directory and no network endpoints reachable."""
    return Settings(home=tmp_path / "home", arxiv_rss_url="http://127.0.0.1:9/rss/", arxiv_delay_seconds=0)


@pytest.fixture
async def core(settings: Settings, embedder: LocalEmbedder) -> AsyncIterator[Core]:
    """An opened Core (SQLite + embedded Chroma) in a temporary state directory."""
    async with open_core(settings, embedder) as opened:
        yield opened
