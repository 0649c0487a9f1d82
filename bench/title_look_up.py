"""What the typo corrector's look-up of title words costs after an ingest, on a synthetic archive with a large title
vocabulary, and which corrections it gives.

The corrector (`bot.text.spelling.corrected`) looks a typed word up in symspellpy's look-up of the title words
starting with its letter (`TitleVocabulary.look_up`, over the words folded or as written too; before, one look-up
of every title word); a deletes dictionary costs seconds at tens of thousands of words, and the vocabulary is read
anew after each write of papers. This script builds a store of the four shared days' papers `--copies` times under
new ids, each title given two words of the English word list bundled with symspellpy (so the title vocabulary grows
as a real archive's does: tens of thousands of words, not the four days' 3,656), then times, on the tree's code:

- the first question with a word to correct, cold (the look-ups it needs: on a tree indexing title words by first
  letter, those of its words' letters, then the other letters the typos need; on an older tree, both look-ups of
  every title word);
- an ingest of 1,609 new papers (new ids, new English words), then the look-ups again;
- an ingest replacing 1,609 stored titles (each losing its first word and gaining an English word: words dropped,
  moved in the order and added), then the look-ups again;

and prints the corrections of a list of typos (as a question reads them and as an interest does) after each step
and, with `--compare` (an older tree's `bot/text/spelling.py`), whether every typo of a few thousand made from the
title words is corrected as that tree's look-up of every title word corrects it,
so two trees' outputs can be compared line by line; where the look-ups are kept across ingests it also checks them
against look-ups built anew over the same vocabulary.

    PYTHONPATH=$PWD .venv/bin/python bench/title_look_up.py --work /tmp/NAME-tl [--copies 30] [--compare OLD.py]
    # then another tree on the same synthetic store (copied, never written):
    PYTHONPATH=$PWD .venv/bin/python ../wt-NAME/bench/title_look_up.py --work /tmp/NAME-tl2 --synthetic /tmp/NAME-tl
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.util
import random
import shutil
import time
from pathlib import Path

from bot.core import Core
from bot.models import Paper
from bot.questions.spelling import corrected
from bot.ranking.interest_spelling import corrected_interest
from bot.store.connection import open_database
from bot.store.repos import Repository
from bot.text import spelling
from bot.text.terms import _english_counts

DB = "paperscout.sqlite3"
TYPOS = (
    "difusion modles",
    "reinforcment lerning",
    "quantizaton of transfromers",
    "robtic manipulaton",
    "halucination detecton",
    "graph nueral netwroks",
    "semantic segmentaion",
    "tokenizaton",
    "speculatve decodng",
    "federted lerning",
    "multimodel benchmrks",
    "protien strucure",
)


def _copy_store(store: Path, work: Path) -> Path:
    """The SQLite files of `store` copied into `work` (never opened where they are)."""
    _cleared(work)
    for name in (DB, f"{DB}-wal", f"{DB}-shm"):
        if (store / name).exists():
            shutil.copy2(store / name, work / name)
    return work / DB


def _cleared(work: Path) -> None:
    """`work` made, an earlier run's store in it removed."""
    work.mkdir(parents=True, exist_ok=True)
    for name in (DB, f"{DB}-wal", f"{DB}-shm"):
        (work / name).unlink(missing_ok=True)


def _english_words() -> list[str]:
    """Words of the English list that are no common word (past its first 3,000), letters only, four or more."""
    return [w for w in list(_english_counts())[3000:] if w.isalpha() and len(w) >= 4]


def _with_words(papers: list[Paper], suffix: str, rng: random.Random, words: list[str]) -> list[Paper]:
    """The papers under new ids (`suffix`), each title given two English words."""
    return [
        dataclasses.replace(p, id=f"{p.id}{suffix}", title=f"{p.title}: {rng.choice(words)} {rng.choice(words)}")
        for p in papers
    ]


async def _synthetic(source: Path, work: Path, copies: int) -> Path:
    """A store of the source's papers `copies` times over, written through the repository as an ingest writes."""
    path = work / DB
    _cleared(work)
    repo = Repository(await open_database(source))
    try:
        papers = await repo.get_papers(sorted(await repo.all_paper_ids()))
    finally:
        await repo.close()
    rng, words = random.Random(18), _english_words()
    repo = Repository(await open_database(path))
    try:
        start = time.perf_counter()
        for k in range(copies):
            await repo.upsert_papers(_with_words(papers, f"r{k}", rng, words))
        print(f"(synthetic store of {copies} x {len(papers)} papers built in {time.perf_counter() - start:.1f} s)")
    finally:
        await repo.close()
    return path


