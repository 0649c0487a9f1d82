"""The `paperscout` command end to end, in-process: demo, ingest, digest, search, eval and its error lines."""

from __future__ import annotations

import json
import re
import signal
import threading
from pathlib import Path

import numpy as np
import pytest

from bot.cli import main
from bot.embeddings.embedder import LocalEmbedder
from bot.errors import ResourceError, StateError, explained, thread_refused
from bot.ingest.bundled import bundled_file

BUNDLED_DAY = bundled_file("arxiv-2025-05-26.jsonl")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh PAPERSCOUT_HOME with arXiv pointed at a closed local port."""
    monkeypatch.setenv("PAPERSCOUT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PAPERSCOUT_ARXIV_RSS_URL", "http://127.0.0.1:9/rss/")
    monkeypatch.setenv("PAPERSCOUT_ARXIV_API_URL", "http://127.0.0.1:9/api/query")
    monkeypatch.setenv("PAPERSCOUT_ARXIV_DELAY_SECONDS", "0")
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)
    return tmp_path / "home"


def small_day(tmp_path: Path, count: int = 30) -> Path:
    """The first `count` papers of the bundled day as a JSONL file."""
    path = tmp_path / "small.jsonl"
    path.write_text("\n".join(BUNDLED_DAY.read_text(encoding="utf-8").splitlines()[:count]) + "\n", encoding="utf-8")
    return path


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("paperscout: error: ")
    return lines[0]


@pytest.mark.slow
def test_a_demo_while_another_writes_its_archive_is_refused_in_one_line(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo ingests, so it takes the writer lock of its archive like `ingest`: two demos at once would write the
    embedded vector store from two processes."""
    from bot.config import Settings
    from bot.store.archive_lock import hold_archive

    demo_home = Settings(home=home / "demo")  # type: ignore[call-arg]
    with hold_archive(demo_home, "demo"):
        assert main(["demo"]) != 0
    assert re.search(r"being written by pid \d+ \(demo, since", capsys.readouterr().err)
    assert not (home / "demo" / "paperscout.sqlite3").exists()


def refuse_threads(*args: object, **kwargs: object) -> int:
    raise RuntimeError("can't start new thread")  # what CPython raises when the system refuses a thread


def thread_starter() -> str:
    """The function of `threading` that `Thread.start` calls on this interpreter to start a thread: 3.13 calls
    `_start_joinable_thread`, earlier versions `_start_new_thread`."""
    called = threading.Thread.start.__code__.co_names
    [name] = [n for n in ("_start_joinable_thread", "_start_new_thread") if n in called]
    return name


def test_refusing_the_thread_starter_refuses_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threading, thread_starter(), refuse_threads)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        threading.Thread(target=print).start()


