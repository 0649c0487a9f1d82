"""The Chroma vector store: one vector per paper, with filterable metadata.

Chroma's Python client is synchronous, so every call runs in a worker thread to keep the event loop (and the
chat adapters on it) responsive. By default the store is a `PersistentClient` under the state directory; with
`PAPERSCOUT_CHROMA_URL` it is an `HttpClient` to a Chroma server.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import fcntl
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

import numpy as np

from bot.config import Settings
from bot.embeddings.embedder import ChromaEmbeddingAdapter, Embedder
from bot.errors import ConfigError, StateError, thread_refused
from bot.models import Paper, day_to_int
from bot.store.window_index import DayRanges, DaySpan, WindowIndex

if TYPE_CHECKING:
    from bot.store.vector_copies import VectorCopies

log = logging.getLogger(__name__)

CHECK_PAGE = 1000  # vectors read per call when `paperscout db` checks the store
LOAD_PAGE = 1000  # vectors read per call when the window index is loaded (bench/retrieval.py)
CATEGORY_FLAG = "cat_"  # metadata key prefix: {"cat_cs.LG": True} lets `where` filter on one category
LOCK_FILE = "vectors.lock"
T = TypeVar("T")


def category_key(category: str) -> str:
    """The metadata key that marks a paper as listed in `category`."""
    return CATEGORY_FLAG + category


def day_range_filter(low: int | None, high: int | None) -> dict[str, Any] | None:
    """A Chroma `where` clause for papers announced in [low, high] (yyyymmdd ints, None an open end)."""
    clauses: list[dict[str, Any]] = []
    if low is not None:
        clauses.append({"announced": {"$gte": low}})
    if high is not None:
        clauses.append({"announced": {"$lte": high}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def paper_metadata(paper: Paper, tldr: str = "") -> dict[str, Any]:
    """The metadata stored next to a paper's vector (filterable fields are ints/bools)."""
    meta: dict[str, Any] = {
        "title": paper.title[:500],
        "authors": "; ".join(paper.authors)[:2000],
        "announced": day_to_int(paper.announced),
        "primary_category": paper.primary_category,
        "categories": " ".join(paper.categories),
        "content_hash": paper.vector_key,
    }
    if tldr:
        meta["tldr"] = tldr[:600]
    for category in paper.categories:
        meta[category_key(category)] = True
    return meta


def changed_labels(paper: Paper, stored: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata fields of `paper` (`paper_metadata`, without a TL;DR) that differ from `stored`, with the category
    flags it is no longer listed in set to None (an update removes them); empty when nothing changed."""
    fields = {k: v for k, v in paper_metadata(paper).items() if stored.get(k) != v}
    listed = {category_key(c) for c in paper.categories}
    fields |= {k: None for k in stored if k.startswith(CATEGORY_FLAG) and k not in listed}
    return fields


@dataclass(frozen=True, slots=True)
class VectorHit:
    """One nearest-neighbour result."""

    id: str
    similarity: float
    metadata: dict[str, Any]


@contextlib.contextmanager
def store_lock(settings: Settings) -> Iterator[None]:
    """Hold the embedded store's cross-process lock for one Chroma call (nothing to hold with a Chroma server).

    The embedded store is not safe for two processes at once, even when only one writes: each process applies
    the store's log to its own copy of the vector index once, on its first read, and may save that copy to disk,
    while another process's write updates the shared metadata at once. A read interleaved with a write can load
    half-saved index files, and a later read sees ids its copy lacks ("Error finding id"). Every call from every
    process holds this `flock` (threads of one process too: each call opens its own file description), so a call
    sees the store between writes, never during one.
    """
    if settings.chroma_url:
        yield
        return
    path = settings.home / LOCK_FILE
    try:
        settings.home.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - held open for the block
    except OSError as exc:
        raise StateError(f"cannot open the vector store's lock file {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        handle.close()  # closing the file releases the lock


def _is_stale_view(exc: Exception) -> bool:
    """Whether `exc` is Chroma's error for an id this process's copy of the index lacks."""
    return type(exc).__name__ == "InternalError" and type(exc).__module__.startswith("chromadb")


def chroma_client(settings: Settings) -> Any:
    """A Chroma client for `settings`: an `HttpClient` when `chroma_url` is set, else the embedded store under home.

    The embedded store's directory is created when missing; a server is contacted at once (Chroma checks its
    tenant), so an unreachable one raises here.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings
    from chromadb.utils.embedding_functions import register_embedding_function

    register_embedding_function(ChromaEmbeddingAdapter)

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_url:
        url = urlparse(settings.chroma_url)
        if not url.hostname:
            raise ConfigError(f"PAPERSCOUT_CHROMA_URL is not a URL: {settings.chroma_url!r}")
        return chromadb.HttpClient(
            host=url.hostname,
            port=url.port or (443 if url.scheme == "https" else 8000),
            ssl=url.scheme == "https",
            settings=chroma_settings,
        )
    settings.chroma_path.mkdir(parents=True, exist_ok=True)
    try:
        return chromadb.PersistentClient(path=str(settings.chroma_path), settings=chroma_settings)
    except Exception as exc:  # Chroma raises assorted errors for a damaged directory
        refused = thread_refused(exc)  # not a damaged directory: a repair would not help
        if refused is not None:
            raise refused from None
        raise StateError(
            f"cannot open the vector store at {settings.chroma_path}: {exc}; "
            "paperscout db --repair rebuilds it from the stored papers"
        ) from None


