"""Opening the SQLite database: pragmas, integrity checks and migrations."""

from __future__ import annotations

import logging
import sqlite3
import tempfile
from pathlib import Path
from urllib.parse import quote

import aiosqlite

from bot.errors import StateError
from bot.store.migrations import LATEST_VERSION, MIGRATIONS, TITLE_WORDS_VERSION
from bot.store.repos.papers import fill_title_words

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
# how long opening a store waits for another process's migration of it (the bot starting while an `ask` opens the
# same older store): filling an index over a large archive takes longer than any write
MIGRATION_WAIT_MS = 600_000


async def migrate(conn: aiosqlite.Connection) -> int:
    """Bring the schema to `LATEST_VERSION`, every pending migration in one transaction (a crash or an error leaves
    the store as it was, and the next open runs them all again); returns the version found before migrating."""
    found = await _version(conn)
    if found > LATEST_VERSION:
        raise StateError(
            f"the database is at schema version {found}, newer than this paperscout ({LATEST_VERSION}); upgrade it"
        )
    if found == LATEST_VERSION:
        return found
    # executescript would commit on its own; run the statements one by one inside our transaction instead
    await conn.execute(f"PRAGMA busy_timeout = {MIGRATION_WAIT_MS}")
    try:
        await conn.execute("BEGIN IMMEDIATE")
    finally:
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        current = await _version(conn)  # another process may have migrated it while this one waited for the lock
        for version in range(current + 1, LATEST_VERSION + 1):
            for statement in _statements(MIGRATIONS[version - 1]):
                await conn.execute(statement)
            if version == TITLE_WORDS_VERSION:  # a table SQL cannot fill: words as the typo look-up splits them
                await fill_title_words(conn)
            log.info("schema version %d made (committed with the others)", version)
        await conn.execute(f"PRAGMA user_version = {LATEST_VERSION}")
        await conn.commit()
        log.info("database migrated to schema version %d", LATEST_VERSION)
    except BaseException:
        await conn.rollback()
        raise
    return found


async def _version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    return int(row[0]) if row else 0


def _statements(script: str) -> list[str]:
    """Split a migration script into complete statements."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


def _read_only(path: Path) -> str:
    """Why `path` or its folder cannot be written ('' when both can): SQLite reports either as a failed open."""
    for what, probe in (
        (f"its folder {path.parent} is read-only", lambda: tempfile.TemporaryFile(dir=path.parent).close()),
        ("the file is read-only", lambda: open(path, "ab").close()),
    ):
        try:
            probe()
        except OSError as exc:
            return f"{what} ({exc.strerror or exc})"
    return ""


def _check_opens(target: str, path: Path, *, uri: bool = False, writing: bool = False) -> None:
    """Open and close `target` once here first: when aiosqlite fails to open, its worker thread outlives the event
    loop and prints a traceback after our one-line error. `writing`: say so when the file or its folder is read-only
    (SQLite says only "unable to open database file")."""
    try:
        sqlite3.connect(target, uri=uri).close()
    except sqlite3.Error as exc:
        read_only = _read_only(path) if writing and not path.exists() else ""  # probes the folder first
        if read_only:
            raise StateError(
                f"cannot create the database {path}: {read_only}; make it writable, or point PAPERSCOUT_HOME at a"
                " writable folder"
            ) from None
        raise StateError(f"cannot open the database {path}: {exc}") from None


async def open_database(path: Path) -> aiosqlite.Connection:
    """Open (creating if needed) and migrate the database at `path`; raises StateError if it is unusable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _check_opens(str(path), path, writing=True)
    try:
        conn = await aiosqlite.connect(path, isolation_level=None)
    except sqlite3.Error as exc:
        raise StateError(f"cannot open the database {path}: {exc}") from None
    try:
        conn.row_factory = aiosqlite.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute("PRAGMA synchronous = NORMAL")
        async with conn.execute("PRAGMA quick_check") as cursor:
            row = await cursor.fetchone()
        if row is None or row[0] != "ok":
            raise StateError(f"the database {path} failed its integrity check: {row[0] if row else 'no answer'}")
        await migrate(conn)
    except sqlite3.DatabaseError as exc:
        await conn.close()
        read_only = _read_only(path)
        if read_only:  # a read-only mount or file is not damage: no backup needed
            raise StateError(
                f"the database {path} cannot be written: {read_only}; make it writable, or point PAPERSCOUT_HOME at a"
                " writable folder"
            ) from None
        raise StateError(f"the database {path} is not a usable SQLite file ({exc}); restore it from a backup") from None
    except BaseException:
        await conn.close()
        raise
    return conn


async def open_read_only(path: Path) -> aiosqlite.Connection:
    """Open an existing database for reading only: no migration, nothing created (for `paperscout doctor`)."""
    uri = f"file:{quote(str(path))}?mode=ro"
    _check_opens(uri, path, uri=True)
    try:
        conn = await aiosqlite.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise StateError(f"cannot open the database {path}: {exc}") from None
    conn.row_factory = aiosqlite.Row
    try:
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except BaseException:
        await conn.close()
        raise
    return conn


async def schema_state(conn: aiosqlite.Connection) -> tuple[int, str]:
    """The schema version (``PRAGMA user_version``) and the result of SQLite's quick integrity check."""
    async with conn.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    version = int(row[0]) if row else 0
    async with conn.execute("PRAGMA quick_check") as cursor:
        row = await cursor.fetchone()
    return version, str(row[0]) if row else "no answer"
