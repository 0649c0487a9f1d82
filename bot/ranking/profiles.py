"""Interest profiles as TOML: a profile file or pasted text read and checked (format: `bot.store.profile_format`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bot.models import Profile
from bot.store.profile_format import ProfileError, profile_from_mapping

MAX_PROFILE_FILE = 200_000  # bytes of TOML; the bundled example is under 2,000


def profile_from_toml(text: str, source: str = "the profile") -> Profile:
    """Parse TOML profile text (an uploaded file, a pasted profile); raises `ProfileError` naming `source`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{source}: not valid TOML: {exc}") from None
    try:
        return profile_from_mapping(data)
    except ProfileError as exc:
        raise ProfileError(f"{source}: {exc}") from None


def load_profile(path: str | Path) -> Profile:
    """Read a TOML profile file; raises `ProfileError` naming the file and the problem."""
    file = Path(path)
    try:
        # read with a bound, whatever the size the file claims (/dev/zero, a pipe, a FIFO say 0 and never end)
        with file.open("rb") as handle:
            raw = handle.read(MAX_PROFILE_FILE + 1)
        if len(raw) > MAX_PROFILE_FILE:
            raise ProfileError(f"{file}: more than {MAX_PROFILE_FILE:,} bytes; a profile is at most that")
        data = tomllib.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"profile file not found: {file}") from None
    except IsADirectoryError:
        raise ProfileError(f"{file} is a directory; give a TOML profile file") from None
    except OSError as exc:
        raise ProfileError(f"{file}: cannot be read ({exc.strerror or exc.__class__.__name__})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ProfileError(f"{file}: not valid TOML: {exc.__class__.__name__}: {exc}") from None
    try:
        return profile_from_mapping(data)
    except ProfileError as exc:
        raise ProfileError(f"{file}: {exc}") from None
