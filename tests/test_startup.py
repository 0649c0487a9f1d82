"""Start-up cost (issue 10): a command loads the embedding model, torch, Chroma and openai only when it needs them.

Each check runs `paperscout` in a fresh interpreter, as a user starts it, and reads which modules it imported.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.core import make_embedder, open_core
from bot.embeddings.embedder import MINILM_SHA256, VERIFIED_WEIGHTS, LocalEmbedder, model_dir, verify_weights
from bot.embeddings.process import ProcessEmbedder
from bot.embeddings.query import QueryEmbedder
from bot.errors import ConfigError, PaperscoutError
from bot.models import Paper
from tests.conftest import StoreDay

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "sentence_transformers", "transformers", "openai", "chromadb", "sklearn")

# Runs the CLI in-process of a fresh interpreter, then prints what it printed and the heavy modules it imported.
_PROBE = """
import contextlib, io, json, resource, sys
from bot.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(HEAVY_NAMES))
helpers = resource.getrusage(resource.RUSAGE_CHILDREN)  # the CPU of any helper process it started and waited for
print(json.dumps({"code": code, "out": out.getvalue(), "heavy": heavy, "helpers": helpers.ru_utime + helpers.ru_stime}))
"""


def run_cold(home: Path, *args: str, cores: int = 0) -> dict[str, object]:
    """`paperscout ARGS` in a new interpreter with state in `home` and no LLM configured (on `cores` CPUs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update(PAPERSCOUT_HOME=str(home), PYTHONPATH=str(ROOT))
    probe = _PROBE.replace("HEAVY_NAMES", repr(HEAVY))
    pinned = ["taskset", "--cpu-list", "0"] if cores == 1 else []
    done = subprocess.run(
        [*pinned, sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_help_imports_no_model_chroma_or_openai(tmp_path: Path) -> None:
    result = run_cold(tmp_path / "home", "--help")
    assert result["code"] == 0
    assert "ask" in str(result["out"])
    assert result["heavy"] == []


def test_ask_and_search_on_an_empty_store_load_neither_model_nor_chroma(tmp_path: Path) -> None:
    asked = run_cold(tmp_path / "home", "ask", "what MoE papers this week?")
    assert asked["code"] == 0
    assert "No papers are stored yet." in str(asked["out"])
    assert asked["heavy"] == []
    searched = run_cold(tmp_path / "home", "search", "sparse attention")
    assert searched["code"] == 0
    assert "No stored paper matches" in str(searched["out"])
    assert searched["heavy"] == []


@pytest.mark.slow
async def test_only_a_question_with_papers_to_compare_loads_the_model(
    tmp_path: Path, embedder: LocalEmbedder, store_day: StoreDay
) -> None:
    home = tmp_path / "home"
    async with open_core(Settings(home=home), embedder) as core:
        papers = await store_day(core)
    author = papers[0].authors[0].split()[-1]

    empty_window = run_cold(home, "ask", "--as-of", "2025-05-26", "what MoE papers in April?")
    assert "No papers are stored from 2025-04-01 to 2025-04-30, so none about MoE" in str(empty_window["out"])
    assert empty_window["heavy"] == []

    by_author = run_cold(home, "ask", "--as-of", "2025-05-26", f"papers by {author} today")
    assert papers[0].id in str(by_author["out"])
    assert by_author["heavy"] == []  # newest first: no vector is read, none is computed

    # the question's vector is computed with NumPy in the command's own process (bot.embeddings.query): no torch,
    # on two cores or on one (no helper process either way, which would import it)
    for cores in (0, 1):
        topic = run_cold(home, "ask", "--as-of", "2025-05-26", f"{papers[0].title} today", cores=cores)
        assert papers[0].id in str(topic["out"])
        assert topic["heavy"] == ["chromadb"]
        assert topic["helpers"] == 0


def test_the_interpreter_skips_its_exit_collections_after_a_command(tmp_path: Path) -> None:
    # registered before main(), so it runs after main's exit handler (atexit runs last-in first-out)
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count()))\n"
        "from bot.cli import main\n"
        "main(['ask', 'MoE papers'])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update(PAPERSCOUT_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    frozen = int(done.stdout.split("frozen")[-1])
    assert frozen > 10_000


def copy_model(target: Path) -> Path:
    """A private copy of the bundled MiniLM directory (weights included) that a test may damage."""
    shutil.copytree(model_dir(), target)
    return target


def test_the_model_loads_on_first_embed_after_its_hash_check_and_only_once(tmp_path: Path) -> None:
    model = copy_model(tmp_path / "minilm")
    weights = model / "model.safetensors"
    embedder = LocalEmbedder(model_path=model)
    weights.write_bytes(weights.read_bytes()[:-1] + b"\0")  # damaged after construction: nothing was read yet
    with pytest.raises(ConfigError, match="sha256"):
        embedder.embed(["sparse attention"])

    shutil.copyfile(model_dir() / "model.safetensors", weights)
    first = embedder.embed(["sparse attention"])
    weights.unlink()  # once loaded, the weights are not opened (nor checked) again
    again = embedder.embed(["sparse attention", "graph neural networks"])
    assert first.shape == (1, 384)
    assert np.allclose(again[0], first[0], atol=1e-5)
    assert np.allclose(np.linalg.norm(again, axis=1), 1.0, atol=1e-5)


def test_a_verified_weights_file_is_not_hashed_again_until_it_changes(tmp_path: Path) -> None:
    weights = copy_model(tmp_path / "minilm") / "model.safetensors"
    record = tmp_path / "home" / VERIFIED_WEIGHTS
    record.parent.mkdir()
    assert verify_weights(weights, record=record) is True  # hashed, and its identity recorded
    assert verify_weights(weights, record=record) is False  # unchanged: the record vouches for it
    assert verify_weights(weights) is True  # without a record, always hashed

    # one byte changed in place, size and mtime put back: the ctime moved, so it is hashed again and fails
    before = weights.stat()
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    with weights.open("r+b") as handle:
        handle.write(data)
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (weights.stat().st_size, weights.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    with pytest.raises(ConfigError, match="sha256"):
        verify_weights(weights, record=record)
    with pytest.raises(ConfigError, match="sha256"):  # a failed check leaves no record that vouches for it
        verify_weights(weights, record=record)

    # the good file back (a new write): hashed once, then vouched for; a forged record for another hash is not
    shutil.copyfile(model_dir() / "model.safetensors", weights)
    assert verify_weights(weights, record=record) is True
    assert verify_weights(weights, record=record) is False
    with pytest.raises(ConfigError, match="sha256"):
        verify_weights(weights, "0" * 64, record=record)
    record.write_text("not json")
    assert verify_weights(weights, record=record) is True


def test_the_query_embedder_checks_the_weights_before_reading_them(tmp_path: Path, embedder: LocalEmbedder) -> None:
    model = copy_model(tmp_path / "minilm")
    weights = model / "model.safetensors"
    record = tmp_path / VERIFIED_WEIGHTS
    query = QueryEmbedder(embedder, model_path=model, verified=record)
    weights.write_bytes(weights.read_bytes()[:-1] + b"\0")  # damaged after construction: nothing was read yet
    with pytest.raises(ConfigError, match="sha256"):
        query.embed(["sparse attention"])
    shutil.copyfile(model_dir() / "model.safetensors", weights)
    assert query.embed(["sparse attention"]).shape == (1, 384)
    assert json.loads(record.read_text())["sha256"] == MINILM_SHA256  # the same record as torch's loading keeps
    weights.unlink()  # once loaded, the weights are not opened (nor checked) again
    assert query.embed(["graph neural networks"]).shape == (1, 384)
    with pytest.raises(ConfigError, match="missing"):
        QueryEmbedder(embedder, model_path=tmp_path / "missing").embed(["anything"])


def test_weights_changed_after_a_large_request_are_checked_before_numpy_reads_them(
    tmp_path: Path, embedder: LocalEmbedder, demo_papers: list[Paper]
) -> None:
    weights = copy_model(tmp_path / "minilm") / "model.safetensors"
    query = QueryEmbedder(embedder, model_path=weights.parent, verified=tmp_path / VERIFIED_WEIGHTS)
    long = [p.text for p in demo_papers[:3]]  # over 256 word pieces in all: torch's (`bulk`), no NumPy weights read
    assert query.embed(long).shape == (3, 384)
    weights.write_bytes(weights.read_bytes()[:-1] + b"\0")
    with pytest.raises(ConfigError, match="sha256"):  # the first short request reads them: checked again first
        query.embed(["sparse attention"])


def test_the_core_embedder_keeps_its_verified_record_in_the_state_directory(tmp_path: Path) -> None:
    embedder = make_embedder(Settings(home=tmp_path / "home"))
    (tmp_path / "home").mkdir()
    assert embedder.embed(["sparse attention"]).shape == (1, 384)
    assert json.loads((tmp_path / "home" / VERIFIED_WEIGHTS).read_text())["sha256"] == MINILM_SHA256


@pytest.mark.slow
def test_the_helper_process_gives_the_same_vectors_bit_for_bit(demo_papers: list[Paper]) -> None:
    texts = [p.text for p in demo_papers[:40]] + [p.title for p in demo_papers[:40]]
    texts += ["what MoE papers this week?", "  padded  ", "Ünïcödé — 数学 and emoji 🤔", ""]
    helper = ProcessEmbedder(batch_size=16)
    try:
        assert helper.embed([]).shape == (0, 384)
        assert helper._child is None  # nothing to embed starts nothing
        np.testing.assert_array_equal(helper.embed(texts), LocalEmbedder(batch_size=16).embed(texts))
        child = helper._child
        assert child is not None
        for question in ("what MoE papers today?", "graph neural networks"):  # one text, as a question: batch of 1
            np.testing.assert_array_equal(helper.embed([question]), LocalEmbedder().embed([question]))
        assert helper._child is child  # one helper serves every request
    finally:
        helper.close()
    assert child.returncode == 0


@pytest.mark.slow
def test_the_helper_process_checks_the_weights_and_reports_a_damaged_file(tmp_path: Path) -> None:
    model = copy_model(tmp_path / "minilm")
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1] + b"\0")
    helper = ProcessEmbedder(model_path=model)
    with pytest.raises(ConfigError, match="sha256"):
        helper.embed(["sparse attention"])
    assert helper._child is None  # stopped; the next text starts a new one
    shutil.copyfile(model_dir() / "model.safetensors", weights)
    try:
        assert helper.embed(["sparse attention"]).shape == (1, 384)
    finally:
        helper.close()
    with pytest.raises(ConfigError, match="missing"):
        ProcessEmbedder(model_path=tmp_path / "missing").embed(["anything"])


