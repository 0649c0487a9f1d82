"""Members: their settings and onboarding state, their thumbs up/down, their question context, and forgetting."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from bot.models import FeedbackRecord, UserRecord
from bot.store.repos.base import RepositoryBase, placeholders, user_from_row, utc_stamp

# conversation ids that hold a list given to a member (by its token) and a member's last list in a place, not a
# question's turn: /export names them apart
LIST_KEY = "list:"
GIVEN_KEY = "given:"


class MembersRepo(RepositoryBase):
    """Users keyed platform:id, their feedback, and the question-answering turns they asked."""

    async def ensure_user(self, key: str, display_name: str = "") -> None:
        """Create the user row if missing (feedback needs it); a non-empty `display_name` replaces the stored one."""
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO users (key, display_name) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET"
                " display_name=CASE WHEN excluded.display_name != '' THEN excluded.display_name"
                " ELSE users.display_name END",
                (key, display_name),
            )

    async def get_user(self, key: str) -> UserRecord | None:
        """The stored user, if any."""
        async with self.conn.execute("SELECT * FROM users WHERE key=?", (key,)) as cursor:
            row = await cursor.fetchone()
        return user_from_row(row) if row is not None else None

    async def all_users(self) -> list[tuple[UserRecord, int]]:
        """Every user with how many reactions they gave, by key."""
        async with self.conn.execute(
            "SELECT u.*, (SELECT COUNT(*) FROM feedback f WHERE f.user_key = u.key) AS reactions"
            " FROM users u ORDER BY u.key"
        ) as cursor:
            return [(user_from_row(row), int(row["reactions"])) async for row in cursor]

    async def save_user_settings(
        self, key: str, *, digest_mode: str, post_time: str, timezone: str, weekly_day: int
    ) -> None:
        """Store a user's personal digest settings (creating the user if needed)."""
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO users (key, digest_mode, post_time, timezone, weekly_day) VALUES (?,?,?,?,?)"
                " ON CONFLICT(key) DO UPDATE SET digest_mode=excluded.digest_mode, post_time=excluded.post_time,"
                " timezone=excluded.timezone, weekly_day=excluded.weekly_day,"
                " updated_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
                (key, digest_mode, post_time, timezone, weekly_day),
            )

    async def users_with_digest(self) -> list[UserRecord]:
        """Users who opted in to a personal digest (daily or weekly)."""
        async with self.conn.execute("SELECT * FROM users WHERE digest_mode != 'off' ORDER BY key") as cursor:
            return [user_from_row(row) async for row in cursor]

    async def user_feedback_rows(self, key: str) -> list[FeedbackRecord]:
        """Every thumbs up/down of a user, oldest first, with paper titles where the paper is stored."""
        async with self.conn.execute(
            "SELECT f.paper_id, f.value, f.at, COALESCE(p.title, '') AS title FROM feedback f"
            " LEFT JOIN papers p ON p.id = f.paper_id WHERE f.user_key=? ORDER BY f.at, f.paper_id",
            (key,),
        ) as cursor:
            return [FeedbackRecord(r["paper_id"], r["value"], r["at"], r["title"]) async for r in cursor]

    async def reactions_newest_first(self, key: str) -> list[FeedbackRecord]:
        """A user's thumbs up/down, the latest given (or changed) first, with paper titles where stored."""
        async with self.conn.execute(
            "SELECT f.paper_id, f.value, f.at, COALESCE(p.title, '') AS title FROM feedback f"
            " LEFT JOIN papers p ON p.id = f.paper_id WHERE f.user_key=? ORDER BY f.at DESC, f.rowid DESC",
            (key,),
        ) as cursor:
            return [FeedbackRecord(r["paper_id"], r["value"], r["at"], r["title"]) async for r in cursor]

    async def delete_user(self, key: str, profile_owner: str, usage_targets: Sequence[str] = ()) -> dict[str, int]:
        """Delete a user and everything stored for them in one transaction; returns row counts per kind.

        Removes the user row, their profile, the targets bound to it with their ledger rows, their feedback and the
        question-answering turns they asked last;
        LLM usage rows recorded under `usage_targets` keep their cost (the daily budget needs it) but lose the name.
        """
        counts: dict[str, int] = {}
        async with self.transaction() as conn:
            async with conn.execute(
                "SELECT t.id FROM targets t JOIN profiles p ON p.id = t.profile_id WHERE p.owner=?", (profile_owner,)
            ) as cursor:
                target_ids = [int(r[0]) async for r in cursor]
            marks = placeholders(len(target_ids))
            for table in ("ledger_papers", "ledger", "targets"):
                column = "id" if table == "targets" else "target_id"
                cursor = await conn.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", target_ids)
                counts[table] = cursor.rowcount
            cursor = await conn.execute("DELETE FROM profiles WHERE owner=?", (profile_owner,))
            counts["profiles"] = cursor.rowcount
            cursor = await conn.execute("DELETE FROM feedback WHERE user_key=?", (key,))
            counts["feedback"] = cursor.rowcount
            cursor = await conn.execute("DELETE FROM users WHERE key=?", (key,))
            counts["users"] = cursor.rowcount
            cursor = await conn.execute("DELETE FROM chat_state WHERE user_key=?", (key,))
            counts["chat_state"] = cursor.rowcount
            cursor = await conn.execute("DELETE FROM conversations WHERE asker=? OR id=?", (key, key))
            counts["conversations"] = cursor.rowcount
            names = [key, *usage_targets]
            cursor = await conn.execute(
                f"UPDATE llm_usage SET target='' WHERE target IN ({placeholders(len(names))})", names
            )
            counts["llm_usage_anonymised"] = cursor.rowcount
        return counts

    async def add_feedback(self, user_key: str, paper_id: str, value: int) -> None:
        """Store a reaction (+1/-1); a second reaction to the same paper replaces the first (a change of mind)."""
        await self.add_feedback_many(user_key, {paper_id: value})

    async def add_feedback_many(self, user_key: str, reactions: Mapping[str, int]) -> None:
        """Store several reactions of one user in one transaction (see `add_feedback`).

        A user without a `users` row gets a bare one, so reactions work before any onboarding.
        """
        async with self.transaction() as conn:
            await conn.execute("INSERT OR IGNORE INTO users (key) VALUES (?)", (user_key,))
            # REPLACE gives a changed reaction a new rowid too: it is the newest, also within the same second
            await conn.executemany(
                "INSERT OR REPLACE INTO feedback (user_key, paper_id, value) VALUES (?,?,?)",
                [(user_key, paper_id, value) for paper_id, value in reactions.items()],
            )

    async def delete_reaction(self, user_key: str, paper_id: str) -> int:
        """Delete the user's reaction to one paper; returns how many rows went (0 or 1)."""
        async with self.transaction() as conn:
            cursor = await conn.execute("DELETE FROM feedback WHERE user_key=? AND paper_id=?", (user_key, paper_id))
            return cursor.rowcount

    async def delete_feedback(self, user_key: str) -> int:
        """Delete every reaction of the user; returns how many rows went."""
        async with self.transaction() as conn:
            cursor = await conn.execute("DELETE FROM feedback WHERE user_key=?", (user_key,))
            return cursor.rowcount

    async def conversation_state(self, conversation_id: str, max_age: dt.timedelta | None = None) -> str | None:
        """The stored JSON state of a conversation's last turn, if any (and not older than `max_age`)."""
        sql, args = "SELECT state FROM conversations WHERE id=?", [conversation_id]
        if max_age is not None:
            sql += " AND updated_at >= ?"
            args.append(utc_stamp(max_age))
        async with self.conn.execute(sql, args) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else None

    async def save_conversation_state(
        self, conversation_id: str, state: str, asker: str = "", max_age: dt.timedelta | None = None
    ) -> None:
        """Replace a conversation's last-turn state, noting who asked; turns older than `max_age` are dropped."""
        async with self.transaction() as conn:
            if max_age is not None:
                await conn.execute("DELETE FROM conversations WHERE updated_at < ?", (utc_stamp(max_age),))
            await conn.execute(
                "INSERT INTO conversations (id, state, asker) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                " state=excluded.state, asker=excluded.asker, updated_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
                (conversation_id, state, asker),
            )

    async def conversations_of(self, asker: str) -> list[tuple[str, str, str]]:
        """(conversation id, state JSON, updated_at) of the conversations whose last turn `asker` asked."""
        async with self.conn.execute(
            "SELECT id, state, updated_at FROM conversations WHERE asker=? ORDER BY updated_at", (asker,)
        ) as cursor:
            return [(str(r[0]), str(r[1]), str(r[2])) async for r in cursor]
