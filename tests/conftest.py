"""Shared pytest fixtures. Several helpers add fixtures here: append yours, keep the others."""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.chat.driver import ChatDriver
from bot.config import Settings
from bot.core import Core, open_core
from bot.digests.delivery import Poster
from bot.embeddings.embedder import LocalEmbedder, paper_vectors
from bot.ingest.bundled import bundled_file
from bot.ingest.jsonl import read_jsonl
from bot.ingest.limits import clean_paper
from bot.models import Digest, Paper, Target
from bot.ops.logs import HANDLER_NAME, configure_logging
from bot.text.extractive import extractive_tldr
from tests.chroma_run import chroma_run
from tests.fakes.arxiv_server import FakeArxiv
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI
from tests.fakes.telegram_server import FakeTelegram


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
def fake_telegram() -> Iterator[FakeTelegram]:
    """A fresh fake Telegram Bot API server on 127.0.0.1 (no users or chats yet; no flood limits)."""
    with FakeTelegram() as fake:
        yield fake


@pytest.fixture
def arxiv_settings(fake_arxiv: FakeArxiv, tmp_path: Path) -> Settings:
    """Settings pointing at `fake_arxiv`, with no delay between arXiv requests and state under `tmp_path`."""
    return Settings(home=tmp_path / "home", ask_cooldown_seconds=0, **fake_arxiv.settings_overrides())


SLOW_TIMEOUT = 900  # seconds for a test marked slow; the others have pyproject's `timeout`


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked slow gets `SLOW_TIMEOUT` unless it names its own limit."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    """Every test starts with logging as a plain command sets it (text, WARNING), and ends with our stderr handler
    gone: a test that ran the CLI with -v must not leave library chatter for the tests after it, and a line logged
    between tests (a server thread closing) must not land in pytest's output (pytest captures and reports what is
    logged during a test)."""
    configure_logging(False)
    yield
    root = logging.getLogger()
    for handler in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(handler)
    if not any(isinstance(h, logging.NullHandler) for h in root.handlers):
        root.addHandler(logging.NullHandler())  # else logging's last resort writes warnings to stderr
    root.setLevel(logging.WARNING)


# --- core fixtures: the real local embedding model, loaded once per test session ---

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


class MemoEmbedder(LocalEmbedder):
    """The real model, remembering vectors by text so tests that store the same papers embed them once.

    With `shared` (a directory every pytest-xdist worker of the run sees), a vector one worker computed is read from
    there by the others instead of being computed again: embedding is most of the suite's CPU time (about 0.1 s a
    text on the reference machine), and both workers store the same days. Embedding holds the directory's lock, so
    two workers never compute the same text at once."""

    def __init__(self, shared: Path | None = None) -> None:
        super().__init__(batch_size=32)
        self.memo: dict[str, np.ndarray] = {}
        self.calls = 0
        self.shared = shared

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        todo = list(dict.fromkeys(t for t in texts if t not in self.memo))
        if todo and self.shared is None:
            self.memo.update(zip(todo, super().embed(todo), strict=True))
        elif todo:
            self._embed_shared(todo, self.shared)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.memo[t] for t in texts])

    def _embed_shared(self, todo: list[str], shared: Path) -> None:
        shared.mkdir(parents=True, exist_ok=True)
        files = {t: shared / f"{hashlib.sha256(t.encode()).hexdigest()}.f32" for t in todo}
        with open(shared / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            missing = [t for t in todo if not files[t].exists()]
            if missing:
                for text, vector in zip(missing, super().embed(missing), strict=True):
                    part = files[text].with_suffix(f".{os.getpid()}")
                    part.write_bytes(np.asarray(vector, dtype=np.float32).tobytes())
                    part.replace(files[text])
        for text in todo:
            self.memo[text] = np.frombuffer(files[text].read_bytes(), dtype=np.float32).copy()


@pytest.fixture(scope="session")
def embedder(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> LocalEmbedder:
    """The real MiniLM embedder (hash-checked, offline), shared by every test that needs vectors; under
    pytest-xdist its vectors are shared between the workers of the run (`MemoEmbedder`)."""
    base = tmp_path_factory.getbasetemp()
    return MemoEmbedder(shared=(base.parent if worker_id != "master" else base) / "minilm-vectors")


@pytest.fixture(autouse=True)
def _commands_embed_with_the_session_model(monkeypatch: pytest.MonkeyPatch, embedder: LocalEmbedder) -> None:
    """A command run in this process (`bot.cli.main`, `open_core` without an embedder) embeds with the session's
    MiniLM instead of loading a copy of its own or starting the helper process of `bot.embeddings.process` (seconds
    of CPU for each command). Same model, same vectors; tests/test_startup checks the commands' own loading in fresh
    interpreters, and tests that name `bot.core.make_embedder` themselves get the real one."""
    monkeypatch.setattr("bot.core.make_embedder", lambda settings: embedder)
    monkeypatch.setattr("bot.core.command_embedder", lambda settings: None)


@pytest.fixture(autouse=True)
def _no_sentence_vectors_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings built in a test (and commands it starts) keep no sentence vectors unless the test passes
    `sentence_vectors=True`: they are ~9 more texts a paper for the real model, and only tests of them need them
    (tests/test_sentence_vectors.py and the interests' ranking tests)."""
    monkeypatch.setenv("PAPERSCOUT_SENTENCE_VECTORS", "false")


