"""Errors that reach the user as one clear line. Anything else is a bug and keeps its traceback."""

from __future__ import annotations


class PaperscoutError(Exception):
    """Base for errors with a message meant for the person running paperscout."""


class ConfigError(PaperscoutError):
    """Settings that cannot work (bad value, missing file)."""


class InputError(PaperscoutError):
    """Input from a file or a user that cannot be used (malformed JSONL line, bad date)."""


class FeedError(PaperscoutError):
    """An arXiv feed or API answer that could not be parsed; nothing from it was stored."""


class SourceUnavailable(PaperscoutError):
    """A remote service (arXiv, an LLM endpoint) could not be reached or kept failing."""


class StateError(PaperscoutError):
    """The state directory (SQLite file, Chroma directory) is unreadable, corrupt or from a newer version."""
