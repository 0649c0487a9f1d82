"""All SQL lives here. Callers get and pass plain models; nothing outside this module writes a query.

Writes that belong together run in one `BEGIN IMMEDIATE` transaction, so a crash or an error leaves the
database as it was before the call.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import aiosqlite

from bot.models import FeedbackRecord, Paper, Profile, Target, UserRecord, day_to_int, int_to_day
from bot.profiles import profile_from_json, profile_to_json


@dataclass(frozen=True, slots=True)
class UpsertCounts:
    """What an ingest did to the papers table."""

    inserted: int = 0
    updated: int = 0
    unchanged: int = 0


@dataclass(frozen=True, slots=True)
class CachedScore:
    """An LLM judgement stored for (paper, profile fingerprint, model)."""

    relevance: float
    novelty: float
    comment: str


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Summed LLM usage of a group of calls (a run, a day, a target or a purpose)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


def _paper_from_row(row: aiosqlite.Row) -> Paper:
    return Paper(
        id=row["id"],
        title=row["title"],
        authors=tuple(json.loads(row["authors"])),
        abstract=row["abstract"],
        categories=tuple(json.loads(row["categories"])),
        announced=int_to_day(row["announced"]),
        comment=row["comment"],
        version=row["version"],
        announce_type=row["announce_type"],
    )


def _target_from_row(row: aiosqlite.Row) -> Target:
    """A target from a `targets` row joined with its profile's name (as `profile_name`)."""
    return Target(
        id=row["id"],
        platform=row["platform"],
        chat_id=row["chat_id"],
        profile_name=row["profile_name"],
        categories=tuple(json.loads(row["categories"])),
        post_time=row["post_time"],
        timezone=row["timezone"],
        digest_size=row["digest_size"],
    )


def _user_from_row(row: aiosqlite.Row) -> UserRecord:
    """A user from a `users` row: the table's columns are the record's fields."""
    return UserRecord(**{f.name: row[f.name] for f in dataclasses.fields(UserRecord)})


def _utc_stamp(age: dt.timedelta) -> str:
    """The UTC time `age` ago, in the format the tables' `strftime` defaults write (so strings compare by time)."""
    return (dt.datetime.now(dt.UTC) - age).strftime("%Y-%m-%dT%H:%M:%SZ")


def _placeholders(count: int) -> str:
    return ",".join("?" * count)


def _fts_all_of(words: Iterable[str]) -> str:
    """An FTS5 query matching rows that contain every word or phrase: '("a" AND "b c")'; '' when none is left.

    Quotes are dropped from the words, so user text can never change the query's syntax.
    """
    quoted = [f'"{clean}"' for clean in (w.replace('"', "").strip() for w in words) if clean]
    return "(" + " AND ".join(quoted) + ")" if quoted else ""


def _day_bounds(start: dt.date | None, end: dt.date | None) -> tuple[int, int]:
    """A date window as the stored integer days, open ends made inclusive bounds."""
    return (day_to_int(start) if start else 0, day_to_int(end) if end else 99991231)


# SQLite's default limit on host parameters is 32766 on modern builds, but older ones allow 999.
_CHUNK = 900


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


