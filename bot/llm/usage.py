"""LLM token and cost accounting in SQLite: one row per call, grouped by run, day, target and purpose.

`UsageRecorder` is the `bot.llm.client.UsageSink` of the running bot. Which digest or question a call belongs to is
not passed through every function: `usage_run` sets it for the current asyncio task (a context variable), so
concurrent digests for different targets never mix their rows.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from bot.config import Settings
from bot.llm.client import Budget
from bot.store.repos.llm import LLMRepo, UsageTotals


@dataclass(frozen=True, slots=True)
class UsageRun:
    """What the calls of one digest or question are recorded under."""

    run_id: str
    target: str


_current_run: contextvars.ContextVar[UsageRun | None] = contextvars.ContextVar("paperscout_usage_run", default=None)


def utc_today() -> dt.date:
    """The UTC date the daily LLM cap is counted on."""
    return dt.datetime.now(dt.UTC).date()


@contextmanager
def usage_run(target: str = "") -> Iterator[UsageRun]:
    """Record every LLM call made inside the block (in this task) under a new run id and `target`."""
    run = UsageRun(run_id=uuid.uuid4().hex[:16], target=target)
    token = _current_run.set(run)
    try:
        yield run
    finally:
        _current_run.reset(token)


class UsageRecorder:
    """A `UsageSink` that stores each call in the `llm_usage` table under the current `usage_run`."""

    def __init__(self, repo: LLMRepo) -> None:
        self.repo = repo

    async def record(
        self, purpose: str, model: str, prompt_tokens: int, completion_tokens: int, cost_usd: float
    ) -> None:
        """Store one call's usage (made today, UTC)."""
        run = _current_run.get()
        await self.repo.record_llm_usage(
            day=utc_today(),
            purpose=purpose,
            model=model,
            target=run.target if run else "",
            run_id=run.run_id if run else "",
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=cost_usd,
        )


def format_usd(amount: float) -> str:
    """Dollars for notes: cents for ordinary amounts, four decimals for the tiny caps of tests and trials."""
    return f"${amount:.2f}" if amount >= 0.1 or amount == 0 else f"${amount:.4f}"


async def budget_today(repo: LLMRepo, settings: Settings) -> Budget:
    """Today's spend (all targets, UTC day) against the configured daily cap."""
    return Budget.from_settings(settings, await repo.llm_spent_on(utc_today()))


def usage_dict(per_purpose: dict[str, UsageTotals]) -> dict[str, float]:
    """Flat figures for `Digest.usage`: totals, then ``PURPOSE.prompt_tokens`` etc. for each purpose."""
    out: dict[str, float] = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cost_usd": 0.0}
    for purpose, totals in sorted(per_purpose.items()):
        for key, value in (
            ("calls", totals.calls),
            ("prompt_tokens", totals.prompt_tokens),
            ("completion_tokens", totals.completion_tokens),
            ("total_tokens", totals.total_tokens),
            ("cost_usd", totals.cost_usd),
        ):
            out[f"{purpose}.{key}"] = value
            out[key] += value
    return out


async def run_usage(repo: LLMRepo, run_id: str) -> dict[str, float]:
    """The usage of one run as `usage_dict` figures."""
    return usage_dict(await repo.llm_usage_totals(by="purpose", run_id=run_id))
