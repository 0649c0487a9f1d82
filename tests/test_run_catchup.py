"""Days announced while `paperscout run` was down are caught up from arXiv's API (the fake, over real HTTP), each
paper on the announcement day of its submission; the latest day is left to the RSS feed, an empty archive is not
back-filled."""

from __future__ import annotations

import datetime as dt

from bot.config import Settings
from bot.core import open_core
from bot.ingest.nightly import catch_up_missed_days
from bot.ingest.save import store_papers
from bot.models import Paper
from tests.conftest import MemoEmbedder
from tests.fakes.arxiv_server import FakeArxiv, FakeRecord

EASTERN = dt.timezone(dt.timedelta(hours=-5))  # November: US Eastern is UTC-5


def submitted(paper_id: str, at: dt.datetime, categories: tuple[str, ...] = ("cs.LG",)) -> FakeRecord:
    return FakeRecord(
        id=paper_id,
        title=f"Paper {paper_id}",
        authors=("Ann Lee",),
        abstract="We study graph neural networks on a benchmark.",
        categories=categories,
        announced=at.date(),
        published=at.astimezone(dt.UTC),
    )


async def test_missed_days_come_from_the_api_on_their_announcement_days(
    fake_arxiv: FakeArxiv, arxiv_settings: Settings, embedder: MemoEmbedder
) -> None:
    fake_arxiv.add(
        submitted("2611.00001", dt.datetime(2026, 11, 13, 12, 0, tzinfo=EASTERN)),  # Monday's: stored already
        submitted("2611.00002", dt.datetime(2026, 11, 16, 13, 0, tzinfo=EASTERN)),  # before 14:00: Tuesday
        submitted("2611.00003", dt.datetime(2026, 11, 16, 15, 0, tzinfo=EASTERN)),  # after 14:00: Wednesday
        submitted("2611.00004", dt.datetime(2026, 11, 17, 9, 0, tzinfo=EASTERN)),  # Wednesday
        submitted("2611.00005", dt.datetime(2026, 11, 18, 9, 0, tzinfo=EASTERN)),  # Thursday: the feed's day
        submitted("2611.00006", dt.datetime(2026, 11, 17, 9, 0, tzinfo=EASTERN), ("math.CO",)),  # not followed
    )
    settings = arxiv_settings.model_copy(update={"categories": ["cs.LG"]})
    monday = dt.date(2026, 11, 16)
    async with open_core(settings, embedder) as core:
        now = dt.datetime(2026, 11, 19, 6, 0, tzinfo=dt.UTC)  # Thursday's listing went out last evening
        assert await catch_up_missed_days(core, now) == []  # an empty archive is not back-filled
        await store_papers(core, [Paper("2611.00001", "Monday", ("A",), "graph neural networks", ("cs.LG",), monday)])
        assert await catch_up_missed_days(core, now) == [dt.date(2026, 11, 17), dt.date(2026, 11, 18)]
        assert [p.id for p in await core.repo.papers_on(dt.date(2026, 11, 17))] == ["2611.00002"]
        assert sorted(p.id for p in await core.repo.papers_on(dt.date(2026, 11, 18))) == ["2611.00003", "2611.00004"]
        assert await core.repo.papers_on(dt.date(2026, 11, 19)) == []  # left to the RSS feed
        assert await core.repo.get_papers(["2611.00006"]) == []
        assert await catch_up_missed_days(core, now) == []  # nothing missed any more
