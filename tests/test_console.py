"""`paperscout console` end to end: onboarding, personal digest, a thumbs down that changes the next digest,
export and forget, and resuming an unfinished onboarding in a later session. Input comes from a pipe."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import load_settings
from bot.core import open_core
from bot.embeddings.embedder import LocalEmbedder
from bot.frontends.console import CONSOLE_PLACE
from bot.members.settings import profile_owner
from bot.models import Profile, Target
from tests.conftest import StoreDay

KEY = "console:ada"
_DIGEST_LINK = re.compile(r"^    https://arxiv\.org/abs/(\S+)$", re.MULTILINE)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: LocalEmbedder, store_day: StoreDay) -> Path:
    """A PAPERSCOUT_HOME holding the first 60 papers of the bundled day; the CLI reuses the session's model."""
    monkeypatch.setenv("PAPERSCOUT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PAPERSCOUT_ARXIV_RSS_URL", "http://127.0.0.1:9/rss/")
    monkeypatch.setenv("PAPERSCOUT_ASK_COOLDOWN_SECONDS", "0")  # the sessions below ask several questions in a row
    monkeypatch.setenv("PAPERSCOUT_ARXIV_API_URL", "http://127.0.0.1:9/api/query")
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)
    monkeypatch.delenv("PAPERSCOUT_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("PAPERSCOUT_LLM_API_KEY", raising=False)
    monkeypatch.setattr("bot.core.make_embedder", lambda settings: embedder)

    async def fill() -> None:
        async with open_core(load_settings(), embedder) as core:
            await store_day(core)

    asyncio.run(fill())
    return tmp_path / "home"


def console(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *lines: str) -> str:
    """Run `paperscout console --user ada` with `lines` piped in; returns what it printed."""
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    capsys.readouterr()
    assert main(["console", "--user", "ada"]) == 0
    return capsys.readouterr().out


def digests(out: str) -> list[list[str]]:
    """Every personal digest printed (plain text, not Markdown): its paper ids in digest order."""
    blocks = out.split("ada (personal): arXiv digest for ")[1:]
    return [_DIGEST_LINK.findall(b.split("\n> ", 1)[0]) for b in blocks]


async def stored(home: Path, embedder: LocalEmbedder) -> dict[str, object]:
    async with open_core(load_settings(), embedder) as core:
        return {
            "user": await core.repo.get_user(KEY),
            "profile": await core.repo.get_profile(profile_owner(KEY)),
            "feedback": await core.repo.user_feedback_rows(KEY),
        }


ONBOARDING = [
    "",  # empty: asked again
    "x" * 5000,  # a paste accident: asked again
    "graph neural networks; theory of deep learning optimisation",
    "medical imaging",
    "Judea Pearl; Nobody Atall",
    "anyway",
    "cs.LG",
    "up",
    "skip",
    "down",
    "skip",
    "skip",
    "daily",
    "8:15",
    "Europe/Paris",
]


def test_onboarding_digest_thumbs_down_changes_the_next_digest_then_export_and_forget(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], embedder: LocalEmbedder
) -> None:
    out = console(
        monkeypatch, capsys, *ONBOARDING, "/profile", "/digest", "/down 1", "/digest", "/export", "/forget", "yes"
    )
    assert "Hi! Let's set up your personal paper feed" in out
    assert "I didn't get an answer." in out and "That message is 5,000 characters" in out
    assert "no author called 'Nobody Atall'" in out and "Paper 1 of 5" in out and "All set!" in out
    assert "Authors: Judea Pearl; Nobody Atall" in out
    assert "Personal digest: daily, every announcement day at 08:15 (Europe/Paris)" in out

    first, second = digests(out)
    assert len(first) == 15 and len(second) == 15
    assert "###" not in out and "**" not in out  # a terminal gets readable text, not raw Markdown
    assert "novelty" not in out.lower() and "/10" not in out  # no LLM ran: no made-up 1-10 scores
    assert re.search(r"#\d+ of \d+ papers on 2025-05-26", out)  # its standing; rated papers rank too, left out
    downvoted = first[0]
    assert "Noted: less like “" in out
    assert downvoted not in second

    export_text = out.split("> /export\n", 1)[1].split("\n> /forget", 1)[0].split("\n", 1)[1]
    exported = json.loads(export_text)
    assert exported["user_key"] == KEY and exported["personal_digest"]["timezone"] == "Europe/Paris"
    assert {"paper_id": downvoted, "rating": "down"}.items() <= next(
        f for f in exported["feedback"] if f["paper_id"] == downvoted
    ).items()
    assert "Nothing about you is stored any more" in out

    left = asyncio.run(stored(home, embedder))
    assert left["user"] is None and left["profile"] is None and left["feedback"] == []


