"""Reading papers from JSONL files (one JSON object per line, the layout of the bundled data).

The whole input is validated before anything is returned, so a bad line anywhere means nothing is stored.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bot.errors import InputError
from bot.ingest.limits import FIRST_ANNOUNCED, MAX_FILE, MAX_LINE, announced_in_range, clean_paper
from bot.models import InvalidPaperId, Paper, split_arxiv_id

REQUIRED = ("id", "title", "authors", "abstract", "categories", "announced")


def paper_from_record(record: Mapping[str, Any], where: str) -> Paper:
    """Validate one JSON record and build a Paper; `where` names the place for the error message."""
    if not isinstance(record, Mapping):
        raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise InputError(f"{where}: missing field {missing[0]!r}")
    if not isinstance(record["id"], str):
        raise InputError(f"{where}: 'id' must be a string like \"2505.17639\", got {type(record['id']).__name__}")
    try:
        paper_id, version = split_arxiv_id(record["id"])
    except InvalidPaperId as exc:
        raise InputError(f"{where}: {exc}") from None
    authors, categories = record["authors"], record["categories"]
    if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
        raise InputError(f"{where}: 'authors' must be a list of names")
    if not isinstance(categories, list) or not categories or not all(isinstance(c, str) for c in categories):
        raise InputError(f"{where}: 'categories' must be a non-empty list")
    for key in ("title", "abstract"):
        if not isinstance(record[key], str) or not record[key].strip():
            raise InputError(f"{where}: {key!r} must be non-empty text")
    try:
        if not isinstance(record["announced"], str):
            raise ValueError
        announced = dt.date.fromisoformat(record["announced"])
    except ValueError:
        raise InputError(f"{where}: 'announced' must be a date like 2025-05-26, got {record['announced']!r}") from None
    if not announced_in_range(announced):
        raise InputError(f"{where}: 'announced' {announced} is outside arXiv's range ({FIRST_ANNOUNCED} to tomorrow)")
    comment = record.get("comment") or ""
    if not isinstance(comment, str):
        raise InputError(f"{where}: 'comment' must be text")
    announce_type = record.get("announce_type") or "new"
    if not isinstance(announce_type, str):
        raise InputError(f"{where}: 'announce_type' must be text like \"new\"")
    paper = clean_paper(
        Paper(
            id=paper_id,
            title=record["title"],
            authors=tuple(authors),
            abstract=record["abstract"],
            categories=tuple(categories),
            announced=announced,
            comment=comment,
            version=version,
            announce_type=announce_type[:20],
        )
    )
    for key in ("title", "abstract"):
        if not getattr(paper, key):
            raise InputError(f"{where}: {key!r} has no visible text once control characters are removed")
    if not paper.categories:
        raise InputError(f"{where}: 'categories' holds no arXiv category (like \"cs.LG\"): {categories[0][:40]!r}")
    return paper


def read_jsonl(paths: Iterable[str | Path]) -> list[Paper]:
    """Parse every file; raises InputError naming the file and line of the first problem."""
    papers: dict[str, Paper] = {}
    for path in paths:
        for where, record in json_records(path):
            paper = paper_from_record(record, where)
            # a later line for the same paper is a newer record of it
            papers[paper.id] = paper
    return list(papers.values())


def json_records(raw_path: str | Path) -> Iterator[tuple[str, Any]]:
    """("file:line", decoded JSON) for each non-blank line of a JSON-lines file; raises InputError naming the place.

    Files are read line by line (only a line feed ends a line: U+2028 inside a string is text), each line and each
    file within a bound whatever size the file claims, so /dev/zero or an endless pipe is refused, not swallowed.
    """
    path = Path(raw_path)
    try:
        for number, line in _lines(path):
            if line.strip():
                where = f"{path}:{number}"
                yield where, _decoded(line, where)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: cannot read as UTF-8 text (IsADirectoryError)") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc.__class__.__name__})") from None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of `path`, each at most MAX_LINE bytes, at most MAX_FILE bytes in all."""
    total = 0
    with path.open("rb") as handle:
        for number in itertools.count(1):
            raw = handle.readline(MAX_LINE + 1)
            if not raw:
                return
            total += len(raw)
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                raise InputError(f"{path}:{number}: line longer than {MAX_LINE:,} bytes; a record is a few kilobytes")
            if total > MAX_FILE:
                raise InputError(f"{path}: more than {MAX_FILE:,} bytes; split it into several files")
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError(f"{path}:{number}: cannot read as UTF-8 text (UnicodeDecodeError)") from None


def _decoded(line: str, where: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except (ValueError, RecursionError):  # a 5,000-digit number, arrays nested thousands deep
        raise InputError(f"{where}: not a paper record (numbers too long or nesting too deep)") from None
