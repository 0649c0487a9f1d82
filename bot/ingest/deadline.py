"""An overall deadline for blocking HTTP requests (requests/urllib3), and a worker thread that cannot hold up exit.

requests' timeout applies to each read: a server that sends one byte every few seconds never trips it, and a
request can last forever. `DeadlineAdapter` gives each request (status line, headers and body) one deadline: when
it passes, the request's socket is shut down, which ends any read at once, and the request raises
`requests.Timeout`. `abort()` does the same at any moment, for a caller that was cancelled (a SIGTERM).

`in_daemon_thread` runs a blocking call in a daemon thread and awaits it: unlike `asyncio.to_thread`, a call still
running when the process stops does not keep the interpreter from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

T = TypeVar("T")

_current = threading.local()  # the `_Watch` of the request this thread is sending, if any


class _Watch:
    """The sockets one request uses, shut down when its deadline passes or it is aborted."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.expired = False

    def add(self, sock: socket.socket | None) -> None:
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _WatchedHTTPConnection(HTTPConnection):
    def getresponse(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        watch = getattr(_current, "watch", None)
        if watch is not None:
            watch.add(self.sock)
        return super().getresponse(*args, **kwargs)


class _WatchedHTTPSConnection(HTTPSConnection):
    def getresponse(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        watch = getattr(_current, "watch", None)
        if watch is not None:
            watch.add(self.sock)
        return super().getresponse(*args, **kwargs)


class _WatchedPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class DeadlineAdapter(HTTPAdapter):
    """A requests adapter whose every request ends within `deadline` seconds, body included, or raises
    `requests.Timeout`; `abort()` ends the request in flight and refuses the next ones."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self._aborted = False
        self._watches: set[_Watch] = set()
        self._watches_lock = threading.Lock()
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        """The pool manager, with connections that report their socket to the request in flight."""
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _WatchedPool, "https": _WatchedHTTPSPool}

    def abort(self) -> None:
        """End the request in flight now (it raises `requests.Timeout`) and every later one at once."""
        self._aborted = True
        with self._watches_lock:
            watches = list(self._watches)
        for watch in watches:
            watch.expire()

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        """Send `request` and read its whole body before the deadline."""
        if self._aborted:
            raise requests.Timeout("the request was abandoned")
        watch = _Watch()
        timer = threading.Timer(self.deadline, watch.expire)
        timer.daemon = True
        with self._watches_lock:
            self._watches.add(watch)
        _current.watch = watch
        timer.start()
        try:
            response = super().send(request, *args, **kwargs)
            _ = response.content  # the body too, under the same deadline
        except Exception as exc:
            if watch.expired:
                raise requests.Timeout(f"no complete answer within {self.deadline:g} s") from exc
            raise
        finally:
            timer.cancel()
            _current.watch = None
            with self._watches_lock:
                self._watches.discard(watch)
        if watch.expired:  # the socket was shut down just as the last byte arrived: the answer may be cut
            raise requests.Timeout(f"no complete answer within {self.deadline:g} s")
        return response


async def in_daemon_thread(call: Callable[..., T], *args: Any) -> T:
    """`call(*args)` in a new daemon thread, awaited; cancelling the await leaves the thread to finish alone."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result, error = call(*args), None
        except BaseException as exc:
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name=getattr(call, "__name__", "blocking-call"), daemon=True).start()
    return await future
