"""The day's new and cross-listed papers from arXiv's RSS feeds (rss.arxiv.org).

The format (https://info.arxiv.org/help/rss_specifications.html): one RSS 2.0 channel for one or more
categories joined with ``+`` (``https://rss.arxiv.org/rss/cs.LG+cs.AI``), one item per paper. The channel's
``pubDate`` is the announcement day; weekends and holidays give a channel without items. Each item has
``title``, ``link`` (abs page, no version), ``description`` (``arXiv:2505.12345v2 Announce Type: new \\nAbstract:
...``), ``guid`` (``oai:arXiv.org:2505.12345v2``), one ``category`` per subject class, ``arxiv:announce_type``
(new, cross, replace, replace-cross) and ``dc:creator`` (``Ann Lee, Bo Li (MIT, CMU), ...``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import io
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import feedparser
import httpx

from bot.config import Settings
from bot.errors import ConfigError, FeedError, SourceUnavailable
from bot.ingest.limits import is_arxiv_category
from bot.ingest.throttle import Throttle, backoff_seconds, retry_after_seconds, shared_throttle
from bot.models import InvalidPaperId, Paper, split_arxiv_id

logger = logging.getLogger(__name__)

DAILY_TYPES = ("new", "cross")
REPLACEMENT_TYPES = ("replace", "replace-cross")
MAX_ATTEMPTS = 4  # first try plus three retries on 429/5xx
MAX_RETRY_AFTER_SECONDS = 300.0  # a longer Retry-After means "not today"; the scheduler catches up later
USER_AGENT = "paperscout/0.1 (self-hosted arXiv digest bot)"

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_DESCRIPTION = re.compile(
    r"^\s*arXiv:(?P<id>\S+)\s+Announce Type:\s*(?P<type>[\w-]+)\s*(?:Abstract:)?(?P<abstract>.*)$", re.S
)
_GUID = re.compile(r"^\s*oai:arXiv\.org:(?P<id>\S+)\s*$", re.I)
_TYPE_RANK = {"new": 0, "cross": 1, "replace": 2, "replace-cross": 3}
# arXiv's feed generator can emit "absonly" (an abstract-only update); it is a replacement for our purposes.
_TYPE_ALIASES = {"absonly": "replace"}


@dataclass(frozen=True, slots=True)
class RssDay:
    """One announcement day from the RSS feed: the day and its papers (empty on days without announcements)."""

    announced: dt.date
    papers: list[Paper]


def parse_rss(content: bytes) -> RssDay:
    """Parse an arXiv RSS document into the announced day and its papers (all announce types).

    Raises `FeedError` with a one-line message if the XML is malformed or a required field is missing;
    nothing is returned from a feed that fails.
    """
    if not content.strip():
        raise FeedError("arXiv RSS answer is empty")
    # HTML sanitising would eat "$a<b$" in titles and abstracts: arXiv text is plain text, escaped at render time.
    parsed = feedparser.parse(io.BytesIO(content), sanitize_html=False, resolve_relative_uris=False)
    problem = parsed.get("bozo_exception")
    if parsed.get("bozo") and not isinstance(problem, feedparser.CharacterEncodingOverride):
        raise FeedError(f"arXiv RSS feed is not well-formed XML: {_one_line(problem)}")
    if not str(parsed.get("version", "")).startswith("rss"):
        raise FeedError("arXiv RSS answer is not an RSS feed")

    announced = _announced_day(parsed)
    papers: dict[str, Paper] = {}
    for index, entry in enumerate(parsed.entries, start=1):
        paper = _entry_to_paper(entry, announced, index)
        seen = papers.get(paper.id)
        if seen is None or _TYPE_RANK.get(paper.announce_type, 9) < _TYPE_RANK.get(seen.announce_type, 9):
            papers[paper.id] = paper
    return RssDay(announced=announced, papers=list(papers.values()))


async def fetch_rss(
    settings: Settings,
    categories: Sequence[str],
    *,
    client: httpx.AsyncClient | None = None,
    include_replacements: bool = False,
) -> RssDay:
    """Fetch today's RSS listing for `categories` (one request, '+'-joined) and return new + cross-listed papers.

    Replacements are dropped unless `include_replacements`. HTTP 429/5xx are retried (honouring Retry-After)
    up to `MAX_ATTEMPTS` times, then `SourceUnavailable`; an unreachable host is `SourceUnavailable` too;
    an unparseable answer is `FeedError`. A day without announcements gives an empty list.
    """
    cats = checked_categories(categories or settings.categories)
    url = settings.arxiv_rss_url.rstrip("/") + "/" + "+".join(cats)
    throttle = shared_throttle(settings.arxiv_delay_seconds)
    if client is None:
        async with httpx.AsyncClient(headers={"User-Agent": USER_AGENT}, follow_redirects=True) as own:
            content = await _download(own, url, settings, throttle)
    else:
        content = await _download(client, url, settings, throttle)

    # A full day is a few MB of XML; parsing it on the loop would stall the chat adapters.
    day = await asyncio.to_thread(parse_rss, content)
    wanted = DAILY_TYPES + (REPLACEMENT_TYPES if include_replacements else ())
    papers = [p for p in day.papers if p.announce_type in wanted]
    logger.info(
        "arXiv RSS %s for %s: %d papers kept of %d listed", "+".join(cats), day.announced, len(papers), len(day.papers)
    )
    return RssDay(announced=day.announced, papers=papers)


async def _download(client: httpx.AsyncClient, url: str, settings: Settings, throttle: Throttle) -> bytes:
    host = _host(url)
    timeout = settings.http_timeout_seconds
    for attempt in range(1, MAX_ATTEMPTS + 1):
        await throttle.wait()
        try:
            # httpx's timeout is per read: a server trickling bytes would never trip it; this bounds the whole answer
            async with asyncio.timeout(timeout):
                response = await client.get(url, timeout=timeout)
        except (httpx.TimeoutException, TimeoutError) as exc:
            raise SourceUnavailable(f"arXiv RSS at {host} did not answer within {timeout:g} s") from exc
        except httpx.ConnectError as exc:
            raise SourceUnavailable(f"cannot connect to arXiv RSS at {host}: {_one_line(exc)}") from exc
        except httpx.TransportError as exc:
            raise SourceUnavailable(f"connection to arXiv RSS at {host} failed: {_one_line(exc)}") from exc

        status = response.status_code
        if status == 200:
            return response.content
        if status not in _RETRY_STATUSES:
            raise FeedError(f"arXiv RSS at {host} answered HTTP {status} for {url}")
        if attempt == MAX_ATTEMPTS:
            raise SourceUnavailable(f"arXiv RSS at {host} answered HTTP {status} {attempt} times in a row; giving up")
        wait = retry_after_seconds(response.headers.get("Retry-After"))
        if wait is None:
            wait = backoff_seconds(settings.arxiv_delay_seconds, attempt)
        if wait > MAX_RETRY_AFTER_SECONDS:
            raise SourceUnavailable(f"arXiv RSS at {host} answered HTTP {status} and asked to wait {wait:.0f} s")
        logger.warning("arXiv RSS at %s answered HTTP %d; retrying in %.1f s", host, status, wait)
        # Every arXiv request of the process waits, not only this one: the limit is per client, not per URL.
        throttle.back_off(wait)
    raise AssertionError("unreachable")  # the loop always returns or raises


def _entry_to_paper(entry: Any, announced: dt.date, index: int) -> Paper:
    description = str(entry.get("summary") or "")
    match = _DESCRIPTION.match(description)
    raw_id = match.group("id") if match else _id_from_guid_or_link(entry)
    where = f"arXiv RSS item {index}" + (f" ({raw_id})" if raw_id else "")
    if not raw_id:
        raise FeedError(f"{where} has no arXiv id (description, guid and link all lack one)")
    try:
        paper_id, version = split_arxiv_id(raw_id)
    except InvalidPaperId:
        raise FeedError(f"{where} has an invalid arXiv id {raw_id!r}") from None

    announce_type = str(entry.get("arxiv_announce_type") or (match.group("type") if match else "")).strip().lower()
    if not announce_type:
        raise FeedError(f"{where} has no announce type")
    announce_type = _TYPE_ALIASES.get(announce_type, announce_type)

    title = _collapse(entry.get("title"))
    if not title:
        raise FeedError(f"{where} has no title")
    categories = tuple(dict.fromkeys(str(t.get("term") or "").strip() for t in entry.get("tags", ())))
    categories = tuple(c for c in categories if is_arxiv_category(c))
    if not categories:
        raise FeedError(f"{where} has no arXiv category")

    abstract = match.group("abstract") if match else re.sub(r"^\s*Abstract:", "", description)
    return Paper(
        id=paper_id,
        title=title,
        authors=_authors(entry),
        abstract=_collapse(abstract),
        categories=categories,
        announced=announced,
        version=version,
        announce_type=announce_type,
    )


def _announced_day(parsed: Any) -> dt.date:
    raw = parsed.feed.get("published")
    if not raw and parsed.entries:
        raw = parsed.entries[0].get("published")
    if not raw:
        raise FeedError("arXiv RSS feed has no pubDate, so its announcement day is unknown")
    try:
        # The date as written (arXiv uses midnight US Eastern); converting to UTC first could change the day.
        return email.utils.parsedate_to_datetime(str(raw)).date()
    except (TypeError, ValueError):
        raise FeedError(f"arXiv RSS feed has an unreadable pubDate {str(raw)[:40]!r}") from None


def _id_from_guid_or_link(entry: Any) -> str:
    guid = _GUID.match(str(entry.get("id") or ""))
    if guid:
        return guid.group("id")
    link = str(entry.get("link") or "").strip()
    return link if "arxiv.org/abs/" in link else ""


def _authors(entry: Any) -> tuple[str, ...]:
    names: list[str] = []
    for author in entry.get("authors", ()):
        for part in _split_authors(str(author.get("name") or "")):
            name = _collapse(outside_brackets(part))
            if name:
                names.append(name)
    return tuple(names)


def outside_brackets(part: str) -> str:
    """An author's name without what stands in brackets: "Bo Li (MIT, CMU)", "Bo Li (MIT (CSAIL))" and "Bo Li (MIT"
    are Bo Li (an affiliation), and "Pu (Perry) Wang" is Pu Wang (a nickname inside the name, whose surname follows
    it: cutting at the bracket left "Pu")."""
    while True:
        inner = re.sub(r"\([^()]*\)", " ", part)
        if inner == part:
            break
        part = inner
    return part.split("(", 1)[0].replace(")", "")


def _split_authors(text: str) -> list[str]:
    """Split a creator list at the commas outside affiliations; with unbalanced brackets, at every comma.

    An unclosed bracket would otherwise swallow every later author into one name.
    """
    depth = 0
    balanced = True
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        balanced = balanced and depth >= 0
    if not balanced or depth != 0:
        return text.split(",")
    parts: list[str] = []
    current: list[str] = []
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def checked_categories(categories: Sequence[str]) -> list[str]:
    """Strip and de-duplicate arXiv category names, raising `ConfigError` for none or a malformed one."""
    cats = list(dict.fromkeys(c.strip() for c in categories if c.strip()))
    if not cats:
        raise ConfigError("no arXiv categories to fetch")
    bad = [c for c in cats if not is_arxiv_category(c)]
    if bad:
        raise ConfigError(f"not an arXiv category: {bad[0]!r}")
    return cats


def _collapse(text: object) -> str:
    return " ".join(str(text or "").split())


def _host(url: str) -> str:
    try:
        return httpx.URL(url).host or url
    except httpx.InvalidURL:
        return url


def _one_line(problem: object) -> str:
    text = " ".join(str(problem or "").split()) or type(problem).__name__
    return text[:200]
