"""SQLite: migrations from an empty file, integrity checks, the repository's upserts and the posting ledger."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.errors import StateError
from bot.models import Paper, Target
from bot.ranking.profiles import load_profile
from bot.store.connection import open_database
from bot.store.migrations import LATEST_VERSION
from bot.store.repos import CachedScore, Repository

DAY = dt.date(2025, 5, 26)


def make_paper(paper_id: str = "2505.00001", **changes: object) -> Paper:
    paper = Paper(
        id=paper_id,
        title="Sparse Mixture-of-Experts Routing",
        authors=("Ada Lovelace", "Alan Turing"),
        abstract="We propose a router. It works.",
        categories=("cs.LG", "cs.AI"),
        announced=DAY,
        version=1,
    )
    return replace(paper, **changes)  # type: ignore[arg-type]


async def test_migrates_an_empty_database_to_the_latest_version(tmp_path: Path) -> None:
    conn = await open_database(tmp_path / "new.sqlite3")
    try:
        async with conn.execute("PRAGMA user_version") as cursor:
            assert (await cursor.fetchone())[0] == LATEST_VERSION
        async with conn.execute("PRAGMA journal_mode") as cursor:
            assert (await cursor.fetchone())[0] == "wal"
        async with conn.execute("SELECT name FROM sqlite_master WHERE type='table'") as cursor:
            tables = {r[0] async for r in cursor}
        assert {"papers", "profiles", "targets", "scores", "ledger", "ledger_papers", "papers_fts"} <= tables
    finally:
        await conn.close()
    # reopening an up-to-date database changes nothing
    conn = await open_database(tmp_path / "new.sqlite3")
    await conn.close()


async def test_a_store_another_process_migrates_meanwhile_is_waited_for_and_not_migrated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # two commands opening an older store at once (the bot starting, an `ask`): the second read the old version,
    # waited for the write lock only as long as any write (BUSY_TIMEOUT_MS; a migration filling an index takes
    # longer on a large archive) and then ran the migration again ("table ... already exists"), each ending in
    # "not a usable SQLite file ...; restore it from a backup"
    from bot.store import connection
    from bot.store.migrations import MIGRATIONS

    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 200)  # a write's wait, shorter than the other's migration
    path = tmp_path / "older.sqlite3"
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode = WAL")
    for script in MIGRATIONS[:-1]:
        raw.executescript(script)
    raw.execute(f"PRAGMA user_version = {LATEST_VERSION - 1}")
    raw.execute("BEGIN IMMEDIATE")  # the other process migrating: it holds the write lock
    opening = asyncio.create_task(open_database(path))
    await asyncio.sleep(1.0)  # this one has read the older version and waits for the lock
    for statement in connection._statements(MIGRATIONS[-1]):
        raw.execute(statement)
    raw.execute(f"PRAGMA user_version = {LATEST_VERSION}")
    raw.execute("COMMIT")
    raw.close()
    conn = await opening
    try:
        async with conn.execute("PRAGMA user_version") as cursor:
            assert (await cursor.fetchone())[0] == LATEST_VERSION
    finally:
        await conn.close()


async def test_a_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(StateError, match="newer than this paperscout"):
        await open_database(path)


async def test_a_corrupt_database_file_is_a_state_error(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StateError, match="not a usable SQLite file"):
        await open_database(path)


def test_a_database_that_cannot_be_opened_is_one_line_and_no_thread_traceback(tmp_path: Path) -> None:
    """aiosqlite's worker thread, left behind by a failed open, printed a traceback after the one-line error."""
    home = tmp_path / "home"
    (home / "paperscout.sqlite3").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update(PAPERSCOUT_HOME=str(home), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    for command in ("status", "search"):
        args = [command] + (["anything"] if command == "search" else [])
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", *args], env=env, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 1
        assert done.stderr.splitlines() == [
            f"paperscout: error: cannot open the database {home / 'paperscout.sqlite3'}: unable to open database file"
        ], done.stderr


def test_a_read_only_home_is_named_read_only_not_a_damaged_database(tmp_path: Path) -> None:
    """It was 'not a usable SQLite file ... restore it from a backup', which sends people to their backups."""
    from tests.test_doctor import _immutable

    home = tmp_path / "home"
    home.mkdir()

    async def open_and_close() -> None:
        await (await open_database(home / "paperscout.sqlite3")).close()

    asyncio.run(open_and_close())
    for leftover in home.glob("paperscout.sqlite3-*"):
        leftover.unlink()
    if not _immutable(home):
        pytest.skip("running as root where chattr +i is not permitted: no way to make a directory read-only")
    try:
        with pytest.raises(StateError) as raised:
            asyncio.run(open_and_close())
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(home)], check=True)
        else:
            home.chmod(0o755)
    assert f"cannot be written: its folder {home} is read-only" in str(raised.value)
    assert "backup" not in str(raised.value)


