"""Backfill and by-id lookups through the arXiv API, using the `arxiv` package.

The package is synchronous (requests), so every call runs in a worker thread. Its HTTP goes through
`_ArxivTransport`, a requests adapter that adds what the package lacks: the process-wide arXiv throttle
(shared with the RSS fetcher), a timeout, Retry-After, and a strict XML check (the package parses with
lxml's recover mode, which would silently turn a truncated page into a partial result).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import arxiv
import requests
from lxml import etree
from requests.adapters import HTTPAdapter

from bot.config import Settings
from bot.errors import FeedError, InputError, SourceUnavailable
from bot.ingest.announce import announcement_day
from bot.ingest.rss import MAX_RETRY_AFTER_SECONDS, USER_AGENT, checked_categories
from bot.ingest.throttle import Throttle, retry_after_seconds, shared_throttle
from bot.models import InvalidPaperId, Paper, split_arxiv_id

logger = logging.getLogger(__name__)

API_RETRIES = 3  # retries the arxiv package makes after a failed page (HTTP error, empty page, connection)
PAGE_SIZE = 100  # results per API request
ID_CHUNK = 100  # ids per by-id request, keeping URLs short

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# Categories in API answers include ACM/MSC classes ("I.2.7", "68T05"); only arXiv categories are kept.
_ARXIV_CATEGORY = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?$")
_ATOM = "{http://www.w3.org/2005/Atom}"
# requests nests urllib3 errors in reprs; these pick the human part out of them.
_REASONS = (re.compile(r"\[Errno -?\d+\][^'\")]*"), re.compile(r"Connection broken: [^'\"]*\)?"))


class _MalformedPage(Exception):
    """An API page that is not well-formed XML."""


class _Rejected(Exception):
    """A 4xx answer (other than 429): retrying the same query cannot help."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class _WaitTooLong(Exception):
    """arXiv asked for a pause longer than `MAX_RETRY_AFTER_SECONDS`."""

    def __init__(self, status: int, seconds: float) -> None:
        super().__init__(f"HTTP {status}, Retry-After {seconds:.0f} s")
        self.status = status
        self.seconds = seconds


class _ArxivTransport(HTTPAdapter):
    """Throttle, timeout, Retry-After and a strict XML check for every request the arxiv package sends."""

    def __init__(self, throttle: Throttle, timeout: float) -> None:
        super().__init__()
        self._throttle = throttle
        self._timeout = timeout

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: Any = True,
        cert: Any = None,
        proxies: Any = None,
    ) -> requests.Response:
        self._throttle.wait_blocking()
        response = super().send(
            request,
            stream=stream,
            timeout=self._timeout if timeout is None else timeout,
            verify=verify,
            cert=cert,
            proxies=proxies,
        )
        status = response.status_code
        if status in _RETRY_STATUSES:
            wait = retry_after_seconds(response.headers.get("Retry-After"))
            if wait is not None:
                if wait > MAX_RETRY_AFTER_SECONDS:
                    raise _WaitTooLong(status, wait)
                # The package retries on its own; its next request (and everyone else's) waits here first.
                self._throttle.back_off(wait)
            logger.warning("arXiv API answered HTTP %d; retry after %s s", status, wait)
            return response
        if 400 <= status < 500:
            raise _Rejected(status, _error_detail(response.content))
        if status == 200:
            _check_xml(response.content)
        return response


async def fetch_by_ids(settings: Settings, ids: Sequence[str], *, announced: dt.date | None = None) -> list[Paper]:
    """Look papers up by arXiv id (bare, versioned, ``arXiv:`` or abs/pdf URLs); unknown ids are left out.

    `announced` is stored as each paper's announcement day when given (e.g. the RSS day being completed);
    otherwise the API's published (v1 submission) date is used.
    """
    wanted: list[str] = []
    for raw in ids:
        try:
            base, version = split_arxiv_id(raw)
        except InvalidPaperId:
            raise InputError(f"not an arXiv id: {raw!r}") from None
        wanted.append(f"{base}v{version}" if version else base)
    wanted = list(dict.fromkeys(wanted))

    papers: list[Paper] = []
    for offset in range(0, len(wanted), ID_CHUNK):
        chunk = wanted[offset : offset + ID_CHUNK]
        search = arxiv.Search(id_list=chunk, max_results=len(chunk))
        results = await asyncio.to_thread(_collect, settings, search, len(chunk))
        papers.extend(_to_paper(result, announced) for result in results)
    return _unique(papers)


