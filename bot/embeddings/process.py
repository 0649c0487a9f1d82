"""MiniLM in a helper process, for a one-shot command's larger requests: torch on another core.

A one-shot command (`paperscout ask`, `search`) computes a question's vector with NumPy in its own process
(`bot.embeddings.query`); a request too large for that (over 256 word pieces in all: several texts, as a member's
profile makes) is computed with torch, and importing torch and loading the model takes 1.5-2 s of CPU. In a
helper process it loads on the other core while the command goes on (two threads of one interpreter would take
turns holding the GIL). The helper runs the same encoder (`bot.embeddings.minilm`) with the same torch thread count
as `LocalEmbedder`, so its vectors are the same bit for bit (tests/test_startup.py).

The bot and the console keep the model in their own process, where it stays loaded. The helper is started by
the first text to embed and verifies the weights' hash before loading them, reads one request per line on stdin
and exits when stdin closes (also when the command dies). One that dies is an error naming its exit code; one that
leaves a request unanswered for `answer_seconds` is killed and the command says so, rather than waiting for ever.

Protocol: a request is one JSON line `{"texts": [...], "batch_size": n}`; the reply is a JSON line
`{"rows": r, "dim": d}` followed by r*d little-endian float32 values, or `{"error": "..."}` when the model
could not be loaded (the helper then exits).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import types
from pathlib import Path
from typing import IO, Any

import numpy as np

from bot.embeddings.embedder import MiniLMEmbedder, load_encoder, model_dir
from bot.errors import ConfigError, PaperscoutError

_HELPER = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from bot.embeddings.process import main; main(sys.argv[2:])"
)


def _import_path() -> list[str]:
    """This process's import path for the helper: the same `bot` first, and no entry that means "the working
    directory" (which may hold anything by the time the helper starts)."""
    package_root = str(Path(__file__).resolve().parents[2])
    path = [p for p in sys.path if p]
    if package_root not in {os.path.realpath(p) for p in path}:
        path.insert(0, package_root)
    return path


class ProcessEmbedder(MiniLMEmbedder):
    """all-MiniLM-L6-v2 computed by a helper process that the first text to embed starts (building one reads
    nothing)."""

    _child: subprocess.Popen[bytes] | None = None
    # how long one request may go unanswered, model load included (a few seconds; a minute on a machine busy with
    # ten times its cores): a helper that stalls is killed and the command says so instead of waiting for ever
    answer_seconds = 300.0

    def _start(self) -> subprocess.Popen[bytes]:
        if self._child is None:
            # OpenMP threads that wait sleep at once instead of spinning: the same work split the same way (so the
            # same vectors), without burning 0.4 s of CPU at the barriers when the cores are busy (a shared machine)
            env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
            self._child = subprocess.Popen(self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        return self._child

    def _command(self) -> list[str]:
        path = self._model_path or model_dir()
        args = [json.dumps(_import_path()), str(path), str(self.threads), str(self._verified or "")]
        return [sys.executable, "-P", "-c", _HELPER, *args]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed `texts` in the helper process; returns normalised float32 vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            child = self._start()
            assert child.stdin is not None and child.stdout is not None
            # killing a helper that stalls ends the reads below: they then find its output closed
            stalled = threading.Event()
            watchdog = threading.Timer(self.answer_seconds, lambda: (stalled.set(), child.kill()))
            watchdog.start()
            try:
                child.stdin.write(json.dumps({"texts": texts, "batch_size": self.batch_size}).encode() + b"\n")
                child.stdin.flush()
                header = json.loads(child.stdout.readline() or b"null")
                rows, dim = (int(header["rows"]), int(header["dim"])) if _answered(header) else (0, 0)
                data = child.stdout.read(rows * dim * 4) if rows else b""
            except (OSError, ValueError, TypeError):
                header, rows, dim, data = None, 0, 0, b""
            finally:
                watchdog.cancel()
            if isinstance(header, dict) and "error" in header:
                self._stop()
                raise ConfigError(str(header["error"]))
            if not _answered(header) or len(data) != rows * dim * 4:
                self._stop()
                if stalled.is_set():
                    raise PaperscoutError(
                        f"the embedding helper process gave no answer in {self.answer_seconds:g} s and was stopped "
                        "(a machine this busy may need longer); run the command again"
                    )
                raise PaperscoutError(f"the embedding helper process stopped (exit code {child.returncode})")
            if stalled.is_set():  # killed just after it answered: the next text starts a new one
                self._stop()
            return np.frombuffer(data, dtype="<f4").reshape(rows, dim).astype(np.float32)

    def _stop(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.stdin is not None:
            with contextlib.suppress(OSError):
                child.stdin.close()  # the helper exits at the end of its input
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()

    def close(self) -> None:
        """Stop the helper process, if one was started."""
        with self._lock:
            self._stop()


def _answered(header: object) -> bool:
    return isinstance(header, dict) and "rows" in header and "dim" in header


def _import_torch_for_inference() -> None:
    """torch without its Python meta kernels: a quarter of its import time (0.25 s), spent registering shape
    functions that only meta and fake tensors use (torch.compile, torch.export). Eager inference on the CPU, all
    this process ever runs, never calls them; the vectors are checked bit for bit against sentence-transformers."""
    if "torch" not in sys.modules:
        sys.modules.setdefault("torch._meta_registrations", types.ModuleType("torch._meta_registrations"))
    import torch  # noqa: F401


def _reply(out: IO[bytes], header: dict[str, Any], payload: bytes = b"") -> None:
    out.write(json.dumps(header).encode() + b"\n" + payload)
    out.flush()


def serve(path: Path, threads: int, verified: Path | None, requests: IO[bytes], out: IO[bytes]) -> int:
    """The helper's side: load the model as `LocalEmbedder` does, then answer requests until the input ends."""
    try:
        _import_torch_for_inference()  # before `load_encoder` imports torch the usual way
        encoder = load_encoder(path, threads, verified)
    except PaperscoutError as exc:
        requests.readline()  # answer the first request with the error, as `LocalEmbedder.embed` raises it
        _reply(out, {"error": str(exc)})
        return 1
    for line in requests:
        request = json.loads(line)
        vectors = np.ascontiguousarray(encoder.encode(request["texts"], int(request["batch_size"])), dtype="<f4")
        _reply(out, {"rows": vectors.shape[0], "dim": vectors.shape[1]}, vectors.tobytes())
    return 0


def main(args: list[str]) -> None:
    """The helper process: MODEL_DIR THREADS VERIFIED_RECORD (empty for none); never returns."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the command, which then closes our input
    path, threads, verified = args
    code = serve(Path(path), int(threads), Path(verified) if verified else None, sys.stdin.buffer, sys.stdout.buffer)
    sys.stdout.flush()
    os._exit(code)  # torch's and the interpreter's teardown would only delay the command that waits for us
