"""Every stored paper's vectors made from its current text: embedded once, in chunks, and brought up to date.

A paper has its vector (Chroma, `bot.store.vectors`, with a copy in SQLite for reading a window quickly,
`bot.store.vector_copies`) and, when `Settings.sentence_vectors` is on, its sentence vectors (SQLite,
`bot.store.sentences`): its title and each abstract sentence embedded apart. Both are embedded in one model call per
chunk (the title's vector serves both) and written per chunk (Chroma first, then the copies and sentence vectors in one
SQLite transaction), so an interrupted ingest keeps what it finished, and what it did not finish is found missing and
embedded by the next one. A paper whose vector is current but has no copy is given one read from Chroma.

Vectors are written by one process at a time, the one holding the archive's writer lock
(`bot.store.archive_lock.vector_writes`), and nothing is embedded under it: an ingest, refresh or repair takes it
to read what is missing and for each chunk's write (a command that writes holds it throughout anyway), so the
console's first load never keeps a ranking elsewhere from storing its vectors for minutes. A ranking embeds what it
found missing first, so a reader (a CLI `digest`, `eval` or the console) never keeps the running bot or an ingest
from starting while it embeds; it then stores those vectors only when it can take the lock at once. Both write only
what is still missing or stale under the lock, and never an older text's vectors over a newer one's; beside another
writer a ranking ranks with the vectors it made and leaves storing them to that writer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bot.embeddings.embedder import combine_vectors
from bot.models import Paper
from bot.store.archive_lock import vector_writes, vector_writes_if_free
from bot.store.vector_copies import VectorCopies
from bot.text.extractive import split_sentences

if TYPE_CHECKING:
    from bot.core import Core
    from bot.store.repos import VectorCopyRow

log = logging.getLogger(__name__)
EMBED_CHUNK = 128  # papers embedded and written per step, so an interrupted ingest keeps what it finished
COPY_CHUNK = 1000  # vectors read from Chroma and copied to SQLite per step
MAX_SENTENCES = 40  # sentence vectors kept per paper, title included (an abstract has ~8; a run-on one is bounded)

Progress = Callable[[int, int], None]
Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True, slots=True)
class Embedded:
    """What `ensure_vectors` embedded: papers given their vector anew (their sentence vectors too, when kept), and
    papers whose vector was current that were given only their missing sentence vectors."""

    papers: int = 0
    sentences_only: int = 0

    def __add__(self, other: Embedded) -> Embedded:
        return Embedded(self.papers + other.papers, self.sentences_only + other.sentences_only)

    def phrase(self, embedded: str = "embedded") -> str:
        """'3 embedded' and, when there were some, ', 5 given only their sentence vectors'."""
        said = f"{self.papers} {embedded}"
        if self.sentences_only:
            said += f", {self.sentences_only} given only their sentence vectors"
        return said


def paper_sentences(paper: Paper) -> list[str]:
    """What a paper is read as sentence by sentence: its title, then each abstract sentence (`SENTENCE_RECIPE`)."""
    return [paper.title, *split_sentences(paper.abstract)][:MAX_SENTENCES]


def embed_papers(embed: Embed, whole: Sequence[Paper], split: Sequence[Paper]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The paper vectors of `whole` (`paper_vectors`) and the sentence matrices of `split`, in one model call.

    A paper in both has its title embedded once: the title vector is a part of its paper vector and row 0 of its
    sentence matrix.
    """
    titled = list(dict.fromkeys([*(p.id for p in whole), *(p.id for p in split)]))
    titles = {p.id: p.title for p in [*whole, *split]}
    rest = [paper_sentences(p)[1:] for p in split]
    texts = [p.text for p in whole] + [titles[i] for i in titled] + [s for sentences in rest for s in sentences]
    vectors = np.asarray(embed(texts), dtype=np.float32)
    title_row = {paper_id: len(whole) + k for k, paper_id in enumerate(titled)}
    paper_vecs = combine_vectors(vectors[: len(whole)], vectors[[title_row[p.id] for p in whole]])
    matrices, start = [], len(whole) + len(titled)
    for paper, sentences in zip(split, rest, strict=True):
        matrices.append(np.vstack([vectors[title_row[paper.id]][None, :], vectors[start : start + len(sentences)]]))
        start += len(sentences)
    return paper_vecs, matrices


