"""Backfill and by-id lookups through the arXiv API, using the `arxiv` package.

The package is synchronous (requests), so every call runs in a daemon thread (`bot.ingest.deadline`), which a
stopping process does not wait for. Its HTTP goes through `_ArxivTransport`, a requests adapter that adds what the
package lacks: the process-wide arXiv throttle (shared with the RSS fetcher), one deadline per request (a server
trickling bytes cannot stretch it; a cancelled caller cuts the request short), Retry-After or a doubling back-off
on 429/5xx, our User-Agent (the package sends its own on every request), arXiv's reason for a 4xx, a check that a
page promising results has some (an empty page is a known API flake; the package then retries it), and a strict
XML check (the package parses with lxml's recover mode, which would silently turn a truncated page into a partial
result).

Papers are filed under their announcement day (`bot.ingest.announce`), not their submission day, so a
backfill agrees with the RSS feed of the day. A backfill keeps the pages it got when a later page fails.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import arxiv
import requests
from lxml import etree

from bot.config import Settings
from bot.errors import FeedError, InputError, SourceUnavailable
from bot.ingest.announce import announcement_day, announcement_days, cutoff, submission_window
from bot.ingest.deadline import DeadlineAdapter, in_daemon_thread
from bot.ingest.limits import is_arxiv_category
from bot.ingest.rss import MAX_RETRY_AFTER_SECONDS, USER_AGENT, checked_categories, outside_brackets
from bot.ingest.throttle import Throttle, backoff_seconds, retry_after_seconds, shared_throttle
from bot.models import InvalidPaperId, Paper, split_arxiv_id

logger = logging.getLogger(__name__)

API_RETRIES = 3  # retries the arxiv package makes after a failed page (HTTP error, empty page, connection)
PAGE_SIZE = 100  # results per API request
ID_CHUNK = 100  # ids per by-id request, keeping URLs short

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_ATOM = "{http://www.w3.org/2005/Atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
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


@dataclass(frozen=True, slots=True)
class Backfill:
    """What a backfill got: the papers (oldest first), the announcement days asked for, and why it stopped early."""

    papers: list[Paper]
    days: list[dt.date]
    incomplete: str | None = None  # None when every page arrived

    def line(self) -> str:
        """One line for the operator, naming a partial result."""
        span = f"{self.days[0]}..{self.days[-1]}" if self.days else "no announcement day"
        head = f"arXiv API backfill {span}: {len(self.papers)} papers"
        return f"{head}; INCOMPLETE, kept the pages before the failure: {self.incomplete}" if self.incomplete else head


class _ArxivTransport(DeadlineAdapter):
    """Throttle, deadline, back-off, User-Agent and strict checks for every request the arxiv package sends."""

    def __init__(self, throttle: Throttle, timeout: float, backoff_base: float) -> None:
        super().__init__(timeout)
        self._throttle = throttle
        self._timeout = timeout
        self._backoff_base = backoff_base
        self._failures = 0  # consecutive 429/5xx answers, for the back-off when arXiv names no Retry-After

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: Any = True,
        cert: Any = None,
        proxies: Any = None,
    ) -> requests.Response:
        # The package passes its own user-agent on every call; ours names the bot to arXiv's operators.
        request.headers["User-Agent"] = USER_AGENT
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
            self._failures += 1
            wait = retry_after_seconds(response.headers.get("Retry-After"))
            if wait is None:
                wait = backoff_seconds(self._backoff_base, self._failures)
            if wait > MAX_RETRY_AFTER_SECONDS:
                raise _WaitTooLong(status, wait)
            # The package retries on its own; its next request (and everyone else's) waits here first.
            self._throttle.back_off(wait)
            logger.warning("arXiv API answered HTTP %d; retrying in %.1f s", status, wait)
            return response
        self._failures = 0
        if 400 <= status < 500:
            raise _Rejected(status, _error_detail(response.content))
        if status == 200:
            root = _check_xml(response.content)
            if _is_empty_flake(root):
                # The package retries this error (up to API_RETRIES times), first page included.
                raise arxiv.UnexpectedEmptyPageError(request.url or "", 0, None)  # type: ignore[arg-type]
        return response


async def fetch_by_ids(settings: Settings, ids: Sequence[str], *, announced: dt.date | None = None) -> list[Paper]:
    """Look papers up by arXiv id (bare, versioned, ``arXiv:`` or abs/pdf URLs); unknown ids are left out.

    `announced` is stored as each paper's announcement day when given (e.g. the RSS day being completed);
    otherwise the announcement day of the paper's v1 submission time.
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
        results, problem = await _search(settings, search, len(chunk))
        if problem is not None:
            raise problem
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
) -> Backfill:
    """The papers in `categories` announced from `start` to `end` (announcement days, inclusive), oldest first.

    The API is asked for the submissions of those days' windows (14:00 US Eastern cut-offs) and each paper is
    filed under its announcement day. At most `max_results`, fetched `page_size` per request. When a later page
    fails, the pages already downloaded are kept and `Backfill.incomplete` says why; a failure before any paper
    arrived raises (`SourceUnavailable` or `FeedError`).
    """
    if end < start:
        raise InputError(f"backfill range ends ({end}) before it starts ({start})")
    cats = checked_categories(categories or settings.categories)
    days = announcement_days(start, end)
    if max_results <= 0 or not days:
        return Backfill([], days)
    cat_query = " OR ".join(f"cat:{c}" for c in cats)
    if len(cats) > 1:
        cat_query = f"({cat_query})"
    # submittedDate is in UTC to the minute, both ends included; the window ends just before the last cut-off.
    first = submission_window(days[0])[0].astimezone(dt.UTC)
    last = (cutoff(days[-1]) - dt.timedelta(minutes=1)).astimezone(dt.UTC)
    query = f"{cat_query} AND submittedDate:[{first:%Y%m%d%H%M} TO {last:%Y%m%d%H%M}]"
    search = arxiv.Search(
        query=query,
        max_results=max_results,
        sort_by=arxiv.SortCriterion.SubmittedDate,
        sort_order=arxiv.SortOrder.Ascending,
    )
    results, problem = await _search(settings, search, max(1, min(page_size, max_results)))
    if problem is not None and not results:
        raise problem
    wanted = set(days)
    papers = _unique([p for p in (_to_paper(r, None) for r in results) if p.announced in wanted])
    backfill = Backfill(papers, days, None if problem is None else str(problem))
    if problem is not None:
        logger.warning("%s", backfill.line())
    else:
        logger.info("%s (%s)", backfill.line(), "+".join(cats))
    return backfill


