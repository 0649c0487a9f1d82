"""The announcement-day rule: submission time -> the day arXiv's listing (RSS feed) carries the paper."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.ingest.announce import (
    EASTERN,
    announced_at,
    announcement_day,
    announcement_days,
    cutoff,
    is_announcement_day,
    latest_announcement_day,
    next_announcement_day,
    previous_announcement_day,
    submission_window,
)

D = dt.date
UTC = dt.UTC


def et(year: int, month: int, day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=EASTERN)


@pytest.mark.parametrize(
    ("submitted", "announced"),
    [
        # The sample: submitted Tue 29 April 2025, 16:00-18:00 UTC (12:00-14:00 EDT) -> Wed 30 April.
        (dt.datetime(2025, 4, 29, 16, 0, tzinfo=UTC), D(2025, 4, 30)),
        (dt.datetime(2025, 4, 29, 17, 59, 59, tzinfo=UTC), D(2025, 4, 30)),
        # 14:00 EDT sharp is past the cut-off.
        (dt.datetime(2025, 4, 29, 18, 0, tzinfo=UTC), D(2025, 5, 1)),
        # Before the cut-off on Friday -> Monday (announced Sunday evening); after it -> Tuesday.
        (et(2025, 5, 2, 13, 59), D(2025, 5, 5)),
        (et(2025, 5, 2, 14, 0), D(2025, 5, 6)),
        # Saturday and Sunday submissions -> Tuesday.
        (et(2025, 5, 3, 10), D(2025, 5, 6)),
        (et(2025, 5, 4, 23), D(2025, 5, 6)),
        # Winter: the cut-off is 19:00 UTC (EST).
        (dt.datetime(2026, 1, 13, 18, 59, tzinfo=UTC), D(2026, 1, 14)),
        (dt.datetime(2026, 1, 13, 19, 0, tzinfo=UTC), D(2026, 1, 15)),
        # Memorial Day 2025 (Mon 26 May, no announcement): Friday after the cut-off to Tuesday 14:00 -> Wed 28 May.
        (et(2025, 5, 23, 15), D(2025, 5, 28)),
        (et(2025, 5, 26, 13), D(2025, 5, 28)),
        (et(2025, 5, 27, 13), D(2025, 5, 28)),
        # Thanksgiving 2026 (Thu 26 Nov): Wednesday after the cut-off rolls to Monday 30 Nov.
        (et(2026, 11, 25, 15), D(2026, 11, 30)),
        (et(2026, 11, 27, 13), D(2026, 11, 30)),
        # Naive means UTC.
        (dt.datetime(2025, 4, 29, 16, 0), D(2025, 4, 30)),
    ],
)
def test_announcement_day(submitted: dt.datetime, announced: dt.date) -> None:
    assert announcement_day(submitted) == announced


def test_the_shared_data_days_are_announcement_days_and_the_gap_is_a_holiday() -> None:
    # /work/shared/data has 2025-05-26, -28, -29, -30: the 27th follows Memorial Day evening.
    assert announcement_days(D(2025, 5, 24), D(2025, 5, 31)) == [
        D(2025, 5, 26),
        D(2025, 5, 28),
        D(2025, 5, 29),
        D(2025, 5, 30),
    ]


def test_weekends_and_holidays_are_not_announcement_days() -> None:
    assert not is_announcement_day(D(2025, 5, 3))  # Saturday
    assert not is_announcement_day(D(2025, 5, 4))  # Sunday
    assert is_announcement_day(D(2025, 5, 5))  # Monday (Sunday evening's announcement)
    assert not is_announcement_day(D(2026, 1, 20))  # after MLK day 2026
    assert not is_announcement_day(D(2026, 11, 27))  # after Thanksgiving 2026
    assert announcement_days(D(2026, 12, 24), D(2027, 1, 4)) == [
        D(2026, 12, 24),
        D(2026, 12, 25),  # Thursday 24 December is not on the 2026 list
        D(2026, 12, 28),
        D(2026, 12, 29),
        D(2026, 12, 31),
        D(2027, 1, 4),
    ]
    assert announcement_days(D(2025, 5, 2), D(2025, 5, 1)) == []


def test_neighbours_and_windows() -> None:
    assert next_announcement_day(D(2025, 5, 3)) == D(2025, 5, 5)
    assert next_announcement_day(D(2025, 5, 5)) == D(2025, 5, 5)
    assert previous_announcement_day(D(2025, 5, 5)) == D(2025, 5, 2)
    assert previous_announcement_day(D(2025, 5, 28)) == D(2025, 5, 26)
    assert cutoff(D(2025, 5, 5)) == et(2025, 5, 2, 14)
    assert submission_window(D(2025, 5, 28)) == (et(2025, 5, 23, 14), et(2025, 5, 27, 14))
    assert announced_at(D(2025, 4, 30)).astimezone(UTC) == dt.datetime(2025, 4, 30, 0, 0, tzinfo=UTC)
    with pytest.raises(ValueError):
        cutoff(D(2025, 5, 3))


def test_every_submission_lands_in_the_window_of_its_day() -> None:
    moment = dt.datetime(2025, 12, 20, 0, 0, tzinfo=UTC)
    while moment < dt.datetime(2026, 1, 25, tzinfo=UTC):
        day = announcement_day(moment)
        start, end = submission_window(day)
        assert start <= moment < end, moment
        moment += dt.timedelta(minutes=97)


def test_latest_announcement_day() -> None:
    # Tue 29 Apr 2025 23:59 UTC is before that evening's 20:00 EDT announcement: the latest is Tuesday's.
    assert latest_announcement_day(dt.datetime(2025, 4, 29, 23, 59, tzinfo=UTC)) == D(2025, 4, 29)
    assert latest_announcement_day(dt.datetime(2025, 4, 30, 0, 0, tzinfo=UTC)) == D(2025, 4, 30)
    assert latest_announcement_day(dt.datetime(2025, 5, 3, 12, 0, tzinfo=UTC)) == D(2025, 5, 2)
    assert latest_announcement_day(dt.datetime(2025, 5, 27, 12, 0, tzinfo=UTC)) == D(2025, 5, 26)