def test_an_unfinished_onboarding_resumes_in_the_next_session(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = console(monkeypatch, capsys, "sparse attention", "/digest")
    assert "Your profile is not saved yet" in out and "or /cancel to stop" in out
    assert out.rstrip().endswith("Anything unfinished is kept; run paperscout console again to continue.")
    out = console(monkeypatch, capsys, "/status", "/skip", "/cancel", "/digest", "/quit")
    assert "Welcome back! Let's continue where we stopped." in out
    assert "Interests: sparse attention" in out
    assert "Cancelled. Nothing new was saved" in out and "You have no profile yet" in out
    assert out.rstrip().endswith("Bye.")


def test_questions_are_answered_with_citations_followed_up_and_forgotten(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], embedder: LocalEmbedder
) -> None:
    out = console(
        monkeypatch,
        capsys,
        "/ask papers about toxicity today",  # during onboarding: answered, onboarding untouched
        "/cancel",
        "which of those are about health?",  # not a command: a question, following up the last one
        "/ask",
        "/export",
        "/forget",
        "yes",
    )
    first = out.split("> /ask papers about toxicity today\n", 1)[1].split("\n> /cancel", 1)[0]
    assert "[1] " in first and "https://arxiv.org/abs/2505.17068" in first and "2505.17078" in first
    follow_up = out.split("> which of those are about health?\n", 1)[1].split("\n> /ask\n", 1)[0]
    assert "https://arxiv.org/abs/2505.17068" in follow_up and "2505.17078" not in follow_up
    assert "Ask something after /ask" in out

    exported = json.loads(out.split("> /export\n", 1)[1].split("\n> /forget", 1)[0].split("\n", 1)[1])
    (question,) = exported["last_questions"]
    assert question["conversation"] == KEY and question["context"]["paper_ids"] == ["2505.17068"]
    assert "your last questions" in out

    async def conversations_left() -> list[tuple[str, str, str]]:
        async with open_core(load_settings(), embedder) as core:
            return await core.repo.conversations_of(KEY)

    assert asyncio.run(conversations_left()) == []


@pytest.mark.slow  # onboarding and a dozen commands, each a real turn of the console
def test_reactions_say_what_they_changed_and_are_listed_undone_and_reset(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], embedder: LocalEmbedder
) -> None:
    out = console(
        monkeypatch,
        capsys,
        *ONBOARDING,
        "/digest",
        "/up 1",
        "/up 2",
        "/why 2",
        "/reactions",
        "/reactions undo 1",
        "/reactions",
        "/reactions reset",
        "no",
        "/reactions reset",
        "1",
        "/reactions",
    )
    # onboarding's two ratings: the digest leaves those papers out, and its footer names no buttons, once
    rated = asyncio.run(stored(home, embedder))["feedback"]
    (first, *_) = digests(out)
    assert len(first) == 15 and not {r.paper_id for r in rated} & set(first)
    digest_block = out.split("> /digest\n", 1)[1].split("\n> /up 1", 1)[0]
    assert "button" not in digest_block.lower() and digest_block.count("/up N") == 1
    assert "2 papers you already rated are left out (/reactions)." in digest_block

    up1 = out.split("> /up 1\n", 1)[1].split("\n> ", 1)[0]
    assert up1.startswith("Noted: more like “") and "”. Your next digest moves papers " in up1
    assert "3 reactions so far; /reactions to see or undo them." in up1
    assert "Undo" not in up1, "the terminal cannot press the Undo button: the text names the command"
    why = out.split("> /why 2\n", 1)[1].split("\n> ", 1)[0]
    assert "You gave it a 👍 on " in why and "/reactions to see or undo it." in why
    listed = out.split("> /reactions\n", 1)[1].split("\n> ", 1)[0]
    assert listed.startswith("Your 4 reactions, the latest first:\n1. 👍 ")
    assert f"(arXiv:{first[1]}, " in listed.splitlines()[1] and f"(arXiv:{first[0]}, " in listed.splitlines()[2]
    undone = out.split("> /reactions undo 1\n", 1)[1].split("\n> ", 1)[0]
    assert undone.startswith("Undone: your 👍 on “") and "3 reactions left" in undone
    assert "Kept your reactions." in out
    assert "Deleted your 3 reactions: your profile alone ranks your digest again." in out
    assert out.split("> /reactions\n")[-1].startswith("You have no reactions yet")
    assert asyncio.run(stored(home, embedder))["feedback"] == []


def test_setup_takes_its_answers_inline_on_one_line(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], embedder: LocalEmbedder
) -> None:
    out = console(
        monkeypatch,
        capsys,
        "/cancel",
        "/setup categories=cs.LG time=08:00 tz=Europe/Paris size=5 profile=graph neural networks; diffusion models",
        "/setup time=25:99",
    )

    async def target() -> tuple[Target, Profile] | None:
        async with open_core(load_settings(), embedder) as core:
            return await core.repo.target_at(CONSOLE_PLACE.platform, CONSOLE_PLACE.chat_id)

    saved = asyncio.run(target())
    assert saved is not None
    digest, profile = saved
    assert (digest.categories, digest.post_time, digest.timezone, digest.digest_size) == (
        ("cs.LG",),
        "08:00",
        "Europe/Paris",
        5,
    )
    assert [t.want for t in profile.topics] == ["graph neural networks", "diffusion models"]
    assert "/setup time:" in out and "Nothing was changed." in out