async def _search(
    settings: Settings, search: arxiv.Search, page_size: int
) -> tuple[list[arxiv.Result], SourceUnavailable | FeedError | None]:
    """`_collect` in a daemon thread; a cancelled caller ends the request in flight at once."""
    timeout = settings.http_timeout_seconds
    adapter = _ArxivTransport(shared_throttle(settings.arxiv_delay_seconds), timeout, settings.arxiv_delay_seconds)
    try:
        return await in_daemon_thread(_collect, settings, search, page_size, adapter)
    except asyncio.CancelledError:
        adapter.abort()
        raise


def _collect(
    settings: Settings, search: arxiv.Search, page_size: int, adapter: _ArxivTransport
) -> tuple[list[arxiv.Result], SourceUnavailable | FeedError | None]:
    """Run `search` in this (worker) thread: the results that arrived, and the one-line error that stopped it."""
    host = _host(settings.arxiv_api_url)
    timeout = settings.http_timeout_seconds
    client = arxiv.Client(page_size=page_size, delay_seconds=0.0, num_retries=API_RETRIES)
    # The shared throttle spaces requests by settings.arxiv_delay_seconds, across RSS and API alike; the
    # package's own per-client timer would only add a second, uncoordinated wait.
    client.query_url_format = settings.arxiv_api_url.replace("{", "{{").replace("}", "}}") + "?{}"
    # arxiv.Client keeps its requests.Session private; mounting an adapter is the hook it leaves open.
    session: requests.Session = client._session
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    results: list[arxiv.Result] = []
    try:
        for result in client.results(search):
            results.append(result)
        return results, None
    except Exception as exc:
        return results, _explained(exc, host, timeout)
    finally:
        session.close()


def _explained(exc: Exception, host: str, timeout: float) -> SourceUnavailable | FeedError:
    """A one-line paperscout error for a failure of the arxiv package or our transport (others are re-raised)."""
    if isinstance(exc, _MalformedPage):
        return FeedError(f"arXiv API at {host} sent malformed XML: {exc}")
    if isinstance(exc, _Rejected):
        return FeedError(f"arXiv API at {host} rejected the query with HTTP {exc.status}: {exc.detail}")
    if isinstance(exc, _WaitTooLong):
        return SourceUnavailable(
            f"arXiv API at {host} answered HTTP {exc.status} and asked to wait {exc.seconds:.0f} s"
        )
    if isinstance(exc, arxiv.HTTPError):
        return SourceUnavailable(
            f"arXiv API at {host} answered HTTP {exc.status} {API_RETRIES + 1} times in a row; giving up"
        )
    if isinstance(exc, arxiv.UnexpectedEmptyPageError):
        return SourceUnavailable(f"arXiv API at {host} kept returning empty pages; giving up")
    if isinstance(exc, requests.Timeout):
        return SourceUnavailable(f"arXiv API at {host} did not answer within {timeout:g} s")
    if isinstance(exc, requests.ConnectionError):
        return SourceUnavailable(f"cannot connect to arXiv API at {host}: {_reason(exc)}")
    if isinstance(exc, requests.RequestException):
        return SourceUnavailable(f"connection to arXiv API at {host} failed: {_reason(exc)}")
    raise exc


def _to_paper(result: arxiv.Result, announced: dt.date | None) -> Paper:
    try:
        paper_id, version = split_arxiv_id(result.entry_id)
    except InvalidPaperId:
        raise FeedError(f"arXiv API returned an entry with an invalid id {result.entry_id!r}") from None
    categories = [result.primary_category, *result.categories]
    return Paper(
        id=paper_id,
        title=_collapse(result.title),
        authors=tuple(name for name in (_collapse(outside_brackets(a.name)) for a in result.authors) if name),
        abstract=_collapse(result.summary),
        categories=tuple(dict.fromkeys(c for c in categories if c and is_arxiv_category(c))),
        announced=announced or announcement_day(result.published),
        comment=_collapse(result.comment),
        version=version,
    )


def _check_xml(content: bytes) -> Any:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=False)
    try:
        root = etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise _MalformedPage(" ".join(str(exc).split())[:200]) from None
    if root is None or root.tag != f"{_ATOM}feed":
        # a captive portal's or a proxy's login page is well-formed XHTML with no entries: not "0 papers"
        tag = str(root.tag if root is not None else "nothing").rpartition("}")[2][:40]
        raise _MalformedPage(f"the answer is not an Atom feed but <{tag}> (a login page of a proxy or captive portal?)")
    return root


def _is_empty_flake(root: Any) -> bool:
    """A page without entries although its own totalResults says some start at its startIndex."""
    if root is None or root.find(f"{_ATOM}entry") is not None:
        return False
    try:
        total = int(root.findtext(f"{_OPENSEARCH}totalResults") or 0)
        start = int(root.findtext(f"{_OPENSEARCH}startIndex") or 0)
    except ValueError:
        return False
    return start < total


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
