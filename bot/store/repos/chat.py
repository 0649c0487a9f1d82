"""The chat controller's state: per-person flow state (onboarding, /setup, confirmations, digest numbering) and
the bot messages a reply can continue."""

from __future__ import annotations

import datetime as dt

from bot.store.repos.base import RepositoryBase, utc_stamp

BOT_MESSAGE_DAYS = 30  # a reply to an answer older than this starts a new question


class ChatRepo(RepositoryBase):
    """Small JSON documents keyed by (user, scope, kind), and the map from bot messages to question contexts."""

    async def chat_state(self, user_key: str, kind: str, scope: str = "") -> str | None:
        """The stored JSON of one flow of one person (in `scope`, a place key, or '' for the person)."""
        async with self.conn.execute(
            "SELECT data FROM chat_state WHERE user_key=? AND scope=? AND kind=?", (user_key, scope, kind)
        ) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else None

    async def save_chat_state(self, user_key: str, kind: str, data: str, scope: str = "") -> None:
        """Store (replace) one flow's state; an empty `data` deletes it."""
        async with self.transaction() as conn:
            if not data:
                await conn.execute(
                    "DELETE FROM chat_state WHERE user_key=? AND scope=? AND kind=?", (user_key, scope, kind)
                )
                return
            await conn.execute(
                "INSERT INTO chat_state (user_key, scope, kind, data) VALUES (?,?,?,?)"
                " ON CONFLICT(user_key, scope, kind) DO UPDATE SET data=excluded.data,"
                " updated_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
                (user_key, scope, kind, data),
            )

    async def open_flows(self, user_key: str, scope: str, kinds: tuple[str, ...]) -> set[str]:
        """Which of the flow `kinds` a person has stored, for themselves ('' scope) or in `scope`: one read."""
        marks = ",".join("?" * len(kinds))
        async with self.conn.execute(
            f"SELECT DISTINCT kind FROM chat_state WHERE user_key=? AND scope IN ('', ?) AND kind IN ({marks})",
            (user_key, scope, *kinds),
        ) as cursor:
            return {str(row[0]) async for row in cursor}

    async def chat_states_of(self, user_key: str) -> list[tuple[str, str, str, str]]:
        """(kind, scope, data, updated_at) of every flow state stored for a person (for their export)."""
        async with self.conn.execute(
            "SELECT kind, scope, data, updated_at FROM chat_state WHERE user_key=? ORDER BY kind, scope", (user_key,)
        ) as cursor:
            return [(str(r[0]), str(r[1]), str(r[2]), str(r[3])) async for r in cursor]

    async def remember_bot_message(self, place: str, message_id: str, context_id: str) -> None:
        """Note that bot message (or thread) `message_id` in `place` answered within `context_id`; '' notes one of
        the bot's that continues no question, and keeps a context noted before (old notes are dropped)."""
        async with self.transaction() as conn:
            await conn.execute(
                "DELETE FROM bot_messages WHERE created_at < ?", (utc_stamp(dt.timedelta(days=BOT_MESSAGE_DAYS)),)
            )
            await conn.execute(
                "INSERT INTO bot_messages (place, message_id, context_id) VALUES (?,?,?)"
                " ON CONFLICT(place, message_id) DO UPDATE SET created_at=excluded.created_at,"
                " context_id=CASE excluded.context_id WHEN '' THEN bot_messages.context_id"
                " ELSE excluded.context_id END",
                (place, message_id, context_id),
            )

    async def bot_message_context(self, place: str, message_id: str) -> str | None:
        """The question context of a bot message, if it is one we noted ('' for one that continues none)."""
        async with self.conn.execute(
            "SELECT context_id FROM bot_messages WHERE place=? AND message_id=?", (place, message_id)
        ) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else None
