"""The in-process embedding model (`LocalEmbedder`, when no helper process embeds) gets the OpenMP wait policy the
helper process gets: its idle threads sleep instead of spinning on a shared machine's busy cores."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EMBED_IN_PROCESS = """
import os, sys
from bot.embeddings.embedder import LocalEmbedder
embedder = LocalEmbedder(threads=1)
assert "torch" not in sys.modules, "torch is first imported by the model's load"
embedder.embed(["sparse routing of experts"])
print(os.environ.get("OMP_WAIT_POLICY"))
"""


@pytest.mark.parametrize(("given", "used"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_the_in_process_model_sets_a_passive_wait_before_torch_loads_unless_one_is_given(
    given: str | None, used: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    done = subprocess.run(
        [sys.executable, "-c", EMBED_IN_PROCESS],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [used]
