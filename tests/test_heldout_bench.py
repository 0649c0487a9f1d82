"""The held-out bench runs the parts a set's folder holds (`bench/heldout_questions.py`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from heldout_questions import parts


def test_a_folder_of_searches_alone_runs_its_searches(tmp_path: Path) -> None:
    (tmp_path / "search.jsonl").write_text('{"id": "s01"}\n', encoding="utf-8")
    assert parts(tmp_path, None) == ["search"]
    assert parts(tmp_path, "search") == ["search"]
    with pytest.raises(FileNotFoundError, match=r"questions\.jsonl"):
        parts(tmp_path, "questions")


def test_a_full_set_runs_both_parts_and_an_empty_folder_none(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        parts(tmp_path, None)
    for name in ("questions.jsonl", "search.jsonl"):
        (tmp_path / name).write_text("", encoding="utf-8")
    assert parts(tmp_path, None) == ["questions", "search"]
    assert parts(tmp_path, "questions") == ["questions"]


def test_the_misses_bench_wraps_the_retrieval_steps_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    # bench/heldout_misses.py records each step by wrapping it: a step renamed or given a parameter broke it unseen
    import inspect

    import heldout_misses

    from bot.questions import retrieval

    steps = ("_candidates", "without_excluded", "_admitted", "_with_vectors", "select")
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    arity = {
        n: sum(p.kind in positional for p in inspect.signature(getattr(retrieval, n)).parameters.values())
        for n in steps
    }
    for name in steps:
        monkeypatch.setattr(retrieval, name, getattr(retrieval, name))  # each step restored after the test
    heldout_misses._instrument()
    for name in steps:
        inspect.signature(getattr(retrieval, name)).bind(*[None] * arity[name])  # TypeError: a parameter missing


def test_the_misses_bench_runs_only_the_parts_a_set_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a set of questions alone (bench/kinds12) printed its question misses, then failed on the missing search.jsonl;
    # the parts are read before any store is opened, as bench/heldout_questions.py reads them
    import asyncio

    import heldout_misses

    (tmp_path / "questions.jsonl").write_text("", encoding="utf-8")
    monkeypatch.setattr("sys.argv", ["heldout_misses.py", "--set", str(tmp_path), "--only", "search"])
    with pytest.raises(FileNotFoundError, match=r"search\.jsonl"):
        asyncio.run(heldout_misses.main())
    assert heldout_misses.parts(tmp_path, None) == ["questions"]


def test_a_search_runs_over_the_days_it_was_labelled_over() -> None:
    # search14 scopes "survey papers" to Thursday: a Monday survey is unlabelled, not off topic, so it is out of scope
    import datetime as dt

    from heldout_questions import search_window

    last = dt.date(2025, 5, 30)
    assert search_window({"days": ["2025-05-29"]}, last) == (dt.date(2025, 5, 29), dt.date(2025, 5, 29))
    every = ["2025-05-26", "2025-05-28", "2025-05-29", "2025-05-30"]
    assert search_window({"days": every}, last) == (dt.date(2025, 5, 26), last)
    assert search_window({}, last) == (None, last)