def _first_letters() -> list[str]:
    """The first letters of the typos' words of four letters or more (the look-ups a question of them needs)."""
    return sorted({w[0] for typo in TYPOS for w in typo.split() if len(w) >= 4})


async def _look_ups(core: Core, what: str) -> spelling.TitleVocabulary:
    """Time reading the vocabulary and making its look-ups, as the first question with a typo does: on a tree with
    look-ups by first letter (`TitleVocabulary.look_up`), those of one question's typo ("difusion modles": d and m)
    first, then every letter the typos start with; on an older tree, the two look-ups of every title word."""
    start = time.perf_counter()
    vocabulary = await spelling.title_vocabulary(core)
    read = time.perf_counter() - start
    head = f"  {what}: {len(vocabulary.counts)} folded / {len(vocabulary.written)} written words; read {read:.3f} s"
    if not hasattr(vocabulary, "look_up"):
        await asyncio.to_thread(lambda: vocabulary.written_speller)
        written = time.perf_counter() - start - read
        await asyncio.to_thread(lambda: vocabulary.speller)
        folded = time.perf_counter() - start - read - written
        print(f"{head}, look-up as written {written:.3f} s, folded {folded:.3f} s")
        return vocabulary
    started = time.perf_counter()
    await asyncio.to_thread(lambda: [vocabulary.look_up(letter, written=True) for letter in "dm"])
    one = time.perf_counter() - started
    started = time.perf_counter()
    await asyncio.to_thread(lambda: [vocabulary.look_up(letter, written=True) for letter in _first_letters()])
    written = time.perf_counter() - started
    started = time.perf_counter()
    await asyncio.to_thread(lambda: [vocabulary.look_up(letter) for letter in _first_letters()])
    folded = time.perf_counter() - started
    letters = "".join(_first_letters())
    print(
        f"{head}, one question's typo (letters d, m as written) {one:.3f} s; then the typos' other letters "
        f"({letters}) as written {written:.3f} s, folded {folded:.3f} s"
    )
    return vocabulary


async def _corrections(core: Core) -> list[str]:
    """Each typo as a question reads it and as an interest does."""
    out = []
    for typo in TYPOS:
        out.append(f"{typo} -> {await corrected(core, typo)} | {await corrected_interest(core, typo)}")
    return out


async def _same_as_built(core: Core, vocabulary: spelling.TitleVocabulary) -> None:
    """Whether the look-ups kept across ingests give what look-ups built anew over this vocabulary give."""
    if not hasattr(spelling, "KeptLookUp"):
        return
    kept = await _corrections(core)
    fresh = spelling.TitleVocabulary(vocabulary.counts, vocabulary.written)
    start = time.perf_counter()
    if hasattr(vocabulary, "look_up"):
        pairs = [
            (vocabulary.look_up(letter, written=written), fresh.look_up(letter, written=written))
            for written, letter in list(vocabulary._spellers)
        ]
    else:
        await asyncio.to_thread(lambda: (fresh.written_speller, fresh.speller))
        pairs = [(vocabulary.speller, fresh.speller), (vocabulary.written_speller, fresh.written_speller)]
    print(f"    (the same look-ups built anew: {time.perf_counter() - start:.3f} s)")
    same = all(
        kept_one.words == new.words and {d: w for d, w in kept_one.deletes.items() if w} == dict(new.deletes)
        for kept_one, new in pairs
    )
    generation = await core.repo.papers_generation()
    core.title_vocabulary[generation] = fresh
    same = same and kept == await _corrections(core)
    core.title_vocabulary[generation] = vocabulary
    print(f"    kept look-ups equal to ones built anew, same corrections: {same}")


def _typo(word: str, rng: random.Random) -> str:
    """`word` with a letter dropped, added, changed, two neighbours swapped, or two of these."""
    if len(word) < 3:
        return word
    k, i, c = rng.randrange(5), rng.randrange(len(word)), rng.choice("abcdefghijklmnopqrstuvwxyz")
    if k == 0:
        return word[:i] + word[i + 1 :]
    if k == 1:
        return word[:i] + c + word[i:]
    if k == 2:
        return word[:i] + c + word[i + 1 :]
    if k == 3 and i < len(word) - 1:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return _typo(_typo(word, rng), rng) if k == 4 else word


