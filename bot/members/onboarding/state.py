"""The onboarding state: what a person told us so far (`Draft`) and where the conversation is (`OnboardingState`),
and what a turn shows them (`Reply` with `Choice` buttons and paper cards). All of it round-trips through JSON and is
stored in the chat_state table after every turn, so a conversation survives restarts."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.views.model import Choice, PaperView

STATE_VERSION = 1
STATE_KIND = "onboarding"  # its kind in the chat_state table


@dataclass(frozen=True, slots=True)
class Reply:
    """What to show the person: plain text, then cards, then choices.

    `step` is the step now waiting for an answer ('' once the conversation ended); `done` is True when it ended
    (saved or cancelled) and `saved` when the profile was saved.
    """

    text: str
    choices: tuple[Choice, ...] = ()
    cards: tuple[PaperView, ...] = ()
    step: str = ""
    done: bool = False
    saved: bool = False


@dataclass
class Draft:
    """Everything the person told us so far; nothing here is stored in the profile until the end."""

    interests: list[str] = field(default_factory=list)
    avoid: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    ratings: dict[str, int] = field(default_factory=dict)  # paper id -> +1 / -1, recorded when saved
    digest_mode: str = "off"
    post_time: str = "09:00"
    timezone: str = "UTC"
    weekly_day: int = 0
    # parts of a profile made elsewhere (a TOML file) that this conversation does not ask about but must keep
    boost: list[str] = field(default_factory=list)
    penalize: list[str] = field(default_factory=list)
    applications: list[str] = field(default_factory=list)
    keep_if: str = ""


@dataclass
class OnboardingState:
    """Where one person's onboarding (or the editing of one field) stands; serialisable to JSON."""

    user_key: str = ""
    mode: str = "onboarding"  # onboarding | edit
    step: str = "interests"
    editing: str = ""  # the field being edited (edit mode) or visited with /edit during onboarding
    return_to: str = ""  # during onboarding, where to continue after an /edit detour
    display_name: str = ""
    draft: Draft = field(default_factory=Draft)
    pending: list[dict[str, Any]] = field(default_factory=list)  # authors/categories still to resolve
    rate_ids: list[str] = field(default_factory=list)
    rate_index: int = 0
    choices: list[list[str]] = field(default_factory=list)  # [label, value] of the last reply's choices
    version: int = STATE_VERSION

    def to_json(self) -> str:
        """The state as JSON, for the chat_state table."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> OnboardingState:
        """Parse a state saved by `to_json`; raises ValueError when it is not one."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            raise ValueError("not an onboarding state of this version")
        draft = Draft(**data.pop("draft"))
        conv = cls(**{**data, "draft": draft})
        if conv.mode not in ("onboarding", "edit"):
            raise ValueError(f"unknown mode {conv.mode!r}")
        draft.ratings = {str(k): (1 if int(v) > 0 else -1) for k, v in draft.ratings.items()}
        conv.choices = [[str(label), str(value)] for label, value in conv.choices]
        return conv

    def choice_tuple(self) -> tuple[Choice, ...]:
        """The choices of the last question, as buttons."""
        return tuple(Choice(label, value) for label, value in self.choices)
