"""adbwire for asyncio: ``Device`` and ``Page`` whose calls are awaitables.

    import asyncio
    from adbwire import aio

    async def main():
        dev = await aio.Device.connect("tcp:127.0.0.1:5555")
        results = await asyncio.gather(*(dev.shell("true") for _ in range(100)))
        async for chunk in dev.exec_stream("logcat -d"):
            print(chunk)
        page = aio.Page(dev)
        print(await page.snapshot())
        await page.tap(3)

Each call runs the blocking call of ``adbwire`` on a bounded pool of threads (``max_workers``,
64 unless ``set_max_workers`` says otherwise; the GIL is released while a call waits), and its
result wakes the event loop. Any number of calls run at once on one connection, each on its own
ADB stream; calls beyond the pool's size wait for a thread. Cancelling the task awaiting a call
(``asyncio.wait_for`` running out, ``task.cancel()``, Ctrl-C in ``asyncio.run``) ends the call at
once: the streams it opened on the device are closed (the command there is ended) and the
connection stays usable. The exceptions are ``adbwire``'s (``adbwire.TimeoutError`` ...).
Progress callbacks of push and pull run on the event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
import threading
from typing import Any, Awaitable, Callable, Optional, Sequence, TypeVar, Union

import adbwire
from adbwire._adbwire import CancelScope

_T = TypeVar("_T")
_Path = Union[str, "os.PathLike[str]"]
_Progress = Callable[[int, int], object]

_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None
_max_workers = 64
_pool_lock = threading.Lock()


def set_max_workers(count: int) -> None:
    """How many calls run at once in this process (threads of the pool; 64 by default). Calls
    already running keep their threads; the next call uses the new pool."""
    global _pool, _max_workers
    if count < 1:
        raise ValueError("set_max_workers needs a count of at least 1, not %r" % count)
    with _pool_lock:
        old, _pool, _max_workers = _pool, None, count
    if old is not None:
        old.shutdown(wait=False)


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=_max_workers, thread_name_prefix="adbwire-aio"
            )
        return _pool


async def run(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """function(*args, **kwargs) on the pool, its adbwire calls cancelled with the task: what
    every call of this module is, for a function of your own that makes several calls."""
    return await _run(functools.partial(function, *args, **kwargs), None)


async def _run(call: Callable[[], _T], on_cancel: Optional[Callable[[], object]]) -> _T:
    """call() on the pool in a CancelScope; when the task is cancelled, the scope is, then
    on_cancel() runs (what ends a wait the scope does not cover), and the call is waited for."""
    scope = CancelScope()
    loop = asyncio.get_running_loop()
    future: "asyncio.Future[_T]" = loop.run_in_executor(_executor(), scope.run, call)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        scope.cancel()
        if on_cancel is not None:
            on_cancel()
        # The call ends at once now (its streams are closed); waiting for it keeps the
        # connection quiet once the cancellation is seen, and keeps its error from being logged
        # as never retrieved.
        await asyncio.wait([future])
        if not future.cancelled():
            future.exception()
        raise


def _on_loop(progress: Optional[_Progress]) -> Optional[_Progress]:
    """progress, called on the running loop rather than the thread running the transfer."""
    if progress is None:
        return None
    loop = asyncio.get_running_loop()
    callback = progress

    def relay(done: int, total: int) -> None:
        loop.call_soon_threadsafe(callback, done, total)

    return relay


class ExecStream:
    """The output of ``Device.exec_stream``: ``async for chunk in stream`` yields bytes as the
    device sends them (memory stays bounded: the device waits while chunks are not taken).
    Cancelling the task reading it, or ``close()``, ends the command."""

    def __init__(self, stream: adbwire.ExecStream) -> None:
        self._stream = stream

    def __aiter__(self) -> ExecStream:
        return self

    async def __anext__(self) -> bytes:
        # The stream was opened by an earlier call: cancelling this one closes it by hand.
        chunk = await _run(functools.partial(_next_chunk, self._stream), self._stream.close)
        if chunk is None:
            raise StopAsyncIteration
        return chunk

    def close(self) -> None:
        """Ends the command; never blocks. Idempotent."""
        self._stream.close()

    async def __aenter__(self) -> ExecStream:
        return self

    async def __aexit__(self, *args: object) -> None:
        self.close()


def _next_chunk(stream: adbwire.ExecStream) -> Optional[bytes]:
    try:
        return next(stream)
    except StopIteration:
        return None


class Device:
    """One connection to one device (``adbwire.Device``); calls are awaitables, any number at
    once. ``Device(blocking)`` wraps a connected ``adbwire.Device``; ``.blocking`` is it."""

    def __init__(self, device: adbwire.Device) -> None:
        self.blocking = device

    @staticmethod
    async def connect(
        target: str = "",
        options: Optional[adbwire.ConnectOptions] = None,
        *,
        reconnect: bool = False,
    ) -> Device:
        """Connects and completes the handshake (adbwire.Device.connect's targets, errors and
        reconnect). A cancelled connect is left to end by its own deadline, its connection then
        closed."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(
            _executor(), functools.partial(adbwire.Device.connect, reconnect=reconnect), target, options
        )
        try:
            return Device(await asyncio.shield(future))
        except asyncio.CancelledError:
            future.add_done_callback(_close_result)
            raise

    async def shell(self, command: str, timeout: Optional[float] = None) -> adbwire.ShellResult:
        """adbwire.Device.shell: stdout, stderr and the exit code of `sh -c command`."""
        return await run(self.blocking.shell, command, timeout)

    async def exec(self, command: str, timeout: Optional[float] = None) -> bytes:
        """adbwire.Device.exec: the output of exec:command, as bytes."""
        return await run(self.blocking.exec, command, timeout)

    async def exec_stream(self, command: str, timeout: Optional[float] = None) -> ExecStream:
        """adbwire.Device.exec_stream as an async iterator of bytes chunks; timeout bounds each
        wait for the next chunk."""
        return ExecStream(await run(self.blocking.exec_stream, command, timeout))

    async def push(
        self,
        local: _Path,
        remote: str,
        progress: Optional[_Progress] = None,
        timeout: Optional[float] = None,
        compression: str = "any",
    ) -> adbwire.TransferStats:
        """adbwire.Device.push; progress(done, total) runs on the event loop."""
        return await run(
            self.blocking.push, local, remote, _on_loop(progress), timeout, compression
        )

    async def pull(
        self,
        remote: str,
        local: _Path,
        progress: Optional[_Progress] = None,
        timeout: Optional[float] = None,
        compression: str = "any",
        keep_attributes: bool = True,
    ) -> adbwire.TransferStats:
        """adbwire.Device.pull (nothing half-written is left under the final name when
        cancelled); progress(done, total) runs on the event loop."""
        return await run(
            self.blocking.pull,
            remote,
            local,
            _on_loop(progress),
            timeout,
            compression,
            keep_attributes,
        )

    async def install(
        self,
        apks: Union[_Path, Sequence[_Path]],
        progress: Optional[_Progress] = None,
        **options: Any,
    ) -> str:
        """adbwire.Device.install (its keywords); progress(sent, total) runs on the loop."""
        return await run(self.blocking.install, apks, progress=_on_loop(progress), **options)

    async def uninstall(
        self, package: str, keep_data: bool = False, timeout: Optional[float] = None
    ) -> str:
        """adbwire.Device.uninstall."""
        return await run(self.blocking.uninstall, package, keep_data, timeout)

    @property
    def serial(self) -> str:
        return self.blocking.serial

    @property
    def target(self) -> str:
        return self.blocking.target

    @property
    def features(self) -> list[str]:
        return self.blocking.features

    def has_feature(self, feature: str) -> bool:
        return self.blocking.has_feature(feature)

    async def reconnect(self) -> None:
        """Drops the connection and connects again (adbwire.Device.reconnect)."""
        await run(self.blocking.reconnect)

    @property
    def connected(self) -> bool:
        """False once the connection dropped or was closed (adbwire.Device.connected)."""
        return self.blocking.connected

    async def close(self) -> None:
        """Closes the connection (calls waiting on it end with ClosedError)."""
        await run(self.blocking.close)

    async def __aenter__(self) -> Device:
        return self

    async def __aexit__(self, *args: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return "<adbwire.aio.Device %s>" % self.blocking.target


def _close_result(future: "asyncio.Future[Any]") -> None:
    if not future.cancelled() and future.exception() is None:
        future.result().close()


class Page:
    """``adbwire.Page`` with awaitable calls: every method of it (snapshot, tap, type, press,
    swipe, launch, screenshot, call and each agent verb ...) is a coroutine here taking the
    same arguments. Its calls run one at a time, as on adbwire.Page. ``Page(device)`` takes an
    aio.Device (or adbwire.Device) over; ``.device`` is an aio.Device on the same connection;
    ``.blocking`` the adbwire.Page."""

    def __init__(
        self,
        device: Union[Device, adbwire.Device, adbwire.Page],
        options: Optional[adbwire.PageOptions] = None,
    ) -> None:
        if isinstance(device, adbwire.Page):
            self.blocking = device
        else:
            blocking = device.blocking if isinstance(device, Device) else device
            self.blocking = adbwire.Page(blocking, options)
        self.device = Device(self.blocking.device)

    @staticmethod
    async def connect(
        target: str = "",
        options: Optional[adbwire.PageOptions] = None,
        connect_options: Optional[adbwire.ConnectOptions] = None,
    ) -> Page:
        """Connects (adbwire.Page.connect's targets and errors) and returns a Page on it."""
        device = await Device.connect(target, connect_options)
        return Page(device, options)

    async def snapshot(self, timeout: Optional[float] = None) -> str:
        """adbwire.Page.snapshot: the screen as [ref=N] text."""
        return await run(self.blocking.snapshot, timeout)

    async def call(self, verb: str, **arguments: Any) -> adbwire.VerbReply:
        """adbwire.Page.call: one agent verb by name (adbwire.verbs() lists them)."""
        return await run(self.blocking.call, verb, **arguments)

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        if name == "blocking":  # not set yet (__init__ failed): no recursion
            raise AttributeError(name)
        method = getattr(self.blocking, name)
        if not callable(method):
            return method  # a property (last_error, options ...): no waiting
        method_of_page: Callable[..., Any] = method

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await run(method_of_page, *args, **kwargs)

        call.__name__ = name
        call.__doc__ = method.__doc__
        return call

    async def close(self) -> None:
        """Closes the connection."""
        await run(self.blocking.close)

    async def __aenter__(self) -> Page:
        return self

    async def __aexit__(self, *args: object) -> None:
        await self.close()


__all__ = ["Device", "ExecStream", "Page", "run", "set_max_workers"]

