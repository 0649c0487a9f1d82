"""Reading papers from JSONL files (one JSON object per line, the layout of the bundled data).

The whole input is validated before anything is returned, so a bad line anywhere means nothing is stored.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from bot.errors import InputError
from bot.ingest.limits import clean_paper
from bot.models import InvalidPaperId, Paper, split_arxiv_id

REQUIRED = ("id", "title", "authors", "abstract", "categories", "announced")


def paper_from_record(record: Mapping[str, Any], where: str) -> Paper:
    """Validate one JSON record and build a Paper; `where` names the place for the error message."""
    if not isinstance(record, Mapping):
        raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise InputError(f"{where}: missing field {missing[0]!r}")
    try:
        paper_id, version = split_arxiv_id(str(record["id"]))
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
        announced = dt.date.fromisoformat(str(record["announced"]))
    except ValueError:
        raise InputError(f"{where}: 'announced' must be a date like 2025-05-26, got {record['announced']!r}") from None
    comment = record.get("comment") or ""
    if not isinstance(comment, str):
        raise InputError(f"{where}: 'comment' must be text")
    return clean_paper(
        Paper(
            id=paper_id,
            title=record["title"],
            authors=tuple(authors),
            abstract=record["abstract"],
            categories=tuple(categories),
            announced=announced,
            comment=comment,
            version=version,
            announce_type=str(record.get("announce_type") or "new"),
        )
    )


def read_jsonl(paths: Iterable[str | Path]) -> list[Paper]:
    """Parse every file; raises InputError naming the file and line of the first problem."""
    papers: dict[str, Paper] = {}
    for raw_path in paths:
        path = Path(raw_path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except (UnicodeDecodeError, IsADirectoryError) as exc:
            raise InputError(f"{path}: cannot read as UTF-8 text ({exc.__class__.__name__})") from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            paper = paper_from_record(record, where)
            # a later line for the same paper is a newer record of it
            papers[paper.id] = paper
    return list(papers.values())
