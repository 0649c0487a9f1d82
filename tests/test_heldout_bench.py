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
