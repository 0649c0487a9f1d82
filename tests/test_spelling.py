"""The look-up of the words stored papers write only in abstracts (`bot.text.spelling.WrittenWords`), read by the
typo corrector when no title word is one edit from a typed word."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.core import Core
from bot.models import Paper
from bot.questions.authors import author_index
from bot.questions.spelling import corrected
from bot.ranking.interest_spelling import corrected_interest
from bot.store.connection import open_database
from bot.store.migrations import MIGRATIONS, TITLE_WORDS_VERSION
from bot.store.repos import Repository
from bot.text.spelling import TitleVocabulary, starts_sentence, title_vocabulary, written_words

WRITTEN_WORDS = 12  # the schema version that added the index of written words


def _papers(demo_papers: list[Paper], texts: list[tuple[str, str]]) -> list[Paper]:
    """Papers with these titles and abstracts (the rest of each taken from the bundled day)."""
    return [
        dataclasses.replace(demo_papers[k], id=f"2505.9{k:04d}", title=title, abstract=abstract)
        for k, (title, abstract) in enumerate(texts)
    ]


async def test_a_word_one_edit_away_that_only_abstracts_write_is_found_the_most_written_first(
    core: Core, demo_papers: list[Paper]
) -> None:
    texts = [
        ("Grasping with Tactile Skins", "We study robotics and robotic grasping."),
        ("Legged Locomotion", "Robotics needs operators; an operator and the robotics stack operates."),
        ("Operator Learning", "The operates of a robotics lab."),
    ]
    await core.repo.upsert_papers(_papers(demo_papers, texts))
    words = await written_words(core)
    assert ("robotics", 3, False) in await core.repo.written_words("r")
    assert await words.one_edit("robtics") == ["robotics"]  # one letter dropped
    assert await words.one_edit("roboticss") == ["robotics"]  # one added
    assert await words.one_edit("rbootics") == ["robotics"]  # two neighbours swapped
    # "operator" is a title word (the title words' look-up finds it first); of the rest, the most written first
    assert await words.one_edit("operatess") == ["operates"]
    assert await words.one_edit("operatos") == ["operates", "operators"]  # two papers write the first, one the second
    assert await words.one_edit("robtcs") == []  # two edits: no word
    assert await words.one_edit("xobotics") == []  # the first letter is kept
    assert await words.one_edit("robotics") == ["robotic"]  # the word itself is no correction of it


async def test_a_word_the_index_stems_apart_from_the_snowball_stemmer_is_found_as_written(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "histopathology" is indexed as "histopatholog" by SQLite's Porter stemmer, "histopathologi" by Snowball's: a
    # look-up through either stem missed it; the written word is looked up as written
    await core.repo.upsert_papers(_papers(demo_papers, [("Slide Classifiers", "Computational histopathology.")]))
    assert await (await written_words(core)).one_edit("histopatholgy") == ["histopathology"]


async def test_one_letters_look_up_is_built_only_when_a_word_starting_with_it_is_looked_up(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [("A title", "robotics and manipulation and monotonic segmentation")]
    await core.repo.upsert_papers(_papers(demo_papers, texts))
    read: list[str] = []
    words_of = core.repo.written_words

    async def noted(letter: str) -> list[tuple[str, int, bool]]:
        read.append(letter)
        return await words_of(letter)

    monkeypatch.setattr(core.repo, "written_words", noted)
    words = await written_words(core)
    assert read == []
    assert await words.one_edit("manipulaton") == ["manipulation"]
    assert await words.one_edit("monotnic") == ["monotonic"]
    assert read == ["m"]  # the store is read for that letter's words, once


async def test_concurrent_first_typos_after_an_ingest_read_and_build_the_dictionaries_once(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    # two typo questions at once after an ingest each read every title and every abstract and built the look-ups
    texts = [("Grasping with Tactile Skins", "Work in robotics on grasping."), ("Walking", "Legged robotics.")]
    await core.repo.upsert_papers(_papers(demo_papers, texts))
    read: list[str] = []
    for name in ("title_words", "written_words"):
        method = getattr(core.repo, name)

        async def noted(*args: str, _method: Any = method, _name: str = name) -> Any:
            read.append(_name)
            await asyncio.sleep(0.01)  # a store read lets the other question run
            return await _method(*args)

        monkeypatch.setattr(core.repo, name, noted)
    found = await asyncio.gather(corrected(core, "robtics grasping"), corrected(core, "robtics grasping"))
    assert found == ["robotics grasping", "robotics grasping"]
    assert sorted(read) == ["title_words", "written_words"]


async def test_the_index_of_written_words_follows_the_papers_and_is_filled_for_papers_stored_before_it(
    core: Core, demo_papers: list[Paper], tmp_path: Path
) -> None:
    first, second = _papers(
        demo_papers, [("Robotics at Scale", "Robotics, robots; robotics!"), ("Walking", "Legged robotics 2robotics.")]
    )
    await core.repo.upsert_papers([first, second])
    # counted once per paper, split at digits and marks as the papers' words always were; a title's word is marked
    assert ("robotics", 2, True) in await core.repo.written_words("r")
    assert ("robots", 1, False) in await core.repo.written_words("r")
    replaced = dataclasses.replace(second, abstract="Legged locomotion.", version=(second.version or 1) + 1)
    await core.repo.upsert_papers([replaced])
    assert ("robotics", 1, True) in await core.repo.written_words("r")
    assert ("locomotion", 1, False) in await core.repo.written_words("l")
    # a store made before the index: its papers are indexed when it is opened (migrated)
    path = tmp_path / "old.sqlite3"
    raw = sqlite3.connect(path)
    for script in MIGRATIONS[: WRITTEN_WORDS - 1]:
        raw.executescript(script)
    raw.execute(
        "INSERT INTO papers (id, title, authors, abstract, categories, primary_category, announced, content_hash)"
        " VALUES ('1', 'Robotics', '[]', 'Legged robotics and manipulation.', '[]', 'cs.RO', 20250526, 'h')"
    )
    raw.execute(f"PRAGMA user_version = {WRITTEN_WORDS - 1}")
    raw.commit()
    raw.close()
    repo = Repository(await open_database(path))
    try:
        assert ("manipulation", 1, False) in await repo.written_words("m")
    finally:
        await repo.close()


async def test_the_words_are_read_when_a_typo_needs_them_and_again_when_the_store_changes(
    core: Core, demo_papers: list[Paper]
) -> None:
    papers = _papers(
        demo_papers,
        [
            ("Grasping with Tactile Skins", "Work in robotics on grasping."),
            ("Learning to Walk", "Legged robotics: learning to walk."),
            ("Diffusion Models for Images", "We train diffusion models."),
        ],
    )
    await core.repo.upsert_papers(papers[:2])
    assert await corrected(core, "diffusion") == "diffusion" and core.written_words == {}
    assert await corrected(core, "robtics grasping") == "robotics grasping"  # no title writes "robotics"
    (first,) = core.written_words.values()
    assert await written_words(core) is first  # kept while no paper is stored
    await core.repo.upsert_papers(papers[2:])
    assert await written_words(core) is not first and list(core.written_words) == [await core.repo.papers_generation()]


async def test_a_capitalised_word_one_edit_from_a_name_the_papers_write_is_another_name(
    core: Core, demo_papers: list[Paper]
) -> None:
    """ "Mixtral" was read as "mistral" and "Bloomz" as "bloom": a word typed with a capital, one edit from a word
    the papers write as a name (with a capital inside a sentence), is another name (a model, a method) and kept as
    typed, whether a title or only abstracts write the name; a capitalised typo of a word papers write in small
    letters, or a name's typo typed in small letters, is still corrected; so is a sentence's first word, whose
    capital says nothing."""
    papers = _papers(
        demo_papers,
        [
            ("Sparse Experts at Scale", "We compare with Mistral and Llama baselines, and Mistral is the strongest."),
            ("Instruction Tuning", "Starting from BLOOM, we tune on many tasks; BLOOM-7B is used throughout."),
            ("Falcon Judges", "We ask Falcon to judge answers; the Falcon family is open."),
            ("Grasping with Tactile Skins", "Work in robotics on grasping. Robotics needs touch."),
        ],
    )
    await core.repo.upsert_papers(papers)
    assert await corrected(core, "Mixtral experts") == "Mixtral experts"  # only abstracts write "Mistral"
    assert await corrected(core, "papers on Bloomz") == "papers on Bloomz"
    assert await corrected(core, "Falcor judges") == "Falcor judges"  # a title writes "Falcon"
    assert await corrected(core, "Robtics grasping") == "robotics grasping"
    assert await corrected(core, "mistrl baselines") == "mistral baselines"
    assert await corrected(core, "falcor judges") == "falcon judges"
    # the first word of the question or of an interest has a capital whatever it is
    assert await corrected(core, "Falcor judges", "Falcor judges this week?") == "falcon judges"
    assert await corrected(core, "Falcor judges", "any papers on Falcor judges?") == "Falcor judges"
    assert await corrected_interest(core, "Falcor judges") == "falcon judges"
    assert await corrected_interest(core, "LLM judges like Falcor") == "LLM judges like Falcor"


async def test_a_capitalised_slip_of_a_name_the_papers_write_is_still_corrected(
    core: Core, demo_papers: list[Paper]
) -> None:
    """ "any papers on Gausian processes?" kept "Gausian": papers write "Gaussian" with a capital, as a name, and the
    guard for names one letter apart ("Mixtral", "Bloomz") kept every capitalised word one edit from it. A letter
    dropped, two neighbours swapped or a letter doubled is a slip of typing the name; a letter changed or added
    names another model."""
    papers = _papers(
        demo_papers,
        [
            ("Sparse Kernels", "We fit Gaussian processes; the Gaussian kernel is smooth and Bayesian updates help."),
            ("Optimal Transport", "We bound the Wasserstein distance with Fourier features and Wasserstein flows."),
            ("Sparse Experts at Scale", "We compare with Mistral and Llama baselines, and Mistral is the strongest."),
        ],
    )
    await core.repo.upsert_papers(papers)
    question = "any papers on {} this week?"
    for typed, meant in [
        ("Gausian processes", "gaussian processes"),  # a letter dropped
        ("Baysian updates", "bayesian updates"),
        ("Wasserstien flows", "wasserstein flows"),  # two neighbours swapped
        ("Fourrier features", "fourier features"),  # a letter doubled
    ]:
        assert await corrected(core, typed, question.format(typed)) == meant, typed
    assert await corrected(core, "Mixtral baselines", question.format("Mixtral baselines")) == "Mixtral baselines"


async def test_a_rare_english_word_no_paper_writes_is_a_slip_of_a_far_commoner_one(
    core: Core, demo_papers: list[Paper]
) -> None:
    """ "wether forcasting" kept "wether" (a castrated ram, an English word) and showed wildfire forecasting: no paper
    writes it, and "weather", one edit away in a title, is used 250 times as often in English. An English word papers
    do not write but whose neighbour is not much commoner stays ("calving" is no "carving"), as does one they write."""
    papers = _papers(
        demo_papers,
        [
            ("Weather Forecasting with Graphs", "Global weather forecasting on the sphere."),
            ("Carving Shapes", "We study carving and wood."),
            ("Sheep Counting", "Counting sheep in drone images."),
        ],
    )
    await core.repo.upsert_papers(papers)
    assert await corrected(core, "wether forecasting", "wether forecasting") == "weather forecasting"
    assert await corrected(core, "calving glaciers", "calving glaciers") == "calving glaciers"
    assert await corrected(core, "sheep counting", "sheep counting") == "sheep counting"
    # no paper writes the commoner word beside the typed one's neighbours: a rare topic, not a slip ("water defect")
    assert await corrected(core, "wether defect detection", "wether defect detection") == "wether defect detection"
    # one-line interests are read as before
    assert await corrected_interest(core, "wether forecasting") == "wether forecasting"


def test_a_word_starts_a_sentence_after_nothing_but_marks_or_after_a_full_stop() -> None:
    for text in ("Falcor judges?", '"Falcor" judges', "Hi. Falcor judges", "what's new? Falcor-based judges"):
        assert starts_sentence(text, "Falcor"), text
    for text in ("papers on Falcor", "Falcors judges", "e.g.Falcor", ""):
        assert not starts_sentence(text, "Falcor"), text


async def test_a_replacement_that_changes_a_title_or_an_abstract_refreshes_the_typo_look_ups(
    core: Core, demo_papers: list[Paper]
) -> None:
    # the look-ups were kept while the number of stored papers stayed the same: a replaced paper's new words
    # were never seen
    papers = _papers(demo_papers, [("Grasping with Tactile Skins", "Work on grasping."), ("Walking", "Legged gaits.")])
    await core.repo.upsert_papers(papers)
    assert await corrected(core, "quantizaton policies") == "quantizaton policies"  # no paper writes it yet
    assert await corrected(core, "robtics") == "robtics"
    replaced = dataclasses.replace(
        papers[1], title="Quantization of Walking Policies", abstract="Legged robotics.", version=9
    )
    await core.repo.upsert_papers([replaced])
    assert await corrected(core, "quantizaton policies") == "quantization policies"  # a title word now
    assert await corrected(core, "robtics") == "robotics"  # a word only the new abstract writes


async def test_a_replacement_that_changes_the_authors_refreshes_the_index_of_authors(
    core: Core, demo_papers: list[Paper]
) -> None:
    (paper,) = _papers(demo_papers, [("Walking", "Legged gaits.")])
    await core.repo.upsert_papers([dataclasses.replace(paper, authors=("Ada Lovelace",))])
    assert "lovelace" in (await author_index(core)).words
    await core.repo.upsert_papers([dataclasses.replace(paper, authors=("Grace Hopper",), version=9)])
    words = (await author_index(core)).words
    assert "hopper" in words and "lovelace" not in words


async def test_the_title_words_the_store_keeps_are_those_of_its_titles_after_inserts_and_replacements(
    core: Core, demo_papers: list[Paper]
) -> None:
    texts = [
        ("Robots and Robotics: Models of Models", "a"),
        ("Série Temporelle: Time Series with GPT-4o and Q&A", "b"),
        ("Diffusion Models", "c"),
    ]
    papers = _papers(demo_papers, texts)
    await core.repo.upsert_papers(papers)
    replaced = [
        dataclasses.replace(papers[0], title="Legged Locomotion", version=9),  # "robot" no longer in any title
        dataclasses.replace(papers[2], abstract="a new abstract", version=9),  # the same title
    ]
    await core.repo.upsert_papers(replaced)
    await core.repo.upsert_papers([dataclasses.replace(papers[2], id="2505.99999", title="Diffusion Policies")])
    titles = ["Legged Locomotion", texts[1][0], "Diffusion Models", "Diffusion Policies"]  # in storage order
    expected = TitleVocabulary.of_titles(titles)
    counts, written = await core.repo.title_words()
    # the same words and counts, in the order the titles first write them (the look-up's ties go by it)
    assert list(counts.items()) == list(expected.counts.items())
    assert list(written.items()) == list(expected.written.items())
    assert counts["diffusion"] == 2 and counts["model"] == 1 and counts["4o"] == 1 and counts["qa"] == 1
    assert written["models"] == 1 and "robot" not in counts and "robotics" not in written
    assert counts["serie"] == 1 and written["series"] == 1  # accents dropped, "series" folded
    vocabulary = await title_vocabulary(core)
    assert list(vocabulary.counts) == list(expected.counts) and list(vocabulary.written) == list(expected.written)


async def test_a_replaced_title_that_first_wrote_a_word_gives_its_place_to_the_next_title_writing_it(
    core: Core, demo_papers: list[Paper]
) -> None:
    texts = [("Robots for Walking", "a"), ("Grasping Arms", "b"), ("Walking Robots", "c"), ("Arms Race", "d")]
    papers = _papers(demo_papers, texts)
    await core.repo.upsert_papers(papers)
    replaced = [dataclasses.replace(papers[0], title="Legged Gaits", version=9)]
    await core.repo.upsert_papers(replaced)
    counts, written = await core.repo.title_words()
    expected = TitleVocabulary.of_titles(["Legged Gaits", "Grasping Arms", "Walking Robots", "Arms Race"])
    assert list(counts.items()) == list(expected.counts.items())
    assert list(written.items()) == list(expected.written.items())
    assert list(counts)[:5] == ["gait", "legged", "arm", "grasping", "robot"]
    # a replacement writing a word again, and a new paper writing the one no title writes now
    new = dataclasses.replace(papers[3], id="2505.99990", title="Walking Stairs")
    await core.repo.upsert_papers([dataclasses.replace(papers[1], title="Grasping Robots", version=9), new])
    counts, written = await core.repo.title_words()
    titles = ["Legged Gaits", "Grasping Robots", "Walking Robots", "Arms Race", "Walking Stairs"]
    expected = TitleVocabulary.of_titles(titles)
    assert list(counts.items()) == list(expected.counts.items())
    assert list(written.items()) == list(expected.written.items())


async def test_the_title_words_of_papers_stored_before_the_table_are_counted_when_the_store_is_opened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    raw = sqlite3.connect(path)
    for script in MIGRATIONS[: TITLE_WORDS_VERSION - 1]:
        raw.executescript(script)
    for k, title in enumerate(["Legged Robots", "Robots at Scale", "Mixture-of-Experts Models"]):
        raw.execute(
            "INSERT INTO papers (id, title, authors, abstract, categories, primary_category, announced, content_hash)"
            f" VALUES ('{k}', ?, '[]', 'An abstract.', '[]', 'cs.RO', 20250526, 'h')",
            (title,),
        )
    raw.execute(f"PRAGMA user_version = {TITLE_WORDS_VERSION - 1}")
    raw.commit()
    raw.close()
    repo = Repository(await open_database(path))
    try:
        counts, written = await repo.title_words()
        assert counts["robot"] == 2 and written["robots"] == 2 and counts["expert"] == 1
        assert await repo.papers_generation() == 0
    finally:
        await repo.close()


async def test_a_question_read_while_an_ingest_writes_its_papers_does_not_keep_the_vocabulary_before_it(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a question shares the ingest's connection and sees its papers before the transaction ends: read after the
    # papers but before their title words, the vocabulary was kept under the generation the ingest ends at
    from bot.store.repos import papers as papers_repo

    first, second = _papers(demo_papers, [("Grasping with Tactile Skins", "a"), ("Quantization of Policies", "b")])
    await core.repo.upsert_papers([first])
    write = papers_repo._write_title_words

    async def with_a_question_first(*args: Any) -> None:
        await title_vocabulary(core)  # a question running between the ingest's statements
        await write(*args)

    monkeypatch.setattr(papers_repo, "_write_title_words", with_a_question_first)
    await core.repo.upsert_papers([second])
    assert "quantization" in (await title_vocabulary(core)).counts


async def test_after_an_ingest_the_title_look_ups_are_brought_up_to_date_not_built_again(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    # each ingest made the next question with a word to correct build symspellpy's look-up of every title word
    # again (its deletes dictionary: seconds on a large archive); it is now kept and given what changed
    from bot.text import spelling

    built: list[int] = []
    look_up = spelling._look_up

    def counted(entries: Any, edits: int) -> Any:
        entries = list(entries)
        if edits == 2:  # a title words' look-up (the words only abstracts write have their own, of one edit)
            built.append(len(entries))
        return look_up(entries, edits)

    papers = _papers(
        demo_papers,
        [("Walking Robots", "a"), ("Grasping Arms", "b"), ("Diffusion Policies", "c"), ("Robots for Walking", "d")],
    )
    await core.repo.upsert_papers(papers[:3])
    monkeypatch.setattr(spelling, "_look_up", counted)
    assert await corrected(core, "difusion policy") == "diffusion policy"
    assert await corrected_interest(core, "grasping armz") == "grasping arm"
    # the look-ups as written (questions) and plural-folded (interests) of the letters of the words corrected
    assert len(built) == 2
    typos = ("quantizaton", "grasping armz", "diffusion polcies", "legged locomoton", "walkin robots", "skils")
    for typo in typos:  # each letter's look-ups built once
        await corrected(core, typo)
        await corrected_interest(core, typo)
    new = dataclasses.replace(papers[3], title="Quantization of Walking Policies")
    replaced = dataclasses.replace(papers[1], title="Grasping Skills of Robots", version=9)  # "arm" in no title now
    moved = dataclasses.replace(papers[0], title="Legged Locomotion", version=9)  # "walking": a later first title
    for ingest in ([new], [replaced], [moved]):
        await core.repo.upsert_papers(ingest)
        built.clear()
        got = [await corrected(core, typo) for typo in typos] + [await corrected_interest(core, t) for t in typos]
        assert built == []  # no look-up built anew
        vocabulary = await title_vocabulary(core)
        # the same look-ups a build over the new vocabulary gives, so the same corrections
        fresh = TitleVocabulary(vocabulary.counts, vocabulary.written)
        for written, letter in list(vocabulary._spellers):
            kept, built_now = (v.look_up(letter, written=written) for v in (vocabulary, fresh))
            assert kept.words == built_now.words
            assert {d: w for d, w in kept.deletes.items() if w} == dict(built_now.deletes)
        core.title_vocabulary.clear()
        core.title_vocabulary[await core.repo.papers_generation()] = fresh
        assert got == [await corrected(core, t) for t in typos] + [await corrected_interest(core, t) for t in typos]
        core.title_vocabulary[await core.repo.papers_generation()] = vocabulary


def test_a_kept_look_up_brought_up_to_date_is_the_look_up_built_over_the_new_vocabulary() -> None:
    import random

    from bot.text.spelling import KeptLookUp, _look_up

    rng = random.Random(7)
    pool = [f"{a}{b}{c}{d}" for a in "abc" for b in "aeo" for c in "lmnr" for d in ("", "s", "ing", "er")]
    vocabulary = {w: rng.randint(1, 5) for w in rng.sample(pool, 40)}
    look_up = KeptLookUp(vocabulary)
    for _ in range(30):
        words = list(vocabulary)
        rng.shuffle(words)
        kept = words[: rng.randint(20, len(words))]  # some dropped
        kept.sort(key=list(vocabulary).index)
        for _ in range(rng.randint(0, 3)):  # some moved
            kept.insert(rng.randint(0, len(kept)), kept.pop(rng.randrange(len(kept))))
        for word in rng.sample([w for w in pool if w not in vocabulary], rng.randint(0, 8)):  # some added anywhere
            kept.insert(rng.randint(0, len(kept)), word)
        vocabulary = {w: vocabulary.get(w, 0) + rng.randint(0, 2) or 1 for w in kept}
        look_up.update(vocabulary)
        built = _look_up(vocabulary.items(), 2)
        assert look_up.speller.words == built.words
        assert dict(look_up.speller.deletes) == dict(built.deletes)  # every list in the vocabulary's order
        assert look_up.speller._max_length == built._max_length


def _store_before_title_words(path: Path, titles: list[str], version: int = TITLE_WORDS_VERSION - 1) -> None:
    """A store at the schema before `title_words` (or at an older `version`), holding papers with these titles."""
    raw = sqlite3.connect(path)
    for script in MIGRATIONS[:version]:
        raw.executescript(script)
    for k, title in enumerate(titles):
        raw.execute(
            "INSERT INTO papers (id, title, authors, abstract, categories, primary_category, announced, content_hash)"
            f" VALUES ('{k}', ?, '[]', 'An abstract.', '[]', 'cs.RO', 20250526, 'h')",
            (title,),
        )
    raw.execute(f"PRAGMA user_version = {version}")
    raw.commit()
    raw.close()


def test_counting_every_title_at_once_gives_what_adding_them_one_by_one_gives(demo_papers: list[Paper]) -> None:
    from bot.store.repos.papers import TitleWordChanges

    titles = [p.title for p in demo_papers] + ["Série Temporelle: Q&A with GPT-4o", "Robots", "robots and ROBOTS"]
    rows = [(3 * k + 1, t) for k, t in enumerate(titles)]
    one_by_one = TitleWordChanges()
    for rowid, title in rows:
        one_by_one.add(rowid, title)
    at_once = TitleWordChanges.of_titles(rows[::-1])  # in any order
    assert at_once.folded == one_by_one.folded and at_once.written == one_by_one.written
    assert at_once.first_folded == one_by_one.first_folded and at_once.first_written == one_by_one.first_written


async def test_opening_an_older_store_folds_each_distinct_title_word_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the migration counting the stored titles' words folded every word of every title (48,000 titles: 600,000
    # folds, most of the migration's 3.7 s); the titles repeat most words
    from bot.text import terms

    path = tmp_path / "old.sqlite3"
    _store_before_title_words(path, ["Legged Robots", "Robots at Scale", "Scale of Legged Robots"] * 5)
    folded: list[str] = []
    fold = terms._fold

    def counted(token: str) -> str:
        folded.append(token)
        return fold(token)

    monkeypatch.setattr(terms, "_fold", counted)
    repo = Repository(await open_database(path))
    try:
        counts, written = await repo.title_words()
        assert counts == {"legged": 10, "robot": 15, "at": 5, "scale": 10, "of": 5}
        assert sorted(folded) == sorted(written) == ["at", "legged", "of", "robots", "scale"]
    finally:
        await repo.close()


async def test_a_migration_that_fails_mid_fill_leaves_the_store_as_it_was_and_runs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.store.repos import papers as papers_repo

    path = tmp_path / "old.sqlite3"
    # two migrations pending (the index of written words, then the title words): both undone
    _store_before_title_words(path, ["Legged Robots", "Robots at Scale"], WRITTEN_WORDS - 1)
    write = papers_repo._write_title_words

    async def written_then_crash(*args: Any) -> None:
        await write(*args)
        raise KeyboardInterrupt  # the process killed after the words were written, before the commit

    monkeypatch.setattr(papers_repo, "_write_title_words", written_then_crash)
    with pytest.raises(KeyboardInterrupt):
        await open_database(path)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == WRITTEN_WORDS - 1
        made = "SELECT count(*) FROM sqlite_master WHERE name IN ('title_words', 'papers_words')"
        assert raw.execute(made).fetchone()[0] == 0
    monkeypatch.undo()
    repo = Repository(await open_database(path))
    try:
        counts, _ = await repo.title_words()
        assert counts == {"legged": 1, "robot": 2, "at": 1, "scale": 1}
        assert ("legged", 1, True) in await repo.written_words("l")
    finally:
        await repo.close()


async def test_a_spelling_one_edit_from_an_english_word_is_no_typo_of_a_title_word_two_edits_away(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "dueling bandits" was read "during bandits": no stored paper writes "dueling" and the English list holds only
    # "duelling", so the title word two edits away replaced it, a function word that left the topic "bandits"
    texts = [("Regret During Training", "a"), ("Bandits with Feedback", "b"), ("Diffusion Models", "c")]
    await core.repo.upsert_papers(_papers(demo_papers, texts))
    assert await corrected(core, "dueling bandits") == "dueling bandits"
    assert await corrected_interest(core, "dueling bandits") == "dueling bandits"
    # a typo two edits from a title word and one from no English word is still corrected
    assert await corrected(core, "difussion bandits") == "diffusion bandits"
    assert await corrected_interest(core, "difussion bandits") == "diffusion bandits"


def test_a_typo_indexes_only_the_title_words_of_its_first_letter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first correction in a process indexed every title word (symspellpy's deletes dictionary: ten seconds at
    50,000 words, paid by every one-shot `ask` with a typo); a correction keeps the typed first letter, so only the
    words starting with it are indexed, and the answers are those of the look-up of every word."""
    from bot.text import spelling

    indexed: list[list[str]] = []
    look_up = spelling._look_up

    def counted(entries: Any, edits: int) -> Any:
        entries = list(entries)
        indexed.append([w for w, _ in entries])
        return look_up(entries, edits)

    titles = ["Diffusion Models for Robots", "Robust Diffusion Policies", "Models of Grasping", "Modular Networks"]
    vocabulary = TitleVocabulary.of_titles(titles)
    monkeypatch.setattr(spelling, "_look_up", counted)
    assert vocabulary.closest("difusion") == "diffusion"
    assert indexed and all(w.startswith("d") for words in indexed for w in words)
    assert vocabulary.closest("modles", written=True) == "models"
    assert all(w.startswith(("d", "m")) for words in indexed for w in words)
    # a title word of another first letter one edit away is closer than any of the typed letter: no correction, as
    # the look-up of every word gives ("xmodular" is "modular" with a letter before it, two from "modules")
    vocabulary = TitleVocabulary.of_titles(["Modular Networks", "Xmodules"])
    assert vocabulary.closest("xmodular", written=True) is None
    assert TitleVocabulary.of_titles(["Xmodules"]).closest("xmodular", written=True) in ("xmodule", "xmodules")