def test_a_first_run_in_a_read_only_home_names_the_folder_not_sqlites_unable_to_open(tmp_path: Path) -> None:
    """A new database in a folder that cannot be written was "unable to open database file": say which and why."""
    from tests.test_doctor import _immutable

    home = tmp_path / "home"
    home.mkdir()
    if not _immutable(home):
        pytest.skip("running as root where chattr +i is not permitted: no way to make a directory read-only")
    try:
        with pytest.raises(StateError) as raised:
            asyncio.run(open_database(home / "paperscout.sqlite3"))
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(home)], check=True)
        else:
            home.chmod(0o755)
    assert f"cannot create the database {home / 'paperscout.sqlite3'}: its folder {home} is read-only" in str(
        raised.value
    )
    assert "PAPERSCOUT_HOME" in str(raised.value)


async def test_upsert_is_idempotent_and_replacements_update_in_place(tmp_path: Path) -> None:
    repo = Repository(await open_database(tmp_path / "db.sqlite3"))
    try:
        first = await repo.upsert_papers([make_paper()])
        again = await repo.upsert_papers([make_paper()])
        assert (first.inserted, again.inserted, again.unchanged) == (1, 0, 1)
        await repo.set_tldrs({"2505.00001": "A router."}, "extractive")

        replaced = make_paper(abstract="We propose a better router.", version=2, announced=DAY + dt.timedelta(days=2))
        counts = await repo.upsert_papers([replaced])
        assert counts.updated == 1
        stored = (await repo.get_papers(["2505.00001"]))[0]
        assert stored.abstract == "We propose a better router."
        assert stored.version == 2
        assert stored.announced == DAY  # keeps the day it was first announced
        assert await repo.tldrs(["2505.00001"]) == {}  # text changed: summarise again
        assert await repo.count_papers() == 1
        assert await repo.lexical_search([["better", "router"]], DAY, DAY, 5) != []
        assert await repo.lexical_search([["better", "banana"]], DAY, DAY, 5) == []
    finally:
        await repo.close()


async def test_a_failed_batch_stores_nothing(tmp_path: Path) -> None:
    repo = Repository(await open_database(tmp_path / "db.sqlite3"))
    try:
        await repo.upsert_papers([make_paper("2505.00001")])
        broken = make_paper("2505.00002", title=None)  # NOT NULL violation half-way through the batch
        with pytest.raises(sqlite3.IntegrityError):
            await repo.upsert_papers([make_paper("2505.00003"), broken])
        assert [p.id for p in await repo.papers_on(DAY)] == ["2505.00001"]
    finally:
        await repo.close()


async def test_ledger_claims_once_and_takes_over_a_crashed_claim(tmp_path: Path) -> None:
    repo = Repository(await open_database(tmp_path / "db.sqlite3"))
    try:
        profile = load_profile(Path(__file__).parents[1] / "bot" / "ingest" / "data" / "example_profile.toml")
        await repo.save_profile("channel:console:main", profile)
        target_id = await repo.save_target(Target("console", "main", profile.name), "channel:console:main")
        await repo.upsert_papers([make_paper()])

        assert await repo.claim_post(target_id, DAY)
        # a crash here leaves the claim; the restarted bot may claim again and post
        assert await repo.claim_post(target_id, DAY)
        await repo.mark_sent(target_id, DAY, ["2505.00001"])
        assert not await repo.claim_post(target_id, DAY)
        assert await repo.last_sent_day(target_id) == DAY
        assert await repo.sent_paper_ids([target_id], DAY) == {"2505.00001"}
        [(target, stored_profile)] = await repo.targets()
        assert target.id == target_id and stored_profile == profile
    finally:
        await repo.close()


async def test_score_cache_round_trip(tmp_path: Path) -> None:
    repo = Repository(await open_database(tmp_path / "db.sqlite3"))
    try:
        await repo.upsert_papers([make_paper()])
        await repo.store_scores({"2505.00001": CachedScore(9, 7, "MoE routing")}, "fp1", "model-a")
        assert await repo.cached_scores(["2505.00001"], "fp1", "model-a") == {
            "2505.00001": CachedScore(9, 7, "MoE routing")
        }
        assert await repo.cached_scores(["2505.00001"], "fp2", "model-a") == {}
    finally:
        await repo.close()


