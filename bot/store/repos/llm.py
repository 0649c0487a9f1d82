"""The LLM score cache and the per-call token and cost accounting."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from bot.models import day_to_int, int_to_day
from bot.store.repos.base import RepositoryBase, chunks, placeholders


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


class LLMRepo(RepositoryBase):
    """LLM judgements cached per (paper, profile, model), and what every call cost."""

    async def cached_scores(self, ids: Sequence[str], fingerprint: str, model: str) -> dict[str, CachedScore]:
        """LLM scores already paid for, keyed by paper id."""
        found: dict[str, CachedScore] = {}
        for chunk in chunks(list(ids)):
            async with self.conn.execute(
                "SELECT paper_id, relevance, novelty, comment FROM scores WHERE profile_fingerprint=? AND model=?"
                f" AND paper_id IN ({placeholders(len(chunk))})",
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
