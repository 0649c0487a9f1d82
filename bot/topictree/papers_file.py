"""The papers `paperscout topics` groups: JSON lines with an `id` and either `title` and `abstract` or `text`.

Ids are any short text (not only arXiv ids). Every line is checked before anything is grouped, and sizes are bounded:
a bad line anywhere is one clear error naming the file and line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bot.errors import InputError
from bot.ingest.jsonl import json_records
from bot.ingest.limits import MAX_ABSTRACT, MAX_TITLE, clean_text
from bot.models import ARXIV_ABS_URL, InvalidPaperId, split_arxiv_id
from bot.text.extractive import split_sentences

from .build import MAX_PAPERS
from .tree import PaperText

MAX_ID = 200
TITLE_FROM_TEXT = 160  # a `text`-only record's title: its first sentence, cut to this many characters


def paper_from_line(record: Any, where: str) -> PaperText:
    """One record as a `PaperText`; raises InputError saying what is wrong with it."""
    if not isinstance(record, Mapping):
        raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
    raw_id = record.get("id")
    if isinstance(raw_id, int) and not isinstance(raw_id, bool):
        raw_id = str(raw_id)
    if not isinstance(raw_id, str) or not clean_text(raw_id, MAX_ID):
        raise InputError(f"{where}: 'id' must be a non-empty text or number")
    if len(raw_id) > MAX_ID:
        raise InputError(f"{where}: 'id' has {len(raw_id)} characters; at most {MAX_ID}")
    paper_id = clean_text(raw_id, MAX_ID)
    for key in ("title", "abstract", "text"):
        if key in record and record[key] is not None and not isinstance(record[key], str):
            raise InputError(f"{where}: {key!r} must be text")
    title = clean_text(record.get("title") or "", MAX_TITLE)
    abstract = clean_text(record.get("abstract") or "", MAX_ABSTRACT)
    text = clean_text(record.get("text") or "", MAX_ABSTRACT)
    if not (title and abstract) and not text:
        raise InputError(f"{where}: give 'title' and 'abstract', or 'text'")
    if not (title and abstract):
        sentences = split_sentences(text)
        title = title or clean_text(sentences[0] if sentences else text, TITLE_FROM_TEXT)
        abstract = abstract or text
    return PaperText(paper_id, title, abstract, url=_arxiv_url(paper_id))


def _arxiv_url(paper_id: str) -> str:
    try:
        return ARXIV_ABS_URL + split_arxiv_id(paper_id)[0]
    except InvalidPaperId:
        return ""


def read_papers(path: str | Path) -> list[PaperText]:
    """Every paper of a JSON-lines file, in order; a later line with the same id replaces the earlier one.

    The file is read as ingest reads JSON lines (`bot.ingest.jsonl.json_records`: line by line, each line and the
    file bounded whatever size the file claims)."""
    papers: dict[str, PaperText] = {}
    for where, record in json_records(path):
        paper = paper_from_line(record, where)
        papers.pop(paper.id, None)
        papers[paper.id] = paper
        if len(papers) > MAX_PAPERS:
            raise InputError(f"{path}: more than {MAX_PAPERS} papers; group at most {MAX_PAPERS} at once")
    if not papers:
        raise InputError(f"{path}: no papers (one JSON object per line, with 'id' and 'title'+'abstract' or 'text')")
    return list(papers.values())
