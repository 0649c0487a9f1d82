"""The application's storage API: every SQL statement of paperscout lives in this package.

`Repository` joins one class per concept, each in its own module: `papers` (papers, full text, TL;DRs),
`targets` (profiles, targets, posting ledger), `llm` (score cache, usage), `members` (users, feedback, question
context), `chat` (the chat controller's flow state), `sentences` (each paper's sentence vectors and vector copy).
Callers get and pass plain models and never write a query.
"""

from __future__ import annotations

from bot.store.repos.chat import ChatRepo
from bot.store.repos.llm import CachedScore, LLMRepo, UsageTotals
from bot.store.repos.members import MembersRepo
from bot.store.repos.papers import PapersRepo, UpsertCounts
from bot.store.repos.sentences import SentenceRow, SentencesRepo, VectorCopyRow, WindowVectorRow
from bot.store.repos.targets import TargetsRepo

__all__ = [
    "CachedScore",
    "Repository",
    "SentenceRow",
    "UpsertCounts",
    "UsageTotals",
    "VectorCopyRow",
    "WindowVectorRow",
]


class Repository(PapersRepo, TargetsRepo, LLMRepo, MembersRepo, ChatRepo, SentencesRepo):
    """Storage over one aiosqlite connection: papers, targets and ledger, LLM cache and usage, members, chat state,
    sentence vectors and vector copies."""