def test_a_thread_the_system_refuses_is_one_line_naming_the_limit_and_what_to_do(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Out of memory or at the limit on threads, CPython says only "can't start new thread" (here the database's
    worker thread is refused first)."""
    monkeypatch.setattr(threading, thread_starter(), refuse_threads)
    assert main(["search", "graphs"]) == 1
    monkeypatch.undo()
    line = one_error_line(capsys.readouterr().err)
    assert "RuntimeError" not in line and "the system refused to start a thread" in line, line
    assert re.search(r"\(ulimit -u: (unlimited|\d+); a container's pids limit counts too\)", line), line
    assert "PAPERSCOUT_EMBED_THREADS" in line


def test_a_vector_store_refused_a_thread_is_not_called_damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chroma starts threads as it opens; a refusal there is the system's limit, not a damaged directory that
    `db --repair` would rebuild."""
    import chromadb

    from bot.config import Settings
    from bot.store.vectors import chroma_client

    monkeypatch.setattr(chromadb, "PersistentClient", refuse_threads)
    with pytest.raises(ResourceError, match="the system refused to start a thread") as refused:
        chroma_client(Settings(home=tmp_path / "home"))  # type: ignore[call-arg]
    assert "--repair" not in str(refused.value)


def test_db_says_a_refused_thread_once_without_advising_a_repair(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The store's check fails when Chroma cannot start its threads: that is the system's limit, not a store that
    disagrees with SQLite, and `db --repair` would rebuild it for nothing."""
    import chromadb

    assert main(["db"]) == 0  # the state directory made, the database opened
    capsys.readouterr()
    monkeypatch.setattr(chromadb, "PersistentClient", refuse_threads)
    assert main(["db"]) == 1
    out, err = capsys.readouterr()
    assert "the system refused to start a thread" in one_error_line(err)
    assert "--repair" not in out + err and "mismatch" not in out, out


def test_our_own_error_caused_by_a_refused_thread_is_explained_in_the_error_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def refused_database(path: Path) -> None:
        try:
            refuse_threads()
        except RuntimeError as exc:
            raise StateError("the database could not be opened") from exc

    monkeypatch.setattr("bot.core.open_database", refused_database)
    assert main(["search", "graphs"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "the system refused to start a thread" in line and "ulimit -u" in line, line


def test_a_refused_thread_is_explained_through_the_errors_it_caused() -> None:
    try:
        try:
            refuse_threads()
        except RuntimeError as exc:
            raise StateError("the database could not be opened") from exc
    except StateError as exc:
        assert isinstance(thread_refused(exc), ResourceError)
        assert explained(exc) is not exc
    other = RuntimeError("can't start new thread: a different message")
    assert thread_refused(other) is None and explained(other) is other


class RecordingEmbedder:
    """The session's MiniLM, noting every text it embeds."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return self.inner.embed(texts)


def test_the_stores_ask_opens_embed_with_torch_and_only_questions_with_numpy(
    home: Path, monkeypatch: pytest.MonkeyPatch, embedder: LocalEmbedder
) -> None:
    """`ask` embeds its question in NumPy (bot.embeddings.query); a vector it stores (a ranking for a member embeds
    the papers without one) is the bulk embedder's, as every stored vector is, even for a text short enough for
    NumPy."""
    import argparse
    import datetime as dt

    from bot.core import Core
    from bot.embeddings.query import QueryEmbedder
    from bot.ingest.vectors import ranking_vectors
    from bot.models import Paper

    bulk = RecordingEmbedder(embedder)
    query = QueryEmbedder(bulk)
    monkeypatch.setattr("bot.core.command_embedder", lambda settings: query)
    paper = Paper("2505.00001", "Sparse attention", ("A. Author",), "Short.", ("cs.LG",), dt.date(2025, 5, 26))

    async def handler(core: Core, args: argparse.Namespace) -> int:
        assert core.query_embedder is query
        assert core.vectors.embedder is bulk and core.sentences.embedder is bulk
        await core.repo.upsert_papers([paper])
        await ranking_vectors(core, [paper])
        return 0

    monkeypatch.setattr("bot.cli.cmd_ask", handler)
    assert main(["ask", "sparse attention"]) == 0
    assert paper.title in bulk.texts  # stored: embedded by torch (`bulk`), not by the question's NumPy


def test_demo_prints_a_digest_of_real_papers_and_a_search(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--size", "12"]) == 0
    out = capsys.readouterr().out
    assert "Scanned 444 papers, picked 12." in out
    assert out.count("    https://arxiv.org/abs/2505.") == 12
    assert out.count("    TL;DR ") == 12
    assert "**" not in out and "](" not in out, "a terminal gets text, not raw Markdown"
    # the demo's search says how many matched, those only close in meaning counted apart
    assert "Search:" in out and re.search(r"\d+ stored papers? match|No stored paper carries the words; \d+ are", out)
    assert (home / "demo" / "paperscout.sqlite3").exists()
    # the closing tip leads somewhere that works from here: the console starts from the bundled day, and the
    # digest command (which reads the real, still empty archive) is not offered as the next step
    tip = out.rsplit("Next:", 1)[1]
    assert "paperscout console" in tip and "digest --profile" not in tip and "starts empty" in tip


@pytest.mark.slow
def test_ingest_then_digest_json_and_search(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", "--jsonl", str(small_day(tmp_path))]) == 0
    assert "30 papers: 30 new" in capsys.readouterr().out
    assert main(["ingest", "--jsonl", str(small_day(tmp_path))]) == 0
    assert "0 new, 0 updated, 30 unchanged; 0 embedded" in capsys.readouterr().out

    assert main(["digest", "--date", "2025-05-26", "--format", "json", "--size", "5"]) == 0
    digest = json.loads(capsys.readouterr().out)
    assert digest["scanned"] == 30 and digest["picked"] == 5
    assert [p["rank"] for p in digest["papers"]] == [1, 2, 3, 4, 5]
    assert all(p["url"].startswith("https://arxiv.org/abs/") and p["tldr"] for p in digest["papers"])

    assert main(["search", "recurrent", "neural", "network", "--json", "--limit", "3"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert 1 <= len(hits) <= 3 and hits[0]["id"] == "2505.17023"  # ReMi, the day's only recurrent network
    # the CLI shares /search's cut-off: none of these 30 papers is about graph neural networks
    assert main(["search", "graph", "neural", "network", "--json", "--limit", "3"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["search", "graph", "--since", "2026-01-01"]) == 0
    assert "No stored paper matches" in capsys.readouterr().out
    # a search says how many papers match and pages through all of them, numbered in the whole list
    assert main(["search", "language", "models", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    # those carrying the words and those only close in meaning are counted apart, and add up to what is listed
    counted = re.match(r"(\d+) stored papers match(?:; (\d+) more are close in meaning)?, 1-2 here:", out)
    assert counted is not None, out
    total = int(counted.group(1)) + int(counted.group(2) or 0)
    assert total > 2 and "--page 2" in out
    pages = []
    for page in range(1, (total + 1) // 2 + 2):
        assert main(["search", "language", "models", "--limit", "2", "--page", str(page), "--json"]) == 0
        pages.append([h["id"] for h in json.loads(capsys.readouterr().out)])
    listed = [paper_id for page in pages for paper_id in page]
    assert len(listed) == len(set(listed)) == total and pages[-1] == []
    assert main(["search", "language", "models", "--limit", "2", "--page", "2"]) == 0
    assert " 3. [" in capsys.readouterr().out

    first = digest["papers"][0]
    assert main(["paper", first["id"], "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["id"] == first["id"] and card["tldr"] and card["relevance"] is None
    assert main(["paper", f"arXiv:{first['id']}v2"]) == 0
    assert capsys.readouterr().out.startswith(first["title"])
    assert main(["why", first["id"]]) == 0
    why = capsys.readouterr().out
    assert "#1 of 30 papers on 2025-05-26" in why and "/10" not in why  # no made-up 1-10 scores
    # "today" is the latest stored day at or before now, for every command
    assert main(["ask", "graph", "papers", "today"]) == 0
    assert "2025-05-26" in capsys.readouterr().out


class StoppedEmbedder(LocalEmbedder):
    """The session's model, and a SIGTERM to the command (as `timeout` sends one) while it embeds its second chunk."""

    def __init__(self, real: LocalEmbedder) -> None:
        super().__init__()
        self.real, self.calls = real, 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == 2:
            # Python's own handler would end the test run itself, as it ended the command without a word
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL, "SIGTERM ends the command silently"
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)
        return self.real.embed(texts)


@pytest.mark.slow
def test_a_sigterm_during_an_ingest_is_one_line_and_the_next_ingest_continues(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    embedder: LocalEmbedder,
) -> None:
    monkeypatch.setattr("bot.ingest.vectors.EMBED_CHUNK", 10)
    stopped = StoppedEmbedder(embedder)
    monkeypatch.setattr("bot.core.make_embedder", lambda settings: stopped)
    previous = signal.getsignal(signal.SIGTERM)
    assert main(["ingest", "--jsonl", str(small_day(tmp_path))]) == 143
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == (
        "paperscout: stopped by SIGTERM; everything finished before it is stored, "
        "and running the same command again continues from there"
    )
    assert signal.getsignal(signal.SIGTERM) is previous  # an in-process caller gets its own handler back
    # the first chunk was stored; the next ingest embeds only the other two
    monkeypatch.setattr("bot.core.make_embedder", lambda settings: embedder)
    assert main(["ingest", "--jsonl", str(small_day(tmp_path))]) == 0
    assert "30 papers: 0 new, 0 updated, 30 unchanged; 20 embedded" in capsys.readouterr().out


def test_a_malformed_jsonl_line_is_one_error_line_and_loses_nothing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", "--jsonl", str(small_day(tmp_path, 5))]) == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        small_day(tmp_path, 3).read_text(encoding="utf-8") + '{"id": "2505.99999", "title": \n', encoding="utf-8"
    )
    capsys.readouterr()
    assert main(["ingest", "--jsonl", str(bad)]) == 1
    assert "bad.jsonl:4: not valid JSON" in one_error_line(capsys.readouterr().err)
    assert main(["db"]) == 0
    assert "papers:          5 " in capsys.readouterr().out
    assert main(["db", "--refresh-vectors"]) == 0
    assert "vectors refreshed: 0 of 5 papers embedded again" in capsys.readouterr().out


def test_a_profile_with_an_unknown_field_is_one_error_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text('name = "x"\nfavourite = "moe"\n[[topics]]\nwant = "moe"\n', encoding="utf-8")
    assert main(["digest", "--profile", str(profile)]) == 1
    assert "unknown field 'favourite'" in one_error_line(capsys.readouterr().err)


def test_an_unreachable_arxiv_is_one_error_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "127.0.0.1" in line


def test_a_corrupt_state_dir_is_one_error_line(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home.mkdir(parents=True)
    (home / "paperscout.sqlite3").write_bytes(b"\x00garbage" * 512)
    assert main(["db"]) == 1
    assert "not a usable SQLite file" in one_error_line(capsys.readouterr().err)
    assert (home / "paperscout.sqlite3").read_bytes().startswith(b"\x00garbage")  # left for the admin to restore


@pytest.mark.parametrize("where", ["home", "under it"])
def test_a_home_that_is_a_file_is_named_as_one_not_file_exists(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A PAPERSCOUT_HOME set to a file (or a path under one) said "File exists; check the path and its permissions"."""
    home.parent.mkdir(parents=True, exist_ok=True)
    home.write_text("not a folder")
    if where == "under it":
        monkeypatch.setenv("PAPERSCOUT_HOME", str(home / "state"))
    assert main(["status"]) == 1
    assert one_error_line(capsys.readouterr().err) == (
        f"paperscout: error: {home} is a file where a folder is needed (is PAPERSCOUT_HOME right?)"
    )


@pytest.mark.slow
def test_eval_json_prints_exactly_one_object(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    (data / "arxiv").mkdir(parents=True)
    (data / "labels").mkdir()
    lines = BUNDLED_DAY.read_text(encoding="utf-8").splitlines()[:40]
    (data / "arxiv" / "2025-05-26.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    picks = {json.loads(line)["id"]: {"relevance": 9, "novelty": 8} for line in lines[:5]}
    (data / "labels" / "2025-05-26.json").write_text(json.dumps({"picks": picks}), encoding="utf-8")

    assert main(["eval", "--data", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"days", "mean"}
    assert set(report["days"]["2025-05-26"]) == {"auc", "recall@50", "recall@100", "recall@150"}
    assert 0.0 <= report["mean"]["auc"] <= 1.0
    assert report["mean"]["recall@50"] == 1.0  # 40 papers: every pick is in the top 50

    # a day without labels is left out with a warning, not silently
    (data / "arxiv" / "2025-05-28.jsonl").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    assert main(["eval", "--data", str(data), "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["days"]) == ["2025-05-26"]
    assert "no labels for 2025-05-28; that day is left out" in caplog.text


def test_users_lists_exports_and_forgets_a_member_for_the_admin(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from bot.config import load_settings
    from bot.core import open_core
    from bot.models import Profile, Topic

    async def member() -> None:
        async with open_core(load_settings()) as core:
            await core.repo.ensure_user("telegram:42", "Ada")
            await core.repo.save_profile("user:telegram:42", Profile(name="Ada", topics=(Topic("t", "graph nets"),)))
            await core.repo.save_user_settings(
                "telegram:42", digest_mode="daily", post_time="08:00", timezone="Europe/Paris", weekly_day=0
            )
            await core.repo.add_feedback("telegram:42", "2505.17083", -1)

    assert main(["users"]) == 0
    assert "No members yet" in capsys.readouterr().out
    asyncio.run(member())
    assert main(["users"]) == 0
    listed = capsys.readouterr().out
    assert "telegram:42" in listed and "Ada" in listed and "08:00" in listed and "Europe/Paris" in listed
    assert main(["users", "export", "telegram:42"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["feedback"][0]["paper_id"] == "2505.17083" and exported["profile"]["name"] == "Ada"

    assert main(["users", "forget", "telegram:42"]) == 1  # not without --yes
    assert "add --yes to confirm" in one_error_line(capsys.readouterr().err)
    assert main(["users", "forget", "telegram:42", "--yes"]) == 0
    assert "Deleted everything stored about telegram:42" in capsys.readouterr().out
    assert main(["users", "export", "telegram:42"]) == 1
    assert "nothing is stored about telegram:42" in one_error_line(capsys.readouterr().err)
    assert main(["users", "export"]) == 1
    assert "needs a user key" in one_error_line(capsys.readouterr().err)
    assert main(["users", "export", "not a key"]) == 1
