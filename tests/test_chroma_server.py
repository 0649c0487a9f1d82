"""The vector store over HTTP: a real Chroma server (`chroma run`, from the chromadb package) on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import Settings
from bot.core import open_core
from bot.embed import LocalEmbedder
from bot.ingest.store import store_papers
from bot.models import Paper
from bot.search import search_papers


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[str]:
    """A Chroma server process with its data under tmp_path; yields its URL."""
    binary = Path(sys.executable).with_name("chroma")
    if not binary.exists():
        pytest.fail(f"the chroma command should come with the chromadb package, not found at {binary}")
    port = _free_port()
    process = subprocess.Popen(
        [str(binary), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("chroma server did not start") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


async def test_papers_are_stored_and_searched_through_a_chroma_server(
    chroma_server: str, tmp_path: Path, embedder: LocalEmbedder, demo_papers: list[Paper]
) -> None:
    settings = Settings(home=tmp_path / "home", chroma_url=chroma_server)
    papers = demo_papers[:30]
    async with open_core(settings, embedder) as core:
        report = await store_papers(core, papers)
        assert report.embedded == 30
        assert await core.vectors.count() == 30
        hits = await search_papers(core, papers[3].title, limit=3)
        assert hits[0].paper.id == papers[3].id
        assert (await store_papers(core, papers)).embedded == 0
    assert not (tmp_path / "home" / "chroma").exists()  # nothing stored locally: the server holds the vectors