async def ensure_vectors(
    core: Core, papers: Sequence[Paper], progress: Progress | None = None, *, sentences: bool = False
) -> Embedded:
    """Embed and store vectors for the papers whose current text has none yet; returns how many papers were embedded
    and how many had a current vector and were given only their sentence vectors.

    With `sentences` (ingest, refresh and repair; not ranking, which must stay quick) the papers' sentence vectors
    are brought up to date too, when `Settings.sentence_vectors` is on. Writes under the archive's writer lock
    (`vector_writes`), taken for each chunk's write and not while embedding, so that another writer (a ranking
    storing what it embedded) waits for one chunk, never for the whole run, and this one waits for such a reader's
    store in turn: StateError naming the holder when another process that writes holds it, before anything is
    embedded, or at a chunk (what was written before it stays).
    """
    copies = VectorCopies(core.repo, core.embedder)
    async with vector_writes(core.settings, past_readers=True):  # refused here, before embedding, beside a writer
        plan = await _plan(core, papers, copies, sentences)
    # similar lengths in one batch waste less padding: sort by text length before chunking
    todo = sorted((p for p in papers if p.id in plan.whole or p.id in plan.split), key=lambda p: len(p.text))
    done, written = 0, Embedded()
    for start in range(0, len(todo), EMBED_CHUNK):
        chunk = todo[start : start + EMBED_CHUNK]
        embedded = [p for p in chunk if p.id in plan.whole]
        read = [p for p in chunk if p.id in plan.split]
        vectors, matrices = await asyncio.to_thread(embed_papers, core.embedder.embed, embedded, read)
        async with vector_writes(core.settings, past_readers=True):
            written += await _write_chunk(core, copies, plan, (embedded, vectors), (read, matrices))
        done += len(chunk)
        # a progress bar shows only on a terminal: the log says how far a slow or stopped ingest came
        log.info("vectors: %d of %d papers embedded and stored", done, len(todo))
        if progress:
            progress(done, len(todo))
    return written


async def ranking_vectors(core: Core, papers: Sequence[Paper]) -> np.ndarray:
    """The vectors of `papers`, in their order, embedding those without a current one (as `ensure_vectors`, without
    sentence vectors).

    The embedding runs without the archive's writer lock, which is taken (without waiting) only to store what was
    embedded. While another process holds it, what is embedded is only returned: that process is the one writer of
    the archive's vectors, and two writing the same papers' could leave a paper's vector from one text beside its
    copy from another."""
    ids = [p.id for p in papers]
    stored = await core.vectors.stored_hashes(ids)
    fresh = list({p.id: p for p in papers if stored.get(p.id) != p.vector_key}.values())
    if not fresh:
        return await core.vectors.vectors(ids)
    made = await _embedded(core, fresh)
    async with vector_writes_if_free(core.settings) as writing:
        if writing:
            await _store_embedded(core, fresh, made, stored)
    if not writing:
        log.info("vectors: %d papers embedded and not stored (another process writes this archive)", len(made))
    # read again: what is stored now for a paper's text is what the archive ranks with (another ranking or the writer
    # may have stored it meanwhile); the writer may also have removed vectors read as current above (`db --repair`
    # rebuilds the store), and those are embedded here, as the ones without a current vector were
    current = await core.vectors.stored_hashes(ids)
    found = await core.vectors.found_vectors([p.id for p in papers if current.get(p.id) == p.vector_key])
    made |= await _embedded(core, list({p.id: p for p in papers if p.id not in found and p.id not in made}.values()))
    return np.asarray([found[p.id] if p.id in found else made[p.id] for p in papers], dtype=np.float32)


async def _embedded(core: Core, papers: Sequence[Paper]) -> dict[str, np.ndarray]:
    """The paper vectors of `papers` by id (no sentence vectors), embedded off the event loop."""
    if not papers:
        return {}
    vectors, _ = await asyncio.to_thread(embed_papers, core.embedder.embed, papers, [])
    return {p.id: v for p, v in zip(papers, vectors, strict=True)}


async def _store_embedded(
    core: Core, papers: Sequence[Paper], made: dict[str, np.ndarray], read: dict[str, str]
) -> None:
    """Store the vectors `made` for `papers` (with their copies), under the writer lock, chunk by chunk as
    `ensure_vectors` writes (`_write_chunk`): only those whose stored vector is still what was `read` before
    embedding and whose stored paper is still the text embedded (or not stored at all)."""
    copies = VectorCopies(core.repo, core.embedder)
    plan = _Plan(read, {p.id for p in papers}, set())
    stored = 0
    for start in range(0, len(papers), EMBED_CHUNK):
        chunk = list(papers[start : start + EMBED_CHUNK])
        vectors = np.asarray([made[p.id] for p in chunk], dtype=np.float32)
        stored += (await _write_chunk(core, copies, plan, (chunk, vectors), ([], []))).papers
    log.info("vectors: %d papers embedded and stored", stored)


