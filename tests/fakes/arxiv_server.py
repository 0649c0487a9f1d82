"""A fake of arXiv's RSS feeds and Atom API on 127.0.0.1 for tests and benchmarks: real HTTP, real formats, faults.

In a test::

    with FakeArxiv([record, ...]) as fake:
        settings = Settings(home=tmp_path, **fake.settings_overrides())
        fake.enqueue(Fault.unavailable(retry_after=0.3).on("rss"))
        day = await fetch_rss(settings, ["cs.LG"])
        assert [r.endpoint for r in fake.requests] == ["rss", "rss"]

From a script (`FakeArxiv.from_jsonl(paths)`), or a shell, serving until Ctrl-C::

    python -m tests.fakes.arxiv_server --data /work/shared/data/arxiv --port 8765

Endpoints:

- ``GET /rss/{cat}+{cat}...``: the rss.arxiv.org RSS 2.0 channel for the fake's announcement day (`rss_day`,
  by default the latest ``announced`` among the records). One item per paper, like arXiv's generator: ``new`` when
  the primary category is asked for, else ``cross``; records marked as replacements list as ``replace`` /
  ``replace-cross``; ordered new, cross, replace, replace-cross, then id descending; at most 2000 items.
- ``GET /api/query``: the export.arxiv.org Atom API with ``id_list``, ``search_query`` (fields ``cat``, ``ti``,
  ``au``, ``abs``, ``co``, ``all``, ``id``, ``submittedDate``/``lastUpdatedDate`` ranges; ``AND``, ``OR``,
  ``ANDNOT``, parentheses), ``start``, ``max_results``, ``sortBy``, ``sortOrder``, and opensearch paging elements.
  Bad ids or queries get HTTP 400 with arXiv's Atom error entry.

A record's submission time is its ``published`` field or, when absent, a time shortly before the 14:00 US Eastern
cut-off that put it on its announcement day (the day before, or the Friday before a Monday), as arXiv has it.

Faults are one-shot and consumed in order by the first request they apply to (``.on("rss")`` or ``.on("api")``
narrows one to an endpoint); `always` sets one that never runs out. `stop()` makes the port refuse connections.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, quote, unquote, urlsplit
from xml.sax.saxutils import escape, quoteattr
from zoneinfo import ZoneInfo

from bot.ingest.announce import cutoff, is_announcement_day
from bot.ingest.taxonomy import CATEGORIES
from bot.models import InvalidPaperId, Paper, split_arxiv_id
from tests.fakes.loopback import LoopbackFake

Endpoint = Literal["rss", "api"]
FaultKind = Literal["status", "malformed", "truncate", "disconnect", "delay", "empty", "body", "trickle"]

RSS_LIMIT = 2000
API_PAGE_LIMIT = 2000
_EASTERN = ZoneInfo("America/New_York")
_LICENSE = "http://creativecommons.org/licenses/by/4.0/"
_LISTING_RANK = {"new": 0, "cross": 1, "replace": 2, "replace-cross": 3}
_KNOWN_CATEGORIES = frozenset(CATEGORIES)
_CATEGORY = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?$")
_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_RSS_NS = (
    'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/"'
)
_ATOM_NS = (
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom" '
    'xmlns="http://www.w3.org/2005/Atom"'
)


# --- records ---


@dataclass(frozen=True)
class FakeRecord:
    """One paper the fake serves, in the shape of the bundled JSONL files plus optional arXiv extras."""

    id: str
    title: str
    authors: tuple[str, ...]
    abstract: str
    categories: tuple[str, ...]
    announced: dt.date
    comment: str = ""
    version: int = 1
    replacement: bool = False  # listed as replace / replace-cross in the RSS feed
    published: dt.datetime | None = None  # v1 submission time (UTC)
    doi: str = ""
    journal_ref: str = ""
    # Per author, as arXiv's RSS creator line writes it after the name ("MIT (CSAIL), CMU"; "" for none). The
    # feed prints what submitters typed, unclosed brackets included; the API gives <arxiv:affiliation> apart.
    affiliations: tuple[str, ...] = ()

    @property
    def submitted(self) -> dt.datetime:
        """The v1 submission time the API reports and ``submittedDate`` filters on.

        Without ``published``: as arXiv has it, before the 14:00 US Eastern cut-off of the last weekday before the
        announcement day (for a Monday, the Friday before), spread over the two hours before it by id, so on a
        different UTC (and Eastern) date than the announcement day. A record on a day without announcements
        gets 10:00 US Eastern of the day before.
        """
        if self.published is not None:
            return self.published
        if self.replacement:
            # A replacement listed today was first submitted weeks earlier (a month per later version).
            return self._before_cutoff() - dt.timedelta(days=30 * max(1, self.version - 1))
        return self._before_cutoff()

    @property
    def updated(self) -> dt.datetime:
        """When the current version was submitted: for a replacement, before the cut-off of its listing day."""
        if self.replacement:
            return self._before_cutoff()
        return self.submitted + dt.timedelta(days=self.version - 1)

    def _before_cutoff(self) -> dt.datetime:
        if not is_announcement_day(self.announced):
            return dt.datetime.combine(self.announced - dt.timedelta(days=1), dt.time(10, 0), tzinfo=_EASTERN)
        spread = int(hashlib.sha1(self.id.encode()).hexdigest(), 16) % 7200
        return cutoff(self.announced) - dt.timedelta(seconds=1 + spread)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> FakeRecord:
        """Build from a JSONL-style dict (id, title, authors, abstract, categories, comment, announced, ...)."""
        base, version = split_arxiv_id(str(data["id"]))
        authors = data.get("authors") or ()
        if isinstance(authors, str):
            authors = [a.strip() for a in authors.split(",")]
        categories = data.get("categories") or ()
        if isinstance(categories, str):
            categories = categories.split()
        published = data.get("published")
        if isinstance(published, str):
            published = dt.datetime.fromisoformat(published.replace("Z", "+00:00"))
        announce_type = str(data.get("announce_type") or "new")
        return cls(
            id=base,
            title=str(data.get("title") or ""),
            authors=tuple(str(a) for a in authors if str(a).strip()),
            abstract=str(data.get("abstract") or ""),
            categories=tuple(str(c) for c in categories),
            announced=_as_date(data.get("announced")),
            comment=str(data.get("comment") or ""),
            version=int(data.get("version") or version or 1),
            replacement=bool(data.get("replacement")) or announce_type.startswith("replace"),
            published=published,
            doi=str(data.get("doi") or ""),
            journal_ref=str(data.get("journal_ref") or ""),
        )

    @classmethod
    def from_paper(cls, paper: Paper) -> FakeRecord:
        """Build from a paperscout `Paper`."""
        return cls(
            id=paper.id,
            title=paper.title,
            authors=paper.authors,
            abstract=paper.abstract,
            categories=paper.categories,
            announced=paper.announced,
            comment=paper.comment,
            version=paper.version or 1,
            replacement=paper.announce_type.startswith("replace"),
        )


RecordLike = FakeRecord | Paper | Mapping[str, Any]


def load_jsonl(*paths: str | Path) -> list[FakeRecord]:
    """Records from JSONL files (or directories of ``*.jsonl``), in file order."""
    records: list[FakeRecord] = []
    for path in paths:
        path = Path(path)
        files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
        for file in files:
            with file.open(encoding="utf-8") as handle:
                records.extend(FakeRecord.from_mapping(json.loads(line)) for line in handle if line.strip())
    return records


# --- faults and the request log ---


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour of the fake. Build with the class methods; narrow with `on`."""

    kind: FaultKind
    status: int = 503
    retry_after: float | None = None
    seconds: float = 0.0
    endpoint: Endpoint | None = None
    body: bytes = b""

    @classmethod
    def saved(cls, body: bytes, status: int = 200) -> Fault:
        """Answer with `body` exactly, e.g. a real saved arXiv response from tests/fixtures/arxiv."""
        return cls("body", status=status, body=body)

    @classmethod
    def unavailable(cls, retry_after: float | None = 1.0) -> Fault:
        """HTTP 503 with ``Retry-After`` (seconds; None leaves the header out)."""
        return cls("status", status=503, retry_after=retry_after)

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0) -> Fault:
        """HTTP 429 with ``Retry-After``."""
        return cls("status", status=429, retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 500, retry_after: float | None = None) -> Fault:
        """Any HTTP error status with a short plain-text body."""
        return cls("status", status=status, retry_after=retry_after)

    @classmethod
    def status_code(cls, status: int, retry_after: float | None = None) -> Fault:
        """Any HTTP status (e.g. 400 or 404) with a short plain-text body."""
        return cls("status", status=status, retry_after=retry_after)

    @classmethod
    def malformed(cls) -> Fault:
        """HTTP 200 with the normal document made ill-formed (an unescaped ``&`` and an unclosed tag)."""
        return cls("malformed")

    @classmethod
    def truncated(cls) -> Fault:
        """HTTP 200 with the first half of the document, correctly framed (as from a broken cache or proxy)."""
        return cls("truncate")

    @classmethod
    def disconnect(cls) -> Fault:
        """Promise the whole document in Content-Length, send half, then close the connection."""
        return cls("disconnect")

    @classmethod
    def empty_page(cls) -> Fault:
        """An API page without entries whose header still counts them (a known arXiv API flake; RSS: no items)."""
        return cls("empty")

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Answer normally after `seconds` (longer than the client timeout to provoke one)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def trickle(cls, seconds: float = 2.0) -> Fault:
        """The normal answer, status line and headers included, one byte every `seconds` (no read ever times out)."""
        return cls("trickle", seconds=seconds)

    def on(self, endpoint: Endpoint) -> Fault:
        """The same fault, applied only to ``rss`` or ``api`` requests."""
        return dataclasses.replace(self, endpoint=endpoint)


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the fake saw it."""

    endpoint: str  # rss | api | other
    path: str
    query: dict[str, str]
    status: int
    fault: str | None
    user_agent: str
    at: float = field(repr=False)  # time.monotonic() on arrival


# --- the server ---


class FakeArxiv(LoopbackFake[Fault, RecordedRequest]):
    """arXiv's RSS and API endpoints in a background thread on an ephemeral 127.0.0.1 port."""

    thread_name = "fake-arxiv"

    def __init__(
        self,
        records: Iterable[RecordLike] = (),
        *,
        rss_day: dt.date | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        """Serve `records`; `rss_day` is the announcement day of the RSS feed (default: latest announced)."""
        super().__init__(host, port)
        self.rss_day = rss_day
        self._records: dict[str, FakeRecord] = {}
        self.add(*records)

    @classmethod
    def from_jsonl(cls, *paths: str | Path, rss_day: dt.date | None = None) -> FakeArxiv:
        """A fake serving the records of JSONL files or directories (not started yet)."""
        return cls(load_jsonl(*paths), rss_day=rss_day)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    @property
    def rss_url(self) -> str:
        """What Settings.arxiv_rss_url takes."""
        return f"{self.url}/rss/"

    @property
    def api_url(self) -> str:
        """What Settings.arxiv_api_url takes."""
        return f"{self.url}/api/query"

    def settings_overrides(self, delay_seconds: float = 0.0, timeout_seconds: float = 5.0) -> dict[str, Any]:
        """Keyword arguments for `Settings(...)` that point paperscout at this fake."""
        return {
            "arxiv_rss_url": self.rss_url,
            "arxiv_api_url": self.api_url,
            "arxiv_delay_seconds": delay_seconds,
            "http_timeout_seconds": timeout_seconds,
        }

    # --- data ---

    def add(self, *records: RecordLike) -> None:
        """Add or replace records (by version-less id)."""
        converted = [_to_record(r) for r in records]
        with self._lock:
            for record in converted:
                self._records[record.id] = record

    def clear_records(self) -> None:
        """Serve nothing (an empty day)."""
        with self._lock:
            self._records.clear()

    @property
    def records(self) -> list[FakeRecord]:
        """Every record served, in insertion order."""
        with self._lock:
            return list(self._records.values())

    def feed_day(self) -> dt.date:
        """The announcement day the RSS feed shows."""
        if self.rss_day is not None:
            return self.rss_day
        days = [r.announced for r in self.records]
        return max(days) if days else dt.datetime.now(dt.UTC).date()

    # --- what the fake saw ---

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, in arrival order (a request is recorded when answered, so sort by arrival)."""
        with self._lock:
            return sorted(self._requests, key=lambda r: r.at)

    def request_times(self, endpoint: Endpoint | None = None) -> list[float]:
        """Arrival times (time.monotonic) of the requests, optionally of one endpoint only."""
        return [r.at for r in self.requests if endpoint is None or r.endpoint == endpoint]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as httpx and requests pools expect
    server_version = "paperscout-fake-arxiv/1"
    timeout = 30

    @property
    def fake(self) -> FakeArxiv:
        return self.server.fake  # type: ignore[attr-defined]

    def setup(self) -> None:
        super().setup()
        self.fake._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.fake._track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet test output

    def do_GET(self) -> None:
        arrived = time.monotonic()
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        endpoint = "rss" if path.startswith("/rss/") else "api" if path.rstrip("/") == "/api/query" else "other"
        fault = self.fake._next_fault(endpoint) if endpoint != "other" else None

        def record(status: int) -> None:
            self.fake._record(
                RecordedRequest(
                    endpoint=endpoint,
                    path=path,
                    query=query,
                    status=status,
                    fault=fault.kind if fault else None,
                    user_agent=self.headers.get("User-Agent", ""),
                    at=arrived,
                )
            )

        if fault is not None and fault.kind == "delay":
            self.fake._sleep(fault.seconds)
        if fault is not None and fault.kind == "body":
            record(fault.status)
            kind = "application/rss+xml" if endpoint == "rss" else "application/atom+xml"
            self._send(fault.status, fault.body, f"{kind}; charset=utf-8")
            return
        if fault is not None and fault.kind == "status":
            record(fault.status)
            headers = {} if fault.retry_after is None else {"Retry-After": f"{fault.retry_after:g}"}
            self._send(fault.status, f"HTTP {fault.status} from the fake arXiv\n".encode(), "text/plain", headers)
            return

        if endpoint == "rss" and fault is not None and fault.kind == "empty":
            status, body = self._rss(path, empty=True)
            content_type = "application/rss+xml; charset=utf-8"
        elif endpoint == "rss":
            status, body = self._rss(path)
            content_type = "application/rss+xml; charset=utf-8"
        elif endpoint == "api":
            status, body = self._api(query, empty=fault is not None and fault.kind == "empty")
            content_type = "application/atom+xml; charset=utf-8"
        else:
            record(404)
            self._send(404, b"not found\n", "text/plain")
            return

        record(status)
        if fault is not None and fault.kind == "malformed":
            body = _break_xml(body)
        elif fault is not None and fault.kind == "truncate":
            body = body[: len(body) // 2]
        elif fault is not None and fault.kind == "disconnect":
            self._send_cut(status, body, content_type)
            return
        elif fault is not None and fault.kind == "trickle":
            self._send_trickle(status, body, content_type, fault.seconds)
            return
        self._send(status, body, content_type)

    # --- endpoints ---

    def _rss(self, path: str, *, empty: bool = False) -> tuple[int, bytes]:
        query = path[len("/rss/") :].strip("/")
        cats = [c for c in re.split(r"[+ ]", query) if c]
        day = self.fake.feed_day()
        if not cats or not all(_CATEGORY.match(c) for c in cats):
            return 400, render_rss_error(query, day)
        return 200, render_rss(cats, day, [] if empty else self.fake.records)

    def _api(self, query: dict[str, str], *, empty: bool = False) -> tuple[int, bytes]:
        try:
            entries, total, start, max_results = select_api(self.fake.records, query)
        except _ApiError as exc:
            return 400, render_api_error(query, str(exc))
        return 200, render_api(query, [] if empty else entries, total, start, max_results)

    # --- plumbing ---

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _send_trickle(self, status: int, body: bytes, content_type: str, seconds: float) -> None:
        head = (f"HTTP/1.1 {status} OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        try:
            for byte in head + body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                if self.fake._stopping.wait(seconds):
                    break
        except OSError:  # the client gave up and closed
            pass
        self.close_connection = True

    def _send_cut(self, status: int, body: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


# --- RSS rendering ---


def listing_type(record: FakeRecord, categories: Iterable[str]) -> str | None:
    """How arXiv lists `record` in a feed for `categories`: new, cross, replace, replace-cross or None."""
    asked = set(categories)

    def in_feed(category: str) -> bool:  # an archive name ("cs") stands for all its categories
        return category in asked or category.split(".")[0] in asked

    if not any(in_feed(c) for c in record.categories):
        return None
    primary = bool(record.categories) and in_feed(record.categories[0])
    if record.replacement:
        return "replace" if primary else "replace-cross"
    return "new" if primary else "cross"


def render_rss(categories: list[str], day: dt.date, records: Iterable[FakeRecord]) -> bytes:
    """The rss.arxiv.org document for `categories` on announcement day `day`."""
    listed = [(t, r) for r in records if r.announced == day and (t := listing_type(r, categories))]
    listed.sort(key=lambda item: item[1].id, reverse=True)
    listed.sort(key=lambda item: _LISTING_RANK[item[0]])
    pub_date = _rss_date(dt.datetime.combine(day, dt.time(0, 0), tzinfo=_EASTERN))
    items = [_rss_item(t, r, pub_date) for t, r in listed[:RSS_LIMIT]]
    return _rss_channel(", ".join(categories), "+".join(categories), day, pub_date, items)


def render_rss_error(query: str, day: dt.date) -> bytes:
    """arXiv's answer to a feed URL naming no valid category."""
    pub_date = _rss_date(dt.datetime.combine(day, dt.time(0, 0), tzinfo=_EASTERN))
    head = f"Feed error for query: https://rss.arxiv.org/rss/{query}"
    return _rss_channel(head, query, day, pub_date, [], title=head, description=f"Invalid category: {query}")


def _rss_channel(
    names: str,
    query: str,
    day: dt.date,
    pub_date: str,
    items: list[str],
    *,
    title: str | None = None,
    description: str | None = None,
) -> bytes:
    build = _rss_date(dt.datetime.combine(day, dt.time(4, 0, 2), tzinfo=dt.UTC))
    link = f"http://rss.arxiv.org/rss/{query}"
    lines = [
        "<?xml version='1.0' encoding='UTF-8'?>",
        f'<rss {_RSS_NS} version="2.0">',
        "  <channel>",
        f"    <title>{_x(title or f'{names} updates on arXiv.org')}</title>",
        f"    <link>{_x(link)}</link>",
        f"    <description>{_x(description or f'{names} updates on the arXiv.org e-print archive.')}</description>",
        f'    <atom:link href={quoteattr(link)} rel="self" type="application/rss+xml"/>',
        "    <docs>http://www.rssboard.org/rss-specification</docs>",
        "    <language>en-us</language>",
        f"    <lastBuildDate>{build}</lastBuildDate>",
        "    <managingEditor>rss-help@arxiv.org</managingEditor>",
        f"    <pubDate>{pub_date}</pubDate>",
        "    <skipDays>",
        "      <day>Saturday</day>",
        "      <day>Sunday</day>",
        "    </skipDays>",
        *items,
        "  </channel>",
        "</rss>",
        "",
    ]
    return "\n".join(lines).encode("utf-8")


def creator_line(record: FakeRecord) -> str:
    """The RSS ``dc:creator`` text: names joined by ", ", each followed by " (affiliation)" when it has one.

    An affiliation with more opening than closing brackets is printed as typed, without a closing one.
    """
    names = []
    for index, author in enumerate(record.authors):
        affiliation = record.affiliations[index] if index < len(record.affiliations) else ""
        if not affiliation:
            names.append(author)
        elif affiliation.count("(") > affiliation.count(")"):
            names.append(f"{author} ({affiliation}")
        else:
            names.append(f"{author} ({affiliation})")
    return ", ".join(names)


def _rss_item(kind: str, record: FakeRecord, pub_date: str) -> str:
    versioned = f"{record.id}v{record.version}"
    lines = [
        "    <item>",
        f"      <title>{_x(record.title)}</title>",
        f"      <link>https://arxiv.org/abs/{record.id}</link>",
        f"      <description>arXiv:{versioned} Announce Type: {kind} \nAbstract: {_x(record.abstract)}</description>",
        f'      <guid isPermaLink="false">oai:arXiv.org:{versioned}</guid>',
        *(f"      <category>{_x(c)}</category>" for c in record.categories),
        f"      <pubDate>{pub_date}</pubDate>",
        f"      <arxiv:announce_type>{kind}</arxiv:announce_type>",
        f"      <dc:rights>{_LICENSE}</dc:rights>",
    ]
    if record.doi:
        lines.append(f"      <arxiv:DOI>{_x(record.doi)}</arxiv:DOI>")
    if record.journal_ref:
        lines.append(f"      <arxiv:journal_reference>{_x(record.journal_ref)}</arxiv:journal_reference>")
    lines += [f"      <dc:creator>{_x(creator_line(record))}</dc:creator>", "    </item>"]
    return "\n".join(lines)


# --- API: query language, selection, rendering ---


class _ApiError(ValueError):
    """A request the real API rejects with HTTP 400."""


Predicate = Callable[[FakeRecord], bool]
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<lp>\() | (?P<rp>\)) |
        (?P<op>ANDNOT|AND|OR)(?=[\s(]|$) |
        (?P<field>[A-Za-z_]+):(?:\[(?P<range>[^\]]*)\]|"(?P<quoted>[^"]*)"|(?P<word>[^\s()]+)) |
        (?P<bare>"[^"]*"|[^\s()]+)
    )""",
    re.X,
)


def parse_search_query(text: str) -> Predicate:
    """Compile an arXiv ``search_query`` into a predicate over records (raises `_ApiError` if malformed)."""
    tokens: list[re.Match[str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise _ApiError(f"malformed search_query near {text[pos : pos + 20]!r}")
        tokens.append(match)
        pos = match.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    if not tokens:
        raise _ApiError("empty search_query")
    predicate, index = _parse_expr(tokens, 0)
    if index != len(tokens):
        raise _ApiError("malformed search_query: unbalanced parentheses")
    return predicate


def _parse_expr(tokens: list[re.Match[str]], index: int) -> tuple[Predicate, int]:
    left, index = _parse_unary(tokens, index)
    while index < len(tokens) and tokens[index].group("op"):
        op = tokens[index].group("op")
        right, index = _parse_unary(tokens, index + 1)
        left = _combine(op, left, right)
    return left, index


def _combine(op: str, left: Predicate, right: Predicate) -> Predicate:
    if op == "AND":
        return lambda r: left(r) and right(r)
    if op == "OR":
        return lambda r: left(r) or right(r)
    return lambda r: left(r) and not right(r)


def _parse_unary(tokens: list[re.Match[str]], index: int) -> tuple[Predicate, int]:
    if index >= len(tokens):
        raise _ApiError("malformed search_query: expected a term")
    token = tokens[index]
    if token.group("lp"):
        inner, index = _parse_expr(tokens, index + 1)
        if index >= len(tokens) or not tokens[index].group("rp"):
            raise _ApiError("malformed search_query: missing ')'")
        return inner, index + 1
    if token.group("field"):
        value = token.group("range") if token.group("range") is not None else token.group("quoted")
        if value is None:
            value = token.group("word")
        return _term(token.group("field"), value, token.group("range") is not None), index + 1
    if token.group("bare"):
        return _term("all", token.group("bare").strip('"'), False), index + 1
    raise _ApiError("malformed search_query: unexpected operator or ')'")


def _term(name: str, value: str, is_range: bool) -> Predicate:
    if name in ("submittedDate", "lastUpdatedDate"):
        if not is_range:
            raise _ApiError(f"{name} needs a range [YYYYMMDDTTTT TO YYYYMMDDTTTT]")
        bounds = value.split(" TO ")
        if len(bounds) != 2:
            raise _ApiError(f"malformed {name} range {value!r}")
        low, high = _range_bound(bounds[0], low=True), _range_bound(bounds[1], low=False)

        def in_range(r: FakeRecord) -> bool:
            stamp = (r.submitted if name == "submittedDate" else r.updated).astimezone(dt.UTC)
            return low <= stamp.strftime("%Y%m%d%H%M") <= high

        return in_range
    if name == "cat":
        if not value.endswith("*") and value not in _KNOWN_CATEGORIES:
            # arXiv answers a well-formed but unknown category with HTTP 400 and an Atom error entry.
            raise _ApiError(f"unknown category {value}")
        if value.endswith("*"):
            prefix = value[:-1]
            return lambda r: any(c.startswith(prefix) for c in r.categories)
        return lambda r: value in r.categories
    if name == "id":
        wanted = value.split("v")[0] if re.match(r"^\d{4}\.\d{4,5}v\d+$", value) else value
        return lambda r: r.id == wanted
    texts: dict[str, Callable[[FakeRecord], str]] = {
        "ti": lambda r: r.title,
        "au": lambda r: " ".join(r.authors),
        "abs": lambda r: r.abstract,
        "co": lambda r: r.comment,
        "jr": lambda r: r.journal_ref,
        "all": lambda r: " ".join((r.title, " ".join(r.authors), r.abstract, r.comment)),
    }
    if name not in texts:
        raise _ApiError(f"unknown search field {name!r}")
    words = [w.lower() for w in re.split(r"[\s_]+", value) if w]
    field_text = texts[name]
    return lambda r: all(w in field_text(r).lower() for w in words)


def _range_bound(text: str, *, low: bool) -> str:
    digits = text.strip()
    if not digits.isdigit() or len(digits) not in (8, 12, 14):
        raise _ApiError(f"malformed date {text!r} (want YYYYMMDDTTTT)")
    if len(digits) == 8:
        digits += "0000" if low else "2359"
    return digits[:12]


def select_api(records: list[FakeRecord], query: dict[str, str]) -> tuple[list[tuple[FakeRecord, int]], int, int, int]:
    """Apply id_list, search_query, sorting and paging; returns (page of (record, version), total, start, max)."""
    try:
        start = int(query.get("start") or 0)
        max_results = int(query.get("max_results") or 10)
    except ValueError:
        raise _ApiError("start and max_results must be integers") from None
    if start < 0 or max_results < 0:
        raise _ApiError("start and max_results must be >= 0")
    max_results = min(max_results, API_PAGE_LIMIT)
    search = (query.get("search_query") or "").strip()
    id_list = [i.strip() for i in (query.get("id_list") or "").split(",") if i.strip()]

    by_id = {r.id: r for r in records}
    matches: list[tuple[FakeRecord, int]] = []
    if id_list:
        for raw in id_list:
            try:
                base, version = split_arxiv_id(raw)
            except InvalidPaperId:
                raise _ApiError(f"incorrect id format for {raw}") from None
            record = by_id.get(base)
            if record is not None and (version is None or version <= record.version):
                matches.append((record, version or record.version))
    else:
        matches = [(r, r.version) for r in records]
    if search:
        predicate = parse_search_query(search)
        matches = [(r, v) for r, v in matches if predicate(r)]
    elif not id_list:
        matches = []

    sort_by = query.get("sortBy") or "relevance"
    descending = (query.get("sortOrder") or "descending") != "ascending"
    if sort_by not in ("relevance", "submittedDate", "lastUpdatedDate"):
        raise _ApiError(f"unknown sortBy {sort_by!r}")
    if sort_by != "relevance":
        # Ties (same timestamp) fall back to id order so paging is stable.
        matches.sort(key=lambda item: item[0].id, reverse=descending)
        matches.sort(
            key=lambda item: item[0].submitted if sort_by == "submittedDate" else item[0].updated,
            reverse=descending,
        )
    elif not id_list:
        matches.sort(key=lambda item: item[0].id, reverse=True)
    return matches[start : start + max_results], len(matches), start, max_results


def render_api(
    query: dict[str, str], entries: list[tuple[FakeRecord, int]], total: int, start: int, max_results: int
) -> bytes:
    """An export.arxiv.org Atom page."""
    lines = _atom_head(query, start, max_results, total)
    for record, version in entries:
        lines.append(_atom_entry(record, version))
    lines += ["</feed>", ""]
    return "\n".join(lines).encode("utf-8")


def render_api_error(query: dict[str, str], message: str) -> bytes:
    """arXiv's Atom error document (served with HTTP 400)."""
    anchor = re.sub(r"\W+", "_", message).strip("_")
    error_url = f"https://arxiv.org/api/errors#{anchor}"
    lines = _atom_head(query, 0, 1, 1)
    lines += [
        "  <entry>",
        f"    <id>{_x(error_url)}</id>",
        "    <title>Error</title>",
        f"    <summary>{_x(message)}</summary>",
        f"    <updated>{_atom_time(dt.datetime.now(dt.UTC))}</updated>",
        f'    <link href={quoteattr(error_url)} rel="alternate" type="text/html"/>',
        "    <author>",
        "      <name>arXiv api core</name>",
        "    </author>",
        "  </entry>",
        "</feed>",
        "",
    ]
    return "\n".join(lines).encode("utf-8")


