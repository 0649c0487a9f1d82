"""Documentation generated from `Settings`: one row per field, and `deploy/.env.example` rendered from the rows.

Regenerate the example file after changing a field:  ``python -m bot.config_docs --write``
(``python -m bot.config_docs`` prints it instead). ``tests/test_deploy.py`` fails when the committed file is stale.
"""

from __future__ import annotations

import argparse
import sys
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from bot.config import Settings

ENV_EXAMPLE = Path(__file__).resolve().parents[1] / "deploy" / ".env.example"

# Defaults computed on the machine that runs paperscout: documented in words, so the generated text is the same
# everywhere.
_MACHINE_DEFAULTS = {
    "home": "the user data directory (~/.local/share/paperscout on Linux)",
    "prompts_dir": "the prompts/ folder of the source tree, else ./prompts",
}


class SettingRow(NamedTuple):
    """One configurable setting as documentation shows it."""

    env: str  # environment variable, e.g. PAPERSCOUT_HOME
    default: str  # the default as it would be written in the environment ("" = unset), or words for machine defaults
    description: str
    secret: bool


def _is_secret(annotation: Any) -> bool:
    if annotation is SecretStr:
        return True
    return any(_is_secret(arg) for arg in typing.get_args(annotation))


def env_value(value: Any) -> str:
    """A default written as the environment would spell it: lists comma-joined, booleans lower-case, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(env_value(v) for v in value)
    if isinstance(value, SecretStr):
        return ""
    return str(value)


def _default(name: str, field: FieldInfo) -> str:
    if name in _MACHINE_DEFAULTS:
        return _MACHINE_DEFAULTS[name]
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
        if isinstance(value, Path):
            raise ValueError(f"Settings.{name}: a machine-dependent default needs words in _MACHINE_DEFAULTS")
        return env_value(value)
    if field.default is PydanticUndefined:
        return ""
    return env_value(field.default)


def setting_rows() -> list[SettingRow]:
    """Every `Settings` field in declaration order: env var name, default, description, whether it is a secret."""
    prefix = Settings.model_config.get("env_prefix", "")
    rows = []
    for name, field in Settings.model_fields.items():
        if not field.description:
            raise ValueError(f"Settings.{name} has no description")
        rows.append(
            SettingRow(
                env=f"{prefix}{name}".upper(),
                default=_default(name, field),
                description=" ".join(field.description.split()),
                secret=_is_secret(field.annotation),
            )
        )
    return rows


def _wrap(text: str, width: int = 116) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines


def render_env_example() -> str:
    """The text of `deploy/.env.example`: every setting commented out at its default, with its description."""
    out = [
        "# paperscout settings: copy to deploy/.env (Docker compose) or /etc/paperscout/paperscout.env (systemd),",
        "# uncomment what you change. Every setting is optional; unset ones keep the default shown.",
        "# A TOML file named by PAPERSCOUT_CONFIG can hold the same settings (field names without the prefix);",
        "# the environment wins over it. Secrets are read only from here and are never logged.",
        "# Generated from bot/config.py by `python -m bot.config_docs --write`: edit the field descriptions, not this.",
    ]
    for row in setting_rows():
        out.append("")
        out.extend(f"# {line}" for line in _wrap(row.description))
        if row.secret:
            out.append("# secret: keep this file private (chmod 600).")
        machine = row.env.removeprefix("PAPERSCOUT_").lower() in _MACHINE_DEFAULTS
        if machine:
            out.append(f"# default: {row.default}")
            out.append(f"# {row.env}=")
        else:
            out.append(f"# {row.env}={row.default}")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the generated `.env.example`, or write it over the committed one with --write."""
    parser = argparse.ArgumentParser(prog="python -m bot.config_docs", description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {ENV_EXAMPLE} instead of printing it")
    args = parser.parse_args(argv)
    text = render_env_example()
    if args.write:
        ENV_EXAMPLE.write_text(text, encoding="utf-8")
        print(f"wrote {ENV_EXAMPLE}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
