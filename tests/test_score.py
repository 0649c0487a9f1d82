"""LLM scoring, LLM TL;DRs and cost accounting through the real openai client against the fake over HTTP."""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bot.config import Settings
from bot.core import Core, open_core
from bot.digests.build import build_digest
from bot.embeddings.embedder import LocalEmbedder, paper_vectors
from bot.ingest.bundled import bundled_file
from bot.llm.usage import usage_run, utc_today
from bot.models import Paper
from bot.ranking.llm_score import parse_scores
from bot.ranking.profiles import load_profile
from bot.text.tldr import parse_tldrs
from bot.views.render import digest_json, digest_markdown
from tests.fakes.openai_server import TEST_API_KEY, FakeOpenAI, Fault
from tests.fakes.paperscout_llm import PaperscoutResponder, request_kind, request_papers

DAY = dt.date(2025, 5, 26)
SHORTLIST = 24
BATCH = 8
SIZE = 5
PROFILE = load_profile(bundled_file("example_profile.toml"))


# ---------------------------------------------------------------- parsing, no network


def test_parse_scores_strict_json() -> None:
    text = json.dumps({"scores": [[1, 9, 7], [2, 3, 4]], "comments": [{"id": 1, "text": "Fits MoE routing."}]})
    parsed = parse_scores(text, 2)
    assert (parsed[1].relevance, parsed[1].novelty, parsed[1].comment) == (9, 7, "Fits MoE routing.")
    assert (parsed[2].relevance, parsed[2].novelty, parsed[2].comment) == (3, 4, "")


def test_parse_scores_drops_only_the_bad_entries() -> None:
    text = json.dumps(
        {"scores": [[1, 9, 7], [2, 42, 4], [3, "x", 4], [9, 5, 5], [4, 5], [5, 6.5, "7"]], "comments": []}
    )
    assert sorted(parse_scores(text, 5)) == [1, 5]  # out of range, not a grade, unknown id, short triple dropped