async def fetch_range(
    settings: Settings,
    categories: Sequence[str],
    start: dt.date,
    end: dt.date,
    max_results: int,
    *,
    page_size: int = PAGE_SIZE,
    by_announcement_day: bool = False,
) -> list[Paper]:
    """Papers in `categories` submitted from `start` to `end` (inclusive, UTC days), oldest first.

    At most `max_results`, fetched `page_size` per request; each paper's announced day is its published date, or
    with `by_announcement_day` the day arXiv announced its first version (`bot.ingest.announce`).
    """
    if end < start:
        raise InputError(f"backfill range ends ({end}) before it starts ({start})")
    if max_results <= 0:
        return []
    cats = checked_categories(categories or settings.categories)
    cat_query = " OR ".join(f"cat:{c}" for c in cats)
    if len(cats) > 1:
        cat_query = f"({cat_query})"
    query = f"{cat_query} AND submittedDate:[{start:%Y%m%d}0000 TO {end:%Y%m%d}2359]"
    search = arxiv.Search(
        query=query,
        max_results=max_results,
        sort_by=arxiv.SortCriterion.SubmittedDate,
        sort_order=arxiv.SortOrder.Ascending,
    )
    results = await asyncio.to_thread(_collect, settings, search, max(1, min(page_size, max_results)))
    papers = _unique(
        [_to_paper(result, announcement_day(result.published) if by_announcement_day else None) for result in results]
    )
    logger.info("arXiv API backfill %s %s..%s: %d papers", "+".join(cats), start, end, len(papers))
    return papers


def _collect(settings: Settings, search: arxiv.Search, page_size: int) -> list[arxiv.Result]:
    """Run `search` to the end in this (worker) thread, turning every failure into a one-line paperscout error."""
    host = _host(settings.arxiv_api_url)
    timeout = settings.http_timeout_seconds
    client = arxiv.Client(page_size=page_size, delay_seconds=0.0, num_retries=API_RETRIES)
    # The shared throttle spaces requests by settings.arxiv_delay_seconds, across RSS and API alike; the
    # package's own per-client timer would only add a second, uncoordinated wait.
    client.query_url_format = settings.arxiv_api_url.replace("{", "{{").replace("}", "}}") + "?{}"
    adapter = _ArxivTransport(shared_throttle(settings.arxiv_delay_seconds), timeout)
    # arxiv.Client keeps its requests.Session private; mounting an adapter is the hook it leaves open.
    session: requests.Session = client._session
    session.headers["User-Agent"] = USER_AGENT
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    try:
        return list(client.results(search))
    except _MalformedPage as exc:
        raise FeedError(f"arXiv API at {host} sent malformed XML: {exc}") from exc
    except _Rejected as exc:
        raise FeedError(f"arXiv API at {host} rejected the query with HTTP {exc.status}: {exc.detail}") from exc
    except _WaitTooLong as exc:
        raise SourceUnavailable(
            f"arXiv API at {host} answered HTTP {exc.status} and asked to wait {exc.seconds:.0f} s"
        ) from exc
    except arxiv.HTTPError as exc:
        raise SourceUnavailable(
            f"arXiv API at {host} answered HTTP {exc.status} {API_RETRIES + 1} times in a row; giving up"
        ) from exc
    except arxiv.UnexpectedEmptyPageError as exc:
        raise SourceUnavailable(f"arXiv API at {host} kept returning empty pages; giving up") from exc
    except requests.Timeout as exc:
        raise SourceUnavailable(f"arXiv API at {host} did not answer within {timeout:g} s") from exc
    except requests.ConnectionError as exc:
        raise SourceUnavailable(f"cannot connect to arXiv API at {host}: {_reason(exc)}") from exc
    except requests.RequestException as exc:
        raise SourceUnavailable(f"connection to arXiv API at {host} failed: {_reason(exc)}") from exc
    finally:
        session.close()


def _to_paper(result: arxiv.Result, announced: dt.date | None) -> Paper:
    try:
        paper_id, version = split_arxiv_id(result.entry_id)
    except InvalidPaperId:
        raise FeedError(f"arXiv API returned an entry with an invalid id {result.entry_id!r}") from None
    categories = [result.primary_category, *result.categories]
    return Paper(
        id=paper_id,
        title=_collapse(result.title),
        authors=tuple(name for name in (_collapse(a.name) for a in result.authors) if name),
        abstract=_collapse(result.summary),
        categories=tuple(dict.fromkeys(c for c in categories if c and _ARXIV_CATEGORY.match(c))),
        announced=announced or result.published.date(),
        comment=_collapse(result.comment),
        version=version,
    )


def _check_xml(content: bytes) -> None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=False)
    try:
        etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise _MalformedPage(" ".join(str(exc).split())[:200]) from None


def _error_detail(content: bytes) -> str:
    """The summary of arXiv's Atom error entry, or the start of the body."""
    try:
        root = etree.fromstring(content, parser=etree.XMLParser(resolve_entities=False, no_network=True))
        summary = root.findtext(f"{_ATOM}entry/{_ATOM}summary") if root is not None else None
    except etree.XMLSyntaxError:
        summary = None
    text = summary or content.decode("utf-8", "replace")
    return _collapse(text)[:200] or "no detail"


def _unique(papers: list[Paper]) -> list[Paper]:
    seen: dict[str, Paper] = {}
    for paper in papers:
        seen.setdefault(paper.id, paper)
    return list(seen.values())


def _collapse(text: object) -> str:
    return " ".join(str(text or "").split())


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def _reason(exc: Exception) -> str:
    text = str(exc)
    for pattern in _REASONS:
        match = pattern.search(text)
        if match:
            return match.group(0).strip()
    return _collapse(text)[:200] or type(exc).__name__
