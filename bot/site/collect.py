"""What the web archive shows, read from the store: one archive per channel, one digest view per day.

A channel's archive is what it was sent: each digest as frozen in the posting ledger when it was claimed (the
papers, TL;DRs, ranks and reasons the channel saw). A post by a poster that does not freeze digests left only its
paper ids; those days are rebuilt from the stored papers and TL;DRs and say so.

When nothing was posted yet (after `paperscout demo`, or an ingest before the bot ever ran), the site shows what the
channels would get: every stored day's digest for each channel's profile, or for the bundled example profile when no
channel is set up, built offline (ranker and stored TL;DRs, never the LLM, so a build costs nothing and gives the same
pages every time). Those archives are marked as previews. An explicit `--profile FILE` adds a preview archive for
that profile in any case.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.digests.build import build_digest
from bot.digests.delivery import digest_from_json
from bot.models import Digest, Profile, ScoredPaper, Target
from bot.store.repos.targets import PostedDigest
from bot.text.tldr import shown_tldrs
from bot.views.model import DigestView, digest_view

PLATFORM_NAMES = {"telegram": "Telegram", "discord": "Discord", "console": "the terminal"}
REBUILT_NOTE = "Rebuilt from the posting ledger: this post kept its papers but not their ranks or reasons."
PREVIEW_NOTE = (
    "Preview: built from the stored papers with this profile (ranker and stored TL;DRs, no LLM);"
    " not posted to any channel."
)


@dataclass(frozen=True, slots=True)
class DayEntry:
    """One day of an archive: the digest as shown, and when it was posted (UTC, '' for a preview)."""

    day: dt.date
    view: DigestView
    sent_at: str = ""


@dataclass(frozen=True, slots=True)
class WeekEntry:
    """One week of an archive (Monday to Sunday): every paper posted that week, grouped as a topic tree."""

    start: dt.date
    view: DigestView


@dataclass(frozen=True, slots=True)
class Archive:
    """One channel's (or one preview profile's) days, oldest first, under a folder name unique in the site."""

    slug: str
    title: str
    where: str  # 'posted to a Telegram chat', or the preview note
    preview: bool
    days: tuple[DayEntry, ...]
    weeks: tuple[WeekEntry, ...] = ()


def slugify(text: str, fallback: str = "archive") -> str:
    """A folder name from any text: lower-case ASCII letters, digits and hyphens, at most 40 characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:40].strip("-")
    return slug or fallback


def unique_slugs(names: Sequence[str]) -> list[str]:
    """A slug per name, in order, with '-2', '-3' ... added where two would be the same ('search' is reserved)."""
    taken = {"search", "static"}
    slugs = []
    for name in names:
        base = slugify(name)
        slug, n = base, 1
        while slug in taken:
            n += 1
            slug = f"{base}-{n}"
        taken.add(slug)
        slugs.append(slug)
    return slugs


async def _rebuilt_digest(core: Core, target: Target, posted: PostedDigest, profile_name: str) -> Digest:
    """A digest from the ids a plain poster's post left in the ledger, with the stored TL;DRs."""
    papers = {p.id: p for p in await core.repo.get_papers(list(posted.paper_ids))}
    tldrs = await shown_tldrs(core, list(papers.values()))
    items = tuple(
        ScoredPaper(paper=papers[i], score=0.0, relevance=0.0, novelty=0.0, tldr=tldrs[i])
        for i in posted.paper_ids
        if i in papers
    )
    scanned = len(await core.repo.papers_on(posted.day, list(target.categories) or None))
    return Digest(posted.day, profile_name, max(scanned, len(items)), items, notes=(REBUILT_NOTE,))


async def posted_archive_days(core: Core, target: Target, profile: Profile) -> list[DayEntry]:
    """The days a channel was sent, each digest as it was posted."""
    assert target.id is not None
    days = []
    for posted in await core.repo.posted_digests(target.id):
        if posted.digest_json:
            digest = digest_from_json(posted.digest_json)
        else:
            digest = await _rebuilt_digest(core, target, posted, profile.name)
        days.append(DayEntry(posted.day, digest_view(digest, with_actions=False), posted.sent_at))
    return days


async def preview_days(
    core: Core, profile: Profile, *, size: int | None = None, categories: Sequence[str] | None = None
) -> list[DayEntry]:
    """Every stored day's digest for `profile`, built offline (no LLM), oldest first."""
    days = []
    for day in await core.repo.announcement_days():
        digest = await build_digest(core, profile, day, size=size, categories=categories, use_llm=False)
        days.append(DayEntry(day, digest_view(digest, with_actions=False)))
    return days


def channel_where(target: Target) -> str:
    """'posted to a Telegram chat' (chat ids stay out of a public page)."""
    platform = PLATFORM_NAMES.get(target.platform, target.platform)
    return f"posted to {platform}" if target.platform == "console" else f"posted to a {platform} chat"


async def collect_archives(core: Core, default_profile: Profile, extra_profile: Profile | None = None) -> list[Archive]:
    """Every archive of the site: the channels' posted digests, or previews when nothing was posted yet."""
    channels = await core.repo.channel_targets()
    found: list[tuple[str, str, bool, list[DayEntry]]] = []
    for target, profile in channels:
        days = await posted_archive_days(core, target, profile)
        if days:
            found.append((profile.name, channel_where(target), False, days))
    if not found:
        for target, profile in channels:
            days = await preview_days(core, profile, size=target.digest_size, categories=target.categories)
            found.append((profile.name, PREVIEW_NOTE, True, days))
        if not channels and extra_profile is None:
            found.append((default_profile.name, PREVIEW_NOTE, True, await preview_days(core, default_profile)))
    if extra_profile is not None:
        found.append((extra_profile.name, PREVIEW_NOTE, True, await preview_days(core, extra_profile)))
    found = [entry for entry in found if entry[3]]
    slugs = unique_slugs([name for name, *_ in found])
    return [
        Archive(slug, name, where, preview, tuple(days), await week_entries(core, name, days))
        for slug, (name, where, preview, days) in zip(slugs, found, strict=True)
    ]


async def week_entries(core: Core, name: str, days: Sequence[DayEntry]) -> tuple[WeekEntry, ...]:
    """Each week's posted papers as one topic tree (`bot.topictree`), oldest week first."""
    from bot.topictree.digest import grouped_views  # scikit-learn loads only when a site is built

    weeks: dict[dt.date, list[DayEntry]] = {}
    for entry in days:
        weeks.setdefault(entry.day - dt.timedelta(days=entry.day.weekday()), []).append(entry)
    out = []
    for start, entries in sorted(weeks.items()):
        items, sections = await grouped_views(core, [item for e in entries for item in e.view.items])
        end = start + dt.timedelta(days=6)
        title = f"{name}: the week of {start.isoformat()} – {end.isoformat()}"
        subtitle = f"{len(items)} papers posted on {len(entries)} days, grouped by topic."
        view = DigestView(title, entries[-1].day, len(items), items, subtitle=subtitle, sections=sections)
        out.append(WeekEntry(start, view))
    return tuple(out)