def _atom_head(query: dict[str, str], start: int, max_results: int, total: int) -> list[str]:
    search = query.get("search_query", "")
    ids = query.get("id_list", "")
    title = f"arXiv Query: search_query={search}&id_list={ids}&start={start}&max_results={max_results}"
    link = (
        f"https://arxiv.org/api/query?search_query={quote(search)}&start={start}"
        f"&max_results={max_results}&id_list={quote(ids)}"
    )
    digest = hashlib.sha1(title.encode()).hexdigest()[:27]
    return [
        "<?xml version='1.0' encoding='UTF-8'?>",
        f"<feed {_ATOM_NS}>",
        f"  <id>https://arxiv.org/api/{digest}</id>",
        f"  <title>{_x(title)}</title>",
        f"  <updated>{_atom_time(dt.datetime.now(dt.UTC))}</updated>",
        f'  <link href={quoteattr(link)} type="application/atom+xml"/>',
        f"  <opensearch:itemsPerPage>{max_results}</opensearch:itemsPerPage>",
        f"  <opensearch:totalResults>{total}</opensearch:totalResults>",
        f"  <opensearch:startIndex>{start}</opensearch:startIndex>",
    ]


def _atom_entry(record: FakeRecord, version: int) -> str:
    versioned = f"{record.id}v{version}"
    updated = record.updated if version == record.version else record.submitted + dt.timedelta(days=version - 1)
    lines = [
        "  <entry>",
        f"    <id>http://arxiv.org/abs/{versioned}</id>",
        f"    <title>{_x(record.title)}</title>",
        f"    <updated>{_atom_time(updated)}</updated>",
        f'    <link href="https://arxiv.org/abs/{versioned}" rel="alternate" type="text/html"/>',
        f'    <link href="https://arxiv.org/pdf/{versioned}" rel="related" type="application/pdf" title="pdf"/>',
        f"    <summary>{_x(record.abstract)}</summary>",
        *(f'    <category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>' for c in record.categories),
        f"    <published>{_atom_time(record.submitted)}</published>",
    ]
    if record.comment:
        lines.append(f"    <arxiv:comment>{_x(record.comment)}</arxiv:comment>")
    if record.categories:
        lines.append(f"    <arxiv:primary_category term={quoteattr(record.categories[0])}/>")
    if record.journal_ref:
        lines.append(f"    <arxiv:journal_ref>{_x(record.journal_ref)}</arxiv:journal_ref>")
    if record.doi:
        lines.append(f"    <arxiv:doi>{_x(record.doi)}</arxiv:doi>")
    for index, author in enumerate(record.authors):
        affiliation = record.affiliations[index] if index < len(record.affiliations) else ""
        lines += ["    <author>", f"      <name>{_x(author)}</name>"]
        if affiliation:
            lines.append(f"      <arxiv:affiliation>{_x(affiliation)}</arxiv:affiliation>")
        lines.append("    </author>")
    lines.append("  </entry>")
    return "\n".join(lines)