def test_a_helper_process_that_dies_is_an_error_not_a_hang() -> None:
    helper = ProcessEmbedder()
    try:
        helper.embed(["sparse attention"])
        assert helper._child is not None
        helper._child.kill()
        helper._child.wait()
        with pytest.raises(PaperscoutError, match="helper process stopped"):
            helper.embed(["sparse attention"])
        assert helper.embed(["sparse attention"]).shape == (1, 384)  # a new helper
    finally:
        helper.close()


class StallingHelper(ProcessEmbedder):
    """A helper that reads the request and never answers (it gives up by itself after a minute)."""

    answer_seconds = 0.5

    def _command(self) -> list[str]:
        return [sys.executable, "-c", "import sys, time; sys.stdin.readline(); time.sleep(60)"]


def test_a_helper_process_that_stalls_is_stopped_with_a_message_not_waited_for() -> None:
    helper = StallingHelper()
    try:
        with pytest.raises(PaperscoutError, match=r"gave no answer in 0.5 s and was stopped.*run the command again"):
            helper.embed(["sparse attention"])
        assert helper._child is None  # killed; the next text starts a new one
    finally:
        helper.close()


def test_building_an_embedder_reads_nothing(tmp_path: Path) -> None:
    embedder = LocalEmbedder(model_path=tmp_path / "missing")
    assert embedder.embed([]).shape == (0, 384)
    with pytest.raises(ConfigError, match="missing"):
        embedder.embed(["anything"])


@pytest.mark.slow
def test_the_encoder_gives_sentence_transformers_vectors_bit_for_bit(demo_papers: list[Paper]) -> None:
    from sentence_transformers import SentenceTransformer

    texts = [p.text for p in demo_papers[:40]] + [p.title for p in demo_papers[:40]]
    texts += ["what MoE papers this week?", "  padded  ", "Ünïcödé — 数学 and emoji 🤔", ""]
    ours = LocalEmbedder(batch_size=16).embed(texts)
    reference = SentenceTransformer(str(model_dir()), device="cpu").encode(
        texts, batch_size=16, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    np.testing.assert_array_equal(ours, reference)
