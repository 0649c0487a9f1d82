"""A member's data: everything stored about them exported as JSON, and forgetting them."""

from __future__ import annotations

import json
from typing import Any

from bot.core import Core
from bot.digests.standing import forget_standings
from bot.members.settings import WEEKDAYS, profile_owner
from bot.ranking import learn
from bot.store.profile_format import profile_to_mapping
from bot.store.repos.members import GIVEN_KEY, LIST_KEY


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


async def export_user(core: Core, user_key: str) -> dict[str, Any]:
    """Everything paperscout stores about a user, as plain data they can read."""
    owner = profile_owner(user_key)
    user = await core.repo.get_user(user_key)
    profile = await core.repo.get_profile(owner)
    feedback = await core.repo.user_feedback_rows(user_key)
    targets = await core.repo.targets_of_profile(owner)
    sent = await core.repo.sent_papers_by_day([t.id for t in targets if t.id is not None])
    flows = await core.repo.chat_states_of(user_key)
    questions = await core.repo.conversations_of(user_key)
    return {
        "user_key": user_key,
        "stored": user is not None or profile is not None or bool(feedback) or bool(questions) or bool(flows),
        "user": None
        if user is None
        else {"display_name": user.display_name, "created_at": user.created_at, "updated_at": user.updated_at},
        "personal_digest": None
        if user is None
        else {
            "mode": user.digest_mode,
            "post_time": user.post_time,
            "timezone": user.timezone,
            "weekly_day": WEEKDAYS[user.weekly_day % 7],
        },
        "profile": profile_to_mapping(profile) if profile else None,
        "feedback": [
            {"paper_id": f.paper_id, "title": f.title, "rating": "up" if f.value > 0 else "down", "at": f.at}
            for f in feedback
        ],
        "feedback_vectors": "derived from the papers you rated; deleted with them by /reactions reset or /forget",
        "chat_state": [
            {"kind": kind, "where": scope or "everywhere", "state": _json_or_text(data), "at": at}
            for kind, scope, data, at in flows
        ],
        "last_questions": [
            {"conversation": conversation, "context": _json_or_text(state), "at": at}
            for conversation, state, at in questions
            if not conversation.startswith((LIST_KEY, GIVEN_KEY))
        ],
        "lists_given": [
            {"list": conversation, "papers": _json_or_text(state), "at": at}
            for conversation, state, at in questions
            if conversation.startswith((LIST_KEY, GIVEN_KEY))
        ],
        "personal_targets": [t.key for t in targets],
        "personal_digests_sent": [{"day": d.isoformat(), "papers": ids} for d, ids in sorted(sent.items())],
    }


async def forget_user(core: Core, user_key: str) -> dict[str, int]:
    """Delete everything stored about a user: feedback and its vectors, profile, personal targets and their
    ledger, settings, any unfinished onboarding and their last questions. Returns how many rows of each kind went;
    safe to repeat."""
    # the user's lock: an onboarding step or a delivery in flight must not store anything afterwards
    async with core.user_locks(user_key), learn.forgetting(core, user_key):
        owner = profile_owner(user_key)
        profile = await core.repo.get_profile(owner)
        if profile is not None:
            core.profile_cache.pop(profile.fingerprint, None)
        forget_standings(core, user_key, profile)
        targets = await core.repo.targets_of_profile(owner)
        usage_targets = [owner, f"ask:{user_key}", *(t.key for t in targets)]
        return await core.repo.delete_user(user_key, owner, usage_targets=usage_targets)
