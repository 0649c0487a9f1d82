"""arXiv ingestion against the local fake: real httpx, feedparser and arxiv clients over HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path

import feedparser
import httpx
import pytest

from bot.config import Settings
from bot.errors import ConfigError, FeedError, InputError, SourceUnavailable
from bot.ingest import arxiv_api, rss
from bot.ingest.arxiv_api import fetch_by_ids, fetch_range
from bot.ingest.rss import fetch_rss, parse_rss
from bot.ingest.throttle import Throttle, retry_after_seconds, shared_throttle
from tests.fakes.arxiv_server import (
    FakeArxiv,
    FakeRecord,
    Fault,
    listing_type,
    load_jsonl,
    render_rss,
    select_api,
)

DAY = dt.date(2025, 5, 30)
DATA_DIR = Path("/work/shared/data/arxiv")


def record(
    paper_id: str,
    categories: tuple[str, ...] = ("cs.LG",),
    *,
    day: dt.date = DAY,
    version: int = 1,
    replacement: bool = False,
    title: str | None = None,
    authors: tuple[str, ...] = ("Ann Lee", "Bo Li"),
    comment: str = "",
    published: dt.datetime | None = None,
) -> FakeRecord:
    return FakeRecord(
        id=paper_id,
        title=title or f"Paper {paper_id}",
        authors=authors,
        abstract=f"Abstract of {paper_id}. It has two sentences.",
        categories=categories,
        announced=day,
        comment=comment,
        version=version,
        replacement=replacement,
        published=published,
    )


@pytest.fixture
def day_records() -> list[FakeRecord]:
    return [
        record(
            "2505.00001",
            ("cs.LG", "stat.ML"),
            version=2,
            title="Bounds when $a<b$ & <i>c</i>\n  hold",
            authors=("Ann Lee", "Bo Li (MIT, CMU)", "Cy Wu"),
        ),
        record("2505.00002", ("stat.ML", "cs.AI")),  # cross-listed into cs.AI
        record("2505.00003", ("cs.AI",)),
        record("2401.00004", ("cs.LG",), version=3, replacement=True),
        record("2402.00005", ("math.OC", "cs.LG"), version=2, replacement=True),
        record("2505.00006", ("math.CO",)),  # not in the asked categories
        record("2505.00007", ("cs.LG",), day=DAY - dt.timedelta(days=1)),  # yesterday's
    ]


# --- RSS ---


async def test_rss_day_new_and_cross_without_replacements(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings, day_records: list[FakeRecord]
) -> None:
    fake_arxiv.add(*day_records)
    day = await fetch_rss(arxiv_settings, ["cs.LG", "cs.AI"])

    assert day.announced == DAY
    by_id = {p.id: p for p in day.papers}
    assert sorted(by_id) == ["2505.00001", "2505.00002", "2505.00003"]
    assert {i: p.announce_type for i, p in by_id.items()} == {
        "2505.00001": "new",
        "2505.00002": "cross",
        "2505.00003": "new",
    }
    first = by_id["2505.00001"]
    assert first.version == 2  # version kept, id version-less
    assert first.title == "Bounds when $a<b$ & <i>c</i> hold"  # plain text, not HTML-sanitised
    assert first.authors == ("Ann Lee", "Bo Li", "Cy Wu")
    assert first.categories == ("cs.LG", "stat.ML")
    assert first.abstract == "Abstract of 2505.00001. It has two sentences."
    assert all(p.announced == DAY for p in day.papers)

    [request] = fake_arxiv.requests
    assert request.path == "/rss/cs.LG+cs.AI"
    assert request.user_agent.startswith("paperscout/")


async def test_rss_replacements_on_request(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings, day_records: list[FakeRecord]
) -> None:
    fake_arxiv.add(*day_records)
    day = await fetch_rss(arxiv_settings, ["cs.LG"], include_replacements=True)
    types = {p.id: (p.announce_type, p.version) for p in day.papers}
    assert types["2401.00004"] == ("replace", 3)
    assert types["2402.00005"] == ("replace-cross", 2)
    assert types["2505.00001"] == ("new", 2)


async def test_rss_uses_settings_categories_and_given_client(
    fake_arxiv: FakeArxiv, tmp_path: Path, day_records: list[FakeRecord]
) -> None:
    fake_arxiv.add(*day_records)
    settings = Settings(home=tmp_path, categories=["cs.AI"], **fake_arxiv.settings_overrides())
    async with httpx.AsyncClient() as client:
        day = await fetch_rss(settings, [], client=client)
    assert sorted(p.id for p in day.papers) == ["2505.00002", "2505.00003"]
    assert fake_arxiv.requests[0].path == "/rss/cs.AI"


async def test_rss_empty_day_is_not_an_error(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(record("2505.00001"))
    fake_arxiv.rss_day = dt.date(2025, 5, 31)  # a Saturday: arXiv sends a channel without items
    day = await fetch_rss(arxiv_settings, ["cs.LG"])
    assert day.announced == dt.date(2025, 5, 31)
    assert day.papers == []


def test_parse_real_day_from_bundled_data() -> None:
    records = load_jsonl(DATA_DIR / "2025-05-30.jsonl")
    content = render_rss(["cs.LG", "cs.AI"], DAY, records)
    day = parse_rss(content)
    assert day.announced == DAY
    assert len(day.papers) == len(records)
    by_id = {p.id: p for p in day.papers}
    for rec in records:
        paper = by_id[rec.id]
        assert paper.title == " ".join(rec.title.split())
        assert paper.abstract == " ".join(rec.abstract.split())
        assert paper.categories == rec.categories
        assert paper.announce_type == ("new" if rec.categories[0] in ("cs.LG", "cs.AI") else "cross")


async def test_retry_after_honoured_then_success(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(record("2505.00001"))
    fake_arxiv.enqueue(Fault.unavailable(retry_after=0.4).on("rss"), Fault.rate_limit(retry_after=0.3).on("rss"))
    day = await fetch_rss(arxiv_settings, ["cs.LG"])
    assert [p.id for p in day.papers] == ["2505.00001"]
    statuses = [r.status for r in fake_arxiv.requests]
    assert statuses == [503, 429, 200]
    first, second, third = fake_arxiv.request_times("rss")
    assert second - first >= 0.38
    assert third - second >= 0.28


async def test_persistent_503_gives_up(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.always(Fault.unavailable(retry_after=0))
    with pytest.raises(SourceUnavailable) as caught:
        await fetch_rss(arxiv_settings, ["cs.LG"])
    message = str(caught.value)
    assert "503" in message and "127.0.0.1" in message and "\n" not in message
    assert len(fake_arxiv.requests) == rss.MAX_ATTEMPTS


async def test_retry_after_too_long_gives_up_at_once(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.enqueue(Fault.rate_limit(retry_after=3600))
    with pytest.raises(SourceUnavailable, match="429"):
        await fetch_rss(arxiv_settings, ["cs.LG"])
    assert len(fake_arxiv.requests) == 1


@pytest.mark.parametrize("fault", [Fault.malformed(), Fault.truncated()], ids=["malformed", "truncated"])
async def test_bad_xml_is_a_feed_error(fake_arxiv: FakeArxiv, arxiv_settings: Settings, fault: Fault) -> None:
    fake_arxiv.add(*(record(f"2505.{n:05d}") for n in range(1, 30)))
    fake_arxiv.enqueue(fault)
    with pytest.raises(FeedError) as caught:
        await fetch_rss(arxiv_settings, ["cs.LG"])
    assert "not well-formed" in str(caught.value) and "\n" not in str(caught.value)


def test_truncated_feed_never_gives_a_partial_result() -> None:
    content = render_rss(["cs.LG"], DAY, [record(f"2505.{n:05d}") for n in range(1, 30)])
    cut = content[: len(content) * 3 // 4]
    assert feedparser.parse(cut).entries  # feedparser alone would hand back the items it got
    with pytest.raises(FeedError):
        parse_rss(cut)


async def test_connection_cut_mid_body(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(*(record(f"2505.{n:05d}") for n in range(1, 30)))
    fake_arxiv.enqueue(Fault.disconnect())
    with pytest.raises(SourceUnavailable, match=r"127\.0\.0\.1"):
        await fetch_rss(arxiv_settings, ["cs.LG"])


async def test_unreachable_host(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.stop()
    with pytest.raises(SourceUnavailable, match=r"cannot connect to arXiv RSS at 127\.0\.0\.1"):
        await fetch_rss(arxiv_settings, ["cs.LG"])
    with pytest.raises(SourceUnavailable, match=r"cannot connect to arXiv API at 127\.0\.0\.1"):
        await fetch_by_ids(arxiv_settings, ["2505.00001"])


async def test_timeout(fake_arxiv: FakeArxiv, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, **fake_arxiv.settings_overrides(timeout_seconds=0.3))
    fake_arxiv.enqueue(Fault.delay(2).on("rss"))
    with pytest.raises(SourceUnavailable, match=r"did not answer within 0\.3 s"):
        await fetch_rss(settings, ["cs.LG"])


async def test_a_trickling_rss_server_ends_at_the_timeout_not_per_read(fake_arxiv: FakeArxiv, tmp_path: Path) -> None:
    """One byte every 0.2 s never trips a 1 s read timeout; the whole answer still has to come within 1 s."""
    fake_arxiv.add(record("2505.00001"))
    settings = Settings(home=tmp_path, **fake_arxiv.settings_overrides(timeout_seconds=1))
    fake_arxiv.enqueue(Fault.trickle(0.2).on("rss"))
    with pytest.raises(SourceUnavailable, match=r"did not answer within 1 s"):
        await fetch_rss(settings, ["cs.LG"])


async def test_a_trickling_api_server_ends_at_the_timeout_not_per_read(fake_arxiv: FakeArxiv, tmp_path: Path) -> None:
    fake_arxiv.add(record("2505.00001"))
    settings = Settings(home=tmp_path, **fake_arxiv.settings_overrides(timeout_seconds=1))
    fake_arxiv.enqueue(Fault.trickle(0.2).on("api"))
    with pytest.raises(SourceUnavailable, match=r"did not answer within 1 s"):
        await fetch_by_ids(settings, ["2505.00001"])
    assert [r.endpoint for r in fake_arxiv.requests] == ["api"]  # a deadline is not retried


async def test_a_cancelled_api_lookup_ends_its_request_and_thread(fake_arxiv: FakeArxiv, tmp_path: Path) -> None:
    """The caller (a `run` told to stop) is cancelled: the request in flight is cut, its thread ends at once."""
    fake_arxiv.add(record("2505.00001"))
    settings = Settings(home=tmp_path, **fake_arxiv.settings_overrides(timeout_seconds=600))
    fake_arxiv.enqueue(Fault.trickle(0.2).on("api"))
    task = asyncio.create_task(fetch_by_ids(settings, ["2505.00001"]))
    await asyncio.to_thread(_until, lambda: fake_arxiv.requests)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # bounded by the test's time limit: without the cut the thread reads on for the 600 s
    await asyncio.to_thread(_until, lambda: not any(t.name == "_collect" for t in threading.enumerate()))


def _until(condition: Callable[[], object]) -> None:
    while not condition():
        time.sleep(0.02)


async def test_a_login_page_instead_of_the_api_answer_is_an_error_not_zero_papers(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings
) -> None:
    portal = (
        b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Wi-Fi login</title></head>'
        b'<body><form action="/login"><input name="user"/></form></body></html>'
    )
    fake_arxiv.enqueue(Fault.saved(portal).on("api"))
    with pytest.raises(FeedError, match=r"not an Atom feed but <html> \(a login page"):
        await fetch_by_ids(arxiv_settings, ["2505.00001"])


async def test_http_404_is_a_feed_error(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.enqueue(Fault.status_code(404))
    with pytest.raises(FeedError, match="HTTP 404"):
        await fetch_rss(arxiv_settings, ["cs.LG"])
    assert len(fake_arxiv.requests) == 1


async def test_bad_category_is_refused_before_any_request(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    with pytest.raises(ConfigError, match="not an arXiv category"):
        await fetch_rss(arxiv_settings, ["cs.LG/../x"])
    assert fake_arxiv.requests == []


_CHANNEL = """<?xml version='1.0' encoding='UTF-8'?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">
  <channel>
    <title>cs.LG updates on arXiv.org</title>
    <link>http://rss.arxiv.org/rss/cs.LG</link>
    <description>cs.LG updates on the arXiv.org e-print archive.</description>
    {pubdate}
    {items}
  </channel>
