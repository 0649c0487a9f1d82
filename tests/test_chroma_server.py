"""The vector store over HTTP: a real Chroma server (`chroma run`, from the chromadb package) on 127.0.0.1.

The whole command line (ingest, ask, digest, search) is run against the server and against the embedded store,
and must give the same results: moving the vectors to a server changes where they live, not what users see.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
import pytest

from bot.cli import main
from bot.config import Settings
from bot.core import open_core
from bot.embeddings.embedder import LocalEmbedder
from bot.ingest.bundled import DEMO_DAY_FILE, bundled_file
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.questions.search import search_papers


async def test_papers_are_stored_and_searched_through_a_chroma_server(
    chroma_server: str, tmp_path: Path, embedder: LocalEmbedder, demo_papers: list[Paper]
) -> None:
    settings = Settings(home=tmp_path / "home", chroma_url=chroma_server)
    papers = demo_papers[:30]
    async with open_core(settings, embedder) as core:
        report = await store_papers(core, papers)
        assert report.embedded == 30
        assert await core.vectors.count() == 30
        hits = (await search_papers(core, papers[3].title, limit=3)).hits
        assert hits[0].paper.id == papers[3].id
        assert (await store_papers(core, papers)).embedded == 0
    assert not (tmp_path / "home" / "chroma").exists()  # nothing stored locally: the server holds the vectors


# --- the whole command line against a server: the same results as the embedded store ---

DAY = "2025-05-26"
SUBSET = 60  # papers of the bundled day: enough for a ranked digest and windowed answers, quick to embed twice
QUESTIONS = ("LLM safety and jailbreak attacks this week", "speech recognition and speech tokenizers")
SEARCHES = ("speculative decoding inference latency", "toxicity in language models")


def _run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    """Run one `paperscout` command in-process and parse the JSON it printed."""
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _session(
    home: Path,
    chroma_url: str | None,
    day_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> dict[str, Any]:
    """Ingest `day_file`, then ask, build the digest and search, as a user would: what each command returned."""
    monkeypatch.setenv("PAPERSCOUT_HOME", str(home))
    if chroma_url:
        monkeypatch.setenv("PAPERSCOUT_CHROMA_URL", chroma_url)
    else:
        monkeypatch.delenv("PAPERSCOUT_CHROMA_URL", raising=False)
    assert main(["ingest", "--jsonl", str(day_file)]) == 0
    assert f"{SUBSET} papers: {SUBSET} new" in capsys.readouterr().out
    return {
        "answers": [_run_json(["ask", q, "--as-of", DAY, "--json"], capsys) for q in QUESTIONS],
        "digest": _run_json(["digest", "--date", DAY, "--format", "json", "--size", "10"], capsys),
        "searches": [_run_json(["search", *s.split(), "--json"], capsys) for s in SEARCHES],
    }


@pytest.mark.slow
def test_the_cli_on_a_chroma_server_gives_the_same_results_as_the_embedded_store(
    chroma_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    day_file = tmp_path / "day.jsonl"
    lines = bundled_file(DEMO_DAY_FILE).read_text(encoding="utf-8").splitlines()[:SUBSET]
    day_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("PAPERSCOUT_ARXIV_RSS_URL", "http://127.0.0.1:9/rss/")
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)

    on_server = _session(tmp_path / "server-home", chroma_server, day_file, monkeypatch, capsys)
    embedded = _session(tmp_path / "embedded-home", None, day_file, monkeypatch, capsys)

    assert on_server == embedded
    # the comparison means something: every command found papers, and the digest is a ranking, not the file order
    assert all(a["citations"] for a in on_server["answers"]) and all(on_server["searches"])
    picked = [p["id"] for p in on_server["digest"]["papers"]]
    assert len(picked) == 10 and picked != [json.loads(line)["id"] for line in lines][:10]
    # the vectors really went to the server: it holds the collection, the server run's home has no Chroma directory
    assert not (tmp_path / "server-home" / "chroma").exists()
    assert (tmp_path / "embedded-home" / "chroma").is_dir()
    url = urlparse(chroma_server)
    client = chromadb.HttpClient(host=url.hostname or "", port=url.port or 8000)
    assert client.get_collection(Settings.model_fields["chroma_collection"].default).count() == SUBSET
