"""How the bot writes a count of things in its replies and pages ("1 paper", "3 days")."""

from __future__ import annotations


def count_of(n: int, noun: str) -> str:
    """'1 day', '3 days': `n` and `noun`, in the plural unless `n` is one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