def test_parse_scores_recovers_complete_entries_from_truncated_json() -> None:
    full = json.dumps({"scores": [[i, 8, 6] for i in range(1, 11)], "comments": [{"id": 1, "text": "Fits."}]})
    parsed = parse_scores(full[: len(full) // 2], 10)
    assert 3 <= len(parsed) < 10 and set(parsed) == set(range(1, len(parsed) + 1))


def test_parse_scores_tolerates_fences_prose_and_plain_lines() -> None:
    fenced = 'Here you go:\n```json\n{"scores": [[1, 8, 7]], "comments": [{"id": 1, "text": "Fits."}]}\n```'
    assert parse_scores(fenced, 1)[1].comment == "Fits."
    lines = "1: 8, 7 - Matches model architecture\n2 | relevance 3 | novelty 2\nno idea about 3\n4) 11, 2"
    parsed = parse_scores(lines, 4)
    assert sorted(parsed) == [1, 2]
    assert parsed[1].comment == "Matches model architecture" and parsed[2].relevance == 3
    assert parse_scores("I cannot help with that.", 3) == {}


def test_parse_tldrs_json_and_lines() -> None:
    assert parse_tldrs(json.dumps({"tldrs": [{"id": 2, "text": "A router that balances load."}]}), 2) == {
        2: "A router that balances load."
    }
    assert parse_tldrs("1| Sparse heads make cheap ensembles.\n7| out of range entry here", 2) == {
        1: "Sparse heads make cheap ensembles."
    }
    broken = '{"tldrs": [{"id": 1, "text": "Complete one here."}, {"id": 2, "text": "cut sho'
    assert parse_tldrs(broken, 2) == {1: "Complete one here."}


# ---------------------------------------------------------------- through the fake, over HTTP


@pytest.fixture(scope="module")
def small_day(demo_papers: list[Paper], embedder: LocalEmbedder) -> tuple[list[Paper], np.ndarray]:
    """60 papers of the bundled day with their vectors, embedded once for the whole module."""
    papers = demo_papers[:60]
    return papers, paper_vectors(embedder.embed, papers)


@pytest.fixture
def llm_core_factory(
    tmp_path: Path, fake_openai: FakeOpenAI, embedder: LocalEmbedder, small_day: tuple[list[Paper], np.ndarray]
) -> Callable[..., Any]:
    """Opens a Core whose LLM is `fake_openai` (scoring responder), with the small day stored."""
    fake_openai.responder = PaperscoutResponder()

    @asynccontextmanager
    async def factory(**overrides: Any) -> AsyncIterator[Core]:
        values: dict[str, Any] = {
            "home": tmp_path / "home",
            "arxiv_rss_url": "http://127.0.0.1:9/rss/",
            "llm_base_url": fake_openai.base_url,
            "llm_api_key": TEST_API_KEY,
            "llm_model": "test-model",
            "llm_timeout_seconds": 5.0,
            "llm_max_retries": 1,
            "llm_shortlist_size": SHORTLIST,
            "llm_score_batch_size": BATCH,
        }
        values.update(overrides)
        async with open_core(Settings(**values), embedder) as core:
            papers, vectors = small_day
            await core.repo.upsert_papers(papers)
            await core.vectors.upsert(papers, vectors)
            yield core

    return factory


def score_requests(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [r.body for r in fake.chat_requests() if r.body and request_kind(r.body) == "score" and r.body]


def tldr_requests(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [r.body for r in fake.chat_requests() if r.body and request_kind(r.body) == "tldr"]


async def test_llm_digest_has_scores_comments_tldrs_and_cost_table(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    async with llm_core_factory() as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE, target="console:test")
        text = digest_markdown(digest)
        assert digest.picked == SIZE and not digest.notes
        assert digest.usage["scores_new"] == SHORTLIST and digest.usage["tldrs_new"] == SIZE
        assert all(1 <= i.relevance <= 10 and 1 <= i.novelty <= 10 for i in digest.items)
        assert [i.score for i in digest.items] == sorted((i.score for i in digest.items), reverse=True)
        commented = [i for i in digest.items if i.comment]
        assert commented and all(i.comment.startswith("Matches ") and i.relevance >= 8 for i in commented)
        assert "| scoring | 3 |" in text and "| TL;DRs | 1 |" in text and "| **total** | 4 |" in text
        assert f"LLM scored {SHORTLIST} of {SHORTLIST} shortlisted papers." in text
        assert json.loads(digest_json(digest))["usage"]["score.calls"] == 3

        # structured output was asked for, the shortlist went out in batches, TL;DRs once for the digest
        bodies = score_requests(fake_openai)
        assert [len(request_papers(b)) for b in bodies] == [BATCH] * 3
        assert all(b["response_format"]["type"] == "json_schema" for b in bodies)
        assert [len(request_papers(b)) for b in tldr_requests(fake_openai)] == [SIZE]

        # TL;DRs are stored with the model as source, and in Chroma next to the paper
        ids = [i.paper.id for i in digest.items]
        assert {source for _, source in (await core.repo.tldrs_with_sources(ids)).values()} == {"test-model"}
        stored = await core.repo.tldrs(ids)
        assert [stored[i] for i in ids] == [i.tldr for i in digest.items]
        collection = await core.vectors.collection()
        metas = collection.get(ids=ids, include=["metadatas"])["metadatas"]
        assert {m["tldr"] for m in metas} == set(stored.values())

        # accounting: per run, day, target and purpose, and the digest's figures match the table
        by_purpose = await core.repo.llm_usage_totals(by="purpose", day=utc_today())
        assert {k: v.calls for k, v in by_purpose.items()} == {"score": 3, "tldr": 1}
        by_target = await core.repo.llm_usage_totals(by="target")
        assert list(by_target) == ["console:test"]
        assert by_target["console:test"].total_tokens == digest.usage["total_tokens"] > 0
        assert await core.repo.llm_spent_on(utc_today()) == pytest.approx(digest.usage["cost_usd"])
        assert len(await core.repo.llm_usage_totals(by="run")) == 1


async def test_cache_hit_spends_zero_tokens(llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI) -> None:
    async with llm_core_factory() as core:
        first = await build_digest(core, PROFILE, DAY, size=SIZE)
        sent = len(fake_openai.chat_requests())
        again = await build_digest(core, PROFILE, DAY, size=SIZE)
        assert len(fake_openai.chat_requests()) == sent  # the fake received nothing new
        assert again.usage["total_tokens"] == 0 and again.usage["scores_cached"] == SHORTLIST
        assert again.usage["tldrs_cached"] == SIZE
        assert [i.paper.id for i in again.items] == [i.paper.id for i in first.items]
        assert [i.tldr for i in again.items] == [i.tldr for i in first.items]
        assert "spending no tokens" in digest_markdown(again)


async def test_missing_and_malformed_answers_are_retried_alone(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    good = PaperscoutResponder()
    calls = {"score": 0}

    def responder(request: dict[str, Any]) -> str:
        answer = good(request)
        if request_kind(request) != "score":
            return answer
        calls["score"] += 1
        if calls["score"] > 1:
            return answer
        data = json.loads(answer)
        scores = [s for s in data["scores"] if s[0] not in (2, 5)]  # 2 and 5 missing
        scores = [[3, 42, 7] if s[0] == 3 else s for s in scores]  # 3 out of range
        return json.dumps({"scores": scores, "comments": data["comments"]})

    fake_openai.responder = responder
    async with llm_core_factory() as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    first, *_, retry = score_requests(fake_openai)
    asked_first = dict(request_papers(first))
    assert [text for _, text in request_papers(retry)] == [asked_first[2], asked_first[3], asked_first[5]]
    assert len(score_requests(fake_openai)) == 4  # three batches, then one retry of three papers
    assert digest.usage["scores_new"] == SHORTLIST and not digest.notes


async def test_truncated_answer_retries_only_the_cut_papers(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    good = PaperscoutResponder()

    def responder(request: dict[str, Any]) -> str:
        answer = good(request)
        if request_kind(request) == "score":  # comments last and short, so half the text is half the scores
            return json.dumps({"scores": json.loads(answer)["scores"], "comments": []})
        return answer

    fake_openai.responder = responder
    fake_openai.enqueue(Fault.truncated())
    async with llm_core_factory() as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    bodies = score_requests(fake_openai)
    retried = [len(request_papers(b)) for b in bodies[3:]]
    assert 1 <= sum(retried) < BATCH  # the complete half of the cut answer was kept
    assert max(retried) <= BATCH // 2  # asked again in smaller batches
    assert digest.usage["scores_new"] == SHORTLIST and not digest.notes


async def test_request_too_large_for_the_context_is_split(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    fake_openai.enqueue(Fault.status_code(413))  # as a small local model's server refuses an over-long prompt
    async with llm_core_factory() as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    assert [len(request_papers(b)) for b in score_requests(fake_openai)] == [
        BATCH,
        BATCH // 2,
        BATCH // 2,
        BATCH,
        BATCH,
    ]
    assert digest.usage["scores_new"] == SHORTLIST and not digest.notes


async def test_garbage_half_the_time_still_gives_a_complete_digest(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    good = PaperscoutResponder()
    count = {"n": 0}

    def responder(request: dict[str, Any]) -> str:
        count["n"] += 1
        if count["n"] % 2:
            return ["Sure! Here are my thoughts on these papers...", '{"scores": [[1, ', "```\nnull\n```"][
                count["n"] % 3
            ]
        return good(request)

    fake_openai.responder = responder
    async with llm_core_factory() as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    assert digest.picked == SIZE
    assert all(i.tldr and 1 <= i.relevance <= 10 for i in digest.items)
    assert digest.usage["scores_new"] + digest.usage["scores_missing"] == SHORTLIST
    assert digest.usage["scores_new"] > 0


async def test_rate_limit_then_success(llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI) -> None:
    fake_openai.enqueue(Fault.rate_limit(retry_after=0.2))
    async with llm_core_factory() as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    requests = fake_openai.chat_requests()
    assert requests[1].at - requests[0].at >= 0.15  # retry-after honoured
    assert digest.usage["scores_new"] == SHORTLIST and not digest.notes


async def test_timeout_falls_back_to_the_ranker_with_a_footer_note(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    fake_openai.enqueue(Fault.delay(3), Fault.delay(3))
    async with llm_core_factory(llm_timeout_seconds=0.4) as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
        local = await build_digest(core, PROFILE, DAY, size=SIZE, use_llm=False)
    assert [i.paper.id for i in digest.items] == [i.paper.id for i in local.items]
    assert [i.score for i in digest.items] == [i.score for i in local.items]
    assert any("timed out" in note for note in digest.notes)
    assert any("ranked by the local embedding ranker" in note for note in digest.notes)
    assert len(fake_openai.chat_requests()) == 2  # one try plus one retry, then no more calls (no TL;DRs)
    assert all(i.tldr for i in digest.items)
    text = digest_markdown(digest)
    assert "timed out" in text.rsplit("###", 1)[1]  # in the footer, after the last paper


async def test_daily_cap_reached_falls_back(llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI) -> None:
    async with llm_core_factory(llm_daily_budget_usd=0.5) as core:
        with usage_run("elsewhere"):
            await core.repo.record_llm_usage(
                day=utc_today(),
                purpose="answer",
                model="test-model",
                target="elsewhere",
                run_id="x",
                prompt_tokens=1,
                completion_tokens=1,
                cost_usd=0.5,
            )
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
        local = await build_digest(core, PROFILE, DAY, size=SIZE, use_llm=False)
    assert fake_openai.chat_requests() == []
    assert [i.paper.id for i in digest.items] == [i.paper.id for i in local.items]
    assert any("Daily LLM budget of $0.50 reached" in note for note in digest.notes)
    assert "Daily LLM budget" in digest_markdown(digest)


async def test_cap_reached_midway_keeps_what_was_scored(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    # At $1 per thousand tokens one batch (~1,000 prompt tokens, up to 272 completion) is estimated near $1.3.
    prices = {"llm_price_prompt_per_mtok": 1000.0, "llm_price_completion_per_mtok": 1000.0}
    async with llm_core_factory(llm_daily_budget_usd=2.0, **prices) as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
        spent = await core.repo.llm_spent_on(utc_today())
    assert len(score_requests(fake_openai)) == 1 and tldr_requests(fake_openai) == []
    assert spent <= 2.0
    assert digest.usage["scores_new"] == BATCH and digest.usage["scores_missing"] == SHORTLIST - BATCH
    assert any("budget" in note for note in digest.notes)
    assert any(f"{SHORTLIST - BATCH} of {SHORTLIST}" in note for note in digest.notes)


async def test_server_without_json_schema_gets_a_plain_line_answer(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI
) -> None:
    fake_openai.supports_json_schema = False
    good = PaperscoutResponder()

    def responder(request: dict[str, Any]) -> str:
        if request_kind(request) == "score":
            return "\n".join(
                f"{key}: {7 + key % 3}, {4 + key % 5} - Matches a topic" for key, _ in request_papers(request)
            )
        return "\n".join(f"{key}| A one-line summary of paper {key}." for key, _ in request_papers(request)) or good(
            request
        )

    fake_openai.responder = responder
    async with llm_core_factory() as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    assert digest.usage["scores_new"] == SHORTLIST and not digest.notes
    assert all(i.tldr.startswith("A one-line summary") for i in digest.items)
    assert "response_format" not in fake_openai.chat_requests()[-1].body  # remembered: no schema any more


async def test_refused_key_falls_back_without_leaking_it(
    llm_core_factory: Callable[..., Any], fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "sk-wrong-paperscout-key-000000000000"
    async with llm_core_factory(llm_api_key=wrong) as core:
        digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    assert digest.picked == SIZE and any("refused the API key" in n for n in digest.notes)
    assert wrong not in digest_markdown(digest) and wrong not in caplog.text


async def test_no_llm_configured_keeps_the_local_digest(core: Core, small_day: tuple[list[Paper], np.ndarray]) -> None:
    papers, vectors = small_day
    await core.repo.upsert_papers(papers)
    await core.vectors.upsert(papers, vectors)
    assert core.llm is None
    digest = await build_digest(core, PROFILE, DAY, size=SIZE)
    assert digest.usage == {} and digest.notes == () and digest.picked == SIZE
    assert "LLM step" not in digest_markdown(digest) and "LLM scored" not in digest_markdown(digest)


def test_usage_is_summed_per_day_target_purpose_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    from bot.cli import main

    home = tmp_path / "home"
    today, before = utc_today(), utc_today() - dt.timedelta(days=3)

    async def record() -> None:
        async with open_core(Settings(home=home)) as core:
            for day, purpose, target, run, tokens, cost in (
                (today, "score", "discord:1", "r1", 100, 0.01),
                (today, "tldr", "discord:1", "r1", 50, 0.02),
                (today, "answer", "user:telegram:7", "r2", 30, 0.03),
                (before, "score", "discord:1", "r0", 10, 0.5),
            ):
                await core.repo.record_llm_usage(
                    day=day,
                    purpose=purpose,
                    model="m",
                    target=target,
                    run_id=run,
                    prompt_tokens=tokens,
                    completion_tokens=1,
                    cost_usd=cost,
                )
            repo = core.repo
            assert await repo.llm_spent_on(today) == pytest.approx(0.06)
            runs = await repo.llm_usage_totals(by="run", day=today)
            assert {k: v.total_tokens for k, v in runs.items()} == {"r1": 152, "r2": 31}
            targets = await repo.llm_usage_totals(by="target", since=before)
            assert targets["discord:1"].calls == 3 and targets["discord:1"].cost_usd == pytest.approx(0.53)
            assert list(await repo.llm_usage_totals(by="purpose", purpose="answer")) == ["answer"]
            with pytest.raises(ValueError):
                await repo.llm_usage_totals(by="cost_usd; DROP TABLE llm_usage")

    asyncio.run(record())
    monkeypatch.setenv("PAPERSCOUT_HOME", str(home))
    assert main(["usage", "--by", "target", "--days", "1"]) == 0
    out = capsys.readouterr().out
    assert "discord:1" in out and "user:telegram:7" in out and "spent today: $0.0600" in out
    assert main(["usage", "--by", "day", "--days", "7", "--json"]) == 0
    by_day = json.loads(capsys.readouterr().out)
    assert sorted(by_day) == [before.isoformat(), today.isoformat()]
