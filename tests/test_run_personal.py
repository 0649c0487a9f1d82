"""Personal (DM) digests under `paperscout run`: restarted 2 hours after a member's post time the digest goes out
once; restarted 8 hours after it is skipped and logged, not posted late. The post time is the member's, in their
zone."""

from __future__ import annotations

import datetime as dt
import io
import logging

import pytest

from bot.core import Core
from bot.frontends.console import ConsolePoster
from bot.members.onboarding import Draft, build_profile
from bot.members.settings import profile_owner
from bot.ops.scheduler import DigestJobs
from tests.conftest import StoreDay
from tests.test_run import _redate, at

DAY = dt.date(2026, 6, 2)  # a Tuesday


async def member(core: Core, key: str, post_time: str, zone: str) -> None:
    await core.repo.ensure_user(key, key)
    await core.repo.save_profile(profile_owner(key), build_profile(Draft(interests=["graph neural networks"]), key))
    await core.repo.save_user_settings(key, digest_mode="daily", post_time=post_time, timezone=zone, weekly_day=0)


async def test_personal_digests_catch_up_two_hours_late_and_skip_eight(
    core: Core, store_day: StoreDay, caplog: pytest.LogCaptureFixture
) -> None:
    papers = await store_day(core)
    await _redate(core, papers[:20], DAY, "2026-06-02T01:00:00Z")
    await member(core, "console:early", "08:00", "Europe/Berlin")  # 06:00 UTC: 8 h before the restart
    await member(core, "console:late", "12:00", "Europe/Berlin")  # 10:00 UTC: 4 h before it
    await member(core, "console:ny", "09:00", "America/New_York")  # 13:00 UTC: 1 h before it
    out = io.StringIO()
    clock = [at("2026-06-02T14:00:00")]
    jobs = DigestJobs(core, {"console": ConsolePoster(out)}, clock=lambda: clock[0], catchup_hours=6)
    with caplog.at_level(logging.WARNING):
        first = await jobs.tick()
    assert sorted((r.target.chat_id, r.status) for r in first) == [("dm:late", "sent"), ("dm:ny", "sent")]
    assert "personal digest for console:early on 2026-06-02 skipped" in caplog.text
    clock[0] += dt.timedelta(minutes=1)
    assert await jobs.tick() == []  # nothing twice, the skipped one stays skipped
    assert out.getvalue().count("--- to console:dm:") == 2