class VectorStore:
    """Paper vectors and metadata in a Chroma collection; all methods are async and thread-offloaded."""

    def __init__(self, settings: Settings, embedder: Embedder, copies: VectorCopies | None = None) -> None:
        self.settings = settings
        self.embedder = embedder
        self.copies = copies  # the vectors' copies in SQLite, which a window is read from when they hold all of it
        self._client: Any = None
        self._collection: Any = None
        self._lock = asyncio.Lock()
        self._index: WindowIndex | None = None
        self._loaded = DayRanges()  # the announcement days `_index` holds every stored vector of
        self._index_lock = asyncio.Lock()

    def _open_sync(self) -> Any:
        # the client opened before is closed first, and a client whose collection does not open is closed too: an
        # embedded store is read afresh only by a process's one open client (Chroma shares it per directory)
        self._close_client()
        client = chroma_client(self.settings)
        try:
            collection = client.get_or_create_collection(
                name=self.settings.chroma_collection,
                embedding_function=ChromaEmbeddingAdapter(self.embedder),  # type: ignore[arg-type]
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"embedding_model": self.embedder.name},
            )
        except BaseException:
            with contextlib.suppress(Exception):
                client.close()
            raise
        self._client = client
        return collection

    def _close_client(self) -> None:
        client, self._client, self._collection = self._client, None, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()

    def _open_locked(self) -> Any:
        with store_lock(self.settings):
            return self._open_sync()

    async def collection(self) -> Any:
        """The Chroma collection, opened on first use."""
        async with self._lock:
            if self._collection is None:
                self._collection = await asyncio.to_thread(self._open_locked)
            return self._collection

    def _reopen_sync(self) -> Any:
        """A new client and collection, so the next read applies the store's log again (see `store_lock`)."""
        self._collection = self._open_sync()
        return self._collection

    def _call_sync(self, op: Callable[[Any], T], retry: bool) -> T:
        with store_lock(self.settings):
            collection = self._collection
            if collection is None:  # a reopen failed since `collection()` opened it: open it again
                collection = self._collection = self._open_sync()
            try:
                return op(collection)
            except Exception as exc:
                # another process wrote after this one first read: read again from a fresh copy, still locked
                if not (retry and _is_stale_view(exc)):
                    raise
                log.info("the vector store changed since this process first read it; reading it again")
                return op(self._reopen_sync())

    async def _read(self, op: Callable[[Any], T], *, retry: bool = True) -> T:
        """Run `op(collection)` in a worker thread under the store lock; a stale view is reopened and read again."""
        await self.collection()
        return await asyncio.to_thread(self._call_sync, op, retry)

    async def _write(self, op: Callable[[Any], T]) -> T:
        """Run `op(collection)` in a worker thread under the store lock."""
        await self.collection()
        return await asyncio.to_thread(self._call_sync, op, False)

    async def stored_hashes(self, ids: Sequence[str]) -> dict[str, str]:
        """Map each stored id among `ids` to what its vector was computed from (`Paper.vector_key`)."""
        return {i: str(m.get("content_hash", "")) for i, m in (await self.stored_metadata(ids)).items()}

    async def stored_metadata(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The metadata stored beside each stored id among `ids` (`paper_metadata`), by id."""
        if not ids:
            return {}
        result = await self._read(lambda c: c.get(ids=list(ids), include=["metadatas"]))
        return {i: dict(m or {}) for i, m in zip(result["ids"], result["metadatas"], strict=True)}

    async def upsert(self, papers: Sequence[Paper], vectors: np.ndarray, tldrs: Sequence[str] | None = None) -> None:
        """Store vectors and metadata for `papers` (row i of `vectors` belongs to papers[i])."""
        if not papers:
            return
        metas = [paper_metadata(p, (tldrs[i] if tldrs else "")) for i, p in enumerate(papers)]
        await self._write(
            lambda c: c.upsert(
                ids=[p.id for p in papers],
                embeddings=[v for v in vectors],
                metadatas=metas,
                documents=[p.text for p in papers],
            )
        )
        # under the index lock: a load running now has either read these rows or will get them here, never neither
        async with self._index_lock:
            if self._index is not None:
                self._index.upsert(
                    [p.id for p in papers],
                    [day_to_int(p.announced) for p in papers],
                    vectors,
                    [p.categories for p in papers],
                )

    def _load_index(
        self, collection: Any, spans: Sequence[DaySpan], listed: dict[str, tuple[str, ...]] | None = None
    ) -> int:
        """Read every stored vector announced in `spans` into the window index; how many were read.

        A paper's categories are taken from `listed` (the stored papers', `VectorCopies.listed`) when it is there,
        so a window filters on the same categories read from here or from the copies; else from the metadata.

        Called inside one `_read`: all the spans come from one snapshot of the store. A retried call (stale view)
        reads them again, and the index replaces rows by id. The ids come first, then vectors and metadata by id
        a page at a time: Chroma evaluates a `where` clause over the whole store on every call (paging it with
        offsets repeats that), a page by id costs only its rows, and small pages keep the memory peak low.
        """
        index = self._index
        assert index is not None, "the window index is created before it is loaded"
        read = 0
        for low, high in spans:
            ids = collection.get(where=day_range_filter(low, high), include=[])["ids"]
            index.reserve(len(ids))
            for start in range(0, len(ids), LOAD_PAGE):
                batch = collection.get(ids=ids[start : start + LOAD_PAGE], include=["embeddings", "metadatas"])
                metas = [m or {} for m in batch["metadatas"]]
                index.upsert(
                    batch["ids"],
                    [int(m.get("announced", 0)) for m in metas],
                    np.asarray(batch["embeddings"], dtype=np.float32),
                    [
                        listed[i] if listed and i in listed else str(m.get("categories", "")).split()
                        for i, m in zip(batch["ids"], metas, strict=True)
                    ],
                )
            read += len(ids)
        return read

    async def window_index(self, since: dt.date | None = None, until: dt.date | None = None) -> WindowIndex:
        """The in-memory date-window index, holding at least every stored vector announced in [since, until].

        An open end reaches the first (last) stored day; no window at all means the whole store. Only the days not
        loaded yet are read: from the vectors' copies in SQLite when every paper of those days has a current one
        (`bot.store.vector_copies`; Chroma is then not even opened), else from Chroma. upsert/delete keep the loaded
        rows in step (and add rows of other days).
        """
        low = day_to_int(since) if since else None
        high = day_to_int(until) if until else None
        async with self._index_lock:
            if self._index is None:
                self._index = WindowIndex(self.embedder.dim)
                self._loaded.clear()
            missing = self._loaded.missing(low, high)
            if missing and await self._load_copies(missing):
                self._loaded.add(low, high)
            elif missing:
                # every missing span in one locked call: what a window adds is one snapshot of the store
                listed = {k: v for low, high in missing for k, v in (await self._listed(low, high)).items()}
                read = await self._read(lambda c: self._load_index(c, missing, listed))
                self._loaded.add(low, high)
                log.info("window index: %d vectors read for days %s; %d held", read, missing, len(self._index))
            return self._index

    async def _listed(self, low: int | None, high: int | None) -> dict[str, tuple[str, ...]]:
        """The stored papers' categories in [low, high] (none without the copies' database)."""
        return await self.copies.listed(low, high) if self.copies is not None else {}

    async def _load_copies(self, spans: Sequence[DaySpan]) -> bool:
        """Load the window index with the copies of every paper announced in `spans`; False (nothing loaded) when
        one of them has no current copy. Called under the index lock."""
        if self.copies is None:
            return False
        found = [await self.copies.window(low, high) for low, high in spans]
        if any(window is None for window in found):
            return False
        index = self._index
        assert index is not None, "the window index is created before it is loaded"
        for window in found:
            assert window is not None
            index.reserve(len(window.ids))
            index.upsert(window.ids, window.days, window.vectors, window.categories)
        log.info("window index: %d vector copies read for days %s", sum(len(w.ids) for w in found if w), spans)
        return True

    async def search_window(
        self,
        vector: np.ndarray,
        n_results: int,
        since: dt.date | None = None,
        until: dt.date | None = None,
        categories: Sequence[str] = (),
    ) -> list[tuple[str, float]]:
        """Most similar papers announced in [since, until] (and in any of `categories`): (id, cosine) pairs.

        Unfiltered questions go to Chroma's HNSW index; windowed ones to the exact in-memory window index.
        """
        if since is None and until is None and not categories:
            return [(h.id, h.similarity) for h in await self.query(vector, n_results)]
        index = await self.window_index(since, until)
        low = day_to_int(since) if since else None
        high = day_to_int(until) if until else None
        return await asyncio.to_thread(index.search, vector, n_results, low, high, list(categories))

    async def relabel(self, papers: Sequence[Paper], stored: Mapping[str, dict[str, Any]]) -> None:
        """Bring what is stored beside the kept vectors of `papers` (as stored now) up to date: the metadata whose
        `stored` fields differ (`paper_metadata`; a TL;DR is kept), and the loaded window's days and categories. A new
        version with the same text (other authors, cross-listed since) is not embedded again, yet it is filtered on."""
        changed = [(p.id, fields) for p in papers if p.id in stored and (fields := changed_labels(p, stored[p.id]))]
        for start in range(0, len(changed), CHECK_PAGE):  # a repair relabels a whole older store: in bounded calls
            page = changed[start : start + CHECK_PAGE]
            await self.update_metadata([i for i, _ in page], [fields for _, fields in page])
        async with self._index_lock:
            if self._index is not None and papers:
                self._index.relabel(
                    [p.id for p in papers], [day_to_int(p.announced) for p in papers], [p.categories for p in papers]
                )

    async def update_metadata(self, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]) -> None:
        """Merge new metadata fields (e.g. a TL;DR) into stored papers without touching their vectors."""
        if not ids:
            return
        await self._write(lambda c: c.update(ids=list(ids), metadatas=list(metadatas)))

    async def vectors(self, ids: Sequence[str]) -> np.ndarray:
        """Stored vectors for `ids`, in the order given; raises StateError when one is missing."""
        if not ids:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        by_id = await self.found_vectors(ids)
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise StateError(
                f"{len(missing)} papers have no stored vector (first: {missing[0]}); run paperscout ingest"
            )
        return np.asarray([by_id[i] for i in ids], dtype=np.float32)

    async def window_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors among `ids` that the window index holds (what `search_window` searched with a window).

        Nothing is loaded here: the ids come from a window `search_window` (or `window_index`) has loaded.
        """
        index = self._index
        return index.vectors(ids) if index is not None else {}

    async def found_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors among `ids`, by id (papers not embedded yet are simply absent); one round trip."""
        if not ids:
            return {}
        result = await self._read(lambda c: c.get(ids=list(ids), include=["embeddings"]))
        return {i: np.asarray(v, dtype=np.float32) for i, v in zip(result["ids"], result["embeddings"], strict=True)}

    async def query(self, vector: np.ndarray, n_results: int, where: dict[str, Any] | None = None) -> list[VectorHit]:
        """Nearest papers to `vector`, optionally filtered with a Chroma `where` clause."""

        def nearest(collection: Any) -> dict[str, Any] | None:
            count = collection.count()
            if count == 0:
                return None
            return collection.query(
                query_embeddings=[vector],
                n_results=min(n_results, count),
                where=where,
                include=["metadatas", "distances"],
            )

        result = await self._read(nearest)
        if result is None:
            return []
        return [
            VectorHit(id=i, similarity=1.0 - float(d), metadata=m or {})
            for i, d, m in zip(result["ids"][0], result["distances"][0], result["metadatas"][0], strict=True)
        ]

    async def count(self) -> int:
        """How many papers have a vector."""
        return int(await self._read(lambda c: c.count()))

    async def delete(self, ids: Sequence[str]) -> None:
        """Remove vectors (used when feedback vectors or papers are forgotten)."""
        if ids:
            await self._write(lambda c: c.delete(ids=list(ids)))
            async with self._index_lock:
                if self._index is not None:
                    self._index.delete(ids)

    # --- checks and rebuilds for `paperscout db` (bot/store/repair.py) ---

    def _listing_sync(self, collection: Any) -> dict[str, str]:
        listing: dict[str, str] = {}
        while True:
            batch = collection.get(include=["metadatas"], limit=CHECK_PAGE, offset=len(listing))
            if not batch["ids"]:
                return listing
            listing.update(
                (i, str((m or {}).get("content_hash", "")))
                for i, m in zip(batch["ids"], batch["metadatas"], strict=True)
            )

    async def listing(self) -> dict[str, str]:
        """Every stored id with what its vector says it was made from (`Paper.vector_key`), read page by page."""
        return await self._read(self._listing_sync)

    def _unreadable_sync(self, collection: Any, ids: list[str]) -> list[str]:
        try:
            got = collection.get(ids=ids, include=["embeddings"])
        except Exception:  # e.g. chromadb InternalError "Error finding id": find the ids that cause it
            if len(ids) == 1:
                return ids
            half = len(ids) // 2
            return self._unreadable_sync(collection, ids[:half]) + self._unreadable_sync(collection, ids[half:])
        vectors = dict(zip(got["ids"], got["embeddings"], strict=True))
        bad = []
        for i in ids:
            vector = np.asarray(vectors[i], dtype=np.float32) if i in vectors else None
            whole = vector is not None and vector.shape == (self.embedder.dim,) and np.isfinite(vector).all()
            if not (whole and np.linalg.norm(vector) > 0):
                bad.append(i)
        return bad

    async def unreadable(self, ids: Sequence[str]) -> list[str]:
        """The ids among `ids` whose vector cannot be read back whole (missing, wrong size, not finite, or an error)."""
        bad: list[str] = []
        for start in range(0, len(ids), CHECK_PAGE):
            page = list(ids[start : start + CHECK_PAGE])
            # no second reading: errors are what this looks for. `db --repair` holds the writer lock; a plain `db` does
            # not, but its ids come from `listing`, the read that gave this process its copy of the index
            bad += await self._read(lambda c, page=page: self._unreadable_sync(c, page), retry=False)
        return bad

    async def unsearchable(self, ids: Sequence[str]) -> list[str]:
        """The ids among `ids` that a nearest-neighbour query asking for every stored vector does not return.

        Two processes writing one embedded store each save their own copy of the index, so a store can list a
        paper whose vector the index never returns: searches silently miss it and filtered ones fail.
        """
        probe = np.full(self.embedder.dim, 1.0 / np.sqrt(self.embedder.dim), dtype=np.float32)

        def every_id(collection: Any) -> set[str]:
            count = int(collection.count())
            if not count:
                return set()
            return set(collection.query(query_embeddings=[probe], n_results=count, include=[])["ids"][0])

        found = await self._read(every_id, retry=False)
        return [i for i in ids if i not in found]

    def _rebuild_sync(self) -> None:
        from chromadb.api.shared_system_client import SharedSystemClient

        try:
            if self._client is None:
                self._open_sync()
            self._client.delete_collection(self.settings.chroma_collection)
            return
        except Exception:
            if self.settings.chroma_url:
                raise
            log.warning("the vector store at %s cannot be emptied; setting it aside", self.settings.chroma_path)
        # The embedded directory is damaged beyond deleting a collection: put it aside and start a new one.
        SharedSystemClient.clear_system_cache()
        self._client = None
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d%H%M%S")
        path = self.settings.chroma_path
        if path.exists():
            path.rename(path.with_name(f"{path.name}.damaged-{stamp}"))

    def _rebuild_locked(self) -> None:
        with store_lock(self.settings):
            self._rebuild_sync()

    async def rebuild(self) -> None:
        """Start the collection again empty (deleting it, or setting a damaged embedded directory aside)."""
        async with self._lock:
            await asyncio.to_thread(self._rebuild_locked)
            self._collection = None
        async with self._index_lock:
            self._index = None
            self._loaded.clear()