@dataclass(slots=True)
class _Plan:
    """What `ensure_vectors` found to embed: the papers given their vector anew (`whole`) and those given their
    sentence vectors (`split`), with each paper's vector key read before embedding (`read`)."""

    read: dict[str, str]
    whole: set[str]
    split: set[str]


async def _plan(core: Core, papers: Sequence[Paper], copies: VectorCopies, sentences: bool) -> _Plan:
    """Read what `papers` lack, relabel and copy the vectors they keep. Called under the writer lock."""
    ids = [p.id for p in papers]
    metadata = await core.vectors.stored_metadata(ids)
    read = {i: str(m.get("content_hash", "")) for i, m in metadata.items()}
    whole = {p.id for p in papers if read.get(p.id) != p.vector_key}
    await core.vectors.relabel([p for p in papers if p.id not in whole], metadata)
    split: set[str] = set()
    if sentences:
        await _copy_vectors(core, copies, [p for p in papers if p.id not in whole])
    if sentences and core.settings.sentence_vectors:
        current = await core.sentences.current(ids)
        split = {p.id for p in papers if p.id not in current}
    return _Plan(read, whole, split)


async def _write_chunk(
    core: Core,
    copies: VectorCopies,
    plan: _Plan,
    whole: tuple[list[Paper], np.ndarray],
    split: tuple[list[Paper], list[np.ndarray]],
) -> Embedded:
    """Store one chunk's paper vectors (Chroma), then their copies and sentence vectors (one SQLite transaction): only
    those whose stored vector is still what the plan read (no one stored one meanwhile) and whose stored paper is still
    the text embedded (a newer text is not given an older one's vectors). Called under the writer lock."""
    (embedded, vectors), (read, matrices) = whole, split
    texts = {p.id: p.content_hash for p in await core.repo.get_papers([p.id for p in [*embedded, *read]])}
    now = await core.vectors.stored_hashes([p.id for p in embedded])
    keep = [
        i
        for i, p in enumerate(embedded)
        if now.get(p.id) == plan.read.get(p.id) and texts.get(p.id, p.content_hash) == p.content_hash
    ]
    kept = [embedded[i] for i in keep]
    sentenced = [i for i, p in enumerate(read) if texts.get(p.id, p.content_hash) == p.content_hash]
    if len(keep) < len(embedded) or len(sentenced) < len(read):
        log.info(
            "vectors: %d papers were stored meanwhile or changed",
            len(embedded) + len(read) - len(keep) - len(sentenced),
        )
    tldrs = await core.repo.tldrs([p.id for p in kept])  # read now: a TL;DR written meanwhile is not put back
    await core.vectors.upsert(kept, vectors[keep], [tldrs.get(p.id, "") for p in kept])
    await core.sentences.save(
        [read[i] for i in sentenced], [matrices[i] for i in sentenced], await _copy_rows(core, copies, kept)
    )
    return Embedded(len(kept), sum(1 for i in sentenced if read[i].id not in plan.whole))


async def _copy_rows(core: Core, copies: VectorCopies, papers: Sequence[Paper]) -> list[VectorCopyRow]:
    """The copy rows of `papers`' vectors as Chroma returns them: it normalises a cosine collection's vectors again,
    which moves the last bit of some components, and a copy must be what a window read from Chroma would give."""
    found = await core.vectors.found_vectors([p.id for p in papers]) if papers else {}
    held = [p for p in papers if p.id in found]
    return copies.rows(held, np.asarray([found[p.id] for p in held], dtype=np.float32)) if held else []


async def _copy_vectors(core: Core, copies: VectorCopies, papers: Sequence[Paper]) -> None:
    """Give the papers among `papers` whose current vector has no current copy in SQLite one, read from Chroma."""
    have = await copies.found([p.id for p in papers])
    lacking = [p for p in papers if p.id not in have]
    for start in range(0, len(lacking), COPY_CHUNK):
        rows = await _copy_rows(core, copies, lacking[start : start + COPY_CHUNK])
        if rows:
            await core.repo.save_vector_rows((), rows)


async def refresh_vectors(core: Core, progress: Progress | None = None) -> tuple[int, Embedded]:
    """Bring every stored paper's vectors up to date (missing, or made from an older text or recipe), day by day,
    sentence vectors included (newest day first: the digests and questions of the coming days read those first).

    Returns (papers looked at, what was embedded). Interrupting it loses nothing: a later run continues.
    """
    seen, embedded = 0, Embedded()
    for day in reversed(await core.repo.announcement_days()):
        papers = await core.repo.papers_on(day)
        seen += len(papers)
        embedded += await ensure_vectors(core, papers, progress, sentences=True)
    return seen, embedded
