"""What every part of the repository shares: the connection, write transactions and row/SQL helpers.

All SQL of paperscout lives in this package, one module per concept (papers and text, profiles/targets and the
posting ledger, the LLM cache and usage, members and their feedback); `Repository` in ``__init__`` joins them.
Writes that belong together run in one `BEGIN IMMEDIATE` transaction, so a crash or an error leaves the database
as it was before the call.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager

import aiosqlite

from bot.models import Paper, Target, UserRecord, day_to_int, int_to_day

log = logging.getLogger(__name__)


def stored_strings(text: object, what: str) -> tuple[str, ...]:
    """A stored JSON list of strings; a damaged value (not JSON, not a list) is read as empty and logged, so one
    bad row cannot end a job that reads many."""
    try:
        value = json.loads(text)  # type: ignore[arg-type]
    except (TypeError, ValueError, RecursionError):
        value = None
    if not isinstance(value, list):
        log.warning("stored %s %r is not a JSON list of names; read as empty", what, str(text)[:80])
        return ()
    return tuple(v for v in value if isinstance(v, str))


def paper_from_row(row: aiosqlite.Row) -> Paper:
    return Paper(
        id=row["id"],
        title=row["title"],
        authors=stored_strings(row["authors"], f"authors of paper {row['id']}"),
        abstract=row["abstract"],
        categories=stored_strings(row["categories"], f"categories of paper {row['id']}"),
        announced=int_to_day(row["announced"]),
        comment=row["comment"],
        version=row["version"],
        announce_type=row["announce_type"],
    )


def target_from_row(row: aiosqlite.Row) -> Target:
    """A target from a `targets` row joined with its profile's name (as `profile_name`)."""
    return Target(
        id=row["id"],
        platform=row["platform"],
        chat_id=row["chat_id"],
        profile_name=row["profile_name"],
        categories=stored_strings(row["categories"], f"categories of target {row['id']}"),
        post_time=row["post_time"],
        timezone=row["timezone"],
        digest_size=row["digest_size"],
        paused=bool(row["paused"]),
        schedule=row["schedule"],
        weekly_day=row["weekly_day"],
    )


def user_from_row(row: aiosqlite.Row) -> UserRecord:
    """A user from a `users` row: the table's columns are the record's fields."""
    return UserRecord(**{f.name: row[f.name] for f in dataclasses.fields(UserRecord)})


def utc_stamp(age: dt.timedelta) -> str:
    """The UTC time `age` ago, in the format the tables' `strftime` defaults write (so strings compare by time)."""
    return (dt.datetime.now(dt.UTC) - age).strftime("%Y-%m-%dT%H:%M:%SZ")


def placeholders(count: int) -> str:
    """`count` SQL host parameters: '?,?,?'."""
    return ",".join("?" * count)


def fts_all_of(words: Iterable[str]) -> str:
    """An FTS5 query matching rows that contain every word or phrase: '("a" AND "b c")'; '' when none is left.

    Quotes are dropped from the words, so user text can never change the query's syntax.
    """
    quoted = [f'"{clean}"' for clean in (w.replace('"', "").strip() for w in words) if clean]
    return "(" + " AND ".join(quoted) + ")" if quoted else ""


def day_bounds(start: dt.date | None, end: dt.date | None) -> tuple[int, int]:
    """A date window as the stored integer days, open ends made inclusive bounds."""
    return (day_to_int(start) if start else 0, day_to_int(end) if end else 99991231)


# SQLite's default limit on host parameters is 32766 on modern builds, but older ones allow 999.
_CHUNK = 900


def chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    """`items` in slices small enough for one statement's host parameters."""
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


class RepositoryBase:
    """One aiosqlite connection and the write-transaction discipline every concept module uses."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        # One connection serves every task: two write blocks must not interleave on it (a second BEGIN fails, and
        # one task's rollback would undo another's writes), so write transactions take turns.
        self._write_lock = asyncio.Lock()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Run the block in one write transaction, one at a time per connection; roll back on any exception."""
        async with self._write_lock:
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                await self.conn.rollback()
                raise
            await self.conn.commit()

    async def close(self) -> None:
        """Close the underlying connection."""
        await self.conn.close()
