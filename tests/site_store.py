"""A small store with posted digests for the web archive's tests (bot/site): three days over two months, two
channels (one whose digests were frozen in the ledger, one a plain poster's), a member's personal digest that must
stay private, and a paper whose title and authors are hostile."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from bot.core import Core
from bot.digests.delivery import digest_to_json
from bot.ingest.limits import clean_paper
from bot.models import Digest, Paper, Profile, ScoredPaper, Target, Topic

DAYS = (dt.date(2025, 5, 29), dt.date(2025, 5, 30), dt.date(2025, 6, 2))
HOSTILE_TITLE = '<script>window.__pwned = 1</script> @everyone \u202eevil\u202c <img src=x onerror=alert(1)> & "quoted"'
HOSTILE_SHOWN = '<script>window.__pwned = 1</script> @everyone evil <img src=x onerror=alert(1)> & "quoted"'
HOSTILE_AUTHOR = 'Eve "<b>bold</b>" Mallory'
PRIVATE_TITLE = "A paper only one member was sent"
TOPICS = ("Model compression and efficiency", "Learning theory")


@dataclass(frozen=True)
class SiteStore:
    """What `fill_site_store` put in: the channel archive's papers per day and a known title to search for."""

    papers: dict[dt.date, list[Paper]]
    hostile: Paper
    known_title: str
    channel_name: str
    plain_name: str


def _scored(paper: Paper, n: int) -> ScoredPaper:
    topic = TOPICS[n % 2]
    return ScoredPaper(
        paper=paper,
        score=1.0 - n / 100,
        relevance=8.0,
        novelty=7.0,
        reasons=(f"closest to topic '{topic}' (similarity 0.{60 - n})", "keywords: MoE"),
        author_hits=("Yann LeCun",) if n == 1 else (),
        judged=True,
        tldr=f"TL;DR of {paper.title[:40]}",
    )


async def _post(core: Core, target_id: int, day: dt.date, digest: Digest | None, ids: list[str]) -> None:
    """What bot.digests.delivery does for one post: claim, freeze the digest (a message poster), mark sent."""
    assert await core.repo.claim_post(target_id, day)
    if digest is not None:
        await core.repo.freeze_digest(target_id, day, digest_to_json(digest))
    await core.repo.mark_sent(target_id, day, ids, detail="m1")


async def fill_site_store(core: Core, demo_papers: list[Paper]) -> SiteStore:
    """Fill `core`'s store (no vectors needed: every page comes from the ledger)."""
    base = [clean_paper(p) for p in demo_papers[:30]]
    papers = {day: [replace(p, announced=day) for p in base[i * 10 : i * 10 + 10]] for i, day in enumerate(DAYS)}
    hostile = replace(
        papers[DAYS[1]][0],
        id="2505.99999",
        title=HOSTILE_TITLE,
        authors=(HOSTILE_AUTHOR, "Bob"),
        abstract="An abstract.",
    )
    papers[DAYS[1]].insert(0, hostile)
    private = replace(papers[DAYS[1]][-1], id="2505.99998", title=PRIVATE_TITLE)
    await core.repo.upsert_papers([p for day in DAYS for p in papers[day]] + [private])

    channel = Profile(name="ML foundations", topics=tuple(Topic(t, t) for t in TOPICS), categories=("cs.LG",))
    plain = Profile(name="Robotics <i>digest</i>", topics=(Topic("Robots", "robot learning"),))
    member = Profile(name="Member's own", topics=(Topic("Private", "private"),))
    await core.repo.save_profile("telegram:-1001", channel)
    await core.repo.save_profile("discord:42", plain)
    await core.repo.save_profile("user:telegram:7", member)
    channel_id = await core.repo.save_target(Target("telegram", "-1001", channel.name), "telegram:-1001")
    plain_id = await core.repo.save_target(Target("discord", "42", plain.name), "discord:42")
    member_id = await core.repo.save_target(Target("telegram", "7", member.name), "user:telegram:7", scheduled=False)

    for day in DAYS:
        items = tuple(_scored(p, n) for n, p in enumerate(papers[day][:6], 1))
        digest = Digest(day, channel.name, len(papers[day]), items)
        await _post(core, channel_id, day, digest, [i.paper.id for i in items])
    await _post(core, plain_id, DAYS[1], None, [p.id for p in papers[DAYS[1]][:3]])
    private_digest = Digest(DAYS[1], member.name, 11, (_scored(private, 1),))
    await _post(core, member_id, DAYS[1], private_digest, [private.id])
    return SiteStore(papers, hostile, papers[DAYS[2]][2].title, channel.name, plain.name)
