"""Completions of the core (`bot.chat.completion`) as Discord's autocomplete choices: at most 25, each named and
valued in 1-100 characters."""

from __future__ import annotations

from discord import app_commands

from bot.chat.completion import Completion
from bot.views.layout import clip

MAX_CHOICES = 25
CHOICE_MAX = 100


def choices(completions: list[Completion]) -> list[app_commands.Choice[str]]:
    """Completions as choices."""
    return [app_commands.Choice(name=clip(label, CHOICE_MAX), value=value[:CHOICE_MAX]) for label, value in completions]
