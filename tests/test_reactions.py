"""A member's reactions they can see and undo: what a reaction changed (measured on the learner), the list, undo
(the score moves back), reset, and the admin's `paperscout reactions`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from bot.chat.reactions import why_line
from bot.cli import main
from bot.core import Core
from bot.errors import InputError
from bot.members import reactions
from bot.models import Paper, Profile, Topic
from bot.ranking import learn
from bot.text.terms import text_tokens
from tests.conftest import StoreDay

PROFILE = Profile(name="test", topics=(Topic("Language models", "large language models and their training"),))
USER = "console:ada"


def scores(ranked: list) -> dict[str, float]:
    return {item.paper.id: item.score for item in ranked}


async def test_undo_takes_the_reaction_out_of_what_the_learner_uses(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    cold = await learn.rank_for_user(core, USER, PROFILE, papers)
    for item in cold[-3:]:
        await reactions.react(core, USER, item.paper, 1)
    await reactions.react(core, USER, cold[0].paper, -1)
    with_four = scores(await learn.rank_for_user(core, USER, PROFILE, papers))

    extra = cold[-10].paper
    await reactions.react(core, USER, extra, 1)
    with_five = scores(await learn.rank_for_user(core, USER, PROFILE, papers))
    assert with_five[extra.id] > with_four[extra.id] + 0.005  # the thumbs up lifted it

    effect = await reactions.undo(core, USER, "1")  # the latest reaction is number 1
    assert (effect.paper.id, effect.value, effect.previous, effect.stored) == (extra.id, 0, 1, 4)
    undone = scores(await learn.rank_for_user(core, USER, PROFILE, papers))
    assert undone[extra.id] == pytest.approx(with_four[extra.id], abs=1e-6)  # the score moved back
    assert max(abs(undone[i] - with_four[i]) for i in undone) < 1e-5
    assert extra.id not in {r.paper_id for r in await core.repo.user_feedback_rows(USER)}

    # undo by arXiv id, in any common form; then reset: the cold start again
    await reactions.undo(core, USER, f"arXiv:{cold[0].paper.id}v1")
    assert len(await reactions.reactions_of(core, USER)) == 3
    assert await reactions.reset(core, USER) == 3
    assert scores(await learn.rank_for_user(core, USER, PROFILE, papers)) == scores(cold)
    with pytest.raises(InputError, match="no reactions"):
        await reactions.undo(core, USER, "1")


async def test_the_list_is_newest_first_and_a_change_of_mind_is_the_newest(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    for paper in papers[:3]:
        await reactions.react(core, USER, paper, 1)
    await reactions.react(core, USER, papers[0], -1)  # changed: now the latest
    rows = await reactions.reactions_of(core, USER)
    assert [(r.paper_id, r.value) for r in rows] == [(papers[0].id, -1), (papers[2].id, 1), (papers[1].id, 1)]
    text = reactions.describe_reactions(rows)
    assert text.splitlines()[1].startswith(f"1. 👎 {papers[0].title[:40]}")
    assert f"(arXiv:{papers[2].id}, 20" in text.splitlines()[2]
    assert "/reactions undo N" in text and "/reactions reset" in text
    with pytest.raises(InputError, match="1 to 3"):
        await reactions.find_reaction(core, USER, "4")
    with pytest.raises(InputError, match="no reaction to"):
        await reactions.find_reaction(core, USER, "2501.00001")
    assert "no reactions yet" in reactions.describe_reactions([])


def holders(word_phrase: str, papers: list[Paper]) -> list[int]:
    tokens = text_tokens(word_phrase)
    return [i for i, p in enumerate(papers) if set(tokens) <= set(text_tokens(f"{p.title} {p.abstract}"))]


async def test_what_a_reaction_changed_is_what_the_ranking_does(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    first = await reactions.react(core, USER, papers[0], 1)
    assert not first.learning and first.direction == 0  # one reaction is not yet a direction
    assert "starts learning from your reactions with 1 reaction more" in reactions.describe_effect(first)
    assert "1 reaction so far; /reactions to see or undo them." in reactions.describe_effect(first)

    await reactions.react(core, USER, papers[1], -1)
    await reactions.react(core, USER, papers[2], 1)
    rated = {p.id for p in papers[:4]}
    day = [p for p in papers if p.id not in rated]
    before = scores(await learn.rank_for_user(core, USER, PROFILE, day))
    effect = await reactions.react(core, USER, papers[3], 1)
    after = scores(await learn.rank_for_user(core, USER, PROFILE, day))
    assert effect.learning and effect.direction == 1 and effect.stored == 4 and effect.examples
    # measured independently, through the ranking: what the reply names moved up relative to the day
    moved = np.array([after[p.id] - before[p.id] for p in day])
    moved -= np.median(moved)
    example = next(i for i, p in enumerate(day) if p.title == effect.examples[0])
    assert moved[example] == pytest.approx(moved.max(), abs=1e-6)
    assert effect.words
    for phrase in effect.words:
        assert phrase.lower() in papers[3].title.lower()
        assert np.mean(moved[holders(phrase, day)]) > 0
    text = reactions.describe_effect(effect)
    assert text.startswith(f"Noted: more like “{papers[3].title[:40]}")
    assert "”. Your next digest moves papers on " in text
    assert f"up (on {papers[0].announced.isoformat()} most of all: “" in text
    assert text.endswith("4 reactions so far; /reactions to see or undo them.")

    again = await reactions.react(core, USER, papers[3], 1)
    assert reactions.describe_effect(again).startswith(f"You had already given “{papers[3].title[:30]}")
    assert "nothing changed" in reactions.describe_effect(again)
    down = await reactions.react(core, USER, papers[3], -1)
    assert down.direction == -1 and down.previous == 1
    assert reactions.describe_effect(down).startswith("Changed to 👎")
    assert "stays out of your personal digest" in reactions.describe_effect(down)
    undone = await reactions.undo(core, USER, papers[3].id)
    assert undone.direction == 1  # taking a thumbs down back lifts what it had sunk
    assert "Your next digest no longer moves papers" in reactions.describe_effect(undone)
    assert " down (on " in reactions.describe_effect(undone)

    standing = await reactions.effect_of(core, USER, papers[2])
    assert standing is not None and standing.value == 1 and standing.direction == 1
    line = reactions.describe_standing_reaction(standing, "2026-11-25T10:00:00Z")
    assert line.startswith("You gave it a 👍 on 2026-11-25: it moves papers ")
    assert await reactions.effect_of(core, USER, papers[5]) is None
    # /why of a paper not rated: how the member's reactions move it among its day's papers, by the ranking's sign
    shift, used = await reactions.shift_on_its_day(core, USER, papers[5])
    assert used == 3
    line = await why_line(core, USER, papers[5])
    assert line.startswith(f"Your 3 reactions move it {'up' if shift > 0 else 'down'} ")
    await reactions.reset(core, USER)
    assert await why_line(core, USER, papers[5]) == ""  # no reactions in use: nothing to say


@pytest.fixture
def two_reactions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An archive under tmp_path where telegram:42 gave a 👎 and then a 👍, for the CLI to read."""
    from bot.config import load_settings
    from bot.core import open_core

    monkeypatch.setenv("PAPERSCOUT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)

    async def react() -> None:
        async with open_core(load_settings()) as core:
            await core.repo.add_feedback("telegram:42", "2505.17083", -1)
            await core.repo.add_feedback("telegram:42", "2505.17084", 1)

    asyncio.run(react())


@pytest.mark.usefixtures("two_reactions")
def test_the_cli_lists_undoes_and_resets_a_members_reactions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reactions", "--user", "telegram:42"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0] == "telegram:42's 2 reactions, the latest first:"
    assert listed[1].startswith("1. 👍 (paper not stored) (arXiv:2505.17084, ")
    assert listed[-1].startswith("paperscout reactions --user telegram:42 --undo N")  # the CLI's flags, not chat's
    assert main(["reactions", "--user", "telegram:42", "--undo", "2"]) == 0
    undone = capsys.readouterr().out
    assert undone.startswith("Undone: telegram:42's 👎 on “2505.17083” (arXiv:2505.17083).")
    assert "telegram:42's next digest" in undone and "1 reaction of telegram:42 left." in undone
    assert "your" not in undone.lower() and "/reactions" not in undone  # the operator's words, not the member's
    assert main(["reactions", "--user", "telegram:42", "--reset"]) == 1  # not without --yes
    assert "add --yes" in capsys.readouterr().err
    assert main(["reactions", "--user", "telegram:42", "--reset", "--yes"]) == 0
    reset = capsys.readouterr().out
    assert "Deleted 1 reaction of telegram:42" in reset and "telegram:42's next digest" in reset
    assert main(["reactions", "--user", "telegram:42"]) == 0
    assert "telegram:42 has no reactions." in capsys.readouterr().out
    assert main(["reactions", "--user", "telegram:42", "--undo", "1"]) == 1
    assert "telegram:42 has no reactions to undo" in capsys.readouterr().err
    assert main(["reactions", "--user", "not a key"]) == 1


@pytest.mark.usefixtures("two_reactions")
def test_the_cli_names_its_own_flags_when_the_reaction_to_undo_is_not_there(capsys: pytest.CaptureFixture[str]) -> None:
    for which in ("3", "0", "2505.99999"):
        assert main(["reactions", "--user", "telegram:42", "--undo", which]) == 1
        said = capsys.readouterr().err
        assert "paperscout reactions --user telegram:42" in said  # the CLI's own command, not chat's
        assert "/reactions" not in said and "you" not in said.lower()  # the operator's words, not the member's
    assert main(["reactions", "--user", "telegram:42", "--undo", "3"]) == 1
    assert "telegram:42 has 2 reactions: --undo 1 to 2 (1 is the latest)" in capsys.readouterr().err
    assert main(["reactions", "--user", "telegram:42", "--undo", "2505.99999"]) == 1
    assert "telegram:42 has no reaction to '2505.99999'" in capsys.readouterr().err


async def test_the_undo_button_names_a_paper_never_a_number_of_a_list(core: Core, store_day: StoreDay) -> None:
    from bot.chat import ChatController, Incoming, Place, Speaker, TextReply

    papers = await store_day(core)
    await reactions.react(core, USER, papers[0], 1)
    ctl = ChatController(core)
    speaker, place = Speaker(USER), Place("console", "terminal")
    (forged,) = await ctl.handle(Incoming(speaker, place, button="ps:undo:1"))
    assert isinstance(forged, TextReply) and "older version" in forged.text
    assert len(await reactions.reactions_of(core, USER)) == 1
    (undone,) = await ctl.handle(Incoming(speaker, place, button=f"ps:undo:{papers[0].id}"))
    assert isinstance(undone, TextReply) and undone.text.startswith("Undone: your 👍 on “")
    assert await reactions.reactions_of(core, USER) == []
    (again,) = await ctl.handle(Incoming(speaker, place, button=f"ps:undo:{papers[0].id}"))
    assert isinstance(again, TextReply) and again.text == "You have no reactions to undo."


async def test_why_speaks_of_reactions_only_for_the_members_own_ranking(core: Core, store_day: StoreDay) -> None:
    from bot.chat import ChatController, Incoming, Place, Speaker
    from bot.members.settings import profile_owner
    from bot.models import Target

    papers = await store_day(core)
    await core.repo.save_profile("channel:telegram:-100", PROFILE)
    await core.repo.save_target(Target("telegram", "-100", PROFILE.name), "channel:telegram:-100")
    member = "telegram:7"
    for paper, value in ((papers[0], 1), (papers[1], -1), (papers[2], 1)):
        await reactions.react(core, member, paper, value)
    ctl = ChatController(core)
    group = Place("telegram", "-100", is_dm=False)
    (in_group,) = await ctl.handle(Incoming(Speaker(member), group, command="why", args=papers[5].id))
    assert "For profile 'test'" in in_group.text and "reaction" not in in_group.text  # the channel's ranking

    await core.repo.save_profile(profile_owner(member), PROFILE)
    (own,) = await ctl.handle(Incoming(Speaker(member), Place("telegram", "7"), command="why", args=papers[5].id))
    assert "Your 3 reactions move it " in own.text


def test_a_title_named_in_a_reply_is_cut_at_a_word_boundary() -> None:
    title = "Dynamic Estimation Loss Control in Variational Quantum Sensing via Online Conformal Inference"
    clipped = reactions._clip(title)
    assert len(clipped) <= 80 and clipped.endswith("…")
    assert title.startswith(clipped[:-1]) and title[len(clipped) - 1] == " "  # never "Confo…"


async def test_an_undo_out_of_range_counts_the_members_reactions_in_words(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    await reactions.react(core, USER, papers[0], 1)
    with pytest.raises(reactions.NoSuchReaction) as one:
        await reactions.undo(core, USER, "3")
    assert str(one.value) == "You have one reaction: undo 1."
    await reactions.react(core, USER, papers[1], -1)
    with pytest.raises(reactions.NoSuchReaction) as two:
        await reactions.undo(core, USER, "3")
    assert str(two.value) == "You have 2 reactions: undo 1 to 2 (1 is the latest)."


@pytest.mark.usefixtures("two_reactions")
def test_the_cli_says_there_is_no_such_member_rather_than_no_reactions(capsys: pytest.CaptureFixture[str]) -> None:
    """`paperscout reactions --user console:nobody` said "console:nobody has no reactions." of a member who does not
    exist (a typo in the key looked like a member without thumbs)."""
    for extra in ([], ["--undo", "1"], ["--reset", "--yes"]):
        assert main(["reactions", "--user", "console:nobody", *extra]) == 1
        said = capsys.readouterr().err
        assert "there is no member console:nobody" in said and "paperscout users" in said, said
