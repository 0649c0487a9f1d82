"""Profiles, the targets digests go to, and the posting ledger that makes each digest go out once."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass

from bot.models import Profile, Target, day_to_int, int_to_day
from bot.store.profile_format import profile_from_json, profile_to_json
from bot.store.repos.base import RepositoryBase, placeholders, target_from_row, utc_stamp


@dataclass(frozen=True, slots=True)
class PostedDigest:
    """One digest a channel got: its day, the digest JSON frozen when claimed ('' for a plain poster's post),
    when it was sent (UTC) and the ids of its papers in posting order."""

    day: dt.date
    digest_json: str
    sent_at: str
    paper_ids: tuple[str, ...]


JOB_RUN_DAYS = 30  # how long `job_runs` keeps every run


class TargetsRepo(RepositoryBase):
    """Profiles by owner, targets bound to them, and the ledger of (target, day) posts."""

    async def save_profile(self, owner: str, profile: Profile) -> int:
        """Create or replace the profile owned by `owner`; returns its id."""
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO profiles (owner, name, data, fingerprint) VALUES (?,?,?,?)"
                " ON CONFLICT(owner) DO UPDATE SET name=excluded.name, data=excluded.data,"
                " fingerprint=excluded.fingerprint, updated_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
                (owner, profile.name, profile_to_json(profile), profile.fingerprint),
            )
            async with conn.execute("SELECT id FROM profiles WHERE owner=?", (owner,)) as cursor:
                row = await cursor.fetchone()
        assert row is not None
        return int(row[0])

    async def get_profile(self, owner: str) -> Profile | None:
        """The profile owned by `owner`, if any."""
        async with self.conn.execute("SELECT data FROM profiles WHERE owner=?", (owner,)) as cursor:
            row = await cursor.fetchone()
        return profile_from_json(row[0]) if row else None

    async def save_target(self, target: Target, profile_owner: str, *, scheduled: bool = True) -> int:
        """Create or update the target for (platform, chat_id), bound to an existing profile; returns its id.

        `scheduled=False` stores a target the channel schedule never picks up (a member's personal digest),
        which still gets exactly-once delivery from the posting ledger.
        """
        async with self.transaction() as conn:
            async with conn.execute("SELECT id FROM profiles WHERE owner=?", (profile_owner,)) as cursor:
                row = await cursor.fetchone()
            if row is None:
                raise KeyError(f"no profile owned by {profile_owner!r}")
            await conn.execute(
                "INSERT INTO targets (platform, chat_id, profile_id, categories, post_time, timezone, digest_size,"
                " enabled, schedule, weekly_day) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(platform, chat_id) DO UPDATE"
                " SET profile_id=excluded.profile_id, categories=excluded.categories, post_time=excluded.post_time,"
                " timezone=excluded.timezone, digest_size=excluded.digest_size, enabled=excluded.enabled,"
                " schedule=excluded.schedule, weekly_day=excluded.weekly_day, inactive=''",
                (
                    target.platform,
                    target.chat_id,
                    row[0],
                    json.dumps(list(target.categories)),
                    target.post_time,
                    target.timezone,
                    target.digest_size,
                    int(scheduled),
                    target.schedule,
                    target.weekly_day % 7,
                ),
            )
            async with conn.execute(
                "SELECT id FROM targets WHERE platform=? AND chat_id=?", (target.platform, target.chat_id)
            ) as cursor:
                saved = await cursor.fetchone()
        assert saved is not None
        return int(saved[0])

    async def targets(self, enabled_only: bool = True) -> list[tuple[Target, Profile]]:
        """Every target with its profile."""
        query = (
            "SELECT t.*, p.data AS profile_data, p.name AS profile_name FROM targets t"
            " JOIN profiles p ON p.id = t.profile_id"
        )
        if enabled_only:
            query += " WHERE t.enabled = 1 AND t.paused = 0 AND t.inactive = ''"
        async with self.conn.execute(query + " ORDER BY t.id") as cursor:
            rows = await cursor.fetchall()
        return [(target_from_row(r), profile_from_json(r["profile_data"])) for r in rows]

    async def targets_of_profile(self, profile_owner: str) -> list[Target]:
        """Targets (enabled or not) bound to the profile owned by `profile_owner`."""
        async with self.conn.execute(
            "SELECT t.*, p.name AS profile_name FROM targets t JOIN profiles p ON p.id = t.profile_id"
            " WHERE p.owner=? ORDER BY t.id",
            (profile_owner,),
        ) as cursor:
            rows = await cursor.fetchall()
        return [target_from_row(r) for r in rows]

    async def channel_target_ids(self, platform: str) -> list[int]:
        """Enabled (channel) targets on `platform`."""
        async with self.conn.execute(
            "SELECT id FROM targets WHERE platform=? AND enabled=1 ORDER BY id", (platform,)
        ) as cursor:
            return [int(r[0]) async for r in cursor]

    async def target_at(self, platform: str, chat_id: str) -> tuple[Target, Profile] | None:
        """The target for (platform, chat_id) with its profile, paused or not; None when there is none."""
        async with self.conn.execute(
            "SELECT t.*, p.data AS profile_data, p.name AS profile_name FROM targets t"
            " JOIN profiles p ON p.id = t.profile_id WHERE t.platform=? AND t.chat_id=?",
            (platform, chat_id),
        ) as cursor:
            row = await cursor.fetchone()
        return (target_from_row(row), profile_from_json(row["profile_data"])) if row else None

    async def set_target_inactive(self, target_id: int, reason: str) -> bool:
        """Stop scheduling a target the platform refuses for good; `reason` is what the platform said. False when
        it was inactive already (its first reason is kept)."""
        async with self.transaction() as conn:
            cursor = await conn.execute(
                "UPDATE targets SET inactive=? WHERE id=? AND inactive=''", (reason[:300] or "gone", target_id)
            )
            return cursor.rowcount > 0

    async def move_chat(self, platform: str, old_chat_id: str, new_chat_id: str) -> str:
        """A chat got a new id (a Telegram group upgraded to a supergroup): its target, channel profile and
        half-done conversations follow it, so its ledger and settings carry on. Returns what happened:
        'moved', 'kept' (the new chat already has its own digest: the old one turns inactive) or 'none'."""
        old_key, new_key = f"{platform}:{old_chat_id}", f"{platform}:{new_chat_id}"
        async with self.transaction() as conn:
            async with conn.execute(
                "SELECT id FROM targets WHERE platform=? AND chat_id=?", (platform, old_chat_id)
            ) as cursor:
                old = await cursor.fetchone()
            async with conn.execute(
                "SELECT id FROM targets WHERE platform=? AND chat_id=?", (platform, new_chat_id)
            ) as cursor:
                new = await cursor.fetchone()
            await conn.execute(
                "UPDATE OR IGNORE chat_state SET scope=? WHERE scope=?", (new_key, old_key)
            )  # a flow already started in the new chat wins over the old chat's
            if old is None:
                return "none"
            if new is not None:
                await conn.execute(
                    "UPDATE targets SET inactive=? WHERE id=?",
                    (f"the chat moved to {new_key}, which has its own digest", old[0]),
                )
                return "kept"
            await conn.execute("UPDATE targets SET chat_id=? WHERE id=?", (new_chat_id, old[0]))
            await conn.execute("UPDATE OR IGNORE profiles SET owner=? WHERE owner=?", (new_key, old_key))
        return "moved"

    async def inactive_reasons(self) -> dict[int, str]:
        """Target id -> why it is inactive, for every inactive target."""
        async with self.conn.execute("SELECT id, inactive FROM targets WHERE inactive != ''") as cursor:
            return {int(r[0]): str(r[1]) async for r in cursor}

    async def note_post_failure(self, target_id: int, day: dt.date, error: str) -> None:
        """Keep why the claimed post of (target, day) failed (shown by `paperscout status`; a retry may follow)."""
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE ledger SET detail=? WHERE target_id=? AND day=? AND status='claimed'",
                (error[:500], target_id, day_to_int(day)),
            )

    async def set_target_paused(self, target_id: int, paused: bool) -> None:
        """Pause or resume a channel's digest (the schedule passes paused targets over)."""
        async with self.transaction() as conn:
            await conn.execute("UPDATE targets SET paused=? WHERE id=?", (int(paused), target_id))

    # --- the posting ledger: exactly one digest per target and announcement day ---

    async def claim_post(self, target_id: int, day: dt.date) -> bool:
        """Reserve (target, day) before posting; False when it was already sent.

        A claim left by a crash before sending is taken over, so a restart posts it instead of skipping it.
        """
        async with self.transaction() as conn:
            async with conn.execute(
                "SELECT status FROM ledger WHERE target_id=? AND day=?", (target_id, day_to_int(day))
            ) as cursor:
                row = await cursor.fetchone()
            if row is not None and row[0] == "sent":
                return False
            await conn.execute(
                "INSERT INTO ledger (target_id, day, status) VALUES (?,?,'claimed')"
                " ON CONFLICT(target_id, day) DO UPDATE SET claimed_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
                (target_id, day_to_int(day)),
            )
        return True

    async def freeze_digest(self, target_id: int, day: dt.date, digest_json: str) -> str:
        """Store the digest built for a claimed (target, day) unless one is stored already; returns the stored one.

        A post resumed after a crash must send the same papers in the same messages, whatever was ingested since.
        """
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE ledger SET digest=? WHERE target_id=? AND day=? AND digest=''",
                (digest_json, target_id, day_to_int(day)),
            )
            async with conn.execute(
                "SELECT digest FROM ledger WHERE target_id=? AND day=?", (target_id, day_to_int(day))
            ) as cursor:
                row = await cursor.fetchone()
        return str(row[0]) if row else digest_json

    async def frozen_digest(self, target_id: int, day: dt.date) -> str:
        """The digest JSON frozen for (target, day) by an earlier attempt ('' when none)."""
        async with self.conn.execute(
            "SELECT digest FROM ledger WHERE target_id=? AND day=?", (target_id, day_to_int(day))
        ) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else ""

    async def sent_messages(self, target_id: int, day: dt.date) -> dict[int, str]:
        """The messages of (target, day) already out: position -> platform message id."""
        async with self.conn.execute(
            "SELECT seq, message_id FROM ledger_messages WHERE target_id=? AND day=? ORDER BY seq",
            (target_id, day_to_int(day)),
        ) as cursor:
            return {int(r[0]): str(r[1]) async for r in cursor}

    async def record_message(self, target_id: int, day: dt.date, seq: int, message_id: str) -> None:
        """Record that message `seq` of (target, day) went out, the moment the platform accepted it."""
        async with self.transaction() as conn:
            # a digest forgotten meanwhile (its target deleted) has no ledger row: nothing to record then
            await conn.execute(
                "INSERT OR REPLACE INTO ledger_messages (target_id, day, seq, message_id) SELECT ?,?,?,?"
                " WHERE EXISTS (SELECT 1 FROM ledger WHERE target_id=? AND day=?)",
                (target_id, day_to_int(day), seq, message_id, target_id, day_to_int(day)),
            )

    async def ledger_on(self, day: dt.date) -> list[tuple[int, str, str, int]]:
        """(target id, status, detail, messages sent) of every ledger row for `day`."""
        async with self.conn.execute(
            "SELECT l.target_id, l.status, l.detail, (SELECT COUNT(*) FROM ledger_messages m"
            " WHERE m.target_id = l.target_id AND m.day = l.day) AS messages FROM ledger l WHERE l.day=?"
            " ORDER BY l.target_id",
            (day_to_int(day),),
        ) as cursor:
            return [(int(r[0]), str(r[1]), str(r[2]), int(r[3])) async for r in cursor]

    async def day_stored_at(self, day: dt.date) -> str | None:
        """When the first paper of announcement day `day` was stored (UTC 'YYYY-MM-DDTHH:MM:SSZ'), if any."""
        async with self.conn.execute(
            "SELECT MIN(created_at) FROM papers WHERE announced=?", (day_to_int(day),)
        ) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row and row[0] else None

    async def start_job_run(self, job: str) -> int:
        """Note that a job started; returns the run's id. Runs older than `JOB_RUN_DAYS` go (the digest check runs
        every minute), except the latest of each job and outcome, which `paperscout status` shows."""
        async with self.transaction() as conn:
            await conn.execute(
                "DELETE FROM job_runs WHERE started_at < ? AND id NOT IN"
                " (SELECT MAX(id) FROM job_runs GROUP BY job, outcome)",
                (utc_stamp(dt.timedelta(days=JOB_RUN_DAYS)),),
            )
            cursor = await conn.execute("INSERT INTO job_runs (job) VALUES (?)", (job,))
            return int(cursor.lastrowid or 0)

    async def finish_job_run(self, run_id: int, outcome: str, detail: str = "") -> None:
        """Note how a job run ended (ok | nothing | failed) and what it did."""
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE job_runs SET outcome=?, detail=?, finished_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id=?",
                (outcome, detail[:500], run_id),
            )

    async def last_job_runs(self) -> dict[str, tuple[str, str | None, str, str]]:
        """The latest run of each job: job -> (started_at, finished_at, outcome, detail)."""
        async with self.conn.execute(
            "SELECT job, started_at, finished_at, outcome, detail FROM job_runs"
            " WHERE id IN (SELECT MAX(id) FROM job_runs GROUP BY job) ORDER BY job"
        ) as cursor:
            return {str(r[0]): (str(r[1]), r[2], str(r[3]), str(r[4])) async for r in cursor}

    async def mark_sent(self, target_id: int, day: dt.date, paper_ids: Sequence[str], detail: str = "") -> None:
        """Record that the digest for (target, day) was delivered, with the papers it contained."""
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE ledger SET status='sent', detail=?, sent_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')"
                " WHERE target_id=? AND day=?",
                (detail, target_id, day_to_int(day)),
            )
            await conn.executemany(
                "INSERT OR IGNORE INTO ledger_papers (target_id, day, paper_id, position) VALUES (?,?,?,?)",
                [(target_id, day_to_int(day), pid, i) for i, pid in enumerate(paper_ids, 1)],
            )

    async def last_sent_day(self, target_id: int) -> dt.date | None:
        """The latest day whose digest for `target_id` is recorded as delivered."""
        async with self.conn.execute(
            "SELECT MAX(day) FROM ledger WHERE target_id=? AND status='sent'", (target_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return int_to_day(int(row[0])) if row and row[0] is not None else None

    async def sent_paper_ids(self, target_ids: Sequence[int], day: dt.date, until: dt.date | None = None) -> set[str]:
        """Papers already delivered to any of `target_ids` for `day` (or for any day from `day` to `until`)."""
        if not target_ids:
            return set()
        async with self.conn.execute(
            "SELECT paper_id FROM ledger_papers WHERE day BETWEEN ? AND ?"
            f" AND target_id IN ({placeholders(len(target_ids))})",
            (day_to_int(day), day_to_int(until or day), *target_ids),
        ) as cursor:
            return {r[0] async for r in cursor}

    async def sent_papers_by_day(self, target_ids: Sequence[int]) -> dict[dt.date, list[str]]:
        """Papers delivered to `target_ids`, per announcement day in posting order (for showing a user's history)."""
        if not target_ids:
            return {}
        found: dict[dt.date, list[str]] = {}
        async with self.conn.execute(
            f"SELECT day, paper_id FROM ledger_papers WHERE target_id IN ({placeholders(len(target_ids))})"
            " ORDER BY day, target_id, position",
            tuple(target_ids),
        ) as cursor:
            async for r in cursor:
                found.setdefault(int_to_day(r["day"]), []).append(r["paper_id"])
        return found

    # --- the web archive (bot/site): what channels were sent, read in one pass ---

    async def channel_targets(self) -> list[tuple[Target, Profile]]:
        """Every channel target with its profile, paused or inactive too (members' personal digests excluded)."""
        async with self.conn.execute(
            "SELECT t.*, p.data AS profile_data, p.name AS profile_name FROM targets t"
            " JOIN profiles p ON p.id = t.profile_id WHERE t.enabled = 1 ORDER BY t.id"
        ) as cursor:
            rows = await cursor.fetchall()
        return [(target_from_row(r), profile_from_json(r["profile_data"])) for r in rows]

    async def posted_digests(self, target_id: int) -> list[PostedDigest]:
        """The digests recorded as sent to `target_id`, oldest day first, each frozen digest with its paper ids."""
        papers: dict[int, list[str]] = {}
        async with self.conn.execute(
            "SELECT day, paper_id FROM ledger_papers WHERE target_id=? ORDER BY day, position", (target_id,)
        ) as cursor:
            async for r in cursor:
                papers.setdefault(int(r[0]), []).append(str(r[1]))
        async with self.conn.execute(
            "SELECT day, digest, COALESCE(sent_at, claimed_at) FROM ledger WHERE target_id=? AND status='sent'"
            " ORDER BY day",
            (target_id,),
        ) as cursor:
            return [
                PostedDigest(int_to_day(int(r[0])), str(r[1]), str(r[2]), tuple(papers.get(int(r[0]), ())))
                async for r in cursor
            ]