async def test_concurrent_writers_take_turns_on_the_one_connection(tmp_path: Path) -> None:
    # adapters handle several users at once: reactions and usage records must not collide mid-transaction
    import asyncio

    conn = await open_database(tmp_path / "db.sqlite3")
    repo = Repository(conn)
    try:
        await asyncio.gather(
            *(repo.add_feedback(f"console:u{i}", f"2505.{17000 + i}", 1) for i in range(5)),
            *(repo.ensure_user(f"console:v{i}", "V") for i in range(5)),
        )
        assert [len(await repo.user_feedback_rows(f"console:u{i}")) for i in range(5)] == [1] * 5
        assert all([await repo.get_user(f"console:v{i}") for i in range(5)])
    finally:
        await repo.close()


async def test_a_gone_channel_retired_twice_keeps_its_first_reason_and_logs_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.digests.delivery import retire

    repo = Repository(await open_database(tmp_path / "s.sqlite3"))
    profile = load_profile(Path(__file__).parents[1] / "bot" / "ingest" / "data" / "example_profile.toml")
    core = SimpleNamespace(repo=repo)
    try:
        await repo.save_profile("telegram:-1", profile)
        await repo.save_target(Target("telegram", "-1", profile.name), "telegram:-1")
        found = await repo.target_at("telegram", "-1")
        assert found is not None
        target = found[0]
        with caplog.at_level("WARNING", logger="bot.digests.delivery"):
            await retire(core, target, "chat not found")  # type: ignore[arg-type]
            await retire(core, target, "Forbidden: bot was kicked")  # type: ignore[arg-type]
        assert await repo.inactive_reasons() == {target.id: "chat not found"}
        assert len([r for r in caplog.records if "inactive" in r.getMessage()]) == 1
    finally:
        await repo.close()


async def test_a_moved_chat_takes_its_target_profile_and_setup_along_unless_the_new_chat_has_its_own(
    tmp_path: Path,
) -> None:
    repo = Repository(await open_database(tmp_path / "s.sqlite3"))
    profile = load_profile(Path(__file__).parents[1] / "bot" / "ingest" / "data" / "example_profile.toml")
    try:
        for chat in ("-1", "-3"):
            await repo.save_profile(f"telegram:{chat}", profile)
            await repo.save_target(Target("telegram", chat, profile.name), f"telegram:{chat}")
        await repo.save_chat_state("telegram:7", "setup", '{"step": 2}', "telegram:-1")
        assert await repo.move_chat("telegram", "-1", "-2") == "moved"
        assert await repo.target_at("telegram", "-1") is None
        assert await repo.target_at("telegram", "-2") is not None
        assert await repo.get_profile("telegram:-2") is not None
        assert await repo.chat_state("telegram:7", "setup", "telegram:-2") == '{"step": 2}'
        await repo.save_profile("telegram:-4", profile)
        await repo.save_target(Target("telegram", "-4", profile.name), "telegram:-4")
        assert await repo.move_chat("telegram", "-3", "-4") == "kept"
        kept = await repo.target_at("telegram", "-3")
        assert kept is not None and kept[0].id in await repo.inactive_reasons()
        assert await repo.move_chat("telegram", "-9", "-10") == "none"
    finally:
        await repo.close()


async def test_job_runs_older_than_a_month_go_but_the_latest_of_each_outcome_stays(tmp_path: Path) -> None:
    repo = Repository(await open_database(tmp_path / "s.sqlite3"))
    try:
        for job, outcome in [("digests", "nothing")] * 3 + [("ingest", "ok"), ("ingest", "failed")]:
            await repo.finish_job_run(await repo.start_job_run(job), outcome)
        await repo.conn.execute("UPDATE job_runs SET started_at='2020-01-01T00:00:00Z'")
        await repo.conn.commit()
        await repo.finish_job_run(await repo.start_job_run("digests"), "nothing")
        async with repo.conn.execute("SELECT job, outcome FROM job_runs ORDER BY id") as cursor:
            kept = [tuple(row) async for row in cursor]
        assert kept == [("digests", "nothing"), ("ingest", "ok"), ("ingest", "failed"), ("digests", "nothing")]
    finally:
        await repo.close()
