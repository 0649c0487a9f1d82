"""The look-up of the words stored papers write only in abstracts (`bot.text.spelling.WrittenWords`), read by the
typo corrector when no title word is one edit from a typed word."""

from __future__ import annotations

import dataclasses

from bot.core import Core
from bot.models import Paper
from bot.questions.spelling import corrected
from bot.ranking.interest_spelling import corrected_interest
from bot.text.spelling import WrittenWords, starts_sentence, written_words


def _papers(demo_papers: list[Paper], texts: list[tuple[str, str]]) -> list[Paper]:
    """Papers with these titles and abstracts (the rest of each taken from the bundled day)."""
    return [
        dataclasses.replace(demo_papers[k], id=f"2505.9{k:04d}", title=title, abstract=abstract)
        for k, (title, abstract) in enumerate(texts)
    ]


def test_a_word_one_edit_away_that_only_abstracts_write_is_found_the_most_written_first() -> None:
    words = WrittenWords(
        [
            ("Grasping with Tactile Skins", "We study robotics and robotic grasping."),
            ("Legged Locomotion", "Robotics needs operators; an operator and the robotics stack operates."),
            ("Operator Learning", "The operates of a robotics lab."),
        ]
    )
    assert words.counts["robotics"] == 3 and words.counts["operator"] == 2
    assert words.one_edit("robtics") == ["robotics"]  # one letter dropped
    assert words.one_edit("roboticss") == ["robotics"]  # one added
    assert words.one_edit("rbootics") == ["robotics"]  # two neighbours swapped
    # "operator" is a title word (the title words' look-up finds it first); of the rest, the most written first
    assert words.one_edit("operatess") == ["operates"]
    assert words.one_edit("operatos") == ["operates", "operators"]  # two papers write the first, one the second
    assert words.one_edit("robtcs") == []  # two edits: no word
    assert words.one_edit("xobotics") == []  # the first letter is kept
    assert words.one_edit("robotics") == ["robotic"]  # the word itself is no correction of it


def test_a_word_the_index_stems_apart_from_the_snowball_stemmer_is_found_as_written() -> None:
    # "histopathology" is indexed as "histopatholog" by SQLite's Porter stemmer, "histopathologi" by Snowball's: a
    # look-up through either stem missed it; the written word is looked up as written
    words = WrittenWords([("Slide Classifiers", "Computational histopathology at scale.")])
    assert words.one_edit("histopatholgy") == ["histopathology"]


def test_one_letters_look_up_is_built_only_when_a_word_starting_with_it_is_looked_up() -> None:
    words = WrittenWords([("A title", "robotics and manipulation and monotonic segmentation")])
    assert words._spellers == {}
    assert words.one_edit("manipulaton") == ["manipulation"]
    assert set(words._spellers) == {"m"}


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
    assert await written_words(core) is not first and list(core.written_words) == [3]


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
    # one-line interests are read as before
    assert await corrected_interest(core, "wether forecasting") == "wether forecasting"


def test_a_word_starts_a_sentence_after_nothing_but_marks_or_after_a_full_stop() -> None:
    for text in ("Falcor judges?", '"Falcor" judges', "Hi. Falcor judges", "what's new? Falcor-based judges"):
        assert starts_sentence(text, "Falcor"), text
    for text in ("papers on Falcor", "Falcors judges", "e.g.Falcor", ""):
        assert not starts_sentence(text, "Falcor"), text