class Repository:
    """The application's storage API over one aiosqlite connection."""

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

    # --- papers ---

    async def upsert_papers(self, papers: Sequence[Paper]) -> UpsertCounts:
        """Insert new papers and update replaced ones in place, all in one transaction.

        A paper keeps the first announcement day it was seen on; a changed title/abstract (a replacement)
        updates the text and clears its TL;DR so it is summarised again.
        """
        inserted = updated = unchanged = 0
        async with self.transaction() as conn:
            existing: dict[str, tuple[str, int | None]] = {}
            ids = [p.id for p in papers]
            for chunk in _chunks(ids):
                async with conn.execute(
                    f"SELECT id, content_hash, version FROM papers WHERE id IN ({_placeholders(len(chunk))})", chunk
                ) as cursor:
                    existing.update({r["id"]: (r["content_hash"], r["version"]) async for r in cursor})
            for paper in papers:
                fields = (
                    paper.version,
                    paper.title,
                    json.dumps(list(paper.authors), ensure_ascii=False),
                    paper.abstract,
                    json.dumps(list(paper.categories)),
                    paper.primary_category,
                    paper.comment,
                    paper.content_hash,
                )
                if paper.id not in existing:
                    await conn.execute(
                        "INSERT INTO papers (version, title, authors, abstract, categories, primary_category, comment,"
                        " content_hash, id, announced, announce_type) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        (*fields, paper.id, day_to_int(paper.announced), paper.announce_type),
                    )
                    existing[paper.id] = (paper.content_hash, paper.version)
                    inserted += 1
                    continue
                old_hash, old_version = existing[paper.id]
                if old_hash == paper.content_hash and (paper.version or 0) <= (old_version or 0):
                    unchanged += 1
                    continue
                # SET expressions see the old row, so the CASEs compare against the previous text's hash
                await conn.execute(
                    "UPDATE papers SET tldr=CASE WHEN content_hash=? THEN tldr ELSE NULL END,"
                    " tldr_source=CASE WHEN content_hash=? THEN tldr_source ELSE NULL END,"
                    " version=?, title=?, authors=?, abstract=?, categories=?, primary_category=?,"
                    " comment=?, content_hash=?, updated_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id=?",
                    (paper.content_hash, paper.content_hash, *fields, paper.id),
                )
                existing[paper.id] = (paper.content_hash, paper.version)
                updated += 1
        return UpsertCounts(inserted, updated, unchanged)

    async def get_papers(self, ids: Sequence[str]) -> list[Paper]:
        """Stored papers for `ids`, in the order given (unknown ids are skipped)."""
        found: dict[str, Paper] = {}
        for chunk in _chunks(list(ids)):
            async with self.conn.execute(
                f"SELECT * FROM papers WHERE id IN ({_placeholders(len(chunk))})", chunk
            ) as cursor:
                found.update({r["id"]: _paper_from_row(r) async for r in cursor})
        return [found[i] for i in ids if i in found]

    async def papers_between(
        self, start: dt.date, end: dt.date, categories: Sequence[str] | None = None
    ) -> list[Paper]:
        """Papers first announced from `start` to `end` inclusive, optionally listed in any of `categories`."""
        async with self.conn.execute(
            "SELECT * FROM papers WHERE announced BETWEEN ? AND ? ORDER BY announced, id",
            (day_to_int(start), day_to_int(end)),
        ) as cursor:
            papers = [_paper_from_row(r) async for r in cursor]
        if categories:
            wanted = set(categories)
            papers = [p for p in papers if wanted.intersection(p.categories)]
        return papers

    async def papers_on(self, day: dt.date, categories: Sequence[str] | None = None) -> list[Paper]:
        """Papers first announced on `day`."""
        return await self.papers_between(day, day, categories)

    async def announcement_days(self) -> list[dt.date]:
        """Every day with stored papers, oldest first."""
        async with self.conn.execute("SELECT DISTINCT announced FROM papers ORDER BY announced") as cursor:
            return [int_to_day(r[0]) async for r in cursor]

    async def earliest_day(self) -> dt.date | None:
        """The first announcement day stored, if any."""
        async with self.conn.execute("SELECT MIN(announced) FROM papers") as cursor:
            row = await cursor.fetchone()
        return int_to_day(row[0]) if row and row[0] else None

    async def latest_day(self) -> dt.date | None:
        """The most recent announcement day stored, if any."""
        async with self.conn.execute("SELECT MAX(announced) FROM papers") as cursor:
            row = await cursor.fetchone()
        return int_to_day(row[0]) if row and row[0] else None

    async def count_papers(self) -> int:
        """How many papers are stored."""
        async with self.conn.execute("SELECT COUNT(*) FROM papers") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def all_authors(self) -> list[str]:
        """Distinct author names across stored papers (for fuzzy matching watched authors)."""
        names: set[str] = set()
        async with self.conn.execute("SELECT authors FROM papers") as cursor:
            async for row in cursor:
                names.update(json.loads(row[0]))
        return sorted(names)

    async def lexical_search(
        self, groups: Sequence[Sequence[str]], start: dt.date | None, end: dt.date | None, limit: int
    ) -> list[tuple[str, float]]:
        """BM25 full-text matches within the date window, best first: (id, relevance > 0).

        `groups` are alternatives: a paper matches when it contains every word (or phrase) of some group.
        Requiring all words of a group keeps the match set small, which is what keeps BM25 fast at 100k papers.
        """
        clauses = [clause for clause in map(_fts_all_of, groups) if clause]
        if not clauses:
            return []
        low, high = _day_bounds(start, end)
        # Papers are stored day by day, so a window's rows sit in a narrow rowid range; bounding the full-text
        # match by it lets FTS5 skip the rest of the archive (the announced test below keeps it exact).
        # bm25() is lower-is-better and negative; titles weigh most, then authors, then abstracts.
        async with self.conn.execute(
            "SELECT p.id, -bm25(papers_fts, 8.0, 1.0, 3.0) AS relevance FROM papers_fts"
            " JOIN papers p ON p.rowid = papers_fts.rowid"
            " WHERE papers_fts MATCH :match"
            " AND papers_fts.rowid BETWEEN (SELECT min(rowid) FROM papers WHERE announced BETWEEN :low AND :high)"
            " AND (SELECT max(rowid) FROM papers WHERE announced BETWEEN :low AND :high)"
            " AND p.announced BETWEEN :low AND :high ORDER BY relevance DESC LIMIT :limit",
            {"match": " OR ".join(clauses), "low": low, "high": high, "limit": limit},
        ) as cursor:
            return [(r[0], float(r[1])) async for r in cursor]

    # --- summaries ---

    async def tldrs(self, ids: Sequence[str]) -> dict[str, str]:
        """Stored TL;DRs for `ids` (papers without one are absent)."""
        found: dict[str, str] = {}
        for chunk in _chunks(list(ids)):
            async with self.conn.execute(
                f"SELECT id, tldr FROM papers WHERE tldr IS NOT NULL AND id IN ({_placeholders(len(chunk))})", chunk
            ) as cursor:
                found.update({r["id"]: r["tldr"] async for r in cursor})
        return found

    async def set_tldrs(self, tldrs: dict[str, str], source: str) -> None:
        """Store TL;DRs produced by `source` ('extractive' or a model name)."""
        if not tldrs:
            return
        async with self.transaction() as conn:
            await conn.executemany(
                "UPDATE papers SET tldr=?, tldr_source=? WHERE id=?",
                [(text, source, paper_id) for paper_id, text in tldrs.items()],
            )

    # --- profiles and targets ---

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
                " enabled) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(platform, chat_id) DO UPDATE SET"
                " profile_id=excluded.profile_id, categories=excluded.categories, post_time=excluded.post_time,"
                " timezone=excluded.timezone, digest_size=excluded.digest_size, enabled=excluded.enabled",
                (
                    target.platform,
                    target.chat_id,
                    row[0],
                    json.dumps(list(target.categories)),
                    target.post_time,
                    target.timezone,
                    target.digest_size,
                    int(scheduled),
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
            query += " WHERE t.enabled = 1"
        async with self.conn.execute(query + " ORDER BY t.id") as cursor:
            rows = await cursor.fetchall()
        return [(_target_from_row(r), profile_from_json(r["profile_data"])) for r in rows]

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

    async def was_sent(self, target_id: int, day: dt.date) -> bool:
        """True when the digest for (target, day) is recorded as delivered."""
        async with self.conn.execute(
            "SELECT 1 FROM ledger WHERE target_id=? AND day=? AND status='sent'", (target_id, day_to_int(day))
        ) as cursor:
            return await cursor.fetchone() is not None

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
            f" AND target_id IN ({_placeholders(len(target_ids))})",
            (day_to_int(day), day_to_int(until or day), *target_ids),
        ) as cursor:
            return {r[0] async for r in cursor}

    # --- LLM score cache ---

    async def cached_scores(self, ids: Sequence[str], fingerprint: str, model: str) -> dict[str, CachedScore]:
        """LLM scores already paid for, keyed by paper id."""
        found: dict[str, CachedScore] = {}
        for chunk in _chunks(list(ids)):
            async with self.conn.execute(
                "SELECT paper_id, relevance, novelty, comment FROM scores WHERE profile_fingerprint=? AND model=?"
                f" AND paper_id IN ({_placeholders(len(chunk))})",
                (fingerprint, model, *chunk),
            ) as cursor:
                found.update(
                    {r["paper_id"]: CachedScore(r["relevance"], r["novelty"], r["comment"]) async for r in cursor}
                )
        return found

    async def store_scores(self, scores: dict[str, CachedScore], fingerprint: str, model: str) -> None:
        """Cache LLM scores for (paper, profile fingerprint, model)."""
        if not scores:
            return
        async with self.transaction() as conn:
            await conn.executemany(
                "INSERT OR REPLACE INTO scores (paper_id, profile_fingerprint, model, relevance, novelty, comment)"
                " VALUES (?,?,?,?,?,?)",
                [(pid, fingerprint, model, s.relevance, s.novelty, s.comment) for pid, s in scores.items()],
            )

    # --- LLM usage accounting and LLM TL;DR bookkeeping (issue 3) ---

    async def record_llm_usage(
        self,
        *,
        day: dt.date,
        purpose: str,
        model: str,
        target: str,
        run_id: str,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float,
    ) -> None:
        """Store one LLM call's tokens and cost."""
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO llm_usage (day, purpose, model, target, run_id, prompt_tokens, completion_tokens,"
                " cost_usd) VALUES (?,?,?,?,?,?,?,?)",
                (day_to_int(day), purpose, model, target, run_id, prompt_tokens, completion_tokens, cost_usd),
            )

    async def llm_spent_on(self, day: dt.date) -> float:
        """Dollars spent on LLM calls made on `day` (UTC), for the daily cap."""
        async with self.conn.execute(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE day=?", (day_to_int(day),)
        ) as cursor:
            row = await cursor.fetchone()
        return float(row[0]) if row else 0.0

    async def llm_usage_totals(
        self,
        *,
        by: str = "purpose",
        run_id: str | None = None,
        day: dt.date | None = None,
        since: dt.date | None = None,
        target: str | None = None,
        purpose: str | None = None,
    ) -> dict[str, UsageTotals]:
        """Usage summed per `by` (purpose, day as YYYY-MM-DD, target, run or model) over the matching calls."""
        # Column names come from this fixed map only, never from the caller's text.
        groups = {"purpose": "purpose", "day": "day", "target": "target", "run": "run_id", "model": "model"}
        column = groups.get(by)
        if column is None:
            raise ValueError(f"cannot group LLM usage by {by!r}")
        where, params = [], []
        for clause, value in (
            ("run_id=?", run_id),
            ("day=?", day_to_int(day) if day else None),
            ("day>=?", day_to_int(since) if since else None),
            ("target=?", target),
            ("purpose=?", purpose),
        ):
            if value is not None:
                where.append(clause)
                params.append(value)
        query = (
            f"SELECT {column} AS grp, COUNT(*) AS calls, SUM(prompt_tokens) AS p, SUM(completion_tokens) AS c,"
            " SUM(cost_usd) AS cost FROM llm_usage"
            + (" WHERE " + " AND ".join(where) if where else "")
            + f" GROUP BY {column} ORDER BY {column}"
        )
        async with self.conn.execute(query, params) as cursor:
            return {
                (int_to_day(r["grp"]).isoformat() if column == "day" else str(r["grp"])): UsageTotals(
                    int(r["calls"]), int(r["p"]), int(r["c"]), float(r["cost"])
                )
                async for r in cursor
            }

    async def tldrs_with_sources(self, ids: Sequence[str]) -> dict[str, tuple[str, str | None]]:
        """Stored TL;DRs for `ids` and who wrote each ('extractive', a model name or None for unknown); papers
        without one are absent."""
        found: dict[str, tuple[str, str | None]] = {}
        for chunk in _chunks(list(ids)):
            async with self.conn.execute(
                "SELECT id, tldr, tldr_source FROM papers WHERE tldr IS NOT NULL"
                f" AND id IN ({_placeholders(len(chunk))})",
                chunk,
            ) as cursor:
                found.update({r["id"]: (r["tldr"], r["tldr_source"]) async for r in cursor})
        return found

    # --- question answering: author look-ups and conversation state (issue 4) ---

    async def papers_by_author(
        self, name_tokens: Sequence[str], start: dt.date | None, end: dt.date | None, limit: int = 500
    ) -> list[Paper]:
        """Papers in the window with an author whose name contains every token (full-text match on authors)."""
        every_token = _fts_all_of(name_tokens)
        if not every_token:
            return []
        match = "authors : " + every_token
        low, high = _day_bounds(start, end)
        async with self.conn.execute(
            "SELECT p.* FROM papers_fts JOIN papers p ON p.rowid = papers_fts.rowid"
            " WHERE papers_fts MATCH ? AND p.announced BETWEEN ? AND ? ORDER BY p.announced DESC LIMIT ?",
            (match, low, high, limit),
        ) as cursor:
            return [_paper_from_row(r) async for r in cursor]

    async def document_frequencies(self, words: Sequence[str]) -> dict[str, int]:
        """How many stored papers mention each word in title or abstract (full-text index, stemmed)."""
        counts: dict[str, int] = {}
        for word in words:
            phrase = _fts_all_of([word])
            if not phrase:
                continue
            async with self.conn.execute(
                "SELECT COUNT(*) FROM papers_fts WHERE papers_fts MATCH ?", ("{title abstract} : " + phrase,)
            ) as cursor:
                row = await cursor.fetchone()
            counts[word] = int(row[0]) if row else 0
        return counts

    async def conversation_state(self, conversation_id: str, max_age: dt.timedelta | None = None) -> str | None:
        """The stored JSON state of a conversation's last turn, if any (and not older than `max_age`)."""
        sql, args = "SELECT state FROM conversations WHERE id=?", [conversation_id]
        if max_age is not None:
            sql += " AND updated_at >= ?"
            args.append(_utc_stamp(max_age))
        async with self.conn.execute(sql, args) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else None

    async def save_conversation_state(
        self, conversation_id: str, state: str, asker: str = "", max_age: dt.timedelta | None = None
    ) -> None:
        """Replace a conversation's last-turn state, noting who asked; turns older than `max_age` are dropped."""
        async with self.transaction() as conn:
            if max_age is not None:
                await conn.execute("DELETE FROM conversations WHERE updated_at < ?", (_utc_stamp(max_age),))
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

    # --- users: members with personal profiles, digest settings, onboarding state and privacy (issue 5) ---

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
        return _user_from_row(row) if row is not None else None

    async def all_users(self) -> list[tuple[UserRecord, int]]:
        """Every user with how many reactions they gave, by key."""
        async with self.conn.execute(
            "SELECT u.*, (SELECT COUNT(*) FROM feedback f WHERE f.user_key = u.key) AS reactions"
            " FROM users u ORDER BY u.key"
        ) as cursor:
            return [(_user_from_row(row), int(row["reactions"])) async for row in cursor]

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

    async def save_user_conversation(self, key: str, state: str) -> None:
        """Store (or clear, with '') a user's unfinished onboarding conversation."""
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO users (key, conversation) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET"
                " conversation=excluded.conversation, updated_at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
                (key, state),
            )

    async def users_with_digest(self) -> list[UserRecord]:
        """Users who opted in to a personal digest (daily or weekly)."""
        async with self.conn.execute("SELECT * FROM users WHERE digest_mode != 'off' ORDER BY key") as cursor:
            return [_user_from_row(row) async for row in cursor]

    async def user_feedback_rows(self, key: str) -> list[FeedbackRecord]:
        """Every thumbs up/down of a user, oldest first, with paper titles where the paper is stored."""
        async with self.conn.execute(
            "SELECT f.paper_id, f.value, f.at, COALESCE(p.title, '') AS title FROM feedback f"
            " LEFT JOIN papers p ON p.id = f.paper_id WHERE f.user_key=? ORDER BY f.at, f.paper_id",
            (key,),
        ) as cursor:
            return [FeedbackRecord(r["paper_id"], r["value"], r["at"], r["title"]) async for r in cursor]

    async def targets_of_profile(self, profile_owner: str) -> list[Target]:
        """Targets (enabled or not) bound to the profile owned by `profile_owner`."""
        async with self.conn.execute(
            "SELECT t.*, p.name AS profile_name FROM targets t JOIN profiles p ON p.id = t.profile_id"
            " WHERE p.owner=? ORDER BY t.id",
            (profile_owner,),
        ) as cursor:
            rows = await cursor.fetchall()
        return [_target_from_row(r) for r in rows]

    async def channel_target_ids(self, platform: str) -> list[int]:
        """Enabled (channel) targets on `platform`."""
        async with self.conn.execute(
            "SELECT id FROM targets WHERE platform=? AND enabled=1 ORDER BY id", (platform,)
        ) as cursor:
            return [int(r[0]) async for r in cursor]

    async def sent_papers_by_day(self, target_ids: Sequence[int]) -> dict[dt.date, list[str]]:
        """Papers delivered to `target_ids`, per announcement day in posting order (for showing a user's history)."""
        if not target_ids:
            return {}
        found: dict[dt.date, list[str]] = {}
        async with self.conn.execute(
            f"SELECT day, paper_id FROM ledger_papers WHERE target_id IN ({_placeholders(len(target_ids))})"
            " ORDER BY day, target_id, position",
            tuple(target_ids),
        ) as cursor:
            async for r in cursor:
                found.setdefault(int_to_day(r["day"]), []).append(r["paper_id"])
        return found

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
            marks = _placeholders(len(target_ids))
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
            cursor = await conn.execute("DELETE FROM conversations WHERE asker=? OR id=?", (key, key))
            counts["conversations"] = cursor.rowcount
            names = [key, *usage_targets]
            cursor = await conn.execute(
                f"UPDATE llm_usage SET target='' WHERE target IN ({_placeholders(len(names))})", names
            )
            counts["llm_usage_anonymised"] = cursor.rowcount
        return counts

    # --- feedback: thumbs up/down per user and paper (issue 5, bot/learn.py) ---

    async def add_feedback(self, user_key: str, paper_id: str, value: int) -> None:
        """Store a reaction (+1/-1); a second reaction to the same paper replaces the first (a change of mind)."""
        await self.add_feedback_many(user_key, {paper_id: value})

    async def add_feedback_many(self, user_key: str, reactions: Mapping[str, int]) -> None:
        """Store several reactions of one user in one transaction (see `add_feedback`).

        A user without a `users` row gets a bare one, so reactions work before any onboarding.
        """
        async with self.transaction() as conn:
            await conn.execute("INSERT OR IGNORE INTO users (key) VALUES (?)", (user_key,))
            await conn.executemany(
                "INSERT INTO feedback (user_key, paper_id, value) VALUES (?,?,?)"
                " ON CONFLICT(user_key, paper_id) DO UPDATE SET value=excluded.value,"
                " at=strftime('%Y-%m-%dT%H:%M:%SZ','now')",
                [(user_key, paper_id, value) for paper_id, value in reactions.items()],
            )

    async def count_feedback(self, user_key: str) -> int:
        """How many papers the user has reacted to."""
        async with self.conn.execute("SELECT COUNT(*) FROM feedback WHERE user_key=?", (user_key,)) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def delete_feedback(self, user_key: str) -> int:
        """Delete every reaction of the user; returns how many rows went."""
        async with self.transaction() as conn:
            cursor = await conn.execute("DELETE FROM feedback WHERE user_key=?", (user_key,))
            return cursor.rowcount
