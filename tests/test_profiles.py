"""Profile files: the shared example loads as is; mistakes are named precisely."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ingest.bundled import bundled_file
from bot.ranking.profiles import load_profile
from bot.store.profile_format import ProfileError, profile_from_json, profile_from_mapping, profile_to_json

from .conftest import SHARED_DATA


def test_the_shared_foundations_profile_loads_as_is() -> None:
    path = SHARED_DATA / "profiles" / "foundations.toml"
    if not path.exists():
        path = bundled_file("example_profile.toml")
    profile = load_profile(path)
    assert profile.name == "ML foundations"
    assert len(profile.topics) == 6
    assert "mixture of experts" in profile.boost
    assert "federated learning" in profile.penalize
    assert profile.categories == ("cs.LG", "cs.AI")
    assert profile.keep_if.startswith("relevance >= 8")
    assert profile_from_json(profile_to_json(profile)) == profile


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"\ncolour = "red"\n[[topics]]\nwant = "a"\n', "unknown field 'colour' in profile"),
        ('[[topics]]\nwant = "a"\nwnat = "b"\n', "unknown field 'wnat' in topic 1"),
        ('[[topics]]\nname = "t"\n', "topic 1 'want' must be non-empty text"),
        ('[keywords]\nboost = "moe"\n', "keywords.boost must be a list of strings"),
        ('name = "x"\n', "needs at least one topic"),
        ("name = [unclosed\n", "not valid TOML"),
        ('categories = ["cs.ML"]\n[[topics]]\nwant = "a"\n', "'cs.ML': not an arXiv category; did you mean stat.ML"),
    ],
)
def test_profile_mistakes_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=message.replace("(", r"\(")) as info:
        load_profile(path)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_profile_categories_are_canonical_codes() -> None:
    data = {"categories": ["cs.lg", " STAT.ML ", "cs.LG", "computer vision"], "topics": [{"want": "a"}]}
    assert profile_from_mapping(data).categories == ("cs.LG", "stat.ML", "cs.CV")
    # a profile stored before categories were checked still loads, unknown codes and all
    assert profile_from_json('{"categories": ["cs.ML", "cs.lg"], "topics": [{"want": "a"}]}').categories == (
        "cs.ML",
        "cs.LG",
    )


def test_a_missing_profile_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="profile file not found"):
        load_profile(tmp_path / "nope.toml")
