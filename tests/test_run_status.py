"""A target the platform refuses for good turns inactive with the platform's reason (not retried, shown by
`paperscout status`, cleared by setting it up again); a failed post is shown as failed; retries back off with
jitter and never wait less than a retry_after."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import replace

from bot.core import Core
from bot.digests.delivery import DeliveryError, retry_wait
from bot.ops.scheduler import DigestJobs
from bot.ops.status import status_report, status_text
from tests.conftest import StoreDay
from tests.test_run import RecordingPoster, _add_target, _redate, at, target

DAY = dt.date(2026, 6, 1)


async def test_a_gone_chat_turns_inactive_a_flaky_one_shows_failed_and_setup_reactivates(
    core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    await _redate(core, papers[:20], DAY, "2026-06-01T04:00:00Z")
    gone = await _add_target(core, target("UTC", "09:00", "gone"))
    flaky = await _add_target(core, target("UTC", "09:00", "flaky"))
    await _add_target(core, target("UTC", "09:00", "fine"))

    class Refusing(RecordingPoster):
        async def send_digest_message(self, tgt, message, position, sent, nonce):  # type: ignore[no-untyped-def]
            if tgt.chat_id == "gone":
                raise DeliveryError("Forbidden: bot was kicked from the group chat", permanent=True)
            if tgt.chat_id == "flaky":
                raise DeliveryError("Bad Gateway", retry_after=0)
            return await super().send_digest_message(tgt, message, position, sent, nonce)

    poster = Refusing()
    jobs = DigestJobs(core, {"test": poster}, clock=lambda: at("2026-06-01T09:05:00"))
    results = {r.target.chat_id: r.status for r in await jobs.tick()}
    assert results == {"gone": "failed", "flaky": "failed", "fine": "sent"}
    assert await core.repo.inactive_reasons() == {gone.id: "Forbidden: bot was kicked from the group chat"}

    report = await status_report(core, at("2026-06-01T09:06:00"))
    states = {t["target"]: t["today"] for t in report["targets"]}
    assert states["test:gone"] == "inactive" and states["test:fine"] == "sent"
    assert states["test:flaky"].startswith("failed")
    assert report["ledger"] == {"sent": 1, "pending": 0, "failed": 1, "inactive": 1, "paused": 0}
    text = status_text(report)
    assert "1 sent, 0 pending, 1 failed, 1 inactive" in text and "bot was kicked" in text

    # the next tick retries the flaky chat, never the gone one
    again = {r.target.chat_id: r.status for r in await jobs.tick()}
    assert again == {"flaky": "failed"} and flaky.id not in await core.repo.inactive_reasons()

    # set up again (an admin re-adds the bot and runs /setup): scheduled again
    await core.repo.save_target(replace(gone, id=None), "test:gone")
    assert await core.repo.inactive_reasons() == {}
    assert "gone" in {t.chat_id for t, _ in await core.repo.targets()}


async def test_a_stored_time_zone_or_time_that_is_invalid_is_named_not_silently_replaced(core: Core) -> None:
    await _add_target(core, target("Mars/Olympus_Mons", "25:99", "mars"))
    await _add_target(core, target("Europe/Paris", "08:30", "paris"))
    report = await status_report(core, at("2026-06-01T09:06:00"))
    problems = {t["target"]: t["problems"] for t in report["targets"]}
    assert problems == {
        "test:mars": [
            "time zone 'Mars/Olympus_Mons' is unknown, so UTC is used",
            "post time '25:99' is not a time like 09:00, so 09:00 is used",
        ],
        "test:paris": [],
    }
    assert "setting to correct: time zone 'Mars/Olympus_Mons' is unknown" in status_text(report)


async def test_a_damaged_stored_categories_value_does_not_end_the_digest_job(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    await _redate(core, papers[:20], DAY, "2026-06-01T04:00:00Z")
    damaged = await _add_target(core, target("UTC", "09:00", "damaged"))
    await _add_target(core, target("UTC", "09:00", "fine"))
    await core.repo.conn.execute("UPDATE targets SET categories='not json' WHERE id=?", (damaged.id,))
    await core.repo.conn.execute("UPDATE papers SET categories='{\"a\": 1' WHERE id=?", (papers[0].id,))
    await core.repo.conn.commit()
    jobs = DigestJobs(core, {"test": RecordingPoster()}, clock=lambda: at("2026-06-01T09:05:00"))
    results = {r.target.chat_id: r.status for r in await jobs.tick()}
    assert results["fine"] == "sent", results


def test_retries_wait_the_platforms_retry_after_or_a_jittered_backoff() -> None:
    rng = random.Random(5)
    assert retry_wait(DeliveryError("429", retry_after=7.5), 1, rng) == 7.5
    waits = [retry_wait(DeliveryError("502"), 3, rng) for _ in range(50)]
    assert all(4.0 <= w <= 8.0 for w in waits) and len(set(waits)) > 40  # spread, not in step
    assert retry_wait(DeliveryError("502"), 30, rng) <= 300
