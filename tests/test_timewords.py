"""Time words in questions -> inclusive announcement-date windows, relative to a fixed 'today'."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.questions.rag import parse_question
from bot.questions.timewords import find_time_window, parse_date

FRIDAY = dt.date(2025, 5, 30)
D = dt.date


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("what MoE papers this week?", D(2025, 5, 26), D(2025, 5, 30)),
        ("anything today?", D(2025, 5, 30), D(2025, 5, 30)),
        ("and yesterday?", D(2025, 5, 29), D(2025, 5, 29)),
        ("and from last week?", D(2025, 5, 19), D(2025, 5, 25)),
        ("papers in the past week", D(2025, 5, 24), D(2025, 5, 30)),
        ("in the last 3 days", D(2025, 5, 28), D(2025, 5, 30)),
        ("over the past ten days", D(2025, 5, 21), D(2025, 5, 30)),
        ("last two weeks", D(2025, 5, 17), D(2025, 5, 30)),
        ("since Monday", D(2025, 5, 26), D(2025, 5, 30)),
        ("since wednesday", D(2025, 5, 28), D(2025, 5, 30)),
        ("since May 27", D(2025, 5, 27), D(2025, 5, 30)),
        ("since 2025-05-20", D(2025, 5, 20), D(2025, 5, 30)),
        ("diffusion from Monday", D(2025, 5, 26), D(2025, 5, 26)),  # that day (issue 22), not "since"
        ("quantization papers from Tuesday", D(2025, 5, 27), D(2025, 5, 27)),
        ("from Monday to Wednesday", D(2025, 5, 26), D(2025, 5, 28)),
        ("KANs from Monday to today", D(2025, 5, 26), D(2025, 5, 30)),  # since that day, not Monday alone
        ("from May 27", D(2025, 5, 27), D(2025, 5, 27)),  # that day, as "from Tuesday" is (it read "since")
        ("papers from 2025-05-28 on diffusion", D(2025, 5, 28), D(2025, 5, 28)),
        ("from May 27 onwards", D(2025, 5, 27), D(2025, 5, 30)),
        ("from 2025-05-27 to today", D(2025, 5, 27), D(2025, 5, 30)),
        ("papers from May", D(2025, 5, 1), D(2025, 5, 30)),
        ("on Tuesday", D(2025, 5, 27), D(2025, 5, 27)),
        ("on 2025-05-28", D(2025, 5, 28), D(2025, 5, 28)),
        ("on May 28th", D(2025, 5, 28), D(2025, 5, 28)),
        ("between May 26 and May 28", D(2025, 5, 26), D(2025, 5, 28)),
        ("from 2025-05-01 to 2025-05-10", D(2025, 5, 1), D(2025, 5, 10)),
        ("in May", D(2025, 5, 1), D(2025, 5, 30)),
        ("in June", D(2024, 6, 1), D(2024, 6, 30)),  # no June yet this year: last year's
        ("during march 2024", D(2024, 3, 1), D(2024, 3, 31)),
        ("in 2025", D(2025, 1, 1), D(2025, 5, 30)),
        ("in 2024", D(2024, 1, 1), D(2024, 12, 31)),
        ("this month", D(2025, 5, 1), D(2025, 5, 30)),
        ("last month", D(2025, 4, 1), D(2025, 4, 30)),
        ("this year", D(2025, 1, 1), D(2025, 5, 30)),
    ],
)
def test_phrases_become_windows(question: str, start: dt.date, end: dt.date) -> None:
    window = find_time_window(question, FRIDAY)
    assert window is not None, question
    assert (window.start, window.end) == (start, end)
    assert window.contains(start) and window.contains(end)


@pytest.mark.parametrize(
    ("question", "start"),
    [
        ("diffusion papers from May 27 on", D(2025, 5, 27)),  # it read "since" before "from <date>" became the day
        ("diffusion papers from May 27 on?", D(2025, 5, 27)),
        ("diffusion papers from May 27 up to today", D(2025, 5, 27)),
        ("diffusion papers from May 27 and later", D(2025, 5, 27)),
        ("starting from May 27, any diffusion papers?", D(2025, 5, 27)),
        ("diffusion papers from Tuesday onwards", D(2025, 5, 27)),  # "onwards" had been a topic word
        ("diffusion papers from Tuesday on", D(2025, 5, 27)),
        ("diffusion papers from Tuesday up to today", D(2025, 5, 27)),
        ("starting from Tuesday, diffusion papers", D(2025, 5, 27)),
        ("from the 27th onwards, diffusion papers", D(2025, 5, 27)),
        ("diffusion papers since the 27th", D(2025, 5, 27)),  # no window at all
    ],
)
def test_a_day_that_begins_a_window_to_today_is_since_that_day(question: str, start: dt.date) -> None:
    """One reading of "from <day> onwards / on / and later / up to today" and "starting from <day>" for a date, a day's
    name and a day of the month, its words no topic ("from May 27 on" had become May 27 alone, "from Tuesday onwards"
    Tuesday alone with the topic "diffusion onwards"); "from <day> on <topic>" is that day."""
    window = find_time_window(question, FRIDAY)
    assert window is not None and (window.start, window.end) == (start, FRIDAY), question
    assert parse_question(question, FRIDAY).topic == "diffusion", question
    on_topic = find_time_window("papers from May 27 on diffusion", FRIDAY)
    assert on_topic is not None and on_topic.end == D(2025, 5, 27)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        # b41adf4 made "from <date>" that day alone: the weekday after it had become a topic word ("RL until Thursday")
        ("RL papers from May 26 until Thursday", D(2025, 5, 26), D(2025, 5, 29)),
        ("RL papers from May 26 through Thursday", D(2025, 5, 26), D(2025, 5, 29)),
        ("RL papers from Monday to May 29", D(2025, 5, 26), D(2025, 5, 29)),
        ("RL papers from 2025-05-27 - Thursday", D(2025, 5, 27), D(2025, 5, 29)),
    ],
)
def test_a_range_from_a_date_to_a_day_name_or_back_is_the_days_between(
    question: str, start: dt.date, end: dt.date
) -> None:
    window = find_time_window(question, FRIDAY)
    assert window is not None and (window.start, window.end) == (start, end), question
    assert parse_question(question, FRIDAY).topic == "RL", question


@pytest.mark.parametrize(
    "question",
    [
        "sparse attention papers",
        "what is a mixture of experts",
        "papers that may help",
        "on transformers",
        "2025 MoE",
        # every day up to today, the window every question has already (not today alone)
        "What's out up to today?",
        "KAN papers until today",
        "anything on KANs as of today",
    ],
)
def test_no_time_words_no_window(question: str) -> None:
    assert find_time_window(question, FRIDAY) is None


@pytest.mark.parametrize(
    ("question", "days"),
    [
        ("and Monday and Thursday?", (D(2025, 5, 26), D(2025, 5, 29))),
        ("robotics on Monday, Wednesday and Friday", (D(2025, 5, 26), D(2025, 5, 28), D(2025, 5, 30))),
        ("from Monday and Thursday", (D(2025, 5, 26), D(2025, 5, 29))),  # two days, not the days between
        ("Monday or Tuesday?", (D(2025, 5, 26), D(2025, 5, 27))),
        ("on May 26 and May 28", (D(2025, 5, 26), D(2025, 5, 28))),
        ("on mon & wed", (D(2025, 5, 26), D(2025, 5, 28))),
        ("yesterday and today", (D(2025, 5, 29), D(2025, 5, 30))),
    ],
)
def test_a_list_of_days_is_that_set_of_days(question: str, days: tuple[dt.date, ...]) -> None:
    window = find_time_window(question, FRIDAY)
    assert window is not None and window.days == days, question
    assert (window.start, window.end) == (days[0], days[-1])
    assert [d for d in (days[0] + dt.timedelta(n) for n in range(7)) if window.contains(d)] == list(days)


@pytest.mark.parametrize(
    ("question", "days"),
    [
        ("on May 26 and 27", (D(2025, 5, 26), D(2025, 5, 27))),
        ("robotics from May 26, 28 and 30?", (D(2025, 5, 26), D(2025, 5, 28), D(2025, 5, 30))),
        ("on 26 and 28 May", (D(2025, 5, 26), D(2025, 5, 28))),
        ("from the 26th, 27th and 29th May", (D(2025, 5, 26), D(2025, 5, 27), D(2025, 5, 29))),
        ("papers on May 2nd & 5th", (D(2025, 5, 2), D(2025, 5, 5))),
    ],
)
def test_days_sharing_one_month_are_that_set_of_days(question: str, days: tuple[dt.date, ...]) -> None:
    window = find_time_window(question, FRIDAY)
    assert window is not None and window.days == days, question


def test_a_number_after_a_date_that_is_not_a_later_day_is_not_one() -> None:
    for question in ("on May 26 and 3 more on RL", "on May 26 and 5% of them"):
        window = find_time_window(question, FRIDAY)
        assert window is not None and not window.days, question


def test_a_day_then_other_words_is_one_day() -> None:
    for question in ("papers from Monday and RL", "on Monday and Sun et al.", "between Monday and Thursday"):
        window = find_time_window(question, FRIDAY)
        assert window is not None and not window.days, question
    window = find_time_window("papers from Monday and RL", FRIDAY)
    assert window is not None and window.phrase == "from monday"


def test_this_week_on_a_monday_is_just_monday() -> None:
    window = find_time_window("this week", D(2025, 5, 26))
    assert window is not None and (window.start, window.end) == (D(2025, 5, 26), D(2025, 5, 26))


def test_windows_never_end_in_the_future() -> None:
    window = find_time_window("between May 28 and June 10", FRIDAY)
    assert window is not None and window.end == FRIDAY


def test_parse_date_forms() -> None:
    assert parse_date("May 26, 2025", FRIDAY) == D(2025, 5, 26)
    assert parse_date("26 May", FRIDAY) == D(2025, 5, 26)
    assert parse_date("Dec 3", FRIDAY) == D(2024, 12, 3)
    assert parse_date("Feb 30", FRIDAY) is None


def test_a_list_of_days_never_ends_in_the_future() -> None:
    window = find_time_window("on May 26 and 31", FRIDAY)  # one reader for every list: its end is never after today
    assert window is not None and window.end == FRIDAY and window.days == (D(2025, 5, 26), D(2025, 5, 31))


def test_a_date_with_the_month_s_full_name_is_a_date_anywhere() -> None:
    # without "on" or "from" before it: "a recap of June 3", "April 2nd papers"
    recap = find_time_window("a recap of June 3 on graph transformers", D(2025, 6, 6))
    assert recap is not None and (recap.start, recap.end) == (D(2025, 6, 3), D(2025, 6, 3))
    second = find_time_window("April 2nd papers on world models", D(2025, 4, 4))
    assert second is not None and (second.start, second.end) == (D(2025, 4, 2), D(2025, 4, 2))
    assert find_time_window("the 3rd of April, optimal transport", D(2025, 4, 4)).start == D(2025, 4, 3)
    # a number before the month without its ordinal may be a count; an abbreviation may be a name
    assert find_time_window("the top 3 May papers on agents", FRIDAY) is None
    assert find_time_window("Jan 3 papers", FRIDAY) is None


def test_the_nth_alone_is_that_day_of_this_month_or_the_last() -> None:
    window = find_time_window("anything on speech from the 28th?", FRIDAY)
    assert window is not None and (window.start, window.end) == (D(2025, 5, 28), D(2025, 5, 28))
    # a day still to come this month is last month's
    assert find_time_window("what came out on the 29th", D(2025, 6, 10)).start == D(2025, 5, 29)
