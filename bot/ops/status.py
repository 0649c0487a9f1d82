"""`paperscout status`: when the jobs run next, how their last runs went, and the ledger of the latest day."""

from __future__ import annotations

import datetime as dt
from typing import Any

from bot.core import Core
from bot.days import stored_today
from bot.digests.due import local_time, schedule_problems, week_ending
from bot.members.settings import WEEKDAYS
from bot.ops.scheduler import ARXIV_ZONE, INGEST_HOUR, post_moment

_INGEST_WEEKDAYS = {6, 0, 1, 2, 3}  # Sunday to Thursday (Monday = 0)


def next_ingest(now: dt.datetime) -> dt.datetime:
    """The next announcement-night ingest (Sunday-Thursday 20:00 US Eastern) after `now`, in UTC."""
    local = now.astimezone(ARXIV_ZONE)
    for ahead in range(8):
        day = local.date() + dt.timedelta(days=ahead)
        moment = dt.datetime(day.year, day.month, day.day, INGEST_HOUR, tzinfo=ARXIV_ZONE)
        if day.weekday() in _INGEST_WEEKDAYS and moment > local:
            return moment.astimezone(dt.UTC)
    raise AssertionError("a week always has an announcement night")


async def _ledger(core: Core, day: dt.date) -> dict[int, tuple[str, str, int]]:
    return {tid: (status, detail, messages) for tid, status, detail, messages in await core.repo.ledger_on(day)}


async def status_report(core: Core, now: dt.datetime) -> dict[str, Any]:
    """Everything `paperscout status` shows, as plain data."""
    day = await stored_today(core, now)
    ledger = await _ledger(core, day) if day else {}
    ledgers: dict[dt.date, dict[int, tuple[str, str, int]]] = {}  # weekly channels', by week end
    inactive = await core.repo.inactive_reasons()
    targets = []
    for target, _profile in await core.repo.targets(enabled_only=False):
        if target.id is None or target.chat_id.startswith("dm:"):
            continue
        local_today = local_time(now, target.timezone).date()
        covers = day.isoformat() if day else "-"
        if target.schedule == "weekly":  # filed under its week's end, not under a stored day (bot.digests.due)
            week_end = week_ending(local_today, target.weekly_day)
            covers = f"this week (ending {week_end.isoformat()})"
            if week_end not in ledgers:
                ledgers[week_end] = await _ledger(core, week_end)
            status, detail, messages = ledgers[week_end].get(target.id, ("", "", 0))
        else:
            status, detail, messages = ledger.get(target.id, ("", "", 0))
        if target.id in inactive:
            state, detail = "inactive", inactive[target.id]
        elif target.paused:
            state = "paused"
        elif status == "sent":
            state = "sent"
        elif status == "claimed" and detail:
            state = f"failed ({messages} messages out; retried at the next tick)"
        elif status == "claimed":
            state = f"in progress ({messages} messages out)"
        else:
            state = "not yet"
        # a weekly channel posts on its weekday only
        ahead, step = ((target.weekly_day - local_today.weekday()) % 7, 7) if target.schedule == "weekly" else (0, 1)
        upcoming = post_moment(target, local_today + dt.timedelta(days=ahead))
        if upcoming <= now:
            upcoming = post_moment(target, local_today + dt.timedelta(days=ahead + step))
        weekday = f"{WEEKDAYS[target.weekly_day % 7]}s " if target.schedule == "weekly" else ""
        targets.append(
            {
                "target": target.key,
                "post_time": f"{weekday}{target.post_time} {target.timezone}",
                "next_post_utc": upcoming.strftime("%Y-%m-%d %H:%M"),
                "today": state,
                "covers": covers,
                "detail": detail,
                "problems": schedule_problems(target.post_time, target.timezone),
            }
        )
    summary = {name: 0 for name in ("sent", "pending", "failed", "inactive", "paused")}
    for entry in targets:
        state = entry["today"].split(" ", 1)[0]
        summary[{"in": "pending", "not": "pending"}.get(state, state)] += 1
    runs = await core.repo.last_job_runs()
    return {
        "now_utc": now.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M"),
        "latest_day": day.isoformat() if day else None,
        "next_ingest_utc": next_ingest(now).strftime("%Y-%m-%d %H:%M"),
        "jobs": {
            job: {"started": started, "finished": finished, "outcome": outcome, "detail": detail}
            for job, (started, finished, outcome, detail) in runs.items()
        },
        "ledger": summary,
        "targets": targets,
    }


def status_text(report: dict[str, Any]) -> str:
    """The report as a few readable lines."""
    lines = [
        f"now (UTC): {report['now_utc']}; latest stored announcement day: {report['latest_day'] or 'none yet'}",
        f"next ingest (UTC): {report['next_ingest_utc']} (arXiv announces Sunday-Thursday 20:00 US Eastern)",
    ]
    for job, run in sorted(report["jobs"].items()):
        lines.append(f"last {job} run: {run['started']} -> {run['outcome']} {run['detail']}".rstrip())
    if not report["jobs"]:
        lines.append("no job has run yet (paperscout run records every run)")
    counts = report["ledger"]
    lines.append(
        f"digests of {report['latest_day'] or '-'}: {counts['sent']} sent, {counts['pending']} pending,"
        f" {counts['failed']} failed, {counts['inactive']} inactive, {counts['paused']} paused"
    )
    if not report["targets"]:
        lines.append("no channel digests set up (/setup in a channel, or in paperscout console)")
    for target in report["targets"]:
        lines.append(
            f"{target['target']}: {target['today']} for {target['covers']}; posts at {target['post_time']}, "
            f"next {target['next_post_utc']} UTC" + (f" ({target['detail']})" if target["today"] == "inactive" else "")
        )
        lines += [f"  setting to correct: {problem}" for problem in target.get("problems", ())]
    return "\n".join(lines)
