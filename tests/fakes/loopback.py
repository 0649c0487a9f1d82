"""What every protocol fake shares: an HTTP server in a daemon thread on 127.0.0.1, and scripted faults.

A fake subclasses `LoopbackFake` and returns its request handler class from `_handler_class`; the handler reads
`self.fake` to record requests (`_record`), take the next fault (`_next_fault`) and sleep in a way `stop()` cuts
short (`_sleep`). Faults are one-shot and consumed in order; a fault with an `endpoint` attribute other than None
applies only to requests of that endpoint. `always` sets one that applies once no one-shot fault does.

`ScriptedFake` is the scripting half alone (faults, request log, the stop event), for a fake whose server is not
http.server (the Discord fake serves aiohttp, for its gateway websocket).
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, Self, TypeVar

FaultT = TypeVar("FaultT")
RequestT = TypeVar("RequestT")


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that does not print the client disconnects and timeouts tests cause on purpose."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class ScriptedFake(Generic[FaultT, RequestT]):
    """Fault queue, request log and stop event of a fake service, whatever serves it. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: deque[FaultT] = deque()
        self._always: FaultT | None = None
        self._requests: list[RequestT] = []
        self._stopping = threading.Event()

    # --- scripting ---

    def enqueue(self, *faults: FaultT) -> None:
        """Queue one-shot faults, each consumed by the first request it applies to."""
        with self._lock:
            self._faults.extend(faults)

    def always(self, fault: FaultT | None) -> None:
        """A fault applied to every matching request once no one-shot fault applies (None to clear)."""
        with self._lock:
            self._always = fault

    def reset(self) -> None:
        """Forget faults and recorded requests."""
        with self._lock:
            self._faults.clear()
            self._always = None
            self._requests.clear()

    @property
    def pending_faults(self) -> int:
        """One-shot faults not yet consumed."""
        with self._lock:
            return len(self._faults)

    @property
    def requests(self) -> list[RequestT]:
        """Every request so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    # --- used by the handlers ---

    def _record(self, request: RequestT) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_fault(self, endpoint: str | None = None) -> FaultT | None:
        def applies(fault: FaultT) -> bool:
            return getattr(fault, "endpoint", None) in (None, endpoint)

        with self._lock:
            for index, fault in enumerate(self._faults):
                if applies(fault):
                    del self._faults[index]
                    return fault
            if self._always is not None and applies(self._always):
                return self._always
            return None

    def _sleep(self, seconds: float) -> None:
        self._stopping.wait(seconds)


class LoopbackFake(ScriptedFake[FaultT, RequestT]):
    """An http.server fake: lifecycle on top of the scripting; subclasses name their handler and thread."""

    thread_name = "fake-service"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__()
        self._address = (host, port)
        self._connections: set[socket.socket] = set()
        self._httpd: QuietServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---

    def start(self) -> Self:
        """Bind and serve in a daemon thread; returns self."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = QuietServer(self._address, self._handler_class())
        httpd.fake = self  # type: ignore[attr-defined]
        self._httpd = httpd
        # A short poll interval keeps stop() (and so every fixture teardown) fast.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=self.thread_name, daemon=True
        )
        self._thread.start()
        return self

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def stop(self) -> None:
        """Stop serving and drop open keep-alive connections: afterwards the port refuses connections.

        Requests sleeping in a delay fault are cut short.
        """
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (after `start`)."""
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Server root, e.g. ``http://127.0.0.1:54321``."""
        return f"http://{self._address[0]}:{self.port}"

    def _track(self, conn: socket.socket, alive: bool) -> None:
        with self._lock:
            if alive:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)