@pytest.fixture(scope="session")
def demo_papers() -> list[Paper]:
    """The bundled real arXiv day (444 papers announced 2025-05-26)."""
    return read_jsonl([bundled_file("arxiv-2025-05-26.jsonl")])


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings with state under a fresh temporary directory and no network endpoints reachable."""
    return Settings(
        home=tmp_path / "home", arxiv_rss_url="http://127.0.0.1:9/rss/", arxiv_delay_seconds=0, ask_cooldown_seconds=0
    )


@pytest.fixture
async def core(settings: Settings, embedder: LocalEmbedder) -> AsyncIterator[Core]:
    """An opened Core (SQLite + embedded Chroma) in a temporary state directory."""
    async with open_core(settings, embedder) as opened:
        yield opened


@pytest.fixture
def context_lookups(core: Core, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The message ids whose context (`bot_message_context`: which answer a reply is to) is read from `core`'s store
    from now on, in order; each lookup still answers."""
    looked_up: list[str] = []
    lookup = core.repo.bot_message_context

    async def counted(place: str, message_id: str) -> str | None:
        looked_up.append(message_id)
        return await lookup(place, message_id)

    monkeypatch.setattr(core.repo, "bot_message_context", counted)
    return looked_up


# --- users, onboarding and console (issue 5): a day's first papers, embedded once per test session ---

StoreDay = Callable[[Core], Awaitable[list[Paper]]]


@pytest.fixture(scope="session")
def embedded_day(demo_papers: list[Paper], embedder: LocalEmbedder) -> tuple[list[Paper], np.ndarray]:
    """The first 60 papers of the bundled day (cleaned as ingest cleans them) and their vectors."""
    papers = [clean_paper(p) for p in demo_papers[:60]]
    return papers, paper_vectors(embedder.embed, papers)


@pytest.fixture
def store_day(embedded_day: tuple[list[Paper], np.ndarray]) -> StoreDay:
    """Store `embedded_day` in a core as `store_papers` would, without embedding again; returns the papers."""
    papers, vectors = embedded_day

    async def store(target: Core) -> list[Paper]:
        await target.repo.upsert_papers(papers)
        tldrs = {p.id: extractive_tldr(p) for p in papers}
        await target.repo.set_tldrs(tldrs, "extractive")
        await target.vectors.upsert(papers, vectors, [tldrs[p.id] for p in papers])
        return papers

    return store


# --- a real Chroma server (issue 15) ---


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[str]:
    """`chroma run` (the server the chromadb/chroma image runs, from the pinned package) on 127.0.0.1, its data
    under tmp_path; yields its URL."""
    with chroma_run(tmp_path / "chroma-server") as url:
        yield url


# --- posting a digest without the ledger (front-end tests) ---


async def post_all(poster: Poster, target: Target, digest: Digest) -> list[str]:
    """Send every message of `digest` in order through `poster`, as delivery does but without the ledger (each call
    its own nonce, so posting the same digest twice sends it twice); the platform's message ids."""
    sent: list[str] = []
    key = f"{target.key}:{digest.day.isoformat()}:{secrets.token_hex(4)}"
    for position, message in enumerate(poster.digest_messages(target, digest)):
        sent.append(await poster.send_digest_message(target, message, position, sent, f"{key}:{position}"))
    return sent


def watch_gone(driver: ChatDriver) -> asyncio.Event:
    """An event `driver` sets once its `gone` (retiring what the chat held) has finished: a test waits on what the
    code did, never on a clock."""
    finished = asyncio.Event()
    original = driver.gone

    async def gone(chat: str, reason: str) -> None:
        try:
            await original(chat, reason)
        finally:
            finished.set()

    driver.gone = gone  # type: ignore[method-assign]
    return finished


@dataclass
class Finished:
    """Calls of one async method that have finished (`watch_calls`): what each raised (None when it returned), and an
    event set once `count` of them have."""

    count: int
    raised: list[BaseException | None] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self, within: float = 30.0) -> list[BaseException | None]:
        """What the first `count` calls raised, once they have finished."""
        await asyncio.wait_for(self.done.wait(), within)
        return self.raised[: self.count]


def watch_calls(owner: object, name: str, count: int = 1) -> Finished:
    """Watch `owner`'s async method `name` (an instance's, as the code under test calls it): a test waits until the
    code has done something, and for an absence after it, never on a clock."""
    finished, original = Finished(count), getattr(owner, name)

    async def watched(*args: Any, **kwargs: Any) -> Any:
        error: BaseException | None = None
        try:
            return await original(*args, **kwargs)
        except BaseException as exc:
            error = exc
            raise
        finally:
            finished.raised.append(error)
            if len(finished.raised) >= finished.count:
                finished.done.set()

    setattr(owner, name, watched)
    return finished


def refused_url() -> str:
    """An http URL on 127.0.0.1 where nothing listens (a port the system handed out, then closed): connecting to it
    is refused at once, as a platform that cannot be reached."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