# --- helpers ---


def _to_record(item: RecordLike) -> FakeRecord:
    if isinstance(item, FakeRecord):
        return item
    if isinstance(item, Paper):
        return FakeRecord.from_paper(item)
    return FakeRecord.from_mapping(item)


def _as_date(value: Any) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and value:
        return dt.date.fromisoformat(value[:10])
    raise ValueError(f"record needs an announced date, got {value!r}")


def _x(text: str) -> str:
    return escape(_XML_INVALID.sub("", text))


def _rss_date(moment: dt.datetime) -> str:
    return moment.strftime("%a, %d %b %Y %H:%M:%S %z")


def _atom_time(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _break_xml(body: bytes) -> bytes:
    """The document with an unescaped ampersand and an unclosed element right after the root's first child."""
    marker = body.find(b">", body.find(b"<", body.find(b"?>") + 2)) + 1
    return body[:marker] + b"\n<title>R&D <unclosed></title>" + body[marker:]


def main(argv: list[str] | None = None) -> None:
    """Serve JSONL records until Ctrl-C, printing the settings that point paperscout here."""
    parser = argparse.ArgumentParser(description="Fake arXiv RSS + API server for paperscout tests and benchmarks.")
    parser.add_argument("--data", nargs="*", default=[], help="JSONL files or directories of *.jsonl")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    parser.add_argument("--day", type=dt.date.fromisoformat, default=None, help="RSS announcement day (YYYY-MM-DD)")
    args = parser.parse_args(argv)
    fake = FakeArxiv(load_jsonl(*args.data), rss_day=args.day, port=args.port).start()
    print(f"fake arXiv serving {len(fake.records)} records, RSS day {fake.feed_day()}", flush=True)
    print(f"PAPERSCOUT_ARXIV_RSS_URL={fake.rss_url}", flush=True)
    print(f"PAPERSCOUT_ARXIV_API_URL={fake.api_url}", flush=True)
    print("PAPERSCOUT_ARXIV_DELAY_SECONDS=0", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
