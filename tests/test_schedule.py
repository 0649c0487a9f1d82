"""When personal digests are due: the user's time and zone, arXiv's announcement days, downtime, weekly digests."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.digests.due import CATCH_UP_DAYS, DigestSchedule, due_days, local_time

# A real arXiv week: announcements Monday to Friday, none at the weekend.
MON, TUE, WED, THU, FRI = (dt.date(2025, 5, 26) + dt.timedelta(days=i) for i in range(5))
SAT, SUN = dt.date(2025, 5, 31), dt.date(2025, 6, 1)
WEEK = [MON, TUE, WED, THU, FRI]


def at(day: dt.date, hhmm: str) -> dt.datetime:
    hour, minute = map(int, hhmm.split(":"))
    return dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=dt.UTC)


def test_daily_waits_for_the_users_time_of_day_in_their_zone() -> None:
    paris = DigestSchedule("daily", "08:15", "Europe/Paris")  # UTC+2 in May
    assert due_days(paris, at(WED, "06:14"), WEEK[:3], last_sent=TUE) == []
    assert due_days(paris, at(WED, "06:15"), WEEK[:3], last_sent=TUE) == [WED]
    assert due_days(paris, at(WED, "12:00"), WEEK[:3], last_sent=WED) == []  # sent already
    new_york = DigestSchedule("daily", "07:00", "America/New_York")  # UTC-4: Wednesday 07:00 is 11:00 UTC
    assert due_days(new_york, at(WED, "10:59"), WEEK[:3], last_sent=TUE) == []
    assert due_days(new_york, at(WED, "11:00"), WEEK[:3], last_sent=TUE) == [WED]


def test_ahead_of_utc_the_digest_goes_out_once_the_days_papers_are_stored() -> None:
    tokyo = DigestSchedule("daily", "08:00", "Asia/Tokyo")  # UTC+9: Wednesday 08:00 is Tuesday 23:00 UTC
    # Wednesday's papers are not announced yet at Tuesday 23:00 UTC: nothing new to send
    assert due_days(tokyo, at(TUE, "23:00"), WEEK[:2], last_sent=TUE) == []
    # they are stored soon after 00:00 UTC, and the digest is due straight away
    assert due_days(tokyo, at(WED, "00:40"), WEEK[:3], last_sent=TUE) == [WED]


def test_weekends_and_holidays_post_nothing() -> None:
    daily = DigestSchedule("daily", "09:00", "UTC")
    assert due_days(daily, at(SAT, "10:00"), WEEK, last_sent=FRI) == []
    assert due_days(daily, at(SUN, "10:00"), WEEK, last_sent=FRI) == []


def test_downtime_is_caught_up_oldest_first_but_a_new_user_gets_only_the_latest_day() -> None:
    daily = DigestSchedule("daily", "09:00", "UTC")
    assert due_days(daily, at(THU, "12:00"), WEEK[:4], last_sent=MON) == [TUE, WED, THU]
    assert len(due_days(daily, at(FRI, "12:00"), WEEK, last_sent=dt.date(2025, 5, 1))) == CATCH_UP_DAYS
    assert due_days(daily, at(THU, "12:00"), WEEK[:4], last_sent=None) == [THU]
    # before today's time: yesterday's digest is still owed if it was missed
    assert due_days(daily, at(THU, "08:00"), WEEK[:4], last_sent=TUE) == [WED]


def test_weekly_goes_out_on_the_chosen_day_and_skips_weeks_without_announcements() -> None:
    friday = DigestSchedule("weekly", "17:00", "UTC", weekly_day=4)
    assert due_days(friday, at(FRI, "16:59"), WEEK, last_sent=None) == []  # last Friday's week had no papers
    assert due_days(friday, at(FRI, "17:00"), WEEK, last_sent=None) == [FRI]
    assert due_days(friday, at(SUN, "09:00"), WEEK, last_sent=FRI) == []
    # a week later, the bot down all Friday: the week is sent on Saturday, once
    next_fri = FRI + dt.timedelta(days=7)
    next_week = [d + dt.timedelta(days=7) for d in WEEK]
    assert due_days(friday, at(SAT + dt.timedelta(days=7), "09:00"), WEEK + next_week, last_sent=FRI) == [next_fri]
    sunday = DigestSchedule("weekly", "09:00", "UTC", weekly_day=6)
    assert due_days(sunday, at(SUN, "09:00"), WEEK, last_sent=None) == [SUN]  # covers Monday to Friday
    holiday = DigestSchedule("weekly", "09:00", "UTC", weekly_day=6)
    assert due_days(holiday, at(SUN + dt.timedelta(days=7), "10:00"), WEEK, last_sent=SUN) == []


def test_off_and_odd_settings() -> None:
    assert due_days(DigestSchedule("off"), at(WED, "12:00"), WEEK, last_sent=None) == []
    unknown_zone = DigestSchedule("daily", "09:00", "Mars/Olympus_Mons")  # treated as UTC, never a crash
    assert due_days(unknown_zone, at(WED, "09:00"), WEEK[:3], last_sent=TUE) == [WED]
    assert local_time(at(WED, "12:00"), "Asia/Kolkata").strftime("%H:%M") == "17:30"
    with pytest.raises(ValueError, match="timezone-aware"):
        local_time(dt.datetime(2025, 5, 28, 12, 0), "UTC")