</rss>
"""
_ITEM = """<item>
      {title}
      <link>https://arxiv.org/abs/2505.11111</link>
      <description>arXiv:2505.11111v1 Announce Type: {kind} \nAbstract: Text.</description>
      <guid isPermaLink="false">oai:arXiv.org:2505.11111v1</guid>
      <category>cs.LG</category>
      <arxiv:announce_type>{kind}</arxiv:announce_type>
      <dc:creator>Ann Lee</dc:creator>
    </item>"""
_PUBDATE = "<pubDate>Fri, 30 May 2025 00:00:00 -0400</pubDate>"


def _feed(*, pubdate: str = _PUBDATE, title: str = "<title>T</title>", kinds: tuple[str, ...] = ("new",)) -> bytes:
    items = "\n".join(_ITEM.format(title=title, kind=k) for k in kinds)
    return _CHANNEL.format(pubdate=pubdate, items=items).encode()


def test_parse_rss_required_fields() -> None:
    assert [p.id for p in parse_rss(_feed()).papers] == ["2505.11111"]
    with pytest.raises(FeedError, match="no title"):
        parse_rss(_feed(title=""))
    with pytest.raises(FeedError, match="no pubDate"):
        parse_rss(_feed(pubdate="", kinds=()))
    with pytest.raises(FeedError, match="not an RSS feed"):
        parse_rss(b"<html><body>Service temporarily down</body></html>")
    with pytest.raises(FeedError, match="empty"):
        parse_rss(b"  ")


def test_parse_rss_keeps_one_listing_per_paper() -> None:
    [paper] = parse_rss(_feed(kinds=("cross", "new"))).papers
    assert paper.announce_type == "new"


# --- API ---


async def test_fetch_by_ids(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(
        record("2505.00001", ("cs.LG", "stat.ML"), version=2, comment="12 pages, 3 figures"),
        record("2505.00002", ("stat.ML", "cs.AI")),
        record("hep-th/9901001", ("hep-th",)),
    )
    papers = await fetch_by_ids(
        arxiv_settings, ["arXiv:2505.00001", "https://arxiv.org/abs/2505.00002v1", "hep-th/9901001", "2505.09999"]
    )
    assert [p.id for p in papers] == ["2505.00001", "2505.00002", "hep-th/9901001"]
    first = papers[0]
    assert first.version == 2
    assert first.categories == ("cs.LG", "stat.ML")
    assert first.comment == "12 pages, 3 figures"
    assert first.authors == ("Ann Lee", "Bo Li")
    assert first.abstract == "Abstract of 2505.00001. It has two sentences."
    assert first.announced == DAY  # the published date when no day is given
    assert papers[1].version == 1

    [request] = fake_arxiv.requests
    assert request.query["id_list"] == "2505.00001,2505.00002v1,hep-th/9901001,2505.09999"

    [again] = await fetch_by_ids(arxiv_settings, ["2505.00002"], announced=dt.date(2025, 6, 2))
    assert again.announced == dt.date(2025, 6, 2)


async def test_fetch_by_ids_rejects_non_ids(arxiv_settings: Settings) -> None:
    with pytest.raises(InputError, match="not an arXiv id"):
        await fetch_by_ids(arxiv_settings, ["2505.00001", "hello"])
    assert await fetch_by_ids(arxiv_settings, []) == []


def utc(month: int, day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2025, month, day, hour, minute, tzinfo=dt.UTC)


# Submission times as arXiv reports them around the 14:00 US Eastern (18:00 UTC in May) cut-off, each with the day
# the RSS feed lists the paper on. The first twenty reproduce the real sample (29 April, 16:00-18:00 UTC).
WEEK = [
    *(
        record(
            f"2504.2{n:04d}",
            ("cs.LG",),
            day=dt.date(2025, 4, 30),
            published=utc(4, 29, 16) + dt.timedelta(minutes=6 * n),
        )
        for n in range(20)
    ),
    record("2504.21000", ("stat.ML", "cs.AI"), day=dt.date(2025, 4, 30), published=utc(4, 28, 18, 30)),  # Mon late
    record("2504.21001", ("cs.AI",), day=dt.date(2025, 5, 1), published=utc(4, 29, 18, 0)),  # 14:00 EDT sharp
    record("2505.00010", ("cs.LG",), day=dt.date(2025, 5, 5), published=utc(5, 2, 17, 59)),  # Friday before
    record("2505.00011", ("cs.LG",), day=dt.date(2025, 5, 6), published=utc(5, 2, 18, 1)),  # Friday after
    record("2505.00012", ("cs.AI",), day=dt.date(2025, 5, 6), published=utc(5, 3, 11)),  # Saturday
    record("2505.00013", ("cs.LG",), day=dt.date(2025, 5, 6), published=utc(5, 5, 3)),  # Sunday night Eastern
]
OUTSIDE = [
    record("2504.19999", ("cs.LG",), day=dt.date(2025, 4, 29), published=utc(4, 28, 17, 59)),  # the day before
    record("2505.00014", ("cs.LG",), day=dt.date(2025, 5, 7), published=utc(5, 6, 18, 0)),  # the day after
    record("2505.00015", ("math.CO",), day=dt.date(2025, 5, 5), published=utc(5, 1, 12)),  # another category
    # An old paper cross-listed into cs.LG on 5 May: the RSS feed lists it that day, a submittedDate query cannot.
    record("2301.00001", ("math.OC", "cs.LG"), day=dt.date(2025, 5, 5), published=utc(1, 2, 9).replace(year=2023)),
]


async def test_backfill_files_each_paper_under_the_day_the_rss_feed_lists_it(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings
) -> None:
    fake_arxiv.add(*OUTSIDE, *reversed(WEEK))
    backfill = await fetch_range(arxiv_settings, ["cs.LG", "cs.AI"], dt.date(2025, 4, 30), dt.date(2025, 5, 6), 100)
    assert backfill.incomplete is None
    assert backfill.days == [
        dt.date(2025, 4, 30),
        dt.date(2025, 5, 1),
        dt.date(2025, 5, 2),
        dt.date(2025, 5, 5),
        dt.date(2025, 5, 6),
    ]
    assert {p.id: p.announced for p in backfill.papers} == {r.id: r.announced for r in WEEK}
    # The RSS feed of each day lists the same papers under the same day.
    for day in backfill.days:
        fake_arxiv.rss_day = day
        listed = await fetch_rss(arxiv_settings, ["cs.LG", "cs.AI"])
        from_rss = {p.id for p in listed.papers}
        old_cross = {"2301.00001"} if day == dt.date(2025, 5, 5) else set()  # only the feed can have it
        assert from_rss == {p.id for p in backfill.papers if p.announced == day} | old_cross
    [api] = [r for r in fake_arxiv.requests if r.endpoint == "api"]
    # From Monday 28 April 14:00 EDT to Monday 5 May 13:59 EDT (the cut-off for Tuesday), in UTC.
    assert api.query["search_query"] == "(cat:cs.LG OR cat:cs.AI) AND submittedDate:[202504281800 TO 202505051759]"
    assert api.query["sortBy"] == "submittedDate" and api.query["sortOrder"] == "ascending"


async def test_backfill_pages_and_caps(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(*WEEK)
    backfill = await fetch_range(
        arxiv_settings, ["cs.LG", "cs.AI"], dt.date(2025, 4, 30), dt.date(2025, 5, 6), 100, page_size=10
    )
    assert [p.id for p in backfill.papers] == [r.id for r in sorted(WEEK, key=lambda r: r.submitted)]
    assert [r.query["start"] for r in fake_arxiv.requests] == ["0", "10", "20"]
    fake_arxiv.reset()
    capped = await fetch_range(arxiv_settings, ["cs.LG"], dt.date(2025, 4, 30), dt.date(2025, 5, 6), 15, page_size=10)
    assert len(capped.papers) == 15 and len(fake_arxiv.requests) == 2


async def test_backfill_of_days_without_announcements_asks_nothing(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings
) -> None:
    backfill = await fetch_range(arxiv_settings, ["cs.LG"], dt.date(2025, 5, 3), dt.date(2025, 5, 4), 100)
    assert backfill.papers == [] and backfill.days == [] and fake_arxiv.requests == []


async def test_backfill_keeps_the_pages_before_an_empty_page(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(*WEEK)
    # Page one arrives; every later answer is arXiv's empty-page flake, which the package retries, then gives up.
    fake_arxiv.enqueue(Fault.delay(0).on("api"), *[Fault.empty_page().on("api")] * (arxiv_api.API_RETRIES + 1))
    backfill = await fetch_range(
        arxiv_settings, ["cs.LG", "cs.AI"], dt.date(2025, 4, 30), dt.date(2025, 5, 6), 100, page_size=10
    )
    assert len(backfill.papers) == 10
    assert backfill.incomplete and "empty pages" in backfill.incomplete
    assert "INCOMPLETE" in backfill.line() and "10 papers" in backfill.line()
    assert len(fake_arxiv.requests) == 1 + arxiv_api.API_RETRIES + 1


async def test_backfill_retries_an_empty_first_page(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(*WEEK)
    fake_arxiv.enqueue(Fault.empty_page().on("api"))
    backfill = await fetch_range(arxiv_settings, ["cs.LG", "cs.AI"], dt.date(2025, 4, 30), dt.date(2025, 5, 6), 100)
    assert len(backfill.papers) == len(WEEK) and backfill.incomplete is None


async def test_backfill_failing_before_any_paper_raises(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(*WEEK)
    fake_arxiv.always(Fault.empty_page().on("api"))
    with pytest.raises(SourceUnavailable, match="empty pages"):
        await fetch_range(arxiv_settings, ["cs.LG"], dt.date(2025, 4, 30), dt.date(2025, 5, 6), 100)


async def test_our_user_agent_reaches_the_api(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(record("2505.00001"))
    await fetch_by_ids(arxiv_settings, ["2505.00001"])
    await fetch_range(arxiv_settings, ["cs.LG"], DAY, DAY, 10)
    assert [r.user_agent for r in fake_arxiv.requests] == [rss.USER_AGENT, rss.USER_AGENT]


async def test_api_backs_off_without_retry_after(fake_arxiv: FakeArxiv, tmp_path: Path) -> None:
    fake_arxiv.add(record("2505.00001"))
    settings = Settings(home=tmp_path, **fake_arxiv.settings_overrides(delay_seconds=0.2))
    fake_arxiv.enqueue(Fault.unavailable(retry_after=None).on("api"), Fault.rate_limit(retry_after=None).on("api"))
    [paper] = await fetch_by_ids(settings, ["2505.00001"])
    assert paper.id == "2505.00001"
    times = fake_arxiv.request_times("api")
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # The throttle alone would space them 0.2 s; the back-off doubles: 0.2 s, then 0.4 s.
    assert len(times) == 3 and gaps[1] >= 0.38, gaps


async def test_unknown_category_gets_arxivs_reason(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    with pytest.raises(FeedError, match=r"HTTP 400: unknown category cs\.XY"):
        await fetch_range(arxiv_settings, ["cs.XY"], DAY, DAY, 10)
    assert len(fake_arxiv.requests) == 1


async def test_fetch_range_rejects_reversed_dates(arxiv_settings: Settings) -> None:
    with pytest.raises(InputError, match="before it starts"):
        await fetch_range(arxiv_settings, ["cs.LG"], dt.date(2025, 5, 27), dt.date(2025, 5, 26), 10)


async def test_api_retry_after_honoured(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(record("2505.00001"))
    fake_arxiv.enqueue(Fault.unavailable(retry_after=0.4).on("api"))
    [paper] = await fetch_by_ids(arxiv_settings, ["2505.00001"])
    assert paper.id == "2505.00001"
    first, second = fake_arxiv.request_times("api")
    assert second - first >= 0.38


async def test_api_persistent_503(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.always(Fault.unavailable(retry_after=0).on("api"))
    with pytest.raises(SourceUnavailable, match=r"arXiv API at 127\.0\.0\.1 answered HTTP 503"):
        await fetch_by_ids(arxiv_settings, ["2505.00001"])
    assert len(fake_arxiv.requests) == arxiv_api.API_RETRIES + 1


@pytest.mark.parametrize("fault", [Fault.malformed(), Fault.truncated()], ids=["malformed", "truncated"])
async def test_api_bad_xml_is_a_feed_error(fake_arxiv: FakeArxiv, arxiv_settings: Settings, fault: Fault) -> None:
    fake_arxiv.add(*(record(f"2505.{n:05d}") for n in range(1, 12)))
    fake_arxiv.enqueue(fault)
    with pytest.raises(FeedError, match="malformed XML"):
        await fetch_range(arxiv_settings, ["cs.LG"], DAY, DAY, 50)


async def test_api_rejection_is_not_retried(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.enqueue(Fault.status_code(400))
    with pytest.raises(FeedError, match="HTTP 400"):
        await fetch_by_ids(arxiv_settings, ["2505.00001"])
    assert len(fake_arxiv.requests) == 1


async def test_api_connection_cut(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    fake_arxiv.add(*(record(f"2505.{n:05d}") for n in range(1, 12)))
    fake_arxiv.always(Fault.disconnect().on("api"))
    with pytest.raises(SourceUnavailable, match=r"127\.0\.0\.1"):
        await fetch_by_ids(arxiv_settings, ["2505.00001"])


# --- throttle ---


async def test_requests_are_spaced_by_the_shared_throttle(
    fake_arxiv: FakeArxiv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_arxiv.add(*(record(f"2505.{n:05d}") for n in range(1, 8)))
    settings = Settings(home=tmp_path, **fake_arxiv.settings_overrides(delay_seconds=0.4))
    throttle = shared_throttle(0.4)
    slots: list[float] = []  # the clock time each caller was given
    read = threading.local()  # the clock as the throttle read it inside this thread's reservation
    reserve = throttle._reserve

    def clock() -> float:
        read.now = time.monotonic()
        return read.now

    def recording_reserve() -> float:
        delay = reserve()
        slots.append(read.now + delay)
        return delay

    monkeypatch.setattr(throttle, "_clock", clock)
    monkeypatch.setattr(throttle, "_reserve", recording_reserve)
    async with httpx.AsyncClient() as client:
        await asyncio.gather(
            fetch_rss(settings, ["cs.LG"], client=client),
            fetch_rss(settings, ["cs.AI"], client=client),
            fetch_by_ids(settings, ["2505.00001"]),
            fetch_range(settings, ["cs.LG"], DAY, DAY, 7, page_size=3),  # three pages
        )
    times = sorted(fake_arxiv.request_times())
    assert len(times) == len(slots) == 6, "every request, RSS and API, loop and worker thread, took a slot"
    assert all(b - a >= 0.4 - 1e-6 for a, b in itertools.pairwise(sorted(slots)))
    # no request reached arXiv before its slot: the k-th arrival is never earlier than the k-th slot (a busy
    # machine only delays requests, so this holds under any load, unlike measured gaps between arrivals)
    assert all(arrived >= slot - 0.01 for arrived, slot in zip(times, sorted(slots), strict=True)), (times, slots)


async def test_throttle_reserves_slots_in_order() -> None:
    now = [100.0]
    throttle = Throttle(2.0, clock=lambda: now[0])
    assert [throttle._reserve() for _ in range(3)] == [0.0, 2.0, 4.0]
    now[0] = 110.0
    assert throttle._reserve() == 0.0
    throttle.back_off(5.0)
    assert throttle._reserve() == 5.0


def test_retry_after_values() -> None:
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds("0.5") == 0.5
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("nan") is None
    assert retry_after_seconds("-5") is None  # delta-seconds are never negative: not a wait
    assert retry_after_seconds("0") == 0.0
    now = dt.datetime(2025, 5, 30, 12, 0, 0, tzinfo=dt.UTC)
    assert retry_after_seconds("Fri, 30 May 2025 12:00:30 GMT", now=now) == 30.0


# --- the fake itself ---


def test_fake_api_query_language() -> None:
    records = [
        record("2505.00001", ("cs.LG",), title="Sparse attention"),
        record("2505.00002", ("cs.AI", "cs.LG"), title="Dense retrieval"),
        record("2505.00003", ("math.CO",), title="Sparse graphs"),
    ]

    def ids(query: str) -> list[str]:
        page, total, _, _ = select_api(records, {"search_query": query, "max_results": "50", "sortBy": "submittedDate"})
        assert total == len(page)
        return sorted(r.id for r, _ in page)

    assert ids("cat:cs.LG") == ["2505.00001", "2505.00002"]
    assert ids("cat:cs.LG ANDNOT cat:cs.AI") == ["2505.00001"]
    assert ids("ti:sparse AND (cat:math.CO OR cat:cs.AI)") == ["2505.00003"]
    assert ids('ti:"dense retrieval"') == ["2505.00002"]
    assert ids("cat:cs.* AND submittedDate:[20250529 TO 20250529]") == ["2505.00001", "2505.00002"]


def test_fake_rss_listing_types() -> None:
    paper = record("2505.00001", ("stat.ML", "cs.LG"))
    assert listing_type(paper, ["stat.ML"]) == "new"
    assert listing_type(paper, ["cs.LG", "cs.AI"]) == "cross"
    assert listing_type(paper, ["cs"]) == "cross"  # an archive stands for all its categories
    assert listing_type(paper, ["math.CO"]) is None
    assert listing_type(record("2401.00002", ("cs.LG",), replacement=True), ["cs.LG"]) == "replace"


async def test_affiliations_in_rss_creators_never_change_the_authors(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings
) -> None:
    authors = ("Ann Lee", "Bo Li", "Cy Wu", "Di Xu")
    nested = dataclasses.replace(
        record("2505.00001", authors=authors), affiliations=("MIT (CSAIL), CMU", "", "Univ. of X (Y)", "")
    )
    # An unclosed bracket, as submitters sometimes type it: it must not swallow the authors after it.
    unclosed = dataclasses.replace(record("2505.00002", authors=authors), affiliations=("MIT, CMU (Pittsburgh",))
    fake_arxiv.add(nested, unclosed)
    day = await fetch_rss(arxiv_settings, ["cs.LG"])
    by_id = {p.id: p.authors for p in day.papers}
    assert by_id["2505.00001"] == authors
    assert by_id["2505.00002"][0] == "Ann Lee" and by_id["2505.00002"][-3:] == ("Bo Li", "Cy Wu", "Di Xu")
    # The API names them the same way.
    api = {p.id: p.authors for p in await fetch_by_ids(arxiv_settings, ["2505.00001", "2505.00002"])}
    assert api["2505.00001"] == authors == api["2505.00002"]


async def test_a_nickname_in_brackets_inside_a_name_keeps_the_surname_after_it(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings
) -> None:
    """arXiv writes "Pu (Perry) Wang" and "Tse-Hsun (Peter) Chen": the bracket was read as an affiliation ending the
    name, which left "Pu" and "Tse-Hsun"."""
    fake_arxiv.add(record("2505.00003", authors=("Ann Lee", "Pu (Perry) Wang", "Tse-Hsun (Peter) Chen")))
    day = await fetch_rss(arxiv_settings, ["cs.LG"])
    assert {p.id: p.authors for p in day.papers}["2505.00003"] == ("Ann Lee", "Pu Wang", "Tse-Hsun Chen")
    (api,) = await fetch_by_ids(arxiv_settings, ["2505.00003"])
    assert api.authors == ("Ann Lee", "Pu Wang", "Tse-Hsun Chen")


async def test_replacements_and_old_cross_lists_stay_out_of_a_backfill(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings, day_records: list[FakeRecord]
) -> None:
    fake_arxiv.add(*day_records)
    backfill = await fetch_range(arxiv_settings, ["cs.LG", "cs.AI"], DAY, DAY, 100)
    # The RSS day lists replacements (2401.00004, 2402.00005), first submitted long before; a backfill of the
    # day's submissions gets only the new papers, each under the day the feed lists it.
    assert sorted(p.id for p in backfill.papers) == ["2505.00001", "2505.00002", "2505.00003"]
    assert {p.announced for p in backfill.papers} == {DAY}
    listed = await fetch_rss(arxiv_settings, ["cs.LG", "cs.AI"], include_replacements=True)
    kinds = {p.id: p.announce_type for p in listed.papers}
    assert kinds["2401.00004"] == "replace" and kinds["2402.00005"] == "replace-cross"
    [replaced] = fake_arxiv.records[3:4]
    assert replaced.submitted < replaced.updated and arxiv_api.announcement_day(replaced.updated) == DAY


# --- real saved responses (tests/fixtures/arxiv/README.md says where each comes from) ---

FIXTURES = Path(__file__).parent / "fixtures" / "arxiv"


async def test_real_api_page_parses_and_is_filed_under_its_announcement_day(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings
) -> None:
    fake_arxiv.enqueue(Fault.saved((FIXTURES / "api_id_list_1111.2011v2.xml").read_bytes()).on("api"))
    [paper] = await fetch_by_ids(arxiv_settings, ["1111.2011v2"])
    assert (paper.id, paper.version) == ("1111.2011", 2)
    assert paper.authors == ("James M. Murray", "Adrian Del Maestro", "Zlatko Tesanovic")
    assert paper.categories == ("cond-mat.str-el", "cond-mat.stat-mech")
    assert paper.title == "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    assert paper.comment == "8 pages, 3 figures. Published version"
    # Submitted Tuesday 8 November 2011 18:48 UTC = 13:48 EST, before the cut-off: Wednesday's listing.
    assert paper.announced == dt.date(2011, 11, 9)


async def test_real_api_error_feed_reason_is_kept(fake_arxiv: FakeArxiv, arxiv_settings: Settings) -> None:
    body = (FIXTURES / "api_error_400_incorrect_id.xml").read_bytes()
    fake_arxiv.enqueue(Fault.saved(body, status=400).on("api"))
    with pytest.raises(FeedError, match="rejected the query with HTTP 400: incorrect id format for abc"):
        await fetch_by_ids(arxiv_settings, ["2505.00001"])
    assert len(fake_arxiv.requests) == 1


# Ids and v1 submission times of the first entries of a real API page (cs.LG OR cs.AI, newest first, fetched
# 2026-04-30 17:33 UTC), as saved in CrSamson/brevio-ai tests/fixtures/arxiv_cs_lg.xml: all submitted on
# Wednesday 29 April 2026 before 14:00 EDT, all in Thursday 30 April's listing.
REAL_APRIL_29 = {
    "2604.26951": "2026-04-29T17:59:01Z",
    "2604.26942": "2026-04-29T17:52:05Z",
    "2604.26932": "2026-04-29T17:45:52Z",
    "2604.26926": "2026-04-29T17:40:25Z",
    "2604.26922": "2026-04-29T17:38:25Z",
    "2604.26919": "2026-04-29T17:34:33Z",
    "2604.26904": "2026-04-29T17:12:22Z",
}


async def test_real_submission_times_of_a_day_land_on_the_next_days_listing(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings
) -> None:
    listed_on = dt.date(2026, 4, 30)
    fake_arxiv.add(
        *(
            record(i, ("cs.LG",), day=listed_on, published=dt.datetime.fromisoformat(t))
            for i, t in REAL_APRIL_29.items()
        )
    )
    backfill = await fetch_range(arxiv_settings, ["cs.LG"], listed_on, listed_on, 100)
    assert sorted(p.id for p in backfill.papers) == sorted(REAL_APRIL_29)
    assert {p.announced for p in backfill.papers} == {listed_on}
    # The submission day itself has none of them.
    fake_arxiv.reset()
    assert (await fetch_range(arxiv_settings, ["cs.LG"], dt.date(2026, 4, 29), dt.date(2026, 4, 29), 100)).papers == []


def test_cli_backfill_names_announcement_days_and_its_count(
    fake_arxiv: FakeArxiv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    for name, value in {
        "PAPERSCOUT_HOME": str(tmp_path / "home"),
        "PAPERSCOUT_ARXIV_RSS_URL": fake_arxiv.rss_url,
        "PAPERSCOUT_ARXIV_API_URL": fake_arxiv.api_url,
        "PAPERSCOUT_ARXIV_DELAY_SECONDS": "0",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)
    fake_arxiv.add(*WEEK[20:])
    assert main(["ingest", "--since", "2025-04-30", "--until", "2025-05-06", "--categories", "cs.LG", "cs.AI"]) == 0
    out = capsys.readouterr().out
    assert f"arXiv API backfill 2025-04-30..2025-05-06: {len(WEEK[20:])} papers" in out and "INCOMPLETE" not in out
