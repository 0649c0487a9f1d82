"""Papers, their full-text index and their TL;DRs."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain

import aiosqlite

from bot.models import Paper, day_to_int, int_to_day
from bot.store.repos.base import (
    RepositoryBase,
    chunks,
    day_bounds,
    fts_all_of,
    paper_from_row,
    placeholders,
    stored_strings,
)
from bot.text.terms import title_words, titles_words


@dataclass
class TitleWordChanges:
    """What one write of papers changes in `title_words`: how many titles write each word (plural-folded, and as
    written), the first stored title (the smallest rowid) of those added that writes each, and the words each
    replaced title no longer writes."""

    folded: Counter[str] = field(default_factory=Counter)
    written: Counter[str] = field(default_factory=Counter)
    first_folded: dict[str, int] = field(default_factory=dict)
    first_written: dict[str, int] = field(default_factory=dict)
    dropped: dict[int, tuple[set[str], set[str]]] = field(default_factory=dict)

    def add(self, rowid: int, title: str) -> None:
        """A title stored at `rowid`."""
        folded, written = title_words(title)
        self.folded.update(folded)
        self.written.update(written)
        for words, first in ((folded, self.first_folded), (written, self.first_written)):
            for word in words:
                first[word] = min(first.get(word, rowid), rowid)

    @classmethod
    def of_titles(cls, rows: Sequence[tuple[int, str]]) -> TitleWordChanges:
        """`add` of each (rowid, title), all at once: each distinct word folded once (`titles_words`), the counts
        taken over every title together and each word's first title set by the titles from the last stored to the
        first, so the first stored writing it is set last (a tenth of the Python work at 48,000 titles)."""
        changes = cls()
        words = titles_words([title for _, title in rows])
        changes.folded = Counter(chain.from_iterable(folded for folded, _ in words))
        changes.written = Counter(chain.from_iterable(written for _, written in words))
        for rowid, (folded, written) in sorted(zip((r for r, _ in rows), words, strict=True), reverse=True):
            changes.first_folded.update(dict.fromkeys(folded, rowid))
            changes.first_written.update(dict.fromkeys(written, rowid))
        return changes

    def replace(self, rowid: int, old: str, new: str) -> None:
        """The title at `rowid` replaced."""
        old_folded, old_written = title_words(old)
        self.folded.subtract(old_folded)
        self.written.subtract(old_written)
        self.add(rowid, new)
        new_folded, new_written = title_words(new)
        folded, written = self.dropped.setdefault(rowid, (set(), set()))
        folded |= old_folded  # what an earlier title at `rowid` in the same write wrote is dropped too
        folded -= new_folded
        written |= old_written
        written -= new_written


# the first stored title writing a word: a count's own when the other holds none, else the smaller of the two
_FIRST = "CASE WHEN {0} IS NULL THEN excluded.{0} WHEN excluded.{0} IS NULL THEN {0} ELSE min({0}, excluded.{0}) END"


async def _write_title_words(conn: aiosqlite.Connection, changes: TitleWordChanges) -> None:
    """Apply `changes` to `title_words`, in the caller's transaction. A word's first title (the order the typo
    look-up reads words in, as it read them from the titles in storage order) is looked for again where a
    replaced title was it and others still write the word."""
    words = sorted(set(changes.folded) | set(changes.written))
    rows = [
        (w, changes.folded[w], changes.written[w], changes.first_folded.get(w), changes.first_written.get(w))
        for w in words
    ]
    if not rows:
        return
    await conn.executemany(
        "INSERT INTO title_words (word, folded, written, first_folded, first_written) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (word) DO UPDATE SET folded = folded + excluded.folded, written = written + excluded.written,"
        f" first_folded = {_FIRST.format('first_folded')}, first_written = {_FIRST.format('first_written')}",
        rows,
    )
    if not changes.dropped:
        return
    await conn.execute("DELETE FROM title_words WHERE folded <= 0 AND written <= 0")
    await conn.execute("UPDATE title_words SET first_folded = NULL WHERE folded <= 0 AND first_folded IS NOT NULL")
    await conn.execute("UPDATE title_words SET first_written = NULL WHERE written <= 0 AND first_written IS NOT NULL")
    dropped = sorted({w for folded, written in changes.dropped.values() for w in folded | written})
    stale: dict[tuple[str, int], int] = {}  # (word, 0 folded / 1 written) -> the replaced title that was its first
    for chunk in chunks(dropped):
        async with conn.execute(
            f"SELECT word, first_folded, first_written FROM title_words WHERE word IN ({placeholders(len(chunk))})",
            chunk,
        ) as cursor:
            async for word, first_folded, first_written in cursor:
                for kind, first in enumerate((first_folded, first_written)):
                    if first in changes.dropped and word in changes.dropped[first][kind]:
                        stale[(word, kind)] = first
    if not stale:
        return
    found: dict[tuple[str, int], int] = {}
    # the next title writing it comes after the replaced one: none before it wrote the word, or it was no first
    async with conn.execute(
        "SELECT rowid, title FROM papers WHERE rowid > ? ORDER BY rowid", (min(stale.values()),)
    ) as cursor:
        async for rowid, title in cursor:
            for kind, words in enumerate(title_words(title)):
                for word in words:
                    if (word, kind) in stale and (word, kind) not in found and rowid > stale[(word, kind)]:
                        found[(word, kind)] = rowid
            if len(found) == len(stale):
                break
    for kind, column in enumerate(("first_folded", "first_written")):
        await conn.executemany(
            f"UPDATE title_words SET {column} = ? WHERE word = ?",
            [(rowid, word) for (word, k), rowid in sorted(found.items()) if k == kind],
        )


async def fill_title_words(conn: aiosqlite.Connection) -> None:
    """Count the words of every stored title into `title_words` (the migration that adds it, in its transaction:
    the papers stored before it; `upsert_papers` keeps it since)."""
    rows = await conn.execute_fetchall("SELECT rowid, title FROM papers")
    await _write_title_words(conn, TitleWordChanges.of_titles([(int(rowid), str(title)) for rowid, title in rows]))


@dataclass(frozen=True, slots=True)
class UpsertCounts:
    """What an ingest did to the papers table."""

    inserted: int = 0
    updated: int = 0
    unchanged: int = 0


class PapersRepo(RepositoryBase):
    """Stored papers: upserts keyed by version-less id, day and window reads, full-text search, TL;DRs."""

    async def upsert_papers(self, papers: Sequence[Paper]) -> UpsertCounts:
        """Insert new papers and update replaced ones in place, all in one transaction.

        A paper keeps the first announcement day it was seen on; a changed title/abstract (a replacement)
        updates the text and clears its TL;DR so it is summarised again.
        """
        inserted = updated = unchanged = 0
        words = TitleWordChanges()  # what the titles written change in `title_words`, written with them
        async with self.transaction() as conn:
            existing: dict[str, tuple[str, int | None, str, int]] = {}
            ids = [p.id for p in papers]
            for chunk in chunks(ids):
                async with conn.execute(
                    "SELECT id, content_hash, version, title, rowid FROM papers"
                    f" WHERE id IN ({placeholders(len(chunk))})",
                    chunk,
                ) as cursor:
                    existing.update(
                        {r["id"]: (r["content_hash"], r["version"], r["title"], r["rowid"]) async for r in cursor}
                    )
            for paper in papers:
                fields = (
                    paper.version,
                    paper.title,
                    json.dumps(list(paper.authors), ensure_ascii=False),
                    paper.abstract,
                    json.dumps(list(paper.categories)),
                    paper.primary_category,
                    paper.comment,
                    paper.content_hash,
                )
                if paper.id not in existing:
                    cursor = await conn.execute(
                        "INSERT INTO papers (version, title, authors, abstract, categories, primary_category, comment,"
                        " content_hash, id, announced, announce_type) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        (*fields, paper.id, day_to_int(paper.announced), paper.announce_type),
                    )
                    rowid = int(cursor.lastrowid or 0)
                    existing[paper.id] = (paper.content_hash, paper.version, paper.title, rowid)
                    words.add(rowid, paper.title)
                    inserted += 1
                    continue
                old_hash, old_version, old_title, rowid = existing[paper.id]
                if old_hash == paper.content_hash and (paper.version or 0) <= (old_version or 0):
                    unchanged += 1
                    continue
                # SET expressions see the old row, so the CASEs compare against the previous text's hash
                await conn.execute(
                    "UPDATE papers SET tldr=CASE WHEN content_hash=? THEN tldr ELSE NULL END,"
                    " tldr_source=CASE WHEN content_hash=? THEN tldr_source ELSE NULL END,"
                    " version=?, title=?, authors=?, abstract=?, categories=?, primary_category=?,"
                    " comment=?, content_hash=?, updated_at=strftime('%Y-%m-%dT%H:%M:%SZ','now') WHERE id=?",
                    (paper.content_hash, paper.content_hash, *fields, paper.id),
                )
                existing[paper.id] = (paper.content_hash, paper.version, paper.title, rowid)
                if paper.title != old_title:
                    words.replace(rowid, old_title, paper.title)
                updated += 1
            await _write_title_words(conn, words)
            if inserted or updated:
                # once more, after the title words: a question sharing this connection may have read the papers
                # (and the generation they raised) before their title words were written
                await conn.execute("UPDATE papers_generation SET n = n + 1")
        return UpsertCounts(inserted, updated, unchanged)

    async def get_papers(self, ids: Sequence[str]) -> list[Paper]:
        """Stored papers for `ids`, in the order given (unknown ids are skipped)."""
        found: dict[str, Paper] = {}
        for chunk in chunks(list(ids)):
            async with self.conn.execute(
                f"SELECT * FROM papers WHERE id IN ({placeholders(len(chunk))})", chunk
            ) as cursor:
                found.update({r["id"]: paper_from_row(r) async for r in cursor})
        return [found[i] for i in ids if i in found]

    async def papers_between(
        self, start: dt.date, end: dt.date, categories: Sequence[str] | None = None
    ) -> list[Paper]:
        """Papers first announced from `start` to `end` inclusive, optionally listed in any of `categories`."""
        async with self.conn.execute(
            "SELECT * FROM papers WHERE announced BETWEEN ? AND ? ORDER BY announced, id",
            (day_to_int(start), day_to_int(end)),
        ) as cursor:
            papers = [paper_from_row(r) async for r in cursor]
        if categories:
            wanted = set(categories)
            papers = [p for p in papers if wanted.intersection(p.categories)]
        return papers

    async def categories_between(self, low: int | None, high: int | None) -> dict[str, tuple[str, ...]]:
        """The categories of every paper announced in [low, high] (yyyymmdd, None an open end), by id."""
        async with self.conn.execute(
            "SELECT id, categories FROM papers WHERE announced >= ? AND announced <= ?",
            (-(10**9) if low is None else low, 10**9 if high is None else high),
        ) as cursor:
            rows = await cursor.fetchall()
        return {r[0]: stored_strings(r[1], f"categories of paper {r[0]}") for r in rows}

    async def papers_on(self, day: dt.date, categories: Sequence[str] | None = None) -> list[Paper]:
        """Papers first announced on `day`."""
        return await self.papers_between(day, day, categories)

    async def announcement_days(self) -> list[dt.date]:
        """Every day with stored papers, oldest first."""
        async with self.conn.execute("SELECT DISTINCT announced FROM papers ORDER BY announced") as cursor:
            return [int_to_day(r[0]) async for r in cursor]

    async def earliest_day(self) -> dt.date | None:
        """The first announcement day stored, if any."""
        async with self.conn.execute("SELECT MIN(announced) FROM papers") as cursor:
            row = await cursor.fetchone()
        return int_to_day(row[0]) if row and row[0] else None

    async def latest_day(self, until: dt.date | None = None) -> dt.date | None:
        """The most recent announcement day stored (on or before `until`, when given), if any."""
        async with self.conn.execute(
            "SELECT MAX(announced) FROM papers WHERE announced <= ?", (day_to_int(until) if until else 99991231,)
        ) as cursor:
            row = await cursor.fetchone()
        return int_to_day(row[0]) if row and row[0] else None

    async def count_papers(self) -> int:
        """How many papers are stored."""
        async with self.conn.execute("SELECT COUNT(*) FROM papers") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def all_paper_ids(self) -> set[str]:
        """The id of every stored paper (to compare with the vector store)."""
        async with self.conn.execute("SELECT id FROM papers") as cursor:
            return {row[0] async for row in cursor}

    async def all_authors(self) -> list[str]:
        """Distinct author names across stored papers (for fuzzy matching watched authors)."""
        names: set[str] = set()
        async with self.conn.execute("SELECT authors FROM papers") as cursor:
            async for row in cursor:
                names.update(json.loads(row[0]))
        return sorted(names)

    async def papers_generation(self) -> int:
        """A number that every write of a stored paper's title, abstract or authors raises (an insert, a
        replacement): what is built from them is current while it stays the same."""
        async with self.conn.execute("SELECT n FROM papers_generation") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def title_words(self) -> tuple[dict[str, int], dict[str, int]]:
        """The words stored titles write, with how many titles write each: plural-folded as `text_tokens` reads a
        title, and as written (lower case, not folded); each in the order the titles first write them, in storage
        order, a title's own words alphabetical (for the vocabulary typos are corrected against: its look-up breaks
        ties in the order it was given the words)."""
        folded: list[tuple[int, str, int]] = []
        written: list[tuple[int, str, int]] = []
        async with self.conn.execute(
            "SELECT word, folded, written, first_folded, first_written FROM title_words"
        ) as cursor:
            async for word, folded_count, written_count, first_folded, first_written in cursor:
                if folded_count > 0:
                    folded.append((first_folded, word, folded_count))
                if written_count > 0:
                    written.append((first_written, word, written_count))
        return {w: n for _, w, n in sorted(folded)}, {w: n for _, w, n in sorted(written)}

    async def written_words(self, letter: str) -> list[tuple[str, int, bool]]:
        """The words stored titles and abstracts write that start with `letter` (lower case, as written: split at
        anything but a letter, not stemmed), each with how many papers write it and whether a title does (for the
        words papers write, typos are corrected against). Read from the index of written words, one letter's range
        of it: the cost is that letter's share of the vocabulary, not every abstract. `letter` may be a longer
        prefix: the words starting with it."""
        # views of the index's vocabulary live in this connection's temp schema: its words (a paper counted once
        # whichever field writes it) and its words by field
        await self.conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.papers_words_rows USING fts5vocab(main, papers_words, row)"
        )
        await self.conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.papers_words_fields USING fts5vocab(main, papers_words, col)"
        )
        # UTF-8 keeps code point order: the words starting with `letter`
        bounds = (letter, letter[:-1] + chr(ord(letter[-1]) + 1))
        async with self.conn.execute(
            "SELECT term, doc FROM temp.papers_words_rows WHERE term >= ? AND term < ?", bounds
        ) as cursor:
            rows = await cursor.fetchall()
        async with self.conn.execute(
            "SELECT term FROM temp.papers_words_fields WHERE term >= ? AND term < ? AND col = 'title'", bounds
        ) as cursor:
            in_titles = {r[0] for r in await cursor.fetchall()}
        return [(r[0], int(r[1]), r[0] in in_titles) for r in rows]

    async def papers_writing(self, words: Sequence[str]) -> int:
        """How many stored papers write any of `words` as written (lower case, unstemmed) in title or abstract."""
        match = " OR ".join(f'"{w}"' for w in (w.replace('"', "").strip() for w in words) if w)
        if not match:
            return 0
        async with self.conn.execute(
            "SELECT COUNT(*) FROM papers_words WHERE papers_words MATCH ?", (match,)
        ) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def lexical_search(
        self, groups: Sequence[Sequence[str]], start: dt.date | None, end: dt.date | None, limit: int
    ) -> list[tuple[str, float]]:
        """BM25 full-text matches within the date window, best first: (id, relevance > 0).

        `groups` are alternatives: a paper matches when it contains every word (or phrase) of some group.
        Requiring all words of a group keeps the match set small, which is what keeps BM25 fast at 100k papers.
        """
        clauses = [clause for clause in map(fts_all_of, groups) if clause]
        if not clauses:
            return []
        low, high = day_bounds(start, end)
        # Papers are stored day by day, so a window's rows sit in a narrow rowid range; bounding the full-text
        # match by it lets FTS5 skip the rest of the archive (the announced test below keeps it exact).
        # bm25() is lower-is-better and negative; titles weigh most, then authors, then abstracts.
        async with self.conn.execute(
            "SELECT p.id, -bm25(papers_fts, 8.0, 1.0, 3.0) AS relevance FROM papers_fts"
            " JOIN papers p ON p.rowid = papers_fts.rowid"
            " WHERE papers_fts MATCH :match"
            " AND papers_fts.rowid BETWEEN (SELECT min(rowid) FROM papers WHERE announced BETWEEN :low AND :high)"
            " AND (SELECT max(rowid) FROM papers WHERE announced BETWEEN :low AND :high)"
            " AND p.announced BETWEEN :low AND :high ORDER BY relevance DESC LIMIT :limit",
            {"match": " OR ".join(clauses), "low": low, "high": high, "limit": limit},
        ) as cursor:
            return [(r[0], float(r[1])) async for r in cursor]

    async def papers_by_author(
        self, name_tokens: Sequence[str], start: dt.date | None, end: dt.date | None, limit: int = 500
    ) -> list[Paper]:
        """Papers in the window with an author whose name contains every token (full-text match on authors)."""
        every_token = fts_all_of(name_tokens)
        if not every_token:
            return []
        match = "authors : " + every_token
        low, high = day_bounds(start, end)
        async with self.conn.execute(
            "SELECT p.* FROM papers_fts JOIN papers p ON p.rowid = papers_fts.rowid"
            " WHERE papers_fts MATCH ? AND p.announced BETWEEN ? AND ? ORDER BY p.announced DESC LIMIT ?",
            (match, low, high, limit),
        ) as cursor:
            return [paper_from_row(r) async for r in cursor]

    async def document_frequencies(self, words: Sequence[str]) -> dict[str, int]:
        """How many stored papers mention each word in title or abstract (full-text index, stemmed)."""
        counts: dict[str, int] = {}
        for word in words:
            phrase = fts_all_of([word])
            if not phrase:
                continue
            async with self.conn.execute(
                "SELECT COUNT(*) FROM papers_fts WHERE papers_fts MATCH ?", ("{title abstract} : " + phrase,)
            ) as cursor:
                row = await cursor.fetchone()
            counts[word] = int(row[0]) if row else 0
        return counts

    async def term_document_frequencies(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many stored papers hold each full-text index term (porter-stemmed, as the index tokenizes; title,
        abstract or authors), and how many papers are stored."""
        # the index's own vocabulary, one lookup per term: a view of it lives in this connection's temp schema
        await self.conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.papers_terms USING fts5vocab(main, papers_fts, row)"
        )
        counts: dict[str, int] = {}
        for chunk in chunks(list(dict.fromkeys(terms))):
            async with self.conn.execute(
                f"SELECT term, doc FROM temp.papers_terms WHERE term IN ({placeholders(len(chunk))})", chunk
            ) as cursor:
                counts.update({r[0]: int(r[1]) async for r in cursor})
        async with self.conn.execute("SELECT COUNT(*) FROM papers") as cursor:
            row = await cursor.fetchone()
        return counts, int(row[0]) if row else 0

    async def co_frequency(self, units: Sequence[Sequence[str]]) -> int:
        """How many stored papers mention every unit in title or abstract, a unit being any of its spellings
        (full-text index, stemmed)."""
        clauses = [" OR ".join(fts_all_of([s]) for s in spellings if fts_all_of([s])) for spellings in units]
        if not clauses or not all(clauses):
            return 0
        match = " AND ".join(f"({clause})" for clause in clauses)
        async with self.conn.execute(
            "SELECT COUNT(*) FROM papers_fts WHERE papers_fts MATCH ?", ("{title abstract} : (" + match + ")",)
        ) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def tldrs(self, ids: Sequence[str]) -> dict[str, str]:
        """Stored TL;DRs for `ids` (papers without one are absent)."""
        found: dict[str, str] = {}
        for chunk in chunks(list(ids)):
            async with self.conn.execute(
                f"SELECT id, tldr FROM papers WHERE tldr IS NOT NULL AND id IN ({placeholders(len(chunk))})", chunk
            ) as cursor:
                found.update({r["id"]: r["tldr"] async for r in cursor})
        return found

    async def set_tldrs(self, tldrs: dict[str, str], source: str) -> None:
        """Store TL;DRs produced by `source` ('extractive' or a model name)."""
        if not tldrs:
            return
        async with self.transaction() as conn:
            await conn.executemany(
                "UPDATE papers SET tldr=?, tldr_source=? WHERE id=?",
                [(text, source, paper_id) for paper_id, text in tldrs.items()],
            )

    async def tldrs_with_sources(self, ids: Sequence[str]) -> dict[str, tuple[str, str | None]]:
        """Stored TL;DRs for `ids` and who wrote each ('extractive', a model name or None for unknown); papers
        without one are absent."""
        found: dict[str, tuple[str, str | None]] = {}
        for chunk in chunks(list(ids)):
            async with self.conn.execute(
                "SELECT id, tldr, tldr_source FROM papers WHERE tldr IS NOT NULL"
                f" AND id IN ({placeholders(len(chunk))})",
                chunk,
            ) as cursor:
                found.update({r["id"]: (r["tldr"], r["tldr_source"]) async for r in cursor})
        return found
