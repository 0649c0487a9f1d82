"""The onboarding conversation: a platform-free state machine that walks a member through their interest profile.

Steps (declared once, in `steps.FLOW`): interests -> avoid -> authors -> categories -> rate (5 diverse recent
papers) -> digest (off/daily/weekly) -> weekday (weekly only) -> time -> timezone -> saved. The chat controller
(`bot.chat`) feeds it what a person typed or the button they pressed and renders the `Reply`.

Modules: `state` (the stored state and the replies), `steps` (the step table and one handler per step), `flow`
(the engine, the flow's commands, the entry points), `drafts` (draft <-> profile), `rating` (papers to rate),
`hygiene` (cleaning what people type).
"""

from bot.members.onboarding.drafts import build_profile, draft_from_saved, profile_name, summary
from bot.members.onboarding.flow import (
    FLOW_COMMANDS,
    HELP,
    advance,
    ask_again,
    begin_edit,
    current_step,
    handle,
    is_active,
    load,
    resume,
    show_profile,
    start,
    which_field,
)
from bot.members.onboarding.hygiene import MAX_INPUT, clean_input, split_items, strip_controls
from bot.members.onboarding.rating import papers_to_rate, pick_diverse
from bot.members.onboarding.state import STATE_KIND, Choice, Draft, OnboardingState, Reply
from bot.members.onboarding.steps import FIELDS, FLOW, STEPS

__all__ = [
    "FIELDS",
    "FLOW",
    "FLOW_COMMANDS",
    "HELP",
    "MAX_INPUT",
    "STATE_KIND",
    "STEPS",
    "Choice",
    "Draft",
    "OnboardingState",
    "Reply",
    "advance",
    "ask_again",
    "begin_edit",
    "build_profile",
    "clean_input",
    "current_step",
    "draft_from_saved",
    "handle",
    "is_active",
    "load",
    "papers_to_rate",
    "pick_diverse",
    "profile_name",
    "resume",
    "show_profile",
    "split_items",
    "start",
    "strip_controls",
    "summary",
    "which_field",
]