def _compared(vocabulary: spelling.TitleVocabulary, older: Path, count: int = 3000) -> None:
    """Whether `count` typos of title words (and a tenth as many title words) are corrected as the older tree's
    `TitleVocabulary` (its look-ups of every title word) corrects them, read both ways."""
    spec = importlib.util.spec_from_file_location("older_spelling", older)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    before = module.TitleVocabulary(vocabulary.counts, vocabulary.written)
    rng = random.Random(27)
    words = [w for w in vocabulary.written if len(w) >= 4]
    typos = [_typo(rng.choice(words), rng) for _ in range(count)] + rng.sample(words, count // 10)
    for written in (False, True):
        start = time.perf_counter()
        old = [before.closest(t, written=written) for t in typos]
        took_old = time.perf_counter() - start
        start = time.perf_counter()
        new = [vocabulary.closest(t, written=written) for t in typos]
        took_new = time.perf_counter() - start
        differ = [(t, a, b) for t, a, b in zip(typos, old, new, strict=True) if a != b]
        print(
            f"  {len(typos)} typos {'as written' if written else 'folded'}: {sum(map(bool, old))} corrected by the"
            f" older tree ({took_old:.1f} s, its look-up built), {len(differ)} corrected otherwise here"
            f" ({took_new:.1f} s) {differ[:5]}"
        )


async def _after_ingest(core: Core, papers: list[Paper], what: str) -> None:
    """Ingest `papers`, then time the next typo question's look-ups and check them against a fresh build."""
    start = time.perf_counter()
    await core.repo.upsert_papers(papers)
    print(f"{what}: {time.perf_counter() - start:.3f} s")
    vocabulary = await _look_ups(core, "the next question with a typo")
    for line in await _corrections(core):
        print(f"    {line}")
    await _same_as_built(core, vocabulary)


async def _measure(path: Path, older: Path | None = None) -> None:
    start = time.perf_counter()
    repo = Repository(await open_database(path))
    print(f"open the store: {time.perf_counter() - start:.3f} s")
    try:
        core = Core(None, repo, None, None)  # type: ignore[arg-type]  # only the store and the caches are read
        print(f"papers stored: {await repo.count_papers()}")
        vocabulary = await _look_ups(core, "first question with a typo, cold")
        for line in await _corrections(core):
            print(f"    {line}")
        if older is not None:
            _compared(vocabulary, older)
        ids = sorted(await repo.all_paper_ids())
        day = await repo.get_papers([i for i in ids if i.endswith("r0")])
        rng, words = random.Random(1809), _english_words()
        new = _with_words([dataclasses.replace(p, id=p.id.removesuffix("r0")) for p in day], "n", rng, words)
        await _after_ingest(core, new, f"an ingest of {len(new)} new papers")
        old = await repo.get_papers([i for i in ids if i.endswith("r1")])
        replaced = [
            dataclasses.replace(
                p, title=f"{p.title.split(' ', 1)[-1]} {rng.choice(words)}", version=(p.version or 1) + 1
            )
            for p in old
        ]
        await _after_ingest(core, replaced, f"an ingest replacing {len(replaced)} titles")
    finally:
        await repo.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=Path("/tmp/final-q"), help="a ready store (copied, not opened)")
    parser.add_argument("--copies", type=int, default=30, help="the synthetic store holds its papers this many times")
    parser.add_argument("--work", type=Path, required=True, help="where the stores go (kept)")
    parser.add_argument("--synthetic", type=Path, help="the --work of an earlier run: its synthetic store, copied")
    parser.add_argument(
        "--compare", type=Path, help="an older tree's bot/text/spelling.py: the corrections of typos compared with it"
    )
    args = parser.parse_args()
    if args.synthetic:
        built = args.synthetic / "synthetic"
    else:
        built = await _synthetic(
            _copy_store(args.store, args.work / "shared-days"), args.work / "synthetic", args.copies
        )
        built = built.parent
    await _measure(_copy_store(built, args.work / "measured"), args.compare)


if __name__ == "__main__":
    asyncio.run(main())
