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


class ResourceError(PaperscoutError):
    """The system refused what paperscout needs to run (a thread: memory, or the limit on processes and threads)."""


THREAD_REFUSED = "can't start new thread"  # CPython's whole RuntimeError when the system refuses a thread


def thread_refused(exc: BaseException) -> ResourceError | None:
    """A clear error in place of CPython's bare "can't start new thread" (`exc` or what led to it), else None.

    Threads are started everywhere below paperscout (the database connection, the worker threads of every vector
    store call and embedding, the embedding helper's pipes), so it is explained where errors are reported: the CLI's
    one line, the service's job log and `paperscout status`.
    """
    import resource

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ResourceError):  # explained already (the vector store's opening does)
            return current
        if isinstance(current, RuntimeError) and str(current) == THREAD_REFUSED:
            soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
            limit = "unlimited" if soft == resource.RLIM_INFINITY else str(soft)
            return ResourceError(
                "the system refused to start a thread: it is out of memory or at its limit on processes and threads "
                f"(ulimit -u: {limit}; a container's pids limit counts too); free memory, raise the limit or set "
                "PAPERSCOUT_EMBED_THREADS lower, then run it again"
            )
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def explained(exc: BaseException) -> BaseException:
    """`exc`, or the clear error it stands for (`thread_refused`): what a log line or a job's record says."""
    return thread_refused(exc) or exc


# The kinds of failure in a few words, most specific first: what is recorded or shown where the exception's own text
# must not go (it may hold a path, a paper's words or a member's id, and has no bound).
_KINDS: tuple[tuple[type[BaseException], str], ...] = (
    (ResourceError, "the system refused a thread (out of memory or at its limit)"),
    (StateError, "the stored state could not be read"),
    (SourceUnavailable, "a service it needs was unavailable"),
    (FeedError, "a source's answer could not be read"),
    (ConfigError, "a setting that cannot work"),
    (InputError, "input that cannot be used"),
    (PaperscoutError, "refused"),
)
UNEXPECTED = "an unexpected error (logged)"


def failure_kind(exc: BaseException) -> str:
    """What kind of failure `exc` is (a refused thread included), in a few words safe to store and to show a member:
    never the exception's own text."""
    exc = explained(exc)
    return next((words for kind, words in _KINDS if isinstance(exc, kind)), UNEXPECTED)
